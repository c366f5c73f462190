// SPDX-License-Identifier: MIT
/*
 * The cost model's decision to start threads (by the work, and no more
 * than the CPUs to run on), the reading context each worker gets, and the
 * results of fsck's steps as they leave for the walker and the pool and
 * come back.
 */
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check/check_internal.h"
#include "erofs/decompress.h"
#include "erofs/format.h"
#include "erofs/image.h"
#include "fsck.h"
#include "sched/cost.h"
#include "unit.h"

#define MIB (1ULL << 20)

static struct outputs outs;
static bool decode;
static struct erofs_image img;

static void setup(void)
{
	memset(&outs, 0, sizeof(outs));
	decode = false;
	memset(&img, 0, sizeof(img));
	unsetenv("EROFS_FSCK_SYNC_NS");
}

/* An output that wants what it declares, and does nothing. */
static void add_output(unsigned int wants)
{
	static const struct output_ops none;

	outputs_add(&outs, &none, NULL, wants);
}

static unsigned int threads(uint64_t bytes, unsigned int jobs)
{
	return cost_threads(&outs, decode, &img, bytes, jobs).threads;
}

static unsigned int decoders(uint64_t bytes, unsigned int jobs)
{
	return cost_threads(&outs, decode, &img, bytes, jobs).decoders;
}

/* The CPUs this test may run on. */
static unsigned int usable_cpus(void)
{
	cpu_set_t set;

	ck_assert_int_eq(sched_getaffinity(0, sizeof(set), &set), 0);
	return (unsigned int)CPU_COUNT(&set);
}

/* What this machine starts for jobs, the work being worth threads. */
static unsigned int on_this_machine(unsigned int jobs)
{
	unsigned int cpus = usable_cpus();

	if (jobs > cpus)
		jobs = cpus;
	return jobs > 1 ? jobs : 0;
}

START_TEST(test_threads_one_job)
{
	unsigned int pair = usable_cpus() > 1 ? 2 : 0;

	decode = true;
	ck_assert_uint_eq(threads(1ULL << 40, 1), 0);
	ck_assert_uint_eq(threads(1ULL << 40, 0), 0);
	/* files to write: two workers, one decoding at a time */
	add_output(OUT_OPENS);
	ck_assert_uint_eq(threads(1ULL << 40, 1), pair);
	ck_assert_uint_eq(decoders(1ULL << 40, 1), pair / 2);
	ck_assert_uint_eq(cost_workers_most(1), pair);
	ck_assert_uint_eq(cost_threads_most(1), 0);
	ck_assert_uint_eq(threads(1ULL << 40, 0), 0);
	/* not worth a thread, nor with nothing decoded */
	ck_assert_uint_eq(threads(MIB, 1), 0);
	decode = false;
	ck_assert_uint_eq(threads(1ULL << 40, 1), 0);
	setenv("EROFS_FSCK_SYNC_NS", "0", 1);
	ck_assert_uint_eq(threads(0, 1), 0);
	decode = true;
	ck_assert_uint_eq(threads(0, 1), 2);
	ck_assert_uint_eq(decoders(0, 1), 1);
	ck_assert_uint_eq(cost_workers_most(1), 2);
	/* more jobs: every worker decodes */
	ck_assert_uint_eq(threads(0, 3), 3);
	ck_assert_uint_eq(decoders(0, 3), 0);
	ck_assert_uint_eq(cost_workers_most(3), 3);
}
END_TEST

START_TEST(test_threads_by_work)
{
	/* nothing decoded: a task only maps, threads cannot win */
	ck_assert_uint_eq(threads(1ULL << 40, 4), 0);
	decode = true;
	/* 1 MiB of stored data: far below the work threads pay for */
	ck_assert_uint_eq(threads(MIB, 4), 0);
	ck_assert_uint_eq(threads(1ULL << 30, 4), on_this_machine(4));
	/* an output that opens a file on disk for each inode */
	decode = false;
	img.inos = 1000000;
	ck_assert_uint_eq(threads(MIB, 4), 0);
	add_output(OUT_OPENS);
	ck_assert_uint_eq(threads(MIB, 4), on_this_machine(4));
	img.inos = 0;
	ck_assert_uint_eq(threads(MIB, 4), 0);
	ck_assert_uint_eq(threads(1ULL << 30, 4), on_this_machine(4));
	/* saturates rather than wraps */
	ck_assert_uint_eq(threads(UINT64_MAX, 4), on_this_machine(4));
}
END_TEST

