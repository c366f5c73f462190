/* SPDX-License-Identifier: MIT */
/*
 * The scheduler's state for one run, and its start and stop: the worker
 * pool and each worker's set-up, the read-ahead of the packed inode, the
 * files held to follow their data, the queue of results in walk order
 * (order.h) and the budget of split files. The run's checker points at
 * it; everything here is the walker's, but for what says atomic.
 */
#ifndef FSCK_SCHEDULER_H
#define FSCK_SCHEDULER_H

#include <stdbool.h>
#include <stdint.h>

#include "sched/order.h"

struct checker;
struct cost_workers;
struct erofs_image;
struct erofs_pool;
struct readahead;
struct task_hold;

struct sched {
	struct erofs_pool *pool;
	struct erofs_image *img; /* its decoders limited (sched_start()) */
	unsigned int decoders; /* at once, 0: as many as workers */
	struct readahead *ra; /* of the packed inode */
	struct task_hold *held; /* task.c: files held in walk order */
	struct order_queue order; /* results, restored to walk order */
	bool stopped; /* a task stopped the run */
	uint64_t split_ns; /* piece cost target, 0: no split */
	unsigned int splits_open; /* atomic: split files in flight */
	unsigned int splits_max;
};

/*
 * Start w's workers (none: tasks run on the walker) for ck, which points
 * at s from now on, with at most w->decoders of them decoding at once. 0,
 * or a negative errno reported in ck's report.
 */
int sched_start(struct sched *s, struct checker *ck,
		const struct cost_workers *w);

/*
 * After the walk, sweep every leaf of ck's dm-verity tree (check/verity.h:
 * the blocks no read checked) on the workers (on the walker when they
 * take turns to decode), wait for them and report what failed: 0, or a
 * negative errno after reporting.
 */
int sched_verity(struct sched *s, struct checker *ck);

/* After sched_start(), whatever it returned: stop the workers, free. */
void sched_stop(struct sched *s);

#endif
