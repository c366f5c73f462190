// SPDX-License-Identifier: MIT
/* dm-verity hash trees: docs/format.md, "dm-verity hash trees". */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "erofs/format.h"
#include "erofs/hash.h"
#include "erofs/verity.h"

#define VERITY_SB_SIZE 512
#define VERITY_SIGNATURE "verity\0\0"
#define VERITY_LEVELS_MAX 63
#define HEX_MAX (2 * EROFS_DIGEST_MAX + 1)

struct erofs_verity {
	struct erofs_verity_info info;
	const struct erofs_source *data, *hash;
	enum erofs_digest_alg alg;
	unsigned int digest_size;
	unsigned int slot_size; /* a digest's room in a hash block */
	uint64_t level_start[VERITY_LEVELS_MAX]; /* byte in hash; 0: leaves */
	uint64_t level_blocks[VERITY_LEVELS_MAX];
	uint8_t *upper; /* levels 1.. in a row, read and checked */
	uint64_t upper_first[VERITY_LEVELS_MAX]; /* index in upper, by level */
	uint8_t root[EROFS_DIGEST_MAX]; /* a tree of no levels: block 0's */
};

static bool is_pow2(uint32_t x)
{
	return x && !(x & (x - 1));
}

/* A problem of the tree: the prefix joins fmt when this is compiled. */
#define verity_bad(err, code, at, fmt, ...)                        \
	erofs_error(err, code, EROFS_NO_NID, at, "dm-verity " fmt, \
		    ##__VA_ARGS__)

/* The digest of block (len bytes), salted as the tree's type says. */
static void verity_digest(const struct erofs_verity *v, const uint8_t *block,
			  size_t len, uint8_t *out)
{
	const struct erofs_verity_info *i = &v->info;
	struct erofs_digest d;

	erofs_digest_init(&d, v->alg);
	if (i->hash_type == 1)
		erofs_digest_update(&d, i->salt, i->salt_size);
	erofs_digest_update(&d, block, len);
	if (i->hash_type == 0)
		erofs_digest_update(&d, i->salt, i->salt_size);
	erofs_digest_final(&d, out);
}

static int verity_parse_sb(struct erofs_verity *v, const uint8_t *sb,
			   uint64_t at, struct erofs_err *err)
{
	struct erofs_verity_info *i = &v->info;

	if (memcmp(sb, VERITY_SIGNATURE, 8))
		return verity_bad(err, -EINVAL, at,
				  "superblock: no \"verity\" signature");
	if (erofs_get32(sb + 8) != 1) {
		return verity_bad(err, -EOPNOTSUPP, at,
				  "superblock: version %u, not 1",
				  erofs_get32(sb + 8));
	}
	i->hash_type = erofs_get32(sb + 12);
	memcpy(i->algorithm, sb + 32, sizeof(i->algorithm));
	i->algorithm[sizeof(i->algorithm) - 1] = '\0';
	i->data_block_size = erofs_get32(sb + 64);
	i->hash_block_size = erofs_get32(sb + 68);
	i->data_blocks = erofs_get64(sb + 72);
	i->salt_size = erofs_get16(sb + 80);
	if (i->salt_size > EROFS_VERITY_SALT_MAX) {
		return verity_bad(err, -EINVAL, at,
				  "superblock: salt of %u bytes", i->salt_size);
	}
	memcpy(i->salt, sb + 88, i->salt_size);
	return 0;
}

/* The hash type and algorithm, from a superblock or from the caller. */
static int verity_check_hash(struct erofs_verity *v, const char *where,
			     struct erofs_err *err)
{
	struct erofs_verity_info *i = &v->info;

	if (i->hash_type > 1) {
		return verity_bad(err, -EOPNOTSUPP, EROFS_NO_OFFSET,
				  "%s: hash type %u, not 0 or 1", where,
				  i->hash_type);
	}
	v->alg = erofs_digest_by_name(i->algorithm);
	if (v->alg == EROFS_DIGEST_NONE) {
		return verity_bad(
			err, -EOPNOTSUPP, EROFS_NO_OFFSET,
			"%s: hash algorithm \"%.31s\"; this build checks sha1, sha256 and sha512",
			where, i->algorithm);
	}
	v->digest_size = erofs_digest_size(v->alg);
	return 0;
}

/*
 * A hash block holds the largest power of two of digests that fits; in
 * format 1 each sits in a slot of the block's size over that count (32
 * bytes a sha1 digest), in format 0 they follow each other
 * (docs/format.md, "dm-verity hash trees").
 */
static unsigned int verity_digests_per_block(uint32_t block,
					     unsigned int digest)
{
	unsigned int per = 1;

	while (per * 2 <= block / digest)
		per *= 2;
	return per;
}

/* Block sizes, and the levels of the tree: leaves first. */
static int verity_geometry(struct erofs_verity *v, const char *where,
			   uint64_t tree_start, struct erofs_err *err)
{
	struct erofs_verity_info *i = &v->info;
	uint64_t blocks = i->data_blocks, per, pos;
	unsigned int l;

	if (!is_pow2(i->data_block_size) || i->data_block_size < 512 ||
	    i->data_block_size > 65536 || !is_pow2(i->hash_block_size) ||
	    i->hash_block_size < 512 || i->hash_block_size > 65536) {
		return verity_bad(
			err, -EINVAL, EROFS_NO_OFFSET,
			"%s: data blocks of %u bytes, hash blocks of %u (powers of two from 512 to 65536)",
			where, i->data_block_size, i->hash_block_size);
	}
	if (!blocks) {
		return verity_bad(err, -EINVAL, EROFS_NO_OFFSET,
				  "%s: no data blocks", where);
	}
	if (v->digest_size > i->hash_block_size) {
		return verity_bad(
			err, -EINVAL, EROFS_NO_OFFSET,
			"%s: %s digests do not fit hash blocks of %u bytes",
			where, i->algorithm, i->hash_block_size);
	}
	per = verity_digests_per_block(i->hash_block_size, v->digest_size);
	v->slot_size = i->hash_type ? i->hash_block_size / per : v->digest_size;
	i->data_per_leaf = per;
	/* one data block has no tree: the root hash is its digest */
	for (l = 0; blocks > 1; l++) {
		if (l == VERITY_LEVELS_MAX)
			return verity_bad(err, -EINVAL, EROFS_NO_OFFSET,
					  "tree: too many levels");
		blocks = blocks / per + !!(blocks % per);
		v->level_blocks[l] = blocks;
	}
	i->levels = l;
	i->leaf_blocks = l ? v->level_blocks[0] : 1;
	pos = tree_start;
	for (l = i->levels; l--;) {
		v->level_start[l] = pos;
		pos += v->level_blocks[l] * i->hash_block_size;
	}
	if (pos > erofs_source_size(v->hash)) {
		return verity_bad(
			err, -EFSCORRUPTED, EROFS_NO_OFFSET,
			"tree: %u levels end at byte %llu, past the end of the hash device (%llu bytes)",
			i->levels, (unsigned long long)pos,
			(unsigned long long)erofs_source_size(v->hash));
	}
	if (i->data_blocks > erofs_source_size(v->data) / i->data_block_size) {
		return verity_bad(
			err, -EFSCORRUPTED, EROFS_NO_OFFSET,
			"%s: %llu data blocks of %u bytes, more than the image holds (%llu bytes)",
			where, (unsigned long long)i->data_blocks,
			i->data_block_size,
			(unsigned long long)erofs_source_size(v->data));
	}
	return 0;
}

static void hex(const uint8_t *d, size_t n, char *out)
{
	size_t k;

	for (k = 0; k < n; k++)
		sprintf(out + 2 * k, "%02x", d[k]);
}

/*
 * Hash block k of level l, and its expected digest: the root's for the
 * top block, else the slot of it in the block above.
 */
static const uint8_t *verity_expected(const struct erofs_verity *v,
				      unsigned int l, uint64_t k,
				      const uint8_t *root)
{
	uint64_t per = v->info.data_per_leaf, parent;

	if (l + 1 == v->info.levels)
		return root;
	parent = v->upper_first[l + 1] + k / per;
	return v->upper + parent * v->info.hash_block_size +
	       (k % per) * v->slot_size;
}

/*
 * Hash block b, block k of level l at byte at of the hash device, against
 * expected: its slot in the block above, or the root hash for the top.
 */
static int verity_check_block(const struct erofs_verity *v, const uint8_t *b,
			      const uint8_t *expected, unsigned int l,
			      uint64_t k, uint64_t at, struct erofs_err *err)
{
	uint8_t digest[EROFS_DIGEST_MAX];
	char got[HEX_MAX], want[HEX_MAX];

	verity_digest(v, b, v->info.hash_block_size, digest);
	if (!memcmp(digest, expected, v->digest_size))
		return 0;
	if (l + 1 < v->info.levels && !l)
		return verity_bad(err, -EFSCORRUPTED, at,
				  "tree: leaf hash block %llu fails its hash",
				  (unsigned long long)k);
	if (l + 1 < v->info.levels)
		return verity_bad(
			err, -EFSCORRUPTED, at,
			"tree: hash block %llu of level %u fails its hash",
			(unsigned long long)k, l);
	hex(digest, v->digest_size, got);
	hex(expected, v->digest_size, want);
	return verity_bad(err, -EFSCORRUPTED, at,
			  "tree: its root hash is %s, not %s", got, want);
}

/*
 * Read the levels above the leaves, top down, each block checked; a tree
 * of one level has its one leaf checked under the root here, once.
 */
static int verity_read_upper(struct erofs_verity *v, const uint8_t *root,
			     struct erofs_err *err)
{
	const struct erofs_verity_info *i = &v->info;
	uint64_t total = 0, k, at;
	unsigned int l, lowest = i->levels > 1 ? 1 : 0;
	int ret;

	for (l = lowest; l < i->levels; l++) {
		v->upper_first[l] = total;
		total += v->level_blocks[l];
	}
	v->upper = malloc(total * i->hash_block_size);
	if (!v->upper)
		return erofs_error(err, -ENOMEM, EROFS_NO_NID, EROFS_NO_OFFSET,
				   "out of memory");
	for (l = i->levels; l-- > lowest;) {
		for (k = 0; k < v->level_blocks[l]; k++) {
			uint8_t *b = v->upper + (v->upper_first[l] + k) *
							i->hash_block_size;

			at = v->level_start[l] + k * i->hash_block_size;
			ret = erofs_source_read(v->hash, b, i->hash_block_size,
						at, err);
			if (!ret)
				ret = verity_check_block(
					v, b, verity_expected(v, l, k, root), l,
					k, at, err);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/* The superblock at o->hash_offset, the tree after it; or the caller's. */
static int verity_params(struct erofs_verity *v,
			 const struct erofs_verity_opts *o,
			 uint64_t *tree_start, struct erofs_err *err)
{
	uint8_t sb[VERITY_SB_SIZE];
	int ret;

	if (o->params) {
		v->info = *o->params;
		*tree_start = o->hash_offset;
		return 0;
	}
	ret = erofs_source_read(o->hash, sb, sizeof(sb), o->hash_offset, err);
	if (!ret)
		ret = verity_parse_sb(v, sb, o->hash_offset, err);
	*tree_start = o->hash_offset + v->info.hash_block_size;
	return ret;
}

int erofs_verity_open(struct erofs_verity **out,
		      const struct erofs_verity_opts *o, struct erofs_err *err)
{
	struct erofs_verity *v = calloc(1, sizeof(*v));
	const char *where = o->params ? o->params_from : "superblock";
	uint64_t tree_start;
	int ret;

	*out = NULL;
	if (!v)
		return erofs_error(err, -ENOMEM, EROFS_NO_NID, EROFS_NO_OFFSET,
				   "out of memory");
	v->data = o->data;
	v->hash = o->hash;
	ret = verity_params(v, o, &tree_start, err);
	if (!ret)
		ret = verity_check_hash(v, where, err);
	if (!ret)
		ret = verity_geometry(v, where, tree_start, err);
	if (!ret && o->root_len != v->digest_size)
		ret = verity_bad(err, -EINVAL, EROFS_NO_OFFSET,
				 "root hash of %zu bytes, not the %u of %s",
				 o->root_len, v->digest_size,
				 v->info.algorithm);
	/* a tree in the image itself must lie past the data it covers */
	if (!ret && o->hash == o->data &&
	    o->hash_offset < v->info.data_blocks * v->info.data_block_size)
		ret = verity_bad(
			err, -EINVAL, o->hash_offset,
			"tree at byte %llu, inside the %llu data blocks it covers",
			(unsigned long long)o->hash_offset,
			(unsigned long long)v->info.data_blocks);
	if (!ret && v->info.levels)
		ret = verity_read_upper(v, o->root, err);
	else if (!ret)
		memcpy(v->root, o->root, v->digest_size);
	if (ret) {
		erofs_verity_close(v);
		return ret;
	}
	*out = v;
	return 0;
}

void erofs_verity_close(struct erofs_verity *v)
{
	if (!v)
		return;
	free(v->upper);
	free(v);
}

const struct erofs_verity_info *erofs_verity_info(const struct erofs_verity *v)
{
	return &v->info;
}

/*
 * Data blocks [k, end) in reads of up to VERITY_READ_BYTES (one block at
 * the least): a read a block was a system call for every 4 KiB.
 */
#define VERITY_READ_BYTES (1u << 20)

static int verity_check_data(const struct erofs_verity *v, const uint8_t *hb,
			     uint64_t first, uint64_t end, uint8_t *db,
			     size_t per_read, uint64_t *bad, size_t *nbad,
			     struct erofs_err *err)
{
	const struct erofs_verity_info *i = &v->info;
	uint8_t digest[EROFS_DIGEST_MAX];
	uint64_t k, j, n;
	int ret;

	for (k = first; k < end; k += n) {
		n = end - k < per_read ? end - k : per_read;
		ret = erofs_source_read(v->data, db, n * i->data_block_size,
					k * i->data_block_size, err);
		if (ret)
			return ret;
		for (j = 0; j < n; j++) {
			verity_digest(v, db + j * i->data_block_size,
				      i->data_block_size, digest);
			if (memcmp(digest, hb + (k + j - first) * v->slot_size,
				   v->digest_size))
				bad[(*nbad)++] = k + j;
		}
	}
	return 0;
}

int erofs_verity_check_leaf(const struct erofs_verity *v, uint64_t leaf,
			    uint64_t *bad, size_t *nbad, struct erofs_err *err)
{
	const struct erofs_verity_info *i = &v->info;
	uint64_t at = v->level_start[0] + leaf * i->hash_block_size;
	uint64_t first = leaf * i->data_per_leaf, end;
	size_t per_read = VERITY_READ_BYTES / i->data_block_size;
	uint8_t *hb = NULL, *db;
	const uint8_t *leaf_block;
	int ret;

	*nbad = 0;
	if (leaf >= i->leaf_blocks)
		return verity_bad(err, -EINVAL, EROFS_NO_OFFSET,
				  "leaf past the tree");
	end = first + i->data_per_leaf;
	if (end > i->data_blocks)
		end = i->data_blocks;
	if (!per_read)
		per_read = 1;
	if (per_read > end - first)
		per_read = (size_t)(end - first);
	/* no levels: the root stands for the leaf; one: opening checked it */
	leaf_block = !i->levels ? v->root : i->levels == 1 ? v->upper : NULL;
	if (!leaf_block)
		hb = malloc(i->hash_block_size);
	db = malloc(per_read * i->data_block_size);
	ret = (leaf_block || hb) && db
		      ? 0
		      : erofs_error(err, -ENOMEM, EROFS_NO_NID, EROFS_NO_OFFSET,
				    "out of memory");
	if (!ret && !leaf_block) {
		ret = erofs_source_read(v->hash, hb, i->hash_block_size, at,
					err);
		if (!ret)
			ret = verity_check_block(
				v, hb, verity_expected(v, 0, leaf, NULL), 0,
				leaf, at, err);
		leaf_block = hb;
	}
	if (!ret)
		ret = verity_check_data(v, leaf_block, first, end, db, per_read,
					bad, nbad, err);
	free(hb);
	free(db);
	return ret;
}
