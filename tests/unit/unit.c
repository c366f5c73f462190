// SPDX-License-Identifier: MIT
/* The one runner of the Check-based unit tests (unit.h). */
#include "unit.h"

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
