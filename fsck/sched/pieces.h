/* SPDX-License-Identifier: MIT */
/*
 * A regular file split into pieces for the worker pool (the arithmetic of
 * the plan is split.h's): the walker opens the file (file.h: xattrs, the
 * outputs open it; split files are created on the walker) and checks the
 * index, maps it once to cut it at extent starts, and queues one task per
 * piece with the maps of its extents (the pieces' extent source,
 * check_internal.h); pieces decode their extents with their worker's
 * context and hand the bytes to the outputs. Of the pieces that fail,
 * only the one at the lowest offset is reported: the whole-file check
 * stops at its first problem, which is that one. Whoever drops the last
 * reference (a piece, or the walker) closes the file (file.h) and marks
 * its report slot done.
 *
 * When the content is hashed (--manifest, a digest to verify), each piece
 * keeps its decoded bytes, up to a bound, and the ordered window (window.h)
 * hands them to the hash in file order; past the bound, a piece waits for
 * its turn and hashes its bytes itself as they come.
 */
#ifndef FSCK_PIECES_H
#define FSCK_PIECES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "result.h"

struct checker;
struct erofs_inode;
struct file_task;
struct fsck_loc;
struct split_file;

/* Is the file worth splitting (only with threads)? */
bool pieces_worth(const struct checker *ck, const struct erofs_inode *inode);

struct split_file *split_new(struct file_task *t);
/* Before split_submit(), when the task is not submitted after all. */
void split_free(struct split_file *s);

/*
 * The file's task starts: the walker's part, then the pieces. FSCK_OK or
 * FSCK_REPORTED when the run goes on; otherwise the run is cancelled.
 */
enum fsck_result split_submit(struct checker *ck, struct split_file *s,
			      const struct fsck_loc *loc);

#endif
