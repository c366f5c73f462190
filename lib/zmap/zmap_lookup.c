// SPDX-License-Identifier: MIT
/*
 * The lookup accelerator of encoded extents: which record holds an offset,
 * found with as few metadata block reads as possible.
 *
 * A lookup in sorted records (16 or 32 bytes) tries, in order:
 *  - the context's hint for the inode: the extent found last and the
 *    record after it, so that a reader going forwards takes the next
 *    record without a search;
 *  - the fences, the first offset of every block of records already
 *    read, which find the block that holds the offset in memory;
 *  - a probe interpolated from the offset (mkfs writes extents of similar
 *    lengths, so it usually lands in the right metadata block);
 *  - a binary search among the records of the block in hand before
 *    another block is read.
 * erofs_ctx_set_plain_lookup() selects a plain binary search instead, for
 * comparison.
 * Records of 4 bytes hold no address: the sums they imply are kept per
 * metadata block, computed once per inode.
 *
 * Every block a lookup reads has the order of all its records checked, so
 * a hostile table is reported, not searched to an arbitrary answer.
 * Hints live in the reading context, which belongs to one thread, so
 * readers of the same inode in other threads never see them change.
 */
#include <stdlib.h>
#include <string.h>

#include "erofs/format.h"
#include "erofs/testing.h"
#include "image/image_internal.h"
#include "zmap/zmap_extents.h"
#include "zmap/zmap_internal.h"

/* inodes whose hints a context keeps at once */
#define Z_HINT_SLOTS 4
/* interpolated probes of a random lookup before it bisects */
#define Z_INTERPOLATIONS 2
/*
 * Bounds on what a hint keeps for one table: sums of 4-byte records
 * (every Nth block beyond this many), bits of checked blocks (none beyond).
 */
#define Z_SUMS_MAX (1u << 20)
#define Z_CHECKED_MAX (1u << 26)
/* blocks of records whose first lstart a hint keeps (8 bytes each) */
#define Z_FENCES_MAX (1u << 16)

struct z_hint {
	uint64_t nid;		/* EROFS_NO_NID: unused slot */
	uint64_t records;	/* with nid and size, tells tables apart */
	uint64_t size;
	uint32_t lru;
	/* recsz 16 and 32: the extent found last and the record after it */
	bool found;
	struct z_found f;
	/* one bit per block of records whose order has been checked */
	uint64_t *checked;
	uint64_t checked_base;	/* block of record 0 */
	uint64_t nblks;		/* blocks the records span */
	/*
	 * recsz 16 and 32: lstart of the first record of every checked
	 * block, so that a search finds the block of an offset in memory
	 */
	uint64_t *fence;
	bool checked_tried;	/* no memory for the bits: checked_blk */
	uint64_t checked_blk;
	/* recsz 4: address at the first record of every stride-th block */
	uint64_t *sums;
	uint64_t stride;
	uint64_t valid;		/* sums computed so far */
	bool sums_tried;
};

struct z_erofs_hints {
	struct z_hint slot[Z_HINT_SLOTS];
	uint32_t clock;
	bool plain;		/* erofs_ctx_set_plain_lookup() */
};

/* ---- hints ---- */

int z_erofs_hints_create(struct erofs_ctx *ctx)
{
	struct z_erofs_hints *hints = calloc(1, sizeof(*hints));
	unsigned int i;

	if (!hints)
		return -ENOMEM;
	for (i = 0; i < Z_HINT_SLOTS; i++)
		hints->slot[i].nid = EROFS_NO_NID;
	ctx->zhints = hints;
	return 0;
}

void z_erofs_hints_destroy(struct erofs_ctx *ctx)
{
	struct z_erofs_hints *hints = ctx->zhints;
	unsigned int i;

	if (!hints)
		return;
	for (i = 0; i < Z_HINT_SLOTS; i++) {
		free(hints->slot[i].sums);
		free(hints->slot[i].checked);
		free(hints->slot[i].fence);
	}
	free(hints);
	ctx->zhints = NULL;
}

void erofs_ctx_set_plain_lookup(struct erofs_ctx *ctx, bool plain)
{
	for (; ctx; ctx = ctx->nested)
		if (ctx->zhints || !z_erofs_hints_create(ctx))
			ctx->zhints->plain = plain;
}

/*
 * The hint slot of inode's record table; a table seen for the first time
 * takes over the least recently used slot.
 */
