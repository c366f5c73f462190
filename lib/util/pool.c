// SPDX-License-Identifier: MIT
/*
 * A worker pool that hands work over in batches: one lock round-trip per
 * batch of tasks, a bounded queue of batches, batches recycled through a
 * free list so that steady state allocates nothing. Tasks queued ahead
 * wait in a list of their own, which workers empty before they take a
 * batch.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "erofs/pool.h"

#define POOL_BATCH_TASKS 128

struct pool_task {
	erofs_task_fn fn;
	void *arg;
};

struct pool_ahead {
	struct pool_ahead *next;
	struct pool_task task;
};

struct pool_batch {
	struct pool_batch *next;
	unsigned int count;
	struct pool_task tasks[POOL_BATCH_TASKS];
};

struct erofs_pool {
	struct erofs_pool_config cfg;
	struct erofs_pool_ops ops;

	pthread_mutex_t lock;
	pthread_cond_t work;	/* a batch was queued, or shutdown */
	pthread_cond_t space;	/* a queue slot was freed */
	pthread_cond_t idle;	/* nothing queued and nothing running */
	struct pool_batch *head, *tail, *free_list;
	struct pool_ahead *ahead_head, *ahead_tail;
	unsigned int queued;		/* batches */
	unsigned int queued_ahead;
	unsigned int running;
	bool producer_waits;	/* for space */
	bool shutdown;
	int error;		/* first error; read without the lock */

	/* producer side, touched only by the submitting thread */
	struct pool_batch *cur;
	uint64_t cur_cost;

	pthread_t *threads;
	unsigned int started;
	void **workers;
	void *inline_worker;
};

