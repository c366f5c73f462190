// SPDX-License-Identifier: MIT
/* What the Check-based unit tests share (unit.h): the runner, patched copies. */
#include <fcntl.h>
#include <string.h>

#include "unit.h"

void unit_put_super(uint8_t *image, uint32_t blocks, uint32_t meta_blkaddr,
		    uint32_t incompat)
{
	uint8_t *sb = image + EROFS_SUPER_OFFSET;

	erofs_put32(sb + EROFS_SB_MAGIC, EROFS_SUPER_MAGIC);
	sb[EROFS_SB_BLKSZBITS] = 12;
	erofs_put64(sb + EROFS_SB_INOS, 3);
	erofs_put32(sb + EROFS_SB_BLOCKS_LO, blocks);
	erofs_put32(sb + EROFS_SB_META_BLKADDR, meta_blkaddr);
	erofs_put32(sb + EROFS_SB_FEATURE_INCOMPAT, incompat);
}

void unit_put_root_dir(uint8_t *inode)
{
	erofs_put16(inode + EROFS_IC_FORMAT, EROFS_INODE_FLAT_INLINE << 1);
	erofs_put16(inode + EROFS_IC_MODE, 0040755);
	erofs_put16(inode + EROFS_IC_NB, 2);
	erofs_put32(inode + EROFS_IC_SIZE, 2 * EROFS_DIRENT_SIZE + 3);
	erofs_put32(inode + EROFS_IC_U, UINT32_MAX);
	erofs_put32(inode + EROFS_IC_INO, 1);
	/* "." and "..", both the root itself */
	inode[32 + EROFS_DIRENT_FILE_TYPE] = EROFS_FT_DIR;
	erofs_put16(inode + 32 + EROFS_DIRENT_NAMEOFF, 24);
	inode[44 + EROFS_DIRENT_FILE_TYPE] = EROFS_FT_DIR;
	erofs_put16(inode + 44 + EROFS_DIRENT_NAMEOFF, 25);
	memcpy(inode + 32 + 24, "...", 3);
}

void unit_put_flat_file(uint8_t *inode, uint32_t size, uint32_t blkaddr,
			uint32_t ino)
{
	erofs_put16(inode + EROFS_IC_FORMAT, EROFS_INODE_FLAT_PLAIN << 1);
	erofs_put16(inode + EROFS_IC_MODE, 0100644);
	erofs_put16(inode + EROFS_IC_NB, 1);
	erofs_put32(inode + EROFS_IC_SIZE, size);
	erofs_put32(inode + EROFS_IC_U, blkaddr);
	erofs_put32(inode + EROFS_IC_INO, ino);
}

void unit_open_patched(struct unit_image *f, const char *src, uint64_t off,
		       const void *bytes, size_t len)
{
	char buf[65536];
	int in = open(src, O_RDONLY), out;
	ssize_t n;

	snprintf(f->path, sizeof(f->path), "/tmp/erofs-unit-XXXXXX");
	out = mkstemp(f->path);
	ck_assert_int_ge(in, 0);
	ck_assert_int_ge(out, 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		ck_assert_int_eq(write(out, buf, n), n);
	ck_assert_int_eq(pwrite(out, bytes, len, off), (ssize_t)len);
	close(in);
	close(out);
	unit_image_open_at(f, f->path);
}

void unit_close_patched(struct unit_image *f)
{
	unit_image_close_at(f);
	unlink(f->path);
}

static TCase *unit_tcase(const struct unit_case *c)
{
	TCase *tc = tcase_create(c->name);
	const struct unit_loop *loop;
	const TTest *const *test;

	if (c->setup || c->teardown)
		tcase_add_checked_fixture(tc, c->setup, c->teardown);
	if (c->once)
		tcase_add_unchecked_fixture(tc, c->once, NULL);
	if (c->timeout)
		tcase_set_timeout(tc, c->timeout);
	for (test = c->tests; test && *test; test++)
		tcase_add_test(tc, *test);
	for (loop = c->loops; loop && loop->test; loop++)
		tcase_add_loop_test(tc, loop->test, 0, loop->count);
	return tc;
}

int unit_main(const char *name, const struct unit_case *cases)
{
	Suite *suite = suite_create(name);
	SRunner *runner;
	int failed;

	for (; cases->name; cases++)
		suite_add_tcase(suite, unit_tcase(cases));
	runner = srunner_create(suite);
	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
