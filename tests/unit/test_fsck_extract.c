// SPDX-License-Identifier: MIT
/*
 * What the extractor's calls come to (fsck/extract.h, fsck/result.h): a
 * problem with one entry is FSCK_REPORTED and nothing is created under a
 * bad name, a DIR that may not be used stops the run, a file gets its
 * name at the commit, and a copy the extractor does not make is said so
 * (the copies read the fixture plain.erofs).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "erofs/data.h"
#include "erofs/dir.h"
#include "erofs/image.h"
#include "erofs/inode.h"
#include "extract/extract.h"
#include "unit.h"
#include "util/xattr_list.h"
#include "walk/walk.h"

static const struct fsck_loc loc = {
	.label = "unit",
	.nid = EROFS_NO_NID,
	.offset = EROFS_NO_OFFSET,
};

struct fixture {
	char dir[64];
	struct report rep;
	struct extractor *x;
	struct erofs_inode root_inode;
	void *root;
};

static void fixture_open(struct fixture *f, bool sparse)
{
	struct extract_opts o = {
		.dir = f->dir, .force = true, .sparse = sparse, .threads = 1
	};
	struct walk_entry e = {
		.path = "", .rel = "", .name = "", .inode = &f->root_inode
	};
	struct xattr_list none = { 0 };

	snprintf(f->dir, sizeof(f->dir), "/tmp/test_fsck_extract.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(f->dir));
	report_init(&f->rep, "unit", FSCK_LVL_ERR);
	f->root_inode.mode = S_IFDIR | 0755;
	ck_assert_int_eq(extract_open(&f->x, &o, &f->rep, true), FSCK_OK);
	ck_assert_int_eq(extract_dir(f->x, &e, &loc, &none, &f->root), FSCK_OK);
}

static void fixture_close(struct fixture *f)
{
	char cmd[96];

	extract_dir_done(f->x, f->root);
	extract_close(f->x);
	report_fini(&f->rep);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	ck_assert_int_eq(system(cmd), 0);
}

static struct walk_entry child(struct fixture *f, const char *name,
			       const struct erofs_inode *inode)
{
	struct walk_entry e = {
		.path = name,
		.pathlen = strlen(name),
		.rel = name,
		.rellen = strlen(name),
		.name = name,
		.namelen = strlen(name),
		.nid = inode->nid,
		.inode = inode,
		.parent = f->root,
		.depth = 1,
		.first = true,
	};

	return e;
}

static bool exists(const struct fixture *f, const char *name)
{
	char path[128];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", f->dir, name);
	return !lstat(path, &st);
}

START_TEST(test_extract_open_nonempty_dir_stops)
{
	char dir[64] = "/tmp/test_fsck_extract.XXXXXX", path[96];
	struct extract_opts o = { .dir = dir, .threads = 1 };
	struct extractor *x = (void *)1;
	struct report rep;
	int fd;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/in-the-way", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
	report_init(&rep, "unit", FSCK_LVL_ERR);
	ck_assert_int_eq(extract_open(&x, &o, &rep, true), FSCK_STOP);
	ck_assert_ptr_null(x);
	ck_assert_int_ne(rep.fatal, 0);
	report_fini(&rep);
	unlink(path);
	rmdir(dir);
}
END_TEST

START_TEST(test_extract_node_results)
{
	struct erofs_inode link = {
		.nid = 2, .mode = S_IFLNK | 0777, .size = 6, .nlink = 1
	};
	struct fixture f;
	struct walk_entry e;

	fixture_open(&f, false);
	e = child(&f, "..", &link);
	ck_assert_int_eq(extract_node(f.x, &e, &loc, "target", 6, NULL),
			 FSCK_REPORTED);
	e = child(&f, "ok", &link);
	ck_assert_int_eq(extract_node(f.x, &e, &loc, "target", 6, NULL),
			 FSCK_OK);
	ck_assert(exists(&f, "ok"));
	/* an entry in the way, and no --overwrite */
	ck_assert_int_eq(extract_node(f.x, &e, &loc, "target", 6, NULL),
			 FSCK_REPORTED);
	e = child(&f, "empty", &link);
	ck_assert_int_eq(extract_node(f.x, &e, &loc, "", 0, NULL),
			 FSCK_REPORTED);
	ck_assert(!exists(&f, "empty"));
	fixture_close(&f);
}
END_TEST