static void set_error(struct erofs_pool *pool, int error)
{
	int none = 0;

	__atomic_compare_exchange_n(&pool->error, &none, error, false,
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

bool erofs_pool_stopped(const struct erofs_pool *pool)
{
	return __atomic_load_n(&pool->error, __ATOMIC_RELAXED) != 0;
}

void erofs_pool_cancel(struct erofs_pool *pool, int error)
{
	set_error(pool, error);
}

static void run_task(struct erofs_pool *pool, void *worker,
		     const struct pool_task *t)
{
	int ret = t->fn(worker, t->arg);

	if (ret)
		set_error(pool, ret);
}

static void run_batch(struct erofs_pool *pool, void *worker,
		      struct pool_batch *b)
{
	unsigned int i;

	for (i = 0; i < b->count; i++)
		run_task(pool, worker, &b->tasks[i]);
	b->count = 0;
}

/* With the lock held: nothing queued and nothing running any more? */
static void task_finished(struct erofs_pool *pool)
{
	pool->running--;
	if (!pool->queued && !pool->queued_ahead && !pool->running)
		pthread_cond_broadcast(&pool->idle);
}

/* With the lock held, which it drops while the task runs. */
static void run_ahead(struct erofs_pool *pool, void *worker)
{
	struct pool_ahead *a = pool->ahead_head;

	pool->ahead_head = a->next;
	if (!pool->ahead_head)
		pool->ahead_tail = NULL;
	pool->queued_ahead--;
	pool->running++;
	pthread_mutex_unlock(&pool->lock);
	run_task(pool, worker, &a->task);
	free(a);
	pthread_mutex_lock(&pool->lock);
	task_finished(pool);
}

static void *worker_main(void *arg)
{
	void **slot = arg;
	struct erofs_pool *pool = slot[0];
	void *worker = slot[1];

	free(slot);
	pthread_mutex_lock(&pool->lock);
	for (;;) {
		struct pool_batch *b;

		while (!pool->ahead_head && !pool->head && !pool->shutdown)
			pthread_cond_wait(&pool->work, &pool->lock);
		if (pool->ahead_head) {
			run_ahead(pool, worker);
			continue;
		}
		b = pool->head;
		if (!b)
			break;
		pool->head = b->next;
		if (!pool->head)
			pool->tail = NULL;
		pool->queued--;
		pool->running++;
		/* wake a waiting producer once half the queue is free, not
		 * for every batch: it then hands over several in one go */
		if (pool->producer_waits &&
		    pool->queued <= pool->cfg.queue_batches / 2)
			pthread_cond_signal(&pool->space);
		pthread_mutex_unlock(&pool->lock);

		run_batch(pool, worker, b);

		pthread_mutex_lock(&pool->lock);
		b->next = pool->free_list;
		pool->free_list = b;
		task_finished(pool);
	}
	pthread_mutex_unlock(&pool->lock);
	return NULL;
}

static int start_workers(struct erofs_pool *pool)
{
	unsigned int i;

	for (i = 0; i < pool->cfg.threads; i++) {
		void **slot;

		pool->workers[i] = pool->ops.worker_init(pool->ops.priv, i + 1);
		if (!pool->workers[i])
			return -ENOMEM;
		slot = malloc(2 * sizeof(*slot));
		if (!slot)
			return -ENOMEM;
		slot[0] = pool;
		slot[1] = pool->workers[i];
		if (pthread_create(&pool->threads[i], NULL, worker_main, slot)) {
			free(slot);
			return -EAGAIN;
		}
		pool->started++;
	}
	return 0;
}

int erofs_pool_create(struct erofs_pool **out,
		      const struct erofs_pool_config *cfg,
		      const struct erofs_pool_ops *ops)
{
	struct erofs_pool *pool;
	int ret;

	*out = NULL;
	pool = calloc(1, sizeof(*pool));
	if (!pool)
		return -ENOMEM;
	pool->cfg = *cfg;
	if (!pool->cfg.queue_batches)
		pool->cfg.queue_batches = 2 * (cfg->threads + 1);
	pool->ops = *ops;
	pthread_mutex_init(&pool->lock, NULL);
	pthread_cond_init(&pool->work, NULL);
	pthread_cond_init(&pool->space, NULL);
	pthread_cond_init(&pool->idle, NULL);
	pool->inline_worker = ops->worker_init(ops->priv, 0);
	if (!pool->inline_worker) {
		erofs_pool_destroy(pool);
		return -ENOMEM;
	}
	if (cfg->threads) {
		pool->threads = calloc(cfg->threads, sizeof(*pool->threads));
		pool->workers = calloc(cfg->threads, sizeof(*pool->workers));
		ret = pool->threads && pool->workers ? start_workers(pool) :
						       -ENOMEM;
		if (ret) {
			erofs_pool_destroy(pool);
			return ret;
		}
	}
	*out = pool;
	return 0;
}

static struct pool_batch *new_batch(struct erofs_pool *pool)
{
	struct pool_batch *b;

	pthread_mutex_lock(&pool->lock);
	b = pool->free_list;
	if (b)
		pool->free_list = b->next;
	pthread_mutex_unlock(&pool->lock);
	if (!b)
		b = malloc(sizeof(*b));
	if (b) {
		b->next = NULL;
		b->count = 0;
	}
	return b;
}

int erofs_pool_flush(struct erofs_pool *pool)
{
	struct pool_batch *b = pool->cur;

	if (!b || !b->count)
		return __atomic_load_n(&pool->error, __ATOMIC_RELAXED);
	pool->cur = NULL;
	pool->cur_cost = 0;
	pthread_mutex_lock(&pool->lock);
	while (pool->queued >= pool->cfg.queue_batches) {
		pool->producer_waits = true;
		pthread_cond_wait(&pool->space, &pool->lock);
	}
	pool->producer_waits = false;
	if (pool->tail)
		pool->tail->next = b;
	else
		pool->head = b;
	pool->tail = b;
	pool->queued++;
	/* take the next batch from the free list in the same round-trip */
	pool->cur = pool->free_list;
	if (pool->cur) {
		pool->free_list = pool->cur->next;
		pool->cur->next = NULL;
	}
	pthread_cond_signal(&pool->work);
	pthread_mutex_unlock(&pool->lock);
	return 0;
}

int erofs_pool_run_here(struct erofs_pool *pool, erofs_task_fn fn, void *arg)
{
	int ret = __atomic_load_n(&pool->error, __ATOMIC_RELAXED);

	if (ret)
		return ret;
	ret = fn(pool->inline_worker, arg);
	if (ret)
		set_error(pool, ret);
	return ret;
}

int erofs_pool_submit(struct erofs_pool *pool, erofs_task_fn fn, void *arg,
		      uint64_t cost)
{
	int ret;

	if (!pool->cfg.threads)
		return erofs_pool_run_here(pool, fn, arg);
	ret = __atomic_load_n(&pool->error, __ATOMIC_RELAXED);
	if (ret)
		return ret;
	if (!pool->cur) {
		pool->cur = new_batch(pool);
		if (!pool->cur) {
			set_error(pool, -ENOMEM);
			return -ENOMEM;
		}
	}
	pool->cur->tasks[pool->cur->count].fn = fn;
	pool->cur->tasks[pool->cur->count].arg = arg;
	pool->cur->count++;
	pool->cur_cost += cost;
	if (pool->cur->count == POOL_BATCH_TASKS ||
	    pool->cur_cost >= pool->cfg.batch_cost)
		return erofs_pool_flush(pool);
	return 0;
}

int erofs_pool_submit_ahead(struct erofs_pool *pool, erofs_task_fn fn,
			    void *arg)
{
	int ret = __atomic_load_n(&pool->error, __ATOMIC_RELAXED);
	struct pool_ahead *a;

	if (ret)
		return ret;
	if (!pool->cfg.threads)
		return erofs_pool_submit(pool, fn, arg, 0);
	a = malloc(sizeof(*a));
	if (!a) {
		set_error(pool, -ENOMEM);
		return -ENOMEM;
	}
	a->next = NULL;
	a->task.fn = fn;
	a->task.arg = arg;
	pthread_mutex_lock(&pool->lock);
	if (pool->ahead_tail)
		pool->ahead_tail->next = a;
	else
		pool->ahead_head = a;
	pool->ahead_tail = a;
	pool->queued_ahead++;
	pthread_cond_signal(&pool->work);
	pthread_mutex_unlock(&pool->lock);
	return 0;
}

bool erofs_pool_help(struct erofs_pool *pool, void *worker)
{
	bool ran = false;

	pthread_mutex_lock(&pool->lock);
	if (pool->ahead_head) {
		run_ahead(pool, worker);
		ran = true;
	}
	pthread_mutex_unlock(&pool->lock);
	return ran;
}

int erofs_pool_wait(struct erofs_pool *pool)
{
	if (pool->cfg.threads) {
		erofs_pool_flush(pool);
		pthread_mutex_lock(&pool->lock);
		while (pool->queued || pool->queued_ahead || pool->running)
			pthread_cond_wait(&pool->idle, &pool->lock);
		pthread_mutex_unlock(&pool->lock);
	}
	return __atomic_load_n(&pool->error, __ATOMIC_SEQ_CST);
}

static void free_batches(struct pool_batch *b)
{
	while (b) {
		struct pool_batch *next = b->next;

		free(b);
		b = next;
	}
}

void erofs_pool_destroy(struct erofs_pool *pool)
{
	unsigned int i;

	if (!pool)
		return;
	pthread_mutex_lock(&pool->lock);
	pool->shutdown = true;
	pthread_cond_broadcast(&pool->work);
	pthread_mutex_unlock(&pool->lock);
	for (i = 0; i < pool->started; i++)
		pthread_join(pool->threads[i], NULL);
	for (i = 0; pool->workers && i < pool->cfg.threads; i++)
		if (pool->workers[i])
			pool->ops.worker_fini(pool->ops.priv, pool->workers[i]);
	if (pool->inline_worker)
		pool->ops.worker_fini(pool->ops.priv, pool->inline_worker);
	free_batches(pool->head);
	free_batches(pool->free_list);
	free(pool->cur);
	free(pool->threads);
	free(pool->workers);
	pthread_mutex_destroy(&pool->lock);
	pthread_cond_destroy(&pool->work);
	pthread_cond_destroy(&pool->space);
	pthread_cond_destroy(&pool->idle);
	free(pool);
}

unsigned int erofs_pool_threads(const struct erofs_pool *pool)
{
	return pool->cfg.threads;
}

uint64_t erofs_pool_cpu_ns(const struct erofs_pool *pool, unsigned int i)
{
	struct timespec ts;
	clockid_t clock;

	if (i >= pool->started ||
	    pthread_getcpuclockid(pool->threads[i], &clock) ||
	    clock_gettime(clock, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
