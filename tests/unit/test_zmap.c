// SPDX-License-Identifier: MIT
/*
 * Compressed-file mapping (lib/zmap/zmap_inode.c) on hand-built images: full and
 * compact indexes, big pclusters, inline tails, fragments and encoded
 * extents, plus corrupt variants that must be reported as corruption.
 *
 * Every image is 64 blocks of 4 KiB: a superblock (no checksum), a root
 * directory at nid 0, a flat packed inode at nid 2 when FRAGMENTS is on,
 * and the inode under test at nid 4 (byte INODE_POS) with its map header
 * and index right after it.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "erofs/data.h"
#include "erofs/format.h"
#include "erofs/image.h"
#include "erofs/inode.h"
#include "erofs/testing.h"
#include "unit.h"

#define BS 4096u
#define IMG_BLOCKS 64u
#define META_BLKADDR 1u
#define PACKED_NID 2u
#define PACKED_SIZE 16384u
#define PACKED_BLK 40u
#define TEST_NID 4u
#define INODE_POS (META_BLKADDR * BS + TEST_NID * 32)	/* "A" of App. B */
#define HPOS_COMPACT (INODE_POS + 32)
#define HPOS_EXTENDED (INODE_POS + 64)

#define F_BIG EROFS_FEATURE_INCOMPAT_BIG_PCLUSTER
#define F_TAIL EROFS_FEATURE_INCOMPAT_ZTAILPACKING
#define F_FRAG EROFS_FEATURE_INCOMPAT_FRAGMENTS
#define F_48 EROFS_FEATURE_INCOMPAT_48BIT

#define T_PLAIN Z_EROFS_LCLUSTER_TYPE_PLAIN
#define T_HEAD1 Z_EROFS_LCLUSTER_TYPE_HEAD1
#define T_NONHEAD Z_EROFS_LCLUSTER_TYPE_NONHEAD
#define CBLK(n) (Z_EROFS_LI_D0_CBLKCNT | (n))

static uint8_t image[IMG_BLOCKS * BS];
static char image_path[64];
static struct erofs_image *img;
static struct erofs_ctx ctx;
static struct erofs_inode ino;
static bool ctx_ready;

/* ---- image construction ---- */

/* algs: with BIG_PCLUSTER (= COMPR_CFGS), the algorithm bitmap */
static void image_begin(uint32_t incompat, uint16_t algs)
{
	uint8_t *sb = image + EROFS_SUPER_OFFSET;

	memset(image, 0, sizeof(image));
	unit_put_super(image, IMG_BLOCKS, META_BLKADDR,
		       incompat | EROFS_FEATURE_INCOMPAT_LZ4_0PADDING);
	if (incompat & EROFS_FEATURE_INCOMPAT_COMPR_CFGS) {
		uint8_t *rec = sb + EROFS_SB_BASE_SIZE;

		erofs_put16(sb + EROFS_SB_COMPR_ALGS, algs);
		/* one config record per algorithm: LZ4 and LZMA only */
		if (algs & 1) {
			erofs_put16(rec, Z_EROFS_LZ4_CFG_SIZE);
			erofs_put16(rec + 2, 65535);
			erofs_put16(rec + 4, 16);
			rec += 2 + Z_EROFS_LZ4_CFG_SIZE;
		}
		if (algs & 2) {
			erofs_put16(rec, Z_EROFS_LZMA_CFG_SIZE);
			erofs_put32(rec + 2, 65536);
		}
	}
	unit_put_root_dir(image + META_BLKADDR * BS);
	if (incompat & F_FRAG) {
		erofs_put64(sb + EROFS_SB_PACKED_NID, PACKED_NID);
		unit_put_flat_file(image + META_BLKADDR * BS + PACKED_NID * 32,
				   PACKED_SIZE, PACKED_BLK, 2);
	}
}

static void put_inode(uint8_t layout, uint64_t size, bool extended)
{
	uint8_t *i = image + INODE_POS;

	erofs_put16(i + EROFS_IC_MODE, 0100644);
	erofs_put32(i + EROFS_IC_U, 1);
	erofs_put32(i + EROFS_IC_INO, 3);
	if (extended) {
		erofs_put16(i + EROFS_IE_FORMAT, 1 | layout << 1);
		erofs_put64(i + EROFS_IE_SIZE, size);
		erofs_put32(i + EROFS_IE_NLINK, 1);
	} else {
		erofs_put16(i + EROFS_IC_FORMAT, layout << 1);
		erofs_put16(i + EROFS_IC_NB, 1);
		erofs_put32(i + EROFS_IC_SIZE, (uint32_t)size);
	}
}

static void put_header(uint64_t hpos, uint32_t lo32, uint16_t advise,
		       uint8_t algtype, uint8_t clusterbits)
{
	uint8_t *h = image + hpos;

	erofs_put32(h, lo32);
	erofs_put16(h + Z_EROFS_MH_ADVISE, advise);
	h[Z_EROFS_MH_ALGORITHMTYPE] = algtype;
	h[Z_EROFS_MH_CLUSTERBITS] = clusterbits;
}

static void put_idata_size(uint64_t hpos, uint16_t size)
{
	erofs_put16(image + hpos + Z_EROFS_MH_IDATA_SIZE, size);
}

/* full indexes of the compact-inode test inode */
static uint8_t *full_rec(uint64_t lcn)
{
	return image + HPOS_COMPACT + 16 + 8 * lcn;
}

static void full_head(uint64_t lcn, uint16_t advise, uint16_t cofs,
		      uint32_t blkaddr)
{
	uint8_t *r = full_rec(lcn);

	erofs_put16(r + Z_EROFS_LI_ADVISE, advise);
	erofs_put16(r + Z_EROFS_LI_CLUSTEROFS, cofs);
	erofs_put32(r + Z_EROFS_LI_BLKADDR, blkaddr);
}

static void full_nonhead(uint64_t lcn, uint16_t d0, uint16_t d1)
{
	uint8_t *r = full_rec(lcn);

	erofs_put16(r + Z_EROFS_LI_ADVISE, T_NONHEAD);
	erofs_put16(r + Z_EROFS_LI_DELTA0, d0);
	erofs_put16(r + Z_EROFS_LI_DELTA1, d1);
}

/*
 * Compact indexes: entry positions follow format.md, "Compact indexes",
 * literally; the values (clusterofs, delta[0], delta[1] or CBLKCNT) are given
 * by each test.
 */
static struct {
	uint64_t ebase, total;
	bool use2b;
} cpt;

static void compact_begin(uint64_t total, bool use2b)
{
	cpt.ebase = HPOS_COMPACT + Z_EROFS_MAP_HEADER_SIZE;
	cpt.total = total;
	cpt.use2b = use2b;
}

static uint64_t compact_pos(uint64_t lcn, unsigned int *packsize)
{
	uint64_t init4 = ((32 - cpt.ebase % 32) / 4) & 7, n2 = 0;

	if (cpt.use2b && init4 < cpt.total)
		n2 = (cpt.total - init4) / 16 * 16;
	*packsize = 8;
	if (lcn < init4)
		return cpt.ebase + 4 * lcn;
	if (lcn < init4 + n2) {
		*packsize = 32;
		return cpt.ebase + 4 * init4 + 2 * (lcn - init4);
	}
	return cpt.ebase + 4 * init4 + 2 * n2 + 4 * (lcn - init4 - n2);
}

static void compact_entry(uint64_t lcn, uint8_t type, uint16_t lo)
{
	unsigned int packsize, bits, bit, k;
	uint64_t pos = compact_pos(lcn, &packsize);
	uint64_t pack = pos / packsize * packsize;
	uint32_t v;

	bits = packsize == 32 ? 14 : 16;
	bit = (pos - pack) / (packsize == 32 ? 2 : 4) * bits;
	v = (uint32_t)(lo | type << 12) << (bit % 8);
	for (k = 0; k < 4 && bit / 8 + k < packsize - 4; k++)
		image[pack + bit / 8 + k] |= (uint8_t)(v >> (8 * k));
}

static void compact_base(uint64_t lcn, uint32_t base)
{
	unsigned int packsize;
	uint64_t pos = compact_pos(lcn, &packsize);

	erofs_put32(image + pos / packsize * packsize + packsize - 4, base);
}

/* ---- opening and mapping ---- */

static int image_open(void)
{
	struct erofs_open_opts opts = { .path = image_path };
	struct erofs_err err;
	int fd, ret;

	strcpy(image_path, "/tmp/test_zmap.XXXXXX");
	fd = mkstemp(image_path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, image, sizeof(image)), (int)sizeof(image));
	close(fd);
	erofs_err_clear(&err);
	ret = erofs_image_open(&img, &opts, &err);
	ck_assert_msg(!ret, "image open: %d %s", ret, err.msg);
	ck_assert_int_eq(erofs_ctx_init(&ctx, img), 0);
	ctx_ready = true;
	return erofs_read_inode(&ctx, TEST_NID, &ino);
}

