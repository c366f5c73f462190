// SPDX-License-Identifier: MIT
/*
 * Encoded extents (format.md, "Encoded extents"): records of 4 or 8 bytes, one
 * per lcluster, or sorted records of 16 or 32 bytes that carry their own file
 * offsets. Pclusters are byte-addressed and need not be block-aligned.
 *
 * This file reads the map header and turns records into extents: reading
 * records is zmap_records.c's job, finding the record of an offset fast
 * zmap_lookup.c's.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "erofs/format.h"
#include "image/image_internal.h"
#include "zmap/zmap_extents.h"
#include "zmap/zmap_internal.h"

static int z_ext_init_count(struct erofs_ctx *ctx, struct erofs_inode *inode,
			    const uint8_t *h, uint64_t *count)
{
	struct z_erofs_info *z = &inode->z;
	uint8_t bits = h[Z_EROFS_MH_CLUSTERBITS];

	if (z->recsz <= 8) {
		if (bits & Z_EROFS_CLUSTERBITS_RESERVED)
			return z_erofs_corrupt(ctx, inode, z->hpos,
					       "map header: reserved clusterbits 0x%x",
					       bits);
		z->lclusterbits = ctx->img->blkszbits + (bits & 15);
		*count = erofs_div_round_up(inode->size, z->lclusterbits);
		return 0;
	}
	z->nextents = erofs_get32(h + Z_EROFS_MH_EXTENTS_LO) |
		(uint64_t)erofs_get16(h + Z_EROFS_MH_EXTENTS_HI) << 32;
	*count = z->nextents;
	if (inode->size && !z->nextents)
		return z_erofs_corrupt(ctx, inode, z->hpos,
				       "map header: no encoded extents");
	/* lstarts increase strictly and stay below i_size */
	if (z->nextents > inode->size)
		return z_erofs_corrupt(ctx, inode, z->hpos,
				       "map header: %llu encoded extents for %llu bytes",
				       (unsigned long long)z->nextents,
				       (unsigned long long)inode->size);
	return 0;
}

int z_erofs_init_extents(struct erofs_ctx *ctx, struct erofs_inode *inode,
			 const uint8_t *h)
{
	const struct erofs_image *img = ctx->img;
	struct z_erofs_info *z = &inode->z;
	uint64_t count = 0, space = erofs_space_size(img, inode->space);
	uint8_t base[8];
	int ret;

	if (!(img->feature_incompat & EROFS_FEATURE_INCOMPAT_48BIT))
		return z_erofs_corrupt(ctx, inode, z->hpos,
				       "map header: encoded extents without 48bit");
	if (z->advise & Z_EROFS_ADVISE_INLINE_PCLUSTER)
		return z_erofs_corrupt(ctx, inode, z->hpos,
				       "map header: inline pcluster with encoded extents");
	if (z->advise & ~Z_EROFS_ADVISE_KNOWN)
		return z_erofs_corrupt(ctx, inode, z->hpos,
				       "map header: unknown advise bits 0x%x",
				       z->advise);
	z->extents = true;
	z->recsz = 4 << ((z->advise >> Z_EROFS_ADVISE_EXTRECSZ_SHIFT) &
			 Z_EROFS_ADVISE_EXTRECSZ_MASK);
	/* 8 bytes mkfs leaves uninitialised may come first: skip them */
	z->records = erofs_round_up(z->hpos + Z_EROFS_MAP_HEADER_SIZE,
				    z->recsz);
	ret = z_ext_init_count(ctx, inode, h, &count);
	if (ret)
		return ret;
	if (z->recsz == 4) {
		ret = erofs_meta_read(ctx, inode->space, z->records, base,
				      sizeof(base), inode->nid);
		if (ret)
			return ret;
		z->rec4_base = erofs_get64(base);
		z->records += sizeof(base);
	}
	if (z->records > space || count > (space - z->records) / z->recsz)
		return z_erofs_corrupt(ctx, inode, z->hpos,
				       "%llu encoded extents beyond the metadata space",
				       (unsigned long long)count);
	if ((z->advise & Z_EROFS_ADVISE_FRAGMENT_PCLUSTER) && inode->size)
		return z_erofs_check_fragment(ctx, inode, 0, 0, z->hpos);
	return 0;
}

