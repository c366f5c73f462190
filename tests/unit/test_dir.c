// SPDX-License-Identifier: MIT
/* Directory block parsing on hand-built blocks, and name ordering. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "erofs/data.h"
#include "erofs/dir.h"
#include "erofs/format.h"
#include "erofs/image.h"
#include "erofs/inode.h"
#include "unit.h"

/* entries of the small fixture tree, the root included */
#define FIXTURE_ENTRIES 3193

#define BLKSZ 4096
#define TEST_NID 77
#define MAX_SEEN 64

struct test_ent {
	uint64_t nid;
	uint8_t file_type;
	const char *name;
	unsigned int len;
};

#define ENT(nid, ftype, name) { nid, ftype, name, sizeof(name) - 1 }
/* "." of the directory (nid 10) and ".." of its parent (nid 3) */
#define DOTS ENT(10, EROFS_FT_DIR, "."), ENT(3, EROFS_FT_DIR, "..")

struct seen {
	unsigned int count;
	int stop_at;		/* return 1 at this entry, -1: never */
	struct erofs_dirent de[MAX_SEEN];
	char names[MAX_SEEN][EROFS_NAME_LEN + 1];
};

static uint8_t blk[BLKSZ];
static struct seen seen;
static struct erofs_err err;

/* Lay out entries as mkfs does; returns the bytes used. */
static unsigned int build(const struct test_ent *e, unsigned int n)
{
	unsigned int i, off = n * EROFS_DIRENT_SIZE;

	memset(blk, 0, sizeof(blk));
	for (i = 0; i < n; i++) {
		uint8_t *de = blk + i * EROFS_DIRENT_SIZE;

		erofs_put64(de + EROFS_DIRENT_NID, e[i].nid);
		erofs_put16(de + EROFS_DIRENT_NAMEOFF, off);
		de[EROFS_DIRENT_FILE_TYPE] = e[i].file_type;
		memcpy(blk + off, e[i].name, e[i].len);
		off += e[i].len;
	}
	return off;
}

static void set_nameoff(unsigned int i, unsigned int v)
{
	erofs_put16(blk + i * EROFS_DIRENT_SIZE + EROFS_DIRENT_NAMEOFF, v);
}

static int collect(void *arg, const struct erofs_dirent *de)
{
	struct seen *s = arg;

	ck_assert_uint_lt(s->count, MAX_SEEN);
	s->de[s->count] = *de;
	memcpy(s->names[s->count], de->name, de->namelen);
	s->names[s->count][de->namelen] = '\0';
	s->de[s->count].name = s->names[s->count];
	if ((int)s->count++ == s->stop_at)
		return 42;
	return 0;
}

static int parse(unsigned int maxsize, uint64_t blkpos)
{
	memset(&seen, 0, sizeof(seen));
	seen.stop_at = -1;
	erofs_err_clear(&err);
	return erofs_dir_parse_block(blk, maxsize, TEST_NID, blkpos, collect,
				     &seen, &err);
}

/* A corrupt block: the error is recorded and no entry is reported. */
static void expect_corrupt(unsigned int maxsize, uint64_t offset,
			   const char *msg_part)
{
	ck_assert_int_eq(parse(maxsize, 0), -EFSCORRUPTED);
	ck_assert_int_eq(err.code, -EFSCORRUPTED);
	ck_assert_uint_eq(err.nid, TEST_NID);
	ck_assert_uint_eq(err.offset, offset);
	ck_assert_msg(strstr(err.msg, msg_part), "message '%s' lacks '%s'",
		      err.msg, msg_part);
	ck_assert_uint_eq(seen.count, 0);
}

static const struct test_ent good[] = {
	DOTS,
	ENT(100, EROFS_FT_REG_FILE, "a"),
	ENT(101, EROFS_FT_SYMLINK, "bb"),
	ENT(102, EROFS_FT_UNKNOWN, "file"),
};

