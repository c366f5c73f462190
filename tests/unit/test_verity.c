// SPDX-License-Identifier: MIT
/*
 * dm-verity trees (lib/container/verity.c) and AVB hashtree footers
 * (lib/container/avb.c) on small images written here: trees of no, one and
 * three levels, both hash types, every digest, with and without a
 * superblock; a data block, a leaf and the root that differ; parameters no
 * tree has. The trees are built from the layout docs/format.md gives
 * ("dm-verity hash trees"), independently of the reader: veritysetup and
 * tests/android/verity.sh check the reader against real trees.
 */
#include <errno.h>
#include <string.h>

#include "erofs/avb.h"
#include "erofs/format.h"
#include "erofs/verity.h"
#include "unit.h"

#define MAX_BYTES (1u << 20)

struct tree {
	const char *alg;
	uint32_t type, dbs, hbs; /* hash type, data and hash block sizes */
	uint64_t blocks;
	uint8_t salt[8];
	uint8_t root[EROFS_DIGEST_MAX];
	size_t root_len;
	uint8_t *levels[16]; /* level 0: the leaves */
	size_t level_len[16];
	unsigned int nlevels;
};

static void digest(const struct tree *t, const uint8_t *p, size_t len,
		   uint8_t *out)
{
	struct erofs_digest d;

	erofs_digest_init(&d, erofs_digest_by_name(t->alg));
	if (t->type == 1)
		erofs_digest_update(&d, t->salt, sizeof(t->salt));
	erofs_digest_update(&d, p, len);
	if (t->type == 0)
		erofs_digest_update(&d, t->salt, sizeof(t->salt));
	erofs_digest_final(&d, out);
}

/* One level over n blocks of bsize at src: its bytes, whole blocks. */
static uint8_t *level_over(const struct tree *t, const uint8_t *src, uint64_t n,
			   uint32_t bsize, size_t *len)
{
	unsigned int ds = erofs_digest_size(erofs_digest_by_name(t->alg));
	unsigned int per = 1, slot;
	uint64_t k, blocks;
	uint8_t *out;

	while (per * 2 <= t->hbs / ds)
		per *= 2;
	slot = t->type ? t->hbs / per : ds;
	blocks = (n + per - 1) / per;
	*len = blocks * t->hbs;
	out = calloc(1, *len);
	ck_assert_ptr_nonnull(out);
	for (k = 0; k < n; k++)
		digest(t, src + k * bsize, bsize,
		       out + k / per * t->hbs + k % per * slot);
	return out;
}

static void build(struct tree *t, const uint8_t *data)
{
	const uint8_t *src = data;
	uint64_t n = t->blocks;
	uint32_t bsize = t->dbs;

	t->nlevels = 0;
	while (n > 1) {
		t->levels[t->nlevels] =
			level_over(t, src, n, bsize, &t->level_len[t->nlevels]);
		src = t->levels[t->nlevels];
		n = t->level_len[t->nlevels++] / t->hbs;
		bsize = t->hbs;
	}
	t->root_len = erofs_digest_size(erofs_digest_by_name(t->alg));
	digest(t, src, bsize, t->root);
}

/* The superblock veritysetup writes, into a hash block of its own. */
static size_t superblock(const struct tree *t, uint8_t *out)
{
	memset(out, 0, t->hbs);
	memcpy(out, "verity\0\0", 8);
	erofs_put32(out + 8, 1);
	erofs_put32(out + 12, t->type);
	strcpy((char *)out + 32, t->alg);
	erofs_put32(out + 64, t->dbs);
	erofs_put32(out + 68, t->hbs);
	erofs_put64(out + 72, t->blocks);
	erofs_put16(out + 80, sizeof(t->salt));
	memcpy(out + 88, t->salt, sizeof(t->salt));
	return t->hbs;
}

static char data_path[64], hash_path[64];

static struct erofs_source *write_file(char *path, const uint8_t *p, size_t len)
{
	struct erofs_source *src;
	struct erofs_err err;
	int fd;

