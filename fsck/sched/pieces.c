// SPDX-License-Identifier: MIT
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "check/check_internal.h"
#include "erofs/data.h"
#include "erofs/fragments.h"
#include "erofs/pool.h"
#include "sched/cost.h"
#include "sched/file.h"
#include "sched/pieces.h"
#include "sched/readahead.h"
#include "sched/scheduler.h"
#include "sched/split.h"
#include "util/grow.h"
#include "util/window.h"

/*
 * Decoded bytes of a split file's pieces waiting to be hashed in order,
 * besides the one piece being hashed: per split file, and there are at
 * most as many split files in flight as threads.
 */
#define PIECES_WINDOW_BYTES (4u << 20)

struct out_run {
	size_t len;
	bool zeros; /* a hole: no bytes in buf */
};

/*
 * What a piece of a file hashed in order hands on: its bytes in order,
 * kept up to PIECES_WINDOW_BYTES; past that, once the piece is due, it
 * hashes them itself as they come (streaming).
 */
struct piece_out {
	struct ord_item item;
	bool ok; /* the piece decoded its whole range */
	bool streaming;
	uint8_t *buf; /* the data runs, end to end */
	size_t len, cap;
	struct out_run *runs;
	size_t nruns, runcap;
	/* the consumer's, for streaming */
	struct ord_window *window;
	struct erofs_sha256 *sha;
	bool *broken; /* no digest: do not hash */
};

struct split_file {
	struct file_task *t;
	enum fsck_result head; /* the walker's part */
	unsigned int refs; /* atomic: queued pieces + walker */
	bool stopped; /* atomic: the run stopped a piece */
	uint64_t physical; /* atomic: stored bytes of pieces */
	uint64_t fail_at; /* atomic: start of failed, or max */
	pthread_mutex_t lock; /* failed */
	struct file_piece *failed; /* the lowest failed piece so far */
	/* hashed in order (--manifest, a digest to verify): */
	bool hashing;
	struct ord_window window; /* pieces' bytes, to the hash */
	uint64_t pieces; /* queued so far: the next seq */
	bool hash_broken; /* by the deliverer: a piece failed */
	struct erofs_sha256 sha; /* by the deliverer */
};

struct file_piece {
	struct split_file *s;
	struct piece_out *out; /* hashing: to the window */
	struct split_piece range;
	struct erofs_map *maps; /* the planner's, from range.start */
	size_t nmaps, used;
	bool from_cache; /* hashed: its bytes are fragments, all mapped */
	bool cut_short; /* stopped: its outcome does not count */
	uint64_t physical; /* stored bytes up to a failure */
	enum fsck_result ret; /* of a failed piece */
	struct report rep;
	struct report_slot slot;
};

/* The maps of the piece being planned. */
struct map_list {
	struct erofs_map *maps;
	size_t n, cap;
	bool full; /* no memory: the piece maps the rest */
};

static enum fsck_result out_run_add(struct piece_out *out, size_t len,
				    bool zeros)
{
	if (out->nruns && out->runs[out->nruns - 1].zeros == zeros) {
		out->runs[out->nruns - 1].len += len;
		return FSCK_OK;
	}
	if (ARRAY_GROW(out->runs, out->runcap, out->nruns + 1, 8))
		return FSCK_NOMEM;
	out->runs[out->nruns].len = len;
	out->runs[out->nruns++].zeros = zeros;
	return FSCK_OK;
}

/* Hash what a piece kept, in order; false if a signal stopped it. */
static bool out_hash(const struct piece_out *out, struct erofs_sha256 *sha)
{
	const uint8_t *p = out->buf;
	size_t i;

	for (i = 0; i < out->nruns; i++) {
		if (out->runs[i].zeros) {
			if (check_sha_zeros(sha, out->runs[i].len) != FSCK_OK)
				return false;
			continue;
		}
		erofs_sha256_update(sha, p, out->runs[i].len);
		p += out->runs[i].len;
	}
	return true;
}

/* Too much to keep: wait for our turn, hash what we kept, then stream. */
static void out_stream(struct piece_out *out)
{
	ord_window_wait_due(out->window, out->item.seq);
	out->streaming = true;
	/* an incomplete hash is no digest */
	if (!*out->broken && !out_hash(out, out->sha))
		*out->broken = true;
	free(out->buf);
	free(out->runs);
	out->buf = NULL;
	out->runs = NULL;
	out->len = out->cap = out->nruns = out->runcap = 0;
}

