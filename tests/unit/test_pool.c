// SPDX-License-Identifier: MIT
/*
 * The worker pool: every task once, back-pressure, errors, shutdown, and
 * tasks queued ahead of the batches, run by a worker or by a task that
 * would wait.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "erofs/pool.h"
#include "unit.h"

#define NTASKS 20000

static unsigned int runs[NTASKS];
static unsigned int inits, finis;

static void *worker_init(void *priv, unsigned int index)
{
	unsigned int *state = malloc(sizeof(*state));

	if (state)
		*state = index;
	__atomic_add_fetch(&inits, 1, __ATOMIC_SEQ_CST);
	return state;
}

static void worker_fini(void *priv, void *worker)
{
	free(worker);
	__atomic_add_fetch(&finis, 1, __ATOMIC_SEQ_CST);
}

static const struct erofs_pool_ops ops = {
	.worker_init = worker_init,
	.worker_fini = worker_fini,
};

static int count_task(void *worker, void *arg)
{
	uintptr_t i = (uintptr_t)arg;

	ck_assert_ptr_nonnull(worker);
	__atomic_add_fetch(&runs[i], 1, __ATOMIC_SEQ_CST);
	return 0;
}

static const unsigned int thread_counts[] = { 0, 1, 2, 4, 8 };

START_TEST(test_every_task_once)
{
	struct erofs_pool_config cfg = {
		.threads = thread_counts[_i],
		.batch_cost = 1000,
	};
	struct erofs_pool *pool;
	uintptr_t i;

	memset(runs, 0, sizeof(runs));
	inits = finis = 0;
	ck_assert_int_eq(erofs_pool_create(&pool, &cfg, &ops), 0);
	ck_assert_uint_eq(erofs_pool_threads(pool), cfg.threads);
	for (i = 0; i < NTASKS; i++)
		ck_assert_int_eq(erofs_pool_submit(pool, count_task,
						   (void *)i, i % 300),
				 0);
	ck_assert_int_eq(erofs_pool_wait(pool), 0);
	for (i = 0; i < NTASKS; i++)
		ck_assert_uint_eq(runs[i], 1);
	erofs_pool_destroy(pool);
	/* one state per worker thread plus the producer's own */
	ck_assert_uint_eq(inits, cfg.threads + 1);
	ck_assert_uint_eq(finis, cfg.threads + 1);
}
END_TEST

static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cond = PTHREAD_COND_INITIALIZER;
static bool gate_open;
static unsigned int submitted;

static int gated_task(void *worker, void *arg)
{
	pthread_mutex_lock(&gate_lock);
	while (!gate_open)
		pthread_cond_wait(&gate_cond, &gate_lock);
	pthread_mutex_unlock(&gate_lock);
	return count_task(worker, arg);
}

static void open_gate(void)
{
	pthread_mutex_lock(&gate_lock);
	gate_open = true;
	pthread_cond_broadcast(&gate_cond);
	pthread_mutex_unlock(&gate_lock);
}

static void *producer(void *arg)
{
	struct erofs_pool *pool = arg;
	uintptr_t i;

	for (i = 0; i < 1000; i++) {
		ck_assert_int_eq(erofs_pool_submit(pool, gated_task,
						   (void *)i, 1000),
				 0);
		__atomic_add_fetch(&submitted, 1, __ATOMIC_SEQ_CST);
	}
	return NULL;
}

START_TEST(test_back_pressure)
{
	/* every task fills a batch; one queued batch at most */
	struct erofs_pool_config cfg = {
		.threads = 2,
		.batch_cost = 1000,
		.queue_batches = 1,
	};
	struct erofs_pool *pool;
	pthread_t thread;
	unsigned int i;

	memset(runs, 0, sizeof(runs));
	gate_open = false;
	submitted = 0;
	ck_assert_int_eq(erofs_pool_create(&pool, &cfg, &ops), 0);
	ck_assert_int_eq(pthread_create(&thread, NULL, producer, pool), 0);
	usleep(200000);
	/* 2 running + 1 queued + 1 being flushed, not the 1000 submitted */
	ck_assert_uint_le(__atomic_load_n(&submitted, __ATOMIC_SEQ_CST), 4);
	open_gate();
	pthread_join(thread, NULL);
	ck_assert_int_eq(erofs_pool_wait(pool), 0);
	for (i = 0; i < 1000; i++)
		ck_assert_uint_eq(runs[i], 1);
	erofs_pool_destroy(pool);
}
END_TEST

