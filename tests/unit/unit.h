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

/* Run one suite and turn its result into the process exit status. */
static inline int unit_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
