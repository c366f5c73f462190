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

static void takes(const struct select_rules *r, const char *path, bool want)
{
	ck_assert_msg(select_takes(r, path) == want, "%s: %s, want %s", path,
		      want ? "left out" : "taken", want ? "taken" : "left out");
}

/* Each of the words of list, apart by spaces, to fn. */
static void each_word(const char *list, void (*fn)(void *, const char *),
		      void *arg)
{
	char *words = strdup(list), *save = NULL, *w;

	ck_assert_ptr_nonnull(words);
	for (w = strtok_r(words, " ", &save); w; w = strtok_r(NULL, " ", &save))
		fn(arg, w);
	free(words);
}

static void add_word(void *r, const char *word)
{
	ck_assert_int_eq(select_add_pattern(r, word + 1, *word == '-'), 0);
}

static void taken_word(void *r, const char *path)
{
	takes(r, path, true);
}

static void left_word(void *r, const char *path)
{
	takes(r, path, false);
}

/*
 * The rules of pats ("+P" includes P, "-P" excludes it) take every path
 * of taken and none of left; each list's words apart by spaces.
 */
static void rules_take(const char *pats, const char *taken, const char *left)
{
	struct select_rules r = SELECT_RULES_INIT;

	each_word(pats, add_word, &r);
	ck_assert(select_active(&r) == (*pats != '\0'));
	each_word(taken, taken_word, &r);
	each_word(left, left_word, &r);
	select_rules_fini(&r);
}

/* The rules of pats take every path of taken and none of left. */
static const struct rule_case {
	const char *pats, *taken, *left;
} rule_cases[] = {
	/* nothing given takes all */
	{ "", "a d/e/f", "" },
	/* a name without '/' matches any component: the subtree comes too */
	{ "+*.c", "a.c d/e/b.c x.c/inner", "d/e/b.h" },
	/* a pattern with '/' matches the whole path from the start */
	{ "+d/e", "d/e d/e/f/g", "x/d/e d" },
	/* '/' and "./" only anchor a name at the start, as tar users write */
	{ "+/e", "e e/f", "d/e" },
	{ "+./d/e", "d/e/f", "x/d/e" },
	/* a trailing '/' matches directories only: those on the way too */
	{ "-e/", "d/e", "d/e/f" },
	/* '*' never crosses '/'; "**" takes any number of directories */
	{ "+d/*/z", "d/a/z", "d/a/b/z d/z" },
	{ "+d/**/z", "d/z d/a/z d/a/b/c/z", "d/a/b/c/y e/a/z" },
	/* exclude wins over include, and takes the subtree with it */
	{ "+d -d/e", "d/x", "d/e d/e/f other" },
};

START_TEST(test_rules)
{
	const struct rule_case *c = &rule_cases[_i];

	rules_take(c->pats, c->taken, c->left);
}
END_TEST

/* A trailing '/' is for directories, whatever the path says. */
START_TEST(test_trailing_slash_dirs_only)
{
	struct select_rules r = SELECT_RULES_INIT;

	ck_assert_int_eq(select_add_pattern(&r, "e/", true), 0);
	ck_assert(select_excluded(&r, "d/e", "e", true));
	ck_assert(!select_excluded(&r, "d/e", "e", false));
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
	each_word("d/e d/e/below lit*eral abs/x", taken_word, &r);
	each_word("d literal abs/y", left_word, &r);
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
	    .tests = UNIT_TESTS(test_trailing_slash_dirs_only,
				test_patterns_refused, test_files_from_lines,
				test_files_from_null),
	    .loops = UNIT_LOOPS({ test_rules, sizeof(rule_cases) /
						      sizeof(rule_cases[0]) }) })
