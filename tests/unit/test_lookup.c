// SPDX-License-Identifier: MIT
/*
 * Encoded-extent lookups (lib/zmap/zmap_extents.c): the optimised lookup (hint,
 * interpolation, search inside the block in hand) must return exactly
 * what the plain binary search returns, on the 48-bit fixture images and
 * on hand-built record tables, from one thread or several; corrupt tables
 * must be reported as corruption. Also checks what the counters say:
 * block reads per lookup and hint hits.
 *
 * Hand-built images: 4 KiB blocks, a superblock without checksum, a root
 * directory at nid 0, a flat packed inode at nid 2 and the inodes under
 * test from nid 4 on, each followed by its map header and records.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "erofs/data.h"
#include "erofs/dir.h"
#include "erofs/format.h"
#include "erofs/image.h"
#include "erofs/inode.h"
#include "erofs/testing.h"
#include "unit.h"


/* the lookup counters of an opened image's context */
#define STATS(o) erofs_ctx_stats(&(o).ctx)

#define BS 4096u
#define IMG_BLOCKS 1024u
#define META_BLKADDR 1u
#define PACKED_NID 2u
#define PACKED_BLK 1000u
#define PACKED_SIZE (16u * BS)
#define FIRST_POS (META_BLKADDR * BS + 4 * 32)	/* nid 4 */

#define ENC (EROFS_MAP_FULL_MAPPED | EROFS_MAP_ENCODED)
#define PLEN(fmt, len) ((uint32_t)(fmt) << Z_EROFS_EXTENT_PLEN_FMT_BIT | (len))
#define MASK Z_EROFS_EXTENT_PLEN_MASK

/* ---- record tables ---- */

struct rec {
	uint64_t lstart;	/* recsz 16 and 32 */
	uint32_t plen;		/* raw field */
	uint64_t pstart;	/* recsz 8, 16, 32 */
};

struct table {
	unsigned int recsz;
	uint64_t size;
	uint16_t advise;	/* beyond EXTENTS and the record size */
	uint64_t base;		/* recsz 4 */
	uint64_t n;
	struct rec *r;
	uint64_t nid;		/* set when placed */
};

static uint8_t *image;
static char image_path[64];
static uint64_t place_at;

static uint64_t rnd_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	/* xorshift64*: deterministic across runs */
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return rnd_state * 2685821657736338717ULL;
}

static uint64_t rnd_below(uint64_t n)
{
	return rnd() % n;
}

static unsigned int recsz_log(unsigned int recsz)
{
	return recsz == 4 ? 0 : recsz == 8 ? 1 : recsz == 16 ? 2 : 3;
}

static uint64_t table_count(const struct table *t)
{
	return t->recsz >= 16 ? t->n : (t->size + BS - 1) / BS;
}

static void image_begin(void)
{
	if (!image)
		image = malloc((size_t)IMG_BLOCKS * BS);
	ck_assert_ptr_nonnull(image);
	memset(image, 0, (size_t)IMG_BLOCKS * BS);
	unit_put_super(image, IMG_BLOCKS, META_BLKADDR,
		       EROFS_FEATURE_INCOMPAT_LZ4_0PADDING |
			       EROFS_FEATURE_INCOMPAT_48BIT |
			       EROFS_FEATURE_INCOMPAT_FRAGMENTS);
	erofs_put64(image + EROFS_SUPER_OFFSET + EROFS_SB_PACKED_NID,
		    PACKED_NID);
	unit_put_root_dir(image + META_BLKADDR * BS);
	unit_put_flat_file(image + META_BLKADDR * BS + PACKED_NID * 32,
			   PACKED_SIZE, PACKED_BLK, 2);
	place_at = FIRST_POS;
}

static void put_record(uint8_t *p, unsigned int recsz, const struct rec *r)
{
	erofs_put32(p + Z_EROFS_EXTENT_PLEN, r->plen);
	if (recsz >= 8)
		erofs_put32(p + Z_EROFS_EXTENT_PSTART_LO, (uint32_t)r->pstart);
	if (recsz < 16)
		return;
	erofs_put32(p + Z_EROFS_EXTENT_PSTART_HI, (uint32_t)(r->pstart >> 32));
	erofs_put32(p + Z_EROFS_EXTENT_LSTART_LO, (uint32_t)r->lstart);
	if (recsz == 32)
		erofs_put32(p + Z_EROFS_EXTENT_LSTART_HI,
			    (uint32_t)(r->lstart >> 32));
}

/* Write t's inode, map header and records at the next free position. */
static void place_table(struct table *t)
{
	bool extended = t->size > UINT32_MAX;
	uint64_t pos = (place_at + 31) & ~31ULL;
	uint64_t hpos = pos + (extended ? 64 : 32), rec, k, count;
	uint8_t *i = image + pos, *h = image + hpos;

	t->nid = (pos - META_BLKADDR * BS) / 32;
	erofs_put16(i + EROFS_IC_MODE, 0100644);
	erofs_put32(i + EROFS_IC_U, 1);
	erofs_put32(i + EROFS_IC_INO, (uint32_t)t->nid);
	if (extended) {
		erofs_put16(i + EROFS_IE_FORMAT,
			    1 | EROFS_INODE_COMPRESSED_FULL << 1);
		erofs_put64(i + EROFS_IE_SIZE, t->size);
		erofs_put32(i + EROFS_IE_NLINK, 1);
	} else {
		erofs_put16(i + EROFS_IC_FORMAT,
			    EROFS_INODE_COMPRESSED_FULL << 1);
		erofs_put16(i + EROFS_IC_NB, 1);
		erofs_put32(i + EROFS_IC_SIZE, (uint32_t)t->size);
	}
	erofs_put16(h + Z_EROFS_MH_ADVISE, Z_EROFS_ADVISE_EXTENTS |
		    recsz_log(t->recsz) << 1 | t->advise);
	if (t->recsz >= 16) {
		erofs_put32(h + Z_EROFS_MH_EXTENTS_LO, (uint32_t)t->n);
		erofs_put16(h + Z_EROFS_MH_EXTENTS_HI,
			    (uint16_t)(t->n >> 32));
	}
	rec = (hpos + 8 + t->recsz - 1) / t->recsz * t->recsz;
	if (t->recsz == 4) {
		erofs_put64(image + rec, t->base);
		rec += 8;
	}
	count = table_count(t);
	ck_assert_uint_le(rec + count * t->recsz, PACKED_BLK * BS);
	for (k = 0; k < count; k++)
		put_record(image + rec + k * t->recsz, t->recsz, &t->r[k]);
	place_at = rec + count * t->recsz;
}