/* The dearest codec the image may use prices the work. */
START_TEST(test_threads_by_codec)
{
	const struct erofs_codec *lzma;
	uint64_t bytes;

	lzma = erofs_codec_get(Z_EROFS_COMPRESSION_LZMA);
	if (!lzma || lzma->cost_ns_per_kib <= 1000)
		return;
	decode = true;
	/* 10 ms of work at the dearest price, a little short at a copy's */
	bytes = (10000000ULL / lzma->cost_ns_per_kib + 1) << 10;
	ck_assert_uint_eq(threads(bytes, 2), 0);
	img.available_compr_algs = 1U << Z_EROFS_COMPRESSION_LZMA;
	ck_assert_uint_eq(threads(bytes, 2), on_this_machine(2));
}
END_TEST

/*
 * No more threads than the CPUs the process may run on: none on one CPU,
 * two on two, however many jobs, and at -j1 for files to write, the pair
 * that takes turns to decode only where another CPU can write meanwhile;
 * EROFS_FSCK_SYNC_NS=0 starts them all.
 */
START_TEST(test_threads_by_cpus)
{
	cpu_set_t saved, set;
	int first = -1, second = -1, cpu;

	ck_assert_int_eq(sched_getaffinity(0, sizeof(saved), &saved), 0);
	for (cpu = 0; cpu < CPU_SETSIZE && second < 0; cpu++) {
		if (!CPU_ISSET(cpu, &saved))
			continue;
		if (first < 0)
			first = cpu;
		else
			second = cpu;
	}
	ck_assert_int_ge(first, 0);
	decode = true;
	CPU_ZERO(&set);
	CPU_SET(first, &set);
	ck_assert_int_eq(sched_setaffinity(0, sizeof(set), &set), 0);
	ck_assert_uint_eq(cost_cpus(), 1);
	ck_assert_uint_eq(threads(1ULL << 30, 8), 0);
	add_output(OUT_OPENS);
	ck_assert_uint_eq(threads(1ULL << 30, 1), 0);
	ck_assert_uint_eq(cost_workers_most(1), 0);
	if (second >= 0) {
		CPU_SET(second, &set);
		ck_assert_int_eq(sched_setaffinity(0, sizeof(set), &set), 0);
		ck_assert_uint_eq(cost_cpus(), 2);
		ck_assert_uint_eq(threads(1ULL << 30, 8), 2);
		ck_assert_uint_eq(threads(1ULL << 30, 2), 2);
		ck_assert_uint_eq(threads(1ULL << 30, 1), 2);
		ck_assert_uint_eq(decoders(1ULL << 30, 1), 1);
	}
	setenv("EROFS_FSCK_SYNC_NS", "0", 1);
	ck_assert_uint_eq(threads(1ULL << 30, 8), 8);
	ck_assert_int_eq(sched_setaffinity(0, sizeof(saved), &saved), 0);
	ck_assert_uint_eq(cost_cpus(), usable_cpus());
}
END_TEST

START_TEST(test_threads_env)
{
	setenv("EROFS_FSCK_SYNC_NS", "0", 1);
	/* 0: always, even with nothing decoded and a single CPU */
	ck_assert_uint_eq(threads(0, 3), 3);
	decode = true;
	setenv("EROFS_FSCK_SYNC_NS", "1000", 1);
	ck_assert_uint_eq(threads(4 * 1024, 3), on_this_machine(3));
	ck_assert_uint_eq(threads(1024, 3), 0);
	/* not a number: the default */
	setenv("EROFS_FSCK_SYNC_NS", "1000x", 1);
	ck_assert_uint_eq(threads(4 * 1024, 3), 0);
	setenv("EROFS_FSCK_SYNC_NS", "", 1);
	ck_assert_uint_eq(threads(4 * 1024, 3), 0);
}
END_TEST

