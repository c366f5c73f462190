// SPDX-License-Identifier: MIT
/* Unit tests of the command's pure parts: escaping, nid map, manifest. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "erofs/inode.h"
#include "output/manifest.h"
#include "unit.h"
#include "util/nidmap.h"
#include "util/strbuf.h"
#include "util/xattr_list.h"
#include "walk/nidset.h"

START_TEST(test_escape_printable)
{
	struct strbuf sb = STRBUF_INIT;

	sb_escape(&sb, "abc/DEF~!", 9, NULL);
	ck_assert_str_eq(sb.s, "abc/DEF~!");
	sb_release(&sb);
}
END_TEST

START_TEST(test_escape_special_bytes)
{
	struct strbuf sb = STRBUF_INIT;
	const char in[] = { ' ', '\\', '\n', '\0', (char)0x7f, (char)0xe9,
			    'x' };

	sb_escape(&sb, in, sizeof(in), NULL);
	ck_assert_str_eq(sb.s, "\\x20\\x5c\\x0a\\x00\\x7f\\xe9x");
	sb_release(&sb);
}
END_TEST

START_TEST(test_escape_extra)
{
	struct strbuf sb = STRBUF_INIT;

	sb_escape(&sb, "user.a,b=c", 10, ",=");
	ck_assert_str_eq(sb.s, "user.a\\x2cb\\x3dc");
	sb_reset(&sb);
	sb_escape(&sb, "a,b=c", 5, NULL);
	ck_assert_str_eq(sb.s, "a,b=c");
	sb_release(&sb);
}
END_TEST

START_TEST(test_hex)
{
	struct strbuf sb = STRBUF_INIT;
	const unsigned char v[] = { 0x00, 0x0f, 0xa0, 0xff };

	sb_hex(&sb, v, sizeof(v));
	ck_assert_str_eq(sb.s, "000fa0ff");
	sb_reset(&sb);
	sb_hex(&sb, v, 0);
	ck_assert_uint_eq(sb.len, 0);
	sb_release(&sb);
}
END_TEST

START_TEST(test_addf_grows)
{
	struct strbuf sb = STRBUF_INIT;
	int i;

	for (i = 0; i < 1000; i++)
		sb_addf(&sb, "%04d", i);
	ck_assert_uint_eq(sb.len, 4000);
	ck_assert(!sb.failed);
	ck_assert(!strncmp(sb.s + 3996, "0999", 4));
	sb_release(&sb);
}
END_TEST

/* A line longer than the room formatting tries first is formatted whole. */
START_TEST(test_addf_long)
{
	struct strbuf sb = STRBUF_INIT;
	char word[301];

	memset(word, 'w', 300);
	word[300] = '\0';
	sb_addf(&sb, "<%s>", "a");
	sb_addf(&sb, "[%s]%d", word, 7);
	ck_assert_uint_eq(sb.len, 3 + 303);
	ck_assert_uint_eq(strlen(sb.s), sb.len);
	ck_assert(!strncmp(sb.s, "<a>[www", 7));
	ck_assert_str_eq(sb.s + sb.len - 3, "w]7");
	sb_release(&sb);
}
END_TEST

START_TEST(test_add_num)
{
	struct strbuf sb = STRBUF_INIT;

	sb_add_num(&sb, 0, 10, 0);
	sb_addc(&sb, ' ');
	sb_add_num(&sb, 0755, 8, 4);
	sb_addc(&sb, ' ');
	sb_add_num(&sb, 07777, 8, 4);
	sb_addc(&sb, ' ');
	sb_add_num(&sb, 123456789, 10, 4);
	sb_addc(&sb, ' ');
	sb_add_num(&sb, 5, 10, 9);
	sb_addc(&sb, ' ');
	sb_add_num(&sb, UINT64_MAX, 10, 0);
	sb_addc(&sb, ' ');
	sb_add_num(&sb, 0xbeef, 16, 0);
	sb_addc(&sb, ' ');
	sb_add_int(&sb, -1);
	sb_addc(&sb, ' ');
	sb_add_int(&sb, INT64_MIN);
	sb_addc(&sb, ' ');
	sb_add_int(&sb, INT64_MAX);
	ck_assert_str_eq(sb.s, "0 0755 7777 123456789 000000005 "
			       "18446744073709551615 beef -1 "
			       "-9223372036854775808 9223372036854775807");
	sb_release(&sb);
}
END_TEST

