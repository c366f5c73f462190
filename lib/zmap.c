// SPDX-License-Identifier: MIT
/*
 * Mapping of compressed files (format sections 7.3-7.13): the map header,
 * full and compact lcluster indexes, big pclusters, inline tails, fragments
 * and encoded extents.
 *
 * Every extent is returned with its exact length (7.7), so the data path
 * can always decode a pcluster in one go and check that it produces exactly
 * what the index promises. Walks over index entries are bounded by what a
 * legal extent can span, so crafted indexes cannot make them loop.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "erofs/data.h"
#include "erofs/error.h"
#include "erofs/format.h"
#include "erofs/image.h"
#include "erofs/inode.h"

/* error offsets are image byte offsets, which only the primary space has */
static uint64_t z_where(const struct erofs_inode *inode, uint64_t pos)
{
	return inode->space == EROFS_SPACE_PRIMARY ? pos : EROFS_NO_OFFSET;
}

#define z_corrupt(ctx, inode, pos, ...)					\
	erofs_error(&(ctx)->err, -EFSCORRUPTED, (inode)->nid,		\
		    z_where(inode, pos), __VA_ARGS__)

#define Z_MAX_BLOCK_END(bits) ((1ULL << 48) << (bits))
#define Z_ADVISE_INDEX_KNOWN 0x003f

struct z_lcluster {
	uint64_t lcn;
	uint64_t pos;		/* where its record is, for error messages */
	uint8_t type;
	bool partial;
	bool cblk;		/* NONHEAD whose delta[0] is a block count */
	uint16_t cblkcnt;
	uint16_t clusterofs;	/* HEAD/PLAIN */
	uint64_t blkaddr;	/* HEAD/PLAIN */
	uint32_t delta[2];	/* NONHEAD: lookback (1 for CBLKCNT), lookahead */
};

