// SPDX-License-Identifier: MIT
/*
 * Tables of runs (source_internal.h), built run by run by the sparse
 * index and by partitions, and handed to their source.
 */
#include "internal.h"
#include "container/container_internal.h"

/* Room the table of a sparse image or partition grows by, at the least. */
#define SEG_TABLE_MIN 16

/* Room for one more run and the sentinel erofs_source_set_segs() adds. */
static int seg_room(struct erofs_seg_table *t)
{
	return erofs_grow(&t->segs, &t->cap, t->n + 2, sizeof(*t->segs),
			  SEG_TABLE_MIN);
}

/* Do len bytes of kind and arg continue the table's last run? */
static bool seg_continues(const struct erofs_seg_table *t,
			  enum erofs_seg_kind kind, uint64_t arg)
{
	const struct erofs_seg *last;

	if (!t->n)
		return false;
	last = &t->segs[t->n - 1];
	if (last->kind != kind)
		return false;
	if (kind == EROFS_SEG_FILE)
		return last->arg + (t->end - last->start) == arg;
	return kind == EROFS_SEG_ZERO || last->arg == arg;
}

int erofs_seg_add(struct erofs_seg_table *t, enum erofs_seg_kind kind,
		  uint64_t arg, uint64_t len)
{
	if (!len)
		return 0;
	if (!seg_continues(t, kind, arg)) {
		if (seg_room(t))
			return -ENOMEM;
		t->segs[t->n++] = (struct erofs_seg){ .start = t->end,
						      .arg = arg,
						      .kind = kind };
	}
	t->end += len;
	return 0;
}

int erofs_source_set_segs(struct erofs_source *src, struct erofs_seg_table *t)
{
	if (seg_room(t))
		return -ENOMEM;
	t->segs[t->n] = (struct erofs_seg){ .start = t->end };
	src->segs = t->segs;
	src->nsegs = t->n;
	src->size = t->end;
	*t = (struct erofs_seg_table){ 0 };
	return 0;
}
