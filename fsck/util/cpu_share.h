/* SPDX-License-Identifier: MIT */
/*
 * The CPU time of each role of a run: the walker's thread (the main one:
 * options, opening, the walk, what the outputs do on it) and each worker
 * thread of the pool. The walker's share of the whole bounds what more
 * threads can give (-d3 and --json show it).
 */
#ifndef FSCK_CPU_SHARE_H
#define FSCK_CPU_SHARE_H

#include <stdint.h>

struct erofs_pool;
struct report;

struct cpu_share {
	uint64_t walker_ns;
	unsigned int workers;
	uint64_t *worker_ns; /* one a worker thread */
};

/*
 * On the walker, once the work is done and before the pool is destroyed
 * (cs zeroed, or taken before): 0 or -ENOMEM.
 */
int cpu_share_take(struct cpu_share *cs, const struct erofs_pool *pool);
void cpu_share_fini(struct cpu_share *cs);

/* The walker's share of the CPU time of the run, 0 to 1. */
double cpu_share_walker(const struct cpu_share *cs);

/* The figures, at -d3 (the info level). */
void cpu_share_report(const struct cpu_share *cs, struct report *rep);

#endif