static void table_free(struct table *t)
{
	free(t->r);
	t->r = NULL;
}

/*
 * Sorted table of n records of random lengths in [1, maxlen]: raw,
 * compressed, holes and partial references mixed; the last one a
 * fragment when frag is set.
 */
static void table_random(struct table *t, unsigned int recsz, uint64_t n,
			 uint64_t maxlen, bool frag)
{
	uint64_t k, la = 0, pa = 0x100000;

	memset(t, 0, sizeof(*t));
	t->recsz = recsz;
	t->n = n;
	t->r = calloc(n, sizeof(*t->r));
	ck_assert_ptr_nonnull(t->r);
	for (k = 0; k < n; k++) {
		uint64_t len = 1 + rnd_below(maxlen);
		uint64_t cap = len < 1 << 20 ? len : 1 << 20;
		struct rec *r = &t->r[k];
		unsigned int kind = (unsigned int)rnd_below(10);

		r->lstart = la;
		r->pstart = pa;
		if (kind == 0) {
			r->plen = 0;			/* hole */
			r->pstart = 0;
		} else if (kind < 4 && len + 64 <= 1 << 20) {
			/* raw: stored bytes at least as many */
			r->plen = PLEN(0, len + rnd_below(64));
		} else if (kind == 4) {
			r->plen = PLEN(1, 1 + rnd_below(cap)) |
				  Z_EROFS_EXTENT_PLEN_PARTIAL;
		} else {
			/* compressed: no more stored bytes than decoded */
			r->plen = PLEN(1, 1 + rnd_below(cap));
		}
		pa += r->plen & MASK;
		la += len;
	}
	t->size = la;
	if (frag) {
		t->advise = Z_EROFS_ADVISE_FRAGMENT_PCLUSTER;
		t->r[n - 1].plen = 0x123;
		t->r[n - 1].pstart = 0;
	}
}

/*
 * The extent the format says holds pos (format.md, "Encoded extents"),
 * computed independently.
 */
static struct erofs_map table_expect(const struct table *t, uint64_t pos)
{
	struct erofs_map m = { .flags = ENC, .fmt = EROFS_FMT_SHIFTED };
	uint64_t lo = 0, hi, k, count = table_count(t);
	const struct rec *r;
	uint32_t len;
	unsigned int fmt;

	if (t->recsz >= 16) {
		hi = t->n;
		while (hi - lo > 1) {
			uint64_t mid = lo + (hi - lo) / 2;

			if (t->r[mid].lstart <= pos)
				lo = mid;
			else
				hi = mid;
		}
		k = lo;
		m.la = t->r[k].lstart;
		m.llen = (k + 1 < t->n ? t->r[k + 1].lstart : t->size) - m.la;
	} else {
		k = pos / BS;
		m.la = k * BS;
		m.llen = (m.la + BS < t->size ? m.la + BS : t->size) - m.la;
	}
	r = &t->r[k];
	len = r->plen & MASK;
	fmt = r->plen >> Z_EROFS_EXTENT_PLEN_FMT_BIT;
	if (k == count - 1 && (t->advise & Z_EROFS_ADVISE_FRAGMENT_PCLUSTER)) {
		m.loc = EROFS_LOC_FRAGMENT;
		m.pa = r->plen;
		if (t->recsz >= 8)
			m.pa |= (r->pstart & UINT32_MAX) << 32;
		m.llen = t->size - m.la;
		m.plen = m.llen;
		return m;
	}
	if (!len)
		return m;	/* hole */
	m.loc = EROFS_LOC_DEVICE;
	m.plen = len;
	m.pa = r->pstart;
	if (t->recsz == 4) {
		m.pa = t->base;
		for (uint64_t j = 0; j < k; j++)
			m.pa += t->r[j].plen & MASK;
	}
	m.fmt = fmt ? fmt - 1 : EROFS_FMT_SHIFTED;
	if (r->plen & Z_EROFS_EXTENT_PLEN_PARTIAL)
		m.flags |= EROFS_MAP_PARTIAL_REF;
	return m;
}

/* ---- opening ---- */

struct opened {
	struct erofs_image *img;
	struct erofs_ctx ctx;
};

static void image_remove(void)
{
	if (image_path[0])
		unlink(image_path);
	image_path[0] = '\0';
}

/* A test may write several images: each replaces the one before. */
static void image_write(void)
{
	int fd;

	image_remove();
	strcpy(image_path, "/tmp/test_lookup.XXXXXX");
	fd = mkstemp(image_path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, image, (size_t)IMG_BLOCKS * BS),
			 (ssize_t)IMG_BLOCKS * BS);
	close(fd);
}

static void open_path(struct opened *o, const char *path, bool plain)
{
	struct erofs_open_opts opts = { .path = path };
	struct erofs_err err;
	int ret;

	erofs_err_clear(&err);
	ret = erofs_image_open(&o->img, &opts, &err);
	ck_assert_msg(!ret, "open %s: %d %s", path, ret, err.msg);
	ck_assert_int_eq(erofs_ctx_init(&o->ctx, o->img), 0);
	erofs_ctx_set_plain_lookup(&o->ctx, plain);
}

