// SPDX-License-Identifier: MIT
#include <stdlib.h>

#include "check/check_internal.h"
#include "erofs/data.h"
#include "erofs/pool.h"
#include "sched/cost.h"
#include "sched/packed_rest.h"
#include "sched/scheduler.h"
#include "sched/task.h"
#include "util/interrupt.h"

struct rest_task {
	struct order_slot slot; /* first: the queue frees the task */
	struct checker *ck;
	struct erofs_map map;
	bool started;
};

static int rest_task_run(void *worker, void *arg)
{
	struct fsck_worker *w = worker;
	struct rest_task *t = arg;
	struct checker *ck = t->ck;
	enum fsck_result ret = FSCK_OK;

	t->started = true;
	if (!erofs_pool_stopped(ck->sched->pool) && !interrupted()) {
		w->rep = &t->slot.rep;
		ret = check_packed_extent(w, &t->map);
		w->rep = NULL;
	}
	/* the walker may free t from here on */
	order_done(&ck->sched->order, &t->slot);
	return check_errno(ret);
}

static enum fsck_result rest_queue(struct checker *ck,
				   const struct erofs_map *map)
{
	struct rest_task *t;
	int ret;

	task_wait_room(ck);
	t = calloc(1, sizeof(*t));
	if (!t)
		return FSCK_NOMEM;
	t->ck = ck;
	t->map = *map;
	order_add(&ck->sched->order, &t->slot, ORDER_FREE);
	ret = erofs_pool_submit(ck->sched->pool, rest_task_run, t,
				cost_extent(map, map->llen));
	/* refused, it is done as skipped: its slot prints nothing */
	if (ret && !t->started)
		order_done(&ck->sched->order, &t->slot);
	return fsck_result_of(ret);
}

int packed_rest_check(struct checker *ck)
{
	struct packed_rest pr = { .ret = FSCK_OK };
	struct erofs_map map;
	int err;

	while (check_packed_rest(ck, &pr, &map))
		pr.ret = rest_queue(ck, &map);
	task_flush(ck);
	err = erofs_pool_wait(ck->sched->pool);
	task_drain(ck);
	if (err && fsck_result_goes_on(pr.ret))
		pr.ret = fsck_result_of(err);
	return check_packed_report(ck, &pr);
}
