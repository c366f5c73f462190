/* SPDX-License-Identifier: MIT */
/*
 * --compare=DIR: the image's tree (or the subtree of --path or --nid)
 * against a directory tree, as an output (output.h). For every entry:
 * its type, permission bits, owner, size (files and symlinks), mtime at
 * the precision the inode holds (or within --modify-window), device
 * number, symlink target, which names are hard
 * links of one another, the xattrs with --xattrs, and the content of
 * regular files byte by byte (by the workers that decode them, each
 * reading the same range of the file in DIR). Entries only in the image
 * are reported once at the top of what is missing; entries only in DIR
 * are reported after the directory that holds them, where the selection
 * (--include, --exclude, --files-from), if any, would have taken them. Each difference is one line on standard output, "<path>: <what
 * differs>", in walk order at every -j (report_difference()), and sets
 * bit 1 of the exit status.
 *
 * DIR is read, never written, relative to its descriptor: every path is
 * resolved beneath it with symlinks refused at every component
 * (openat2 RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS), so that a symlink in
 * DIR is compared as a symlink and never followed, in or out of DIR.
 * When the start of the walk is not a directory, DIR names the file to
 * compare it with.
 */
#ifndef FSCK_COMPARE_H
#define FSCK_COMPARE_H

#include <stdbool.h>
#include <stdint.h>

#include "output/output.h"
#include "util/report.h"

struct select_rules;

struct compare_opts {
	const char *dir;
	bool xattrs; /* --xattrs: compare them too */
	/*
	 * The selection, or NULL: names only in DIR are then reported in a
	 * directory everything below which is selected (walk.h's
	 * all_below), unless an --exclude matches them.
	 */
	const struct select_rules *rules;
	int64_t modify_window; /* --modify-window=SECONDS, or -1 */
	bool start_is_dir;
};

/*
 * Open DIR and add the comparison to l (wants data, and xattrs with
 * o->xattrs). 0, or a negative errno after reporting it.
 */
int compare_add_output(struct outputs *l, const struct compare_opts *o,
		       struct report *rep);

#endif