/* A piece's decoded bytes, in order: kept for the hash, or hashed. */
static enum fsck_result piece_out_add(void *arg, const uint8_t *buf, size_t len)
{
	struct piece_out *out = arg;
	size_t cap = out->cap;
	uint8_t *p;

	if (!out->streaming && len > PIECES_WINDOW_BYTES - out->len)
		out_stream(out);
	if (out->streaming) {
		if (!*out->broken)
			erofs_sha256_update(out->sha, buf, len);
		return FSCK_OK;
	}
	while (cap - out->len < len)
		cap = cap ? 2 * cap : 65536;
	/* len fits in the window with what is kept */
	if (cap > PIECES_WINDOW_BYTES)
		cap = PIECES_WINDOW_BYTES;
	if (cap != out->cap) {
		p = realloc(out->buf, cap);
		if (!p)
			return FSCK_NOMEM;
		out->buf = p;
		out->cap = cap;
	}
	memcpy(out->buf + out->len, buf, len);
	out->len += len;
	return out_run_add(out, len, false);
}

/* The same for a hole of len bytes. */
static enum fsck_result piece_out_zeros(void *arg, uint64_t len)
{
	struct piece_out *out = arg;

	if (out->streaming)
		return *out->broken ? FSCK_OK : check_sha_zeros(out->sha, len);
	return len > SIZE_MAX ? FSCK_NOMEM
			      : out_run_add(out, (size_t)len, true);
}

static void out_free(struct piece_out *out)
{
	free(out->buf);
	free(out->runs);
	free(out);
}

/*
 * Split a file whose decoding is worth several pieces. A file hashed in
 * order is split too: its pieces hand their bytes to the hash in order
 * through an ordered window (window.h). A file whose data is all one
 * fragment has its packed extents decoded ahead by read-ahead when they
 * fit its window (readahead.h); past the window, read-ahead would evict
 * them before the file reads them: pieces decode them instead.
 */
bool pieces_worth(const struct checker *ck, const struct erofs_inode *inode)
{
	uint64_t cost, off, len;

	/* a salvaged piece's reports would go with the piece */
	if (!ck->sched->split_ns || !ck->decode || ck->salvage ||
	    !erofs_pool_threads(ck->sched->pool))
		return false;
	cost = split_data_cost(inode->size, cost_data_per_kib(inode));
	if (!split_worth(cost, ck->sched->split_ns))
		return false;
	return !ck->sched->ra->window || !inode->z.whole_fragment ||
	       !readahead_fragment(inode, &off, &len) ||
	       len > ck->sched->ra->window;
}

struct split_file *split_new(struct file_task *t)
{
	struct split_file *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->t = t;
	s->refs = 1;
	s->fail_at = UINT64_MAX;
	pthread_mutex_init(&s->lock, NULL);
	return s;
}

