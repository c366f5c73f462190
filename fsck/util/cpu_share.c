// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "erofs/pool.h"
#include "util/cpu_share.h"
#include "util/report.h"
#include "util/strbuf.h"

int cpu_share_take(struct cpu_share *cs, const struct erofs_pool *pool)
{
	unsigned int i, n = pool ? erofs_pool_threads(pool) : 0;
	struct timespec ts;

	cpu_share_fini(cs);
	cs->walker_ns = 0;
	if (!clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		cs->walker_ns = (uint64_t)ts.tv_sec * 1000000000u +
				(uint64_t)ts.tv_nsec;
	cs->workers = 0;
	cs->worker_ns = n ? calloc(n, sizeof(*cs->worker_ns)) : NULL;
	if (n && !cs->worker_ns)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		cs->worker_ns[i] = erofs_pool_cpu_ns(pool, i);
	cs->workers = n;
	return 0;
}

void cpu_share_fini(struct cpu_share *cs)
{
	free(cs->worker_ns);
	cs->worker_ns = NULL;
	cs->workers = 0;
}

double cpu_share_walker(const struct cpu_share *cs)
{
	uint64_t total = cs->walker_ns;
	unsigned int i;

	for (i = 0; i < cs->workers; i++)
		total += cs->worker_ns[i];
	return total ? (double)cs->walker_ns / (double)total : 0;
}

void cpu_share_report(const struct cpu_share *cs, struct report *rep)
{
	struct strbuf sb = STRBUF_INIT;
	unsigned int i;

	if (rep->level < FSCK_LVL_INFO)
		return;
	for (i = 0; i < cs->workers; i++)
		sb_addf(&sb, "%s%.3f", i ? ", " : "",
			(double)cs->worker_ns[i] / 1e9);
	report_msg(rep, FSCK_LVL_INFO,
		   "CPU time: walker %.3f s, %s%s%s; the walker's share %.1f%%",
		   (double)cs->walker_ns / 1e9,
		   cs->workers ? "workers " : "no workers",
		   cs->workers ? (sb.failed ? "?" : sb.s) : "",
		   cs->workers ? " s" : "", 100 * cpu_share_walker(cs));
	sb_release(&sb);
}
