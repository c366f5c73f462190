// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check/check_internal.h"
#include "erofs/image.h"
#include "erofs/pool.h"
#include "sched/cost.h"
#include "sched/file.h"
#include "sched/pieces.h"
#include "sched/readahead.h"
#include "sched/scheduler.h"
#include "sched/task.h"
#include "util/interrupt.h"

/*
 * Tasks printed late at most: bounds the memory of finished ones (about
 * 800 bytes each), whatever the number of files.
 */
#define TASK_MAX_PENDING 4096

/*
 * Files with fragments held at once to be queued in the order of their
 * fragments (task_hold()), and as many tasks pending when the image has a
 * packed inode: 10 MB more (16 MB with --tar, whose entries wait too), but
 * a constant. mkfs lays fragments out in about walk order, not quite: on
 * a Debian root filesystem half the files are within 10 places of their
 * fragment's rank, nine in ten within 36, but deduplicated files point
 * far back. There, 256 at a time decode the packed inode 1.10 times over
 * at -j1 and 1.17 at -j2, 4096 at a time 1.021, 8192 1.000; on
 * bench/mktree.sh's tree, 4096 at a time 1.091, 8192 1.055, 12288 1.000.
 */
#define TASK_HOLD_MAX 12288

/* A whole file: open, check and decode, close. */
static int file_task_run(void *worker, void *arg)
{
	struct fsck_worker *w = worker;
	struct file_task *t = arg;
	struct checker *ck = w->ck;
	struct data_sum ds = { .files = &t->files };
	enum fsck_result ret = FSCK_OK;
	bool skipped = erofs_pool_stopped(ck->sched->pool) || interrupted();
	struct fsck_loc loc;
	struct out_file of;

	t->started = true;
	w->rep = &t->slot.rep;
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
		t->salvaged = ds.salvaged;
	}
	ret = file_task_close(t, ret, ds.hash ? &ds.sha : NULL, skipped);
	w->rep = NULL;
	/* the walker may free t from here on */
	order_done(&ck->sched->order, &t->slot);
	return check_errno(ret);
}

static void file_task_free(struct file_task *t)
{
	xattr_list_release(&t->xl);
	free(t);
}