START_TEST(test_nidmap)
{
	struct nidmap m;
	uint64_t *v, nid;
	size_t i, n = 0;
	int added;

	nidmap_init(&m, sizeof(uint64_t));
	ck_assert_ptr_null(nidmap_find(&m, 5));
	for (nid = 0; nid < 10000; nid++) {
		v = nidmap_get(&m, nid * 32 | (nid & 1) << 63, &added);
		ck_assert_ptr_nonnull(v);
		ck_assert_int_eq(added, 1);
		ck_assert_uint_eq(*v, 0);
		*v = nid + 1;
	}
	v = nidmap_get(&m, 64, &added);
	ck_assert_int_eq(added, 0);
	ck_assert_uint_eq(*v, 3);
	v = nidmap_find(&m, UINT64_MAX);
	ck_assert_ptr_null(v);
	v = nidmap_find(&m, 9999 * 32 | 1ULL << 63);
	ck_assert_ptr_nonnull(v);
	ck_assert_uint_eq(*v, 10000);
	nidmap_for_each(&m, i)
		n++;
	ck_assert_uint_eq(n, 10000);
	ck_assert_uint_eq(m.count, 10000);
	nidmap_fini(&m);
}
END_TEST

START_TEST(test_nidset)
{
	struct nidset s;
	uint64_t nid;

	nidset_init(&s);
	for (nid = 0; nid < 5000; nid += 3)
		ck_assert_int_eq(nidset_add(&s, nid), 1);
	ck_assert_int_eq(nidset_add(&s, 1ULL << 63 | 7), 1);
	ck_assert_int_eq(nidset_add(&s, UINT64_MAX), 1);
	for (nid = 0; nid < 5000; nid++)
		ck_assert_int_eq(nidset_add(&s, nid), !!(nid % 3));
	ck_assert_int_eq(nidset_add(&s, 1ULL << 63 | 7), 0);
	ck_assert_int_eq(nidset_add(&s, UINT64_MAX), 0);
	ck_assert_int_eq(nidset_add(&s, 7), 0);
	/* dense nids share chunks: 5000 nids, 2 chunks, plus 2 far ones */
	ck_assert_uint_eq(s.chunks.count, 4);
	nidset_fini(&s);
}
END_TEST

/*
 * Inodes far apart (every 64th nid: 2 KiB of inline data between them),
 * added out of order, then again: each is added once, the chunks keep
 * arrays until they fill, and a chunk past its array's room (every 8th
 * nid) goes on as a bitmap.
 */
START_TEST(test_nidset_sparse)
{
	const uint64_t n = 100000;
	struct nidset s;
	uint64_t i, nid;

	nidset_init(&s);
	for (i = 0; i < n; i++) {
		nid = (i * 7919 % n) * 64;
		ck_assert_int_eq(nidset_add(&s, nid), 1);
	}
	for (i = 0; i < n; i++) {
		ck_assert_int_eq(nidset_add(&s, i * 64), 0);
		ck_assert_int_eq(nidset_add(&s, i * 64 + 1), 1);
	}
	ck_assert_uint_eq(s.chunks.count,
			  (n * 64 + NIDSET_CHUNK_NIDS - 1) / NIDSET_CHUNK_NIDS);
	nidset_fini(&s);
	nidset_init(&s);
	for (nid = 0; nid < 3 * NIDSET_CHUNK_NIDS; nid += 8)
		ck_assert_int_eq(nidset_add(&s, nid), 1);
	for (nid = 0; nid < 3 * NIDSET_CHUNK_NIDS; nid++)
		ck_assert_int_eq(nidset_add(&s, nid), !!(nid % 8));
	nidset_fini(&s);
}
END_TEST

/* A manifest printing into a string. */
struct mf_sink {
	char *text;
	size_t len;
	FILE *f;
};

static struct manifest *sink_manifest(struct mf_sink *k)
{
	struct manifest *m;

	k->text = NULL;
	k->len = 0;
	k->f = open_memstream(&k->text, &k->len);
	ck_assert_ptr_nonnull(k->f);
	m = manifest_new(k->f);
	ck_assert_ptr_nonnull(m);
	return m;
}

/* What was printed so far. */
static const char *sink_text(struct mf_sink *k)
{
	ck_assert_int_eq(fflush(k->f), 0);
	return k->text ? k->text : "";
}

