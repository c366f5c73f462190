/* SPDX-License-Identifier: MIT */
/*
 * Checking inodes: the walker's visitor, for checking, listing, the
 * manifest and extraction alike.
 *
 * For every inode: the fields the library leaves to the checker, the
 * xattrs, then the data. Every extent of a regular file, directory or
 * symlink is mapped from offset 0 to i_size (the mapping validates the
 * indexes and the device bounds); with --extract, --xattr-inode-digest or
 * --manifest, regular files are also decoded, pcluster by pcluster,
 * strictly. Symlink targets are always read.
 *
 * Directories, symlinks and other inodes are checked (and created) on the
 * walker thread, here (check.c). A regular file is a task on the worker
 * pool (task.h): a worker runs these same checks on it with its own
 * reading context, and the walker takes the results in walk order. With
 * threads, a file worth several pieces of decoding is split into runs of
 * extents, one task each (pieces.h, the plan's arithmetic in split.h);
 * when its content is hashed, its pieces hand their bytes to the hash in
 * file order through an ordered window (window.h). What the checks and
 * the tasks share is in check_internal.h. Fragments are read ahead of the
 * files that need them (readahead.h); cost.h estimates what each task
 * costs.
 */
#ifndef FSCK_CHECK_H
#define FSCK_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "erofs/hash.h"
#include "erofs/image.h"
#include "fsck.h"
#include "nidmap.h"
#include "progress.h"
#include "readahead.h"
#include "report.h"
#include "walk.h"

struct erofs_inode;
struct erofs_pool;
struct android;
struct extractor;
struct manifest;
struct tar_writer;
struct checker;

/* Distinct inodes met, and the bytes of regular files. */
struct fsck_stats {
	uint64_t dirs;
	uint64_t files;
	uint64_t symlinks;
	uint64_t specials;	/* devices, fifos, sockets */
	uint64_t bytes;		/* i_size of regular files */
	uint64_t stored;	/* their stored bytes (no holes, fragments) */
	uint64_t packed_stored;	/* stored bytes of the packed inode */
};

/* What a thread checks with: its context, report and buffer. */
struct fsck_worker {
	struct checker *ck;
	struct erofs_ctx *ctx;
	struct erofs_ctx own;		/* pool workers' context */
	struct report *rep;		/* the current task's report */
	uint8_t *buf;			/* one decoded extent or piece */
	size_t bufsize;
};

struct checker {
	struct erofs_ctx *ctx;		/* the walker's */
	struct report *rep;		/* the main report */
	const struct fsck_cfg *cfg;
	struct manifest *manifest;	/* NULL unless --manifest */
	struct extractor *x;		/* NULL unless --extract=DIR */
	struct tar_writer *tar;		/* NULL unless --tar; set after init */
	FILE *list;			/* --list output, or NULL */
	struct android *android;	/* --fs-config, --file-contexts */
	struct erofs_pool *pool;
	struct readahead ra;		/* of the packed inode */
	struct fsck_worker walker;
	bool decode;			/* file data is decoded */
	bool stopped;			/* a task stopped the run */
	uint64_t split_ns;		/* piece cost target, 0: no split */
	unsigned int splits_open;	/* atomic: split files in flight */
	unsigned int splits_max;

	/*
	 * For -p, in blocks, counted as upstream fsck.erofs does: once per
	 * name, so a file with three names counts three times.
	 */
	uint64_t logical_blocks;
	uint64_t physical_blocks;
	struct nidmap linked;		/* nid -> struct linked_count */
	struct nidmap first_names;	/* --list: nid -> first path */
	uint64_t digests_checked;
	struct fsck_stats stats;
	struct progress_counters pc;	/* atomic */
};

void checker_init(struct checker *ck, struct erofs_ctx *ctx,
		  struct report *rep, const struct fsck_cfg *cfg,
		  struct manifest *manifest, struct extractor *x, FILE *list);
void checker_fini(struct checker *ck);

/* Worker state for the pool (priv is the checker). */
void *checker_worker_init(void *priv, unsigned int index);
void checker_worker_fini(void *priv, void *worker);

/* Use pool for regular files; must be set before the walk. */
void checker_set_pool(struct checker *ck, struct erofs_pool *pool);

/* The visitor to hand to walk_tree(). */
void checker_visitor(struct checker *ck, struct walk_visitor *v);

/*
 * After the walk: wait for every task and print what is pending; count
 * the further names of hard-linked files for -p. Returns the error that
 * stopped a task, or 0.
 */
int checker_finish(struct checker *ck);

/*
 * Check the packed and metabox inodes, which no directory lists: their
 * extents, and with --extract their decoded content. Returns 0 or a
 * negative errno when the check cannot go on. With a fragment cache the
 * packed inode is only mapped here: its extents are decoded as files
 * read them, and check_packed_rest() decodes the others after the walk.
 */
int check_special_inodes(struct checker *ck);

/* After the walk: decode the packed extents that no file's read decoded. */
int check_packed_rest(struct checker *ck);

#endif