static void close_opened(struct opened *o)
{
	erofs_ctx_fini(&o->ctx);
	erofs_image_close(o->img);
}

static void read_inode(struct opened *o, uint64_t nid,
		       struct erofs_inode *ino)
{
	int ret = erofs_read_inode(&o->ctx, nid, ino);

	ck_assert_msg(!ret, "inode %llu: %d %s", (unsigned long long)nid, ret,
		      o->ctx.err.msg);
}

/* ---- comparing ---- */

static bool map_equal(const struct erofs_map *a, const struct erofs_map *b)
{
	return a->la == b->la && a->llen == b->llen && a->pa == b->pa &&
	       a->plen == b->plen && a->device == b->device &&
	       a->loc == b->loc && a->fmt == b->fmt && a->flags == b->flags;
}

static void assert_map(const char *what, uint64_t nid, uint64_t pos,
		       const struct erofs_map *got,
		       const struct erofs_map *want)
{
	ck_assert_msg(map_equal(got, want),
		      "%s: nid %llu pos %llu: got %llu+%llu loc %u pa %llu plen %llu fmt %u flags %#x, want %llu+%llu loc %u pa %llu plen %llu fmt %u flags %#x",
		      what, (unsigned long long)nid, (unsigned long long)pos,
		      (unsigned long long)got->la,
		      (unsigned long long)got->llen, got->loc,
		      (unsigned long long)got->pa,
		      (unsigned long long)got->plen, got->fmt, got->flags,
		      (unsigned long long)want->la,
		      (unsigned long long)want->llen, want->loc,
		      (unsigned long long)want->pa,
		      (unsigned long long)want->plen, want->fmt, want->flags);
}

static void map_ok(struct opened *o, const struct erofs_inode *ino,
		   uint64_t pos, struct erofs_map *m)
{
	int ret = z_erofs_map(&o->ctx, ino, pos, m);

	ck_assert_msg(!ret, "nid %llu pos %llu: %d %s",
		      (unsigned long long)ino->nid, (unsigned long long)pos,
		      ret, o->ctx.err.msg);
}

/*
 * Offsets worth asking: every 4 KiB (a coarser grid for files of more
 * than 256 MiB), and around every extent start.
 */
struct offsets {
	uint64_t *v;
	size_t n, cap;
};

static void offsets_add(struct offsets *o, uint64_t pos, uint64_t size)
{
	if (pos >= size)
		return;
	if (o->n == o->cap) {
		o->cap = o->cap ? 2 * o->cap : 1024;
		o->v = realloc(o->v, o->cap * sizeof(*o->v));
		ck_assert_ptr_nonnull(o->v);
	}
	o->v[o->n++] = pos;
}

static void offsets_shuffle(struct offsets *o)
{
	size_t i;

	for (i = o->n; i > 1; i--) {
		size_t j = (size_t)rnd_below(i);
		uint64_t x = o->v[i - 1];

		o->v[i - 1] = o->v[j];
		o->v[j] = x;
	}
}

static void offsets_of(struct opened *plain, const struct erofs_inode *ino,
		       struct offsets *o)
{
	uint64_t pos, step = 4096;

	while (ino->size / step > 65536)
		step *= 2;
	for (pos = 0; pos < ino->size; pos += step)
		offsets_add(o, pos, ino->size);
	for (pos = 0; pos < ino->size;) {
		struct erofs_map m;

		map_ok(plain, ino, pos, &m);
		if (pos)
			offsets_add(o, pos - 1, ino->size);
		offsets_add(o, pos, ino->size);
		offsets_add(o, pos + 1, ino->size);
		pos = m.la + m.llen;
	}
	offsets_add(o, ino->size - 1, ino->size);
}

/*
 * Ask both contexts for every offset of o in its order; with want, check
 * against it too.
 */
static void compare_offsets(struct opened *plain, struct opened *fast,
			    const struct erofs_inode *pi,
			    const struct erofs_inode *fi,
			    const struct offsets *o, const struct table *want)
{
	size_t i;

	for (i = 0; i < o->n; i++) {
		struct erofs_map a, b;

		map_ok(plain, pi, o->v[i], &a);
		map_ok(fast, fi, o->v[i], &b);
		assert_map("fast vs plain", fi->nid, o->v[i], &b, &a);
		if (want) {
			struct erofs_map w = table_expect(want, o->v[i]);

			assert_map("plain vs table", pi->nid, o->v[i], &a, &w);
		}
	}
}

/* Forwards, then shuffled, then the forward pass again from a new order. */
static void compare_inode(struct opened *plain, struct opened *fast,
			  uint64_t nid, const struct table *want)
{
	struct erofs_inode pi, fi;
	struct offsets o = { 0 };

	read_inode(plain, nid, &pi);
	read_inode(fast, nid, &fi);
	if (!pi.size)
		return;
	offsets_of(plain, &pi, &o);
	compare_offsets(plain, fast, &pi, &fi, &o, want);
	offsets_shuffle(&o);
	compare_offsets(plain, fast, &pi, &fi, &o, want);
	free(o.v);
}

/* ---- hand-built tables ---- */

static void compare_tables(struct table *t, unsigned int nt)
{
	struct opened plain, fast;
	unsigned int i;

	image_write();
	open_path(&plain, image_path, true);
	open_path(&fast, image_path, false);
	for (i = 0; i < nt; i++)
		compare_inode(&plain, &fast, t[i].nid, &t[i]);
	ck_assert_uint_eq(STATS(plain)->hint_hits, 0);
	ck_assert_uint_gt(STATS(fast)->hint_hits, 0);
	close_opened(&plain);
	close_opened(&fast);
}

