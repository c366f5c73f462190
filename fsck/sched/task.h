/* SPDX-License-Identifier: MIT */
/*
 * The tasks of regular files on the worker pool: steps 1 and 5 of a
 * file's life cycle (file.h). The walker reads a file's fragment ahead
 * (readahead.h), plans it whole or split (pieces.h), hands its entry to
 * the outputs and queues its task; a worker runs a whole file's task
 * (open, check_file(), close); the walker takes the results in walk order
 * from the queue of results (order.h). The walker waits for the oldest
 * task when too many are pending, which bounds the memory of finished
 * ones.
 */
#ifndef FSCK_TASK_H
#define FSCK_TASK_H

#include <stdbool.h>

#include "result.h"

struct checker;
struct fsck_loc;
struct walk_entry;

/* The first name of a regular file: queue its task. */
enum fsck_result task_submit_file(struct checker *ck,
				  const struct walk_entry *e,
				  const struct fsck_loc *loc);

/*
 * Files whose data lies in the packed inode are held and queued in the
 * order of their fragments when the data is decoded: make room for them.
 * 0 or -ENOMEM.
 */
int task_hold_init(struct checker *ck);

/*
 * Queue the files held to be queued in the order of their fragments (the
 * walk ends, or waits for a task that may be one of them).
 */
void task_release(struct checker *ck);

/*
 * Hand over every task queued so far, held ones included, before the
 * walker waits for one.
 */
void task_flush(struct checker *ck);

/* Take the results of the tasks done, in walk order (order.h). */
void task_drain(struct checker *ck);

/*
 * Wait for the oldest pending task and take what is ready; false when
 * none is pending.
 */
bool task_throttle(struct checker *ck);

/*
 * Before the outputs take an entry: hand out work and take what has ended
 * until every output has room for it (output.h), or nothing is pending.
 */
void task_wait_output_room(struct checker *ck);

/*
 * Before a task's report slot is queued: wait until fewer tasks than
 * allowed are pending, which bounds the memory of those done and not
 * printed yet.
 */
void task_wait_room(struct checker *ck);

#endif