static void open_ok(void)
{
	int ret = image_open();

	ck_assert_msg(!ret, "read inode: %d %s", ret, ctx.err.msg);
}

static void open_corrupt(void)
{
	int ret = image_open();

	ck_assert_msg(ret == -EFSCORRUPTED, "read inode gave %d, want %d (%s)",
		      ret, -EFSCORRUPTED, ctx.err.msg);
	ck_assert_str_ne(ctx.err.msg, "");
}

static void teardown(void)
{
	if (ctx_ready)
		erofs_ctx_fini(&ctx);
	erofs_image_close(img);
	img = NULL;
	ctx_ready = false;
	if (image_path[0])
		unlink(image_path);
	image_path[0] = '\0';
}

struct want {
	uint64_t la, llen;
	uint8_t loc;
	uint64_t pa, plen;
	uint8_t fmt;
	uint8_t flags;
};

#define DEV(pa, plen, fmt) EROFS_LOC_DEVICE, (pa), (plen), (fmt)
#define BLK(b) ((uint64_t)(b) * BS)
#define FULL EROFS_MAP_FULL_MAPPED
#define PARTIAL (EROFS_MAP_FULL_MAPPED | EROFS_MAP_PARTIAL_REF)
#define ENC (EROFS_MAP_FULL_MAPPED | EROFS_MAP_ENCODED)
#define LZ4 EROFS_FMT_LZ4
#define SHIFTED EROFS_FMT_SHIFTED
#define INTERLACED EROFS_FMT_INTERLACED

static void expect_map_at(int line, uint64_t pos, struct want w)
{
	struct erofs_map m;
	int ret = z_erofs_map(&ctx, &ino, pos, &m);

	ck_assert_msg(!ret, "line %d: map %llu: %d %s", line,
		      (unsigned long long)pos, ret, ctx.err.msg);
	ck_assert_msg(m.la == w.la && m.llen == w.llen,
		      "line %d: map %llu: extent %llu+%llu, want %llu+%llu",
		      line, (unsigned long long)pos, (unsigned long long)m.la,
		      (unsigned long long)m.llen, (unsigned long long)w.la,
		      (unsigned long long)w.llen);
	ck_assert_msg(m.loc == w.loc && m.pa == w.pa && m.plen == w.plen,
		      "line %d: map %llu: loc %u pa %llu plen %llu, want %u %llu %llu",
		      line, (unsigned long long)pos, m.loc,
		      (unsigned long long)m.pa, (unsigned long long)m.plen,
		      w.loc, (unsigned long long)w.pa,
		      (unsigned long long)w.plen);
	ck_assert_msg(m.fmt == w.fmt && m.flags == w.flags,
		      "line %d: map %llu: fmt %u flags %#x, want %u %#x", line,
		      (unsigned long long)pos, m.fmt, m.flags, w.fmt, w.flags);
	ck_assert_uint_eq(m.device, 0);
	if (m.loc == EROFS_LOC_META)
		ck_assert_uint_eq(m.space, ino.space);
}

#define EXPECT(pos, ...) \
	expect_map_at(__LINE__, (pos), (struct want){ __VA_ARGS__ })

/* Map extents from the start to i_size and check that they tile the file. */
static unsigned int walk_extents(void)
{
	unsigned int n = 0;
	uint64_t x = 0;

	while (x < ino.size) {
		struct erofs_map m;
		int ret = z_erofs_map(&ctx, &ino, x, &m);

		ck_assert_msg(!ret, "walk %llu: %d %s", (unsigned long long)x,
			      ret, ctx.err.msg);
		ck_assert_uint_eq(m.la, x);
		ck_assert_uint_gt(m.llen, 0);
		ck_assert(m.flags & EROFS_MAP_FULL_MAPPED);
		x = m.la + m.llen;
		n++;
	}
	ck_assert_uint_eq(x, ino.size);
	return n;
}

static void expect_map_corrupt_at(int line, uint64_t pos)
{
	struct erofs_map m;
	int ret = z_erofs_map(&ctx, &ino, pos, &m);

	ck_assert_msg(ret == -EFSCORRUPTED, "line %d: map %llu gave %d (%s)",
		      line, (unsigned long long)pos, ret, ctx.err.msg);
	ck_assert_str_ne(ctx.err.msg, "");
	ck_assert_uint_eq(ctx.err.nid, TEST_NID);
	erofs_err_drop(&ctx.err);
}

#define EXPECT_CORRUPT(pos) expect_map_corrupt_at(__LINE__, (pos))

/* ---- full indexes ---- */

#define FULL_SIZE (9 * BS + 100)

/*
 * lcn 0 HEAD1 | 1 PLAIN@1000 | 2 HEAD1@1000, 3-4 NONHEAD | 5 HEAD1@3596
 * partial | 6 HEAD1@10, 7-8 NONHEAD | 9 PLAIN@100 marking the end of file.
 */
static void build_full_alg(uint32_t incompat, uint16_t algs, uint8_t algtype)
{
	image_begin(incompat, algs);
	put_inode(EROFS_INODE_COMPRESSED_FULL, FULL_SIZE, false);
	put_header(HPOS_COMPACT, 0, 0, algtype, 0);
	full_head(0, T_HEAD1, 0, 20);
	full_head(1, T_PLAIN, 1000, 21);
	full_head(2, T_HEAD1, 1000, 22);
	full_nonhead(3, 1, 2);
	full_nonhead(4, 2, 1);
	full_head(5, T_HEAD1 | Z_EROFS_LI_PARTIAL_REF, 3596, 23);
	full_head(6, T_HEAD1, 10, 24);
	full_nonhead(7, 1, 2);
	full_nonhead(8, 2, 1);
	full_head(9, T_PLAIN, 100, 0);
}

static void build_full(void)
{
	build_full_alg(0, 0, 0);
}

START_TEST(test_full_basic)
{
	build_full();
	open_ok();
	ck_assert(!ino.z.extents && !ino.z.whole_fragment);
	ck_assert_uint_eq(ino.z.lclusterbits, 12);
	EXPECT(0, 0, BS + 1000, DEV(BLK(20), BS, LZ4), FULL);
	EXPECT(BS + 999, 0, BS + 1000, DEV(BLK(20), BS, LZ4), FULL);
	EXPECT(BS + 1000, BS + 1000, BS, DEV(BLK(21), BS, SHIFTED), FULL);
	EXPECT(2 * BS + 999, BS + 1000, BS, DEV(BLK(21), BS, SHIFTED), FULL);
	/* NONHEAD lookback with distance 2, and a split HEAD's lookback */
	EXPECT(4 * BS + 7, 2 * BS + 1000, 3 * BS + 2596,
	       DEV(BLK(22), BS, LZ4), FULL);
	EXPECT(5 * BS + 3595, 2 * BS + 1000, 3 * BS + 2596,
	       DEV(BLK(22), BS, LZ4), FULL);
	/* a partial reference may decode to less than its pcluster */
	EXPECT(5 * BS + 3596, 5 * BS + 3596, 510, DEV(BLK(23), BS, LZ4),
	       PARTIAL);
	EXPECT(6 * BS + 9, 5 * BS + 3596, 510, DEV(BLK(23), BS, LZ4),
	       PARTIAL);
	/* the last extent ends at the EOF PLAIN, reached both ways */
	EXPECT(6 * BS + 10, 6 * BS + 10, 3 * BS + 90, DEV(BLK(24), BS, LZ4),
	       FULL);
	EXPECT(9 * BS + 99, 6 * BS + 10, 3 * BS + 90, DEV(BLK(24), BS, LZ4),
	       FULL);
	ck_assert_uint_eq(walk_extents(), 5);
}
END_TEST

START_TEST(test_full_lookback_zero)
{
	struct erofs_map m;

	build_full();
	full_nonhead(4, 0, 1);
	open_ok();
	ck_assert_int_eq(z_erofs_map(&ctx, &ino, 4 * BS, &m), -EFSCORRUPTED);
	ck_assert_uint_eq(ctx.err.offset, full_rec(4) - image);
	ck_assert_ptr_nonnull(strstr(ctx.err.msg, "lcluster 4"));
	erofs_err_drop(&ctx.err);
	EXPECT(3 * BS, 2 * BS + 1000, 3 * BS + 2596, DEV(BLK(22), BS, LZ4),
	       FULL);
}
END_TEST

START_TEST(test_full_lookback_past_zero)
{
	build_full();
	full_nonhead(8, 9, 1);
	open_ok();
	EXPECT_CORRUPT(8 * BS + 5);
	EXPECT_CORRUPT(9 * BS + 5);
}
END_TEST

