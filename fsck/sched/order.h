/* SPDX-License-Identifier: MIT */
/*
 * The ordered-completion queue: the one place where walk order is
 * restored for the results of work done on other threads.
 *
 * The walker queues a unit of work (a regular file's task, a packed extent
 * left over after the walk) when it hands the work out, so that units sit
 * in walk order. The unit reports into its slot's own report; the thread
 * that ends it marks it done as its very last action. The walker takes
 * the done units from the head, in order: each one's messages are printed
 * then, followed by what the walker itself reported after queueing it,
 * and its counters folded into the main report, so that the output is the
 * same whatever the number of threads. The walker is the only thread that
 * waits here, and nothing here calls back into its caller: order_take()
 * hands the unit back for the caller to complete.
 */
#ifndef FSCK_ORDER_H
#define FSCK_ORDER_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/report.h"

/* What the taker does with a unit once its messages are printed. */
enum order_kind {
	ORDER_FILE, /* a struct file_task: complete it (task.c) */
	ORDER_FREE, /* nothing but free it: the slot begins its memory */
};

struct order_slot {
	struct order_slot *next;
	enum order_kind kind;
	int done; /* atomic: the unit has ended */
	struct report rep; /* the unit's messages and counters */
	struct report_slot msgs;
	struct report_slot after; /* the walker's, reported after it */
};

struct order_queue {
	struct report *rep; /* the main report */
	struct order_slot *head, *tail;
	size_t pending; /* units queued, not taken yet */
	uint64_t ended; /* units marked done, for waiters */
	bool threaded; /* units end on other threads */
	pthread_t walker; /* order_init()'s thread */
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

/* On the walker, which alone queues, takes and waits. */
void order_init(struct order_queue *q, struct report *rep);
void order_fini(struct order_queue *q);

/* Units will end on worker threads (there are some). */
void order_set_threaded(struct order_queue *q, bool threaded);

/*
 * Walker: queue s behind everything queued and reported so far; the
 * unit's report is s->rep from now on.
 */
void order_add(struct order_queue *q, struct order_slot *s,
	       enum order_kind kind);

/* Any thread: the unit of s has ended; s is the walker's from now on. */
void order_done(struct order_queue *q, struct order_slot *s);

/*
 * Walker: the oldest unit if it has ended, its messages printed and its
 * counters folded into the main report, or NULL. An ORDER_FREE unit is
 * freed here and never handed back.
 */
struct order_slot *order_take(struct order_queue *q);

/* Walker: wait until the oldest unit has ended (none queued: return). */
void order_wait_head(struct order_queue *q);

/*
 * Walker: the count of units ended so far, and a wait until it passes
 * seen. A caller that waits for a condition that ending units make true
 * reads the count first, then tests its condition, then waits.
 */
uint64_t order_ended(struct order_queue *q);
void order_wait_ended(struct order_queue *q, uint64_t seen);

#endif
