// SPDX-License-Identifier: MIT
/* dm-verity hash trees: docs/format.md, "dm-verity hash trees". */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "erofs/format.h"
#include "erofs/hash.h"
#include "erofs/verity.h"
#include "internal.h"
#include "container/container_internal.h"

#define VERITY_SB_SIZE 512
#define VERITY_SIGNATURE "verity\0\0"
#define VERITY_LEVELS_MAX 63
#define HEX_MAX (2 * EROFS_DIGEST_MAX + 1)

/*
 * Leaf hash blocks read and checked against the level above, kept for
 * the reads that follow (dm-verity keeps its verified hash blocks so):
 * a few, each found by its leaf's number, under a lock of its own.
 */
#define VERITY_LEAF_SLOTS 64

struct verity_leaf_slot {
	pthread_mutex_t lock;
	uint64_t leaf; /* UINT64_MAX: none yet */
	uint8_t *block;
};

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
	struct verity_leaf_slot *slots; /* VERITY_LEAF_SLOTS, with 2+ levels */
	/* a bit a data block: a read checked it (atomic) */
	uint64_t *verified;
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
	if (pos > v->hash->size) {
		return verity_bad(
			err, -EFSCORRUPTED, EROFS_NO_OFFSET,
			"tree: %u levels end at byte %llu, past the end of the hash device (%llu bytes)",
			i->levels, (unsigned long long)pos,
			(unsigned long long)v->hash->size);
	}
	if (i->data_blocks > v->data->size / i->data_block_size) {
		return verity_bad(
			err, -EFSCORRUPTED, EROFS_NO_OFFSET,
			"%s: %llu data blocks of %u bytes, more than the image holds (%llu bytes)",
			where, (unsigned long long)i->data_blocks,
			i->data_block_size, (unsigned long long)v->data->size);
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

/* The blocks level l - 1 has (the data's for the leaves, l 0). */
static uint64_t verity_children(const struct erofs_verity *v, unsigned int l)
{
	return l ? v->level_blocks[l - 1] : v->info.data_blocks;
}

static bool all_zero(const uint8_t *p, size_t len)
{
	return !len || (!p[0] && !memcmp(p, p + 1, len - 1));
}

/*
 * What block k of level l holds besides the digests of its children is
 * zero: the room after each digest in its slot, the slots past the last
 * child, the end of the block. veritysetup writes it so and checks it;
 * the root hash does not cover what the superblock says of the tree's
 * size, and these zeros are what tie the two.
 */
static int verity_check_spare(const struct erofs_verity *v, const uint8_t *b,
			      unsigned int l, uint64_t k, uint64_t at,
			      struct erofs_err *err)
{
	uint64_t per = v->info.data_per_leaf, children = verity_children(v, l);
	uint64_t used = children - k * per < per ? children - k * per : per;
	size_t pad = v->slot_size - v->digest_size, j;

	for (j = 0; j < used; j++)
		if (!all_zero(b + j * v->slot_size + v->digest_size, pad))
			break;
	if (j == used &&
	    all_zero(b + used * v->slot_size,
		     v->info.hash_block_size - used * v->slot_size))
		return 0;
	return verity_bad(
		err, -EFSCORRUPTED, at,
		"tree: hash block %llu of level %u holds bytes other than zeros past its %llu digests (the tree is not the size its parameters say)",
		(unsigned long long)k, l, (unsigned long long)used);
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
		return verity_check_spare(v, b, l, k, at, err);
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
			ret = erofs_source_read_runs(
				v->hash, b, i->hash_block_size, at, err);
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
	uint64_t size;
	int ret;

	if (o->params) {
		v->info = *o->params;
		*tree_start = o->hash_offset;
		return 0;
	}
	/* too short for a superblock: not a tree, as one without "verity" */
	size = erofs_source_size(o->hash);
	if (!erofs_range_ok(o->hash_offset, sizeof(sb), size))
		return verity_bad(
			err, -EINVAL, o->hash_offset,
			"superblock: the hash device ends at byte %llu, too soon for one at %llu",
			(unsigned long long)size,
			(unsigned long long)o->hash_offset);
	ret = erofs_source_read_runs(o->hash, sb, sizeof(sb), o->hash_offset,
				     err);
	if (!ret)
		ret = verity_parse_sb(v, sb, o->hash_offset, err);
	*tree_start = o->hash_offset + v->info.hash_block_size;
	return ret;
}

/* The kept leaves (with two levels or more) and the bits of blocks read. */
static int verity_alloc_state(struct erofs_verity *v, struct erofs_err *err)
{
	const struct erofs_verity_info *i = &v->info;
	unsigned int k;

	v->verified =
		calloc((size_t)(i->data_blocks / 64 + 1), sizeof(*v->verified));
	if (!v->verified)
		return erofs_error(err, -ENOMEM, EROFS_NO_NID, EROFS_NO_OFFSET,
				   "out of memory");
	if (i->levels < 2)
		return 0;
	v->slots = calloc(VERITY_LEAF_SLOTS, sizeof(*v->slots));
	for (k = 0; v->slots && k < VERITY_LEAF_SLOTS; k++) {
		v->slots[k].leaf = UINT64_MAX;
		v->slots[k].block = malloc(i->hash_block_size);
		pthread_mutex_init(&v->slots[k].lock, NULL);
		if (!v->slots[k].block)
			break;
	}
	if (v->slots && k == VERITY_LEAF_SLOTS)
		return 0;
	return erofs_error(err, -ENOMEM, EROFS_NO_NID, EROFS_NO_OFFSET,
			   "out of memory");
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
	if (!ret)
		ret = verity_alloc_state(v, err);
	if (ret) {
		erofs_verity_close(v);
		return ret;
	}
	*out = v;
	return 0;
}

void erofs_verity_close(struct erofs_verity *v)
{
	unsigned int k;

	if (!v)
		return;
	for (k = 0; v->slots && k < VERITY_LEAF_SLOTS; k++) {
		free(v->slots[k].block);
		pthread_mutex_destroy(&v->slots[k].lock);
	}
	free(v->slots);
	free(v->verified);
	free(v->upper);
	free(v);
}

const struct erofs_verity_info *erofs_verity_info(const struct erofs_verity *v)
{
	return &v->info;
}

/* Has a read checked data block b (and so reported it if it failed)? */
static bool verity_was_read(const struct erofs_verity *v, uint64_t b)
{
	uint64_t word = __atomic_load_n(&v->verified[b / 64], __ATOMIC_RELAXED);

	return (word >> (b % 64)) & 1;
}

static void verity_mark_read(const struct erofs_verity *v, uint64_t b)
{
	__atomic_fetch_or(&v->verified[b / 64], 1ULL << (b % 64),
			  __ATOMIC_RELAXED);
}

/* Leaf block leaf, read and checked against the level above, into out. */
static int verity_read_leaf(const struct erofs_verity *v, uint64_t leaf,
			    uint8_t *out, struct erofs_err *err)
{
	uint64_t at = v->level_start[0] + leaf * v->info.hash_block_size;
	int ret = erofs_source_read_runs(v->hash, out, v->info.hash_block_size,
					 at, err);

	return ret ? ret
		   : verity_check_block(v, out,
					verity_expected(v, 0, leaf, NULL), 0,
					leaf, at, err);
}

/* Digests of data blocks compared under one hold of their leaf. */
#define VERITY_GROUP 32

/*
 * The digests of data blocks [b, b + n), all of one leaf, against those
 * the leaf holds: the index of the first that differs, n when none does,
 * or a negative errno when the leaf cannot be had (it fails its own
 * hash: err says so).
 */
static int verity_compare(const struct erofs_verity *v, uint64_t b,
			  unsigned int n, uint8_t (*digests)[EROFS_DIGEST_MAX],
			  struct erofs_err *err)
{
	uint64_t per = v->info.data_per_leaf, leaf = b / per;
	const uint8_t *held = NULL;
	struct verity_leaf_slot *slot = NULL;
	unsigned int j;
	int ret = 0;

	if (!v->info.levels)
		held = v->root;
	else if (v->info.levels == 1)
		held = v->upper;
	else
		slot = &v->slots[leaf % VERITY_LEAF_SLOTS];
	if (slot) {
		pthread_mutex_lock(&slot->lock);
		if (slot->leaf != leaf) {
			slot->leaf = UINT64_MAX;
			ret = verity_read_leaf(v, leaf, slot->block, err);
			if (!ret)
				slot->leaf = leaf;
		}
		held = slot->block;
	}
	for (j = 0; !ret && j < n; j++)
		if (memcmp(digests[j], held + (b + j) % per * v->slot_size,
			   v->digest_size))
			break;
	if (slot)
		pthread_mutex_unlock(&slot->lock);
	return ret ? ret : (int)j;
}

/*
 * Data blocks [first, first + n) in db, each against its leaf; the first
 * that differs is *bad (UINT64_MAX: none). 0, or a negative errno when
 * a leaf cannot be had.
 */
static int verity_check_blocks(const struct erofs_verity *v, const uint8_t *db,
			       uint64_t first, uint64_t n, uint64_t *bad,
			       struct erofs_err *err)
{
	uint8_t digests[VERITY_GROUP][EROFS_DIGEST_MAX];
	uint32_t bs = v->info.data_block_size;
	uint64_t per = v->info.data_per_leaf, j, k, group;
	int same;

	*bad = UINT64_MAX;
	for (j = 0; j < n; j += group) {
		/* a group lies in one leaf */
		group = per - (first + j) % per;
		if (group > VERITY_GROUP)
			group = VERITY_GROUP;
		if (group > n - j)
			group = n - j;
		for (k = 0; k < group; k++)
			verity_digest(v, db + (j + k) * bs, bs, digests[k]);
		same = verity_compare(v, first + j, (unsigned int)group,
				      digests, err);
		if (same < 0)
			return same;
		/* checked, whichever way: the sweep need not read them again */
		for (k = 0; k < group && k <= (uint64_t)same; k++)
			verity_mark_read(v, first + j + k);
		if ((uint64_t)same < group) {
			*bad = first + j + same;
			return 0;
		}
	}
	return 0;
}

/*
 * Data blocks [k, end) that no read has checked yet, in reads of up to
 * VERITY_READ_BYTES (one block at the least): a read a block was a
 * system call for every 4 KiB.
 */
#define VERITY_READ_BYTES (1u << 20)

static int verity_sweep(const struct erofs_verity *v, uint64_t k, uint64_t end,
			uint8_t *db, size_t per_read, uint64_t *bad,
			size_t *nbad, struct erofs_err *err)
{
	uint32_t bs = v->info.data_block_size;
	uint64_t n, failed, from;
	int ret;

	while (k < end) {
		for (; k < end && verity_was_read(v, k); k++)
			;
		for (n = 0;
		     k + n < end && n < per_read && !verity_was_read(v, k + n);
		     n++)
			;
		if (!n)
			break;
		ret = erofs_source_read_runs(v->data, db, n * bs, k * bs, err);
		for (from = 0; !ret && from < n; from = failed - k + 1) {
			ret = verity_check_blocks(v, db + from * bs, k + from,
						  n - from, &failed, err);
			if (ret || failed == UINT64_MAX)
				break;
			bad[(*nbad)++] = failed;
		}
		if (ret)
			return ret;
		k += n;
	}
	return 0;
}

int erofs_verity_check_leaf(const struct erofs_verity *v, uint64_t leaf,
			    uint64_t *bad, size_t *nbad, struct erofs_err *err)
{
	const struct erofs_verity_info *i = &v->info;
	uint64_t first = leaf * i->data_per_leaf, end;
	size_t per_read = VERITY_READ_BYTES / i->data_block_size;
	uint8_t *db;
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
	db = malloc(per_read * i->data_block_size);
	if (!db)
		return erofs_error(err, -ENOMEM, EROFS_NO_NID, EROFS_NO_OFFSET,
				   "out of memory");
	ret = verity_sweep(v, first, end, db, per_read, bad, nbad, err);
	free(db);
	return ret;
}

/*
 * A read of the verity source: the data blocks [pos, pos + len) lies in,
 * read whole (into buf itself when it is exactly those), each checked as
 * it was read. Nothing is handed out that was not checked: a block that
 * fails, or lies past the blocks the tree covers, fails the read.
 */
int erofs_verity_read(const struct erofs_verity *v, void *buf, size_t len,
		      uint64_t pos, struct erofs_err *err)
{
	uint32_t bs = v->info.data_block_size;
	uint64_t first = pos / bs, end, bad;
	size_t whole;
	uint8_t *db;
	int ret;

	if (!len)
		return 0;
	end = pos / bs + (pos % bs + len - 1) / bs + 1;
	if (end > v->info.data_blocks)
		return verity_bad(
			err, -EFSCORRUPTED, pos,
			"tree covers %llu data blocks of %u bytes: bytes %llu to %llu lie past them, unverified",
			(unsigned long long)v->info.data_blocks, bs,
			(unsigned long long)pos,
			(unsigned long long)(pos + len - 1));
	whole = (size_t)(end - first) * bs;
	db = whole == len ? buf : malloc(whole);
	if (!db)
		return erofs_error(err, -ENOMEM, EROFS_NO_NID, EROFS_NO_OFFSET,
				   "out of memory");
	ret = erofs_source_read_runs(v->data, db, whole, first * bs, err);
	if (!ret)
		ret = verity_check_blocks(v, db, first, end - first, &bad, err);
	if (!ret && bad != UINT64_MAX)
		ret = verity_bad(err, -EFSCORRUPTED, bad * bs,
				 "data block %llu fails its hash",
				 (unsigned long long)bad);
	if (!ret && db != buf)
		memcpy(buf, db + pos % bs, len);
	if (db != buf)
		free(db);
	return ret;
}

int erofs_verity_source(struct erofs_source **out, struct erofs_source *data,
			const struct erofs_verity *v, struct erofs_err *err)
{
	struct erofs_source *src = calloc(1, sizeof(*src));

	*out = NULL;
	if (src)
		src->name = strdup(data->name);
	if (!src || !src->name) {
		free(src);
		return erofs_error(err, -ENOMEM, EROFS_NO_NID, EROFS_NO_OFFSET,
				   "out of memory");
	}
	src->fd = -1;
	src->size = data->size;
	src->kind = data->kind;
	src->verity = v;
	src->under = data;
	*out = src;
	return 0;
}