START_TEST(test_full_nonhead_first)
{
	build_full();
	full_nonhead(0, 1, 1);
	open_ok();
	EXPECT_CORRUPT(0);
}
END_TEST

START_TEST(test_full_first_clusterofs)
{
	build_full();
	full_head(0, T_HEAD1, 5, 20);
	open_ok();
	EXPECT_CORRUPT(100);
}
END_TEST

START_TEST(test_full_clusterofs_range)
{
	build_full();
	full_head(6, T_HEAD1, BS, 24);
	open_ok();
	EXPECT_CORRUPT(6 * BS);
	EXPECT_CORRUPT(5 * BS + 3596);
}
END_TEST

START_TEST(test_full_partial_plain)
{
	build_full();
	full_head(1, T_PLAIN | Z_EROFS_LI_PARTIAL_REF, 1000, 21);
	open_ok();
	EXPECT_CORRUPT(BS + 1000);
}
END_TEST

START_TEST(test_full_short_compressed)
{
	/* the partial flag is what allows extent 5 to be shorter than plen */
	build_full();
	full_head(5, T_HEAD1, 3596, 23);
	open_ok();
	EXPECT_CORRUPT(5 * BS + 3600);
}
END_TEST

START_TEST(test_full_short_lz4_aligned)
{
	/*
	 * Shorter than its pcluster but ending on an lcluster boundary, as
	 * mkfs.erofs 1.5 writes them: only LZ4 is let through (Linux never
	 * sees where such an extent ends).
	 */
	build_full();
	full_head(5, T_HEAD1, 3596, 23);
	full_head(6, T_HEAD1, 0, 24);
	open_ok();
	EXPECT(5 * BS + 3600, 5 * BS + 3596, 500, DEV(BLK(23), BS, LZ4),
	       FULL);
	teardown();
	build_full_alg(F_BIG, 3, Z_EROFS_COMPRESSION_LZMA);
	full_head(5, T_HEAD1, 3596, 23);
	full_head(6, T_HEAD1, 0, 24);
	open_ok();
	EXPECT_CORRUPT(5 * BS + 3600);
}
END_TEST

START_TEST(test_full_alg_not_in_image)
{
	build_full();
	put_header(HPOS_COMPACT, 0, 0, Z_EROFS_COMPRESSION_LZMA, 0);
	open_ok();
	EXPECT_CORRUPT(0);
	/* PLAIN extents do not use the algorithm */
	EXPECT(BS + 1000, BS + 1000, BS, DEV(BLK(21), BS, SHIFTED), FULL);
}
END_TEST

START_TEST(test_full_alg_unknown)
{
	int ret;

	build_full();
	put_header(HPOS_COMPACT, 0, 0, 0x05, 0);
	ret = image_open();
	ck_assert_int_eq(ret, -EOPNOTSUPP);
}
END_TEST

START_TEST(test_full_head2)
{
	image_begin(F_BIG, 3);
	put_inode(EROFS_INODE_COMPRESSED_FULL, 2 * BS, false);
	put_header(HPOS_COMPACT, 0, 0, Z_EROFS_COMPRESSION_LZMA << 4, 0);
	full_head(0, Z_EROFS_LCLUSTER_TYPE_HEAD2, 0, 20);
	full_head(1, T_HEAD1, 0, 21);
	open_ok();
	EXPECT(5, 0, BS, DEV(BLK(20), BS, EROFS_FMT_LZMA), FULL);
	EXPECT(BS + 5, BS, BS, DEV(BLK(21), BS, LZ4), FULL);
}
END_TEST

START_TEST(test_full_advise_unknown)
{
	build_full();
	put_header(HPOS_COMPACT, 0, 0x40, 0, 0);
	open_corrupt();
}
END_TEST

START_TEST(test_full_raw_too_long)
{
	build_full();
	full_head(2, T_HEAD1, 1001, 22);
	open_ok();
	EXPECT_CORRUPT(BS + 1000);
}
END_TEST

START_TEST(test_full_interlaced)
{
	build_full();
	put_header(HPOS_COMPACT, 0, Z_EROFS_ADVISE_INTERLACED_PCLUSTER, 0, 0);
	open_ok();
	EXPECT(BS + 1000, BS + 1000, BS, DEV(BLK(21), BS, INTERLACED), FULL);
}
END_TEST

START_TEST(test_full_header_reserved)
{
	build_full();
	put_header(HPOS_COMPACT, 0, 0, 0, 0x10);
	open_corrupt();
}
END_TEST

/*
 * Big pclusters, full layout: HEAD1 at 0 with CBLKCNT 2, NONHEAD at 2;
 * HEAD1 at 3@10 with CBLKCNT 1 running to EOF.
 */
#define BIGF_SIZE (5 * BS)

static void build_full_big(uint16_t advise)
{
	image_begin(F_BIG, 1);
	put_inode(EROFS_INODE_COMPRESSED_FULL, BIGF_SIZE, false);
	put_header(HPOS_COMPACT, 0, advise, 0, 0);
	full_head(0, T_HEAD1, 0, 30);
	full_nonhead(1, CBLK(2), 2);
	full_nonhead(2, 2, 1);
	full_head(3, T_HEAD1, 10, 34);
	full_nonhead(4, CBLK(1), 1);
}

START_TEST(test_full_big)
{
	build_full_big(Z_EROFS_ADVISE_BIG_PCLUSTER_1);
	open_ok();
	EXPECT(0, 0, 3 * BS + 10, DEV(BLK(30), 2 * BS, LZ4), FULL);
	EXPECT(BS, 0, 3 * BS + 10, DEV(BLK(30), 2 * BS, LZ4), FULL);
	EXPECT(2 * BS + 5, 0, 3 * BS + 10, DEV(BLK(30), 2 * BS, LZ4), FULL);
	EXPECT(3 * BS + 9, 0, 3 * BS + 10, DEV(BLK(30), 2 * BS, LZ4), FULL);
	EXPECT(3 * BS + 10, 3 * BS + 10, 2 * BS - 10, DEV(BLK(34), BS, LZ4),
	       FULL);
	EXPECT(5 * BS - 1, 3 * BS + 10, 2 * BS - 10, DEV(BLK(34), BS, LZ4),
	       FULL);
	ck_assert_uint_eq(walk_extents(), 2);
}
END_TEST

START_TEST(test_full_cblkcnt_without_big)
{
	build_full_big(0);
	open_ok();
	EXPECT_CORRUPT(BS);
	EXPECT_CORRUPT(0);
	EXPECT_CORRUPT(4 * BS);
}
END_TEST

START_TEST(test_full_cblkcnt_zero)
{
	build_full_big(Z_EROFS_ADVISE_BIG_PCLUSTER_1);
	full_nonhead(1, CBLK(0), 2);
	open_ok();
	EXPECT_CORRUPT(0);
}
END_TEST

START_TEST(test_full_cblkcnt_too_big)
{
	build_full_big(Z_EROFS_ADVISE_BIG_PCLUSTER_1);
	full_nonhead(1, CBLK(257), 2);
	open_ok();
	EXPECT_CORRUPT(0);
}
END_TEST

START_TEST(test_full_big_missing_cblkcnt)
{
	build_full_big(Z_EROFS_ADVISE_BIG_PCLUSTER_1);
	full_nonhead(1, 1, 2);
	open_ok();
	EXPECT_CORRUPT(0);
}
END_TEST

START_TEST(test_full_cblkcnt_not_after_head)
{
	build_full_big(Z_EROFS_ADVISE_BIG_PCLUSTER_1);
	full_nonhead(2, CBLK(1), 1);
	open_ok();
	EXPECT_CORRUPT(2 * BS);
}
END_TEST

START_TEST(test_full_cblkcnt_in_the_middle)
{
	/* only the first NONHEAD after a HEAD may hold a block count */
	build_full_big(Z_EROFS_ADVISE_BIG_PCLUSTER_1);
	full_nonhead(1, CBLK(2), 1);
	full_nonhead(2, CBLK(1), 1);
	open_ok();
	EXPECT_CORRUPT(0);
}
END_TEST

START_TEST(test_full_big_short_compressed)
{
	/* 4 blocks decoding to 3 lclusters and 10 bytes, not at EOF */
	build_full_big(Z_EROFS_ADVISE_BIG_PCLUSTER_1);
	full_nonhead(1, CBLK(4), 2);
	open_ok();
	EXPECT_CORRUPT(0);
}
END_TEST

