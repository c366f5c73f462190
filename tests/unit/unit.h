/* SPDX-License-Identifier: MIT */
/* Shared helpers of the Check-based unit tests. */
#ifndef EROFS_TEST_UNIT_H
#define EROFS_TEST_UNIT_H

#include <check.h>
#include <stdlib.h>

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