static void compare_one(struct table *t)
{
	image_begin();
	place_table(t);
	compare_tables(t, 1);
	table_free(t);
}

START_TEST(test_one_record)
{
	struct rec r = { 0, PLEN(1, 3000), 0x20000 };
	struct table t = { .recsz = 16, .size = 10000, .n = 1 };

	t.r = malloc(sizeof(r));
	*t.r = r;
	compare_one(&t);
}
END_TEST

START_TEST(test_two_records)
{
	unsigned int recsz;

	for (recsz = 16; recsz <= 32; recsz *= 2) {
		struct table t = { .recsz = recsz, .size = 9000, .n = 2 };

		t.r = calloc(2, sizeof(*t.r));
		t.r[0] = (struct rec){ 0, PLEN(0, 5000), 0x20000 };
		t.r[1] = (struct rec){ 5000, PLEN(1, 1000), 0x21388 };
		compare_one(&t);
	}
}
END_TEST

START_TEST(test_many_random)
{
	struct table t;

	/* 5000 records of 16 bytes: 20 metadata blocks */
	table_random(&t, 16, 5000, 40000, false);
	compare_one(&t);
	table_random(&t, 16, 3000, 3, false);
	compare_one(&t);
	table_random(&t, 32, 4000, 100000, false);
	compare_one(&t);
}
END_TEST

START_TEST(test_fragment_last)
{
	struct table t;

	table_random(&t, 16, 2000, 30000, true);
	compare_one(&t);
	table_random(&t, 16, 1, 30000, true);
	compare_one(&t);
}
END_TEST

START_TEST(test_holes)
{
	struct table t;
	uint64_t k;

	table_random(&t, 16, 1500, 20000, false);
	for (k = 0; k < t.n; k += 2) {
		t.r[k].plen = k % 4 ? 0 : Z_EROFS_EXTENT_PLEN_PARTIAL |
					  PLEN(3, 0);
		t.r[k].pstart = k;
	}
	compare_one(&t);
}
END_TEST

/* lstarts past 4 GiB need the 32-byte records and an extended inode */
START_TEST(test_large_file)
{
	struct table t;

	table_random(&t, 32, 3000, 12u << 20, false);
	ck_assert_uint_gt(t.size, 1ULL << 32);
	compare_one(&t);
}
END_TEST

/* Many short extents, then few long ones: interpolation misses badly. */
START_TEST(test_uneven)
{
	struct opened fast;
	struct erofs_inode ino;
	struct table t;
	uint64_t k, la = 0, i;

	table_random(&t, 16, 6000, 1, false);
	for (k = 0; k < t.n; k++) {
		t.r[k].lstart = la;
		t.r[k].plen = 0;
		t.r[k].pstart = 0;
		la += k < 5900 ? 1 : 1u << 20;
	}
	t.size = la;
	image_begin();
	place_table(&t);
	compare_tables(&t, 1);

	/* the fences bound the block reads of a lookup by the table's depth */
	open_path(&fast, image_path, false);
	read_inode(&fast, t.nid, &ino);
	for (i = 0; i < 2000; i++) {
		struct erofs_map m;
		uint64_t before = STATS(fast)->lookup_meta_reads;

		map_ok(&fast, &ino, rnd_below(t.size), &m);
		ck_assert_uint_le(STATS(fast)->lookup_meta_reads - before, 8);
	}
	/*
	 * once the fences are known, a random lookup reads the block of its
	 * record, however uneven the extents: 99% of the records cover the
	 * first 0.006% of the bytes here
	 */
	erofs_ctx_stats_reset(&fast.ctx);
	for (i = 0; i < 2000; i++) {
		struct erofs_map m;

		map_ok(&fast, &ino, rnd_below(t.size), &m);
	}
	ck_assert_uint_le(STATS(fast)->lookup_meta_reads * 10,
			  STATS(fast)->lookups * 12);
	close_opened(&fast);
	table_free(&t);
}
END_TEST

/* Several inodes looked up in turn: more than the context keeps hints for. */
START_TEST(test_interleaved_inodes)
{
	struct table t[6];
	struct opened plain, fast;
	struct erofs_inode pi[6], fi[6];
	unsigned int i, j;

	image_begin();
	for (i = 0; i < 6; i++) {
		table_random(&t[i], i % 2 ? 32 : 16, 300 + 100 * i,
			     5000 + 1000 * i, i == 3);
		place_table(&t[i]);
	}
	image_write();
	open_path(&plain, image_path, true);
	open_path(&fast, image_path, false);
	for (i = 0; i < 6; i++) {
		read_inode(&plain, t[i].nid, &pi[i]);
		read_inode(&fast, t[i].nid, &fi[i]);
	}
	for (j = 0; j < 20000; j++) {
		struct erofs_map a, b, w;
		uint64_t pos;

		i = (unsigned int)rnd_below(6);
		pos = j % 3 ? rnd_below(t[i].size) :
			      (j / 3 * 4096) % t[i].size;
		map_ok(&plain, &pi[i], pos, &a);
		map_ok(&fast, &fi[i], pos, &b);
		w = table_expect(&t[i], pos);
		assert_map("fast vs plain", t[i].nid, pos, &b, &a);
		assert_map("plain vs table", t[i].nid, pos, &a, &w);
	}
	close_opened(&plain);
	close_opened(&fast);
	for (i = 0; i < 6; i++)
		table_free(&t[i]);
}
END_TEST

/* ---- 4- and 8-byte records ---- */