START_TEST(test_full_big_interlaced)
{
	/* a raw two-block pcluster cannot be interlaced */
	build_full_big(Z_EROFS_ADVISE_BIG_PCLUSTER_1 |
		       Z_EROFS_ADVISE_BIG_PCLUSTER_2 |
		       Z_EROFS_ADVISE_INTERLACED_PCLUSTER);
	full_head(0, T_PLAIN, 0, 30);
	full_head(1, T_PLAIN, 0, 31);
	full_nonhead(2, CBLK(2), 1);
	full_head(3, T_PLAIN, 0, 33);
	full_head(4, T_PLAIN, 0, 34);
	open_ok();
	EXPECT(0, 0, BS, DEV(BLK(30), BS, INTERLACED), FULL);
	EXPECT_CORRUPT(BS);
	EXPECT_CORRUPT(2 * BS);
	EXPECT(4 * BS, 4 * BS, BS, DEV(BLK(34), BS, INTERLACED), FULL);
}
END_TEST

START_TEST(test_full_big_without_feature)
{
	build_full_big(Z_EROFS_ADVISE_BIG_PCLUSTER_1);
	erofs_put32(image + EROFS_SUPER_OFFSET + EROFS_SB_FEATURE_INCOMPAT,
		    EROFS_FEATURE_INCOMPAT_LZ4_0PADDING);
	memset(image + EROFS_SUPER_OFFSET + EROFS_SB_BASE_SIZE, 0, 16);
	open_corrupt();
}
END_TEST

/* One extent over 2100 lclusters: lookback and lookahead clamp at 2047. */
#define LONG_TOTAL 2100u

static void build_full_long(uint64_t total)
{
	uint64_t k;

	image_begin(0, 0);
	put_inode(EROFS_INODE_COMPRESSED_FULL, total * BS, false);
	put_header(HPOS_COMPACT, 0, 0, 0, 0);
	full_head(0, T_HEAD1, 0, 20);
	for (k = 1; k < total; k++)
		full_nonhead(k, k < 2047 ? k : 2047,
			     total - k < 2047 ? total - k : 2047);
}

START_TEST(test_full_clamped_delta)
{
	build_full_long(LONG_TOTAL);
	open_ok();
	EXPECT(0, 0, LONG_TOTAL * BS, DEV(BLK(20), BS, LZ4), FULL);
	EXPECT(2047 * BS, 0, LONG_TOTAL * BS, DEV(BLK(20), BS, LZ4), FULL);
	EXPECT((LONG_TOTAL - 1) * BS + 3, 0, LONG_TOTAL * BS,
	       DEV(BLK(20), BS, LZ4), FULL);
	ck_assert_uint_eq(walk_extents(), 1);
}
END_TEST

START_TEST(test_full_llen_limit)
{
	/* 3100 lclusters of 4 KiB: more than 12 MiB in one extent */
	build_full_long(3100);
	open_ok();
	EXPECT_CORRUPT(0);
	EXPECT_CORRUPT(3099 * BS);
}
END_TEST

/* ---- compact indexes ---- */

/*
 * 25 lclusters; with 2B packs: entries 0-5 in 4B packs at A+40, 6-21 in
 * one 2B pack at A+64, 22-24 in 4B packs (Appendix B layout).
 * Extents: 0 HEAD1 | 2 PLAIN@100 | 3 HEAD1@100 | 6 HEAD1 | 10 HEAD1@50 |
 * 11 PLAIN@60 | 12 HEAD1@60 to EOF (24 PLAIN@2000 marks the end).
 */
#define CPT_TOTAL 25u
#define CPT_SIZE (24 * BS + 2000)

static const struct {
	uint8_t type;
	uint16_t lo2b, lo4b;	/* lo with 2B packs, with 4B packs only */
} cpt_entries[CPT_TOTAL] = {
	{ T_HEAD1, 0, 0 },		/* 0 */
	{ T_NONHEAD, 1, 1 },		/* 1: last of pack: delta[1] */
	{ T_PLAIN, 100, 100 },
	{ T_HEAD1, 100, 100 },
	{ T_NONHEAD, 1, 1 },
	{ T_NONHEAD, 1, 1 },		/* 5 */
	{ T_HEAD1, 0, 0 },		/* 6: first of the 2B pack */
	{ T_NONHEAD, 1, 3 },
	{ T_NONHEAD, 2, 2 },
	{ T_NONHEAD, 3, 1 },
	{ T_HEAD1, 50, 50 },		/* 10 */
	{ T_PLAIN, 60, 60 },
	{ T_HEAD1, 60, 60 },
	{ T_NONHEAD, 1, 11 },
	{ T_NONHEAD, 2, 2 },
	{ T_NONHEAD, 3, 9 },		/* 15 */
	{ T_NONHEAD, 4, 4 },
	{ T_NONHEAD, 5, 7 },
	{ T_NONHEAD, 6, 6 },
	{ T_NONHEAD, 7, 5 },
	{ T_NONHEAD, 8, 8 },		/* 20 */
	{ T_NONHEAD, 3, 3 },		/* 21: last of the 2B pack: delta[1] */
	{ T_NONHEAD, 10, 10 },
	{ T_NONHEAD, 1, 1 },
	{ T_PLAIN, 2000, 2000 },	/* 24: end of file */
};

static void build_compact(bool use2b)
{
	uint64_t k;

	image_begin(0, 0);
	put_inode(EROFS_INODE_COMPRESSED_COMPACT, CPT_SIZE, false);
	put_header(HPOS_COMPACT, 0, use2b ? Z_EROFS_ADVISE_COMPACTED_2B : 0,
		   0, 0);
	compact_begin(CPT_TOTAL, use2b);
	for (k = 0; k < CPT_TOTAL; k++)
		compact_entry(k, cpt_entries[k].type, use2b ?
			      cpt_entries[k].lo2b : cpt_entries[k].lo4b);
	/* pcluster blocks 100..106, one per HEAD, in order */
	compact_base(0, 99);
	compact_base(2, 100);
	compact_base(4, 102);
	if (use2b) {
		compact_base(6, 102);
		compact_base(22, 106);
		compact_base(24, 106);
		return;
	}
	for (k = 6; k < CPT_TOTAL; k += 2)
		compact_base(k, k < 10 ? 102 : k < 12 ? 103 : 105);
}

static void check_compact_extents(void)
{
	EXPECT(0, 0, 2 * BS + 100, DEV(BLK(100), BS, LZ4), FULL);
	EXPECT(BS + 5, 0, 2 * BS + 100, DEV(BLK(100), BS, LZ4), FULL);
	EXPECT(2 * BS + 99, 0, 2 * BS + 100, DEV(BLK(100), BS, LZ4), FULL);
	EXPECT(2 * BS + 100, 2 * BS + 100, BS, DEV(BLK(101), BS, SHIFTED),
	       FULL);
	EXPECT(3 * BS + 100, 3 * BS + 100, 3 * BS - 100,
	       DEV(BLK(102), BS, LZ4), FULL);
	EXPECT(5 * BS + 1, 3 * BS + 100, 3 * BS - 100,
	       DEV(BLK(102), BS, LZ4), FULL);
	EXPECT(6 * BS, 6 * BS, 4 * BS + 50, DEV(BLK(103), BS, LZ4), FULL);
	EXPECT(9 * BS + 4095, 6 * BS, 4 * BS + 50, DEV(BLK(103), BS, LZ4),
	       FULL);
	EXPECT(10 * BS + 49, 6 * BS, 4 * BS + 50, DEV(BLK(103), BS, LZ4),
	       FULL);
	EXPECT(10 * BS + 50, 10 * BS + 50, BS + 10, DEV(BLK(104), BS, LZ4),
	       FULL);
	EXPECT(11 * BS + 60, 11 * BS + 60, BS, DEV(BLK(105), BS, SHIFTED),
	       FULL);
	EXPECT(12 * BS + 60, 12 * BS + 60, 12 * BS + 1940,
	       DEV(BLK(106), BS, LZ4), FULL);
	EXPECT(21 * BS, 12 * BS + 60, 12 * BS + 1940, DEV(BLK(106), BS, LZ4),
	       FULL);
	EXPECT(23 * BS + 5, 12 * BS + 60, 12 * BS + 1940,
	       DEV(BLK(106), BS, LZ4), FULL);
	EXPECT(CPT_SIZE - 1, 12 * BS + 60, 12 * BS + 1940,
	       DEV(BLK(106), BS, LZ4), FULL);
	ck_assert_uint_eq(walk_extents(), 7);
}

START_TEST(test_compact_2b)
{
	build_compact(true);
	open_ok();
	check_compact_extents();
}
END_TEST

START_TEST(test_compact_4b)
{
	build_compact(false);
	open_ok();
	check_compact_extents();
}
END_TEST

