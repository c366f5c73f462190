/* SPDX-License-Identifier: MIT */
/*
 * The command line. A usage error prints its message and exits with
 * FSCK_EXIT_USAGE; an unreadable --files-from exits with
 * FSCK_EXIT_OPERATIONAL, before any image is opened.
 */
#ifndef FSCK_OPTIONS_H
#define FSCK_OPTIONS_H

#define PROG "fsck.erofs"
#define JOBS_MAX 1024 /* -j */

struct fsck_cfg;
struct select_rules;

/* Fill cfg, and rules with --include, --exclude and --files-from. */
void options_parse(struct fsck_cfg *cfg, struct select_rules *rules, int argc,
		   char **argv);

#endif