static void table_lcluster(struct table *t, unsigned int recsz,
			   uint64_t count, bool frag)
{
	uint64_t k, pa = 0x200000;

	memset(t, 0, sizeof(*t));
	t->recsz = recsz;
	t->size = count * BS - (count > 1 ? 123 : 0);
	t->base = 0x200000 + 7;
	t->r = calloc(count, sizeof(*t->r));
	ck_assert_ptr_nonnull(t->r);
	for (k = 0; k < count; k++) {
		struct rec *r = &t->r[k];

		switch (rnd_below(4)) {
		case 0:
			r->plen = 0;
			break;
		case 1:
			r->plen = PLEN(0, BS + rnd_below(10));
			break;
		default:
			r->plen = PLEN(1, 1 + rnd_below(BS - 200));
		}
		r->pstart = r->plen & MASK ? pa : 0;
		pa += r->plen & MASK;
	}
	if (frag) {
		t->advise = Z_EROFS_ADVISE_FRAGMENT_PCLUSTER;
		t->r[count - 1].plen = 0x200;
		t->r[count - 1].pstart = 0;
	}
}

static void check_lcluster_table(struct table *t)
{
	struct opened o;
	struct erofs_inode ino;
	uint64_t k, count = table_count(t), before;
	struct offsets off = { 0 };

	image_begin();
	place_table(t);
	image_write();
	open_path(&o, image_path, false);
	read_inode(&o, t->nid, &ino);
	for (k = 0; k < count; k++) {
		offsets_add(&off, k * BS, t->size);
		offsets_add(&off, k * BS + BS - 1, t->size);
	}
	offsets_add(&off, t->size - 1, t->size);
	offsets_shuffle(&off);
	for (k = 0; k < off.n; k++) {
		struct erofs_map m, w = table_expect(t, off.v[k]);

		map_ok(&o, &ino, off.v[k], &m);
		assert_map("lcluster", t->nid, off.v[k], &m, &w);
	}
	/* the sums are kept: one block read per lookup from now on */
	before = STATS(o)->lookup_meta_reads;
	for (k = 0; k < off.n; k++) {
		struct erofs_map m;

		map_ok(&o, &ino, off.v[k], &m);
	}
	ck_assert_uint_eq(STATS(o)->lookup_meta_reads - before, off.n);
	free(off.v);
	close_opened(&o);
	table_free(t);
}

START_TEST(test_rec4)
{
	struct table t;

	/* 7000 records of 4 bytes: 7 blocks */
	table_lcluster(&t, 4, 7000, false);
	check_lcluster_table(&t);
	table_lcluster(&t, 4, 1, false);
	check_lcluster_table(&t);
	table_lcluster(&t, 4, 3000, true);
	check_lcluster_table(&t);
}
END_TEST

START_TEST(test_rec8)
{
	struct table t;

	table_lcluster(&t, 8, 3000, false);
	check_lcluster_table(&t);
	table_lcluster(&t, 8, 2000, true);
	check_lcluster_table(&t);
}
END_TEST

START_TEST(test_rec4_beyond_48bit)
{
	struct opened o;
	struct erofs_inode ino;
	struct erofs_map m;
	struct table t;
	uint64_t k;
	int ret;

	table_lcluster(&t, 4, 3000, false);
	t.base = (1ULL << 60) - 10000;
	for (k = 0; k < 3000; k++)
		t.r[k].plen = PLEN(1, 4000);
	image_begin();
	place_table(&t);
	image_write();
	open_path(&o, image_path, false);
	read_inode(&o, t.nid, &ino);
	/* base + 4000 * 2 is past 2^60 = 2^48 blocks of 4 KiB */
	ret = z_erofs_map(&o.ctx, &ino, 2000 * BS, &m);
	ck_assert_int_eq(ret, -EFSCORRUPTED);
	ck_assert_ptr_nonnull(strstr(o.ctx.err.msg, "48-bit"));
	close_opened(&o);
	table_free(&t);
}
END_TEST

/* ---- corrupt tables ---- */

struct corrupt_result {
	unsigned int corrupt;	/* lookups reported as corruption */
	unsigned int ok;
};

/*
 * Look up every extent start and 4 KiB offset in both modes. A lookup
 * either reports corruption or returns an extent that holds the offset
 * and matches the table; a forward walk must stop at the corruption.
 */
static void check_corrupt(struct table *t, uint64_t bad_pos,
			  struct corrupt_result *res)
{
	struct opened mode[2];
	struct erofs_inode ino[2];
	struct erofs_map m;
	unsigned int i;
	int ret;

	image_write();
	open_path(&mode[0], image_path, true);
	open_path(&mode[1], image_path, false);
	memset(res, 0, 2 * sizeof(*res));
	for (i = 0; i < 2; i++) {
		uint64_t pos, k;

		ret = 0;
		read_inode(&mode[i], t->nid, &ino[i]);
		/* forward walk */
		for (pos = 0; pos < t->size && !ret; pos = m.la + m.llen) {
			ret = z_erofs_map(&mode[i].ctx, &ino[i], pos, &m);
			ck_assert(ret || (m.la <= pos && m.la + m.llen > pos));
		}
		ck_assert_msg(ret == -EFSCORRUPTED,
			      "mode %u: walk gave %d", i, ret);
		ck_assert_str_ne(mode[i].ctx.err.msg, "");
		erofs_err_drop(&mode[i].ctx.err);
		for (k = 0; k < 2 * t->n; k++) {
			pos = k < t->n ? t->r[k].lstart : (k - t->n) * 4096;
			if (pos >= t->size)
				continue;
			ret = z_erofs_map(&mode[i].ctx, &ino[i], pos, &m);
			if (ret) {
				ck_assert_int_eq(ret, -EFSCORRUPTED);
				erofs_err_drop(&mode[i].ctx.err);
				res[i].corrupt++;
				continue;
			}
			ck_assert(m.la <= pos && m.la + m.llen > pos);
			res[i].ok++;
		}
	}
	/*
	 * The optimised lookup checks every block it reads, so it never
	 * answers for the offset of the bad record (the plain search only
	 * sees the records it probes).
	 */
	ret = z_erofs_map(&mode[1].ctx, &ino[1], bad_pos, &m);
	ck_assert_msg(ret == -EFSCORRUPTED, "map %llu gave %d",
		      (unsigned long long)bad_pos, ret);
	close_opened(&mode[0]);
	close_opened(&mode[1]);
}