START_TEST(test_compact_lookback_zero)
{
	/* entry 9 (2B pack, delta[0] 0) is walked over to find 10's block */
	uint64_t k;

	build_compact(true);
	memset(image + HPOS_COMPACT + 8 + 24, 0, 32);
	for (k = 6; k < 22; k++)
		compact_entry(k, cpt_entries[k].type,
			      k == 9 ? 0 : cpt_entries[k].lo2b);
	compact_base(6, 102);
	open_ok();
	EXPECT_CORRUPT(9 * BS);
	EXPECT_CORRUPT(10 * BS + 50);
	EXPECT(6 * BS, 6 * BS, 4 * BS + 50, DEV(BLK(103), BS, LZ4), FULL);
}
END_TEST

START_TEST(test_compact_2b_lclusterbits)
{
	build_compact(true);
	put_header(HPOS_COMPACT, 0, Z_EROFS_ADVISE_COMPACTED_2B, 0, 1);
	open_corrupt();
}
END_TEST

START_TEST(test_compact_4b_lclusterbits)
{
	build_compact(false);
	put_header(HPOS_COMPACT, 0, 0, 0, 3);
	open_corrupt();
}
END_TEST

START_TEST(test_compact_beyond_space)
{
	image_begin(0, 0);
	put_inode(EROFS_INODE_COMPRESSED_COMPACT, 0xF0000000u, false);
	put_header(HPOS_COMPACT, 0, 0, 0, 0);
	open_corrupt();
}
END_TEST

/*
 * Big pclusters with compact indexes (both big bits, 2B packs, 22
 * lclusters): E0 0-3 (2 blocks) | E1 4 | E2 5 PLAIN | E3 6-10 (3 blocks) |
 * E4 11-13 (1 block) | E5 14 PLAIN | E6 15-21 (2 blocks) to EOF.
 */
#define CBIG_TOTAL 22u
#define CBIG_SIZE (21 * BS + 10)

static const struct {
	uint8_t type;
	uint16_t lo;
} cbig_entries[CBIG_TOTAL] = {
	{ T_HEAD1, 0 }, { T_NONHEAD, CBLK(2) },
	{ T_NONHEAD, 2 }, { T_NONHEAD, 1 },
	{ T_HEAD1, 0 }, { T_PLAIN, 0 },
	/* the 2B pack */
	{ T_HEAD1, 0 }, { T_NONHEAD, CBLK(3) }, { T_NONHEAD, 2 },
	{ T_NONHEAD, 3 }, { T_NONHEAD, 4 },
	{ T_HEAD1, 0 }, { T_NONHEAD, CBLK(1) }, { T_NONHEAD, 2 },
	{ T_PLAIN, 0 },
	{ T_HEAD1, 0 }, { T_NONHEAD, CBLK(2) }, { T_NONHEAD, 2 },
	{ T_NONHEAD, 3 }, { T_NONHEAD, 4 }, { T_NONHEAD, 5 },
	{ T_NONHEAD, 1 },
};

static void build_compact_big(uint16_t lo10)
{
	uint64_t k;

	image_begin(F_BIG, 1);
	put_inode(EROFS_INODE_COMPRESSED_COMPACT, CBIG_SIZE, false);
	put_header(HPOS_COMPACT, 0, Z_EROFS_ADVISE_COMPACTED_2B |
		   Z_EROFS_ADVISE_BIG_PCLUSTER_1 |
		   Z_EROFS_ADVISE_BIG_PCLUSTER_2, 0, 0);
	compact_begin(CBIG_TOTAL, true);
	for (k = 0; k < CBIG_TOTAL; k++)
		compact_entry(k, cbig_entries[k].type,
			      k == 10 ? lo10 : cbig_entries[k].lo);
	compact_base(0, 200);
	compact_base(2, 202);
	compact_base(4, 202);
	compact_base(6, 204);
}

START_TEST(test_compact_big)
{
	build_compact_big(4);
	open_ok();
	EXPECT(0, 0, 4 * BS, DEV(BLK(200), 2 * BS, LZ4), FULL);
	EXPECT(3 * BS, 0, 4 * BS, DEV(BLK(200), 2 * BS, LZ4), FULL);
	EXPECT(4 * BS, 4 * BS, BS, DEV(BLK(202), BS, LZ4), FULL);
	EXPECT(5 * BS, 5 * BS, BS, DEV(BLK(203), BS, SHIFTED), FULL);
	EXPECT(6 * BS, 6 * BS, 5 * BS, DEV(BLK(204), 3 * BS, LZ4), FULL);
	EXPECT(10 * BS + 1, 6 * BS, 5 * BS, DEV(BLK(204), 3 * BS, LZ4), FULL);
	EXPECT(11 * BS, 11 * BS, 3 * BS, DEV(BLK(207), BS, LZ4), FULL);
	EXPECT(14 * BS, 14 * BS, BS, DEV(BLK(208), BS, SHIFTED), FULL);
	EXPECT(15 * BS, 15 * BS, 6 * BS + 10, DEV(BLK(209), 2 * BS, LZ4),
	       FULL);
	EXPECT(CBIG_SIZE - 1, 15 * BS, 6 * BS + 10,
	       DEV(BLK(209), 2 * BS, LZ4), FULL);
	ck_assert_uint_eq(walk_extents(), 7);
}
END_TEST

START_TEST(test_compact_big_loop)
{
	/* a delta[0] of 1 without CBLKCNT would walk the pack in circles */
	build_compact_big(1);
	open_ok();
	EXPECT_CORRUPT(11 * BS);
	EXPECT_CORRUPT(14 * BS);
}
END_TEST

START_TEST(test_compact_big_bits_differ)
{
	build_compact_big(4);
	put_header(HPOS_COMPACT, 0, Z_EROFS_ADVISE_COMPACTED_2B |
		   Z_EROFS_ADVISE_BIG_PCLUSTER_1, 0, 0);
	open_corrupt();
}
END_TEST

START_TEST(test_compact_cblkcnt_without_big)
{
	build_compact_big(4);
	put_header(HPOS_COMPACT, 0, Z_EROFS_ADVISE_COMPACTED_2B, 0, 0);
	open_ok();
	EXPECT_CORRUPT(0);
	EXPECT_CORRUPT(6 * BS);
}
END_TEST

/* ---- inline tails ---- */

/*
 * Compact 4B packs, 3 or 4 lclusters: 0 HEAD1, 1 NONHEAD, 2 tail HEAD at
 * tail_cofs; packs end at A+56, where the inline pcluster starts.
 */
#define IDATA_POS (HPOS_COMPACT + 8 + 16)

static void build_inline(uint64_t size, uint8_t tail_type, uint16_t tail_cofs,
			 uint16_t idata_size, uint16_t advise)
{
	uint64_t total = (size + BS - 1) / BS;

	image_begin(F_TAIL, 0);
	put_inode(EROFS_INODE_COMPRESSED_COMPACT, size, false);
	put_header(HPOS_COMPACT, 0, Z_EROFS_ADVISE_INLINE_PCLUSTER | advise,
		   0, 0);
	put_idata_size(HPOS_COMPACT, idata_size);
	compact_begin(total, false);
	compact_entry(0, T_HEAD1, 0);
	compact_entry(1, T_NONHEAD, 1);
	compact_entry(2, tail_type, tail_cofs);
	if (total > 3)
		compact_entry(3, T_NONHEAD, 1);
	compact_base(0, 49);
	compact_base(2, 50);
}

START_TEST(test_inline_compressed)
{
	build_inline(3 * BS + 300, T_HEAD1, 1000, 100, 0);
	open_ok();
	ck_assert(ino.z.has_tailhead);
	ck_assert_uint_eq(ino.z.idata_pos, IDATA_POS);
	EXPECT(0, 0, 2 * BS + 1000, DEV(BLK(50), BS, LZ4), FULL);
	EXPECT(2 * BS + 999, 0, 2 * BS + 1000, DEV(BLK(50), BS, LZ4), FULL);
	EXPECT(2 * BS + 1000, 2 * BS + 1000, 3396, EROFS_LOC_META,
	       IDATA_POS, 100, LZ4, FULL);
	EXPECT(3 * BS + 299, 2 * BS + 1000, 3396, EROFS_LOC_META,
	       IDATA_POS, 100, LZ4, FULL);
	ck_assert_uint_eq(walk_extents(), 2);
}
END_TEST

START_TEST(test_inline_raw_not_interlaced)
{
	build_inline(2 * BS + 500, T_PLAIN, 100, 400,
		     Z_EROFS_ADVISE_INTERLACED_PCLUSTER);
	open_ok();
	EXPECT(2 * BS + 100, 2 * BS + 100, 400, EROFS_LOC_META, IDATA_POS,
	       400, SHIFTED, FULL);
	ck_assert_uint_eq(walk_extents(), 2);
}
END_TEST

