// SPDX-License-Identifier: MIT
/*
 * The data path's copies and offsets (lib/image/data.c) on the fixture images:
 * erofs_extent_copy() writes what erofs_extent_read() reads, whole extents
 * and parts of them, at the offset asked; a destination the kernel cannot
 * copy to is a refusal, not an error; a failure of the destination is
 * recorded as the output's, one of the image as the image's; requests
 * outside the extent or of extents not stored raw are refused. And
 * erofs_pos_offset() gives the image offset of a stored byte, none for
 * compressed data, and leaves the error record as it was.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "erofs/data.h"
#include "erofs/dir.h"
#include "erofs/image.h"
#include "erofs/inode.h"
#include "unit.h"

/* a flat file of several blocks and a small inline one, in plain.erofs */
#define FLAT_FILE "/mixed.bin"
#define INLINE_FILE "/bigdir/e00000-tibyktucujzhacxfwlomqubsloalkuvxoicqyy"
/* where copies land in the destination, away from offset 0 */
#define DST_BASE 12345

struct fixture {
	struct erofs_image *img;
	struct erofs_ctx ctx;
	struct erofs_inode inode;
};

static char dst_path[64];

static void fixture_open(struct fixture *f, const char *image, const char *path)
{
	char file[512];

	unit_fixture(file, sizeof(file), image);
	unit_image_open(file, &f->img, &f->ctx);
	unit_inode(&f->ctx, path, &f->inode);
}

static void fixture_close(struct fixture *f)
{
	unit_image_close(f->img, &f->ctx);
}

static int dst_open(void)
{
	int fd;

	strcpy(dst_path, "/tmp/erofs-test-data-XXXXXX");
	fd = mkstemp(dst_path);
	ck_assert_int_ge(fd, 0);
	return fd;
}

static void dst_close(int fd)
{
	close(fd);
	unlink(dst_path);
}

static void map_at(struct fixture *f, uint64_t pos, struct erofs_map *map)
{
	ck_assert_msg(!erofs_map(&f->ctx, &f->inode, pos, map), "map %llu: %s",
		      (unsigned long long)pos, f->ctx.err.msg);
}

/* plain.erofs open at path, and the extent at its offset 0. */
static void first_extent(struct fixture *f, const char *path,
			 struct erofs_map *map)
{
	fixture_open(f, "plain.erofs", path);
	map_at(f, 0, map);
}

/* Bytes [skip, skip + len) of map, copied to off of fd, read back. */
static void copy_and_compare(struct fixture *f, const struct erofs_map *map,
			     int fd, uint64_t skip, size_t len, uint64_t off)
{
	uint8_t *want = malloc(len), *got = malloc(len);

	ck_assert(want && got);
	ck_assert_int_eq(erofs_extent_copy(&f->ctx, &f->inode, map, skip, len,
					   fd, off),
			 0);
	ck_assert_int_eq(f->ctx.err.code, 0);
	ck_assert_int_eq(
		erofs_extent_read(&f->ctx, &f->inode, map, skip, want, len), 0);
	ck_assert_int_eq(pread(fd, got, len, (off_t)off), (ssize_t)len);
	ck_assert(!memcmp(want, got, len));
	free(want);
	free(got);
}

START_TEST(test_copy_matches_read)
{
	struct fixture f;
	struct erofs_map map;
	uint64_t pos, copied = 0;
	int fd = dst_open();

	fixture_open(&f, "plain.erofs", FLAT_FILE);
	for (pos = 0; pos < f.inode.size; pos = map.la + map.llen) {
		map_at(&f, pos, &map);
		if (!erofs_extent_copyable(&map))
			continue;
		copy_and_compare(&f, &map, fd, 0, map.llen, DST_BASE + map.la);
		copied += map.llen;
		if (map.llen > 3000)
			copy_and_compare(&f, &map, fd, 1000, 2000, 7);
	}
	ck_assert_uint_gt(copied, 0);
	fixture_close(&f);
	dst_close(fd);
}
END_TEST

/*
 * A copy that fails on the image's side (or as a bad request): code, the
 * record naming the image with msg_part in its message, nothing written.
 */
static void copy_fails(struct fixture *f, const struct erofs_map *map,
		       uint64_t skip, uint64_t len, int code,
		       const char *msg_part)
{
	int fd = dst_open();

	ck_assert_int_eq(erofs_extent_copy(&f->ctx, &f->inode, map, skip, len,
					   fd, 0),
			 code);
	ck_assert_int_eq(f->ctx.err.code, code);
	ck_assert(!f->ctx.err.output);
	ck_assert_msg(strstr(f->ctx.err.msg, msg_part),
		      "message '%s' lacks '%s'", f->ctx.err.msg, msg_part);
	ck_assert_int_eq(lseek(fd, 0, SEEK_END), 0);
	erofs_err_drop(&f->ctx.err);
	dst_close(fd);
}