/* Walker, in walk order: take the results of a finished task. */
static void file_task_complete(struct file_task *t)
{
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

void task_drain(struct checker *ck)
{
	struct order_slot *s;

	/* the queue hands back the units it does not free: files */
	while ((s = order_take(&ck->sched->order)))
		file_task_complete((struct file_task *)s);
}

void task_flush(struct checker *ck)
{
	task_release(ck);
	erofs_pool_flush(ck->sched->pool);
}

bool task_throttle(struct checker *ck)
{
	if (!ck->sched->order.pending)
		return false;
	/* the oldest task may be held, or sit in the batch being filled */
	task_flush(ck);
	order_wait_head(&ck->sched->order);
	task_drain(ck);
	return true;
}

void task_wait_output_room(struct checker *ck)
{
	while (!outputs_room(ck->outs) && task_throttle(ck))
		;
}

void task_wait_room(struct checker *ck)
{
	while (ck->sched->order.pending >=
		       (ck->sched->held ? TASK_HOLD_MAX : TASK_MAX_PENDING) &&
	       task_throttle(ck))
		;
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
	if (t->split)
		split_free(t->split);
	t->split = NULL;
	file_task_close(t, FSCK_STOP, NULL, true);
	order_done(&ck->sched->order, &t->slot);
}

/* Files held to be queued in the order of their data (task_hold()). */
struct task_hold {
	unsigned int n;
	struct file_task *walk[TASK_HOLD_MAX]; /* in walk order */
	unsigned int order[TASK_HOLD_MAX]; /* of walk, by fragment */
	bool queued[TASK_HOLD_MAX]; /* walk[i] is not ours now */
};

/*
 * Is t to be held (task_hold())? When its data is decoded and lies in the
 * packed inode, whose extents are then decoded once each, in a row,
 * rather than evicted between files that the walk meets out of order. A
 * split file is held whole and its pieces queued when it is released.
 */
static bool file_task_holds(const struct checker *ck, const struct file_task *t)
{
	uint64_t off, len;

	return ck->decode && ck->sched->held &&
	       readahead_fragment(&t->inode, &off, &len);
}

/*
 * Does the walker read ahead for t as it meets it? When t is not held;
 * and when t is the first file held, so that the workers, idle until the
 * first batch is released, decode the packed inode's first extents
 * meanwhile: mkfs lays fragments out in about walk order, so the first
 * file's lie near the start. Not when t is split: its pieces decode their
 * own extents.
 */
static bool file_task_reads_ahead(const struct checker *ck,
				  const struct file_task *t, bool split)
{
	if (!file_task_holds(ck, t))
		return true;
	return !split && !ck->stats.hold_batches && !ck->sched->held->n;
}

/* Step 1 but the queueing: what the walker does first, in walk order. */
static enum fsck_result file_task_begin(struct checker *ck,
					const struct walk_entry *e,
					const struct fsck_loc *loc,
					struct file_task *t,
					struct split_file **s)
{
	bool split = pieces_worth(ck, e->inode);
	enum fsck_result ret = FSCK_OK;
	struct out_entry oe;

	if (ck->decode && file_task_reads_ahead(ck, t, split))
		ret = fsck_result_of(
			readahead_file(ck->sched->ra, e->inode, ck->rep, loc));
	if (ret == FSCK_OK && split && !(*s = split_new(t)))
		ret = FSCK_NOMEM;
	check_out_entry(&oe, ck, e, loc);
	if (ret == FSCK_OK)
		ret = outputs_file_begin(ck->outs, &oe, &t->files);
	return ret;
}

/* A whole file's task to the pool, or run here when it is trivial. */
static enum fsck_result file_task_queue(struct checker *ck, struct file_task *t)
{
	if (!outputs_want(ck->outs, OUT_OPENS) &&
	    cost_file_trivial(&t->inode, erofs_ctx_image(ck->ctx)->blksz,
			      check_hashes(ck) || ck->cfg->digests)) {
		ck->stats.walker_files++;
		return fsck_result_of(
			erofs_pool_run_here(ck->sched->pool, file_task_run, t));
	}
	return fsck_result_of(erofs_pool_submit(
		ck->sched->pool, file_task_run, t,
		cost_file(&t->inode, ck->decode,
			  outputs_want(ck->outs, OUT_CREATES))));
}

/* A task could not be queued: the run stops once the queued ones end. */
static void task_stop(struct checker *ck)
{
	ck->sched->stopped = true;
	erofs_pool_wait(ck->sched->pool);
	task_drain(ck);
}

/* After queueing t came to ret: stop the run unless it goes on. */
static enum fsck_result task_stop_if(struct checker *ck, struct file_task *t,
				     enum fsck_result ret)
{
	if (fsck_result_goes_on(ret))
		return FSCK_OK;
	if (!t->started)
		file_task_abandon(ck, t);
	task_stop(ck);
	return ret;
}

static bool split_room(const struct checker *ck)
{
	return __atomic_load_n(&ck->sched->splits_open, __ATOMIC_RELAXED) <
	       ck->sched->splits_max;
}

/*
 * Every split file in flight holds a descriptor (and, hashed, a window of
 * bytes): wait for one to end when as many as allowed are.
 */
static void task_split_wait(struct checker *ck)
{
	uint64_t ended = order_ended(&ck->sched->order);

	if (split_room(ck))
		return;
	/* their pieces may sit in the batch being filled */
	erofs_pool_flush(ck->sched->pool);
	/* a split file ends (its slot is marked done) once it has closed */
	while (!split_room(ck) && ck->sched->order.threaded) {
		order_wait_ended(&ck->sched->order, ended);
		ended = order_ended(&ck->sched->order);
	}
}

/*
 * The outputs take what t's data needs, once they have room for it, then
 * a split file's pieces, or a whole file's task, go to the pool.
 */
static enum fsck_result task_queue(struct checker *ck, struct file_task *t,
				   const struct fsck_loc *loc)
{
	struct split_file *s = t->split;
	enum fsck_result ret;
	struct out_file of;

	/*
	 * Room for its data: once t is the oldest file pending, everything
	 * before it has gone, and an output that delivers in walk order has
	 * room for the item due.
	 */
	while (!outputs_file_room(ck->outs, &t->files) &&
	       ck->sched->order.head != &t->slot && task_throttle(ck))
		;
	file_task_out(t, ck->rep, loc, &of);
	ret = outputs_file_queue(ck->outs, &t->files, &of);
	if (!fsck_result_goes_on(ret))
		return ret;
	if (!s)
		return file_task_queue(ck, t);
	t->split = NULL;
	task_split_wait(ck);
	return split_submit(ck, s, loc);
}

static int fragment_order(const void *a, const void *b, void *arg)
{
	struct file_task *const *walk = arg;
	const struct file_task *p = walk[*(const unsigned int *)a];
	const struct file_task *q = walk[*(const unsigned int *)b];
	uint64_t x = p->inode.z.fragmentoff, y = q->inode.z.fragmentoff;

	if (x != y)
		return x < y ? -1 : 1;
	return p->inode.nid < q->inode.nid ? -1 : p->inode.nid > q->inode.nid;
}

/*
 * Queue held file i, reading ahead from its fragment when it comes in the
 * order of the fragments (in_order); once the run stops, abandon it
 * instead.
 */
static enum fsck_result hold_queue(struct checker *ck, unsigned int i,
				   bool in_order, enum fsck_result ret)
{
	struct file_task *t = ck->sched->held->walk[i];
	struct fsck_loc loc;

	ck->sched->held->queued[i] = true;
	check_loc(&loc, t->path, t->pathlen, &t->inode);
	/* a split file's pieces decode its packed extents */
	if (fsck_result_goes_on(ret) && in_order && !t->split)
		ret = fsck_result_of(readahead_file(ck->sched->ra, &t->inode,
						    ck->rep, &loc));
	if (fsck_result_goes_on(ret))
		ret = task_queue(ck, t, &loc);
	/* no caller of the walk's knows the file */
	if (ret == FSCK_NOMEM && !ck->rep->fatal)
		report_nomem(ck->rep, &loc);
	if (!fsck_result_goes_on(ret) && !t->started)
		file_task_abandon(ck, t);
	return ret;
}

/*
 * Held file k is next in the order of the fragments, but an output has no
 * room for it until the files before it in walk order are delivered (from
 * *first on, not all queued yet): read ahead for k, a little further than
 * for a file queued at once (readahead_stalled()), then queue those in
 * walk order until k has room, waiting for it as they are.
 */
static enum fsck_result hold_make_room(struct checker *ck, unsigned int k,
				       unsigned int *first,
				       enum fsck_result ret)
{
	struct task_hold *h = ck->sched->held;
	struct file_task *t = h->walk[k];
	struct fsck_loc loc;

	ck->stats.hold_stalls++;
	if (fsck_result_goes_on(ret) && !t->split) {
		check_loc(&loc, t->path, t->pathlen, &t->inode);
		ret = fsck_result_of(readahead_stalled(ck->sched->ra, &t->inode,
						       ck->rep, &loc));
		if (ret == FSCK_NOMEM && !ck->rep->fatal)
			report_nomem(ck->rep, &loc);
	}
	for (; *first < k && fsck_result_goes_on(ret) &&
	       !outputs_file_room(ck->outs, &t->files);
	     (*first)++)
		if (!h->queued[*first])
			ret = hold_queue(ck, *first, false, ret);
	return ret;
}

/*
 * In the order of their fragments; but an output that delivers in walk
 * order (the archive) may have no room for a file until the files before
 * it are delivered: those are queued first, in walk order, so that what
 * it waits for is on its way. Read-ahead does not follow them: it would
 * leave the fragments' order for theirs, and evict what it read ahead
 * there before the files in order come back to it; they decode their
 * own extents. It goes on in the fragments' order for the file that waits
 * instead (hold_make_room()).
 */
void task_release(struct checker *ck)
{
	struct task_hold *h = ck->sched->held;
	enum fsck_result ret = FSCK_OK;
	unsigned int i, k, first = 0, n = h ? h->n : 0;

	if (!n)
		return;
	h->n = 0;
	if (!ck->stats.hold_batches)
		ck->stats.held_readahead = ck->sched->ra->queued;
	ck->stats.held_files += n;
	ck->stats.hold_batches++;
	for (i = 0; i < n; i++) {
		h->order[i] = i;
		h->queued[i] = false;
	}
	qsort_r(h->order, n, sizeof(*h->order), fragment_order, h->walk);
	for (i = 0; i < n; i++) {
		k = h->order[i];
		if (h->queued[k])
			continue;
		if (first < k &&
		    !outputs_file_room(ck->outs, &h->walk[k]->files))
			ret = hold_make_room(ck, k, &first, ret);
		ret = hold_queue(ck, k, true, ret);
	}
	if (!fsck_result_goes_on(ret))
		task_stop(ck);
}

int task_hold_init(struct checker *ck)
{
	if (!ck->decode || !erofs_ctx_image(ck->ctx)->has_packed)
		return 0;
	ck->sched->held = calloc(1, sizeof(*ck->sched->held));
	return ck->sched->held ? 0 : -ENOMEM;
}

/* Hold t, whose slot is queued: released when TASK_HOLD_MAX are held. */
static enum fsck_result task_hold(struct checker *ck, struct file_task *t)
{
	ck->sched->held->walk[ck->sched->held->n++] = t;
	if (ck->sched->held->n == TASK_HOLD_MAX)
		task_release(ck);
	return ck->sched->stopped ? FSCK_STOP : FSCK_OK;
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
	task_wait_room(ck);
	order_add(&ck->sched->order, &t->slot, ORDER_FILE);
	t->split = s;
	if (file_task_holds(ck, t))
		return task_hold(ck, t);
	return task_stop_if(ck, t, task_queue(ck, t, loc));
}
