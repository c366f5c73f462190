// SPDX-License-Identifier: MIT
#include <stdlib.h>
#include <string.h>

#include "check_internal.h"
#include "cost.h"
#include "erofs/pool.h"
#include "file.h"
#include "interrupt.h"
#include "pieces.h"
#include "readahead.h"
#include "task.h"

/* Tasks printed late at most: bounds the memory of finished ones. */
#define TASK_MAX_PENDING 4096

/* A whole file: open, check and decode, close. */
static int file_task_run(void *worker, void *arg)
{
	struct fsck_worker *w = worker;
	struct file_task *t = arg;
	struct checker *ck = w->ck;
	struct data_sum ds = { .files = &t->files };
	enum fsck_result ret = FSCK_OK;
	bool skipped = erofs_pool_stopped(ck->pool) || interrupted();
	struct fsck_loc loc;
	struct out_file of;

	t->started = true;
	w->rep = &t->rep;
	check_loc(&loc, t->path, t->pathlen, &t->inode);
	erofs_sha256_init(&ds.sha);
	if (!skipped)
		ret = file_task_open(w, t, &loc);
	if (!skipped && fsck_result_goes_on(ret)) {
		file_task_out(t, w->rep, &loc, &of);
		ds.of = &of;
		ds.hash = t->hash;
		ret = check_file(w, &t->inode, &loc, &ds);
		t->physical = ds.physical;
	}
	ret = file_task_close(t, ret, ds.hash ? &ds.sha : NULL, skipped);
	w->rep = NULL;
	/* the walker may free t from here on */
	report_task_done(ck->rep, &t->rep);
	return check_errno(ret);
}

static void file_task_free(struct file_task *t)
{
	xattr_list_release(&t->xl);
	free(t);
}

/* Walker, in walk order: take the results of a finished task. */
static void file_task_complete(void *arg)
{
	struct file_task *t = arg;
	struct checker *ck = t->ck;
	enum fsck_result ret = FSCK_OK;
	struct fsck_loc loc;
	struct out_file of;

	check_loc(&loc, t->path, t->pathlen, &t->inode);
	if (!t->started)
		t->skipped = true;
	file_task_out(t, ck->rep, &loc, &of);
	if (!t->skipped) {
		ck->stats.stored += t->physical;
		ck->digests_checked += t->digest_checked;
		ret = check_count_blocks(ck, &t->inode, t->physical);
	}
	if (outputs_file_done(ck->outs, &t->files, &of) == FSCK_NOMEM)
		ret = FSCK_NOMEM;
	if (ret == FSCK_NOMEM && !ck->rep->fatal)
		report_nomem(ck->rep, &loc);
	file_task_free(t);
}

bool task_throttle(void *arg)
{
	struct checker *ck = arg;

	if (!ck->rep->q_tasks)
		return false;
	/* the oldest task may still sit in the batch being filled */
	erofs_pool_flush(ck->pool);
	report_wait_head(ck->rep);
	report_drain(ck->rep);
	return true;
}

static struct file_task *file_task_new(struct checker *ck,
				       const struct walk_entry *e)
{
	struct file_task *t = calloc(1, sizeof(*t) + e->pathlen + 1);

	if (!t)
		return NULL;
	t->ck = ck;
	t->inode = *e->inode;
	t->start = !e->depth;
	memcpy(t->path, e->path, e->pathlen);
	t->pathlen = e->pathlen;
	t->rellen = e->rellen;
	t->namelen = e->namelen;
	return t;
}

/* The task was not queued: finish it here so that its slot is done. */
static void file_task_abandon(struct checker *ck, struct file_task *t)
{
	file_task_close(t, FSCK_STOP, NULL, true);
	report_task_done(ck->rep, &t->rep);
}

/* Step 1 but the queueing: what the walker does first, in walk order. */
static enum fsck_result file_task_begin(struct checker *ck,
					const struct walk_entry *e,
					const struct fsck_loc *loc,
					struct file_task *t,
					struct split_file **s)
{
	enum fsck_result ret = FSCK_OK;
	struct out_entry oe;

	if (ck->decode)
		ret = fsck_result_of(
			readahead_file(ck->ra, e->inode, ck->rep, loc));
	if (ret == FSCK_OK && pieces_worth(ck, e->inode) &&
	    !(*s = split_new(t)))
		ret = FSCK_NOMEM;
	check_out_entry(&oe, ck, e, loc);
	if (ret == FSCK_OK)
		ret = outputs_file_begin(ck->outs, &oe, &t->files);
	return ret;
}

enum fsck_result task_submit_file(struct checker *ck,
				  const struct walk_entry *e,
				  const struct fsck_loc *loc)
{
	struct split_file *s = NULL;
	struct file_task *t;
	enum fsck_result ret;
	int added;

	ck->stats.files++;
	ck->stats.bytes += e->inode->size;
	/* further names may come before the task is done: count them */
	if (ck->cfg->ratio && e->inode->nlink > 1 &&
	    !nidmap_get(&ck->linked, e->nid, &added))
		return FSCK_NOMEM;
	t = file_task_new(ck, e);
	if (!t)
		return FSCK_NOMEM;
	ret = file_task_begin(ck, e, loc, t, &s);
	if (ret != FSCK_OK) {
		if (s)
			split_free(s);
		/* what the outputs began is ended, never opened */
		file_task_close(t, FSCK_STOP, NULL, true);
		file_task_complete(t);
		return ret;
	}
	while (ck->rep->q_tasks >= TASK_MAX_PENDING && task_throttle(ck))
		;
	/* every split file in flight holds a descriptor */
	while (s &&
	       __atomic_load_n(&ck->splits_open, __ATOMIC_RELAXED) >=
		       ck->splits_max &&
	       task_throttle(ck))
		;
	report_task_init(ck->rep, &t->rep, &t->slot, file_task_complete, t);
	if (s)
		ret = split_submit(ck, s, loc);
	else
		ret = fsck_result_of(erofs_pool_submit(
			ck->pool, file_task_run, t,
			cost_file(e->inode, ck->decode,
				  outputs_want(ck->outs, OUT_CREATES))));
	if (fsck_result_goes_on(ret))
		return FSCK_OK;
	if (!t->started)
		file_task_abandon(ck, t);
	ck->stopped = true;
	erofs_pool_wait(ck->pool);
	report_drain(ck->rep);
	return ret;
}