static struct z_hint *z_hint_get(struct erofs_ctx *ctx,
				 const struct erofs_inode *inode)
{
	struct z_erofs_hints *hints = ctx->zhints;
	struct z_hint *victim;
	unsigned int i;

	/* made on first use; without memory, lookups go without hints */
	if (!hints && z_erofs_hints_create(ctx))
		return NULL;
	hints = ctx->zhints;
	victim = &hints->slot[0];
	for (i = 0; i < Z_HINT_SLOTS; i++) {
		struct z_hint *h = &hints->slot[i];

		if (h->nid == inode->nid && h->records == inode->z.records &&
		    h->size == inode->size) {
			h->lru = ++hints->clock;
			return h;
		}
		if (h->lru < victim->lru)
			victim = h;
	}
	free(victim->sums);
	free(victim->checked);
	free(victim->fence);
	memset(victim, 0, sizeof(*victim));
	victim->nid = inode->nid;
	victim->records = inode->z.records;
	victim->size = inode->size;
	victim->checked_blk = UINT64_MAX;
	victim->lru = ++hints->clock;
	return victim;
}

/* ---- sorted records (recsz 16 and 32): the plain binary search ---- */

/*
 * The last record starting at or before pos. Every probe must fall
 * strictly between the bounds found so far, so unsorted records are
 * reported rather than giving an arbitrary answer.
 */
static int z_ext_find(struct erofs_ctx *ctx, const struct erofs_inode *inode,
		      uint64_t pos, struct z_extent *ext)
{
	uint64_t lo = 0, hi = inode->z.nextents, hi_start = inode->size;
	struct z_extent mid;
	int ret;

	ret = z_ext_load(ctx, inode, 0, ext);
	if (ret)
		return ret;
	if (ext->lstart)
		return z_ext_not_zero(ctx, inode, ext);
	while (hi - lo > 1) {
		ret = z_ext_load(ctx, inode, lo + (hi - lo) / 2, &mid);
		if (ret)
			return ret;
		if (mid.lstart <= ext->lstart || mid.lstart >= hi_start)
			return z_ext_unsorted(ctx, inode, &mid);
		if (mid.lstart <= pos) {
			lo = mid.idx;
			*ext = mid;
		} else {
			hi = mid.idx;
			hi_start = mid.lstart;
		}
	}
	return 0;
}

/* The record holding pos and the record after it, by plain search. */
static int z_found_plain(struct erofs_ctx *ctx,
			 const struct erofs_inode *inode, uint64_t pos,
			 struct z_found *f)
{
	struct z_extent near;
	int ret;

	ret = z_ext_find(ctx, inode, pos, &f->cur);
	if (ret)
		return ret;
	f->has_next = f->cur.idx + 1 < inode->z.nextents;
	f->end = inode->size;
	if (f->has_next) {
		ret = z_ext_load(ctx, inode, f->cur.idx + 1, &f->next);
		if (ret)
			return ret;
		/* the search bounded pos by a record after this one */
		if (f->next.lstart <= pos)
			return z_ext_unsorted(ctx, inode, &f->next);
		f->end = f->next.lstart;
	}
	/* the neighbours the search may have skipped must agree too */
	if (f->cur.idx) {
		ret = z_ext_load(ctx, inode, f->cur.idx - 1, &near);
		if (ret)
			return ret;
		if (near.lstart >= f->cur.lstart)
			return z_ext_unsorted(ctx, inode, &f->cur);
	}
	return 0;
}

/* ---- sorted records: hint, interpolation, search inside a block ---- */

/* Has the order of the records in block blk been checked? */
static bool z_hint_checked(struct erofs_ctx *ctx,
			   const struct erofs_inode *inode, struct z_hint *h,
			   uint64_t blk)
{
	const struct z_erofs_info *z = &inode->z;
	unsigned int bits = ctx->img->blkszbits;
	uint64_t i, nblks;

	if (!h)
		return false;
	if (!h->checked && !h->checked_tried) {
		h->checked_tried = true;
		h->checked_base = z->records >> bits;
		nblks = ((z->records + z->recsz * (z->nextents - 1)) >> bits) -
			h->checked_base + 1;
		h->nblks = nblks;
		if (nblks <= Z_CHECKED_MAX)
			h->checked = calloc((nblks + 63) / 64,
					    sizeof(*h->checked));
		if (h->checked && nblks > 1 && nblks <= Z_FENCES_MAX)
			h->fence = malloc(nblks * sizeof(*h->fence));
		h->checked_blk = UINT64_MAX;
	}
	if (!h->checked)
		return h->checked_blk == blk;
	i = blk - h->checked_base;
	return h->checked[i / 64] >> (i % 64) & 1;
}

