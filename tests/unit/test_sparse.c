// SPDX-License-Identifier: MIT
/*
 * Android sparse images read in place (lib/container/sparse.c through
 * erofs/source.h): every chunk type, reads across chunks, the CRC32
 * chunks verified, and damaged tables refused with the chunk named. The
 * images are written here from the format (docs/android.md).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <zlib.h>

#include "erofs/format.h"
#include "erofs/source.h"
#include "unit.h"

#define BLK 4096
#define RAW 0xcac1
#define FILL 0xcac2
#define DONT_CARE 0xcac3
#define CRC32 0xcac4

struct image {
	uint8_t buf[64 * BLK];
	size_t len;
	uint32_t blocks, chunks;
};

static void put(struct image *im, const void *p, size_t n)
{
	ck_assert_uint_le(im->len + n, sizeof(im->buf));
	if (n)
		memcpy(im->buf + im->len, p, n);
	im->len += n;
}

static void header(struct image *im)
{
	uint8_t h[28] = { 0 };

	erofs_put32(h, 0xed26ff3a);
	erofs_put16(h + 4, 1);
	erofs_put16(h + 8, 28);
	erofs_put16(h + 10, 12);
	erofs_put32(h + 12, BLK);
	im->len = 0;
	put(im, h, sizeof(h));
}

/* A chunk of type covering blocks, with len bytes of body. */
static void chunk(struct image *im, uint16_t type, uint32_t blocks,
		  const void *body, size_t len)
{
	uint8_t h[12] = { 0 };

	erofs_put16(h, type);
	erofs_put32(h + 4, blocks);
	erofs_put32(h + 8, (uint32_t)(12 + len));
	put(im, h, sizeof(h));
	put(im, body, len);
	im->blocks += blocks;
	im->chunks++;
}

