// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "check/check.h"
#include "erofs/data.h"
#include "erofs/fragments.h"
#include "erofs/image.h"
#include "erofs/inode.h"
#include "erofs/pool.h"
#include "sched/readahead.h"
#include "sched/scheduler.h"
#include "util/interrupt.h"
#include "util/knobs.h"

static uint64_t readahead_window(uint64_t cache_budget)
{
	/* the rest keeps extents read again: dedupe points fragments back */
	uint64_t max = cache_budget / 8 * 3, v;

	if (!knob_value("EROFS_FSCK_READAHEAD", &v))
		return max;
	return v < max ? v : max;
}

void readahead_init(struct readahead *ra, struct erofs_ctx *ctx,
		    struct erofs_pool *pool)
{
	struct erofs_frag_stats st;

	ra->ctx = ctx;
	ra->pool = pool;
	ra->next = ra->last_la = 0;
	ra->queued = 0;
	ra->kept_la = ra->kept_end = 0;
	ra->window = 0;
	erofs_frag_cache_stats(erofs_ctx_image(ctx), &st);
	if (erofs_ctx_image(ctx)->frag_cache && erofs_pool_threads(pool))
		ra->window = readahead_window(st.budget);
}

bool readahead_fragment(const struct erofs_inode *inode, uint64_t *off,
			uint64_t *len)
{
	const struct z_erofs_info *z = &inode->z;

	if (!erofs_inode_is_compressed(inode) || !inode->size)
		return false;
	*off = z->fragmentoff;
	if (z->whole_fragment) {
		*len = inode->size;
		return true;
	}
	if (!(z->advise & Z_EROFS_ADVISE_FRAGMENT_PCLUSTER) ||
	    !z->has_tailhead || z->tail_la >= inode->size)
		return false;
	*len = inode->size - z->tail_la;
	return true;
}

static int prefetch_run(void *worker, void *arg)
{
	struct fsck_worker *w = worker;
	struct erofs_map *map = arg;

	/* advisory: a failure is the reader's to meet and report */
	if (!erofs_pool_stopped(w->ck->sched->pool) && !interrupted() &&
	    erofs_frag_prefetch(w->ctx, map))
		erofs_err_drop(erofs_ctx_err(w->ctx));
	free(map);
	return 0;
}

static int prefetch_queue(struct readahead *ra, const struct erofs_map *map)
{
	struct erofs_map *arg = malloc(sizeof(*arg));
	int ret;

	if (!arg)
		return 0;
	*arg = *map;
	ret = erofs_pool_submit_ahead(ra->pool, prefetch_run, arg);
	if (ret)
		free(arg);
	else
		ra->queued++;
	return ret;
}

/*
 * The packed inode cannot be mapped at ra->next: read-ahead stops. The
 * packed inode's check reported where it is corrupt; a read error is new.
 */
static int readahead_error(struct readahead *ra, struct report *rep,
			   const struct fsck_loc *loc, int code)
{
	int ret;

	if (code >= 0 || code == -EFSCORRUPTED) {
		erofs_err_drop(erofs_ctx_err(ra->ctx));
		return 0;
	}
	ret = report_lib_error(rep, loc, erofs_ctx_err(ra->ctx), code);
	return ret < 0 ? ret : 0;
}

/*
 * Map the packed inode at pos: 1, or (read-ahead stopping) 0 or the errno
 * that stops the run.
 */
static int readahead_map(struct readahead *ra, uint64_t pos,
			 struct erofs_map *map, struct report *rep,
			 const struct fsck_loc *loc)
{
	int ret = erofs_map(ra->ctx, &erofs_ctx_image(ra->ctx)->packed, pos, map);

	if (ret >= 0 && map->la + map->llen > pos)
		return 1;
	ra->window = 0;
	return readahead_error(ra, rep, loc, ret);
}

/*
 * The extents of [off, end) that read-ahead has passed already: keep them
 * cached until the file reads them, or decode them again ahead of it if
 * they were evicted (dedupe points fragments back at earlier ones). Only
 * a window's worth: the cache would not keep more for the file. Files in
 * a row share extents: the one kept last is not mapped or kept again.
 */
static int readahead_behind(struct readahead *ra, uint64_t off, uint64_t end,
			    struct report *rep, const struct fsck_loc *loc)
{
	struct erofs_map map;
	int ret;

	while (off < end) {
		if (off >= ra->kept_la && off < ra->kept_end) {
			off = ra->kept_end;
			continue;
		}
		ret = readahead_map(ra, off, &map, rep, loc);
		if (ret <= 0)
			return ret;
		if (!erofs_frag_want(erofs_ctx_image(ra->ctx), &map)) {
			ret = prefetch_queue(ra, &map);
			if (ret)
				return ret;
		}
		ra->kept_la = map.la;
		ra->kept_end = off = map.la + map.llen;
	}
	return 0;
}

bool readahead_reaches(uint64_t window, uint64_t la, uint64_t llen,
		       uint64_t end, bool next_queued, bool stalled)
{
	if (la < end || (window && !next_queued))
		return true;
	return (stalled ? la : la + llen) - end <= window;
}

static int readahead_from(struct readahead *ra, const struct erofs_inode *inode,
			  struct report *rep, const struct fsck_loc *loc,
			  bool stalled)
{
	const struct erofs_inode *packed = &erofs_ctx_image(ra->ctx)->packed;
	uint64_t off, len, end;
	struct erofs_map map;
	int ret;

	if (!ra->window || !readahead_fragment(inode, &off, &len) ||
	    off >= packed->size)
		return 0;
	/* a file far ahead of the window: start again from its fragment */
	if (off > ra->next + ra->window)
		ra->next = off;
	end = off + (len < packed->size - off ? len : packed->size - off);
	if (off < ra->next) {
		uint64_t behind = end < ra->next ? end : ra->next;

		if (behind - off > ra->window)
			behind = off + ra->window;
		ret = readahead_behind(ra, off, behind, rep, loc);
		if (ret || !ra->window)
			return ret;
	}
	while (ra->next < packed->size) {
		ret = readahead_map(ra, ra->next, &map, rep, loc);
		if (ret <= 0)
			return ret;
		if (!readahead_reaches(ra->window, map.la, map.llen, end,
				       ra->last_la >= end, stalled))
			break;
		ret = prefetch_queue(ra, &map);
		if (ret)
			return ret;
		ra->last_la = map.la;
		ra->next = map.la + map.llen;
	}
	return 0;
}

int readahead_file(struct readahead *ra, const struct erofs_inode *inode,
		   struct report *rep, const struct fsck_loc *loc)
{
	return readahead_from(ra, inode, rep, loc, false);
}

int readahead_stalled(struct readahead *ra, const struct erofs_inode *inode,
		      struct report *rep, const struct fsck_loc *loc)
{
	return readahead_from(ra, inode, rep, loc, true);
}