void split_free(struct split_file *s)
{
	if (s->hashing)
		ord_window_fini(&s->window);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

/* The window's consumer: one piece's bytes, in file order. */
static void split_hash_piece(void *arg, struct ord_item *item)
{
	struct piece_out *out = (struct piece_out *)item;
	struct split_file *s = arg;

	if (!out->ok)
		s->hash_broken = true;
	if (!s->hash_broken && !out->streaming && !out_hash(out, &s->sha))
		s->hash_broken = true;
	out_free(out);
}

static enum fsck_result split_start_hash(struct split_file *s)
{
	int ret = ord_window_init(&s->window, PIECES_WINDOW_BYTES,
				  split_hash_piece, s);

	if (ret)
		return fsck_result_of(ret);
	s->hashing = true;
	erofs_sha256_init(&s->sha);
	return FSCK_OK;
}

static void piece_free(struct file_piece *p)
{
	report_discard(&p->rep);
	free(p->maps);
	free(p);
}

/*
 * The extent at pos as the planner mapped it, if it did: pieces are not
 * mapped twice. Past the planner's maps, the piece maps on its own.
 */
static bool piece_next_map(void *arg, uint64_t pos, struct erofs_map *map)
{
	struct file_piece *p = arg;
	const struct erofs_map *m;

	if (p->used >= p->nmaps)
		return false;
	m = &p->maps[p->used];
	if (pos < m->la || pos - m->la >= m->llen)
		return false;
	p->used++;
	*map = *m;
	return true;
}

/*
 * Between extents: should the piece stop, its outcome no longer counting
 * (the run stopped, or a piece before it failed)? Once true, the piece is
 * cut short and its outcome is dropped.
 */
static bool piece_cut_short(struct file_piece *p)
{
	const struct split_file *s = p->s;

	if (erofs_pool_stopped(s->t->ck->sched->pool) ||
	    __atomic_load_n(&s->fail_at, __ATOMIC_RELAXED) < p->range.start)
		p->cut_short = true;
	return p->cut_short;
}

/* Keep p if it failed before every piece that failed so far. */
static void piece_failed(struct split_file *s, struct file_piece *p)
{
	struct file_piece *drop = p;

	pthread_mutex_lock(&s->lock);
	if (!s->failed || p->range.start < s->failed->range.start) {
		drop = s->failed;
		s->failed = p;
		__atomic_store_n(&s->fail_at, p->range.start, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&s->lock);
	if (drop)
		piece_free(drop);
}

/*
 * Every piece is done: report the first failure, close the file (file.h),
 * mark the slot done. The file's result.
 */
static enum fsck_result split_finish(struct split_file *s)
{
	struct file_task *t = s->t;
	struct checker *ck = t->ck;
	struct file_piece *p = s->failed;
	uint64_t physical = s->physical;
	enum fsck_result ret = s->head;

	if (ret == FSCK_OK && p) {
		report_take(&t->slot.rep, &p->rep);
		ret = p->ret;
		physical = p->range.before + p->physical;
	}
	if (p)
		piece_free(p);
	t->physical = physical;
	ret = file_task_close(t, ret,
			      s->hashing && !s->hash_broken ? &s->sha : NULL,
			      s->stopped);
	split_free(s);
	__atomic_sub_fetch(&ck->sched->splits_open, 1, __ATOMIC_RELAXED);
	/* the walker may free t from here on */
	order_done(&ck->sched->order, &t->slot);
	return ret;
}

/* Drop a reference: FSCK_OK unless it was the last (split_finish). */
static enum fsck_result split_put(struct split_file *s)
{
	if (__atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL))
		return FSCK_OK;
	return split_finish(s);
}

/*
 * A hashed piece whose bytes are fragments keeps none of them: it has the
 * fragment cache decode its packed extents now, alongside the pieces
 * before it, and reads them from there when its turn to hash comes. Its
 * extents are a packed extent each, larger than the window: kept, it
 * would have waited for room, one piece at a time.
 */
static void piece_prefetch(struct fsck_worker *w, const struct file_piece *p)
{
	struct erofs_map part, packed;
	size_t i;

	for (i = 0; i < p->nmaps; i++) {
		/* advisory: a failure is met again when the bytes are read */
		if (erofs_frag_map_part(w->ctx, &p->maps[i], p->maps[i].la,
					&part, &packed) ||
		    erofs_frag_prefetch(w->ctx, &packed))
			erofs_err_drop(erofs_ctx_err(w->ctx));
	}
}

static bool piece_goes_on(void *arg)
{
	return !piece_cut_short(arg);
}

static int piece_run(void *worker, void *arg)
{
	struct fsck_worker *w = worker;
	struct file_piece *p = arg;
	struct split_file *s = p->s;
	struct file_task *t = s->t;
	struct piece_out *out = p->out;
	const struct hash_sink sink = {
		.add = piece_out_add,
		.zeros = piece_out_zeros,
		.arg = out,
	};
	const struct extent_source src = {
		.go_on = piece_goes_on,
		.next_map = piece_next_map,
		.arg = p,
	};
	struct out_file of = {
		.rep = &p->rep,
		.inode = &t->inode,
		.xl = &t->xl,
		.xattrs_ok = t->xattrs_ok,
		.name = t->start ? NULL : t->path + t->pathlen - t->namelen,
		.rel = t->path + t->pathlen - t->rellen,
		.rellen = t->rellen,
	};
	struct data_sum ds = {
		.hash = s->hashing,
		.sink = out ? &sink : NULL,
		.files = &t->files,
		.of = &of,
	};
	enum fsck_result ret = FSCK_OK;
	struct fsck_loc loc;
	bool counts, ok;

	check_loc(&loc, t->path, t->pathlen, &t->inode);
	of.loc = &loc;
	w->rep = &p->rep;
	if (out && p->from_cache && !piece_cut_short(p)) {
		piece_prefetch(w, p);
		out_stream(out);
	}
	if (!piece_cut_short(p))
		ret = check_range(w, &t->inode, &loc, true, &ds, p->range.start,
				  p->range.end, &src);
	if (ret == FSCK_NOMEM && !p->rep.fatal)
		report_nomem(&p->rep, &loc);
	w->rep = NULL;
	counts = !p->cut_short;
	if (!counts && erofs_pool_stopped(t->ck->sched->pool))
		__atomic_store_n(&s->stopped, true, __ATOMIC_RELAXED);
	ok = counts && ret == FSCK_OK;
	if (ok)
		__atomic_add_fetch(&s->physical, ds.physical, __ATOMIC_RELAXED);
	if (ok || !counts) {
		piece_free(p);
	} else {
		p->ret = ret;
		p->physical = ds.physical;
		piece_failed(s, p);
	}
	if (out) {
		out->ok = ok;
		/* before the put: the last put finds every piece hashed */
		ord_window_complete(&s->window, &out->item);
	}
	return check_errno(split_put(s));
}

static void map_list_add(struct map_list *ml, const struct erofs_map *map)
{
	if (ml->full)
		return;
	if (ARRAY_GROW(ml->maps, ml->cap, ml->n + 1, 16)) {
		ml->full = true;
		return;
	}
	ml->maps[ml->n++] = *map;
}

/* Are the maps of a piece over range fragments, all of them? */
static bool maps_from_cache(const struct map_list *ml,
			    const struct split_piece *range)
{
	size_t i;

	if (ml->full || !ml->n ||
	    ml->maps[ml->n - 1].la + ml->maps[ml->n - 1].llen != range->end)
		return false;
	for (i = 0; i < ml->n; i++)
		if (ml->maps[i].loc != EROFS_LOC_FRAGMENT)
			return false;
	return true;
}

/*
 * Queue one piece with the maps in ml, which starts again empty. Only
 * with threads: submit then never runs it inline.
 */
static enum fsck_result split_queue(struct checker *ck, struct split_file *s,
				    const struct split_piece *range,
				    struct map_list *ml)
{
	struct file_piece *p = calloc(1, sizeof(*p));
	enum fsck_result ret;
	uint64_t len;

	if (p) {
		p->maps = ml->maps;
		p->nmaps = ml->n;
		p->from_cache = s->hashing && maps_from_cache(ml, range);
	} else {
		free(ml->maps);
	}
	memset(ml, 0, sizeof(*ml));
	if (!p)
		return FSCK_NOMEM;
	if (s->hashing && !(p->out = calloc(1, sizeof(*p->out)))) {
		free(p->maps);
		free(p);
		return FSCK_NOMEM;
	}
	p->s = s;
	p->range = *range;
	report_held_init(ck->rep, &p->rep, &p->slot);
	__atomic_add_fetch(&s->refs, 1, __ATOMIC_ACQ_REL);
	if (p->out) {
		p->out->item.seq = s->pieces++;
		/* a piece keeps at most that much (struct piece_out) */
		len = p->from_cache ? 0 : range->end - range->start;
		p->out->item.bytes = len < PIECES_WINDOW_BYTES
					     ? (size_t)len
					     : PIECES_WINDOW_BYTES;
		p->out->window = &s->window;
		p->out->sha = &s->sha;
		p->out->broken = &s->hash_broken;
		/* the pieces it would wait for may sit in the batch */
		if (!ord_window_has_room(&s->window, &p->out->item,
					 p->out->item.bytes))
			erofs_pool_flush(ck->sched->pool);
		ord_window_reserve(&s->window, &p->out->item);
	}
	ret = fsck_result_of(
		erofs_pool_submit(ck->sched->pool, piece_run, p, range->cost));
	if (ret == FSCK_OK) {
		ck->stats.pieces++;
		return FSCK_OK;
	}
	/* not queued; the walker's reference keeps s */
	__atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL);
	if (p->out) {
		/* its turn must still come: it breaks the hash */
		ord_window_complete(&s->window, &p->out->item);
	}
	free(p->maps);
	free(p);
	return ret;
}