/*
 * The pool's inline worker (index 0) runs tasks on the walker's thread and
 * reads with the walker's context, whose cache holds the blocks the walk
 * read; a thread's worker has a context of its own.
 */
START_TEST(test_inline_worker_context)
{
	struct fsck_worker *here, *thread;
	struct fsck_cfg cfg = { 0 };
	struct erofs_ctx *ctx;
	struct checker ck;

	img.blkszbits = 12;
	img.blksz = 4096;
	ctx = erofs_ctx_new(&img);
	ck_assert_ptr_nonnull(ctx);
	checker_init(&ck, ctx, NULL, &cfg, &outs);
	here = checker_worker_init(&ck, 0);
	thread = checker_worker_init(&ck, 1);
	ck_assert_ptr_nonnull(here);
	ck_assert_ptr_nonnull(thread);
	ck_assert_ptr_eq(here->ctx, ctx);
	ck_assert_ptr_null(here->own);
	ck_assert_ptr_nonnull(thread->own);
	ck_assert_ptr_eq(thread->ctx, thread->own);
	ck_assert_ptr_ne(thread->ctx, ctx);
	ck_assert_ptr_eq(erofs_ctx_image(thread->ctx), &img);
	checker_worker_fini(&ck, here);
	checker_worker_fini(&ck, thread);
	checker_fini(&ck);
	erofs_ctx_free(ctx);
}
END_TEST

START_TEST(test_results_to_errno)
{
	ck_assert_int_eq(check_errno(FSCK_OK), 0);
	ck_assert_int_eq(check_errno(FSCK_REPORTED), 0);
	ck_assert_int_eq(check_errno(FSCK_NOMEM), -ENOMEM);
	ck_assert_int_lt(check_errno(FSCK_STOP), 0);
	ck_assert_int_ne(check_errno(FSCK_STOP), -ENOMEM);
}
END_TEST

/*
 * A file whose data is in its inode's block is run where it is met,
 * unless its content is hashed; an empty one always.
 */
START_TEST(test_file_trivial)
{
	struct erofs_inode inode = { .layout = EROFS_INODE_FLAT_INLINE };

	inode.size = 0;
	ck_assert(cost_file_trivial(&inode, 4096, false));
	ck_assert(cost_file_trivial(&inode, 4096, true));
	inode.size = 4095;
	ck_assert(cost_file_trivial(&inode, 4096, false));
	ck_assert(!cost_file_trivial(&inode, 4096, true));
	inode.size = 4096;
	ck_assert(!cost_file_trivial(&inode, 4096, false));
	inode.size = 100;
	inode.layout = EROFS_INODE_FLAT_PLAIN;
	ck_assert(!cost_file_trivial(&inode, 4096, false));
}
END_TEST

START_TEST(test_results_of_errno)
{
	ck_assert_int_eq(fsck_result_of(0), FSCK_OK);
	ck_assert_int_eq(fsck_result_of(1), FSCK_REPORTED);
	ck_assert_int_eq(fsck_result_of(-ENOMEM), FSCK_NOMEM);
	ck_assert_int_eq(fsck_result_of(-EIO), FSCK_STOP);
	ck_assert_int_eq(fsck_result_of(-EINTR), FSCK_STOP);
	/* through the pool and back, a stop stays what it was */
	ck_assert_int_eq(fsck_result_of(check_errno(FSCK_NOMEM)), FSCK_NOMEM);
	ck_assert_int_eq(fsck_result_of(check_errno(FSCK_STOP)), FSCK_STOP);
	ck_assert_int_eq(fsck_result_of(check_errno(FSCK_REPORTED)), FSCK_OK);
}
END_TEST

UNIT_MAIN("fsck_cost", NULL,
	  { "threads",
	    .tests = UNIT_TESTS(test_threads_one_job, test_threads_by_work,
				test_threads_by_codec, test_threads_by_cpus,
				test_threads_env),
	    .setup = setup },
	  { "workers",
	    .tests = UNIT_TESTS(test_inline_worker_context, test_file_trivial),
	    .setup = setup },
	  { "results",
	    .tests = UNIT_TESTS(test_results_to_errno, test_results_of_errno) })
