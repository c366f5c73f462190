// SPDX-License-Identifier: MIT
/*
 * What every compressed mapping relies on, lcluster indexes (zmap_inode.c) and
 * encoded extents (zmap_extents.c) alike: the corruption record, the
 * extent sanity check (format.md, "Extent length"), fragments and
 * algorithms the image must declare, and the fragment extent both return.
 */
#include <stdarg.h>

#include "erofs/format.h"
#include "image/image_internal.h"
#include "zmap/zmap_internal.h"

int z_erofs_corrupt(struct erofs_ctx *ctx, const struct erofs_inode *inode,
		    uint64_t pos, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = erofs_errorv(&ctx->err, -EFSCORRUPTED, inode->nid,
			   erofs_image_offset(inode->space, pos), NULL, fmt,
			   ap);
	va_end(ap);
	return ret;
}

int z_erofs_check_fragment(struct erofs_ctx *ctx,
			   const struct erofs_inode *inode, uint64_t off,
			   uint64_t len, uint64_t pos)
{
	const struct erofs_image *img = ctx->img;

	if (!(img->feature_incompat & EROFS_FEATURE_INCOMPAT_FRAGMENTS))
		return z_erofs_corrupt(ctx, inode, pos,
				       "fragment without the fragments feature");
	if (img->packed_nid && inode->nid == img->packed_nid)
		return z_erofs_corrupt(ctx, inode, pos,
				       "fragment in the packed inode itself");
	if (!img->has_packed)
		return z_erofs_corrupt(ctx, inode, pos,
				       "fragment without a packed inode");
	if (!erofs_range_ok(off, len, img->packed.size))
		return z_erofs_corrupt(ctx, inode, pos,
				       "fragment %llu+%llu beyond the packed inode (%llu bytes)",
				       (unsigned long long)off,
				       (unsigned long long)len,
				       (unsigned long long)img->packed.size);
	return 0;
}

int z_erofs_map_fragment(struct erofs_ctx *ctx,
			 const struct erofs_inode *inode, uint64_t la,
			 uint64_t off, uint64_t pos, struct erofs_map *map)
{
	uint64_t len = inode->size - la;
	int ret = z_erofs_check_fragment(ctx, inode, off, len, pos);

	if (ret)
		return ret;
	map->la = la;
	map->llen = len;
	map->pa = off;
	map->plen = len;
	map->loc = EROFS_LOC_FRAGMENT;
	map->fmt = EROFS_FMT_SHIFTED;
	map->flags |= EROFS_MAP_FULL_MAPPED;
	return 0;
}

int z_erofs_check_alg(struct erofs_ctx *ctx, const struct erofs_inode *inode,
		      unsigned int alg, uint64_t pos)
{
	if (erofs_alg_enabled(ctx->img, alg))
		return 0;
	return z_erofs_corrupt(ctx, inode, pos,
			       "algorithm %u not enabled in the image", alg);
}

int z_erofs_check_extent(struct erofs_ctx *ctx,
			 const struct erofs_inode *inode,
			 const struct erofs_map *map, bool short_ok,
			 uint64_t pos)
{
	unsigned long long la = map->la, llen = map->llen, plen = map->plen;
	uint64_t limit = z_erofs_addr_limit(ctx->img);
	bool raw = map->fmt >= EROFS_FMT_SHIFTED;

	if (plen > Z_EROFS_PCLUSTER_MAX_SIZE)
		return z_erofs_corrupt(ctx, inode, pos,
				       "extent at %llu: plen %llu over 1 MiB",
				       la, plen);
	if (llen > Z_EROFS_PCLUSTER_MAX_DSIZE)
		return z_erofs_corrupt(ctx, inode, pos,
				       "extent at %llu: llen %llu over 12 MiB",
				       la, llen);
	if (raw && llen > plen)
		return z_erofs_corrupt(ctx, inode, pos,
				       "raw extent at %llu: llen %llu beyond plen %llu",
				       la, llen, plen);
	if (map->fmt == EROFS_FMT_INTERLACED && plen != ctx->img->blksz)
		return z_erofs_corrupt(ctx, inode, pos,
				       "interlaced extent at %llu: pcluster of %llu bytes",
				       la, plen);
	/* mkfs keeps a compressed pcluster only if it saves space */
	if (!raw && !short_ok && llen < plen && la + llen != inode->size &&
	    !(map->flags & EROFS_MAP_PARTIAL_REF))
		return z_erofs_corrupt(ctx, inode, pos,
				       "compressed extent at %llu: llen %llu below plen %llu",
				       la, llen, plen);
	if (map->loc == EROFS_LOC_DEVICE &&
	    !erofs_range_ok(map->pa, plen, limit))
		return z_erofs_corrupt(ctx, inode, pos,
				       "extent at %llu: pcluster %llu+%llu beyond 48-bit blocks",
				       la, (unsigned long long)map->pa, plen);
	return 0;
}