static uint8_t z_ext_raw_fmt(const struct erofs_ctx *ctx,
			     const struct erofs_inode *inode, uint64_t pa,
			     uint32_t len)
{
	uint32_t mask = ctx->img->blksz - 1;

	if ((inode->z.advise & Z_EROFS_ADVISE_INTERLACED_PCLUSTER) &&
	    !(pa & mask) && !(len & mask))
		return EROFS_FMT_INTERLACED;
	return EROFS_FMT_SHIFTED;
}
/* Fill map from the record covering [la, end) ("Encoded extents"). */
static int z_ext_fill(struct erofs_ctx *ctx, const struct erofs_inode *inode,
		      const struct z_extent *ext, uint64_t la, uint64_t end,
		      bool last, struct erofs_map *map)
{
	uint32_t len = ext->plen & Z_EROFS_EXTENT_PLEN_MASK;
	unsigned int fmt = ext->plen >> Z_EROFS_EXTENT_PLEN_FMT_BIT;
	uint64_t fragoff = ext->plen;
	int ret;

	map->flags = EROFS_MAP_ENCODED;
	if (last && (inode->z.advise & Z_EROFS_ADVISE_FRAGMENT_PCLUSTER)) {
		if (inode->z.recsz >= 8)
			fragoff |= (ext->pstart & UINT32_MAX) << 32;
		return z_erofs_map_fragment(ctx, inode, la, fragoff, ext->pos,
					    map);
	}
	if (ext->plen & Z_EROFS_EXTENT_PLEN_RESERVED)
		return z_ext_corrupt(ctx, inode, ext,
				     "reserved plen bits in 0x%x", ext->plen);
	if (fmt > Z_EROFS_COMPRESSION_MAX)
		return z_ext_corrupt(ctx, inode, ext, "format %u", fmt);
	map->la = la;
	map->llen = end - la;
	map->flags |= EROFS_MAP_FULL_MAPPED;
	map->fmt = EROFS_FMT_SHIFTED;
	if (!len) {
		map->loc = EROFS_LOC_HOLE;
		return 0;
	}
	map->loc = EROFS_LOC_DEVICE;
	map->pa = ext->pstart;
	map->plen = len;
	if (ext->plen & Z_EROFS_EXTENT_PLEN_PARTIAL)
		map->flags |= EROFS_MAP_PARTIAL_REF;
	if (fmt) {
		ret = z_erofs_check_alg(ctx, inode, fmt - 1, ext->pos);
		if (ret)
			return ret;
		map->fmt = fmt - 1;
	} else {
		map->fmt = z_ext_raw_fmt(ctx, inode, map->pa, len);
	}
	return z_erofs_check_extent(ctx, inode, map, false, ext->pos);
}

/* recsz 16 and 32: record i covers [lstart_i, lstart_i+1). */
static int z_map_sorted_extents(struct erofs_ctx *ctx,
				const struct erofs_inode *inode,
				uint64_t pos, struct erofs_map *map)
{
	struct z_hint *h;
	struct z_found f;
	int ret;

	ret = z_lookup_sorted(ctx, inode, pos, &f, &h);
	if (ret)
		return ret;
	ret = z_ext_fill(ctx, inode, &f.cur, f.cur.lstart, f.end,
			 f.cur.idx == inode->z.nextents - 1, map);
	if (!ret)
		z_lookup_remember(h, &f);
	return ret;
}

/* ---- per-lcluster records (recsz 4 and 8) ---- */

/* recsz 4 and 8: record k covers lcluster k. */
static int z_map_lcluster_extents(struct erofs_ctx *ctx,
				  const struct erofs_inode *inode,
				  uint64_t pos, struct erofs_map *map)
{
	unsigned int bits = inode->z.lclusterbits;
	uint64_t total = erofs_div_round_up(inode->size, bits);
	uint64_t k = pos >> bits, la = k << bits, end = la + (1ULL << bits);
	struct z_ext_blk b;
	struct z_extent ext;
	int ret;

	if (inode->z.recsz == 4) {
		ret = z_lookup_rec4(ctx, inode, k, total, &ext);
	} else {
		ret = z_ext_hold(ctx, inode, k, total, &b);
		if (!ret)
			ret = z_ext_at(ctx, inode, &b, k, &ext);
	}
	if (ret)
		return ret;
	if (end > inode->size)
		end = inode->size;
	return z_ext_fill(ctx, inode, &ext, la, end, k == total - 1, map);
}

int z_erofs_map_extents(struct erofs_ctx *ctx,
			const struct erofs_inode *inode, uint64_t pos,
			struct erofs_map *map)
{
	ctx->stats.lookups++;
	if (inode->z.recsz <= 8)
		return z_map_lcluster_extents(ctx, inode, pos, map);
	return z_map_sorted_extents(ctx, inode, pos, map);
}