START_TEST(test_good_block)
{
	unsigned int used = build(good, 5);

	blk[4 * EROFS_DIRENT_SIZE + EROFS_DIRENT_RESERVED] = 9;
	ck_assert_int_eq(parse(BLKSZ, 8192), 0);
	ck_assert_uint_eq(seen.count, 5);
	ck_assert_str_eq(seen.names[0], ".");
	ck_assert_str_eq(seen.names[1], "..");
	ck_assert_str_eq(seen.names[2], "a");
	ck_assert_str_eq(seen.names[3], "bb");
	ck_assert_str_eq(seen.names[4], "file");
	ck_assert_uint_eq(seen.de[4].namelen, 4);
	ck_assert_uint_eq(seen.de[3].nid, 101);
	ck_assert_uint_eq(seen.de[3].file_type, EROFS_FT_SYMLINK);
	ck_assert_uint_eq(seen.de[3].pos, 8192 + 3 * EROFS_DIRENT_SIZE);
	ck_assert_uint_eq(seen.de[3].reserved, 0);
	ck_assert_uint_eq(seen.de[4].reserved, 9);
	ck_assert_int_eq(err.code, 0);

	/* the last name may end exactly at a short last block */
	ck_assert_int_eq(parse(used, 0), 0);
	ck_assert_uint_eq(seen.count, 5);
	ck_assert_str_eq(seen.names[4], "file");

	/* bytes after the terminating NUL are not part of the name */
	blk[used + 1] = 0xff;
	ck_assert_int_eq(parse(BLKSZ, 0), 0);
	ck_assert_str_eq(seen.names[4], "file");
}
END_TEST

START_TEST(test_stop_early)
{
	build(good, 5);
	memset(&seen, 0, sizeof(seen));
	seen.stop_at = 1;
	erofs_err_clear(&err);
	ck_assert_int_eq(erofs_dir_parse_block(blk, BLKSZ, TEST_NID, 0,
					       collect, &seen, &err), 42);
	ck_assert_uint_eq(seen.count, 2);
	ck_assert_int_eq(err.code, 0);
}
END_TEST

START_TEST(test_nameoff0)
{
	build(good, 5);
	set_nameoff(0, 0);
	expect_corrupt(BLKSZ, EROFS_DIRENT_NAMEOFF, "nameoff 0");

	build(good, 5);
	set_nameoff(0, 5 * EROFS_DIRENT_SIZE + 1);
	expect_corrupt(BLKSZ, EROFS_DIRENT_NAMEOFF, "nameoff 61");

	/* 12 is a multiple of 12, but not below a 12-byte block */
	build(good, 1);
	expect_corrupt(EROFS_DIRENT_SIZE, EROFS_DIRENT_NAMEOFF, "nameoff 12");

	build(good, 5);
	expect_corrupt(5 * EROFS_DIRENT_SIZE, EROFS_DIRENT_NAMEOFF,
		       "nameoff 60");

	expect_corrupt(EROFS_DIRENT_SIZE - 1, 0, "holds no dirent");
}
END_TEST

START_TEST(test_decreasing_nameoff)
{
	build(good, 5);
	set_nameoff(3, 60);	/* entry 2 starts at 63 */
	expect_corrupt(BLKSZ, 3 * EROFS_DIRENT_SIZE + EROFS_DIRENT_NAMEOFF,
		       "dirent 3: nameoff 60 not above the previous 63");

	/* equal nameoffs: a zero-length name */
	build(good, 5);
	set_nameoff(3, 63);
	expect_corrupt(BLKSZ, 3 * EROFS_DIRENT_SIZE + EROFS_DIRENT_NAMEOFF,
		       "not above");
}
END_TEST

START_TEST(test_nameoff_past_end)
{
	unsigned int used = build(good, 5);

	/* the last one, far out: caught as the previous name's end */
	set_nameoff(4, 0xffff);
	expect_corrupt(BLKSZ, 4 * EROFS_DIRENT_SIZE + EROFS_DIRENT_NAMEOFF,
		       "dirent 4: nameoff 65535 past block size 4096");

	/* the last one at maxsize: rejected before its length is computed */
	build(good, 5);
	set_nameoff(4, used);
	expect_corrupt(used, 4 * EROFS_DIRENT_SIZE + EROFS_DIRENT_NAMEOFF,
		       "dirent 4 (last): nameoff 70 not below block size 70");

	/* a middle one past maxsize */
	build(good, 5);
	set_nameoff(3, 200);
	expect_corrupt(100, 3 * EROFS_DIRENT_SIZE + EROFS_DIRENT_NAMEOFF,
		       "dirent 3: nameoff 200 past block size 100");
}
END_TEST

