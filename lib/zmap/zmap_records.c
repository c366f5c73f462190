// SPDX-License-Identifier: MIT
/*
 * The records of encoded extents (format.md, "Encoded extents"): reading
 * one, or the metadata block that holds a run of them, and the errors of
 * records. The lookup (zmap_lookup.c) and the mapper (zmap_extents.c)
 * read records through these.
 */
#include <stdarg.h>
#include <stdio.h>

#include "erofs/format.h"
#include "image/image_internal.h"
#include "zmap/zmap_extents.h"
#include "zmap/zmap_internal.h"

int z_ext_corrupt(struct erofs_ctx *ctx, const struct erofs_inode *inode,
	      const struct z_extent *ext, const char *fmt, ...)
{
	char where[40];
	va_list ap;
	int ret;

	if (!erofs_err_free(&ctx->err))
		return -EFSCORRUPTED;
	snprintf(where, sizeof(where), "encoded extent %llu",
		 (unsigned long long)ext->idx);
	va_start(ap, fmt);
	ret = erofs_errorv(&ctx->err, -EFSCORRUPTED, inode->nid,
			   erofs_image_offset(inode->space, ext->pos), where,
			   fmt, ap);
	va_end(ap);
	return ret;
}

static int z_ext_decode(struct erofs_ctx *ctx, const struct erofs_inode *inode,
			const uint8_t *rec, struct z_extent *ext)
{
	const struct z_erofs_info *z = &inode->z;

	ext->plen = erofs_get32(rec + Z_EROFS_EXTENT_PLEN);
	ext->pstart = 0;
	ext->lstart = 0;
	if (z->recsz >= 8)
		ext->pstart = erofs_get32(rec + Z_EROFS_EXTENT_PSTART_LO);
	if (z->recsz < 16)
		return 0;
	ext->pstart |= (uint64_t)erofs_get32(rec + Z_EROFS_EXTENT_PSTART_HI)
		       << 32;
	ext->lstart = erofs_get32(rec + Z_EROFS_EXTENT_LSTART_LO);
	if (z->recsz == 32)
		ext->lstart |= (uint64_t)erofs_get32(rec +
						     Z_EROFS_EXTENT_LSTART_HI)
			       << 32;
	if (ext->lstart >= inode->size)
		return z_ext_corrupt(ctx, inode, ext,
				     "lstart %llu beyond i_size",
				     (unsigned long long)ext->lstart);
	return 0;
}

/* Record idx on its own, as the plain search reads it: one block read. */
int z_ext_load(struct erofs_ctx *ctx, const struct erofs_inode *inode,
		      uint64_t idx, struct z_extent *ext)
{
	const struct z_erofs_info *z = &inode->z;
	uint8_t rec[32];
	int ret;

	ext->idx = idx;
	ext->pos = z->records + idx * z->recsz;
	ctx->stats.lookup_meta_reads++;
	ret = erofs_meta_read(ctx, inode->space, ext->pos, rec, z->recsz,
			      inode->nid);
	if (ret)
		return ret;
	return z_ext_decode(ctx, inode, rec, ext);
}

/*
 * Bring in the metadata block holding record idx of a table of count
 * records. Records never straddle blocks: they are aligned to their size,
 * which divides the block size.
 */
int z_ext_hold(struct erofs_ctx *ctx, const struct erofs_inode *inode,
		      uint64_t idx, uint64_t count, struct z_ext_blk *b)
{
	const struct z_erofs_info *z = &inode->z;
	unsigned int bits = ctx->img->blkszbits;
	uint64_t pos = z->records + idx * z->recsz;
	uint64_t blk = pos >> bits, start = blk << bits;
	size_t len;
	int ret;

	ctx->stats.lookup_meta_reads++;
	b->data = NULL;
	ret = erofs_meta_block(ctx, inode->space, blk, &b->data, &len,
			       inode->nid);
	if (ret)
		return ret;
	/* init made sure every record lies inside the space */
	b->blk = blk;
	b->first = start > z->records ? (start - z->records) / z->recsz : 0;
	b->end = (start + len - z->records) / z->recsz;
	if (b->end > count)
		b->end = count;
	b->data += z->records + b->first * z->recsz - start;
	return 0;
}

/* Record idx out of the block in hand. */
int z_ext_at(struct erofs_ctx *ctx, const struct erofs_inode *inode,
		    const struct z_ext_blk *b, uint64_t idx,
		    struct z_extent *ext)
{
	unsigned int recsz = inode->z.recsz;

	ext->idx = idx;
	ext->pos = inode->z.records + idx * recsz;
	return z_ext_decode(ctx, inode, b->data + (idx - b->first) * recsz,
			    ext);
}

/* The first record must start the file: mkfs never leaves a gap there. */
int z_ext_not_zero(struct erofs_ctx *ctx,
			  const struct erofs_inode *inode,
			  const struct z_extent *ext)
{
	return z_ext_corrupt(ctx, inode, ext, "lstart %llu is not 0",
			     (unsigned long long)ext->lstart);
}

int z_ext_unsorted(struct erofs_ctx *ctx,
			  const struct erofs_inode *inode,
			  const struct z_extent *ext)
{
	return z_ext_corrupt(ctx, inode, ext, "lstart %llu out of order",
			     (unsigned long long)ext->lstart);
}
