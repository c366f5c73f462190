// SPDX-License-Identifier: MIT
/*
 * XXH32 and the xattr name filter (Appendix B); xattr enumeration on a
 * fixture image and on corrupted copies of it.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "erofs/dir.h"
#include "erofs/format.h"
#include "erofs/image.h"
#include "erofs/inode.h"
#include "erofs/xattr.h"
#include "unit.h"

#define FIXTURE "lz4hc-xattr-prefix.erofs"

START_TEST(test_xxh32_vectors)
{
	static const char spam[] = "Nobody inspects the spammish repetition";

	ck_assert_uint_eq(erofs_xxh32("", 0, 0), 0x02CC5D05);
	ck_assert_uint_eq(erofs_xxh32("a", 1, 0), 0x550D7456);
	ck_assert_uint_eq(erofs_xxh32("abc", 3, 0), 0x32D153FF);
	/* 16 bytes and more take the four-accumulator path */
	ck_assert_uint_eq(erofs_xxh32(spam, sizeof(spam) - 1, 0), 0xE2293B2F);
	ck_assert_uint_eq(erofs_xxh32(spam, sizeof(spam) - 1,
				      EROFS_XATTR_FILTER_SEED), 0xDC7E811C);
	ck_assert_uint_eq(erofs_xxh32("0123456789abcdef", 16, 1), 0xF31FE1CF);
	ck_assert_uint_eq(erofs_xxh32("0123456789abcdefghijklm", 23,
				      0xFFFFFFFF), 0xAE8B8050);
}
END_TEST

static unsigned int filter_bit(unsigned int index, const char *s)
{
	return erofs_xxh32(s, strlen(s), EROFS_XATTR_FILTER_SEED + index) &
	       (EROFS_XATTR_FILTER_BITS - 1);
}

START_TEST(test_filter_bits)
{
	ck_assert_uint_eq(filter_bit(EROFS_XATTR_INDEX_POSIX_ACL_ACCESS, ""),
			  30);
	ck_assert_uint_eq(filter_bit(EROFS_XATTR_INDEX_POSIX_ACL_DEFAULT, ""),
			  21);
	ck_assert_uint_eq(filter_bit(EROFS_XATTR_INDEX_USER, "foo"), 12);
	ck_assert_uint_eq(filter_bit(EROFS_XATTR_INDEX_SECURITY, "selinux"),
			  11);
	ck_assert_uint_eq(filter_bit(EROFS_XATTR_INDEX_SECURITY, "capability"),
			  29);
	ck_assert_uint_eq(filter_bit(EROFS_XATTR_INDEX_TRUSTED,
				     "overlay.opaque"), 20);
}
END_TEST

START_TEST(test_prefix_names)
{
	ck_assert_ptr_null(erofs_xattr_prefix_name(0));
	ck_assert_str_eq(erofs_xattr_prefix_name(1), "user.");
	ck_assert_str_eq(erofs_xattr_prefix_name(2), "system.posix_acl_access");
	ck_assert_str_eq(erofs_xattr_prefix_name(3),
			 "system.posix_acl_default");
	ck_assert_str_eq(erofs_xattr_prefix_name(4), "trusted.");
	ck_assert_ptr_null(erofs_xattr_prefix_name(5));
	ck_assert_str_eq(erofs_xattr_prefix_name(6), "security.");
	ck_assert_ptr_null(erofs_xattr_prefix_name(7));
	ck_assert_ptr_null(erofs_xattr_prefix_name(0x80));
}
END_TEST

/* ---- fixture image ---- */

static void fixture_inode(struct unit_image *f, const char *path,
			  struct erofs_inode *inode)
{
	unit_inode(&f->ctx, path, inode);
}

#define MAX_XATTRS 80

struct seen_xattr {
	char name[EROFS_XATTR_NAME_MAX];
	char value[256];
	size_t value_len;
	bool shared, long_prefix;
	unsigned int base_index;
};

struct xattr_list {
	unsigned int count;
	struct seen_xattr x[MAX_XATTRS];
};

static int collect(void *arg, const struct erofs_xattr *xa)
{
	struct xattr_list *l = arg;
	struct seen_xattr *s = &l->x[l->count++];

	ck_assert_uint_le(l->count, MAX_XATTRS);
	ck_assert_uint_eq(strlen(xa->name), xa->namelen);
	memcpy(s->name, xa->name, xa->namelen + 1);
	s->value_len = xa->value_len;
	memcpy(s->value, xa->value,
	       xa->value_len < sizeof(s->value) ? xa->value_len :
						  sizeof(s->value));
	s->shared = xa->shared;
	s->long_prefix = xa->long_prefix;
	s->base_index = xa->base_index;
	return 0;
}

static const struct seen_xattr *find(const struct xattr_list *l,
				     const char *name)
{
	unsigned int i;

	for (i = 0; i < l->count; i++)
		if (!strcmp(l->x[i].name, name))
			return &l->x[i];
	return NULL;
}