START_TEST(test_inline_raw_too_long)
{
	build_inline(2 * BS + 500, T_PLAIN, 100, 399, 0);
	open_ok();
	EXPECT_CORRUPT(2 * BS + 100);
}
END_TEST

START_TEST(test_inline_crosses_block)
{
	build_inline(3 * BS + 300, T_HEAD1, 1000, BS, 0);
	open_corrupt();
}
END_TEST

START_TEST(test_inline_empty)
{
	build_inline(3 * BS + 300, T_HEAD1, 1000, 0, 0);
	open_corrupt();
}
END_TEST

START_TEST(test_inline_without_feature)
{
	build_inline(3 * BS + 300, T_HEAD1, 1000, 100, 0);
	erofs_put32(image + EROFS_SUPER_OFFSET + EROFS_SB_FEATURE_INCOMPAT,
		    EROFS_FEATURE_INCOMPAT_LZ4_0PADDING);
	open_corrupt();
}
END_TEST

/* ---- fragments ---- */

static void build_tail_fragment(uint8_t layout, uint64_t size,
				uint16_t tail_cofs, uint32_t fragoff,
				uint32_t fragoff_hi)
{
	image_begin(F_FRAG, 0);
	put_inode(layout, size, false);
	put_header(HPOS_COMPACT, fragoff, Z_EROFS_ADVISE_FRAGMENT_PCLUSTER,
		   0, 0);
	if (layout == EROFS_INODE_COMPRESSED_FULL) {
		full_head(0, T_HEAD1, 0, 20);
		full_nonhead(1, 1, 1);
		full_head(2, T_HEAD1, tail_cofs, fragoff_hi);
		return;
	}
	compact_begin((size + BS - 1) / BS, false);
	compact_entry(0, T_HEAD1, 0);
	compact_entry(1, T_NONHEAD, 1);
	compact_entry(2, T_HEAD1, tail_cofs);
	compact_base(0, 19);
	compact_base(2, 20);
}

START_TEST(test_fragment_tail_compact)
{
	build_tail_fragment(EROFS_INODE_COMPRESSED_COMPACT, 2 * BS + 500, 200,
			    1234, 0);
	open_ok();
	EXPECT(0, 0, 2 * BS + 200, DEV(BLK(20), BS, LZ4), FULL);
	EXPECT(2 * BS + 200, 2 * BS + 200, 300, EROFS_LOC_FRAGMENT, 1234, 300,
	       SHIFTED, FULL);
	EXPECT(2 * BS + 499, 2 * BS + 200, 300, EROFS_LOC_FRAGMENT, 1234, 300,
	       SHIFTED, FULL);
	ck_assert_uint_eq(walk_extents(), 2);
}
END_TEST

START_TEST(test_fragment_tail_full)
{
	build_tail_fragment(EROFS_INODE_COMPRESSED_FULL, 2 * BS + 500, 200,
			    PACKED_SIZE - 300, 0);
	open_ok();
	EXPECT(2 * BS + 300, 2 * BS + 200, 300, EROFS_LOC_FRAGMENT,
	       PACKED_SIZE - 300, 300, SHIFTED, FULL);
	ck_assert_uint_eq(walk_extents(), 2);
}
END_TEST

START_TEST(test_fragment_tail_high_bits)
{
	/* full layout: the tail HEAD's blkaddr holds bits 32..63 */
	build_tail_fragment(EROFS_INODE_COMPRESSED_FULL, 2 * BS + 500, 200,
			    0, 1);
	open_corrupt();
}
END_TEST

START_TEST(test_fragment_tail_out_of_range)
{
	build_tail_fragment(EROFS_INODE_COMPRESSED_COMPACT, 2 * BS + 500, 200,
			    PACKED_SIZE - 299, 0);
	open_corrupt();
}
END_TEST

START_TEST(test_fragment_tail_lcluster0)
{
	/* the tail HEAD is lcluster 0: the whole file is the fragment */
	image_begin(F_FRAG, 0);
	put_inode(EROFS_INODE_COMPRESSED_COMPACT, BS + 700, false);
	put_header(HPOS_COMPACT, 4000, Z_EROFS_ADVISE_FRAGMENT_PCLUSTER, 0, 0);
	compact_begin(2, false);
	compact_entry(0, T_HEAD1, 0);
	compact_entry(1, T_NONHEAD, 1);
	open_ok();
	EXPECT(BS + 5, 0, BS + 700, EROFS_LOC_FRAGMENT, 4000, BS + 700,
	       SHIFTED, FULL);
}
END_TEST

START_TEST(test_fragment_tail_big_cblkcnt0)
{
	/* mkfs writes CBLKCNT 0 after the HEAD of a tail fragment */
	image_begin(F_BIG | F_FRAG, 1);
	put_inode(EROFS_INODE_COMPRESSED_COMPACT, 3 * BS + 500, false);
	put_header(HPOS_COMPACT, 100, Z_EROFS_ADVISE_BIG_PCLUSTER_1 |
		   Z_EROFS_ADVISE_BIG_PCLUSTER_2 |
		   Z_EROFS_ADVISE_FRAGMENT_PCLUSTER, 0, 0);
	compact_begin(4, false);
	compact_entry(0, T_HEAD1, 0);
	compact_entry(1, T_NONHEAD, CBLK(1));
	compact_entry(2, T_HEAD1, 100);
	compact_entry(3, T_NONHEAD, CBLK(0));
	compact_base(0, 60);
	open_ok();
	EXPECT(BS, 0, 2 * BS + 100, DEV(BLK(60), BS, LZ4), FULL);
	EXPECT(3 * BS, 2 * BS + 100, BS + 400, EROFS_LOC_FRAGMENT, 100,
	       BS + 400, SHIFTED, FULL);
	ck_assert_uint_eq(walk_extents(), 2);
}
END_TEST

START_TEST(test_fragment_without_packed)
{
	build_tail_fragment(EROFS_INODE_COMPRESSED_COMPACT, 2 * BS + 500, 200,
			    1234, 0);
	erofs_put64(image + EROFS_SUPER_OFFSET + EROFS_SB_PACKED_NID, 0);
	open_corrupt();
}
END_TEST

static void build_whole_fragment(uint64_t size, uint64_t fragoff)
{
	image_begin(F_FRAG, 0);
	put_inode(EROFS_INODE_COMPRESSED_FULL, size, false);
	erofs_put64(image + HPOS_COMPACT, fragoff | 1ULL << 63);
}

START_TEST(test_fragment_whole)
{
	build_whole_fragment(3000, 5000);
	open_ok();
	ck_assert(ino.z.whole_fragment);
	EXPECT(0, 0, 3000, EROFS_LOC_FRAGMENT, 5000, 3000, SHIFTED, FULL);
	EXPECT(2999, 0, 3000, EROFS_LOC_FRAGMENT, 5000, 3000, SHIFTED, FULL);
	ck_assert_uint_eq(walk_extents(), 1);
}
END_TEST

START_TEST(test_fragment_whole_out_of_range)
{
	build_whole_fragment(3000, PACKED_SIZE - 2999);
	open_corrupt();
}
END_TEST

START_TEST(test_map_beyond_eof)
{
	struct erofs_map m;

	build_whole_fragment(3000, 5000);
	open_ok();
	ck_assert_int_lt(z_erofs_map(&ctx, &ino, 3000, &m), 0);
}
END_TEST

/* ---- encoded extents ---- */

#define EXT_ADVISE(recsz_log) (Z_EROFS_ADVISE_EXTENTS | (recsz_log) << 1)
#define PLEN(fmt, len) ((uint32_t)(fmt) << Z_EROFS_EXTENT_PLEN_FMT_BIT | (len))

static void put_extent(uint64_t pos, unsigned int recsz, uint32_t plen,
		       uint64_t pstart, uint64_t lstart)
{
	uint8_t *r = image + pos;

	erofs_put32(r + Z_EROFS_EXTENT_PLEN, plen);
	if (recsz >= 8)
		erofs_put32(r + Z_EROFS_EXTENT_PSTART_LO, (uint32_t)pstart);
	if (recsz >= 16) {
		erofs_put32(r + Z_EROFS_EXTENT_PSTART_HI,
			    (uint32_t)(pstart >> 32));
		erofs_put32(r + Z_EROFS_EXTENT_LSTART_LO, (uint32_t)lstart);
	}
	if (recsz >= 32)
		erofs_put32(r + Z_EROFS_EXTENT_LSTART_HI,
			    (uint32_t)(lstart >> 32));
}

/* 16-byte records at A+48, after 8 bytes that mkfs leaves uninitialised */
#define EXT16_POS (HPOS_COMPACT + 16)