/*
 * What a file is extracted from: the first extent of /mixed.bin in the
 * fixture plain.erofs, stored raw, and its bytes as the library reads
 * them.
 */
struct source {
	struct erofs_image *img;
	struct erofs_ctx ctx;
	struct erofs_inode inode;
	struct erofs_map map;
	uint8_t *data;
	size_t len;
};

static void source_open(struct source *src)
{
	char file[512];

	unit_fixture(file, sizeof(file), "plain.erofs");
	unit_image_open(file, &src->img, &src->ctx);
	unit_inode(&src->ctx, "/mixed.bin", &src->inode);
	ck_assert(!erofs_map(&src->ctx, &src->inode, 0, &src->map));
	ck_assert(erofs_extent_copyable(&src->map));
	src->len = src->map.llen < 8192 ? (size_t)src->map.llen : 8192;
	src->data = malloc(src->len);
	ck_assert_ptr_nonnull(src->data);
	ck_assert_int_eq(erofs_extent_read(&src->ctx, &src->inode, &src->map,
					   0, src->data, src->len),
			 0);
}

static void source_close(struct source *src)
{
	free(src->data);
	unit_image_close(src->img, &src->ctx);
}

/* begin, create, copy or write, commit: the name comes only at the end. */
static void extract_one_file(struct fixture *f, const char *name,
			     struct source *src, bool *copied)
{
	struct erofs_inode inode = {
		.nid = 3, .mode = S_IFREG | 0644, .size = src->len, .nlink = 1
	};
	struct walk_entry e = child(f, name, &inode);
	struct xdir *dir;
	int fd;

	ck_assert_int_eq(extract_file_begin(f->x, &e, &loc, &dir), FSCK_OK);
	ck_assert_ptr_nonnull(dir);
	ck_assert_int_eq(extract_file_create(f->x, &f->rep, &loc, dir, name,
					     &inode, &fd),
			 FSCK_OK);
	ck_assert_int_ge(fd, 0);
	ck_assert(!exists(f, name));
	ck_assert_int_eq(extract_file_copy(f->x, &f->rep, &loc, fd, &src->ctx,
					   &src->inode, &src->map, 0, src->len,
					   copied),
			 FSCK_OK);
	if (!*copied)
		ck_assert_int_eq(extract_file_write(f->x, &f->rep, &loc, fd,
						    src->data, src->len, 0),
				 FSCK_OK);
	ck_assert_int_eq(extract_file_commit(f->x, &f->rep, &loc, dir, name, fd,
					     &inode, NULL, false),
			 FSCK_OK);
	extract_file_end(f->x, dir);
	ck_assert(exists(f, name));
}

static void check_content(const struct fixture *f, const char *name,
			  const struct source *src)
{
	uint8_t *buf = malloc(src->len + 1);
	char path[128];
	int fd;

	ck_assert_ptr_nonnull(buf);
	snprintf(path, sizeof(path), "%s/%s", f->dir, name);
	fd = open(path, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(read(fd, buf, src->len + 1), (int)src->len);
	close(fd);
	ck_assert(!memcmp(buf, src->data, src->len));
	free(buf);
}

START_TEST(test_extract_file_copied_or_written)
{
	struct source src;
	struct fixture f;
	bool copied;

	source_open(&src);
	fixture_open(&f, false);
	extract_one_file(&f, "f", &src, &copied);
	check_content(&f, "f", &src);
	fixture_close(&f);
	source_close(&src);
}
END_TEST

/* --sparse finds holes by reading: the extractor never copies. */
START_TEST(test_extract_file_sparse_not_copied)
{
	struct source src;
	struct fixture f;
	bool copied = true;

	source_open(&src);
	fixture_open(&f, true);
	extract_one_file(&f, "g", &src, &copied);
	ck_assert(!copied);
	check_content(&f, "g", &src);
	fixture_close(&f);
	source_close(&src);
}
END_TEST

UNIT_MAIN("fsck_extract", "EROFS_TEST_DATA",
	  { "core", .tests = UNIT_TESTS(test_extract_open_nonempty_dir_stops,
					test_extract_node_results,
					test_extract_file_copied_or_written,
					test_extract_file_sparse_not_copied) })