START_TEST(test_bad_names)
{
	static const struct test_ent slash[] = {
		DOTS,
		ENT(100, EROFS_FT_REG_FILE, "a/b"),
		ENT(101, EROFS_FT_REG_FILE, "c"),
	};
	static const struct test_ent nul[] = {
		DOTS,
		ENT(100, EROFS_FT_REG_FILE, "a\0b"),
		ENT(101, EROFS_FT_REG_FILE, "c"),
	};
	static const struct test_ent empty_last[] = {
		DOTS,
		ENT(100, EROFS_FT_REG_FILE, ""),
	};
	static const struct test_ent slash_last[] = {
		DOTS,
		ENT(100, EROFS_FT_REG_FILE, "x/"),
	};

	build(slash, 4);
	expect_corrupt(BLKSZ, 51, "dirent 2: name contains '/'");
	build(nul, 4);
	expect_corrupt(BLKSZ, 51, "dirent 2: name contains NUL");
	build(empty_last, 3);
	expect_corrupt(BLKSZ, 39, "dirent 2: empty name");
	build(slash_last, 3);
	expect_corrupt(BLKSZ, 39, "dirent 2: name contains '/'");
}
END_TEST

START_TEST(test_order)
{
	static const struct test_ent unsorted[] = {
		DOTS,
		ENT(100, EROFS_FT_REG_FILE, "b"),
		ENT(101, EROFS_FT_REG_FILE, "a"),
	};
	static const struct test_ent prefix[] = {
		DOTS,
		ENT(100, EROFS_FT_REG_FILE, "ab"),
		ENT(101, EROFS_FT_REG_FILE, "a"),
	};
	static const struct test_ent dup[] = {
		DOTS,
		ENT(100, EROFS_FT_REG_FILE, "a"),
		ENT(101, EROFS_FT_REG_FILE, "a"),
	};
	static const struct test_ent dots_first[] = {
		ENT(100, EROFS_FT_REG_FILE, "!"),
		ENT(101, EROFS_FT_REG_FILE, "-x"),
		DOTS,
		ENT(102, EROFS_FT_REG_FILE, "\xe9"),
	};

	build(unsorted, 4);
	expect_corrupt(BLKSZ, 36, "dirent 3: name 'a' not after 'b'");
	build(prefix, 4);
	expect_corrupt(BLKSZ, 36, "dirent 3: name 'a' not after 'ab'");
	build(dup, 4);
	expect_corrupt(BLKSZ, 36, "dirent 3: duplicate name 'a'");

	/* names below '.' sort first; bytes compare unsigned */
	build(dots_first, 5);
	ck_assert_int_eq(parse(BLKSZ, 0), 0);
	ck_assert_uint_eq(seen.count, 5);
	ck_assert_str_eq(seen.names[2], ".");
}
END_TEST

START_TEST(test_file_type)
{
	build(good, 5);
	blk[2 * EROFS_DIRENT_SIZE + EROFS_DIRENT_FILE_TYPE] = 9;
	expect_corrupt(BLKSZ, 2 * EROFS_DIRENT_SIZE + EROFS_DIRENT_FILE_TYPE,
		       "dirent 2: file type 9");
	build(good, 5);
	blk[4 * EROFS_DIRENT_SIZE + EROFS_DIRENT_FILE_TYPE] = EROFS_FT_MAX;
	expect_corrupt(BLKSZ, 4 * EROFS_DIRENT_SIZE + EROFS_DIRENT_FILE_TYPE,
		       "file type 8");
	build(good, 5);
	blk[4 * EROFS_DIRENT_SIZE + EROFS_DIRENT_FILE_TYPE] = EROFS_FT_SOCK;
	ck_assert_int_eq(parse(BLKSZ, 0), 0);
}
END_TEST

START_TEST(test_name_lengths)
{
	static char n255[256], n256[257];
	struct test_ent ents[] = {
		DOTS,
		{ 100, EROFS_FT_REG_FILE, n255, 255 },
		ENT(101, EROFS_FT_REG_FILE, "z"),
	};

	memset(n255, 'x', 255);
	memset(n256, 'x', 256);

	build(ents, 4);
	ck_assert_int_eq(parse(BLKSZ, 0), 0);
	ck_assert_uint_eq(seen.de[2].namelen, 255);

	/* the same name as the last entry */
	build(ents, 3);
	ck_assert_int_eq(parse(BLKSZ, 0), 0);
	ck_assert_uint_eq(seen.de[2].namelen, 255);

	ents[2].name = n256;
	ents[2].len = 256;
	build(ents, 4);
	expect_corrupt(BLKSZ, 51, "dirent 2: name of 256 bytes");
	build(ents, 3);
	expect_corrupt(BLKSZ, 39, "dirent 2: name of 256 bytes");
}
END_TEST

