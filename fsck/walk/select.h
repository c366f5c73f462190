/* SPDX-License-Identifier: MIT */
/*
 * Selection (--include, --exclude, --files-from): which entries every
 * consumer of the walk (check, list, manifest, extraction, counts) sees.
 *
 * Paths are relative to the start of the walk (the root, --path or
 * --nid). A pattern is matched with fnmatch(3) and FNM_PATHNAME: one
 * without '/' against each entry's name, so against any component of its
 * path as the walk goes down; one with '/' against the whole path, a
 * leading '/' only anchoring it; a trailing '/' makes it match
 * directories only. A --files-from line is a path, taken literally.
 *
 * An entry is excluded when an --exclude pattern matches it: a directory
 * is then not walked at all. It is selected when nothing is included, or
 * when it or a directory above it matches an --include pattern or is
 * named by --files-from; exclude wins. The start is always selected. A
 * directory that may lead to a selected entry is walked, and handed to
 * the consumers, with its own metadata, just before the first selected
 * entry below it, never when nothing below it is selected. One whose
 * children come after siblings extending its name ("a" beside "a.c",
 * walk.h) must be handed on at its place, for paths to stay in order: its
 * subtree is walked ahead (walk_tree(), its problems left for the walk to
 * report) to know whether it leads to a match. A directory that cannot
 * lead to one is not walked.
 *
 * Of a hard-linked inode, the first selected name carries its data.
 */
#ifndef FSCK_SELECT_H
#define FSCK_SELECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/report.h"
#include "walk/nidset.h"
#include "walk/walk.h"

struct erofs_ctx;
struct select_pattern;

/*
 * How much of a path or pattern anchors it at the start: '/' and "./",
 * as tar users write (--include=./etc, --cat=./etc/passwd).
 */
size_t select_anchor(const char *pat);
struct select_name;
struct select_dir;

struct select_rules {
	struct select_pattern *pats; /* --include and --exclude */
	size_t npats;
	size_t nincludes;
	struct select_name *names; /* --files-from, sorted */
	size_t nnames;
	bool listed; /* --files-from was given */
	bool whole; /* --files-from named the start */
};

/* An empty rule set: selects everything. */
#define SELECT_RULES_INIT \
	{                 \
		0         \
	}

/*
 * Add an --include (exclude false) or --exclude pattern. 0, -EINVAL for
 * a pattern that can match nothing, or -ENOMEM.
 */
int select_add_pattern(struct select_rules *r, const char *pat, bool exclude);

/*
 * Read --files-from FILE ("-": standard input), one path a line, or with
 * nul (--null) one path before each NUL byte. 0 or a negative errno;
 * *line is the line at fault for -EINVAL (a NUL byte in a line).
 */
int select_read_names(struct select_rules *r, const char *file, bool nul,
		      unsigned long *line);

/*
 * Whether an --exclude pattern matches an entry at rel (relative to the
 * start; name its last component), which need not be in the image.
 */
bool select_excluded(const struct select_rules *r, const char *rel,
		     const char *name, bool dir);

/*
 * --cat=PATH: PATH selected as a --files-from line is, and named so when
 * it is not in the image. 0 or -ENOMEM.
 */
int select_add_cat(struct select_rules *r, const char *path);

/*
 * Would the rules take the entry at path (relative to the start), by
 * name: its directories and itself not excluded, and it or one of them
 * included or named? (What the image holds is not looked at.)
 */
bool select_takes(const struct select_rules *r, const char *path);

/* Whether any rule was given. */
bool select_active(const struct select_rules *r);

void select_rules_fini(struct select_rules *r);

/* The filter between the walker and a visitor. */
struct selector {
	struct select_rules *rules;
	struct erofs_ctx *ctx; /* the walker's */
	struct walk_visitor inner;
	struct nidset emitted; /* non-directories handed on */
	struct nidmap probed; /* nid -> what a walk ahead learnt */
	struct select_dir *dirs; /* walked directories not done */
	uint64_t entries; /* entries handed on */
};

/*
 * Make v, the visitor to give walk_tree(), filtering what goes to inner;
 * ctx is the walker's, to walk ahead.
 */
void select_start(struct selector *s, struct select_rules *r,
		  struct erofs_ctx *ctx, const struct walk_visitor *inner,
		  struct walk_visitor *v);

/*
 * After a walk that went to its end: report each --files-from path that
 * it did not meet (an operational failure, exit status 8), under base,
 * the start's path in the image. 0 or -ENOMEM.
 */
int select_report_missing(const struct selector *s, struct report *rep,
			  const char *base);

void select_fini(struct selector *s);

#endif
