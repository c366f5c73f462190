/* SPDX-License-Identifier: MIT */
/*
 * The checks of an inode, and the state of a run that every part shares
 * (struct checker).
 *
 * For every inode: the fields the library leaves to the checker, the
 * xattrs, then the data. Every extent of a regular file, directory or
 * symlink is mapped from offset 0 to i_size (the mapping validates the
 * indexes and the device bounds); when data is decoded (--extract, an
 * output that takes data or digests, --xattr-inode-digest), regular files
 * are also decoded, pcluster by pcluster, strictly. Symlink targets are
 * always read.
 *
 * The checks run on the walker (directories, symlinks and the rest, from
 * the visitor, visit.c) and in tasks alike (regular files, from the
 * scheduler, sched/): they know nothing of either. What a check of a
 * file's data reads comes from a struct extent_source, and the bytes it
 * decodes go to the outputs' list (output.h) and to the hash
 * (check_internal.h).
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
#include "output/output.h"
#include "util/nidmap.h"
#include "util/progress.h"
#include "util/report.h"
#include "walk/walk.h"

struct erofs_inode;
struct erofs_map;
struct checker;
struct erofs_pool;
struct sched;
struct verity_check;

/* Distinct inodes met, and the bytes of regular files. */
struct fsck_stats {
	uint64_t dirs;
	uint64_t files;
	uint64_t symlinks;
	uint64_t specials;	/* devices, fifos, sockets */
	uint64_t bytes;		/* i_size of regular files */
	uint64_t stored;	/* their stored bytes (no holes, fragments) */
	uint64_t packed_stored;	/* stored bytes of the packed inode */
	/*
	 * With data decoded: the bytes of the packed inode's encoded
	 * extents, and how many were decoded in all (an extent evicted from
	 * the fragment cache and decoded again counts again).
	 */
	uint64_t packed_encoded;
	uint64_t packed_decoded;
	/* files checked in pieces by several workers (pieces.h) */
	uint64_t split_files;
	uint64_t pieces;
	/* files held to follow their data, in how many batches (task.c) */
	uint64_t held_files;
	uint64_t hold_batches;
	/* prefetch tasks queued before the first held batch (task.c) */
	uint64_t held_readahead;
	/* held files an output had no room for when their turn came */
	uint64_t hold_stalls;
	/* files too small to hand over, checked on the walker (task.c) */
	uint64_t walker_files;
};

/* What a thread checks with: its context, report and buffer. */
struct fsck_worker {
	struct checker *ck;
	struct erofs_ctx *ctx;
	struct erofs_ctx *own;		/* a pool worker's context */
	struct report *rep;		/* the current task's report */
	uint8_t *buf;			/* one decoded extent or piece */
	size_t bufsize;
};

struct checker {
	struct erofs_ctx *ctx;		/* the walker's */
	struct report *rep;		/* the main report */
	const struct fsck_cfg *cfg;
	struct outputs *outs;		/* what the options asked for */
	struct sched *sched; /* sched/scheduler.h: who runs what */
	struct erofs_pool *pool; /* its pool, which a waiting read helps */
	struct verity_check *verity; /* verity.h: blocks that fail, or NULL */
	struct fsck_worker walker;
	bool decode; /* file data is decoded */
	/*
	 * The image-share digests inodes carry are checked: asked for
	 * (--xattr-inode-digest), or data is decoded and the image records
	 * them (--no-xattr-inode-digest: never)
	 */
	bool digests;
	bool salvage; /* --ignore-errors */

	/*
	 * For -p, in blocks, counted as upstream fsck.erofs does: once per
	 * name, so a file with three names counts three times.
	 */
	uint64_t logical_blocks;
	uint64_t physical_blocks;
	struct nidmap linked;		/* nid -> struct linked_count */
	uint64_t digests_checked;
	struct fsck_stats stats;
	struct progress_counters pc;	/* atomic */
};

void checker_init(struct checker *ck, struct erofs_ctx *ctx,
		  struct report *rep, const struct fsck_cfg *cfg,
		  struct outputs *outs);
void checker_fini(struct checker *ck);

/* Worker state for the pool (priv is the checker). */
void *checker_worker_init(void *priv, unsigned int index);
void checker_worker_fini(void *priv, void *worker);

/*
 * Check the packed and metabox inodes, which no directory lists: their
 * extents, and when data is decoded their decoded content. Returns 0 or a
 * negative errno when the check cannot go on. With a fragment cache the
 * packed inode is only mapped here: its extents are decoded as files
 * read them, and check_packed_rest() hands out the others after the walk.
 */
int check_special_inodes(struct checker *ck);

/*
 * After the walk, the packed extents that no file's read decoded (those
 * of files a selection left out, or that failed) are decoded too:
 * check_packed_rest() gives them one by one, in order, for the caller to
 * decode with check_packed_extent(), at once or on a worker; once every
 * one is done, check_packed_report() reports the counts and what stopped
 * the run (pr->ret: the scan's, or what the caller put there).
 */
struct packed_rest {
	uint64_t pos; /* where the scan goes on */
	enum fsck_result ret; /* what stopped it */
	uint64_t encoded; /* bytes of the packed inode's encoded extents */
	uint64_t rest; /* those of them given out */
	uint64_t extents; /* extents given out */
};

bool check_packed_rest(struct checker *ck, struct packed_rest *pr,
		       struct erofs_map *map);
int check_packed_report(struct checker *ck, const struct packed_rest *pr);

/*
 * -p: count the blocks of the further names of hard-linked files, once
 * every task is done.
 */
void check_count_links(struct checker *ck);

#endif