static void expect_value(const struct xattr_list *l, const char *name,
			 const char *value)
{
	const struct seen_xattr *s = find(l, name);

	ck_assert_msg(s, "xattr %s missing", name);
	ck_assert_uint_eq(s->value_len, strlen(value));
	ck_assert(!memcmp(s->value, value, s->value_len));
}

static int list_xattrs(struct unit_image *f, const char *path,
		       struct xattr_list *l)
{
	struct erofs_inode inode;

	memset(l, 0, sizeof(*l));
	fixture_inode(f, path, &inode);
	return erofs_xattr_iterate(&f->ctx, &inode, 0, collect, l);
}

START_TEST(test_fixture_shared_and_long)
{
	struct unit_image f;
	struct xattr_list *l = calloc(1, sizeof(*l));
	unsigned int i;
	bool seen_shared = false;

	unit_fixture(f.path, sizeof(f.path), FIXTURE);
	unit_image_open_at(&f, f.path);
	ck_assert_msg(!list_xattrs(&f, "xattrs/shared-0", l), "%s",
		      f.ctx.err.msg);
	ck_assert_uint_eq(l->count, 5);
	expect_value(l, "trusted.shared", "also shared");
	expect_value(l, "user.erofs.fixture.alpha", "long-prefix-a");
	expect_value(l, "user.erofs.fixture.beta", "long-prefix-b-0");
	expect_value(l, "user.own-0", "private 0");
	expect_value(l, "user.shared", "identical value on several files");
	ck_assert(find(l, "user.erofs.fixture.alpha")->long_prefix);
	ck_assert_uint_eq(find(l, "user.erofs.fixture.alpha")->base_index,
			  EROFS_XATTR_INDEX_USER);
	ck_assert(!find(l, "user.own-0")->long_prefix);
	ck_assert(!find(l, "user.own-0")->shared);
	/* inline entries first, then shared ones */
	for (i = 0; i < l->count; i++) {
		if (l->x[i].shared)
			seen_shared = true;
		else
			ck_assert_msg(!seen_shared, "inline after shared");
	}
	ck_assert(seen_shared);
	unit_image_close_at(&f);
	free(l);
}
END_TEST

START_TEST(test_fixture_odd_values)
{
	struct unit_image f;
	struct xattr_list *l = calloc(1, sizeof(*l));
	const struct seen_xattr *s;

	unit_fixture(f.path, sizeof(f.path), FIXTURE);
	unit_image_open_at(&f, f.path);

	ck_assert_int_eq(list_xattrs(&f, "xattrs/acl-file", l), 0);
	ck_assert_uint_eq(l->count, 1);
	ck_assert_str_eq(l->x[0].name, "system.posix_acl_access");
	ck_assert_uint_eq(l->x[0].value_len, 52);
	ck_assert(!memcmp(l->x[0].value, "\x02\0\0\0\x01\0\x06\0", 8));

	ck_assert_int_eq(list_xattrs(&f, "xattrs/long-value", l), 0);
	s = find(l, "user.empty");
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(s->value_len, 0);
	s = find(l, "user.long");
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(s->value_len, 2000);

	ck_assert_int_eq(list_xattrs(&f, "xattrs/many", l), 0);
	ck_assert_uint_eq(l->count, 64);
	expect_value(l, "user.many.00", "value-00-");

	ck_assert_int_eq(list_xattrs(&f, "xattrs/dir-with-xattrs", l), 0);
	expect_value(l, "trusted.overlay.opaque", "y");
	expect_value(l, "user.dirattr", "on a directory");

	ck_assert_int_eq(list_xattrs(&f, "sizes/size-1", l), 0);
	ck_assert_uint_eq(l->count, 0);
	unit_image_close_at(&f);
	free(l);
}
END_TEST

/* xattrs in the fixture tree, counted per path (hard links twice) */
#define FIXTURE_XATTRS 96

struct tree_walk {
	struct unit_image *f;
	uint64_t *dirs;
	unsigned int ndirs, cap;
	unsigned long xattrs;
};

static int count_xattr(void *arg, const struct erofs_xattr *xa)
{
	unsigned long *count = arg;

	ck_assert_uint_gt(xa->namelen, 0);
	++*count;
	return 0;
}

static void count_inode_xattrs(struct tree_walk *w, uint64_t nid)
{
	struct erofs_inode inode;

	ck_assert_msg(!erofs_read_inode(&w->f->ctx, nid, &inode),
		      "inode %llu: %s", (unsigned long long)nid,
		      w->f->ctx.err.msg);
	ck_assert_msg(!erofs_xattr_iterate(&w->f->ctx, &inode,
					   EROFS_XATTR_HIDDEN, count_xattr,
					   &w->xattrs),
		      "xattrs of %llu: %s", (unsigned long long)nid,
		      w->f->ctx.err.msg);
}

