// SPDX-License-Identifier: MIT
/*
 * Mapping of compressed files (format.md, "Compressed files" to
 * "Deduplication"): the map header, full and compact lcluster indexes, big
 * pclusters, inline tails and fragments, and the dispatcher between them
 * and encoded extents (zmap_extents.c). The checks both share are in
 * zmap_check.c.
 *
 * Every extent is returned with its exact length (format.md, "Extent length"),
 * so the data path can decode a pcluster in one go and check that it produces
 * exactly what the index promises. Walks over index entries are bounded by what
 * a legal extent can span, so crafted indexes cannot make them loop or crawl.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "erofs/format.h"
#include "erofs/testing.h"
#include "image/image_internal.h"
#include "zmap/zmap_internal.h"

/* ---- lcluster indexes ---- */

struct z_lcluster {
	uint64_t lcn;
	uint64_t pos;		/* where its record is, for error messages */
	uint8_t type;
	bool partial;
	bool cblk;		/* NONHEAD whose delta[0] is a block count */
	uint16_t cblkcnt;
	uint16_t clusterofs;	/* HEAD/PLAIN */
	uint64_t blkaddr;	/* HEAD/PLAIN, compact: see z_head_blkaddr() */
	uint32_t delta[2];	/* NONHEAD: lookback (CBLKCNT: 1), lookahead */
};

/* Walking one inode's index; a compact pack is decoded once and kept. */
struct z_walk {
	struct erofs_ctx *ctx;
	const struct erofs_inode *inode;
	const struct z_erofs_info *z;
	uint64_t lcs;
	uint64_t total;		/* lclusters of the file */
	uint64_t pack_pos;	/* UINT64_MAX: none decoded */
	uint64_t pack_lcn;	/* lcluster of its entry 0 */
	unsigned int vcnt;
	uint32_t base;
	uint8_t type[16];
	uint16_t lo[16];
};

static bool z_is_compact(const struct erofs_inode *inode)
{
	return inode->layout == EROFS_INODE_COMPRESSED_COMPACT;
}

static void z_walk_init(struct z_walk *w, struct erofs_ctx *ctx,
			const struct erofs_inode *inode)
{
	w->ctx = ctx;
	w->inode = inode;
	w->z = &inode->z;
	w->lcs = 1ULL << inode->z.lclusterbits;
	w->total = erofs_div_round_up(inode->size, inode->z.lclusterbits);
	w->pack_pos = UINT64_MAX;
}