/* Finish, and the whole text (to free). */
static char *sink_finish(struct mf_sink *k, struct manifest *m)
{
	ck_assert_int_eq(manifest_print(m), 0);
	manifest_free(m);
	fclose(k->f);
	return k->text;
}

static void fill_inode(struct erofs_inode *inode, uint64_t nid,
		       uint16_t mode, uint64_t size, uint32_t nlink);

START_TEST(test_manifest_streams_and_groups)
{
	struct mf_sink k;
	struct manifest *m = sink_manifest(&k);
	struct erofs_inode inode;
	char *text;

	ck_assert_int_eq(manifest_add(m, "", 0, 1, false, "d 0755", "-"), 0);
	ck_assert_str_eq(sink_text(&k), ". d 0755 - -\n");
	ck_assert_int_eq(manifest_add(m, "a b", 3, 7, true, "f 0644 2", "-"),
			 0);
	ck_assert_int_eq(manifest_add(m, "d", 1, 2, false, "d 0755", "-"), 0);
	ck_assert_int_eq(manifest_add(m, "d-x", 3, 3, false, "p 0644 1",
				      "user.a=01"), 0);
	fill_inode(&inode, 7, 0100644, 2, 2);
	ck_assert_int_eq(manifest_add_name(m, "d/z", 3, &inode), 0);
	/* a one-link inode named again: what its inode says */
	fill_inode(&inode, 3, 010644, 0, 1);
	ck_assert_int_eq(manifest_add_name(m, "d/zz", 4, &inode), 0);
	ck_assert_str_eq(sink_text(&k),
			 ". d 0755 - -\n"
			 "a\\x20b f 0644 2 a\\x20b -\n"
			 "d d 0755 - -\n"
			 "d-x p 0644 1 - user.a=01\n"
			 "d/z f 0644 2 a\\x20b -\n"
			 "d/zz p 0644 1000 4000000001 0 1650000000.000000111 "
			 "- - 1 - -\n");
	text = sink_finish(&k, m);
	free(text);
}
END_TEST

START_TEST(test_manifest_pending_holds_later_lines)
{
	struct mf_sink k;
	struct manifest *m = sink_manifest(&k);
	struct xattr_list xl = { 0 };
	struct erofs_inode inode;
	uint8_t digest[32];
	size_t h;
	char *text;

	memset(digest, 0xcd, sizeof(digest));
	fill_inode(&inode, 4, 0100600, 3, 2);
	ck_assert_int_eq(manifest_add_pending(m, "a", 1, &inode, &h), 0);
	ck_assert_int_eq(manifest_add(m, "b", 1, 5, false, "x", "-"), 0);
	ck_assert_int_eq(manifest_add_name(m, "c", 1, &inode), 0);
	ck_assert_str_eq(sink_text(&k), "");
	ck_assert(xattr_list_add(&xl, "user.k", 6, "v", 1));
	ck_assert_int_eq(manifest_complete(m, h, &inode, digest, &xl), 0);
	xattr_list_release(&xl);
	ck_assert_str_eq(sink_text(&k),
		"a f 0600 1000 4000000001 3 1650000000.000000111 "
		"cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd"
		" - 2 a user.k=76\n"
		"b x - -\n"
		"c f 0600 1000 4000000001 3 1650000000.000000111 "
		"cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd"
		" - 2 a user.k=76\n");
	ck_assert_int_eq(manifest_complete(m, h, &inode, digest, &xl),
			 -ENOENT);
	text = sink_finish(&k, m);
	free(text);
}
END_TEST

static void fill_inode(struct erofs_inode *inode, uint64_t nid,
		       uint16_t mode, uint64_t size, uint32_t nlink)
{
	memset(inode, 0, sizeof(*inode));
	inode->nid = nid;
	inode->mode = mode;
	inode->size = size;
	inode->nlink = nlink;
	inode->uid = 1000;
	inode->gid = 4000000001u;
	inode->mtime = 1650000000;
	inode->mtime_nsec = 111;
}

