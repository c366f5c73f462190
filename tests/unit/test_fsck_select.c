// SPDX-License-Identifier: MIT
/*
 * Selection rules (fsck/walk/select.c) by name, without an image: every
 * pattern rule (a name against each component, a path against the whole,
 * anchors '/' and "./", a trailing '/', '*' within a component, "**"
 * across them, exclude winning) and --files-from lines.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "unit.h"
#include "walk/select.h"

static void add(struct select_rules *r, const char *pat, bool exclude)
{
	ck_assert_int_eq(select_add_pattern(r, pat, exclude), 0);
}

static void takes(const struct select_rules *r, const char *path, bool want)
{
	ck_assert_msg(select_takes(r, path) == want, "%s: %s, want %s", path,
		      want ? "left out" : "taken", want ? "taken" : "left out");
}

START_TEST(test_nothing_given_takes_all)
{
	struct select_rules r = SELECT_RULES_INIT;

	ck_assert(!select_active(&r));
	takes(&r, "a", true);
	takes(&r, "d/e/f", true);
	select_rules_fini(&r);
}
END_TEST

/* A name without '/' matches any component: the subtree comes too. */
START_TEST(test_name_any_component)
{
	struct select_rules r = SELECT_RULES_INIT;

	add(&r, "*.c", false);
	ck_assert(select_active(&r));
	takes(&r, "a.c", true);
	takes(&r, "d/e/b.c", true);
	takes(&r, "d/e/b.h", false);
	takes(&r, "x.c/inner", true);
	select_rules_fini(&r);
}
END_TEST

/* A pattern with '/' matches the whole path from the start. */
START_TEST(test_path_from_start)
{
	struct select_rules r = SELECT_RULES_INIT;

	add(&r, "d/e", false);
	takes(&r, "d/e", true);
	takes(&r, "d/e/f/g", true);
	takes(&r, "x/d/e", false);
	takes(&r, "d", false);
	select_rules_fini(&r);
}
END_TEST

/* '/' and "./" only anchor a name at the start, as tar users write. */
START_TEST(test_anchors)
{
	struct select_rules r = SELECT_RULES_INIT;
	struct select_rules dot = SELECT_RULES_INIT;

	add(&r, "/e", false);
	takes(&r, "e", true);
	takes(&r, "e/f", true);
	takes(&r, "d/e", false);
	add(&dot, "./d/e", false);
	takes(&dot, "d/e/f", true);
	takes(&dot, "x/d/e", false);
	select_rules_fini(&r);
	select_rules_fini(&dot);
}
END_TEST

/* A trailing '/' matches directories only. */
START_TEST(test_trailing_slash_dirs_only)
{
	struct select_rules r = SELECT_RULES_INIT;

	add(&r, "e/", true);
	ck_assert(select_excluded(&r, "d/e", "e", true));
	ck_assert(!select_excluded(&r, "d/e", "e", false));
	/* a directory on the way is a directory */
	takes(&r, "d/e/f", false);
	takes(&r, "d/e", true);
	select_rules_fini(&r);
}
END_TEST

/* '*' never crosses '/'; "**" takes any number of directories. */
START_TEST(test_star_and_globstar)
{
	struct select_rules star = SELECT_RULES_INIT;
	struct select_rules globstar = SELECT_RULES_INIT;

	add(&star, "d/*/z", false);
	takes(&star, "d/a/z", true);
	takes(&star, "d/a/b/z", false);
	takes(&star, "d/z", false);
	add(&globstar, "d/**/z", false);
	takes(&globstar, "d/z", true);
	takes(&globstar, "d/a/z", true);
	takes(&globstar, "d/a/b/c/z", true);
	takes(&globstar, "d/a/b/c/y", false);
	takes(&globstar, "e/a/z", false);
	select_rules_fini(&star);
	select_rules_fini(&globstar);
}
END_TEST

/* Exclude wins over include, and takes the subtree with it. */
START_TEST(test_exclude_wins)
{
	struct select_rules r = SELECT_RULES_INIT;

	add(&r, "d", false);
	add(&r, "d/e", true);
	takes(&r, "d/x", true);
	takes(&r, "d/e", false);
	takes(&r, "d/e/f", false);
	takes(&r, "other", false);
	select_rules_fini(&r);
}
END_TEST

START_TEST(test_patterns_refused)
{
	struct select_rules r = SELECT_RULES_INIT;

	ck_assert_int_eq(select_add_pattern(&r, "", false), -EINVAL);
	ck_assert_int_eq(select_add_pattern(&r, "/", false), -EINVAL);
	ck_assert_int_eq(select_add_pattern(&r, "./", true), -EINVAL);
	ck_assert_int_eq(select_add_pattern(&r, "[a", false), 0);
	select_rules_fini(&r);
}
END_TEST

/* --files-from lines: literal paths, "." and empty components dropped. */
START_TEST(test_files_from_lines)
{
	struct select_rules r = SELECT_RULES_INIT;
	char path[] = "/tmp/test_select.XXXXXX";
	unsigned long line;
	int fd = mkstemp(path);
	FILE *f;

	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	fputs("./d//e\nlit*eral\n/abs/x/\n", f);
	fclose(f);
	ck_assert_int_eq(select_read_names(&r, path, false, &line), 0);
	unlink(path);
	ck_assert(select_active(&r));
	takes(&r, "d/e", true);
	takes(&r, "d/e/below", true);
	takes(&r, "d", false);
	takes(&r, "lit*eral", true);
	takes(&r, "literal", false);
	takes(&r, "abs/x", true);
	takes(&r, "abs/y", false);
	select_rules_fini(&r);
}
END_TEST

/* With --null, a line is what comes before each NUL, newlines and all. */
START_TEST(test_files_from_null)
{
	struct select_rules r = SELECT_RULES_INIT;
	char path[] = "/tmp/test_select.XXXXXX";
	static const char names[] = "a\nb\0c d\0";
	unsigned long line;
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, names, sizeof(names) - 1),
			 (ssize_t)sizeof(names) - 1);
	close(fd);
	ck_assert_int_eq(select_read_names(&r, path, true, &line), 0);
	unlink(path);
	takes(&r, "a\nb", true);
	takes(&r, "c d", true);
	takes(&r, "a", false);
	select_rules_fini(&r);
}
END_TEST

UNIT_MAIN("select", NULL,
	  { "rules",
	    .tests = UNIT_TESTS(test_nothing_given_takes_all,
				test_name_any_component, test_path_from_start,
				test_anchors, test_trailing_slash_dirs_only,
				test_star_and_globstar, test_exclude_wins,
				test_patterns_refused, test_files_from_lines,
				test_files_from_null) })
