// SPDX-License-Identifier: MIT
#include <stdlib.h>
#include <string.h>

#include "check_internal.h"
#include "cost.h"
#include "erofs/pool.h"
#include "interrupt.h"
#include "manifest.h"
#include "pieces.h"
#include "task.h"
#include "tar.h"

/* Tasks printed late at most: bounds the memory of finished ones. */
#define TASK_MAX_PENDING 4096

const char *task_name(const struct file_task *t)
{
	if (t->start)
		return NULL;
	return t->path + t->pathlen - t->namelen;
}

/* Create, check, decode and write. */
static enum fsck_result file_task_work(struct fsck_worker *w,
				       struct file_task *t)
{
	struct checker *ck = w->ck;
	struct xattr_scan xs = { .w = w, .list = check_wants_xattrs(ck) };
	struct data_sum ds = { .fd = -1, .tf = t->tf };
	enum fsck_result ret, out = FSCK_OK;
	struct fsck_loc loc;

	check_loc(&loc, t->path, t->pathlen, &t->inode);
	erofs_sha256_init(&ds.sha);
	ret = check_xattrs(w, &t->inode, &loc, &xs);
	if (!fsck_result_goes_on(ret))
		return ret;
	t->xattrs_ok = ret == FSCK_OK;
	/* a file that could not be created (ds.fd -1) is still checked */
	if (t->dir)
		out = check_output(extract_file_create(ck->x, w->rep, &loc,
						       t->dir, task_name(t),
						       &t->inode, &ds.fd));
	if (out != FSCK_OK)
		ret = out;
	if (fsck_result_goes_on(ret))
		ret = check_file(w, &t->inode, &loc, &xs, &ds,
				 &t->digest_checked);
	t->data_ok = ret == FSCK_OK;
	if (ds.fd >= 0 && ret != FSCK_OK) {
		extract_file_abort(ck->x, t->dir, task_name(t), ds.fd);
	} else if (ds.fd >= 0) {
		ret = extract_file_commit(ck->x, w->rep, &loc, t->dir,
					  task_name(t), ds.fd, &t->inode,
					  &xs.listed);
		t->created = fsck_result_goes_on(ret);
	}
	t->physical = ds.physical;
	t->have_digest = ds.have_digest;
	memcpy(t->digest, ds.digest, sizeof(t->digest));
	t->xl = xs.listed;
	return ret;
}

static int file_task_run(void *worker, void *arg)
{
	struct fsck_worker *w = worker;
	struct file_task *t = arg;
	struct checker *ck = w->ck;
	enum fsck_result ret = FSCK_OK;
	struct fsck_loc loc;

	t->started = true;
	w->rep = &t->rep;
	if (erofs_pool_stopped(ck->pool) || interrupted())
		t->skipped = true;
	else
		ret = file_task_work(w, t);
	if (ret == FSCK_NOMEM && !t->rep.fatal) {
		check_loc(&loc, t->path, t->pathlen, &t->inode);
		report_nomem(&t->rep, &loc);
	}
	extract_file_end(ck->x, t->dir);
	if (t->tf)
		tar_file_done(t->tf, t->data_ok && t->xattrs_ok, &t->xl);
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
	int ret = 0;

	if (t->skipped || !t->started) {
		file_task_free(t);
		return;
	}
	ck->stats.stored += t->physical;
	ck->digests_checked += t->digest_checked;
	if (ck->x && t->inode.nlink > 1)
		extract_file_status(ck->x, t->inode.nid, t->created);
	if (check_count_blocks(ck, &t->inode, t->physical) != FSCK_OK)
		ret = -ENOMEM;
	if (ck->manifest && !ret)
		ret = manifest_complete(ck->manifest, t->mf_handle, &t->inode,
					t->have_digest ? t->digest : NULL,
					&t->xl);
	if (ret && !ck->rep->fatal) {
		struct fsck_loc loc;

		check_loc(&loc, t->path, t->pathlen, &t->inode);
		report_nomem(ck->rep, &loc);
	}
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
	t->skipped = true;
	extract_file_end(ck->x, t->dir);
	if (t->tf)
		tar_file_done(t->tf, false, NULL);
	report_task_done(ck->rep, &t->rep);
}

/* What the walker does before the task is queued, in walk order. */
static enum fsck_result file_task_prepare(struct checker *ck,
					  const struct walk_entry *e,
					  const struct fsck_loc *loc,
					  struct file_task *t,
					  struct split_file **s)
{
	const char *rel = t->path + t->pathlen - t->rellen;
	enum fsck_result ret;

	ret = check_list(ck, e, NULL);
	if (ret == FSCK_OK && ck->decode)
		ret = check_result_of(
			readahead_file(&ck->ra, e->inode, ck->rep, loc));
	if (ret == FSCK_OK && pieces_worth(ck, e->inode) &&
	    !(*s = split_new(t)))
		ret = FSCK_NOMEM;
	if (ret == FSCK_OK && ck->manifest)
		ret = check_result_of(manifest_add_pending(
			ck->manifest, rel, t->rellen, e->inode, &t->mf_handle));
	if (ret == FSCK_OK && ck->x)
		ret = check_output(extract_file_begin(ck->x, e, loc, &t->dir));
	if (ret == FSCK_OK && ck->tar)
		ret = check_result_of(
			tar_file_begin(ck->tar, e, ck->rep, loc, &t->tf));
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
	ret = file_task_prepare(ck, e, loc, t, &s);
	if (ret != FSCK_OK) {
		if (s)
			split_free(s);
		free(t);
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
		ret = check_result_of(erofs_pool_submit(
			ck->pool, file_task_run, t,
			cost_file(e->inode, ck->decode, ck->x)));
	if (fsck_result_goes_on(ret))
		return FSCK_OK;
	if (!t->started)
		file_task_abandon(ck, t);
	ck->stopped = true;
	erofs_pool_wait(ck->pool);
	report_drain(ck->rep);
	return ret;
}