static uintptr_t order[16];
static unsigned int ordered;
static bool gate_reached;

static int ordered_task(void *worker, void *arg)
{
	order[__atomic_fetch_add(&ordered, 1, __ATOMIC_SEQ_CST)] =
		(uintptr_t)arg;
	return count_task(worker, arg);
}

static int first_gated_task(void *worker, void *arg)
{
	__atomic_store_n(&gate_reached, true, __ATOMIC_SEQ_CST);
	return gated_task(worker, arg);
}

/*
 * The only worker is held in a task while three batches and then three
 * tasks ahead are queued: once it is let go, it runs the tasks ahead
 * first, in their order, then the batches; wait covers both.
 */
START_TEST(test_ahead_first)
{
	struct erofs_pool_config cfg = { .threads = 1, .batch_cost = 1 };
	struct erofs_pool *pool;
	uintptr_t i;

	memset(runs, 0, sizeof(runs));
	ordered = 0;
	gate_open = gate_reached = false;
	ck_assert_int_eq(erofs_pool_create(&pool, &cfg, &ops), 0);
	ck_assert_int_eq(erofs_pool_submit(pool, first_gated_task,
					   (void *)0, 1),
			 0);
	while (!__atomic_load_n(&gate_reached, __ATOMIC_SEQ_CST))
		usleep(1000);
	for (i = 1; i <= 3; i++)
		ck_assert_int_eq(erofs_pool_submit(pool, ordered_task,
						   (void *)i, 1),
				 0);
	for (i = 4; i <= 6; i++)
		ck_assert_int_eq(erofs_pool_submit_ahead(pool, ordered_task,
							 (void *)i),
				 0);
	open_gate();
	ck_assert_int_eq(erofs_pool_wait(pool), 0);
	ck_assert_uint_eq(ordered, 6);
	for (i = 0; i < 3; i++) {
		ck_assert_uint_eq(order[i], 4 + i);
		ck_assert_uint_eq(order[3 + i], 1 + i);
	}
	for (i = 0; i <= 6; i++)
		ck_assert_uint_eq(runs[i], 1);
	erofs_pool_destroy(pool);
}
END_TEST

static struct erofs_pool *helped_pool;
static bool helped[3];
static void *help_worker, *ahead_worker[2];

static int helping_task(void *worker, void *arg)
{
	unsigned int i;

	help_worker = worker;
	first_gated_task(worker, arg);
	for (i = 0; i < 3; i++)
		helped[i] = erofs_pool_help(helped_pool, worker);
	return 0;
}

static int ahead_task(void *worker, void *arg)
{
	ahead_worker[(uintptr_t)arg] = worker;
	return ordered_task(worker, arg);
}

/*
 * A task that would wait runs the tasks queued ahead on its own worker,
 * in their order, and is told when there are none left.
 */
START_TEST(test_help)
{
	struct erofs_pool_config cfg = { .threads = 1, .batch_cost = 1 };
	uintptr_t i;

	memset(runs, 0, sizeof(runs));
	ordered = 0;
	gate_open = gate_reached = false;
	ck_assert_int_eq(erofs_pool_create(&helped_pool, &cfg, &ops), 0);
	ck_assert_int_eq(
		erofs_pool_submit(helped_pool, helping_task, (void *)15, 1), 0);
	while (!__atomic_load_n(&gate_reached, __ATOMIC_SEQ_CST))
		usleep(1000);
	for (i = 0; i < 2; i++)
		ck_assert_int_eq(erofs_pool_submit_ahead(helped_pool,
							 ahead_task, (void *)i),
				 0);
	open_gate();
	ck_assert_int_eq(erofs_pool_wait(helped_pool), 0);
	ck_assert(helped[0] && helped[1] && !helped[2]);
	ck_assert_uint_eq(runs[15], 1);
	ck_assert_uint_eq(ordered, 2);
	for (i = 0; i < 2; i++) {
		ck_assert_uint_eq(order[i], i);
		ck_assert_ptr_eq(ahead_worker[i], help_worker);
	}
	erofs_pool_destroy(helped_pool);
}
END_TEST

