/* SPDX-License-Identifier: MIT */
/*
 * The life cycle of a regular file, from its first name met by the walker
 * to its results taken in walk order, whether a worker checks it whole or
 * its pieces are split among workers (pieces.h):
 *
 * 1. begin (walker, walk order): its fragment is read ahead
 *    (readahead.h), it is planned whole or split, the outputs get its
 *    entry (output.h) and the task is queued, the outputs told of it
 *    (file_queue); a file whose data lies in the packed inode is held
 *    and queued later, in the order of its data (task.c);
 * 2. open (file_task_open(), on the thread that starts its data: a
 *    worker, or the walker for a split file): its xattrs are checked, the
 *    outputs open it, the digest to verify is known;
 * 3. data: check_file() for a whole file, check_range() per piece;
 * 4. end (file_task_close(), on whichever thread finishes the data): the
 *    digest, the outputs' file_end with the data's result, running out of
 *    memory reported; the caller then marks its slot done (order.h);
 * 5. done (walker, walk order, when its slot is taken from the queue of
 *    results): the outputs' file_done and the statistics.
 *
 * Steps 1 and 5, and the queueing, are task.h's; the pieces are
 * pieces.h's; steps 2 and 4 are here, for both.
 */
#ifndef FSCK_FILE_H
#define FSCK_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "erofs/hash.h"
#include "erofs/inode.h"
#include "output/output.h"
#include "result.h"
#include "sched/order.h"
#include "util/report.h"
#include "util/xattr_list.h"

struct checker;
struct fsck_loc;
struct fsck_worker;
struct split_file;

/* A regular file, checked (and written) by a worker. */
struct file_task {
	/* first: the queue of results hands it back (task_drain()) */
	struct order_slot slot; /* its place in walk order, its report */
	struct checker *ck;
	struct erofs_inode inode;
	struct out_files files; /* the outputs' states of it */
	struct split_file *split; /* its pieces, until queued (task.c) */
	bool start; /* the start of the walk */
	bool started; /* the task ran (or was skipped) */
	bool skipped; /* the run had stopped */
	/* open: what the data check needs */
	bool hash; /* its content is hashed */
	bool verify; /* against expected */
	uint8_t expected[EROFS_SHA256_LEN];
	/* results */
	bool data_ok;
	bool xattrs_ok;
	bool have_digest;
	uint8_t digest[EROFS_SHA256_LEN];
	struct xattr_list xl;
	uint64_t physical;
	bool digest_checked;
	bool salvaged; /* out_file's */
	size_t pathlen, rellen, namelen;
	char path[]; /* in the image, NUL-terminated */
};

/* What the outputs are told of t, reporting into rep. */
void file_task_out(const struct file_task *t, struct report *rep,
		   const struct fsck_loc *loc, struct out_file *of);

/*
 * Step 2, with w reporting into t->slot.rep: FSCK_OK or FSCK_REPORTED when
 * the data is to be checked, otherwise what stops it.
 */
enum fsck_result file_task_open(struct fsck_worker *w, struct file_task *t,
				const struct fsck_loc *loc);

/*
 * Step 4: data is the data check's result; sha the content's hash when
 * it was hashed whole, else NULL; skipped when the run stopped before the
 * data was checked. The file's result. The caller then marks the slot
 * done (order_done()), after which t is the walker's.
 */
enum fsck_result file_task_close(struct file_task *t, enum fsck_result data,
				 struct erofs_sha256 *sha, bool skipped);

#endif