struct z_walk {
	struct erofs_ctx *ctx;
	const struct erofs_inode *inode;
	const struct z_erofs_info *z;
	uint64_t lcs;
	uint64_t total;		/* lclusters of the file */
	/* compact layout: the pack decoded last */
	uint64_t pack_pos;
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

static const char *z_index_name(const struct erofs_inode *inode)
{
	return z_is_compact(inode) ? "compact index" : "full index";
}

static uint64_t z_lcluster_count(uint64_t size, unsigned int lclusterbits)
{
	return (size >> lclusterbits) +
	       !!(size & ((1ULL << lclusterbits) - 1));
}

static uint16_t z_max_cblkcnt(const struct erofs_ctx *ctx)
{
	return Z_EROFS_PCLUSTER_MAX_SIZE >> ctx->img->blkszbits;
}

static uint16_t z_available_algs(const struct erofs_image *img)
{
	if (!(img->feature_incompat & EROFS_FEATURE_INCOMPAT_COMPR_CFGS))
		return 1u << Z_EROFS_COMPRESSION_LZ4;
	return img->available_compr_algs;
}

static bool z_big_pcluster(const struct z_erofs_info *z, uint8_t type)
{
	if (type == Z_EROFS_LCLUSTER_TYPE_HEAD1)
		return z->advise & Z_EROFS_ADVISE_BIG_PCLUSTER_1;
	return z->advise & Z_EROFS_ADVISE_BIG_PCLUSTER_2;
}

static void z_walk_init(struct z_walk *w, struct erofs_ctx *ctx,
			const struct erofs_inode *inode)
{
	w->ctx = ctx;
	w->inode = inode;
	w->z = &inode->z;
	w->lcs = 1ULL << inode->z.lclusterbits;
	w->total = z_lcluster_count(inode->size, inode->z.lclusterbits);
	w->pack_pos = UINT64_MAX;
}

/* Rules that hold for an lcluster whatever the index layout. */
static int z_check_lcluster(struct z_walk *w, const struct z_lcluster *lc)
{
	const char *name = z_index_name(w->inode);

	if (lc->type == Z_EROFS_LCLUSTER_TYPE_NONHEAD) {
		if (!lc->lcn)
			return z_corrupt(w->ctx, w->inode, lc->pos,
					 "%s: lcluster 0 is NONHEAD", name);
		if (lc->cblk &&
		    !(w->z->advise & (Z_EROFS_ADVISE_BIG_PCLUSTER_1 |
				      Z_EROFS_ADVISE_BIG_PCLUSTER_2)))
			return z_corrupt(w->ctx, w->inode, lc->pos,
					 "%s: lcluster %llu CBLKCNT without big pclusters",
					 name, (unsigned long long)lc->lcn);
		return 0;
	}
	if (lc->clusterofs >= w->lcs)
		return z_corrupt(w->ctx, w->inode, lc->pos,
				 "%s: lcluster %llu clusterofs %u beyond lcluster size",
				 name, (unsigned long long)lc->lcn, lc->clusterofs);
	if (!lc->lcn && lc->clusterofs)
		return z_corrupt(w->ctx, w->inode, lc->pos,
				 "%s: lcluster 0 clusterofs %u is not 0", name,
				 lc->clusterofs);
	if (lc->partial && lc->type == Z_EROFS_LCLUSTER_TYPE_PLAIN)
		return z_corrupt(w->ctx, w->inode, lc->pos,
				 "%s: lcluster %llu PLAIN with PARTIAL_REF",
				 name, (unsigned long long)lc->lcn);
	return 0;
}

/*
 * The range of a CBLKCNT is checked where it sizes a pcluster: mkfs writes
 * 0 after the HEAD of a tail fragment, which has no blocks.
 */
static int z_check_cblkcnt(struct z_walk *w, uint64_t lcn, uint64_t pos,
			   uint16_t cblkcnt)
{
	if (cblkcnt && cblkcnt <= z_max_cblkcnt(w->ctx))
		return 0;
	return z_corrupt(w->ctx, w->inode, pos,
			 "%s: lcluster %llu CBLKCNT %u out of range",
			 z_index_name(w->inode), (unsigned long long)lcn,
			 cblkcnt);
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

/* Compact layout (7.5): where the pack holding lcluster lcn is. */
struct z_pack_loc {
	uint64_t pos;
	unsigned int size;	/* 8 or 32 bytes */
	unsigned int vcnt;	/* 2 or 16 entries */
	unsigned int bits;	/* 16 or 14 bits per entry */
	unsigned int j;		/* lcn's entry in the pack */
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

/* Check the pack's entries that belong to the file once, when decoded. */
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

/* delta[1] of NONHEAD entry j: NONHEADs up to the pack end, then its lo */
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

static int z_compact_blkaddr_small(struct z_walk *w, unsigned int j,
				   struct z_lcluster *lc)
{
	uint32_t count = 0;
	int t = (int)j - 1;

	while (t >= 0) {
		if (w->type[t] == Z_EROFS_LCLUSTER_TYPE_NONHEAD) {
			if (!w->lo[t])
				return z_corrupt(w->ctx, w->inode, w->pack_pos,
						 "compact index: lcluster %llu lookback distance 0",
						 (unsigned long long)(w->pack_lcn + t));
			t -= w->lo[t];
			if (t < 0)
				break;
			if (w->type[t] == Z_EROFS_LCLUSTER_TYPE_NONHEAD)
				return z_corrupt(w->ctx, w->inode, w->pack_pos,
						 "compact index: lcluster %llu lookback lands on NONHEAD",
						 (unsigned long long)(w->pack_lcn + t));
		}
		count++;
		t--;
	}
	lc->blkaddr = (uint64_t)w->base + 1 + count;
	return 0;
}

static int z_compact_blkaddr_big(struct z_walk *w, unsigned int j,
				 struct z_lcluster *lc)
{
	uint32_t blocks = 0;
	int t = (int)j - 1;

	while (t >= 0) {
		if (w->type[t] != Z_EROFS_LCLUSTER_TYPE_NONHEAD) {
			blocks++;
			t--;
			continue;
		}
		if (z_compact_is_cblk(w, t)) {
			uint16_t c = w->lo[t] & (Z_EROFS_LI_D0_CBLKCNT - 1);
			int ret = z_check_cblkcnt(w, w->pack_lcn + t,
						  w->pack_pos, c);

			if (ret)
				return ret;
			blocks += c;
			t -= 2;
			continue;
		}
		if (w->lo[t] < 2)
			return z_corrupt(w->ctx, w->inode, w->pack_pos,
					 "compact index: lcluster %llu lookback distance %u in a big pcluster",
					 (unsigned long long)(w->pack_lcn + t),
					 w->lo[t]);
		/* land on the entry after its HEAD, which holds the count */
		t -= w->lo[t] - 1;
		if (t >= 0 && !z_compact_is_cblk(w, t))
			return z_corrupt(w->ctx, w->inode, w->pack_pos,
					 "compact index: lcluster %llu missing CBLKCNT",
					 (unsigned long long)(w->pack_lcn + t));
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
	if (j < w->vcnt - 1 || z_compact_is_cblk(w, j)) {
		z_set_delta0(lc, w->lo[j]);
	} else if (w->type[j - 1] == Z_EROFS_LCLUSTER_TYPE_NONHEAD) {
		lc->delta[0] = (z_compact_is_cblk(w, j - 1) ? 1 : w->lo[j - 1]) + 1;
	} else {
		lc->delta[0] = 1;
	}
	lc->delta[1] = z_compact_delta1(w, j);
	return 0;
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

static int z_load(struct z_walk *w, uint64_t lcn, struct z_lcluster *lc)
{
	if (lcn >= w->total)
		return z_corrupt(w->ctx, w->inode, EROFS_NO_OFFSET,
				 "%s: lcluster %llu beyond the %llu of the file",
				 z_index_name(w->inode),
				 (unsigned long long)lcn,
				 (unsigned long long)w->total);
	if (z_is_compact(w->inode))
		return z_compact_load(w, lcn, lc);
	return z_full_load(w, lcn, lc);
}

/*
 * From NONHEAD (or split HEAD) lcluster lc, follow lookback distance d to
 * the HEAD of its extent. maxback bounds how far back the HEAD may be.
 */
static int z_lookback(struct z_walk *w, const struct z_lcluster *from,
		      uint32_t d, uint64_t maxback, struct z_lcluster *head)
{
	const char *name = z_index_name(w->inode);
	uint64_t c = from->lcn, pos = from->pos;
	bool after_cblk = from->cblk;
	int ret;

	for (;;) {
		if (!d)
			return z_corrupt(w->ctx, w->inode, pos,
					 "%s: lcluster %llu lookback distance 0",
					 name, (unsigned long long)c);
		if (d > c)
			return z_corrupt(w->ctx, w->inode, pos,
					 "%s: lcluster %llu lookback distance %u beyond lcluster 0",
					 name, (unsigned long long)c, d);
		if (from->lcn - (c - d) > maxback)
			return z_corrupt(w->ctx, w->inode, pos,
					 "%s: lcluster %llu extent longer than allowed",
					 name, (unsigned long long)from->lcn);
		ret = z_load(w, c - d, head);
		if (ret)
			return ret;
		if (head->type != Z_EROFS_LCLUSTER_TYPE_NONHEAD)
			return 0;
		if (after_cblk)
			return z_corrupt(w->ctx, w->inode, pos,
					 "%s: lcluster %llu CBLKCNT not right after a HEAD",
					 name, (unsigned long long)c);
		c = head->lcn;
		pos = head->pos;
		d = head->delta[0];
		after_cblk = head->cblk;
	}
}

/* Exact end of the extent starting at la, scanning from lcluster c (7.7). */
static int z_lookahead(struct z_walk *w, uint64_t c, uint64_t la,
		       uint64_t *end)
{
	struct z_lcluster lc;
	int ret;

	for (;;) {
		if (c >= w->total) {
			*end = w->inode->size;
			return 0;
		}
		if (c * w->lcs - la > Z_EROFS_PCLUSTER_MAX_DSIZE)
			return z_corrupt(w->ctx, w->inode, EROFS_NO_OFFSET,
					 "%s: extent at %llu longer than 12 MiB",
					 z_index_name(w->inode),
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
		c += lc.delta[1] ? lc.delta[1] : 1;
	}
}

/* The HEAD of the extent containing file offset pos (7.6). */
static int z_find_head(struct z_walk *w, uint64_t pos, uint64_t maxback,
		       struct z_lcluster *head, uint64_t *end)
{
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

static uint64_t z_max_lookback(const struct z_walk *w, uint64_t maxlen)
{
	return (maxlen >> w->z->lclusterbits) + 1;
}

static int z_check_fragment(struct erofs_ctx *ctx,
			    const struct erofs_inode *inode, uint64_t off,
			    uint64_t len, uint64_t where)
{
	const struct erofs_image *img = ctx->img;

	if (!(img->feature_incompat & EROFS_FEATURE_INCOMPAT_FRAGMENTS))
		return z_corrupt(ctx, inode, where,
				 "fragment without the fragments feature");
	if (img->packed_nid && inode->nid == img->packed_nid)
		return z_corrupt(ctx, inode, where,
				 "fragment in the packed inode itself");
	if (!img->has_packed)
		return z_corrupt(ctx, inode, where,
				 "fragment without a packed inode");
	if (off > img->packed.size || len > img->packed.size - off)
		return z_corrupt(ctx, inode, where,
				 "fragment %llu+%llu beyond the packed inode (%llu bytes)",
				 (unsigned long long)off, (unsigned long long)len,
				 (unsigned long long)img->packed.size);
	return 0;
}

/* End of the index array: where an inline pcluster starts (7.9). */
static uint64_t z_index_end(const struct z_walk *w)
{
	struct z_pack_loc loc;

	if (!z_is_compact(w->inode))
		return w->z->records + w->total * Z_EROFS_LCLUSTER_INDEX_SIZE;
	z_compact_locate(w->z, w->total, w->total - 1, &loc);
	return loc.pos + loc.size;
}

static int z_init_inline(struct z_walk *w, struct erofs_inode *inode)
{
	struct z_erofs_info *z = &inode->z;
	uint64_t bs = w->ctx->img->blksz;

	if (!z->idata_size || (z->idata_pos & (bs - 1)) + z->idata_size > bs)
		return z_corrupt(w->ctx, inode, z->hpos,
				 "inline pcluster of %u bytes at %llu crosses a block",
				 z->idata_size,
				 (unsigned long long)z->idata_pos);
	if (z->idata_pos + z->idata_size >
	    erofs_space_size(w->ctx->img, inode->space))
		return z_corrupt(w->ctx, inode, z->hpos,
				 "inline pcluster beyond its metadata space");
	return 0;
}

/* Find the tail HEAD of an inode with an inline or fragment tail. */
static int z_init_tail(struct erofs_ctx *ctx, struct erofs_inode *inode)
{
	struct z_erofs_info *z = &inode->z;
	bool frag = z->advise & Z_EROFS_ADVISE_FRAGMENT_PCLUSTER;
	uint64_t maxlen = Z_EROFS_PCLUSTER_MAX_DSIZE;
	struct z_lcluster head;
	struct z_walk w;
	uint64_t end;
	int ret;

	if (frag) {
		ret = z_check_fragment(ctx, inode, 0, 0, z->hpos);
		if (ret)
			return ret;
		maxlen = ctx->img->packed.size + (1ULL << z->lclusterbits);
	}
	z_walk_init(&w, ctx, inode);
	ret = z_find_head(&w, inode->size - 1, z_max_lookback(&w, maxlen),
			  &head, &end);
	if (ret)
		return ret;
	z->has_tailhead = true;
	z->tailhead_lcn = head.lcn;
	z->tail_la = head.lcn * w.lcs + head.clusterofs;
	if (frag) {
		if (!z_is_compact(inode))
			z->fragmentoff |= head.blkaddr << 32;
		return z_check_fragment(ctx, inode, z->fragmentoff,
					inode->size - z->tail_la, head.pos);
	}
	z->idata_pos = z_index_end(&w);
	return z_init_inline(&w, inode);
}

static int z_init_index(struct erofs_ctx *ctx, struct erofs_inode *inode,
			const uint8_t *h)
{
	const struct erofs_image *img = ctx->img;
	struct z_erofs_info *z = &inode->z;
	uint8_t bits = h[Z_EROFS_MH_CLUSTERBITS];
	struct z_walk w;
	unsigned int i;

	if (z->advise & ~Z_ADVISE_INDEX_KNOWN)
		return z_corrupt(ctx, inode, z->hpos,
				 "map header: unknown advise bits 0x%x",
				 z->advise);
	if (bits & 0x70)
		return z_corrupt(ctx, inode, z->hpos,
				 "map header: reserved clusterbits 0x%x", bits);
	z->lclusterbits = img->blkszbits + (bits & 15);
	for (i = 0; i < 2; i++) {
		z->algs[i] = (h[Z_EROFS_MH_ALGORITHMTYPE] >> (4 * i)) & 15;
		if (z->algs[i] >= Z_EROFS_COMPRESSION_MAX)
			return erofs_error(&ctx->err, -EOPNOTSUPP, inode->nid,
					   z_where(inode, z->hpos),
					   "map header: unknown algorithm %u",
					   z->algs[i]);
	}
	if ((z->advise & (Z_EROFS_ADVISE_BIG_PCLUSTER_1 |
			  Z_EROFS_ADVISE_BIG_PCLUSTER_2)) &&
	    !(img->feature_incompat & EROFS_FEATURE_INCOMPAT_BIG_PCLUSTER))
		return z_corrupt(ctx, inode, z->hpos,
				 "map header: big pclusters without the feature");
	if (z_is_compact(inode)) {
		bool big1 = z->advise & Z_EROFS_ADVISE_BIG_PCLUSTER_1;
		bool big2 = z->advise & Z_EROFS_ADVISE_BIG_PCLUSTER_2;
		unsigned int maxbits =
			(z->advise & Z_EROFS_ADVISE_COMPACTED_2B) ? 12 : 14;

		if (big1 != big2)
			return z_corrupt(ctx, inode, z->hpos,
					 "map header: compact big pcluster bits differ");
		if (z->lclusterbits > maxbits)
			return z_corrupt(ctx, inode, z->hpos,
					 "map header: lclusterbits %u too large for compact indexes",
					 z->lclusterbits);
		z->records = z->hpos + Z_EROFS_MAP_HEADER_SIZE;
	} else {
		z->records = z->hpos + 16;
	}
	if (z->advise & Z_EROFS_ADVISE_FRAGMENT_PCLUSTER) {
		z->fragmentoff = erofs_get32(h + Z_EROFS_MH_FRAGMENTOFF);
	} else if (z->advise & Z_EROFS_ADVISE_INLINE_PCLUSTER) {
		if (!(img->feature_incompat & EROFS_FEATURE_INCOMPAT_ZTAILPACKING))
			return z_corrupt(ctx, inode, z->hpos,
					 "map header: inline pcluster without ztailpacking");
		z->idata_size = erofs_get16(h + Z_EROFS_MH_IDATA_SIZE);
	}
	if (!inode->size)
		return 0;
	z_walk_init(&w, ctx, inode);
	if (z_index_end(&w) > erofs_space_size(img, inode->space))
		return z_corrupt(ctx, inode, z->hpos,
				 "%s: %llu lclusters beyond the metadata space",
				 z_index_name(inode),
				 (unsigned long long)w.total);
	if (!(z->advise & (Z_EROFS_ADVISE_FRAGMENT_PCLUSTER |
			   Z_EROFS_ADVISE_INLINE_PCLUSTER)))
		return 0;
	return z_init_tail(ctx, inode);
}

static int z_init_extents(struct erofs_ctx *ctx, struct erofs_inode *inode,
			  const uint8_t *h)
{
	const struct erofs_image *img = ctx->img;
	struct z_erofs_info *z = &inode->z;
	uint64_t count, space = erofs_space_size(img, inode->space);
	uint8_t base[8];
	int ret;

	if (!(img->feature_incompat & EROFS_FEATURE_INCOMPAT_48BIT))
		return z_corrupt(ctx, inode, z->hpos,
				 "map header: encoded extents without 48bit");
	if (z->advise & Z_EROFS_ADVISE_INLINE_PCLUSTER)
		return z_corrupt(ctx, inode, z->hpos,
				 "map header: inline pcluster with encoded extents");
	if (z->advise & ~Z_ADVISE_INDEX_KNOWN)
		return z_corrupt(ctx, inode, z->hpos,
				 "map header: unknown advise bits 0x%x",
				 z->advise);
	z->extents = true;
	z->recsz = 4 << ((z->advise >> Z_EROFS_ADVISE_EXTRECSZ_SHIFT) &
			 Z_EROFS_ADVISE_EXTRECSZ_MASK);
	z->records = (z->hpos + Z_EROFS_MAP_HEADER_SIZE + z->recsz - 1) &
		     ~(uint64_t)(z->recsz - 1);
	if (z->recsz <= 8) {
		uint8_t bits = h[Z_EROFS_MH_CLUSTERBITS];

		if (bits & 0x70)
			return z_corrupt(ctx, inode, z->hpos,
					 "map header: reserved clusterbits 0x%x",
					 bits);
		z->lclusterbits = img->blkszbits + (bits & 15);
		count = z_lcluster_count(inode->size, z->lclusterbits);
	} else {
		z->nextents = erofs_get32(h + Z_EROFS_MH_EXTENTS_LO) |
			(uint64_t)erofs_get16(h + Z_EROFS_MH_EXTENTS_HI) << 32;
		count = z->nextents;
		if (inode->size && !count)
			return z_corrupt(ctx, inode, z->hpos,
					 "map header: no encoded extents");
		if (count > inode->size)
			return z_corrupt(ctx, inode, z->hpos,
					 "map header: %llu encoded extents for %llu bytes",
					 (unsigned long long)count,
					 (unsigned long long)inode->size);
	}
	if (z->recsz == 4) {
		ret = erofs_meta_read(ctx, inode->space, z->records, base,
				      sizeof(base), inode->nid);
		if (ret)
			return ret;
		z->rec4_base = erofs_get64(base);
		z->records += sizeof(base);
	}
	if (z->records > space || count > (space - z->records) / z->recsz)
		return z_corrupt(ctx, inode, z->hpos,
				 "encoded extents: %llu records beyond the metadata space",
				 (unsigned long long)count);
	if ((z->advise & Z_EROFS_ADVISE_FRAGMENT_PCLUSTER) && inode->size)
		return z_check_fragment(ctx, inode, 0, 0, z->hpos);
	return 0;
}

struct z_extent {
	uint64_t idx;
	uint64_t pos;
	uint32_t plen;		/* raw field */
	uint64_t pstart;
	uint64_t lstart;
};

static int z_extent_load(struct erofs_ctx *ctx, const struct erofs_inode *inode,
			 uint64_t idx, struct z_extent *ext)
{
	const struct z_erofs_info *z = &inode->z;
	uint8_t rec[32];
	int ret;

	ext->idx = idx;
	ext->pos = z->records + idx * z->recsz;
	ret = erofs_meta_read(ctx, inode->space, ext->pos, rec, z->recsz,
			      inode->nid);
	if (ret)
		return ret;
	ext->plen = erofs_get32(rec + Z_EROFS_EXTENT_PLEN);
	ext->pstart = 0;
	ext->lstart = 0;
	if (z->recsz >= 8)
		ext->pstart = erofs_get32(rec + Z_EROFS_EXTENT_PSTART_LO);
	if (z->recsz < 16)
		return 0;
	ext->pstart |= (uint64_t)erofs_get32(rec + Z_EROFS_EXTENT_PSTART_HI) << 32;
	ext->lstart = erofs_get32(rec + Z_EROFS_EXTENT_LSTART_LO);
	if (z->recsz == 32)
		ext->lstart |=
			(uint64_t)erofs_get32(rec + Z_EROFS_EXTENT_LSTART_HI) << 32;
	if (ext->lstart >= inode->size && inode->size)
		return z_corrupt(ctx, inode, ext->pos,
				 "encoded extent %llu: lstart %llu beyond i_size",
				 (unsigned long long)idx,
				 (unsigned long long)ext->lstart);
	return 0;
}

static int z_extent_unsorted(struct erofs_ctx *ctx,
			     const struct erofs_inode *inode,
			     const struct z_extent *ext)
{
	return z_corrupt(ctx, inode, ext->pos,
			 "encoded extent %llu: lstart %llu out of order",
			 (unsigned long long)ext->idx,
			 (unsigned long long)ext->lstart);
}

/*
 * The last sorted record (recsz 16/32) starting at or before pos. Every
 * probe must fall strictly between the bounds found so far, so unsorted
 * records are reported rather than giving an arbitrary answer.
 */
static int z_extent_find(struct erofs_ctx *ctx, const struct erofs_inode *inode,
			 uint64_t pos, struct z_extent *ext)
{
	uint64_t lo = 0, hi = inode->z.nextents, hi_start = inode->size;
	struct z_extent mid;
	int ret;

	ret = z_extent_load(ctx, inode, 0, ext);
	if (ret)
		return ret;
	if (ext->lstart)
		return z_corrupt(ctx, inode, ext->pos,
				 "encoded extent 0: lstart %llu is not 0",
				 (unsigned long long)ext->lstart);
	while (hi - lo > 1) {
		ret = z_extent_load(ctx, inode, lo + (hi - lo) / 2, &mid);
		if (ret)
			return ret;
		if (mid.lstart <= ext->lstart || mid.lstart >= hi_start)
			return z_extent_unsorted(ctx, inode, &mid);
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

static int z_map_fragment(struct erofs_ctx *ctx, const struct erofs_inode *inode,
			  uint64_t la, uint64_t off, uint64_t where,
			  struct erofs_map *map)
{
	int ret = z_check_fragment(ctx, inode, off, inode->size - la, where);

	if (ret)
		return ret;
	map->la = la;
	map->llen = inode->size - la;
	map->pa = off;
	map->plen = map->llen;
	map->loc = EROFS_LOC_FRAGMENT;
	map->fmt = EROFS_FMT_SHIFTED;
	map->flags |= EROFS_MAP_FULL_MAPPED;
	return 0;
}

/* Rules every pcluster extent obeys (7.2, 7.8, 7.12, 7.13). */
static int z_check_extent(struct erofs_ctx *ctx, const struct erofs_inode *inode,
			  const struct erofs_map *map, uint64_t where)
{
	bool raw = map->fmt >= EROFS_FMT_SHIFTED;
	unsigned long long la = map->la, llen = map->llen, plen = map->plen;

	if (map->plen > Z_EROFS_PCLUSTER_MAX_SIZE)
		return z_corrupt(ctx, inode, where,
				 "extent at %llu: plen %llu over 1 MiB", la, plen);
	if (map->llen > Z_EROFS_PCLUSTER_MAX_DSIZE)
		return z_corrupt(ctx, inode, where,
				 "extent at %llu: llen %llu over 12 MiB", la, llen);
	if (raw && llen > plen)
		return z_corrupt(ctx, inode, where,
				 "raw extent at %llu: llen %llu beyond plen %llu",
				 la, llen, plen);
	if (map->fmt == EROFS_FMT_INTERLACED && plen != ctx->img->blksz)
		return z_corrupt(ctx, inode, where,
				 "interlaced extent at %llu: pcluster of %llu bytes",
				 la, plen);
	if (!raw && llen < plen && la + llen != inode->size &&
	    !(map->flags & EROFS_MAP_PARTIAL_REF))
		return z_corrupt(ctx, inode, where,
				 "compressed extent at %llu: llen %llu below plen %llu",
				 la, llen, plen);
	if (map->loc == EROFS_LOC_DEVICE &&
	    (map->pa > Z_MAX_BLOCK_END(ctx->img->blkszbits) ||
	     plen > Z_MAX_BLOCK_END(ctx->img->blkszbits) - map->pa))
		return z_corrupt(ctx, inode, where,
				 "extent at %llu: pcluster %llu+%llu beyond 48-bit blocks",
				 la, (unsigned long long)map->pa, plen);
	return 0;
}

static int z_check_alg(struct erofs_ctx *ctx, const struct erofs_inode *inode,
		       unsigned int alg, uint64_t where)
{
	if (alg >= Z_EROFS_COMPRESSION_MAX ||
	    !(z_available_algs(ctx->img) & (1u << alg)))
		return z_corrupt(ctx, inode, where,
				 "algorithm %u not enabled in the image", alg);
	return 0;
}

/* Fill map from an encoded extent record covering [la, end). */
static int z_extent_fill(struct erofs_ctx *ctx, const struct erofs_inode *inode,
			 const struct z_extent *ext, uint64_t la, uint64_t end,
			 bool last, struct erofs_map *map)
{
	const struct z_erofs_info *z = &inode->z;
	uint32_t len = ext->plen & Z_EROFS_EXTENT_PLEN_MASK;
	unsigned int fmt = ext->plen >> Z_EROFS_EXTENT_PLEN_FMT_BIT;
	uint32_t bs = ctx->img->blksz;
	int ret;

	map->flags = EROFS_MAP_ENCODED;
	if (last && (z->advise & Z_EROFS_ADVISE_FRAGMENT_PCLUSTER))
		return z_map_fragment(ctx, inode, la,
				      ext->plen | (uint64_t)(uint32_t)ext->pstart << 32,
				      ext->pos, map);
	if (ext->plen & Z_EROFS_EXTENT_PLEN_RESERVED)
		return z_corrupt(ctx, inode, ext->pos,
				 "encoded extent %llu: reserved plen bits 0x%x",
				 (unsigned long long)ext->idx, ext->plen);
	if (fmt > Z_EROFS_COMPRESSION_MAX)
		return z_corrupt(ctx, inode, ext->pos,
				 "encoded extent %llu: format %u",
				 (unsigned long long)ext->idx, fmt);
	map->la = la;
	map->llen = end - la;
	map->flags |= EROFS_MAP_FULL_MAPPED;
	if (!len) {
		map->loc = EROFS_LOC_HOLE;
		map->fmt = EROFS_FMT_SHIFTED;
		return 0;
	}
	map->loc = EROFS_LOC_DEVICE;
	map->pa = ext->pstart;
	map->plen = len;
	if (ext->plen & Z_EROFS_EXTENT_PLEN_PARTIAL)
		map->flags |= EROFS_MAP_PARTIAL_REF;
	if (fmt) {
		ret = z_check_alg(ctx, inode, fmt - 1, ext->pos);
		if (ret)
			return ret;
		map->fmt = fmt - 1;
	} else if ((z->advise & Z_EROFS_ADVISE_INTERLACED_PCLUSTER) &&
		   !(map->pa & (bs - 1)) && !(len & (bs - 1))) {
		map->fmt = EROFS_FMT_INTERLACED;
	} else {
		map->fmt = EROFS_FMT_SHIFTED;
	}
	return z_check_extent(ctx, inode, map, ext->pos);
}

/*
 * recsz 4: pclusters are contiguous from the base address, so record k's
 * address is a sum over the records before it. The context remembers the
 * last sum so that a sequential reader adds one record per lookup.
 */
static int z_extent4_pa(struct erofs_ctx *ctx, const struct erofs_inode *inode,
			uint64_t k, uint64_t *pa)
{
	const struct z_erofs_info *z = &inode->z;
	uint64_t limit = Z_MAX_BLOCK_END(ctx->img->blkszbits);
	uint64_t sum = z->rec4_base, i = 0;
	uint8_t buf[256];
	int ret;

	if (ctx->z4_nid == inode->nid && ctx->z4_idx && ctx->z4_idx <= k) {
		i = ctx->z4_idx;
		sum = ctx->z4_pa;
	}

	while (i < k) {
		unsigned int n = k - i < 64 ? k - i : 64, r;

		ret = erofs_meta_read(ctx, inode->space, z->records + 4 * i,
				      buf, 4 * n, inode->nid);
		if (ret)
			return ret;
		for (r = 0; r < n; r++)
			sum += erofs_get32(buf + 4 * r) &
			       Z_EROFS_EXTENT_PLEN_MASK;
		if (sum > limit)
			return z_corrupt(ctx, inode, z->records + 4 * i,
					 "encoded extent %llu: address beyond 48-bit blocks",
					 (unsigned long long)(i + n - 1));
		i += n;
	}
	ctx->z4_nid = inode->nid;
	ctx->z4_idx = k;
	ctx->z4_pa = sum;
	*pa = sum;
	return 0;
}

static int z_map_lcluster_extents(struct erofs_ctx *ctx,
				  const struct erofs_inode *inode, uint64_t pos,
				  struct erofs_map *map)
{
	const struct z_erofs_info *z = &inode->z;
	uint64_t k = pos >> z->lclusterbits;
	uint64_t la = k << z->lclusterbits, end = la + (1ULL << z->lclusterbits);
	uint64_t total = z_lcluster_count(inode->size, z->lclusterbits);
	struct z_extent ext;
	int ret;

	ret = z_extent_load(ctx, inode, k, &ext);
	if (ret)
		return ret;
	if (z->recsz == 4) {
		ret = z_extent4_pa(ctx, inode, k, &ext.pstart);
		if (ret)
			return ret;
	}
	if (end > inode->size)
		end = inode->size;
	return z_extent_fill(ctx, inode, &ext, la, end, k == total - 1, map);
}

static int z_map_sorted_extents(struct erofs_ctx *ctx,
				const struct erofs_inode *inode, uint64_t pos,
				struct erofs_map *map)
{
	struct z_extent ext, near;
	uint64_t end = inode->size;
	bool last;
	int ret;

	ret = z_extent_find(ctx, inode, pos, &ext);
	if (ret)
		return ret;
	last = ext.idx == inode->z.nextents - 1;
	if (!last) {
		ret = z_extent_load(ctx, inode, ext.idx + 1, &near);
		if (ret)
			return ret;
		if (near.lstart <= ext.lstart)
			return z_extent_unsorted(ctx, inode, &near);
		end = near.lstart;
	}
	if (ext.idx) {
		ret = z_extent_load(ctx, inode, ext.idx - 1, &near);
		if (ret)
			return ret;
		if (near.lstart >= ext.lstart)
			return z_extent_unsorted(ctx, inode, &ext);
	}
	return z_extent_fill(ctx, inode, &ext, ext.lstart, end, last, map);
}

static int z_index_fmt(struct z_walk *w, const struct z_lcluster *head,
		       bool is_inline, uint8_t *fmt)
{
	const struct z_erofs_info *z = w->z;

	switch (head->type) {
	case Z_EROFS_LCLUSTER_TYPE_PLAIN:
		/* mkfs stores raw inline tails unrotated (7.9) */
		*fmt = !is_inline &&
		       (z->advise & Z_EROFS_ADVISE_INTERLACED_PCLUSTER) ?
		       EROFS_FMT_INTERLACED : EROFS_FMT_SHIFTED;
		return 0;
	case Z_EROFS_LCLUSTER_TYPE_HEAD1:
		*fmt = z->algs[0];
		break;
	default:
		*fmt = z->algs[1];
		break;
	}
	return z_check_alg(w->ctx, w->inode, *fmt, head->pos);
}

/* The tail extent of an index inode: inline or fragment (7.9, 7.10). */
static int z_map_tail(struct z_walk *w, struct erofs_map *map)
{
	const struct erofs_inode *inode = w->inode;
	const struct z_erofs_info *z = w->z;
	struct z_lcluster head;
	int ret;

	if (z->advise & Z_EROFS_ADVISE_FRAGMENT_PCLUSTER)
		return z_map_fragment(w->ctx, inode, z->tail_la, z->fragmentoff,
				      z->hpos, map);
	ret = z_load(w, z->tailhead_lcn, &head);
	if (ret)
		return ret;
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
	return z_check_extent(w->ctx, inode, map, head.pos);
}

/* Size in blocks of the pcluster of HEAD lcluster head (7.8). */
static int z_pcluster_blocks(struct z_walk *w, const struct z_lcluster *head,
			     uint32_t *blocks)
{
	const char *name = z_index_name(w->inode);
	struct z_lcluster next;
	int ret;

	*blocks = 1;
	if (!z_big_pcluster(w->z, head->type) || head->lcn + 1 >= w->total)
		return 0;
	ret = z_load(w, head->lcn + 1, &next);
	if (ret)
		return ret;
	if (next.type != Z_EROFS_LCLUSTER_TYPE_NONHEAD)
		return 0;
	if (next.delta[0] != 1)
		return z_corrupt(w->ctx, w->inode, next.pos,
				 "%s: lcluster %llu lookback distance %u after its HEAD",
				 name, (unsigned long long)next.lcn, next.delta[0]);
	if (!next.cblk)
		return z_corrupt(w->ctx, w->inode, next.pos,
				 "%s: lcluster %llu big pcluster without CBLKCNT",
				 name, (unsigned long long)next.lcn);
	*blocks = next.cblkcnt;
	return z_check_cblkcnt(w, next.lcn, next.pos, next.cblkcnt);
}

static int z_map_index(struct erofs_ctx *ctx, const struct erofs_inode *inode,
		       uint64_t pos, struct erofs_map *map)
{
	struct z_lcluster head;
	uint64_t end, maxback;
	uint32_t blocks;
	struct z_walk w;
	int ret;

	z_walk_init(&w, ctx, inode);
	if (inode->z.has_tailhead && pos >= inode->z.tail_la)
		return z_map_tail(&w, map);
	maxback = z_max_lookback(&w, Z_EROFS_PCLUSTER_MAX_DSIZE);
	ret = z_find_head(&w, pos, maxback, &head, &end);
	if (ret)
		return ret;
	map->la = head.lcn * w.lcs + head.clusterofs;
	if (!end) {
		uint64_t lcn = pos >> inode->z.lclusterbits;

		ret = z_lookahead(&w, lcn == head.lcn ? lcn + 1 : lcn, map->la,
				  &end);
		if (ret)
			return ret;
	} else if (end > inode->size) {
		end = inode->size;
	}
	if (inode->z.has_tailhead && end > inode->z.tail_la)
		return z_corrupt(ctx, inode, head.pos,
				 "%s: extent at %llu runs into the tail extent",
				 z_index_name(inode),
				 (unsigned long long)map->la);
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
	return z_check_extent(ctx, inode, map, head.pos);
}

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
		return z_map_fragment(ctx, inode, 0, z->fragmentoff, z->hpos,
				      map);
	if (!z->extents)
		return z_map_index(ctx, inode, pos, map);
	if (z->recsz <= 8)
		return z_map_lcluster_extents(ctx, inode, pos, map);
	return z_map_sorted_extents(ctx, inode, pos, map);
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
	z->hpos = (inode->meta_end + 7) & ~7ULL;
	ret = erofs_meta_read(ctx, inode->space, z->hpos, h, sizeof(h),
			      inode->nid);
	if (ret)
		return ret;
	if (h[Z_EROFS_MH_CLUSTERBITS] & (1u << Z_EROFS_FRAGMENT_INODE_BIT)) {
		z->whole_fragment = true;
		z->fragmentoff = erofs_get64(h) & ~(1ULL << 63);
		return z_check_fragment(ctx, inode, z->fragmentoff, inode->size,
					z->hpos);
	}
	z->advise = erofs_get16(h + Z_EROFS_MH_ADVISE);
	if (!z_is_compact(inode) && (z->advise & Z_EROFS_ADVISE_EXTENTS))
		return z_init_extents(ctx, inode, h);
	return z_init_index(ctx, inode, h);
}
