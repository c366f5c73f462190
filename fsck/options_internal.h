/* SPDX-License-Identifier: MIT */
/*
 * What the command line's files share: options.c parses, options_rules.c
 * holds the result to the rules, options_usage.c tells how to use it.
 */
#ifndef FSCK_OPTIONS_INTERNAL_H
#define FSCK_OPTIONS_INTERNAL_H

struct fsck_cfg;

/* Print "fsck.erofs: MESSAGE" and how to get help; exit FSCK_EXIT_USAGE. */
void usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

void options_print_version(void);
void options_print_help(void);

/*
 * The rules a parsed command line is held to: options that do not go
 * together, values out of range, an output that is an input. A usage
 * error for the first broken.
 */
void options_check(const struct fsck_cfg *cfg);

#endif