static int __attribute__((format(printf, 4, 5)))
z_lcn_corrupt(struct z_walk *w, uint64_t lcn, uint64_t pos,
	      const char *fmt, ...)
{
	char what[EROFS_ERR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return z_erofs_corrupt(w->ctx, w->inode, pos, "%s: lcluster %llu %s",
			       z_is_compact(w->inode) ? "compact index" :
			       "full index", (unsigned long long)lcn, what);
}

/* Rules that hold for an lcluster whatever the index layout. */
static int z_check_lcluster(struct z_walk *w, const struct z_lcluster *lc)
{
	const uint16_t big = Z_EROFS_ADVISE_BIG_PCLUSTER_1 |
			     Z_EROFS_ADVISE_BIG_PCLUSTER_2;

	if (lc->type == Z_EROFS_LCLUSTER_TYPE_NONHEAD) {
		if (!lc->lcn)
			return z_lcn_corrupt(w, 0, lc->pos, "is NONHEAD");
		if (lc->cblk && !(w->z->advise & big))
			return z_lcn_corrupt(w, lc->lcn, lc->pos,
					     "CBLKCNT without big pclusters");
		return 0;
	}
	if (lc->clusterofs >= w->lcs)
		return z_lcn_corrupt(w, lc->lcn, lc->pos,
				     "clusterofs %u beyond the lcluster",
				     lc->clusterofs);
	if (!lc->lcn && lc->clusterofs)
		return z_lcn_corrupt(w, 0, lc->pos, "clusterofs %u is not 0",
				     lc->clusterofs);
	if (lc->partial && lc->type == Z_EROFS_LCLUSTER_TYPE_PLAIN)
		return z_lcn_corrupt(w, lc->lcn, lc->pos,
				     "PLAIN with PARTIAL_REF");
	return 0;
}

/*
 * The range of a CBLKCNT is checked where it sizes a pcluster: mkfs writes
 * 0 after the HEAD of a tail fragment, which has no blocks.
 */
static int z_check_cblkcnt(struct z_walk *w, uint64_t lcn, uint64_t pos,
			   uint16_t cblkcnt)
{
	uint32_t max = Z_EROFS_PCLUSTER_MAX_SIZE >> w->ctx->img->blkszbits;

	if (cblkcnt && cblkcnt <= max)
		return 0;
	return z_lcn_corrupt(w, lcn, pos, "CBLKCNT %u out of range", cblkcnt);
}

static void z_set_delta0(struct z_lcluster *lc, uint16_t d0)
{
	lc->cblk = d0 & Z_EROFS_LI_D0_CBLKCNT;
	if (lc->cblk) {
		lc->cblkcnt = d0 & (Z_EROFS_LI_D0_CBLKCNT - 1);
		lc->delta[0] = 1;
	} else {
		lc->delta[0] = d0;
	}
}

static int z_full_load(struct z_walk *w, uint64_t lcn, struct z_lcluster *lc)
{
	uint8_t rec[Z_EROFS_LCLUSTER_INDEX_SIZE];
	uint16_t advise;
	int ret;

	memset(lc, 0, sizeof(*lc));
	lc->lcn = lcn;
	lc->pos = w->z->records + lcn * Z_EROFS_LCLUSTER_INDEX_SIZE;
	ret = erofs_meta_read(w->ctx, w->inode->space, lc->pos, rec,
			      sizeof(rec), w->inode->nid);
	if (ret)
		return ret;
	advise = erofs_get16(rec + Z_EROFS_LI_ADVISE);
	lc->type = advise & Z_EROFS_LI_LCLUSTER_TYPE_MASK;
	lc->partial = advise & Z_EROFS_LI_PARTIAL_REF;
	if (lc->type == Z_EROFS_LCLUSTER_TYPE_NONHEAD) {
		z_set_delta0(lc, erofs_get16(rec + Z_EROFS_LI_DELTA0));
		lc->delta[1] = erofs_get16(rec + Z_EROFS_LI_DELTA1);
	} else {
		lc->clusterofs = erofs_get16(rec + Z_EROFS_LI_CLUSTEROFS);
		lc->blkaddr = erofs_get32(rec + Z_EROFS_LI_BLKADDR);
	}
	return z_check_lcluster(w, lc);
}

/*
 * Compact layout (format.md, "Compact indexes"): where the pack holding an
 * lcluster is.
 */
struct z_pack_loc {
	uint64_t pos;
	unsigned int size;	/* 8 or 32 bytes */
	unsigned int vcnt;	/* 2 or 16 entries */
	unsigned int bits;	/* 16 or 14 bits per entry */
	unsigned int j;		/* the lcluster's entry in the pack */
};

static void z_compact_locate(const struct z_erofs_info *z, uint64_t total,
			     uint64_t lcn, struct z_pack_loc *loc)
{
	uint64_t ebase = z->hpos + Z_EROFS_MAP_HEADER_SIZE;
	uint64_t init4 = ((32 - ebase % 32) / 4) & 7;
	uint64_t n2 = 0, pos;
	bool is2b = false;

	if ((z->advise & Z_EROFS_ADVISE_COMPACTED_2B) && init4 < total)
		n2 = (total - init4) & ~15ULL;
	if (lcn < init4) {
		pos = ebase + 4 * lcn;
	} else if (lcn < init4 + n2) {
		pos = ebase + 4 * init4 + 2 * (lcn - init4);
		is2b = true;
	} else {
		pos = ebase + 4 * init4 + 2 * n2 + 4 * (lcn - init4 - n2);
	}
	loc->size = is2b ? 32 : 8;
	loc->vcnt = is2b ? 16 : 2;
	loc->bits = is2b ? 14 : 16;
	loc->pos = pos & ~(uint64_t)(loc->size - 1);
	loc->j = (pos - loc->pos) / (is2b ? 2 : 4);
}

/* The rules of z_check_lcluster() for every entry of the file in a pack. */
static int z_compact_check_pack(struct z_walk *w)
{
	struct z_lcluster lc;
	unsigned int k;
	int ret;

	for (k = 0; k < w->vcnt && w->pack_lcn + k < w->total; k++) {
		memset(&lc, 0, sizeof(lc));
		lc.lcn = w->pack_lcn + k;
		lc.pos = w->pack_pos;
		lc.type = w->type[k];
		if (lc.type == Z_EROFS_LCLUSTER_TYPE_NONHEAD)
			z_set_delta0(&lc, w->lo[k]);
		else
			lc.clusterofs = w->lo[k];
		ret = z_check_lcluster(w, &lc);
		if (ret)
			return ret;
	}
	return 0;
}

static int z_compact_load_pack(struct z_walk *w, const struct z_pack_loc *loc,
			       uint64_t lcn)
{
	unsigned int lobits = w->z->lclusterbits > 12 ? w->z->lclusterbits : 12;
	uint8_t pack[32];
	unsigned int k;
	int ret;

	if (w->pack_pos == loc->pos)
		return 0;
	w->pack_pos = UINT64_MAX;
	ret = erofs_meta_read(w->ctx, w->inode->space, loc->pos, pack,
			      loc->size, w->inode->nid);
	if (ret)
		return ret;
	w->vcnt = loc->vcnt;
	w->pack_lcn = lcn - loc->j;
	w->base = erofs_get32(pack + loc->size - 4);
	for (k = 0; k < loc->vcnt; k++) {
		unsigned int bit = k * loc->bits;
		uint32_t v = erofs_get32(pack + bit / 8) >> (bit % 8);

		w->lo[k] = v & ((1u << lobits) - 1);
		w->type[k] = (v >> lobits) & Z_EROFS_LI_LCLUSTER_TYPE_MASK;
	}
	w->pack_pos = loc->pos;
	ret = z_compact_check_pack(w);
	if (ret)
		w->pack_pos = UINT64_MAX;
	return ret;
}

static bool z_compact_is_cblk(const struct z_walk *w, unsigned int k)
{
	return w->type[k] == Z_EROFS_LCLUSTER_TYPE_NONHEAD &&
	       (w->lo[k] & Z_EROFS_LI_D0_CBLKCNT);
}

/* delta[1] of NONHEAD entry j: NONHEADs to the pack end, then its lo */
static uint32_t z_compact_delta1(const struct z_walk *w, unsigned int j)
{
	unsigned int last = w->vcnt - 1, k;
	uint32_t d1 = 0;

	for (k = j; k < w->vcnt; k++) {
		if (w->type[k] != Z_EROFS_LCLUSTER_TYPE_NONHEAD ||
		    w->pack_lcn + k >= w->total)
			return d1;
		d1++;
	}
	if (!z_compact_is_cblk(w, last) && w->lo[last] > 1)
		d1 += w->lo[last] - 1;
	return d1;
}

/* One-block pclusters: blkaddr = base + 1 + HEADs before j in the pack. */
static int z_compact_blkaddr_small(struct z_walk *w, unsigned int j,
				   struct z_lcluster *lc)
{
	uint32_t count = 0;
	int t = (int)j - 1;

	while (t >= 0) {
		if (w->type[t] == Z_EROFS_LCLUSTER_TYPE_NONHEAD) {
			if (!w->lo[t])
				return z_lcn_corrupt(w, w->pack_lcn + t,
						     w->pack_pos,
						     "lookback distance 0");
			t -= w->lo[t];
			if (t < 0)
				break;
			if (w->type[t] == Z_EROFS_LCLUSTER_TYPE_NONHEAD)
				return z_lcn_corrupt(w, w->pack_lcn + t,
						     w->pack_pos,
						     "NONHEAD where a HEAD should be");
		}
		count++;
		t--;
	}
	lc->blkaddr = (uint64_t)w->base + 1 + count;
	return 0;
}

/* Big pclusters: blkaddr = base + blocks of the pclusters before j. */
static int z_compact_blkaddr_big(struct z_walk *w, unsigned int j,
				 struct z_lcluster *lc)
{
	uint32_t blocks = 0;
	int t = (int)j - 1, ret;

	while (t >= 0) {
		uint16_t lo = w->lo[t];

		if (w->type[t] != Z_EROFS_LCLUSTER_TYPE_NONHEAD) {
			blocks++;
			t--;
		} else if (z_compact_is_cblk(w, t)) {
			lo &= Z_EROFS_LI_D0_CBLKCNT - 1;
			ret = z_check_cblkcnt(w, w->pack_lcn + t, w->pack_pos,
					      lo);
			if (ret)
				return ret;
			blocks += lo;
			t -= 2;		/* and its HEAD */
		} else if (lo < 2) {
			return z_lcn_corrupt(w, w->pack_lcn + t, w->pack_pos,
					     "lookback distance %u in a big pcluster",
					     lo);
		} else {
			/* to the entry after its HEAD, which has the count */
			t -= lo - 1;
			if (t >= 0 && !z_compact_is_cblk(w, t))
				return z_lcn_corrupt(w, w->pack_lcn + t,
						     w->pack_pos,
						     "missing CBLKCNT");
		}
	}
	lc->blkaddr = (uint64_t)w->base + blocks;
	return 0;
}

static int z_compact_load(struct z_walk *w, uint64_t lcn, struct z_lcluster *lc)
{
	struct z_pack_loc loc;
	unsigned int j;
	int ret;

	z_compact_locate(w->z, w->total, lcn, &loc);
	ret = z_compact_load_pack(w, &loc, lcn);
	if (ret)
		return ret;
	j = loc.j;
	memset(lc, 0, sizeof(*lc));
	lc->lcn = lcn;
	lc->pos = loc.pos + j * loc.bits / 8;
	lc->type = w->type[j];
	if (lc->type != Z_EROFS_LCLUSTER_TYPE_NONHEAD) {
		lc->clusterofs = w->lo[j];
		return 0;
	}
	/* the last entry of a pack holds delta[1] instead of delta[0] */
	if (j < w->vcnt - 1 || z_compact_is_cblk(w, j))
		z_set_delta0(lc, w->lo[j]);
	else if (w->type[j - 1] != Z_EROFS_LCLUSTER_TYPE_NONHEAD)
		lc->delta[0] = 1;
	else if (z_compact_is_cblk(w, j - 1))
		lc->delta[0] = 2;
	else
		lc->delta[0] = w->lo[j - 1] + 1;
	lc->delta[1] = z_compact_delta1(w, j);
	return 0;
}

static int z_load(struct z_walk *w, uint64_t lcn, struct z_lcluster *lc)
{
	if (lcn >= w->total)
		return z_lcn_corrupt(w, lcn, EROFS_NO_OFFSET,
				     "beyond the %llu of the file",
				     (unsigned long long)w->total);
	if (z_is_compact(w->inode))
		return z_compact_load(w, lcn, lc);
	return z_full_load(w, lcn, lc);
}

/* Compact blkaddrs take a walk over the pack: only done for the HEAD used. */
static int z_head_blkaddr(struct z_walk *w, struct z_lcluster *head)
{
	struct z_pack_loc loc;
	int ret;

	if (!z_is_compact(w->inode))
		return 0;
	z_compact_locate(w->z, w->total, head->lcn, &loc);
	ret = z_compact_load_pack(w, &loc, head->lcn);
	if (ret)
		return ret;
	if (w->z->advise & Z_EROFS_ADVISE_BIG_PCLUSTER_1)
		return z_compact_blkaddr_big(w, loc.j, head);
	return z_compact_blkaddr_small(w, loc.j, head);
}

/*
 * Follow lookback distance d from lcluster from (a NONHEAD, or a HEAD
 * whose clusterofs lies after the wanted offset) to the HEAD of its
 * extent, at most maxback lclusters back (7.6 step 5).
 */
static int z_lookback(struct z_walk *w, const struct z_lcluster *from,
		      uint32_t d, uint64_t maxback, struct z_lcluster *head)
{
	uint64_t c = from->lcn, pos = from->pos;
	bool after_cblk = from->cblk;
	int ret;

	for (;;) {
		if (!d)
			return z_lcn_corrupt(w, c, pos, "lookback distance 0");
		if (d > c)
			return z_lcn_corrupt(w, c, pos,
					     "lookback distance %u beyond lcluster 0",
					     d);
		if (from->lcn - (c - d) > maxback)
			return z_lcn_corrupt(w, from->lcn, from->pos,
					     "in an extent longer than allowed");
		ret = z_load(w, c - d, head);
		if (ret)
			return ret;
		if (head->type != Z_EROFS_LCLUSTER_TYPE_NONHEAD)
			return 0;
		if (after_cblk)
			return z_lcn_corrupt(w, c, pos,
					     "CBLKCNT not right after a HEAD");
		c = head->lcn;
		pos = head->pos;
		d = head->delta[0];
		after_cblk = head->cblk;
	}
}

/*
 * Exact end of the extent of HEAD lcluster head, which starts at la,
 * scanning from lcluster c (format.md, "Extent length").
 */
static int z_lookahead(struct z_walk *w, uint64_t head, uint64_t c,
		       uint64_t la, uint64_t *end)
{
	struct z_lcluster lc;
	int ret;

	for (;;) {
		if (c >= w->total) {
			*end = w->inode->size;
			return 0;
		}
		if (c * w->lcs - la > Z_EROFS_PCLUSTER_MAX_DSIZE)
			return z_lcn_corrupt(w, c, EROFS_NO_OFFSET,
					     "ends an extent at %llu longer than 12 MiB",
					     (unsigned long long)la);
		ret = z_load(w, c, &lc);
		if (ret)
			return ret;
		if (lc.type != Z_EROFS_LCLUSTER_TYPE_NONHEAD) {
			*end = c * w->lcs + lc.clusterofs;
			if (*end > w->inode->size)
				*end = w->inode->size;
			return 0;
		}
		if (lc.cblk && c != head + 1)
			return z_lcn_corrupt(w, c, lc.pos,
					     "CBLKCNT not right after a HEAD");
		c += lc.delta[1] ? lc.delta[1] : 1;
	}
}

/*
 * The HEAD of the extent containing file offset pos ("Mapping an offset"). *end
 * is set when the lookup found where the extent ends, else 0.
 */
static int z_find_head(struct z_walk *w, uint64_t pos, uint64_t maxlen,
		       struct z_lcluster *head, uint64_t *end)
{
	uint64_t maxback = (maxlen >> w->z->lclusterbits) + 1;
	uint64_t lcn = pos >> w->z->lclusterbits;
	struct z_lcluster lc;
	int ret;

	*end = 0;
	ret = z_load(w, lcn, &lc);
	if (ret)
		return ret;
	if (lc.type == Z_EROFS_LCLUSTER_TYPE_NONHEAD)
		return z_lookback(w, &lc, lc.delta[0], maxback, head);
	if ((pos & (w->lcs - 1)) >= lc.clusterofs) {
		*head = lc;
		return 0;
	}
	*end = lcn * w->lcs + lc.clusterofs;
	return z_lookback(w, &lc, 1, maxback, head);
}

/* End of the index array: where an inline pcluster starts ("Inline tail"). */
static uint64_t z_index_end(const struct z_walk *w)
{
	struct z_pack_loc loc;

	if (!z_is_compact(w->inode))
		return w->z->records + w->total * Z_EROFS_LCLUSTER_INDEX_SIZE;
	z_compact_locate(w->z, w->total, w->total - 1, &loc);
	return loc.pos + loc.size;
}

static int z_init_inline(struct erofs_ctx *ctx, struct erofs_inode *inode)
{
	struct z_erofs_info *z = &inode->z;
	uint32_t bs = ctx->img->blksz;

	if (!z->idata_size || (z->idata_pos & (bs - 1)) + z->idata_size > bs)
		return z_erofs_corrupt(ctx, inode, z->hpos,
				       "inline pcluster of %u bytes at %llu crosses a block",
				       z->idata_size,
				       (unsigned long long)z->idata_pos);
	if (!erofs_range_ok(z->idata_pos, z->idata_size,
			    erofs_space_size(ctx->img, inode->space)))
		return z_erofs_corrupt(ctx, inode, z->hpos,
				       "inline pcluster beyond its metadata space");
	return 0;
}

/* Find the tail HEAD of an inode with an inline or fragment tail. */
static int z_init_tail(struct erofs_ctx *ctx, struct erofs_inode *inode)
{
	struct z_erofs_info *z = &inode->z;
	bool frag = z->advise & Z_EROFS_ADVISE_FRAGMENT_PCLUSTER;
	uint64_t maxlen = Z_EROFS_PCLUSTER_MAX_DSIZE, end;
	struct z_lcluster head;
	struct z_walk w;
	int ret;

	if (frag) {
		/* fragments are exempt from 12 MiB, not from the packed size */
		ret = z_erofs_check_fragment(ctx, inode, 0, 0, z->hpos);
		if (ret)
			return ret;
		maxlen = ctx->img->packed.size + (1ULL << z->lclusterbits);
	}
	z_walk_init(&w, ctx, inode);
	ret = z_find_head(&w, inode->size - 1, maxlen, &head, &end);
	if (ret)
		return ret;
	z->has_tailhead = true;
	z->tailhead_lcn = head.lcn;
	z->tail_la = head.lcn * w.lcs + head.clusterofs;
	if (frag) {
		if (!z_is_compact(inode))
			z->fragmentoff |= head.blkaddr << 32;
		return z_erofs_check_fragment(ctx, inode, z->fragmentoff,
					      inode->size - z->tail_la,
					      head.pos);
	}
	z->idata_pos = z_index_end(&w);
	return z_init_inline(ctx, inode);
}

static int z_init_header_bits(struct erofs_ctx *ctx, struct erofs_inode *inode,
			      const uint8_t *h)
{
	const struct erofs_image *img = ctx->img;
	struct z_erofs_info *z = &inode->z;
	uint8_t bits = h[Z_EROFS_MH_CLUSTERBITS];
	unsigned int i;

	if (z->advise & ~Z_EROFS_ADVISE_KNOWN)
		return z_erofs_corrupt(ctx, inode, z->hpos,
				       "map header: unknown advise bits 0x%x",
				       z->advise);
	if (bits & Z_EROFS_CLUSTERBITS_RESERVED)
		return z_erofs_corrupt(ctx, inode, z->hpos,
				       "map header: reserved clusterbits 0x%x",
				       bits);
	z->lclusterbits = img->blkszbits + (bits & 15);
	for (i = 0; i < 2; i++) {
		z->algs[i] = (h[Z_EROFS_MH_ALGORITHMTYPE] >> (4 * i)) & 15;
		if (z->algs[i] >= Z_EROFS_COMPRESSION_MAX)
			return erofs_error(&ctx->err, -EOPNOTSUPP, inode->nid,
					   erofs_image_offset(inode->space,
							      z->hpos),
					   "map header: unknown algorithm %u",
					   z->algs[i]);
	}
	if ((z->advise & (Z_EROFS_ADVISE_BIG_PCLUSTER_1 |
			  Z_EROFS_ADVISE_BIG_PCLUSTER_2)) &&
	    !(img->feature_incompat & EROFS_FEATURE_INCOMPAT_BIG_PCLUSTER))
		return z_erofs_corrupt(ctx, inode, z->hpos,
				       "map header: big pclusters without the feature");
	if ((z->advise & Z_EROFS_ADVISE_INLINE_PCLUSTER) &&
	    !(z->advise & Z_EROFS_ADVISE_FRAGMENT_PCLUSTER) &&
	    !(img->feature_incompat & EROFS_FEATURE_INCOMPAT_ZTAILPACKING))
		return z_erofs_corrupt(ctx, inode, z->hpos,
				       "map header: inline pcluster without ztailpacking");
	return 0;
}

static int z_init_compact(struct erofs_ctx *ctx, struct erofs_inode *inode)
{
	struct z_erofs_info *z = &inode->z;
	bool big1 = z->advise & Z_EROFS_ADVISE_BIG_PCLUSTER_1;
	bool big2 = z->advise & Z_EROFS_ADVISE_BIG_PCLUSTER_2;
	bool use2b = z->advise & Z_EROFS_ADVISE_COMPACTED_2B;
	unsigned int maxbits = use2b ? 12 : 14;

	if (big1 != big2)
		return z_erofs_corrupt(ctx, inode, z->hpos,
				       "map header: compact big pcluster bits differ");
	if (z->lclusterbits > maxbits)
		return z_erofs_corrupt(ctx, inode, z->hpos,
				       "map header: lclusterbits %u too large for compact indexes",
				       z->lclusterbits);
	z->records = z->hpos + Z_EROFS_MAP_HEADER_SIZE;
	return 0;
}

static int z_init_index(struct erofs_ctx *ctx, struct erofs_inode *inode,
			const uint8_t *h)
{
	struct z_erofs_info *z = &inode->z;
	struct z_walk w;
	int ret;

	ret = z_init_header_bits(ctx, inode, h);
	if (!ret && z_is_compact(inode))
		ret = z_init_compact(ctx, inode);
	if (ret)
		return ret;
	if (!z_is_compact(inode))
		z->records = Z_EROFS_FULL_INDEX_ALIGN(inode->meta_end);
	if (z->advise & Z_EROFS_ADVISE_FRAGMENT_PCLUSTER)
		z->fragmentoff = erofs_get32(h + Z_EROFS_MH_FRAGMENTOFF);
	else if (z->advise & Z_EROFS_ADVISE_INLINE_PCLUSTER)
		z->idata_size = erofs_get16(h + Z_EROFS_MH_IDATA_SIZE);
	if (!inode->size)
		return 0;
	z_walk_init(&w, ctx, inode);
	if (z_index_end(&w) > erofs_space_size(ctx->img, inode->space))
		return z_erofs_corrupt(ctx, inode, z->hpos,
				       "%llu lcluster records beyond the metadata space",
				       (unsigned long long)w.total);
	if (!(z->advise & (Z_EROFS_ADVISE_FRAGMENT_PCLUSTER |
			   Z_EROFS_ADVISE_INLINE_PCLUSTER)))
		return 0;
	return z_init_tail(ctx, inode);
}

static int z_index_fmt(struct z_walk *w, const struct z_lcluster *head,
		       bool is_inline, uint8_t *fmt)
{
	bool interlaced = w->z->advise & Z_EROFS_ADVISE_INTERLACED_PCLUSTER;

	switch (head->type) {
	case Z_EROFS_LCLUSTER_TYPE_PLAIN:
		/* mkfs stores raw inline tails unrotated ("Inline tail") */
		*fmt = interlaced && !is_inline ? EROFS_FMT_INTERLACED :
						  EROFS_FMT_SHIFTED;
		return 0;
	case Z_EROFS_LCLUSTER_TYPE_HEAD1:
		*fmt = w->z->algs[0];
		break;
	default:
		*fmt = w->z->algs[1];
		break;
	}
	return z_erofs_check_alg(w->ctx, w->inode, *fmt, head->pos);
}

/*
 * The tail extent of an index inode: inline or fragment (format.md, "Inline
 * tail", "Fragments").
 */
static int z_map_tail(struct z_walk *w, struct erofs_map *map)
{
	const struct erofs_inode *inode = w->inode;
	const struct z_erofs_info *z = w->z;
	struct z_lcluster head;
	int ret;

	if (z->advise & Z_EROFS_ADVISE_FRAGMENT_PCLUSTER)
		return z_erofs_map_fragment(w->ctx, inode, z->tail_la,
					    z->fragmentoff, z->hpos, map);
	ret = z_load(w, z->tailhead_lcn, &head);
	if (!ret)
		ret = z_index_fmt(w, &head, true, &map->fmt);
	if (ret)
		return ret;
	map->la = z->tail_la;
	map->llen = inode->size - z->tail_la;
	map->pa = z->idata_pos;
	map->plen = z->idata_size;
	map->loc = EROFS_LOC_META;
	map->space = inode->space;
	map->flags = EROFS_MAP_FULL_MAPPED;
	if (head.partial)
		map->flags |= EROFS_MAP_PARTIAL_REF;
	return z_erofs_check_extent(w->ctx, inode, map, false, head.pos);
}

/* Size in blocks of the pcluster of a HEAD lcluster ("Pcluster size"). */
static int z_pcluster_blocks(struct z_walk *w, const struct z_lcluster *head,
			     uint32_t *blocks)
{
	bool big = head->type == Z_EROFS_LCLUSTER_TYPE_HEAD1 ?
		   w->z->advise & Z_EROFS_ADVISE_BIG_PCLUSTER_1 :
		   w->z->advise & Z_EROFS_ADVISE_BIG_PCLUSTER_2;
	struct z_lcluster next;
	int ret;

	*blocks = 1;
	if (!big || head->lcn + 1 >= w->total)
		return 0;
	ret = z_load(w, head->lcn + 1, &next);
	if (ret || next.type != Z_EROFS_LCLUSTER_TYPE_NONHEAD)
		return ret;
	if (next.delta[0] != 1)
		return z_lcn_corrupt(w, next.lcn, next.pos,
				     "lookback distance %u right after its HEAD",
				     next.delta[0]);
	if (!next.cblk)
		return z_lcn_corrupt(w, next.lcn, next.pos,
				     "big pcluster without CBLKCNT");
	*blocks = next.cblkcnt;
	return z_check_cblkcnt(w, next.lcn, next.pos, next.cblkcnt);
}

/*
 * Linux 7.1 refuses compressed extents shorter than their pcluster only
 * when it knows where they end. Reading LZ4 it learns that from the next
 * HEAD's clusterofs, so an LZ4 extent ending on an lcluster boundary is
 * read without complaint; mkfs.erofs 1.5 (-Eztailpacking,legacy-compress)
 * writes such extents.
 */
static bool z_short_ok(const struct z_walk *w, uint8_t fmt, uint64_t end)
{
	return fmt == EROFS_FMT_LZ4 && !(end & (w->lcs - 1));
}

static int z_map_index(struct erofs_ctx *ctx, const struct erofs_inode *inode,
		       uint64_t pos, struct erofs_map *map)
{
	const struct z_erofs_info *z = &inode->z;
	struct z_lcluster head;
	uint64_t end, lcn;
	uint32_t blocks;
	struct z_walk w;
	int ret;

	z_walk_init(&w, ctx, inode);
	if (z->has_tailhead && pos >= z->tail_la)
		return z_map_tail(&w, map);
	ret = z_find_head(&w, pos, Z_EROFS_PCLUSTER_MAX_DSIZE, &head, &end);
	if (ret)
		return ret;
	map->la = head.lcn * w.lcs + head.clusterofs;
	lcn = pos >> z->lclusterbits;
	if (!end)
		ret = z_lookahead(&w, head.lcn, lcn == head.lcn ? lcn + 1 : lcn,
				  map->la, &end);
	else if (end > inode->size)
		end = inode->size;
	if (ret)
		return ret;
	if (z->has_tailhead && end > z->tail_la)
		return z_lcn_corrupt(&w, head.lcn, head.pos,
				     "starts an extent running into the tail");
	map->llen = end - map->la;
	ret = z_index_fmt(&w, &head, false, &map->fmt);
	if (!ret)
		ret = z_head_blkaddr(&w, &head);
	if (!ret)
		ret = z_pcluster_blocks(&w, &head, &blocks);
	if (ret)
		return ret;
	map->pa = head.blkaddr << ctx->img->blkszbits;
	map->plen = (uint64_t)blocks << ctx->img->blkszbits;
	map->loc = EROFS_LOC_DEVICE;
	map->flags = EROFS_MAP_FULL_MAPPED;
	if (head.partial)
		map->flags |= EROFS_MAP_PARTIAL_REF;
	return z_erofs_check_extent(ctx, inode, map,
				    z_short_ok(&w, map->fmt, end), head.pos);
}

/* ---- entry points ---- */

int z_erofs_map(struct erofs_ctx *ctx, const struct erofs_inode *inode,
		uint64_t pos, struct erofs_map *map)
{
	const struct z_erofs_info *z = &inode->z;

	memset(map, 0, sizeof(*map));
	if (!erofs_inode_is_compressed(inode) || pos >= inode->size)
		return erofs_error(&ctx->err, -EINVAL, inode->nid,
				   EROFS_NO_OFFSET,
				   "cannot map offset %llu of a %llu-byte file",
				   (unsigned long long)pos,
				   (unsigned long long)inode->size);
	if (z->whole_fragment)
		return z_erofs_map_fragment(ctx, inode, 0, z->fragmentoff,
					    z->hpos, map);
	if (z->extents)
		return z_erofs_map_extents(ctx, inode, pos, map);
	return z_map_index(ctx, inode, pos, map);
}

int z_erofs_init_inode(struct erofs_ctx *ctx, struct erofs_inode *inode)
{
	struct z_erofs_info *z = &inode->z;
	uint8_t h[Z_EROFS_MAP_HEADER_SIZE];
	int ret;

	memset(z, 0, sizeof(*z));
	if (!erofs_inode_is_compressed(inode))
		return erofs_error(&ctx->err, -EINVAL, inode->nid,
				   EROFS_NO_OFFSET, "not a compressed inode");
	z->hpos = erofs_round_up(inode->meta_end, 8);
	ret = erofs_meta_read(ctx, inode->space, z->hpos, h, sizeof(h),
			      inode->nid);
	if (ret)
		return ret;
	if (h[Z_EROFS_MH_CLUSTERBITS] & (1u << Z_EROFS_FRAGMENT_INODE_BIT)) {
		z->whole_fragment = true;
		z->fragmentoff = erofs_get64(h) & ~(1ULL << 63);
		return z_erofs_check_fragment(ctx, inode, z->fragmentoff,
					      inode->size, z->hpos);
	}
	z->advise = erofs_get16(h + Z_EROFS_MH_ADVISE);
	if (!z_is_compact(inode) && (z->advise & Z_EROFS_ADVISE_EXTENTS))
		return z_erofs_init_extents(ctx, inode, h);
	return z_init_index(ctx, inode, h);
}

/*
 * A NONHEAD record is only read by a mapping when an offset falls in its
 * lcluster or a lookahead lands on it; a checker wants every record sound.
 */
static int z_check_nonhead(struct z_walk *w, const struct z_lcluster *lc,
			   uint8_t prev_type)
{
	if (!lc->delta[0])
		return z_lcn_corrupt(w, lc->lcn, lc->pos, "lookback distance 0");
	if (lc->delta[0] > lc->lcn)
		return z_lcn_corrupt(w, lc->lcn, lc->pos,
				     "lookback distance %u beyond lcluster 0",
				     lc->delta[0]);
	if (lc->cblk && prev_type == Z_EROFS_LCLUSTER_TYPE_NONHEAD)
		return z_lcn_corrupt(w, lc->lcn, lc->pos,
				     "CBLKCNT not right after a HEAD");
	return 0;
}

int z_erofs_check_index(struct erofs_ctx *ctx, const struct erofs_inode *inode)
{
	uint8_t prev_type = Z_EROFS_LCLUSTER_TYPE_PLAIN;
	struct z_lcluster lc;
	struct z_walk w;
	uint64_t lcn;
	int ret;

	if (!erofs_inode_is_compressed(inode) || inode->z.whole_fragment ||
	    inode->z.extents)
		return 0;
	z_walk_init(&w, ctx, inode);
	for (lcn = 0; lcn < w.total; lcn++) {
		ret = z_load(&w, lcn, &lc);
		if (!ret && lc.type == Z_EROFS_LCLUSTER_TYPE_NONHEAD)
			ret = z_check_nonhead(&w, &lc, prev_type);
		if (ret)
			return ret;
		prev_type = lc.type;
	}
	return 0;
}