static int tree_entry(void *arg, const struct erofs_dirent *de)
{
	struct tree_walk *w = arg;

	if (de->file_type != EROFS_FT_DIR) {
		count_inode_xattrs(w, de->nid);
		return 0;
	}
	if (w->ndirs == w->cap) {
		w->cap *= 2;
		w->dirs = realloc(w->dirs, w->cap * sizeof(*w->dirs));
		ck_assert_ptr_nonnull(w->dirs);
	}
	w->dirs[w->ndirs++] = de->nid;
	return 0;
}

/* Every inode's xattrs, validated (name filter included) and counted. */
START_TEST(test_fixture_all_xattrs)
{
	static const char *const images[] = {
		"lz4hc-xattr-prefix.erofs",
		"lz4hc-default.erofs",
		"lz4hc-48bit.erofs",
		"lz4hc-b512.erofs",
		"plain.erofs",
	};
	struct unit_image f;
	struct tree_walk w = { .f = &f, .cap = 64 };
	struct erofs_inode dir;
	uint64_t nid;

	unit_fixture(f.path, sizeof(f.path), images[_i]);
	unit_image_open_at(&f, f.path);
	w.dirs = malloc(w.cap * sizeof(*w.dirs));
	w.dirs[w.ndirs++] = f.img->root_nid;
	while (w.ndirs) {
		nid = w.dirs[--w.ndirs];
		count_inode_xattrs(&w, nid);
		ck_assert_int_eq(erofs_read_inode(&f.ctx, nid, &dir), 0);
		ck_assert_msg(!erofs_dir_iterate(&f.ctx, &dir, EROFS_NO_NID,
						 tree_entry, &w),
			      "dir %llu: %s", (unsigned long long)nid,
			      f.ctx.err.msg);
	}
	ck_assert_uint_eq(w.xattrs, FIXTURE_XATTRS);
	free(w.dirs);
	unit_image_close_at(&f);
}
END_TEST

/* ---- corrupted copies of the fixture ---- */

/* Patch bytes at a position relative to path's inline xattr region. */
static void expect_patch_corrupt(const char *path, unsigned int rel,
				 const void *bytes, size_t len,
				 const char *msg_part)
{
	struct unit_image good, bad;
	struct erofs_inode inode;
	struct xattr_list *l = calloc(1, sizeof(*l));
	int ret;

	unit_fixture(good.path, sizeof(good.path), FIXTURE);
	unit_image_open_at(&good, good.path);
	fixture_inode(&good, path, &inode);
	ck_assert_int_eq(inode.space, EROFS_SPACE_PRIMARY);
	unit_image_close_at(&good);

	unit_open_patched(&bad, good.path, inode.xattr_pos + rel, bytes, len);
	ret = list_xattrs(&bad, path, l);
	ck_assert_msg(ret == -EFSCORRUPTED, "%s: got %d", msg_part, ret);
	ck_assert_uint_eq(bad.ctx.err.nid, inode.nid);
	ck_assert_msg(strstr(bad.ctx.err.msg, msg_part),
		      "message '%s' lacks '%s'", bad.ctx.err.msg, msg_part);
	unit_close_patched(&bad);
	free(l);
}

START_TEST(test_corrupt_xattrs)
{
	static const uint8_t ones[4] = { 0xff, 0xff, 0xff, 0xff };
	static const uint8_t lustre = EROFS_XATTR_INDEX_LUSTRE;
	static const uint8_t idx7 = 7, long_far = 0x80 | 0x7f, many = 255;

	/* user-one: one inline entry, no shared id */
	expect_patch_corrupt("xattrs/user-one", 12 + 1, &lustre, 1,
			     "name index 5");
	expect_patch_corrupt("xattrs/user-one", 12 + 1, &idx7, 1,
			     "name index 7");
	expect_patch_corrupt("xattrs/user-one", 12 + 1, &long_far, 1,
			     "long prefix 127 of 1");
	expect_patch_corrupt("xattrs/user-one", 4, &many, 1,
			     "shared xattr ids overflow");
	expect_patch_corrupt("xattrs/user-one", 12 + 2, ones, 2,
			     "run past the region end");
	expect_patch_corrupt("xattrs/user-one", 0, ones, 4,
			     "hashes to filter bit");
}
END_TEST

UNIT_MAIN("xattr", "EROFS_TEST_DATA",
	  { "hash", .tests = UNIT_TESTS(test_xxh32_vectors, test_filter_bits,
					test_prefix_names) },
	  { "image",
	    .tests = UNIT_TESTS(test_fixture_shared_and_long,
				test_fixture_odd_values, test_corrupt_xattrs),
	    .loops = UNIT_LOOPS({ test_fixture_all_xattrs, 5 }),
	    .timeout = 60 })
