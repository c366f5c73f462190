/* SPDX-License-Identifier: MIT */
/*
 * Android metadata of the entries walked, the two text files mkfs.erofs
 * takes to rebuild a partition from a tree extracted without privilege
 * (--fs-config-file, --file-contexts), written in walk order:
 *
 * - fs_config (--fs-config=FILE), one line per entry:
 *   "PATH UID GID MODE capabilities=0xCAPS", MODE the permission bits in
 *   octal, CAPS the permitted set of security.capability (0 without
 *   one). PATH is relative, without a leading '/': the --mount-point
 *   prefix, then the path from the start of the walk; the start itself is
 *   "/", the name mkfs.erofs looks the root up by.
 * - file_contexts (--file-contexts=FILE), one line per entry with a
 *   security.selinux label: "PATH LABEL", PATH absolute with the prefix
 *   (the start is the prefix itself), its regular expression
 *   metacharacters escaped so that it matches only itself (file_contexts
 *   expressions are matched whole).
 *
 * A path with white space, which neither format can hold, is left out and
 * reported (exit status 8).
 */
#ifndef FSCK_ANDROID_H
#define FSCK_ANDROID_H

#include "output/output.h"
#include "util/report.h"
#include "walk/walk.h"

struct erofs_ctx;
struct android;

struct android_opts {
	const char *fs_config; /* file to write, or NULL */
	const char *file_contexts; /* file to write, or NULL */
	const char *mount_point; /* NULL: "/" */
};

/* Create the files. 0, or a negative errno after reporting it. */
int android_open(struct android **out, const struct android_opts *o,
		 struct report *rep);

/*
 * The lines of an entry; its xattrs are read with ctx. 0, or a negative
 * errno that stops the run (reported).
 */
int android_entry(struct android *a, struct erofs_ctx *ctx,
		  const struct walk_entry *e, const struct fsck_loc *loc);

/* Flush and close; 0, or a negative errno after reporting it. */
int android_close(struct android *a);

/* The output: open with android_open(), added with no wants. */
extern const struct output_ops android_output;

#endif