static void corrupt_case(unsigned int recsz, void (*spoil)(struct table *,
							    uint64_t *))
{
	struct corrupt_result res[2];
	struct table t;
	uint64_t bad;

	table_random(&t, recsz, 2000, 10000, false);
	spoil(&t, &bad);
	image_begin();
	place_table(&t);
	check_corrupt(&t, bad, res);
	/* a corrupt block elsewhere does not make sound lookups fail */
	ck_assert_uint_gt(res[1].ok, 0);
	table_free(&t);
}

static void spoil_unsorted(struct table *t, uint64_t *bad)
{
	uint64_t x = t->r[1200].lstart;

	t->r[1200].lstart = t->r[1201].lstart;
	t->r[1201].lstart = x;
	*bad = x;
}

static void spoil_equal(struct table *t, uint64_t *bad)
{
	t->r[700].lstart = t->r[699].lstart;
	*bad = t->r[700].lstart;
}

/* record 1000 claims a start inside extent 998: extents overlap */
static void spoil_overlap(struct table *t, uint64_t *bad)
{
	t->r[1000].lstart = t->r[998].lstart + 1;
	*bad = t->r[1000].lstart;
}

static void spoil_beyond_size(struct table *t, uint64_t *bad)
{
	*bad = t->r[1500].lstart;
	t->r[1500].lstart = t->size + 5;
}

static void spoil_plen(struct table *t, uint64_t *bad)
{
	t->r[300].plen = PLEN(0, (1 << 20) + 1);
	*bad = t->r[300].lstart;
}

static void spoil_llen(struct table *t, uint64_t *bad)
{
	uint64_t k, shift = 13u << 20;

	/* extent 1700 decodes to 13 MiB */
	for (k = 1701; k < t->n; k++)
		t->r[k].lstart += shift;
	t->size += shift;
	t->r[1700].plen = PLEN(1, 4096);
	*bad = t->r[1700].lstart + 5;
}

static void spoil_first(struct table *t, uint64_t *bad)
{
	t->r[0].lstart = 1;
	*bad = 1;
}

START_TEST(test_corrupt_unsorted)
{
	corrupt_case(16, spoil_unsorted);
	corrupt_case(32, spoil_unsorted);
}
END_TEST

START_TEST(test_corrupt_equal)
{
	corrupt_case(16, spoil_equal);
}
END_TEST

START_TEST(test_corrupt_overlap)
{
	corrupt_case(16, spoil_overlap);
	corrupt_case(32, spoil_overlap);
}
END_TEST

START_TEST(test_corrupt_beyond_size)
{
	corrupt_case(16, spoil_beyond_size);
}
END_TEST

START_TEST(test_corrupt_lengths)
{
	corrupt_case(16, spoil_plen);
	corrupt_case(32, spoil_llen);
}
END_TEST

START_TEST(test_corrupt_first)
{
	corrupt_case(16, spoil_first);
}
END_TEST

/* ---- counters ---- */

START_TEST(test_counters)
{
	struct opened plain, fast;
	struct erofs_inode pi, fi;
	struct table t;
	uint64_t i, pos;
	char buf[4096];

	table_random(&t, 16, 5000, 20000, false);
	image_begin();
	place_table(&t);
	image_write();
	open_path(&plain, image_path, true);
	open_path(&fast, image_path, false);
	read_inode(&plain, t.nid, &pi);
	read_inode(&fast, t.nid, &fi);

	/* random 4 KiB lookups: about one block per lookup */
	for (i = 0; i < 20000; i++) {
		struct erofs_map a, b;

		pos = rnd_below(t.size / 4096) * 4096;
		map_ok(&plain, &pi, pos, &a);
		map_ok(&fast, &fi, pos, &b);
	}
	ck_assert_uint_eq(STATS(fast)->lookups, 20000);
	ck_assert_msg(STATS(fast)->lookup_meta_reads <= 20000 * 12 / 10,
		      "%llu block reads for 20000 lookups",
		      (unsigned long long)STATS(fast)->lookup_meta_reads);
	/* the plain search reads about log2(5000) = 12.3 blocks */
	ck_assert_uint_ge(STATS(plain)->lookup_meta_reads, 20000 * 12);
	ck_assert_uint_eq(STATS(plain)->hint_hits, 0);

	/* sequential reads: the hint serves all but the first lookup */
	erofs_ctx_stats_reset(&fast.ctx);
	for (pos = 0; pos < t.size; pos += sizeof(buf)) {
		struct erofs_map m;

		map_ok(&fast, &fi, pos, &m);
		while (m.la + m.llen < pos + sizeof(buf) &&
		       m.la + m.llen < t.size)
			map_ok(&fast, &fi, m.la + m.llen, &m);
	}
	ck_assert_uint_ge(STATS(fast)->hint_hits * 100,
			  STATS(fast)->lookups * 99);
	ck_assert_uint_ge(STATS(fast)->hint_hits + 1, STATS(fast)->lookups);
	close_opened(&plain);
	close_opened(&fast);
	table_free(&t);
}
END_TEST

/* ---- concurrent lookups ---- */

struct worker {
	struct erofs_image *img;
	const struct erofs_inode *ino;
	const struct table *t;
	unsigned int order;
	atomic_uint *failures;
};

