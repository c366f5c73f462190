// SPDX-License-Identifier: MIT
/*
 * The walker's visitor: each entry is checked here, on the walker, or
 * handed to the scheduler (a regular file's task, sched/task.h), and goes
 * to the outputs (output.h).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check/check_internal.h"
#include "erofs/decompress.h"
#include "erofs/image.h"
#include "erofs/inode.h"
#include "erofs/pool.h"
#include "sched/scheduler.h"
#include "sched/task.h"
#include "util/interrupt.h"
#include "visit.h"

/* A directory, a symlink or another inode that is not a regular file. */
static enum fsck_result visit_inline(struct checker *ck,
				     const struct walk_entry *e,
				     const struct fsck_loc *loc,
				     void **dir_state)
{
	struct fsck_worker *w = &ck->walker;
	struct xattr_scan xs = { .w = w,
				 .list = outputs_want(ck->outs, OUT_XATTRS) };
	struct data_sum ds = { 0 };
	enum fsck_result res;
	struct out_entry oe;

	check_out_entry(&oe, ck, e, loc);
	oe.xl = &xs.listed;
	erofs_sha256_init(&ds.sha);
	res = check_xattrs(w, e->inode, loc, &xs);
	oe.xattrs_ok = res == FSCK_OK;
	if (fsck_result_goes_on(res))
		res = check_inline_data(ck, e->inode, loc, &ds);
	if (fsck_result_goes_on(res)) {
		oe.target = ds.target_ok ? (const char *)w->buf : NULL;
		oe.digest = ds.have_digest ? ds.digest : NULL;
		res = outputs_entry(ck->outs, &oe, dir_state);
	}
	xattr_list_release(&xs.listed);
	return res;
}

/* A further name of an inode met before. */
static enum fsck_result visit_other_name(struct checker *ck,
					 const struct walk_entry *e,
					 const struct fsck_loc *loc)
{
	struct out_entry oe;

	check_out_entry(&oe, ck, e, loc);
	check_count_name(ck, e->inode);
	return outputs_entry(ck->outs, &oe, NULL);
}

static int visit_entry(void *arg, const struct walk_entry *e, void **dir_state)
{
	struct checker *ck = arg;
	const struct erofs_inode *inode = e->inode;
	enum fsck_result ret;
	struct fsck_loc loc;

	/* an output could not be written: stop (its finish says why) */
	if (outputs_failed(ck->outs))
		return check_errno(FSCK_STOP);
	__atomic_add_fetch(&ck->pc.entries, 1, __ATOMIC_RELAXED);
	report_msg(ck->rep, FSCK_LVL_DEBUG, "nid %llu: mode 0%o, size %llu",
		   (unsigned long long)e->nid, inode->mode,
		   (unsigned long long)inode->size);
	check_loc(&loc, e->path, e->pathlen, inode);
	task_wait_output_room(ck);
	if (!e->first)
		ret = visit_other_name(ck, e, &loc);
	else if (S_ISREG(inode->mode))
		ret = task_submit_file(ck, e, &loc);
	else
		ret = visit_inline(ck, e, &loc, dir_state);
	task_drain(ck);
	if (ret == FSCK_NOMEM && !ck->rep->fatal)
		report_nomem(ck->rep, &loc);
	return check_errno(ret);
}

static int visit_dir_done(void *arg, const struct walk_entry *e,
			  void *dir_state)
{
	struct checker *ck = arg;

	(void)e;
	outputs_dir_end(ck->outs, dir_state);
	task_drain(ck);
	return 0;
}

void visit_init(struct checker *ck, struct walk_visitor *v)
{
	v->entry = visit_entry;
	v->dir_done = visit_dir_done;
	v->arg = ck;
}

int visit_finish(struct checker *ck)
{
	unsigned int peak;
	int ret = 0;

	if (ck->sched->pool && interrupted())
		erofs_pool_cancel(ck->sched->pool, -EINTR);
	if (ck->sched->pool) {
		task_release(ck);
		ret = erofs_pool_wait(ck->sched->pool);
	}
	task_drain(ck);
	if (ck->stats.split_files)
		report_msg(ck->rep, FSCK_LVL_DEBUG,
			   "split files: %llu, in %llu pieces",
			   (unsigned long long)ck->stats.split_files,
			   (unsigned long long)ck->stats.pieces);
	if (ck->stats.walker_files && erofs_pool_threads(ck->sched->pool))
		report_msg(
			ck->rep, FSCK_LVL_DEBUG,
			"files too small to hand over, checked on the walker: %llu",
			(unsigned long long)ck->stats.walker_files);
	/* every task has ended: the peak is the run's */
	peak = erofs_decoders_peak(erofs_ctx_image(ck->ctx));
	if (peak)
		report_msg(ck->rep, FSCK_LVL_DEBUG,
			   "threads decoding at once: at most %u", peak);
	if (ck->stats.held_files)
		report_msg(ck->rep, FSCK_LVL_DEBUG,
			   "held files: %llu, queued in %llu batches",
			   (unsigned long long)ck->stats.held_files,
			   (unsigned long long)ck->stats.hold_batches);
	if (ck->stats.held_readahead)
		report_msg(
			ck->rep, FSCK_LVL_DEBUG,
			"read-ahead tasks queued while the first files were held: %llu",
			(unsigned long long)ck->stats.held_readahead);
	if (ck->stats.hold_stalls)
		report_msg(ck->rep, FSCK_LVL_DEBUG,
			   "held files waiting for an output's room: %llu",
			   (unsigned long long)ck->stats.hold_stalls);
	if (ret)
		ck->sched->stopped = true;
	check_count_links(ck);
	return ret;
}
