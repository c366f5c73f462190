// SPDX-License-Identifier: MIT
/* Steps 2 and 4 of a regular file's life cycle (file.h). */
#include <string.h>

#include "check/check_internal.h"
#include "sched/file.h"

/* What the outputs are told of t, reporting into rep. */
void file_task_out(const struct file_task *t, struct report *rep,
		   const struct fsck_loc *loc, struct out_file *of)
{
	memset(of, 0, sizeof(*of));
	of->rep = rep;
	of->loc = loc;
	of->inode = &t->inode;
	of->name = t->start ? NULL : t->path + t->pathlen - t->namelen;
	of->rel = t->path + t->pathlen - t->rellen;
	of->rellen = t->rellen;
	of->xl = &t->xl;
	of->xattrs_ok = t->xattrs_ok;
	of->data_ok = t->data_ok;
	of->salvaged = t->salvaged;
	of->skipped = t->skipped;
	of->digest = t->have_digest ? t->digest : NULL;
}

enum fsck_result file_task_open(struct fsck_worker *w, struct file_task *t,
				const struct fsck_loc *loc)
{
	struct checker *ck = w->ck;
	struct xattr_scan xs = { .w = w,
				 .list = outputs_want(ck->outs, OUT_XATTRS) };
	enum fsck_result ret, opened;
	struct out_file of;

	ret = check_xattrs(w, &t->inode, loc, &xs);
	if (!fsck_result_goes_on(ret))
		return ret;
	t->xattrs_ok = ret == FSCK_OK;
	t->xl = xs.listed;
	file_task_out(t, w->rep, loc, &of);
	/* a file an output could not open is still checked */
	opened = outputs_file_open(ck->outs, &t->files, &of);
	if (opened != FSCK_OK)
		ret = opened;
	if (!fsck_result_goes_on(ret))
		return ret;
	t->verify = check_wants_digest(w->rep, ck, loc, &xs);
	t->hash = check_hashes(ck) || t->verify;
	if (t->verify)
		memcpy(t->expected, xs.digest, EROFS_SHA256_LEN);
	return ret;
}

enum fsck_result file_task_close(struct file_task *t, enum fsck_result data,
				 struct erofs_sha256 *sha, bool skipped)
{
	enum fsck_result ret;
	struct fsck_loc loc;
	struct out_file of;

	check_loc(&loc, t->path, t->pathlen, &t->inode);
	t->skipped = skipped;
	t->data_ok = data == FSCK_OK && !skipped;
	/*
	 * content that is not what its digest says fails as damage does,
	 * and is salvaged as it is with --ignore-errors
	 */
	if (t->data_ok && sha &&
	    !check_digest(&t->slot.rep, &loc, sha, t->digest,
			  t->verify ? t->expected : NULL)) {
		t->salvaged = t->ck->salvage;
		if (!t->salvaged) {
			data = FSCK_REPORTED;
			t->data_ok = false;
		}
	}
	if (t->data_ok && sha) {
		t->have_digest = true;
		t->digest_checked = t->verify;
	}
	file_task_out(t, &t->slot.rep, &loc, &of);
	ret = outputs_file_end(t->ck->outs, &t->files, &of,
			       skipped ? FSCK_STOP : data);
	if (skipped)
		ret = data;
	if (ret == FSCK_NOMEM && !t->slot.rep.fatal)
		report_nomem(&t->slot.rep, &loc);
	return ret;
}
