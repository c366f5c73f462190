/* SPDX-License-Identifier: MIT */
/* Shared helpers of the Check-based unit tests. */
#ifndef EROFS_TEST_UNIT_H
#define EROFS_TEST_UNIT_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "erofs/context.h"
#include "erofs/dir.h"
#include "erofs/format.h"
#include "erofs/image.h"
#include "erofs/inode.h"

/* The exit status automake counts as a skipped test. */
#define UNIT_SKIP 77

/*
 * Make sure the directory the environment variable ENV names is there,
 * or exit with UNIT_SKIP: make check unpacks the images of tests/data
 * into EROFS_TEST_DATA only when python3 is found, and a test that
 * cannot see its fixtures must be counted as skipped, not passed.
 */
static inline void unit_require_dir(const char *env)
{
	const char *dir = getenv(env);
	struct stat st;

	if (dir && !stat(dir, &st) && S_ISDIR(st.st_mode))
		return;
	printf("SKIP: %s does not name a directory\n", env);
	exit(UNIT_SKIP);
}

/*
 * Path of the image NAME in the directory ENV names. Once the directory
 * is there (unit_require_dir), a missing image fails the test.
 */
static inline void unit_data_path(char *buf, size_t len, const char *env,
				  const char *name)
{
	const char *dir = getenv(env);

	ck_assert_msg(dir != NULL, "%s is not set", env);
	snprintf(buf, len, "%s/%s", dir, name);
	ck_assert_msg(!access(buf, R_OK), "fixture %s not found", buf);
}

/* An unpacked image of tests/data. */
static inline void unit_fixture(char *buf, size_t len, const char *name)
{
	unit_data_path(buf, len, "EROFS_TEST_DATA", name);
}

/* Open the image at path with one reading context: the test fails if not. */
static inline void unit_image_open(const char *path, struct erofs_image **img,
				   struct erofs_ctx *ctx)
{
	struct erofs_open_opts opts = { .path = path };
	struct erofs_err err;

	erofs_err_clear(&err);
	ck_assert_msg(!erofs_image_open(img, &opts, &err), "open %s: %s", path,
		      err.msg);
	ck_assert_int_eq(erofs_ctx_init(ctx, *img), 0);
}

static inline void unit_image_close(struct erofs_image *img,
				    struct erofs_ctx *ctx)
{
	erofs_ctx_fini(ctx);
	erofs_image_close(img);
}

/* An image of a test's and its one reading context. */
struct unit_image {
	char path[512];
	struct erofs_image *img;
	struct erofs_ctx ctx;
};

static inline void unit_image_open_at(struct unit_image *f, const char *path)
{
	unit_image_open(path, &f->img, &f->ctx);
}

static inline void unit_image_close_at(struct unit_image *f)
{
	unit_image_close(f->img, &f->ctx);
}

/*
 * Open a copy of the image at src, in a temporary file, with len bytes at
 * off replaced by bytes; unit_close_patched() closes and removes it.
 */
void unit_open_patched(struct unit_image *f, const char *src, uint64_t off,
		       const void *bytes, size_t len);
void unit_close_patched(struct unit_image *f);

/*
 * Crafted images of 4 KiB blocks: the superblock (its root at nid 0, the
 * inode count 3), the root directory's compact inode with its "." and
 * ".." inline, and a compact flat regular file's inode of size bytes from
 * block blkaddr.
 */
void unit_put_super(uint8_t *image, uint32_t blocks, uint32_t meta_blkaddr,
		    uint32_t incompat);
void unit_put_root_dir(uint8_t *inode);
void unit_put_flat_file(uint8_t *inode, uint32_t size, uint32_t blkaddr,
			uint32_t ino);

/* The inode at path of an open image: the test fails if there is none. */
static inline void unit_inode(struct erofs_ctx *ctx, const char *path,
			      struct erofs_inode *inode)
{
	uint64_t nid;

	ck_assert_msg(!erofs_lookup(ctx, path, &nid), "lookup %s: %s", path,
		      ctx->err.msg);
	ck_assert_msg(!erofs_read_inode(ctx, nid, inode), "inode %s: %s", path,
		      ctx->err.msg);
}

/* A test Check runs once for every _i below count. */
struct unit_loop {
	const TTest *test;
	int count;
};

/*
 * A test case: Check runs each test in a process of its own, with setup
 * and teardown around it in that process; once runs in the runner, once
 * before the case's first test.
 */
struct unit_case {
	const char *name;
	const TTest *const *tests;
	const struct unit_loop *loops;
	SFun setup, teardown, once;
	int timeout; /* seconds; 0 keeps Check's default */
};

/* The lists a unit_case takes, each ended for the runner. */
#define UNIT_TESTS(...) ((const TTest *const[]){ __VA_ARGS__, NULL })
#define UNIT_LOOPS(...) ((const struct unit_loop[]){ __VA_ARGS__, { NULL, 0 } })

/*
 * Run the suite of the cases (a list ended by a case of no name) and turn
 * its result into the process exit status.
 */
int unit_main(const char *suite, const struct unit_case *cases);

/*
 * The main() of a unit test: the suite's name, the environment variable
 * naming its fixtures' directory (unit_require_dir) or NULL, its cases.
 */
#define UNIT_MAIN(suite, fixtures_env, ...)                                 \
	int main(void)                                                      \
	{                                                                   \
		const struct unit_case cases[] = { __VA_ARGS__, { NULL } }; \
                                                                            \
		if (fixtures_env)                                           \
			unit_require_dir(fixtures_env);                     \
		return unit_main(suite, cases);                             \
	}

#endif