/* Bytes outside the extent, an extent not stored raw: bad requests. */
START_TEST(test_copy_bad_requests)
{
	struct fixture f;
	struct erofs_map map;

	first_extent(&f, FLAT_FILE, &map);
	ck_assert(erofs_extent_copyable(&map));
	copy_fails(&f, &map, 1, map.llen, -EINVAL, "outside the extent");
	fixture_close(&f);
	first_extent(&f, INLINE_FILE, &map);
	ck_assert_int_eq(map.loc, EROFS_LOC_META);
	ck_assert(!erofs_extent_copyable(&map));
	copy_fails(&f, &map, 0, map.llen, -EINVAL, "not stored raw");
	fixture_close(&f);
}
END_TEST

/* A pipe is no regular file: copy_file_range() cannot copy to it. */
START_TEST(test_copy_refused)
{
	struct fixture f;
	struct erofs_map map;
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	first_extent(&f, FLAT_FILE, &map);
	ck_assert_int_eq(erofs_extent_copy(&f.ctx, &f.inode, &map, 0, 512, p[1],
					   0),
			 EROFS_COPY_REFUSED);
	ck_assert_int_eq(f.ctx.err.code, 0);
	fixture_close(&f);
	close(p[0]);
	close(p[1]);
}
END_TEST

/* A file size limit makes the destination fail with EFBIG. */
START_TEST(test_copy_output_fails)
{
	struct rlimit lim, saved;
	struct fixture f;
	struct erofs_map map;
	int fd = dst_open(), ret;

	first_extent(&f, FLAT_FILE, &map);
	signal(SIGXFSZ, SIG_IGN);
	ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &saved), 0);
	lim = saved;
	lim.rlim_cur = 4096;
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
	ret = erofs_extent_copy(&f.ctx, &f.inode, &map, 0, 512, fd, 1 << 20);
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &saved), 0);
	ck_assert_int_eq(ret, -EFBIG);
	ck_assert_int_eq(f.ctx.err.code, -EFBIG);
	ck_assert(f.ctx.err.output);
	erofs_err_drop(&f.ctx.err);
	ck_assert(!f.ctx.err.output);
	fixture_close(&f);
	dst_close(fd);
}
END_TEST

/* An extent the image cannot hold is the image's failure. */
START_TEST(test_copy_image_fails)
{
	struct fixture f;
	struct erofs_map map, bad;

	first_extent(&f, FLAT_FILE, &map);
	bad = map;
	bad.pa = f.img->devs[0].size;
	copy_fails(&f, &bad, 0, 512, -EFSCORRUPTED, "past the end of device");
	bad = map;
	bad.plen = map.llen - 1;
	copy_fails(&f, &bad, 0, 512, -EFSCORRUPTED, "raw extent");
	fixture_close(&f);
}
END_TEST

START_TEST(test_pos_offset_stored)
{
	struct fixture f;
	struct erofs_map map;

	fixture_open(&f, "plain.erofs", FLAT_FILE);
	map_at(&f, 5000, &map);
	ck_assert_int_eq(map.loc, EROFS_LOC_DEVICE);
	ck_assert_uint_eq(erofs_pos_offset(&f.ctx, &f.inode, 5000),
			  map.pa + 5000 - map.la);
	fixture_close(&f);
	fixture_open(&f, "plain.erofs", INLINE_FILE);
	map_at(&f, 3, &map);
	ck_assert_uint_eq(erofs_pos_offset(&f.ctx, &f.inode, 3), map.pa + 3);
	fixture_close(&f);
}
END_TEST

START_TEST(test_pos_offset_none)
{
	struct fixture f;

	fixture_open(&f, "lz4hc-default.erofs", FLAT_FILE);
	ck_assert(erofs_inode_is_compressed(&f.inode));
	ck_assert_uint_eq(erofs_pos_offset(&f.ctx, &f.inode, 0),
			  EROFS_NO_OFFSET);
	fixture_close(&f);
}
END_TEST

/* A position that cannot be mapped leaves the record being reported. */
START_TEST(test_pos_offset_keeps_error)
{
	struct fixture f;

	fixture_open(&f, "plain.erofs", FLAT_FILE);
	erofs_error(&f.ctx.err, -EFSCORRUPTED, 42, 7, "the error reported");
	ck_assert_uint_eq(erofs_pos_offset(&f.ctx, &f.inode, f.inode.size),
			  EROFS_NO_OFFSET);
	ck_assert_int_eq(f.ctx.err.code, -EFSCORRUPTED);
	ck_assert_uint_eq(f.ctx.err.nid, 42);
	ck_assert_str_eq(f.ctx.err.msg, "the error reported");
	erofs_err_drop(&f.ctx.err);
	ck_assert_uint_eq(erofs_pos_offset(&f.ctx, &f.inode, f.inode.size),
			  EROFS_NO_OFFSET);
	ck_assert_int_eq(f.ctx.err.code, 0);
	fixture_close(&f);
}
END_TEST

UNIT_MAIN("data", "EROFS_TEST_DATA",
	  { "copy",
	    .tests = UNIT_TESTS(test_copy_matches_read, test_copy_bad_requests,
				test_copy_refused, test_copy_output_fails,
				test_copy_image_fails) },
	  { "offset",
	    .tests = UNIT_TESTS(test_pos_offset_stored, test_pos_offset_none,
				test_pos_offset_keeps_error) })