START_TEST(test_name_cmp)
{
	ck_assert_int_lt(erofs_name_cmp("a", 1, "b", 1), 0);
	ck_assert_int_gt(erofs_name_cmp("b", 1, "a", 1), 0);
	ck_assert_int_lt(erofs_name_cmp("a", 1, "ab", 2), 0);
	ck_assert_int_gt(erofs_name_cmp("ab", 2, "a", 1), 0);
	ck_assert_int_eq(erofs_name_cmp("abc", 3, "abc", 3), 0);
	ck_assert_int_lt(erofs_name_cmp("!", 1, ".", 1), 0);
	ck_assert_int_lt(erofs_name_cmp(".", 1, "..", 2), 0);
	ck_assert_int_lt(erofs_name_cmp("z", 1, "\xe9", 1), 0);
	ck_assert_int_lt(erofs_name_cmp("a\0", 2, "a\1", 2), 0);
	/* only the given lengths count */
	ck_assert_int_eq(erofs_name_cmp("abX", 2, "abY", 2), 0);
}
END_TEST

/* ---- fixture images ---- */

static void fixture_dir(struct unit_image *f, const char *path,
			struct erofs_inode *dir)
{
	unit_inode(&f->ctx, path, dir);
}

struct walk {
	uint64_t (*stack)[2];	/* { nid, parent nid } */
	unsigned int depth, cap;
	uint64_t cur;		/* the directory being iterated */
	unsigned long entries;
};

static int walk_entry(void *arg, const struct erofs_dirent *de)
{
	struct walk *w = arg;

	ck_assert_msg(!(de->namelen == 1 && de->name[0] == '.') &&
		      !(de->namelen == 2 && !memcmp(de->name, "..", 2)),
		      "dot entry reported");
	w->entries++;
	if (de->file_type != EROFS_FT_DIR)
		return 0;
	if (w->depth == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 64;
		w->stack = realloc(w->stack, w->cap * sizeof(*w->stack));
		ck_assert_ptr_nonnull(w->stack);
	}
	w->stack[w->depth][0] = de->nid;
	w->stack[w->depth][1] = w->cur;
	w->depth++;
	return 0;
}

/* Walk the whole tree with erofs_dir_iterate; count the entries. */
static unsigned long walk_tree(struct unit_image *f)
{
	struct walk w = { .entries = 1 };
	struct erofs_inode dir;
	uint64_t nid, parent;

	w.cap = 64;
	w.stack = malloc(w.cap * sizeof(*w.stack));
	w.stack[0][0] = f->img->root_nid;
	w.stack[0][1] = f->img->root_nid;
	w.depth = 1;
	while (w.depth) {
		w.depth--;
		nid = w.stack[w.depth][0];
		parent = w.stack[w.depth][1];
		ck_assert_msg(!erofs_read_inode(&f->ctx, nid, &dir),
			      "inode %llu: %s", (unsigned long long)nid,
			      f->ctx.err.msg);
		w.cur = nid;
		ck_assert_msg(!erofs_dir_iterate(&f->ctx, &dir, parent,
						 walk_entry, &w),
			      "dir %llu: %s", (unsigned long long)nid,
			      f->ctx.err.msg);
	}
	free(w.stack);
	return w.entries;
}

START_TEST(test_fixture_walk)
{
	static const char *const images[] = {
		"lz4hc-xattr-prefix.erofs",	/* flat directories */
		"lz4hc-zD.erofs",		/* compressed directories */
		"lz4hc-dot-omitted.erofs",	/* no '.' entries */
		"lz4hc-metabox.erofs",		/* inodes in the metabox */
		"lz4hc-b512.erofs",		/* many small blocks */
		"lz4hc-b16384.erofs",
	};
	struct unit_image f;

	unit_fixture(f.path, sizeof(f.path), images[_i]);
	unit_image_open_at(&f, f.path);
	ck_assert_uint_eq(walk_tree(&f), FIXTURE_ENTRIES);
	unit_image_close_at(&f);
}
END_TEST