START_TEST(test_manifest_inode_fields)
{
	struct mf_sink k;
	struct manifest *m = sink_manifest(&k);
	struct xattr_list xl = { 0 };
	struct erofs_inode inode;
	uint8_t digest[32];
	char *text;

	memset(digest, 0xab, sizeof(digest));
	fill_inode(&inode, 1, 040755, 4096, 5);
	ck_assert(xattr_list_add(&xl, "user.b", 6, "\x01", 1));
	ck_assert(xattr_list_add(&xl, "user.a,=", 8, "", 0));
	ck_assert(xattr_list_add(&xl, "trusted.x", 9, "\0\xff", 2));
	ck_assert_int_eq(manifest_add_inode(m, "", 0, &inode, NULL, &xl), 0);
	xattr_list_release(&xl);

	/* EROFS stores a symlink's own mode; a listing shows 0777 */
	fill_inode(&inode, 2, 0120644, 7, 1);
	inode.mtime = -1;
	inode.mtime_nsec = 500000000;
	ck_assert_int_eq(manifest_add_inode(m, "l", 1, &inode, digest, &xl),
			 0);

	/* char 4095:1048575 in the Linux "new" encoding */
	fill_inode(&inode, 3, 020640, 0, 1);
	inode.rdev = 0xff | 4095u << 8 | (1048575u & ~0xffu) << 12;
	ck_assert_int_eq(manifest_add_inode(m, "c", 1, &inode, NULL, &xl), 0);

	fill_inode(&inode, 4, 0104755, 3, 2);
	ck_assert_int_eq(manifest_add_inode(m, "f", 1, &inode, NULL, &xl), 0);
	ck_assert_int_eq(manifest_add_name(m, "g", 1, &inode), 0);

	fill_inode(&inode, 5, 0140755, 0, 1);
	ck_assert_int_eq(manifest_add_inode(m, "s", 1, &inode, NULL, &xl), 0);

	/* lines come out in the order they go in: the walk's */
	text = sink_finish(&k, m);
	ck_assert_str_eq(text,
		". d 0755 1000 4000000001 - 1650000000.000000111 - - - - "
		"trusted.x=00ff,user.a\\x2c\\x3d=,user.b=01\n"
		"l l 0777 1000 4000000001 7 -1.500000000 "
		"abababababababababababababababababababababababababababababababab"
		" - 1 - -\n"
		"c c 0640 1000 4000000001 0 1650000000.000000111 - "
		"4095:1048575 1 - -\n"
		"f f 4755 1000 4000000001 3 1650000000.000000111 - - 2 f -\n"
		"g f 4755 1000 4000000001 3 1650000000.000000111 - - 2 f -\n"
		"s s 0755 1000 4000000001 0 1650000000.000000111 - - 1 - -\n");
	free(text);
}
END_TEST

/* Field 12 is sorted; the list, which other outputs use, is not. */
START_TEST(test_manifest_sorts_its_own_index)
{
	struct mf_sink k;
	struct manifest *m = sink_manifest(&k);
	struct xattr_list xl = { 0 };
	struct erofs_inode inode;
	char *text;

	fill_inode(&inode, 1, 0100644, 0, 1);
	ck_assert(xattr_list_add(&xl, "user.b", 6, "\x02", 1));
	ck_assert(xattr_list_add(&xl, "user.a", 6, "\x01", 1));
	ck_assert(xattr_list_add(&xl, "user.b", 6, "\x01", 1));
	ck_assert_int_eq(manifest_add_inode(m, "", 0, &inode, NULL, &xl), 0);
	ck_assert_str_eq(xl.items[0].name, "user.b");
	ck_assert_str_eq(xl.items[1].name, "user.a");
	ck_assert(xattr_list_has(&xl, "user.a"));
	ck_assert(!xattr_list_has(&xl, "user.c"));
	xattr_list_release(&xl);
	ck_assert_uint_eq(xl.n, 0);
	text = sink_finish(&k, m);
	/* equal names keep the image's order */
	ck_assert_str_eq(text,
		". f 0644 1000 4000000001 0 1650000000.000000111 - - 1 - "
		"user.a=01,user.b=02,user.b=01\n");
	free(text);
}
END_TEST

UNIT_MAIN("fsck", NULL,
	  { "core",
	    .tests = UNIT_TESTS(test_escape_printable,
				test_escape_special_bytes, test_escape_extra,
				test_hex, test_addf_grows, test_addf_long,
				test_add_num, test_nidmap,
				test_nidset, test_nidset_sparse,
				test_manifest_streams_and_groups,
				test_manifest_pending_holds_later_lines,
				test_manifest_inode_fields,
				test_manifest_sorts_its_own_index) })