	strcpy(path, "/tmp/test_verity.XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, p, len), (ssize_t)len);
	close(fd);
	erofs_err_clear(&err);
	ck_assert_int_eq(erofs_source_open(&src, path, -1, &err), 0);
	return src;
}

static uint8_t data[MAX_BYTES];
static uint8_t hashbuf[MAX_BYTES];

/* The hash file: superblock (if sb), then the levels top first. */
static size_t hash_file(const struct tree *t, bool sb)
{
	size_t len = sb ? superblock(t, hashbuf) : 0;
	unsigned int l;

	for (l = t->nlevels; l--;) {
		memcpy(hashbuf + len, t->levels[l], t->level_len[l]);
		len += t->level_len[l];
	}
	return len;
}

static void tree_free(struct tree *t)
{
	unsigned int l;

	for (l = 0; l < t->nlevels; l++)
		free(t->levels[l]);
}

static void fill_data(uint64_t bytes)
{
	uint64_t i;

	for (i = 0; i < bytes; i++)
		data[i] = (uint8_t)(i * 31 + (i >> 12));
}

/*
 * Open t over the data and hash files, check every leaf: the data
 * blocks that fail into bad (their count the return).
 */
static size_t check_all(const struct tree *t, bool sb, uint64_t *bad,
			int *open_ret, struct erofs_err *err)
{
	struct erofs_source *d, *h;
	struct erofs_verity_info params = { .hash_type = t->type };
	struct erofs_verity_opts o = { .root = t->root,
				       .root_len = t->root_len };
	struct erofs_verity *v;
	size_t n, total = 0;
	uint64_t leaf;
	int ret;

	d = write_file(data_path, data, t->blocks * t->dbs);
	h = write_file(hash_path, hashbuf, hash_file(t, sb));
	o.data = d;
	o.hash = h;
	if (!sb) {
		strcpy(params.algorithm, t->alg);
		params.data_block_size = t->dbs;
		params.hash_block_size = t->hbs;
		params.data_blocks = t->blocks;
		params.salt_size = sizeof(t->salt);
		memcpy(params.salt, t->salt, sizeof(t->salt));
		o.params = &params;
		o.params_from = "the test's parameters";
	}
	erofs_err_clear(err);
	*open_ret = erofs_verity_open(&v, &o, err);
	if (!*open_ret) {
		ck_assert_uint_eq(erofs_verity_info(v)->levels, t->nlevels);
		for (leaf = 0; leaf < erofs_verity_info(v)->leaf_blocks;
		     leaf++) {
			ret = erofs_verity_check_leaf(v, leaf, bad + total, &n,
						      err);
			ck_assert_int_eq(ret, 0);
			total += n;
		}
		erofs_verity_close(v);
	}
	erofs_source_close(d);
	erofs_source_close(h);
	unlink(data_path);
	unlink(hash_path);
	return total;
}

static const struct {
	const char *alg;
	uint32_t type, dbs, hbs;
	uint64_t blocks;
	unsigned int levels;
} shapes[] = {
	{ "sha256", 1, 4096, 4096, 200, 2 }, { "sha256", 1, 512, 512, 1000, 3 },
	{ "sha1", 1, 1024, 2048, 300, 2 },   { "sha1", 0, 1024, 2048, 300, 2 },
	{ "sha512", 1, 4096, 4096, 100, 2 }, { "sha512", 0, 512, 512, 20, 2 },
	{ "sha256", 1, 4096, 4096, 1, 0 },   { "sha256", 0, 4096, 1024, 30, 1 },
};

/* Every shape, with and without a superblock: nothing fails. */
START_TEST(test_shapes_match)
{
	struct tree t = { 0 };
	uint64_t bad[64];
	struct erofs_err err;
	int ret;

	t.alg = shapes[_i / 2].alg;
	t.type = shapes[_i / 2].type;
	t.dbs = shapes[_i / 2].dbs;
	t.hbs = shapes[_i / 2].hbs;
	t.blocks = shapes[_i / 2].blocks;
	memcpy(t.salt, "saltsalt", 8);
	fill_data(t.blocks * t.dbs);
	build(&t, data);
	ck_assert_uint_eq(t.nlevels, shapes[_i / 2].levels);
	ck_assert_uint_eq(check_all(&t, _i % 2, bad, &ret, &err), 0);
	ck_assert_msg(!ret, "%s", err.msg);
	tree_free(&t);
}
END_TEST

static void sha256_tree(struct tree *t, uint32_t dbs, uint64_t blocks)
{
	memset(t, 0, sizeof(*t));
	t->alg = "sha256";
	t->type = 1;
	t->dbs = t->hbs = dbs;
	t->blocks = blocks;
	fill_data(blocks * dbs);
	build(t, data);
}

/* Two data blocks changed after the tree was built: both named. */
START_TEST(test_bad_data_blocks_named)
{
	struct tree t;
	uint64_t bad[64];
	struct erofs_err err;
	int ret;

	sha256_tree(&t, 512, 1000);
	data[7 * 512 + 3] ^= 1;
	data[999 * 512] ^= 0x80;
	ck_assert_uint_eq(check_all(&t, true, bad, &ret, &err), 2);
	ck_assert_int_eq(ret, 0);
	ck_assert_uint_eq(bad[0], 7);
	ck_assert_uint_eq(bad[1], 999);
	tree_free(&t);
}
END_TEST

START_TEST(test_root_differs)
{
	struct tree t;
	uint64_t bad[4];
	struct erofs_err err;
	int ret;

	sha256_tree(&t, 4096, 200);
	t.root[5] ^= 1;
	check_all(&t, true, bad, &ret, &err);
	ck_assert_int_eq(ret, -EFSCORRUPTED);
	ck_assert_msg(strstr(err.msg, "its root hash is"), "%s", err.msg);
	erofs_err_drop(&err);
	tree_free(&t);
}
END_TEST

/* A leaf that differs: its data blocks cannot be checked. */
START_TEST(test_leaf_differs)
{
	struct tree t;
	struct erofs_source *d, *h;
	struct erofs_verity_opts o = { .hash_offset = 0 };
	struct erofs_verity *v;
	struct erofs_err err;
	uint64_t bad[256];
	size_t n, len;

	sha256_tree(&t, 512, 1000);
	len = hash_file(&t, true);
	hashbuf[len - 512 + 9] ^= 1; /* the last leaf */
	d = write_file(data_path, data, t.blocks * t.dbs);
	h = write_file(hash_path, hashbuf, len);
	o.data = d;
	o.hash = h;
	o.root = t.root;
	o.root_len = t.root_len;
	erofs_err_clear(&err);
	ck_assert_int_eq(erofs_verity_open(&v, &o, &err), 0);
	n = erofs_verity_info(v)->leaf_blocks - 1;
	ck_assert_int_eq(erofs_verity_check_leaf(v, n, bad, &n, &err),
			 -EFSCORRUPTED);
	ck_assert_uint_eq(n, 0);
	ck_assert_msg(strstr(err.msg, "leaf hash block"), "%s", err.msg);
	erofs_err_drop(&err);
	ck_assert_int_eq(erofs_verity_check_leaf(v, 0, bad, &n, &err), 0);
	erofs_verity_close(v);
	erofs_source_close(d);
	erofs_source_close(h);
	unlink(data_path);
	unlink(hash_path);
	tree_free(&t);
}
END_TEST

/* Superblocks no veritysetup writes: the error and its words. */
static void refused(size_t at, const void *bytes, size_t len, int want,
		    const char *text)
{
	struct tree t;
	struct erofs_source *d, *h;
	struct erofs_verity_opts o = { .hash_offset = 0 };
	struct erofs_verity *v;
	struct erofs_err err;
	size_t hlen;

	sha256_tree(&t, 4096, 200);
	hlen = hash_file(&t, true);
	memcpy(hashbuf + at, bytes, len);
	d = write_file(data_path, data, t.blocks * t.dbs);
	h = write_file(hash_path, hashbuf, at == SIZE_MAX ? 100 : hlen);
	o.data = d;
	o.hash = h;
	o.root = t.root;
	o.root_len = t.root_len;
	erofs_err_clear(&err);
	ck_assert_int_eq(erofs_verity_open(&v, &o, &err), want);
	ck_assert_msg(strstr(err.msg, text), "want \"%s\" in \"%s\"", text,
		      err.msg);
	erofs_err_drop(&err);
	erofs_source_close(d);
	erofs_source_close(h);
	unlink(data_path);
	unlink(hash_path);
	tree_free(&t);
}

START_TEST(test_superblocks_refused)
{
	uint8_t v2[4] = { 2 }, big[4] = { 0, 0, 2, 0 }, odd[4] = { 0xb8, 0xb };
	uint8_t type2[4] = { 2 }, many[8] = { 0, 0, 0, 0, 1 };

	refused(0, "VERITY", 6, -EINVAL, "no \"verity\" signature");
	refused(8, v2, 4, -EOPNOTSUPP, "version 2, not 1");
	refused(12, type2, 4, -EOPNOTSUPP, "hash type 2");
	refused(32, "md5\0\0\0\0", 7, -EOPNOTSUPP, "hash algorithm \"md5\"");
	refused(68, big, 4, -EINVAL, "hash blocks of 131072");
	refused(68, odd, 4, -EINVAL, "hash blocks of 3000");
	refused(72, many, 8, -EFSCORRUPTED, "past the end of the hash device");
}
END_TEST

/* A tree in the data device itself, over the data it covers. */
START_TEST(test_tree_over_its_data)
{
	struct tree t;
	struct erofs_source *d;
	struct erofs_verity_info params = { .hash_type = 1,
					    .algorithm = "sha256",
					    .data_block_size = 4096,
					    .hash_block_size = 4096,
					    .data_blocks = 40 };
	struct erofs_verity_opts o = { .hash_offset = 4096,
				       .params = &params,
				       .params_from = "the test's parameters" };
	struct erofs_verity *v;
	struct erofs_err err;
	size_t len;

	sha256_tree(&t, 4096, 40);
	params.salt_size = sizeof(t.salt);
	len = hash_file(&t, false);
	memcpy(data + 40 * 4096, hashbuf, len);
	d = write_file(data_path, data, 40 * 4096 + len);
	o.data = o.hash = d;
	o.root = t.root;
	o.root_len = t.root_len;
	erofs_err_clear(&err);
	ck_assert_int_eq(erofs_verity_open(&v, &o, &err), -EINVAL);
	ck_assert_msg(strstr(err.msg, "inside the 40 data blocks"), "%s",
		      err.msg);
	erofs_err_drop(&err);
	o.hash_offset = 40 * 4096;
	ck_assert_msg(!erofs_verity_open(&v, &o, &err), "%s", err.msg);
	erofs_verity_close(v);
	erofs_source_close(d);
	unlink(data_path);
	tree_free(&t);
}
END_TEST

/* An AVB partition: data, tree, vbmeta, footer (docs/android.md). */
static size_t avb_partition(uint8_t *out, const struct tree *t, uint64_t *vb_at)
{
	size_t dlen = t->blocks * t->dbs, tlen = hash_file(t, false);
	size_t vb = dlen + tlen, d = vb + 256 + 16, end;

	memcpy(out, data, dlen);
	memcpy(out + dlen, hashbuf, tlen);
	memset(out + vb, 0, 256 + 16 + 164 + 64);
	memcpy(out + vb, "AVB0", 4);
	out[vb + 7] = 1;
	/* auxiliary block: one descriptor of 16 + 164 + name, salt, root */
	out[vb + 27] = 16 + 164 + 1 + 8 + 32 + 3;
	out[vb + 111] = 16 + 164 + 1 + 8 + 32 + 3;
	out[vb + 256 + 7] = 1;
	out[vb + 256 + 15] = 164 + 1 + 8 + 32 + 3;
	out[d + 3] = 1;
	for (int i = 0; i < 8; i++) {
		out[d + 4 + i] = (uint8_t)(dlen >> (56 - 8 * i));
		out[d + 12 + i] = (uint8_t)(dlen >> (56 - 8 * i));
		out[d + 20 + i] = (uint8_t)(tlen >> (56 - 8 * i));
	}
	out[d + 30] = (uint8_t)(t->dbs >> 8);
	out[d + 34] = (uint8_t)(t->hbs >> 8);
	strcpy((char *)out + d + 56, t->alg);
	out[d + 91] = 1;
	out[d + 95] = 8;
	out[d + 99] = (uint8_t)t->root_len;
	out[d + 164] = 'x';
	memcpy(out + d + 165, t->salt, 8);
	memcpy(out + d + 173, t->root, t->root_len);
	end = vb + 4096;
	memset(out + end, 0, 64);
	memcpy(out + end, "AVBf", 4);
	out[end + 7] = 1;
	for (int i = 0; i < 8; i++) {
		out[end + 20 + i] = (uint8_t)(vb >> (56 - 8 * i));
		out[end + 28 + i] = (uint8_t)((uint64_t)1024 >> (56 - 8 * i));
	}
	*vb_at = vb;
	return end + 64;
}

static uint8_t part[MAX_BYTES + 65536];

START_TEST(test_avb_footer)
{
	struct tree t;
	struct erofs_avb_hashtree avb;
	struct erofs_source *src;
	struct erofs_verity_opts o = { 0 };
	struct erofs_verity *v;
	struct erofs_err err;
	uint64_t vb;
	size_t len;

	sha256_tree(&t, 4096, 50);
	memcpy(t.salt, "avb-salt", 8);
	tree_free(&t);
	build(&t, data);
	len = avb_partition(part, &t, &vb);
	src = write_file(data_path, part, len);
	erofs_err_clear(&err);
	ck_assert_msg(erofs_avb_find_hashtree(src, &avb, &err) == 1, "%s",
		      err.msg);
	ck_assert_uint_eq(avb.vbmeta_offset, vb);
	ck_assert_uint_eq(avb.tree_offset, 50 * 4096);
	ck_assert_uint_eq(avb.params.data_blocks, 50);
	ck_assert_str_eq(avb.params.algorithm, "sha256");
	ck_assert_str_eq(avb.partition, "x");
	ck_assert(!avb.signed_vbmeta);
	ck_assert_mem_eq(avb.root, t.root, 32);
	o.data = o.hash = src;
	o.hash_offset = avb.tree_offset;
	o.root = avb.root;
	o.root_len = avb.root_len;
	o.params = &avb.params;
	o.params_from = "AVB";
	ck_assert_int_eq(erofs_verity_open(&v, &o, &err), 0);
	erofs_verity_close(v);
	erofs_source_close(src);
	unlink(data_path);
	/* no footer: nothing found; a footer past the file: refused */
	src = write_file(data_path, part, len - 64);
	ck_assert_int_eq(erofs_avb_find_hashtree(src, &avb, &err), 0);
	erofs_source_close(src);
	unlink(data_path);
	part[len - 64 + 20] = 0x7f;
	src = write_file(data_path, part, len);
	ck_assert_int_eq(erofs_avb_find_hashtree(src, &avb, &err),
			 -EFSCORRUPTED);
	ck_assert_msg(strstr(err.msg, "AVB footer: vbmeta of 1024 bytes"), "%s",
		      err.msg);
	erofs_err_drop(&err);
	erofs_source_close(src);
	unlink(data_path);
	tree_free(&t);
}
END_TEST

UNIT_MAIN("verity", NULL,
	  { "trees",
	    .tests = UNIT_TESTS(test_bad_data_blocks_named, test_root_differs,
				test_leaf_differs, test_superblocks_refused,
				test_tree_over_its_data, test_avb_footer),
	    .loops = UNIT_LOOPS({ test_shapes_match,
				  2 * sizeof(shapes) / sizeof(shapes[0]) }) })
