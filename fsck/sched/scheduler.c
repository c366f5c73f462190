// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check/check.h"
#include "check/verity.h"
#include "erofs/decompress.h"
#include "erofs/image.h"
#include "erofs/pool.h"
#include "sched/cost.h"
#include "sched/readahead.h"
#include "sched/scheduler.h"
#include "sched/split.h"
#include "sched/task.h"

static int sched_pool(struct sched *s, struct checker *ck, unsigned int threads)
{
	struct erofs_pool_config pc = {
		.threads = threads,
		.batch_cost = EROFS_POOL_BATCH_COST_NS,
	};
	struct erofs_pool_ops ops = {
		.worker_init = checker_worker_init,
		.worker_fini = checker_worker_fini,
		.priv = ck,
	};
	int ret = erofs_pool_create(&s->pool, &pc, &ops);

	ck->pool = s->pool;
	if (ret < 0)
		report_fatal(ck->rep, "%s: cannot start %u threads: %s",
			     ck->rep->image, threads, strerror(-ret));
	return ret;
}

int sched_start(struct sched *s, struct checker *ck,
		const struct cost_workers *w)
{
	int ret;

	memset(s, 0, sizeof(*s));
	ck->sched = s;
	order_init(&s->order, ck->rep);
	s->img = erofs_ctx_image(ck->ctx);
	s->decoders = w->decoders;
	/* before any worker can read */
	if (erofs_decoders_limit(s->img, w->decoders)) {
		report_nomem(ck->rep, NULL);
		return -ENOMEM;
	}
	ret = sched_pool(s, ck, w->threads);
	if (ret)
		return ret;
	s->ra = calloc(1, sizeof(*s->ra));
	if (!s->ra || task_hold_init(ck)) {
		report_nomem(ck->rep, NULL);
		return -ENOMEM;
	}
	order_set_threaded(&s->order, w->threads > 0);
	s->split_ns = split_piece_ns();
	s->splits_max = w->threads ? w->threads : 1;
	readahead_init(s->ra, ck->ctx, s->pool);
	return 0;
}

int sched_verity(struct sched *s, struct checker *ck)
{
	struct verity_check *vc = ck->verity;
	uint64_t n = verity_leaves(vc), i, bytes;
	struct verity_leaf *leaves = calloc(n ? n : 1, sizeof(*leaves));
	int ret = 0, err;

	if (!leaves) {
		report_nomem(ck->rep, NULL);
		return -ENOMEM;
	}
	bytes = erofs_verity_info(vc->v)->data_per_leaf * vc->block_size;
	for (i = 0; i < n && !ret; i++) {
		leaves[i] = (struct verity_leaf){ .vc = vc, .leaf = i };
		/* -j1's pair takes turns to decode: hash on one thread too */
		if (s->decoders)
			ret = erofs_pool_run_here(s->pool, verity_leaf_task,
						  &leaves[i]);
		else /* SHA-256 costs about a nanosecond a byte */
			ret = erofs_pool_submit(s->pool, verity_leaf_task,
						&leaves[i], bytes);
	}
	err = erofs_pool_wait(s->pool);
	free(leaves);
	if (ret || err) {
		report_nomem(ck->rep, NULL);
		return ret ? ret : err;
	}
	return verity_sort(vc, ck->rep, ck->decode);
}

void sched_stop(struct sched *s)
{
	erofs_pool_destroy(s->pool);
	s->pool = NULL;
	if (s->img)
		erofs_decoders_unlimit(s->img);
	free(s->ra);
	s->ra = NULL;
	free(s->held);
	s->held = NULL;
	order_fini(&s->order);
}