static void build_ext16(uint64_t size, uint32_t n, uint16_t advise)
{
	image_begin(F_48 | F_FRAG, 0);
	put_inode(EROFS_INODE_COMPRESSED_FULL, size, false);
	put_header(HPOS_COMPACT, n, EXT_ADVISE(2) | advise, 0, 0);
	memcpy(image + HPOS_COMPACT + 8, "\x10\x9a\xc3\x55\x7f\x00\x00\x00", 8);
}

static void ext16(unsigned int i, uint32_t plen, uint64_t pstart,
		  uint64_t lstart)
{
	put_extent(EXT16_POS + 16 * i, 16, plen, pstart, lstart);
}

static void build_ext16_sample(void)
{
	build_ext16(20000, 4, Z_EROFS_ADVISE_FRAGMENT_PCLUSTER);
	ext16(0, PLEN(1, 3000), 0x10007, 0);
	ext16(1, 0, 0, 8000);
	ext16(2, PLEN(0, 5000), 0x20000, 9000);
	ext16(3, 0x1234, 0, 14000);
}

START_TEST(test_ext16)
{
	build_ext16_sample();
	open_ok();
	ck_assert(ino.z.extents);
	ck_assert_uint_eq(ino.z.recsz, 16);
	ck_assert_uint_eq(ino.z.nextents, 4);
	EXPECT(0, 0, 8000, DEV(0x10007, 3000, LZ4), ENC);
	EXPECT(7999, 0, 8000, DEV(0x10007, 3000, LZ4), ENC);
	EXPECT(8000, 8000, 1000, EROFS_LOC_HOLE, 0, 0, SHIFTED, ENC);
	EXPECT(9000, 9000, 5000, DEV(0x20000, 5000, SHIFTED), ENC);
	EXPECT(13999, 9000, 5000, DEV(0x20000, 5000, SHIFTED), ENC);
	EXPECT(14000, 14000, 6000, EROFS_LOC_FRAGMENT, 0x1234, 6000, SHIFTED,
	       ENC);
	EXPECT(19999, 14000, 6000, EROFS_LOC_FRAGMENT, 0x1234, 6000, SHIFTED,
	       ENC);
	ck_assert_uint_eq(walk_extents(), 4);
}
END_TEST

START_TEST(test_ext16_many)
{
	/* 200 extents of 100 bytes: a real binary search */
	unsigned int i;

	build_ext16(20000, 200, 0);
	for (i = 0; i < 200; i++)
		ext16(i, PLEN(0, 100), 0x30000 + 100 * i, 100 * i);
	open_ok();
	for (i = 0; i < 200; i++)
		EXPECT(100 * i + i % 100, 100 * i, 100,
		       DEV(0x30000 + 100 * i, 100, SHIFTED), ENC);
	ck_assert_uint_eq(walk_extents(), 200);
}
END_TEST

START_TEST(test_ext16_unsorted)
{
	build_ext16_sample();
	ext16(2, PLEN(0, 5000), 0x20000, 7000);
	open_ok();
	EXPECT_CORRUPT(7500);
	EXPECT_CORRUPT(9500);
}
END_TEST

START_TEST(test_ext16_equal_lstart)
{
	build_ext16_sample();
	ext16(2, PLEN(0, 5000), 0x20000, 8000);
	open_ok();
	EXPECT_CORRUPT(8000);
}
END_TEST

START_TEST(test_ext16_first_not_zero)
{
	build_ext16_sample();
	ext16(0, PLEN(1, 3000), 0x10007, 10);
	open_ok();
	EXPECT_CORRUPT(5000);
}
END_TEST

START_TEST(test_ext16_lstart_beyond_size)
{
	build_ext16_sample();
	ext16(3, 0x1234, 0, 20000);
	open_ok();
	EXPECT_CORRUPT(19000);
}
END_TEST

START_TEST(test_ext16_reserved_bits)
{
	build_ext16_sample();
	ext16(2, PLEN(0, 5000) | 1u << 21, 0x20000, 9000);
	open_ok();
	EXPECT_CORRUPT(9000);
}
END_TEST

START_TEST(test_ext16_bad_fmt)
{
	build_ext16_sample();
	ext16(0, PLEN(5, 3000), 0x10007, 0);
	open_ok();
	EXPECT_CORRUPT(0);
}
END_TEST

START_TEST(test_ext16_alg_not_in_image)
{
	build_ext16_sample();
	ext16(0, PLEN(4, 3000), 0x10007, 0);
	open_ok();
	EXPECT_CORRUPT(0);
}
END_TEST

START_TEST(test_ext16_plen_limit)
{
	build_ext16_sample();
	ext16(0, PLEN(1, (1u << 20) + 1), 0x10007, 0);
	open_ok();
	EXPECT_CORRUPT(0);
}
END_TEST

START_TEST(test_ext16_llen_limit)
{
	build_ext16(13u << 20, 1, 0);
	ext16(0, PLEN(1, 4096), 0x10000, 0);
	open_ok();
	EXPECT_CORRUPT(0);
}
END_TEST

START_TEST(test_ext16_raw_too_long)
{
	build_ext16_sample();
	ext16(2, PLEN(0, 4999), 0x20000, 9000);
	open_ok();
	EXPECT_CORRUPT(9000);
}
END_TEST

START_TEST(test_ext16_short_compressed)
{
	build_ext16_sample();
	ext16(0, PLEN(1, 9000), 0x10007, 0);
	open_ok();
	EXPECT_CORRUPT(0);
	ext16(0, PLEN(1, 9000) | Z_EROFS_EXTENT_PLEN_PARTIAL, 0x10007, 0);
	teardown();
	open_ok();
	EXPECT(0, 0, 8000, DEV(0x10007, 9000, LZ4), ENC | PARTIAL);
}
END_TEST

START_TEST(test_ext16_pa_overflow)
{
	build_ext16_sample();
	ext16(2, PLEN(0, 5000), (1ULL << 60) - 100, 9000);
	open_ok();
	EXPECT_CORRUPT(9000);
}
END_TEST

START_TEST(test_ext16_fragment_out_of_range)
{
	build_ext16_sample();
	ext16(3, PACKED_SIZE - 5999, 0, 14000);
	open_ok();
	EXPECT_CORRUPT(14000);
}
END_TEST

START_TEST(test_ext16_no_records)
{
	build_ext16(20000, 0, 0);
	open_corrupt();
}
END_TEST

START_TEST(test_ext16_without_48bit)
{
	build_ext16_sample();
	erofs_put32(image + EROFS_SUPER_OFFSET + EROFS_SB_FEATURE_INCOMPAT,
		    EROFS_FEATURE_INCOMPAT_LZ4_0PADDING | F_FRAG);
	open_corrupt();
}
END_TEST

START_TEST(test_ext32_large_file)
{
	/* extended inode; records at round_up(A+72, 32) = A+96 */
	const uint64_t size = (5ULL << 30) + 100, rec = INODE_POS + 96;

	image_begin(F_48, 0);
	put_inode(EROFS_INODE_COMPRESSED_FULL, size, true);
	put_header(HPOS_EXTENDED, 2, EXT_ADVISE(3), 0, 0);
	put_extent(rec, 32, 0, 0, 0);
	put_extent(rec + 32, 32,
		   PLEN(1, 4096) | Z_EROFS_EXTENT_PLEN_PARTIAL,
		   1ULL << 32, 5ULL << 30);
	open_ok();
	ck_assert_uint_eq(ino.z.records, rec);
	EXPECT(0, 0, 5ULL << 30, EROFS_LOC_HOLE, 0, 0, SHIFTED, ENC);
	EXPECT((5ULL << 30) - 1, 0, 5ULL << 30, EROFS_LOC_HOLE, 0, 0, SHIFTED,
	       ENC);
	EXPECT(size - 1, 5ULL << 30, 100, DEV(1ULL << 32, 4096, LZ4),
	       ENC | PARTIAL);
	ck_assert_uint_eq(walk_extents(), 2);
}
END_TEST

/* 8-byte records: one per lcluster, at A+40 */
START_TEST(test_ext8)
{
	const uint64_t rec = HPOS_COMPACT + 8;

	image_begin(F_48 | F_FRAG, 0);
	put_inode(EROFS_INODE_COMPRESSED_FULL, 3 * BS + 100, false);
	put_header(HPOS_COMPACT, 0, EXT_ADVISE(1) |
		   Z_EROFS_ADVISE_INTERLACED_PCLUSTER |
		   Z_EROFS_ADVISE_FRAGMENT_PCLUSTER, 0, 0);
	put_extent(rec, 8, PLEN(0, BS), 0x30000, 0);
	put_extent(rec + 8, 8, 0, 0, 0);
	put_extent(rec + 16, 8, PLEN(1, 2000), 0x31003, 0);
	put_extent(rec + 24, 8, 0x100, 0, 0);
	open_ok();
	EXPECT(5, 0, BS, DEV(0x30000, BS, INTERLACED), ENC);
	EXPECT(BS, BS, BS, EROFS_LOC_HOLE, 0, 0, SHIFTED, ENC);
	EXPECT(2 * BS + 7, 2 * BS, BS, DEV(0x31003, 2000, LZ4), ENC);
	EXPECT(3 * BS + 99, 3 * BS, 100, EROFS_LOC_FRAGMENT, 0x100, 100,
	       SHIFTED, ENC);
	ck_assert_uint_eq(walk_extents(), 4);
}
END_TEST