/*
 * The extent at pos as pieces read it, and what reading it from pos costs.
 * A fragment is cut where the packed inode's extents end: the pieces of a
 * file whose data is a fragment then decode its packed extents at once,
 * each its own, rather than one after the other.
 */
static int split_map(struct erofs_ctx *ctx, const struct erofs_inode *inode,
		     uint64_t pos, struct erofs_map *map, uint64_t *cost)
{
	struct erofs_map whole, packed;
	int ret = erofs_map(ctx, inode, pos, &whole);

	if (ret < 0)
		return ret;
	if (whole.loc != EROFS_LOC_FRAGMENT) {
		*map = whole;
		*cost = cost_extent(map, map->la + map->llen - pos);
		return 0;
	}
	ret = erofs_frag_map_part(ctx, &whole, pos, map, &packed);
	if (ret < 0)
		return ret;
	*cost = cost_extent(&packed, map->llen);
	return 0;
}

/*
 * Map the file on the walker to cut it into pieces at extent starts; each
 * piece gets the maps of its extents, so that nothing is mapped twice. A
 * mapping error is left to the piece that meets it: the last one, from
 * the last cut to i_size, which maps on its own past the maps it got.
 */
static enum fsck_result split_plan_queue(struct checker *ck,
					 struct split_file *s)
{
	const struct erofs_inode *inode = &s->t->inode;
	struct erofs_ctx *ctx = ck->walker.ctx;
	struct map_list ml = { 0 };
	struct split_piece range;
	struct split_plan plan;
	struct erofs_map map;
	uint64_t pos = 0, end, stored, cost;
	enum fsck_result ret;

