/* SPDX-License-Identifier: MIT */
/* Shared helpers of the Check-based unit tests. */
#ifndef EROFS_TEST_UNIT_H
#define EROFS_TEST_UNIT_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

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
