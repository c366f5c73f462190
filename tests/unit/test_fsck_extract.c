// SPDX-License-Identifier: MIT
/*
 * What the extractor's calls come to (fsck/extract.h, fsck/result.h): a
 * problem with one entry is FSCK_REPORTED and nothing is created under a
 * bad name, a DIR that may not be used stops the run, a file gets its
 * name at the commit, and a copy the extractor does not make is said so.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "erofs/inode.h"
#include "extract.h"
#include "unit.h"
#include "walk.h"
#include "xattr_list.h"

static const struct fsck_loc loc = {
	.label = "unit", .nid = EROFS_NO_NID, .offset = EROFS_NO_OFFSET,
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

/* begin, create, write, commit: the file has its name only at the end. */
static void extract_one_file(struct fixture *f, const char *name,
			     const char *data, int in_fd, bool *copied)
{
	struct erofs_inode inode = { .nid = 3,
				     .mode = S_IFREG | 0644,
				     .size = strlen(data),
				     .nlink = 1 };
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
	ck_assert_int_eq(extract_file_copy(f->x, &f->rep, &loc, fd, in_fd, 0,
					   inode.size, 0, copied),
			 FSCK_OK);
	if (!*copied)
		ck_assert_int_eq(extract_file_write(f->x, &f->rep, &loc, fd,
						    data, inode.size, 0),
				 FSCK_OK);
	ck_assert_int_eq(extract_file_commit(f->x, &f->rep, &loc, dir, name, fd,
					     &inode, NULL),
			 FSCK_OK);
	extract_file_end(f->x, dir);
	ck_assert(exists(f, name));
}

static int source_file(struct fixture *f, const char *data)
{
	char path[96];
	int fd;

	snprintf(path, sizeof(path), "%s.src", f->dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	unlink(path);
	ck_assert_int_eq(write(fd, data, strlen(data)), (int)strlen(data));
	return fd;
}

static void check_content(const struct fixture *f, const char *name,
			  const char *data)
{
	char path[128], buf[64] = "";
	int fd;

	snprintf(path, sizeof(path), "%s/%s", f->dir, name);
	fd = open(path, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(read(fd, buf, sizeof(buf) - 1), (int)strlen(data));
	close(fd);
	ck_assert_str_eq(buf, data);
}

START_TEST(test_extract_file_copied_or_written)
{
	struct fixture f;
	bool copied;
	int in_fd;

	fixture_open(&f, false);
	in_fd = source_file(&f, "some bytes");
	extract_one_file(&f, "f", "some bytes", in_fd, &copied);
	check_content(&f, "f", "some bytes");
	close(in_fd);
	fixture_close(&f);
}
END_TEST

/* --sparse finds holes by reading: the extractor never copies. */
START_TEST(test_extract_file_sparse_not_copied)
{
	struct fixture f;
	bool copied = true;
	int in_fd;

	fixture_open(&f, true);
	in_fd = source_file(&f, "other bytes");
	extract_one_file(&f, "g", "written", in_fd, &copied);
	ck_assert(!copied);
	check_content(&f, "g", "written");
	close(in_fd);
	fixture_close(&f);
}
END_TEST

static Suite *extract_suite(void)
{
	Suite *s = suite_create("fsck_extract");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_extract_open_nonempty_dir_stops);
	tcase_add_test(tc, test_extract_node_results);
	tcase_add_test(tc, test_extract_file_copied_or_written);
	tcase_add_test(tc, test_extract_file_sparse_not_copied);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(extract_suite());
}