static void *worker_run(void *arg)
{
	struct worker *w = arg;
	struct erofs_ctx ctx;
	uint64_t i, seed = w->order + 1;
	unsigned int bad = 0;

	if (erofs_ctx_init(&ctx, w->img)) {
		atomic_fetch_add(w->failures, 1);
		return NULL;
	}
	for (i = 0; i < 30000; i++) {
		struct erofs_map m, want;
		uint64_t pos;

		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		switch (w->order) {
		case 0:
			pos = (i * 997) % w->t->size;
			break;
		case 1:
			pos = w->t->size - 1 - (i * 997) % w->t->size;
			break;
		default:
			pos = (seed >> 11) % w->t->size;
		}
		want = table_expect(w->t, pos);
		if (z_erofs_map(&ctx, w->ino, pos, &m) || !map_equal(&m, &want))
			bad++;
	}
	erofs_ctx_fini(&ctx);
	atomic_fetch_add(w->failures, bad);
	return NULL;
}

START_TEST(test_threads)
{
	struct worker w[4];
	pthread_t tid[4];
	atomic_uint failures = 0;
	struct erofs_inode ino;
	struct opened o;
	struct table t;
	unsigned int i;

	table_random(&t, 16, 4000, 30000, true);
	image_begin();
	place_table(&t);
	image_write();
	open_path(&o, image_path, false);
	read_inode(&o, t.nid, &ino);
	for (i = 0; i < 4; i++) {
		w[i] = (struct worker){ o.img, &ino, &t, i, &failures };
		ck_assert_int_eq(pthread_create(&tid[i], NULL, worker_run,
						&w[i]), 0);
	}
	for (i = 0; i < 4; i++)
		pthread_join(tid[i], NULL);
	ck_assert_uint_eq(atomic_load(&failures), 0);
	close_opened(&o);
	table_free(&t);
}
END_TEST

/* ---- raw extents: straight into the caller's buffer ---- */

static uint8_t file_byte(uint64_t x)
{
	return x < 7000 ? (uint8_t)(x * 7 + 3) : 0;
}

/*
 * A shifted extent at an unaligned address, an interlaced one (its block
 * rotated by la mod 4096) and a hole. Every read of every range must
 * give the file bytes without touching the context's pcluster buffers.
 */
START_TEST(test_raw_extents)
{
	const uint64_t shifted_pa = 200ULL * BS + 123, inter_pa = 210ULL * BS;
	struct table t = { .recsz = 16, .size = 9000, .n = 3,
			   .advise = Z_EROFS_ADVISE_INTERLACED_PCLUSTER };
	struct erofs_inode ino;
	struct opened o;
	uint8_t buf[9000];
	uint64_t x, off, len;
	struct erofs_map m;

	t.r = calloc(3, sizeof(*t.r));
	t.r[0] = (struct rec){ 0, PLEN(0, 5000), shifted_pa };
	t.r[1] = (struct rec){ 4000, PLEN(0, BS), inter_pa };
	t.r[2] = (struct rec){ 7000, 0, 0 };
	image_begin();
	place_table(&t);
	for (x = 0; x < 4000; x++)
		image[shifted_pa + x] = file_byte(x);
	for (x = 4000; x < 7000; x++)
		image[inter_pa + x % BS] = file_byte(x);
	image_write();
	open_path(&o, image_path, false);
	read_inode(&o, t.nid, &ino);
	map_ok(&o, &ino, 0, &m);
	ck_assert_uint_eq(m.fmt, EROFS_FMT_SHIFTED);
	map_ok(&o, &ino, 4000, &m);
	ck_assert_uint_eq(m.fmt, EROFS_FMT_INTERLACED);
	memset(o.ctx.inbuf, 0xa5, o.ctx.inbuf_size);
	memset(o.ctx.outbuf, 0x5a, o.ctx.outbuf_size);
	for (off = 0; off < t.size; off += 97) {
		for (len = 1; off + len <= t.size; len = len * 3 + 1) {
			memset(buf, 0xee, sizeof(buf));
			ck_assert_int_eq(erofs_pread(&o.ctx, &ino, buf, len,
						     off), (ssize_t)len);
			for (x = 0; x < len; x++)
				ck_assert_msg(buf[x] == file_byte(off + x),
					      "read %llu+%llu: byte %llu",
					      (unsigned long long)off,
					      (unsigned long long)len,
					      (unsigned long long)(off + x));
		}
	}
	for (x = 0; x < o.ctx.inbuf_size; x++)
		ck_assert_uint_eq(o.ctx.inbuf[x], 0xa5);
	for (x = 0; x < o.ctx.outbuf_size; x++)
		ck_assert_uint_eq(o.ctx.outbuf[x], 0x5a);
	ck_assert_uint_eq(o.ctx.out_nid, EROFS_NO_NID);
	close_opened(&o);
	table_free(&t);
}
END_TEST

/* ---- fixture images ---- */

/*
 * The benchmark image (bench/README.md): seed-48bit.erofs in the directory
 * EROFS_BENCH_DATA names. It is too big for tests/data, so the bench suite
 * is a test of its own (test_lookup_bench), skipped when it is not given.
 */
static void bench_path(char *buf, size_t len)
{
	unit_data_path(buf, len, "EROFS_BENCH_DATA", "seed-48bit.erofs");
}

struct nid_list {
	uint64_t *v;
	size_t n, cap;
};

static void nid_push(struct nid_list *l, uint64_t nid)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 256;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
		ck_assert_ptr_nonnull(l->v);
	}
	l->v[l->n++] = nid;
}

struct walk {
	struct nid_list dirs;
	struct nid_list files;
};

static int collect(void *arg, const struct erofs_dirent *de)
{
	struct walk *w = arg;

	if (de->file_type == EROFS_FT_DIR)
		nid_push(&w->dirs, de->nid);
	else if (de->file_type == EROFS_FT_REG_FILE)
		nid_push(&w->files, de->nid);
	return 0;
}

