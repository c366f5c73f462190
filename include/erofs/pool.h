/* SPDX-License-Identifier: MIT */
/*
 * The worker pool. Tasks carry an estimated cost; the submitter packs them
 * into batches worth at least batch_cost nanoseconds and hands a whole batch
 * over with one lock round-trip. The queue holds a bounded number of
 * batches: a submitter that runs ahead waits (back-pressure), so memory
 * stays flat whatever the image size.
 *
 * With zero threads the pool runs every task inline, in the submitting
 * thread, at submit time: no thread is created and no lock is taken.
 *
 * Thread safety: submit, flush and wait are called from one thread (the
 * producer). Tasks run concurrently on the workers, each with the state
 * its worker_init returned.
 */
#ifndef EROFS_POOL_H
#define EROFS_POOL_H

#include <stdbool.h>
#include <stdint.h>

struct erofs_pool;

/* A task: returns 0, or a negative errno that stops the whole run. */
typedef int (*erofs_task_fn)(void *worker, void *arg);

struct erofs_pool_ops {
	/* per-worker state (a reading context, buffers); NULL on failure */
	void *(*worker_init)(void *priv, unsigned int index);
	void (*worker_fini)(void *priv, void *worker);
	void *priv;
};

struct erofs_pool_config {
	unsigned int threads;		/* 0: run inline */
	uint64_t batch_cost;		/* ns of work per batch, at least */
	unsigned int queue_batches;	/* queue capacity in batches */
};

/* Default batch size: enough work to dwarf a hand-off. */
#define EROFS_POOL_BATCH_COST_NS 150000

int erofs_pool_create(struct erofs_pool **out,
		      const struct erofs_pool_config *cfg,
		      const struct erofs_pool_ops *ops);

/*
 * Queue a task of the given estimated cost (ns). May block while the queue
 * is full. Once the run is stopped (a task failed, or erofs_pool_cancel),
 * submit returns the error without queueing; tasks already queued are still
 * called, so that they can release what they hold, and should check
 * erofs_pool_stopped() to skip their work.
 */
int erofs_pool_submit(struct erofs_pool *pool, erofs_task_fn fn, void *arg,
		      uint64_t cost);

/*
 * Run a task now, on the submitting thread, with the state of the pool's
 * inline worker: for a task smaller than handing it over. Errors and
 * stopping as for erofs_pool_submit.
 */
int erofs_pool_run_here(struct erofs_pool *pool, erofs_task_fn fn, void *arg);

/*
 * Queue a task ahead of every batch: a worker that looks for work takes
 * these first, in the order they were queued. For work that later tasks
 * depend on (decoding what files will read), so that it runs before the
 * tasks that would otherwise wait for it. It is not batched and does not
 * wait for queue space: the caller bounds how many it queues. Errors and
 * stopping as for erofs_pool_submit.
 *
 * Such a task may run inside another one that waits (erofs_pool_help), so
 * it must never wait for what a task holds.
 */
int erofs_pool_submit_ahead(struct erofs_pool *pool, erofs_task_fn fn,
			    void *arg);

/*
 * From a task that is about to wait for another worker: run the first task
 * queued ahead, if any, on this worker meanwhile. True if one ran, after
 * which the caller checks again whether it still has to wait.
 */
bool erofs_pool_help(struct erofs_pool *pool, void *worker);

/* Hand over the partly filled batch now. */
int erofs_pool_flush(struct erofs_pool *pool);

/* Wait until every submitted task has run; the first error, or 0. */
int erofs_pool_wait(struct erofs_pool *pool);

/* Stop the run with this error (cancellation); the first error wins. */
void erofs_pool_cancel(struct erofs_pool *pool, int error);

/* Has the run been stopped? Safe to call from tasks. */
bool erofs_pool_stopped(const struct erofs_pool *pool);

/* Stop and join every worker (after erofs_pool_wait), free the pool. */
void erofs_pool_destroy(struct erofs_pool *pool);

unsigned int erofs_pool_threads(const struct erofs_pool *pool);

/*
 * The CPU time worker thread i has used so far, in nanoseconds; 0 for a
 * thread that did not start. Before erofs_pool_destroy().
 */
uint64_t erofs_pool_cpu_ns(const struct erofs_pool *pool, unsigned int i);

#endif
