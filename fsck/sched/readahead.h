/* SPDX-License-Identifier: MIT */
/*
 * Read-ahead of the packed inode, for the worker pool.
 *
 * Files whose data (or tail) is a fragment read it from the packed inode,
 * whose extents the fragment cache decodes once for every reader. Left to
 * the readers, an extent is decoded by the first file that needs it while
 * the files after it wait. The walker instead queues, as it queues each
 * such file (task.c queues them in the order of their fragments) and
 * before the file's own task, prefetch tasks for the packed extents from
 * that file's fragment up to a window ahead of it, in offset order, so
 * that the pool decodes the next extents concurrently while earlier files
 * copy out of the ones already decoded. Prefetches go ahead of the
 * queued files (erofs_pool_submit_ahead): a worker decodes what is still
 * to decode before it takes files, which would otherwise wait for the
 * extent another worker is decoding. The window is at most 3/8
 * of the cache's budget, so that what is decoded ahead stays cached until
 * its files read it, and so do extents that later files read again. A
 * prefetch never reports: an extent that fails stays in the cache as
 * failed and the files that read it report it, as they would without
 * read-ahead.
 */
#ifndef FSCK_READAHEAD_H
#define FSCK_READAHEAD_H

#include <stdbool.h>
#include <stdint.h>

struct erofs_ctx;
struct erofs_inode;
struct erofs_pool;
struct fsck_loc;
struct report;

struct readahead {
	struct erofs_ctx *ctx; /* the walker's */
	struct erofs_pool *pool;
	uint64_t window; /* bytes queued ahead; 0: off */
	uint64_t next; /* packed offset not yet queued */
	uint64_t last_la; /* where the extent queued last begins */
	uint64_t queued; /* prefetch tasks queued, for -d7 */
	uint64_t kept_la, kept_end; /* the extent last kept for a file */
};

/*
 * The window: EROFS_FSCK_READAHEAD (bytes, 0 for none) or 3/8 of the
 * cache budget, never more than that. Read-ahead is off without threads or
 * without a fragment cache.
 */
void readahead_init(struct readahead *ra, struct erofs_ctx *ctx,
		    struct erofs_pool *pool);

/*
 * Does inode read (part of) its data from the packed inode? Where, and how
 * many bytes.
 */
bool readahead_fragment(const struct erofs_inode *inode, uint64_t *off,
			uint64_t *len);

/*
 * The walker meets inode, at loc: queue the packed extents from its
 * fragment to the window past it; those of its fragment that read-ahead
 * passed already are kept cached for it, or queued again if they were
 * evicted. A read error while mapping them is reported at loc into rep.
 * 0, or the errno that stops the run.
 */
int readahead_file(struct readahead *ra, const struct erofs_inode *inode,
		   struct report *rep, const struct fsck_loc *loc);

/*
 * As readahead_file(), for inode that cannot be queued yet: an output
 * has no room for it until files before it are done (the archive's
 * window). The walker then waits while the workers drain what it queued
 * before; read-ahead takes the extent that begins within the window too,
 * which they decode meanwhile rather than wait for the extent another
 * decodes.
 */
int readahead_stalled(struct readahead *ra, const struct erofs_inode *inode,
		      struct report *rep, const struct fsck_loc *loc);

/*
 * Does read-ahead for a file whose data in the packed inode ends at end
 * queue the extent [la, la + llen)? Those the file reads; the first one
 * past end (unless one that begins at end or later is queued already:
 * next_queued), whatever its length, so that a second worker decodes it
 * while the first decodes the file's; then whole extents within the
 * window past end; stalled, also the one that begins within it. No
 * window: nothing past the file. With the default window, what is
 * decoded ahead of the file still fits in the window's share of the
 * cache: an extent cached is at most a quarter of its budget.
 */
bool readahead_reaches(uint64_t window, uint64_t la, uint64_t llen,
		       uint64_t end, bool next_queued, bool stalled);

#endif