#define BIGDIR_ENTRIES 3000

struct name_list {
	unsigned int count;
	uint64_t nid[BIGDIR_ENTRIES];
	char name[BIGDIR_ENTRIES][EROFS_NAME_LEN + 1];
};

static int list_entry(void *arg, const struct erofs_dirent *de)
{
	struct name_list *l = arg;

	ck_assert_uint_lt(l->count, BIGDIR_ENTRIES);
	memcpy(l->name[l->count], de->name, de->namelen);
	l->name[l->count][de->namelen] = '\0';
	l->nid[l->count++] = de->nid;
	return 0;
}

static int lookup(struct unit_image *f, const char *path, uint64_t *nid)
{
	erofs_err_drop(&f->ctx.err);
	return erofs_lookup(&f->ctx, path, nid);
}

static void check_lookups(struct unit_image *f, struct name_list *l)
{
	struct erofs_inode dir;
	char path[300];
	uint64_t nid, bigdir;
	unsigned int i;

	fixture_dir(f, "bigdir", &dir);
	bigdir = dir.nid;
	l->count = 0;
	ck_assert_int_eq(erofs_dir_iterate(&f->ctx, &dir, EROFS_NO_NID,
					   list_entry, l), 0);
	ck_assert_uint_eq(l->count, BIGDIR_ENTRIES);
	/* every name through the binary search over the blocks */
	for (i = 0; i < l->count; i++) {
		snprintf(path, sizeof(path), "/bigdir/%s", l->name[i]);
		ck_assert_msg(!lookup(f, path, &nid), "%s: %s", path,
			      f->ctx.err.msg);
		ck_assert_uint_eq(nid, l->nid[i]);
	}
	/* before the first name, between names, after the last */
	ck_assert_int_eq(lookup(f, "bigdir/!", &nid), -ENOENT);
	ck_assert_int_eq(lookup(f, "bigdir/e", &nid), -ENOENT);
	snprintf(path, sizeof(path), "bigdir/%s-", l->name[1500]);
	ck_assert_int_eq(lookup(f, path, &nid), -ENOENT);
	ck_assert_int_eq(lookup(f, "bigdir/zzz", &nid), -ENOENT);
	ck_assert_ptr_nonnull(strstr(f->ctx.err.msg, "zzz"));

	ck_assert_int_eq(lookup(f, "", &nid), 0);
	ck_assert_uint_eq(nid, f->img->root_nid);
	ck_assert_int_eq(lookup(f, "//", &nid), 0);
	ck_assert_uint_eq(nid, f->img->root_nid);
	ck_assert_int_eq(lookup(f, "//bigdir//", &nid), 0);
	ck_assert_uint_eq(nid, bigdir);
	ck_assert_int_eq(lookup(f, "bigdir/./", &nid), -ENOENT);
	ck_assert_int_eq(lookup(f, "bigdir/..", &nid), -ENOENT);
	ck_assert_int_eq(lookup(f, "xattrs/user-one", &nid), 0);
	ck_assert_int_eq(lookup(f, "xattrs/user-one/", &nid), -ENOTDIR);
	ck_assert_int_eq(lookup(f, "xattrs/user-one/x", &nid), -ENOTDIR);
	ck_assert_int_eq(lookup(f, "nothing/x", &nid), -ENOENT);
}

START_TEST(test_fixture_lookup)
{
	static const char *const images[] = {
		"lz4hc-xattr-prefix.erofs",
		"lz4hc-zD.erofs",
		"lz4hc-b512.erofs",
		"lz4hc-metabox.erofs",
	};
	struct name_list *l = malloc(sizeof(*l));
	struct unit_image f;

	unit_fixture(f.path, sizeof(f.path), images[_i]);
	unit_image_open_at(&f, f.path);
	check_lookups(&f, l);
	unit_image_close_at(&f);
	free(l);
}
END_TEST

static int find_dotdot(void *arg, const struct erofs_dirent *de)
{
	uint64_t *pos = arg;

	if (de->namelen == 2 && !memcmp(de->name, "..", 2))
		*pos = de->pos;
	return 0;
}

static int ignore_entry(void *arg, const struct erofs_dirent *de)
{
	return 0;
}