/* Regular files of an image whose lookups use sorted records. */
static void sorted_files(struct opened *o, struct nid_list *out)
{
	struct walk w = { { 0 }, { 0 } };
	size_t i;

	nid_push(&w.dirs, o->img->root_nid);
	/* directories are visited once: a tree, checked by test_dir */
	for (i = 0; i < w.dirs.n && i < 100000; i++) {
		struct erofs_inode dir;

		read_inode(o, w.dirs.v[i], &dir);
		ck_assert_int_eq(erofs_dir_iterate(&o->ctx, &dir, EROFS_NO_NID,
						   collect, &w), 0);
	}
	for (i = 0; i < w.files.n; i++) {
		struct erofs_inode ino;

		read_inode(o, w.files.v[i], &ino);
		if (erofs_inode_is_compressed(&ino) && ino.z.extents &&
		    ino.z.recsz >= 16)
			nid_push(out, ino.nid);
	}
	free(w.dirs.v);
	free(w.files.v);
}

static unsigned int compare_image(const char *path)
{
	struct opened plain, fast;
	struct nid_list files = { 0 };
	size_t i;

	open_path(&plain, path, true);
	open_path(&fast, path, false);
	sorted_files(&plain, &files);
	for (i = 0; i < files.n; i++)
		compare_inode(&plain, &fast, files.v[i], NULL);
	close_opened(&plain);
	close_opened(&fast);
	free(files.v);
	return (unsigned int)files.n;
}

START_TEST(test_fixtures)
{
	static const char *const names[] = {
		"deflate-48bit-c32k.erofs", "lz4hc-48bit.erofs",
		"zstd-48bit.erofs",
	};
	char path[512];
	unsigned int i, files = 0;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		unit_fixture(path, sizeof(path), names[i]);
		files += compare_image(path);
	}
	fprintf(stderr, "compared %u files with sorted extent records\n",
		files);
	ck_assert_uint_gt(files, 0);
}
END_TEST

START_TEST(test_bench_image)
{
	char path[512];

	bench_path(path, sizeof(path));
	ck_assert_uint_gt(compare_image(path), 0);
}
END_TEST

/*
 * Random 4 KiB lookups in file name of the benchmark image: at most 1.2
 * metadata block reads each, on even tables (large_48bit.bin) and uneven
 * ones (shifted_mixed.bin, whose first records cover a small part of it).
 */
static void bench_random(struct opened *o, const char *name,
			 struct erofs_inode *ino)
{
	uint64_t nid, i, nblocks;

	ck_assert_int_eq(erofs_lookup(&o->ctx, name, &nid), 0);
	read_inode(o, nid, ino);
	ck_assert_uint_eq(ino->z.recsz, 16);
	nblocks = ino->size / 4096;
	erofs_ctx_stats_reset(&o->ctx);
	for (i = 0; i < 20000; i++) {
		struct erofs_map m;

		map_ok(o, ino, rnd_below(nblocks) * 4096, &m);
	}
	fprintf(stderr, "%s: %.3f block reads per random lookup\n", name,
		(double)STATS(*o)->lookup_meta_reads /
			(double)STATS(*o)->lookups);
	ck_assert_uint_le(STATS(*o)->lookup_meta_reads * 10,
			  STATS(*o)->lookups * 12);
}

/* The targets of the benchmark, on its own image. */
START_TEST(test_bench_targets)
{
	struct opened o;
	struct erofs_inode ino;
	uint64_t pos;
	static char buf[65536];
	char path[512];

	bench_path(path, sizeof(path));
	open_path(&o, path, false);
	bench_random(&o, "/shifted_mixed.bin", &ino);
	bench_random(&o, "/large_48bit.bin", &ino);

	erofs_ctx_stats_reset(&o.ctx);
	for (pos = 0; pos < ino.size; pos += sizeof(buf))
		ck_assert_int_eq(erofs_pread(&o.ctx, &ino, buf, sizeof(buf),
					     pos), (ssize_t)sizeof(buf));
	fprintf(stderr, "large_48bit.bin: %llu of %llu sequential lookups from the hint\n",
		(unsigned long long)STATS(o)->hint_hits,
		(unsigned long long)STATS(o)->lookups);
	ck_assert_uint_ge(STATS(o)->hint_hits * 100, STATS(o)->lookups * 99);
	close_opened(&o);
}
END_TEST

/* test_lookup_bench is this file built with UNIT_LOOKUP_BENCH=1 */
#ifndef UNIT_LOOKUP_BENCH
#define UNIT_LOOKUP_BENCH 0
#endif

int main(void)
{
	const struct unit_case lookup[] = {
		{ "tables",
		  .tests = UNIT_TESTS(
			  test_one_record, test_two_records, test_many_random,
			  test_fragment_last, test_holes, test_large_file,
			  test_uneven, test_interleaved_inodes, test_rec4,
			  test_rec8, test_rec4_beyond_48bit, test_counters,
			  test_threads, test_raw_extents),
		  .teardown = image_remove, .timeout = 60 },
		{ "corrupt",
		  .tests = UNIT_TESTS(test_corrupt_unsorted, test_corrupt_equal,
				      test_corrupt_overlap,
				      test_corrupt_beyond_size,
				      test_corrupt_lengths, test_corrupt_first),
		  .teardown = image_remove, .timeout = 60 },
		{ "images", .tests = UNIT_TESTS(test_fixtures),
		  .timeout = 300 },
		{ NULL }
	};
	/* the benchmark image: its files against the plain search, its targets */
	const struct unit_case bench[] = {
		{ "bench",
		  .tests = UNIT_TESTS(test_bench_image, test_bench_targets),
		  .timeout = 300 },
		{ NULL }
	};

	unit_require_dir(UNIT_LOOKUP_BENCH ? "EROFS_BENCH_DATA"
					   : "EROFS_TEST_DATA");
	if (UNIT_LOOKUP_BENCH)
		return unit_main("lookup-bench", bench);
	return unit_main("lookup", lookup);
}
