/* SPDX-License-Identifier: MIT */
/*
 * The tree walker: visits every inode reachable from a start inode, depth
 * first, with an explicit stack (never recursion on image data), and checks
 * the tree itself (format.md, "Directory blocks", "Tree"):
 *
 * - every directory is reached once: a directory nid seen again (a cycle or
 *   a hard-linked directory) is reported and not descended;
 * - nesting is bounded by opts->max_depth;
 * - each dirent's file type matches the target inode's mode;
 * - no dirent refers to the packed or the metabox inode;
 * - directory link counts are 1 or 2 + subdirectories;
 * - references to each non-directory are counted and, after the walk,
 *   compared with its link count.
 *
 * Children are visited in the byte order of their paths: directory order
 * (names sorted), except that a directory followed by names extending its
 * own with a byte below '/' ("a", "a-b", "a.c") has its entry callback at
 * its name and its children after those names ("a/x" sorts after "a.c").
 *
 * Memory: the entries of the directories on the current path, a bit per
 * visited inode (nidset.h), and a record per hard-linked inode (and per
 * one-link inode met twice) with the path that names it in a report.
 *
 * The walk stops with -EINTR, between two entries, once a signal has
 * interrupted the run (interrupt.h).
 *
 * A directory whose blocks are corrupt is reported; its entries read before
 * the bad block are still visited, and the walk goes on with the rest of the
 * tree.
 *
 * What to do with each inode is up to a visitor: "entry" is called before a
 * directory's children (pre-order), possibly with some of its siblings in
 * between (the order above), and "dir_done" after them (post-order).
 * The visitor may keep a state per directory, handed to its children as
 * their parent context: this is where extraction keeps a directory fd and
 * the deferred metadata of the directory.
 */
#ifndef FSCK_WALK_H
#define FSCK_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/report.h"

struct erofs_ctx;
struct erofs_inode;

#define WALK_MAX_DEPTH 4096

/*
 * Returned by the entry callback: visit the directory but not its
 * children. Link counts are then not checked against references too few:
 * the children may hold some.
 */
#define WALK_SKIP 1

struct walk_entry {
	/*
	 * Path from the image root (or from the start inode when only its
	 * nid is known), without a leading '/': "" for the root. Valid only
	 * during the callback.
	 */
	const char *path;
	size_t pathlen;
	/* The same path relative to the start inode: "" for the start. */
	const char *rel;
	size_t rellen;
	const char *name;	/* last component, "" for the start */
	size_t namelen;

	uint64_t nid;
	const struct erofs_inode *inode;
	uint64_t parent_nid;	/* opts->start_parent for the start */
	void *parent;		/* visitor state of the parent, NULL at start */
	unsigned int depth;	/* 0 for the start */
	bool first;		/* first reference to this nid (hard links) */
	/* a directory whose children come after siblings (order above) */
	bool later;
	/*
	 * Under a selection (select.h), a directory every entry below which
	 * is selected but for excludes; false without one.
	 */
	bool all_below;
};

struct walk_visitor {
	/*
	 * Pre-order, for every inode reached. For a directory, *dir_state
	 * (NULL on entry) becomes the parent context of its children and is
	 * handed to dir_done. Return 0, WALK_SKIP, or a negative errno to
	 * stop the walk (an operational error: the walker returns it).
	 */
	int (*entry)(void *arg, const struct walk_entry *e, void **dir_state);
	/* Post-order, after all children of a directory; may be NULL. */
	int (*dir_done)(void *arg, const struct walk_entry *e, void *dir_state);
	void *arg;
};

struct walk_opts {
	uint64_t start_nid;
	const char *base;	/* path of the start in the image, "" if root */
	uint64_t start_parent;	/* nid '..' of the start must name, or
				   EROFS_NO_NID when unknown */
	bool whole_tree;	/* started at the root: link counts complete */
	unsigned int max_depth;
};

struct walk_stats {
	uint64_t dirs;
	uint64_t others;	/* non-directory inodes (distinct nids) */
	uint64_t entries;	/* directory entries followed */
};

/*
 * Walk the tree. Problems of the image go to rep; the return value is 0, or
 * a negative errno when the walk had to stop (already reported).
 */
int walk_tree(struct erofs_ctx *ctx, struct report *rep,
	      const struct walk_opts *opts, const struct walk_visitor *v,
	      struct walk_stats *stats);

#endif