static void z_hint_set_checked(struct z_hint *h, uint64_t blk,
			       uint64_t first_lstart)
{
	uint64_t i;

	if (!h)
		return;
	h->checked_blk = blk;
	if (h->checked) {
		i = blk - h->checked_base;
		h->checked[i / 64] |= 1ULL << (i % 64);
		if (h->fence)
			h->fence[i] = first_lstart;
	}
}

/* lstart of record idx of the block in hand, without the other fields. */
static uint64_t z_ext_lstart(const struct erofs_inode *inode,
			     const struct z_ext_blk *b, uint64_t idx)
{
	const uint8_t *rec = b->data + (idx - b->first) * inode->z.recsz;
	uint64_t lstart = erofs_get32(rec + Z_EROFS_EXTENT_LSTART_LO);

	if (inode->z.recsz == 32)
		lstart |= (uint64_t)erofs_get32(rec + Z_EROFS_EXTENT_LSTART_HI)
			  << 32;
	return lstart;
}

/*
 * Bring in the block of record idx and check the order of all its
 * records, once per block and inode: every block a lookup reads is known
 * sorted, not only the records it probes.
 */
static int z_sorted_hold(struct erofs_ctx *ctx, const struct erofs_inode *inode,
			 struct z_hint *h, uint64_t idx, struct z_ext_blk *b)
{
	uint64_t i, lstart, prev = 0;
	struct z_extent ext;
	int ret;

	ret = z_ext_hold(ctx, inode, idx, inode->z.nextents, b);
	if (ret || z_hint_checked(ctx, inode, h, b->blk))
		return ret;
	for (i = b->first; i < b->end; i++) {
		lstart = z_ext_lstart(inode, b, i);
		if (lstart < inode->size && (i ? lstart > prev : !lstart)) {
			prev = lstart;
			continue;
		}
		ret = z_ext_at(ctx, inode, b, i, &ext);
		if (ret)
			return ret;
		return i ? z_ext_unsorted(ctx, inode, &ext) :
			   z_ext_not_zero(ctx, inode, &ext);
	}
	z_hint_set_checked(h, b->blk, z_ext_lstart(inode, b, b->first));
	return 0;
}

/* Record idx from the block in hand, or from its own block. */
static int z_sorted_get(struct erofs_ctx *ctx, const struct erofs_inode *inode,
			struct z_hint *h, struct z_ext_blk *b, uint64_t idx,
			struct z_extent *ext)
{
	int ret;

	if (!z_ext_holds(b, idx)) {
		ret = z_sorted_hold(ctx, inode, h, idx, b);
		if (ret)
			return ret;
	}
	return z_ext_at(ctx, inode, b, idx, ext);
}

/* A search for the last record starting at or before pos: in [lo, hi). */
struct z_search {
	uint64_t pos;
	uint64_t lo, hi;
	uint64_t lo_start, hi_start;	/* hi_start: i_size if hi is the end */
	bool lo_known;			/* lo_ext loaded */
	bool hi_known;			/* hi_ext loaded */
	struct z_extent lo_ext, hi_ext;
};

/*
 * Narrow the search with record m, which must lie strictly between the
 * records that bound it so far.
 */
static int z_search_probe(struct erofs_ctx *ctx,
			  const struct erofs_inode *inode, struct z_search *s,
			  const struct z_ext_blk *b, uint64_t m)
{
	struct z_extent ext;
	int ret;

	ret = z_ext_at(ctx, inode, b, m, &ext);
	if (ret)
		return ret;
	if (ext.lstart <= s->lo_start || ext.lstart >= s->hi_start)
		return z_ext_unsorted(ctx, inode, &ext);
	if (ext.lstart <= s->pos) {
		s->lo = m;
		s->lo_start = ext.lstart;
		s->lo_ext = ext;
		s->lo_known = true;
	} else {
		s->hi = m;
		s->hi_start = ext.lstart;
		s->hi_ext = ext;
		s->hi_known = true;
	}
	return 0;
}

/*
 * Narrow the search with the block in hand: its first and last candidate
 * records tell whether the answer is inside; if it is, bisect there.
 */