START_TEST(test_ext8_raw_too_long)
{
	const uint64_t rec = HPOS_COMPACT + 8;

	image_begin(F_48, 0);
	put_inode(EROFS_INODE_COMPRESSED_FULL, 2 * BS, false);
	put_header(HPOS_COMPACT, 0, EXT_ADVISE(1), 0, 0);
	put_extent(rec, 8, PLEN(0, BS), 0x30000, 0);
	put_extent(rec + 8, 8, PLEN(0, 100), 0x31000, 0);
	open_ok();
	EXPECT(0, 0, BS, DEV(0x30000, BS, SHIFTED), ENC);
	EXPECT_CORRUPT(BS);
}
END_TEST

/* 4-byte records: a 64-bit base at A+40, then records from A+48 */
START_TEST(test_ext4)
{
	const uint64_t rec = HPOS_COMPACT + 16;

	image_begin(F_48, 0);
	put_inode(EROFS_INODE_COMPRESSED_FULL, 4 * BS, false);
	put_header(HPOS_COMPACT, 0, EXT_ADVISE(0) |
		   Z_EROFS_ADVISE_INTERLACED_PCLUSTER, 0, 0);
	erofs_put64(image + HPOS_COMPACT + 8, 0x40000);
	put_extent(rec, 4, PLEN(0, BS), 0, 0);
	put_extent(rec + 4, 4, PLEN(1, 1000), 0, 0);
	put_extent(rec + 8, 4, 0, 0, 0);
	put_extent(rec + 12, 4, PLEN(0, BS), 0, 0);
	open_ok();
	EXPECT(0, 0, BS, DEV(0x40000, BS, INTERLACED), ENC);
	EXPECT(BS, BS, BS, DEV(0x40000 + BS, 1000, LZ4), ENC);
	EXPECT(2 * BS, 2 * BS, BS, EROFS_LOC_HOLE, 0, 0, SHIFTED, ENC);
	/* not block-aligned any more: shifted despite the advise bit */
	EXPECT(4 * BS - 1, 3 * BS, BS, DEV(0x40000 + BS + 1000, BS, SHIFTED),
	       ENC);
	ck_assert_uint_eq(walk_extents(), 4);
}
END_TEST

START_TEST(test_ext4_fragment)
{
	/* the last record is a fragment: its 32 bits are the offset */
	const uint64_t rec = HPOS_COMPACT + 16;

	image_begin(F_48 | F_FRAG, 0);
	put_inode(EROFS_INODE_COMPRESSED_FULL, 2 * BS + 10, false);
	put_header(HPOS_COMPACT, 0, EXT_ADVISE(0) |
		   Z_EROFS_ADVISE_FRAGMENT_PCLUSTER, 0, 0);
	erofs_put64(image + HPOS_COMPACT + 8, 0x40000);
	put_extent(rec, 4, PLEN(0, BS), 0, 0);
	put_extent(rec + 4, 4, PLEN(1, 3000), 0, 0);
	put_extent(rec + 8, 4, 7000, 0, 0);
	open_ok();
	EXPECT(BS, BS, BS, DEV(0x40000 + BS, 3000, LZ4), ENC);
	EXPECT(2 * BS + 9, 2 * BS, 10, EROFS_LOC_FRAGMENT, 7000, 10, SHIFTED,
	       ENC);
	ck_assert_uint_eq(walk_extents(), 3);
}
END_TEST

START_TEST(test_ext4_many)
{
	/* 300 lclusters: raw, compressed, hole; sequential then backwards */
	const uint64_t rec = HPOS_COMPACT + 16, n = 300;
	uint64_t pa[300], sum = 0x100000, k;
	static const uint32_t plen[3] = { PLEN(0, BS), PLEN(2, 1000), 0 };
	static const uint8_t fmt[3] = { SHIFTED, EROFS_FMT_LZMA, SHIFTED };

	image_begin(F_48 | F_BIG, 3);
	put_inode(EROFS_INODE_COMPRESSED_FULL, n * BS, false);
	put_header(HPOS_COMPACT, 0, EXT_ADVISE(0), 0, 0);
	erofs_put64(image + HPOS_COMPACT + 8, sum);
	for (k = 0; k < n; k++) {
		put_extent(rec + 4 * k, 4, plen[k % 3], 0, 0);
		pa[k] = sum;
		sum += plen[k % 3] & Z_EROFS_EXTENT_PLEN_MASK;
	}
	open_ok();
	ck_assert_uint_eq(walk_extents(), n);
	for (k = n; k-- > 0;) {
		if (k % 3 == 2)
			EXPECT(k * BS + 1, k * BS, BS, EROFS_LOC_HOLE, 0, 0,
			       SHIFTED, ENC);
		else
			EXPECT(k * BS + 1, k * BS, BS, DEV(pa[k], plen[k % 3] &
			       Z_EROFS_EXTENT_PLEN_MASK, fmt[k % 3]), ENC);
	}
}
END_TEST

START_TEST(test_ext_records_beyond_space)
{
	image_begin(F_48, 0);
	put_inode(EROFS_INODE_COMPRESSED_FULL, 0xFFFFFFF0u, false);
	put_header(HPOS_COMPACT, 0xFFFFFFF0u, EXT_ADVISE(2), 0, 0);
	open_corrupt();
}
END_TEST

UNIT_MAIN(
	"zmap", NULL,
	{ "full",
	  .tests = UNIT_TESTS(
		  test_full_basic, test_full_lookback_zero,
		  test_full_lookback_past_zero, test_full_nonhead_first,
		  test_full_first_clusterofs, test_full_clusterofs_range,
		  test_full_partial_plain, test_full_short_compressed,
		  test_full_short_lz4_aligned, test_full_alg_not_in_image,
		  test_full_alg_unknown, test_full_head2,
		  test_full_advise_unknown, test_full_raw_too_long,
		  test_full_interlaced, test_full_header_reserved,
		  test_full_big, test_full_cblkcnt_without_big,
		  test_full_cblkcnt_zero, test_full_cblkcnt_too_big,
		  test_full_big_missing_cblkcnt,
		  test_full_cblkcnt_not_after_head,
		  test_full_cblkcnt_in_the_middle,
		  test_full_big_short_compressed, test_full_big_interlaced,
		  test_full_big_without_feature, test_full_clamped_delta,
		  test_full_llen_limit),
	  .teardown = teardown },
	{ "compact",
	  .tests = UNIT_TESTS(
		  test_compact_2b, test_compact_4b, test_compact_lookback_zero,
		  test_compact_2b_lclusterbits, test_compact_4b_lclusterbits,
		  test_compact_beyond_space, test_compact_big,
		  test_compact_big_loop, test_compact_big_bits_differ,
		  test_compact_cblkcnt_without_big),
	  .teardown = teardown },
	{ "tail",
	  .tests = UNIT_TESTS(
		  test_inline_compressed, test_inline_raw_not_interlaced,
		  test_inline_raw_too_long, test_inline_crosses_block,
		  test_inline_empty, test_inline_without_feature,
		  test_fragment_tail_compact, test_fragment_tail_full,
		  test_fragment_tail_high_bits, test_fragment_tail_out_of_range,
		  test_fragment_tail_lcluster0, test_fragment_tail_big_cblkcnt0,
		  test_fragment_without_packed, test_fragment_whole,
		  test_fragment_whole_out_of_range, test_map_beyond_eof),
	  .teardown = teardown },
	{ "extents",
	  .tests = UNIT_TESTS(
		  test_ext16, test_ext16_many, test_ext16_unsorted,
		  test_ext16_equal_lstart, test_ext16_first_not_zero,
		  test_ext16_lstart_beyond_size, test_ext16_reserved_bits,
		  test_ext16_bad_fmt, test_ext16_alg_not_in_image,
		  test_ext16_plen_limit, test_ext16_llen_limit,
		  test_ext16_raw_too_long, test_ext16_short_compressed,
		  test_ext16_pa_overflow, test_ext16_fragment_out_of_range,
		  test_ext16_no_records, test_ext16_without_48bit,
		  test_ext32_large_file, test_ext8, test_ext8_raw_too_long,
		  test_ext4, test_ext4_many, test_ext4_fragment,
		  test_ext_records_beyond_space),
	  .teardown = teardown })