/* The totals into the header, and the image into a file: its path. */
static const char *finish(struct image *im, char *path)
{
	FILE *f;
	int fd;

	erofs_put32(im->buf + 16, im->blocks);
	erofs_put32(im->buf + 20, im->chunks);
	strcpy(path, "/tmp/test_sparse.XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(im->buf, 1, im->len, f), im->len);
	fclose(f);
	return path;
}

static uint8_t raw_data[3 * BLK];
static uint8_t expect[8 * BLK]; /* what the unsparsed image holds */

/* RAW (3 blocks), FILL (2), DONT_CARE (2), RAW (1), then a CRC32. */
static void mixed(struct image *im, bool crc_ok)
{
	uint32_t fill = 0x01020304, crc;
	size_t i;

	memset(im, 0, sizeof(*im));
	for (i = 0; i < sizeof(raw_data); i++)
		raw_data[i] = (uint8_t)(i * 13 + 7);
	header(im);
	chunk(im, RAW, 3, raw_data, sizeof(raw_data));
	chunk(im, FILL, 2, &fill, 4);
	chunk(im, DONT_CARE, 2, NULL, 0);
	chunk(im, RAW, 1, raw_data, BLK);
	memcpy(expect, raw_data, 3 * BLK);
	for (i = 0; i < 2 * BLK; i += 4)
		memcpy(expect + 3 * BLK + i, &fill, 4);
	memset(expect + 5 * BLK, 0, 2 * BLK);
	memcpy(expect + 7 * BLK, raw_data, BLK);
	crc = (uint32_t)crc32(0, expect, sizeof(expect));
	erofs_put32(&crc, crc_ok ? crc : crc ^ 1);
	chunk(im, CRC32, 0, &crc, 4);
}

static struct erofs_source *open_ok(const char *path)
{
	struct erofs_source *src;
	struct erofs_err err;

	erofs_err_clear(&err);
	ck_assert_msg(!erofs_source_open(&src, path, -1, &err), "open: %s",
		      err.msg);
	return src;
}

START_TEST(test_every_chunk_type)
{
	static struct image im;
	struct erofs_source *src;
	struct erofs_err err;
	uint8_t got[8 * BLK];
	char path[64];

	mixed(&im, true);
	src = open_ok(finish(&im, path));
	ck_assert_int_eq(erofs_source_kind(src), EROFS_SOURCE_SPARSE);
	ck_assert_uint_eq(erofs_source_size(src), sizeof(expect));
	erofs_err_clear(&err);
	ck_assert_int_eq(erofs_source_read(src, got, sizeof(got), 0, &err), 0);
	ck_assert_mem_eq(got, expect, sizeof(got));
	ck_assert_int_eq(erofs_source_verify(src, &err), 0);
	erofs_source_close(src);
	unlink(path);
}
END_TEST

/* Reads at every offset across chunk ends give the unsparsed bytes. */
START_TEST(test_reads_across_chunks)
{
	static struct image im;
	struct erofs_source *src;
	struct erofs_err err;
	uint8_t got[2 * BLK + 100];
	size_t pos, len = sizeof(got);
	char path[64];

	mixed(&im, true);
	src = open_ok(finish(&im, path));
	erofs_err_clear(&err);
	for (pos = 0; pos + len <= sizeof(expect); pos += 997) {
		ck_assert_int_eq(erofs_source_read(src, got, len, pos, &err),
				 0);
		ck_assert_mem_eq(got, expect + pos, len);
	}
	/* past the end: refused, nothing read */
	ck_assert_int_eq(erofs_source_read(src, got, 2, sizeof(expect) - 1,
					   &err),
			 -EFSCORRUPTED);
	erofs_err_drop(&err);
	erofs_source_close(src);
	unlink(path);
}
END_TEST

START_TEST(test_crc_mismatch_named)
{
	static struct image im;
	struct erofs_source *src;
	struct erofs_err err;
	char path[64];

	mixed(&im, false);
	src = open_ok(finish(&im, path));
	erofs_err_clear(&err);
	ck_assert_int_eq(erofs_source_verify(src, &err), -EFSCORRUPTED);
	ck_assert_msg(strstr(err.msg, "chunk 4"), "%s", err.msg);
	erofs_err_drop(&err);
	erofs_source_close(src);
	unlink(path);
}
END_TEST

/* Open a damaged image: the error and a fragment of its message. */
static void refused(struct image *im, int want, const char *text)
{
	struct erofs_source *src = NULL;
	struct erofs_err err;
	char path[64];
	int ret;

	finish(im, path);
	erofs_err_clear(&err);
	ret = erofs_source_open(&src, path, -1, &err);
	unlink(path);
	ck_assert_int_eq(ret, want);
	ck_assert_msg(strstr(err.msg, text), "want \"%s\" in \"%s\"", text,
		      err.msg);
	erofs_err_drop(&err);
}

START_TEST(test_bad_chunk_type)
{
	static struct image im;

	mixed(&im, true);
	erofs_put16(im.buf + 28 + 12 + 3 * BLK, 0xcac9);
	refused(&im, -EFSCORRUPTED, "chunk 1 at byte 12328");
}
END_TEST

START_TEST(test_raw_chunk_short)
{
	static struct image im;

	memset(&im, 0, sizeof(im));
	header(&im);
	chunk(&im, RAW, 2, raw_data, BLK); /* one block of body for two */
	refused(&im, -EFSCORRUPTED, "chunk 0 at byte 28");
}
END_TEST

START_TEST(test_block_count_differs)
{
	static struct image im;

	mixed(&im, true);
	im.blocks++;
	refused(&im, -EFSCORRUPTED, "the header says 9");
}
END_TEST

START_TEST(test_fill_body_size)
{
	static struct image im;
	uint8_t eight[8] = { 0 };

	memset(&im, 0, sizeof(im));
	header(&im);
	chunk(&im, FILL, 1, eight, sizeof(eight));
	refused(&im, -EFSCORRUPTED, "chunk 0");
}
END_TEST

START_TEST(test_version_2)
{
	static struct image im;

	mixed(&im, true);
	erofs_put16(im.buf + 4, 2);
	refused(&im, -EOPNOTSUPP, "format version 2.0");
}
END_TEST

START_TEST(test_block_size_not_multiple_of_4)
{
	static struct image im;

	mixed(&im, true);
	erofs_put32(im.buf + 12, 4094);
	refused(&im, -EFSCORRUPTED, "not a multiple of 4");
}
END_TEST

/* Runs of zeros the table knows: the DONT_CARE chunk's, not FILL's. */
START_TEST(test_zeros_known)
{
	static struct image im;
	struct erofs_source *src;
	char path[64];

	mixed(&im, true);
	src = open_ok(finish(&im, path));
	ck_assert_uint_eq(erofs_source_zeros_at(src, 0), 0);
	ck_assert_uint_eq(erofs_source_zeros_at(src, 3 * BLK), 0);
	ck_assert_uint_eq(erofs_source_zeros_at(src, 5 * BLK), 2 * BLK);
	ck_assert_uint_eq(erofs_source_zeros_at(src, 6 * BLK + 5), BLK - 5);
	ck_assert_uint_eq(erofs_source_zeros_at(src, 7 * BLK), 0);
	ck_assert_uint_eq(erofs_source_zeros_at(src, 8 * BLK), 0);
	ck_assert_uint_eq(erofs_source_zeros_total(src), 2 * BLK);
	erofs_source_close(src);
	unlink(path);
}
END_TEST

/* Many CRC32 chunks (the table grows past its first room), all checked. */
START_TEST(test_many_crc_chunks)
{
	static struct image im;
	struct erofs_source *src;
	struct erofs_err err;
	uint32_t crc;
	char path[64];
	int i;

	mixed(&im, true);
	memcpy(&crc, im.buf + im.len - 4, 4);
	for (i = 0; i < 100; i++)
		chunk(&im, CRC32, 0, &crc, 4);
	src = open_ok(finish(&im, path));
	erofs_err_clear(&err);
	ck_assert_int_eq(erofs_source_verify(src, &err), 0);
	erofs_source_close(src);
	unlink(path);
}
END_TEST

static bool stop_now(void)
{
	return true;
}

/* A caller that asks to stop gets -EINTR from indexing and verifying. */
START_TEST(test_stop_asked)
{
	static struct image im;
	struct erofs_source *src = NULL;
	struct erofs_err err;
	char path[64];

	mixed(&im, true);
	finish(&im, path);
	erofs_set_stop_check(stop_now);
	erofs_err_clear(&err);
	ck_assert_int_eq(erofs_source_open(&src, path, -1, &err), -EINTR);
	erofs_err_drop(&err);
	erofs_set_stop_check(NULL);
	src = open_ok(path);
	erofs_set_stop_check(stop_now);
	ck_assert_int_eq(erofs_source_verify(src, &err), -EINTR);
	erofs_err_drop(&err);
	erofs_set_stop_check(NULL);
	erofs_source_close(src);
	unlink(path);
}
END_TEST

UNIT_MAIN("sparse", NULL,
	  { "sparse",
	    .tests = UNIT_TESTS(test_every_chunk_type, test_reads_across_chunks,
				test_crc_mismatch_named, test_bad_chunk_type,
				test_raw_chunk_short, test_block_count_differs,
				test_fill_body_size, test_version_2,
				test_block_size_not_multiple_of_4,
				test_zeros_known, test_many_crc_chunks,
				test_stop_asked) })