static int z_search_block(struct erofs_ctx *ctx,
			  const struct erofs_inode *inode, struct z_search *s,
			  const struct z_ext_blk *b)
{
	uint64_t a = s->lo + 1 > b->first ? s->lo + 1 : b->first;
	uint64_t e = s->hi < b->end ? s->hi : b->end;
	int ret;

	if (a >= e)
		return 0;
	ret = z_search_probe(ctx, inode, s, b, a);
	if (ret || s->hi == a || e - 1 == a)
		return ret;
	ret = z_search_probe(ctx, inode, s, b, e - 1);
	if (ret || s->lo == e - 1)
		return ret;
	/* b->first <= lo < hi == e - 1: the answer is in this block */
	while (s->hi - s->lo > 1) {
		ret = z_search_probe(ctx, inode, s, b,
				     s->lo + (s->hi - s->lo) / 2);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Where to look next: by linear interpolation of pos between the bounds
 * for the first probes, then by bisection, so that a table of very uneven
 * extents still costs only a logarithmic number of block reads.
 */
static uint64_t z_search_guess(const struct z_search *s, unsigned int round)
{
	uint64_t n = s->hi - s->lo, m;
	unsigned __int128 x;

	if (round >= Z_INTERPOLATIONS)
		return s->lo + n / 2;
	/* lo_start <= pos < hi_start */
	x = (unsigned __int128)(s->pos - s->lo_start) * n;
	m = s->lo + (uint64_t)(x / (s->hi_start - s->lo_start));
	if (m <= s->lo)
		m = s->lo + 1;
	if (m >= s->hi)
		m = s->hi - 1;
	return m;
}

/* Index of the first record in block blk of the table. */
static uint64_t z_blk_first(const struct erofs_ctx *ctx,
			    const struct erofs_inode *inode, uint64_t blk)
{
	uint64_t start = blk << ctx->img->blkszbits;
	const struct z_erofs_info *z = &inode->z;

	return start > z->records ? (start - z->records) / z->recsz : 0;
}

/*
 * The fence of the i-th block of the table: the lstart of its first
 * record, read with the block the first time it is needed.
 */
static int z_fence_get(struct erofs_ctx *ctx, const struct erofs_inode *inode,
		       struct z_hint *h, uint64_t i, struct z_ext_blk *b,
		       uint64_t *lstart)
{
	uint64_t blk = h->checked_base + i;
	int ret;

	if (!z_hint_checked(ctx, inode, h, blk)) {
		ret = z_sorted_hold(ctx, inode, h, z_blk_first(ctx, inode, blk),
				    b);
		if (ret)
			return ret;
	}
	*lstart = h->fence[i];
	return 0;
}

/*
 * Narrow the search to the records of the one block that holds pos: a
 * binary search over the fences of the table's blocks, each of which costs
 * a block read once per hint. On a table of uneven extents, where
 * interpolation misses, random lookups then read the one block that holds
 * their record. The fences must increase like the records they stand for.
 */
static int z_search_fences(struct erofs_ctx *ctx,
			   const struct erofs_inode *inode, struct z_hint *h,
			   struct z_search *s, struct z_ext_blk *b)
{
	uint64_t lo = 0, hi = h->nblks, lo_start = 0, mid, start;
	struct z_extent ext;
	int ret;

	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		ret = z_fence_get(ctx, inode, h, mid, b, &start);
		if (ret)
			return ret;
		if (start <= lo_start || start >= s->hi_start) {
			ret = z_sorted_get(ctx, inode, h, b,
					   z_blk_first(ctx, inode,
						       h->checked_base + mid),
					   &ext);
			return ret ? ret : z_ext_unsorted(ctx, inode, &ext);
		}
		if (start <= s->pos) {
			lo = mid;
			lo_start = start;
		} else {
			hi = mid;
			s->hi_start = start;
		}
	}
	if (hi < h->nblks)
		s->hi = z_blk_first(ctx, inode, h->checked_base + hi);
	if (lo) {
		/* the block's first record starts at or before pos */
		s->lo = z_blk_first(ctx, inode, h->checked_base + lo) - 1;
		s->lo_start = lo_start - 1;
	}
	return 0;
}

/*
 * The record holding pos and the record after it. Each round reads one
 * block and probes at least one record in it, so the loop ends.
 */
static int z_found_search(struct erofs_ctx *ctx,
			  const struct erofs_inode *inode, struct z_hint *h,
			  uint64_t pos, struct z_found *f)
{
	struct z_search s = {
		.pos = pos,
		.hi = inode->z.nextents,
		.hi_start = inode->size,
	};
	struct z_ext_blk b = { .data = NULL };
	unsigned int round = 0;
	struct z_extent prev;
	int ret;

	if (h && h->fence) {
		ret = z_search_fences(ctx, inode, h, &s, &b);
		if (ret)
			return ret;
	}
	while (s.hi - s.lo > 1) {
		ret = z_sorted_hold(ctx, inode, h, z_search_guess(&s, round++),
				    &b);
		if (!ret)
			ret = z_search_block(ctx, inode, &s, &b);
		if (ret)
			return ret;
	}
	if (!s.lo_known) {
		/* the fences put pos past record lo + 1, which says not */
		if (s.lo) {
			ret = z_sorted_get(ctx, inode, h, &b, s.lo + 1, &prev);
			return ret ? ret : z_ext_unsorted(ctx, inode, &prev);
		}
		ret = z_sorted_get(ctx, inode, h, &b, 0, &s.lo_ext);
		if (ret)
			return ret;
		if (s.lo_ext.lstart)
			return z_ext_not_zero(ctx, inode, &s.lo_ext);
	} else {
		/* the record before, which the search may have skipped */
		ret = z_sorted_get(ctx, inode, h, &b, s.lo - 1, &prev);
		if (ret)
			return ret;
		if (prev.lstart >= s.lo_start)
			return z_ext_unsorted(ctx, inode, &s.lo_ext);
	}
	f->cur = s.lo_ext;
	f->has_next = s.hi < inode->z.nextents;
	f->end = s.hi_start;
	if (f->has_next && !s.hi_known) {
		/* pos is in the last record of its block */
		ret = z_sorted_get(ctx, inode, h, &b, s.hi, &s.hi_ext);
		if (ret)
			return ret;
		if (s.hi_ext.lstart != s.hi_start)
			return z_ext_unsorted(ctx, inode, &s.hi_ext);
	}
	f->next = s.hi_ext;
	return 0;
}

/* The extent after the one found last: its end is all that is missing. */
static int z_found_advance(struct erofs_ctx *ctx,
			   const struct erofs_inode *inode, struct z_hint *h,
			   struct z_found *f)
{
	struct z_ext_blk b = { .data = NULL };
	int ret;

	f->cur = f->next;
	f->has_next = f->cur.idx + 1 < inode->z.nextents;
	f->end = inode->size;
	if (!f->has_next)
		return 0;
	ret = z_sorted_get(ctx, inode, h, &b, f->cur.idx + 1, &f->next);
	if (ret)
		return ret;
	if (f->next.lstart <= f->cur.lstart)
		return z_ext_unsorted(ctx, inode, &f->next);
	f->end = f->next.lstart;
	return 0;
}

/*
 * The record holding pos: from the hint when pos is in the extent found
 * last or just after it, else by search.
 */
static int z_found_fast(struct erofs_ctx *ctx, const struct erofs_inode *inode,
			struct z_hint *h, uint64_t pos, struct z_found *f)
{
	if (h && h->found && pos >= h->f.cur.lstart && pos < h->f.end) {
		*f = h->f;
		ctx->stats.hint_hits++;
		return 0;
	}
	if (h && h->found && pos == h->f.end && h->f.has_next) {
		*f = h->f;
		ctx->stats.hint_hits++;
		return z_found_advance(ctx, inode, h, f);
	}
	return z_found_search(ctx, inode, h, pos, f);
}

/*
 * The record holding pos and the record after it, in sorted records. *hint
 * is the hint the lookup used, for z_lookup_remember(), or NULL.
 */
int z_lookup_sorted(struct erofs_ctx *ctx, const struct erofs_inode *inode,
		    uint64_t pos, struct z_found *f, struct z_hint **hint)
{
	*hint = NULL;
	if (ctx->zhints && ctx->zhints->plain)
		return z_found_plain(ctx, inode, pos, f);
	*hint = z_hint_get(ctx, inode);
	return z_found_fast(ctx, inode, *hint, pos, f);
}

void z_lookup_remember(struct z_hint *h, const struct z_found *f)
{
	if (!h)
		return;
	h->f = *f;
	h->found = true;
}

/* ---- records of 4 bytes: the sums of their lengths ---- */

/* Add the lengths of records [from, to) of the block in hand to *sum. */
static int z_ext4_add(struct erofs_ctx *ctx, const struct erofs_inode *inode,
		      const struct z_ext_blk *b, uint64_t from, uint64_t to,
		      uint64_t *sum)
{
	uint64_t limit = z_erofs_addr_limit(ctx->img), i;
	struct z_extent at;

	/* at most 2^14 records of 2^21 bytes: no overflow below 2^63 */
	for (i = from; i < to; i++)
		*sum += erofs_get32(b->data + 4 * (i - b->first)) &
			Z_EROFS_EXTENT_PLEN_MASK;
	if (*sum <= limit)
		return 0;
	at.idx = from;
	at.pos = inode->z.records + 4 * from;
	return z_ext_corrupt(ctx, inode, &at,
			     "pclusters run beyond 48-bit blocks");
}

/* First record of the c-th block of a recsz-4 table. */
static uint64_t z_ext4_first(const struct erofs_ctx *ctx,
			     const struct erofs_inode *inode, uint64_t c)
{
	unsigned int bits = ctx->img->blkszbits;
	uint64_t records = inode->z.records;
	uint64_t start = ((records >> bits) + c) << bits;

	return start > records ? (start - records) / 4 : 0;
}

/*
 * The address where the records of the c-th block start: the base plus
 * all lengths before them. The sums at every stride-th block are computed
 * once per inode and kept in the hint, so this adds up fewer than stride
 * blocks; without room for them (h->sums NULL), all blocks before c.
 */
static int z_ext4_block_sum(struct erofs_ctx *ctx,
			    const struct erofs_inode *inode, struct z_hint *h,
			    uint64_t c, uint64_t count, uint64_t *sum)
{
	bool keep = h && h->sums;
	uint64_t stride = keep ? h->stride : 1, j = 0, blk;
	struct z_ext_blk b;
	int ret;

	*sum = inode->z.rec4_base;
	if (keep) {
		j = c / stride < h->valid ? c / stride : h->valid - 1;
		*sum = h->sums[j];
	}
	for (blk = j * stride; blk < c; blk++) {
		ret = z_ext_hold(ctx, inode, z_ext4_first(ctx, inode, blk),
				 count, &b);
		if (!ret)
			ret = z_ext4_add(ctx, inode, &b, b.first, b.end, sum);
		if (ret)
			return ret;
		/* the sum before block blk + 1 */
		if (keep && (blk + 1) % stride == 0 &&
		    (blk + 1) / stride == h->valid)
			h->sums[h->valid++] = *sum;
	}
	return 0;
}

/* Room for the sums of a recsz-4 table; none is not an error. */
static void z_ext4_prepare(struct erofs_ctx *ctx,
			   const struct erofs_inode *inode, struct z_hint *h,
			   uint64_t count)
{
	unsigned int bits = ctx->img->blkszbits;
	uint64_t records = inode->z.records, nblks;

	if (!h || h->sums_tried)
		return;
	h->sums_tried = true;
	nblks = ((records + 4 * (count - 1)) >> bits) - (records >> bits) + 1;
	for (h->stride = 1; nblks / h->stride >= Z_SUMS_MAX; h->stride *= 2)
		;
	h->sums = malloc((nblks / h->stride + 1) * sizeof(*h->sums));
	if (!h->sums)
		return;
	h->sums[0] = inode->z.rec4_base;
	h->valid = 1;
}

int z_lookup_rec4(struct erofs_ctx *ctx, const struct erofs_inode *inode,
		  uint64_t k, uint64_t count, struct z_extent *ext)
{
	unsigned int bits = ctx->img->blkszbits;
	uint64_t records = inode->z.records;
	uint64_t c = ((records + 4 * k) >> bits) - (records >> bits);
	struct z_hint *h = z_hint_get(ctx, inode);
	struct z_ext_blk b;
	uint64_t sum;
	int ret;

	z_ext4_prepare(ctx, inode, h, count);
	ret = z_ext4_block_sum(ctx, inode, h, c, count, &sum);
	if (!ret)
		ret = z_ext_hold(ctx, inode, k, count, &b);
	if (!ret)
		ret = z_ext4_add(ctx, inode, &b, b.first, k, &sum);
	if (!ret)
		ret = z_ext_at(ctx, inode, &b, k, ext);
	ext->pstart = sum;
	return ret;
}