struct dir_probe {
	struct erofs_inode dir;
	uint64_t root;		/* root nid, the parent of the directory */
	uint64_t base;		/* image offset of the first block */
	uint64_t dotdot;	/* position of '..' in the directory */
	unsigned int nameoff0;
};

/* Look at the first block of an uncompressed directory of a fixture. */
static void probe_dir(const char *image, const char *path,
		      struct dir_probe *p)
{
	struct erofs_inode *dir = &p->dir;
	struct unit_image f;
	struct erofs_map map;
	uint8_t block[4096];
	unsigned int len;

	unit_image_open_at(&f, image);
	p->root = f.img->root_nid;
	fixture_dir(&f, path, dir);
	ck_assert(!erofs_inode_is_compressed(dir));
	len = dir->size < sizeof(block) ? dir->size : sizeof(block);
	ck_assert_int_eq(erofs_pread(&f.ctx, dir, block, len, 0), len);
	erofs_err_clear(&err);
	p->dotdot = EROFS_NO_OFFSET;
	ck_assert_int_eq(erofs_dir_parse_block(block, len, dir->nid, 0,
					       find_dotdot, &p->dotdot, &err),
			 0);
	ck_assert_uint_ne(p->dotdot, EROFS_NO_OFFSET);
	p->nameoff0 = erofs_get16(block + EROFS_DIRENT_NAMEOFF);
	ck_assert_int_eq(erofs_map(&f.ctx, dir, 0, &map), 0);
	p->base = map.pa - map.la;
	unit_image_close_at(&f);
}

static void expect_dir_corrupt(const char *image, const struct erofs_inode *dir,
			       uint64_t parent, uint64_t off,
			       const void *bytes, size_t len,
			       const char *msg_part)
{
	struct unit_image bad;

	unit_open_patched(&bad, image, off, bytes, len);
	ck_assert_int_eq(erofs_dir_iterate(&bad.ctx, dir, parent,
					   ignore_entry, NULL), -EFSCORRUPTED);
	ck_assert_uint_eq(bad.ctx.err.nid, dir->nid);
	ck_assert_uint_eq(bad.ctx.err.offset, off);
	ck_assert_msg(strstr(bad.ctx.err.msg, msg_part),
		      "message '%s' lacks '%s'", bad.ctx.err.msg, msg_part);
	/* without a parent to compare with, only the '..' check goes away */
	erofs_err_drop(&bad.ctx.err);
	ck_assert_int_eq(erofs_dir_iterate(&bad.ctx, dir, EROFS_NO_NID,
					   ignore_entry, NULL),
			 strstr(msg_part, "'..'") ? 0 : -EFSCORRUPTED);
	unit_close_patched(&bad);
}

/*
 * Corrupt the first block of a directory stored inline (/xattrs) and of
 * one stored in data blocks (/bigdir): errors carry the image offset of
 * the bad bytes.
 */
START_TEST(test_corrupt_dir_offsets)
{
	static const char *const dirs[] = { "xattrs", "bigdir" };
	static const uint8_t nine = 9, slash = '/';
	char image[512];
	struct dir_probe p;
	uint8_t nid[8];

	unit_fixture(image, sizeof(image), "lz4hc-xattr-prefix.erofs");
	probe_dir(image, dirs[_i], &p);

	erofs_put64(nid, p.dir.nid);
	expect_dir_corrupt(image, &p.dir, p.root, p.base + p.dotdot, nid,
			   sizeof(nid), "'..'");
	expect_dir_corrupt(image, &p.dir, p.root,
			   p.base + EROFS_DIRENT_FILE_TYPE, &nine, 1,
			   "file type 9");
	expect_dir_corrupt(image, &p.dir, p.root, p.base + p.nameoff0,
			   &slash, 1, "contains '/'");
}
END_TEST

UNIT_MAIN("dir", "EROFS_TEST_DATA",
	  { "parse_block",
	    .tests = UNIT_TESTS(test_good_block, test_stop_early, test_nameoff0,
				test_decreasing_nameoff, test_nameoff_past_end,
				test_bad_names, test_order, test_file_type,
				test_name_lengths, test_name_cmp) },
	  { "image",
	    .loops = UNIT_LOOPS({ test_fixture_walk, 6 },
				{ test_fixture_lookup, 4 },
				{ test_corrupt_dir_offsets, 2 }),
	    .timeout = 60 })