	split_plan_init(&plan, inode->size, ck->sched->split_ns);
	while (pos < inode->size) {
		if (split_map(ctx, inode, pos, &map, &cost) < 0) {
			erofs_err_drop(erofs_ctx_err(ctx));
			break;
		}
		end = map.la + map.llen;
		if (end <= pos)
			break;
		stored = 0;
		if (map.loc == EROFS_LOC_DEVICE || map.loc == EROFS_LOC_META)
			stored = map.plen;
		map_list_add(&ml, &map);
		if (split_plan_add(&plan, end, cost, stored, &range)) {
			ret = split_queue(ck, s, &range, &ml);
			if (ret != FSCK_OK)
				return ret;
		}
		pos = end;
	}
	split_plan_last(&plan, &range);
	return split_queue(ck, s, &range, &ml);
}

/* The walker's part, as a task starts: open (file.h), then the index. */
static enum fsck_result split_head(struct checker *ck, struct split_file *s,
				   const struct fsck_loc *loc)
{
	struct fsck_worker *w = &ck->walker;
	struct file_task *t = s->t;
	struct report *saved = w->rep;
	enum fsck_result ret;

	w->rep = &t->slot.rep;
	ret = file_task_open(w, t, loc);
	/* as for a whole file, the data is checked whatever the xattrs gave */
	if (!fsck_result_goes_on(ret))
		goto out;
	ret = t->hash ? split_start_hash(s) : FSCK_OK;
	if (ret == FSCK_OK)
		ret = check_index(w, &t->inode, loc);
out:
	w->rep = saved;
	return ret;
}

enum fsck_result split_submit(struct checker *ck, struct split_file *s,
			      const struct fsck_loc *loc)
{
	enum fsck_result ret, last;

	s->t->started = true;
	ck->stats.split_files++;
	__atomic_add_fetch(&ck->sched->splits_open, 1, __ATOMIC_RELAXED);
	ret = split_head(ck, s, loc);
	s->head = ret;
	if (ret == FSCK_OK && (ret = split_plan_queue(ck, s)) != FSCK_OK)
		__atomic_store_n(&s->stopped, true, __ATOMIC_RELAXED);
	last = split_put(s);
	if (!fsck_result_goes_on(ret))
		last = ret;
	if (!fsck_result_goes_on(last)) {
		erofs_pool_cancel(ck->sched->pool, check_errno(last));
		return last;
	}
	return FSCK_OK;
}