/* Without threads a task ahead runs at once; a stopped run refuses it. */
START_TEST(test_ahead_inline)
{
	struct erofs_pool_config cfg = { .threads = 0 };
	struct erofs_pool *pool;

	memset(runs, 0, sizeof(runs));
	ordered = 0;
	ck_assert_int_eq(erofs_pool_create(&pool, &cfg, &ops), 0);
	ck_assert_int_eq(erofs_pool_submit_ahead(pool, ordered_task,
						 (void *)7),
			 0);
	ck_assert_uint_eq(runs[7], 1);
	erofs_pool_cancel(pool, -EIO);
	ck_assert_int_eq(erofs_pool_submit_ahead(pool, ordered_task,
						 (void *)8),
			 -EIO);
	ck_assert_uint_eq(runs[8], 0);
	erofs_pool_destroy(pool);
}
END_TEST

static unsigned int called;

static int failing_task(void *worker, void *arg)
{
	__atomic_add_fetch(&called, 1, __ATOMIC_SEQ_CST);
	return (uintptr_t)arg == 500 ? -EIO : 0;
}

START_TEST(test_error_stops_run)
{
	struct erofs_pool_config cfg = {
		.threads = thread_counts[_i],
		.batch_cost = 5000,
	};
	struct erofs_pool *pool;
	unsigned int accepted = 0;
	uintptr_t i;
	int ret = 0;

	called = 0;
	ck_assert_int_eq(erofs_pool_create(&pool, &cfg, &ops), 0);
	for (i = 0; i < NTASKS && !ret; i++) {
		ret = erofs_pool_submit(pool, failing_task, (void *)i, 100);
		if (!ret || i == 500)
			accepted++;
	}
	ck_assert_int_eq(erofs_pool_wait(pool), -EIO);
	ck_assert(erofs_pool_stopped(pool));
	/* the run stopped early, and every queued task was still called */
	ck_assert_uint_lt(accepted, NTASKS);
	ck_assert_uint_eq(called, accepted);
	ck_assert_int_eq(erofs_pool_submit(pool, failing_task, (void *)1, 1),
			 -EIO);
	erofs_pool_destroy(pool);
}
END_TEST

START_TEST(test_cancel)
{
	struct erofs_pool_config cfg = { .threads = 2, .batch_cost = 1 };
	struct erofs_pool *pool;

	ck_assert_int_eq(erofs_pool_create(&pool, &cfg, &ops), 0);
	erofs_pool_cancel(pool, -EINTR);
	erofs_pool_cancel(pool, -EIO);
	ck_assert_int_eq(erofs_pool_submit(pool, count_task, (void *)0, 1),
			 -EINTR);
	ck_assert_int_eq(erofs_pool_wait(pool), -EINTR);
	erofs_pool_destroy(pool);
}
END_TEST

static pthread_t here_thread;
static unsigned int here_index = 99;

static int here_task(void *worker, void *arg)
{
	here_thread = pthread_self();
	here_index = *(unsigned int *)worker;
	return (int)(intptr_t)arg;
}

/*
 * A task run here runs at once, on the calling thread, with the inline
 * worker's state (index 0) while the workers have their own; its error
 * stops the run, and a stopped run runs nothing more here.
 */
START_TEST(test_run_here)
{
	struct erofs_pool_config cfg = { .threads = 2, .batch_cost = 1 };
	struct erofs_pool *pool;

	ck_assert_int_eq(erofs_pool_create(&pool, &cfg, &ops), 0);
	ck_assert_int_eq(erofs_pool_run_here(pool, here_task, (void *)0), 0);
	ck_assert(pthread_equal(here_thread, pthread_self()));
	ck_assert_uint_eq(here_index, 0);
	ck_assert_int_eq(erofs_pool_run_here(pool, here_task, (void *)-EIO),
			 -EIO);
	ck_assert(erofs_pool_stopped(pool));
	here_index = 99;
	ck_assert_int_eq(erofs_pool_run_here(pool, here_task, (void *)0), -EIO);
	ck_assert_uint_eq(here_index, 99);
	ck_assert_int_eq(erofs_pool_wait(pool), -EIO);
	erofs_pool_destroy(pool);
}
END_TEST

UNIT_MAIN("pool", NULL,
	  { "core",
	    .tests = UNIT_TESTS(test_back_pressure, test_cancel,
				test_ahead_first, test_ahead_inline, test_help,
				test_run_here),
	    .loops = UNIT_LOOPS({ test_every_task_once, 5 },
				{ test_error_stops_run, 5 }),
	    .timeout = 60 })
