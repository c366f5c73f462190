// SPDX-License-Identifier: MIT
/*
 * The metadata block cache of a reading context: blocks of the primary
 * space read from the device, blocks of the metabox and packed inodes
 * read through the data path (a nested context, or the metabox's shared
 * cache of decoded extents), kept by least recent use.
 */
#include <stdlib.h>
#include <string.h>

#include "erofs/data.h"
#include "erofs/source.h"
#include "image/image_internal.h"

/*
 * Blocks of the primary space a miss in order reads at once (fetch_run()):
 * a quarter of the cache, so that the blocks in use survive it (half of it
 * made a check of scattered inodes 10% slower: bench/README.md, "Figures
 * behind the code's constants").
 */
#define META_RUN_BLOCKS (EROFS_META_CACHE_SLOTS / 4)

uint64_t erofs_space_size(const struct erofs_image *img, enum erofs_space space)
{
	switch (space) {
	case EROFS_SPACE_PRIMARY:
		return img->devs[0].size;
	case EROFS_SPACE_METABOX:
		return img->has_metabox ? img->metabox.size : 0;
	case EROFS_SPACE_PACKED:
		return img->has_packed ? img->packed.size : 0;
	}
	return 0;
}

static const char *space_name(enum erofs_space space)
{
	return space == EROFS_SPACE_PRIMARY   ? "image"
	       : space == EROFS_SPACE_METABOX ? "metabox"
					      : "packed inode";
}

static int fetch_block(struct erofs_ctx *ctx, enum erofs_space space,
		       uint64_t blk, struct erofs_meta_block *mb, uint64_t nid)
{
	const struct erofs_image *img = ctx->img;
	uint64_t size = erofs_space_size(img, space);
	uint64_t pos = blk << img->blkszbits;
	const struct erofs_inode *inode;
	struct erofs_ctx *sub;
	size_t len;
	ssize_t n;

	len = size - pos < img->blksz ? (size_t)(size - pos) : img->blksz;
	mb->len = (uint32_t)len;
	if (space == EROFS_SPACE_PRIMARY)
		return erofs_io_pread(&img->devs[0], mb->data, len, pos,
				      &ctx->err);

	/* decoded metabox extents are shared: a thrashed block costs a copy */
	if (space == EROFS_SPACE_METABOX && img->meta_cache)
		return erofs_metabox_read(ctx, pos, mb->data, len);
	inode = space == EROFS_SPACE_METABOX ? &img->metabox : &img->packed;
	sub = erofs_ctx_nested(ctx);
	if (!sub)
		return ctx->err.code;
	n = erofs_pread(sub, inode, mb->data, len, pos);
	if (n < 0) {
		erofs_ctx_take_error(ctx, sub);
		return (int)n;
	}
	if ((size_t)n != len)
		return erofs_error(&ctx->err, -EFSCORRUPTED, nid, pos,
				   "short read of the %s at %llu",
				   space_name(space), (unsigned long long)pos);
	return 0;
}

static bool cached(const struct erofs_ctx *ctx, uint64_t tag)
{
	unsigned int i;

	for (i = 0; i < EROFS_META_CACHE_SLOTS; i++)
		if (ctx->meta[i].tag == tag)
			return true;
	return false;
}

static struct erofs_meta_block *lru_slot(struct erofs_ctx *ctx)
{
	struct erofs_meta_block *victim = &ctx->meta[0];
	unsigned int i;

	for (i = 1; i < EROFS_META_CACHE_SLOTS; i++)
		if (ctx->meta[i].lru < victim->lru)
			victim = &ctx->meta[i];
	return victim;
}

/*
 * Whole blocks of the primary space from blk on that are not cached, up
 * to META_RUN_BLOCKS, when a miss follows the blocks the last one read:
 * inodes and directories met in the order mkfs wrote them.
 * None through a dm-verity tree: a block read ahead counts as checked,
 * and one that fails there, dropped with the run, would then never be
 * said (nothing else may read it).
 */
static unsigned int run_blocks(const struct erofs_ctx *ctx, uint64_t blk)
{
	const struct erofs_image *img = ctx->img;
	uint64_t whole = img->devs[0].size >> img->blkszbits;
	unsigned int n = 1;

	if (erofs_source_checked(img->devs[0].src))
		return 1;

	while (n < META_RUN_BLOCKS && blk + n < whole &&
	       !cached(ctx, (uint64_t)EROFS_SPACE_PRIMARY << 62 | (blk + n)))
		n++;
	return blk < whole ? n : 1;
}

/*
 * Blocks [blk, blk + n) of the primary space read at once into the
 * least recently used slots: 0, 1 (nothing changed) when the run is
 * damaged (a block past the end, or failing its hash tree), for the block
 * alone to be read and its own state said, or a negative errno.
 */
static int fetch_run(struct erofs_ctx *ctx, uint64_t blk, unsigned int n)
{
	const struct erofs_image *img = ctx->img;
	struct erofs_err saved = ctx->err;
	struct erofs_meta_block *mb;
	unsigned int i;
	int ret;

	if (!ctx->meta_run) {
		ctx->meta_run = malloc((size_t)META_RUN_BLOCKS * img->blksz);
		if (!ctx->meta_run)
			return 1;
	}
	ret = erofs_io_pread(&img->devs[0], ctx->meta_run,
			     (size_t)n * img->blksz, blk << img->blkszbits,
			     &ctx->err);
	if (ret == -EFSCORRUPTED) {
		ctx->err = saved;
		return 1;
	}
	if (ret)
		return ret;
	/* the block asked for last: the most recently used */
	for (i = n; i-- > 0;) {
		mb = lru_slot(ctx);
		memcpy(mb->data, ctx->meta_run + (size_t)i * img->blksz,
		       img->blksz);
		mb->len = img->blksz;
		mb->tag = (uint64_t)EROFS_SPACE_PRIMARY << 62 | (blk + i);
		mb->lru = ++ctx->meta_clock;
	}
	return 0;
}

static struct erofs_meta_block *get_block(struct erofs_ctx *ctx,
					  enum erofs_space space, uint64_t blk,
					  uint64_t nid)
{
	uint64_t tag = (uint64_t)space << 62 | blk;
	struct erofs_meta_block *victim;
	unsigned int i, n;
	int ret;

	for (i = 0; i < EROFS_META_CACHE_SLOTS; i++) {
		struct erofs_meta_block *mb = &ctx->meta[i];

		if (mb->tag == tag) {
			mb->lru = ++ctx->meta_clock;
			return mb;
		}
	}
	/* ahead only where misses come in order: not over scattered inodes */
	n = space == EROFS_SPACE_PRIMARY && blk == ctx->meta_next
		    ? run_blocks(ctx, blk)
		    : 1;
	ctx->meta_next = blk + n;
	ret = n > 1 ? fetch_run(ctx, blk, n) : 1;
	if (ret < 0)
		return NULL;
	if (!ret)
		return get_block(ctx, space, blk, nid);
	victim = lru_slot(ctx);
	victim->tag = UINT64_MAX;
	if (fetch_block(ctx, space, blk, victim, nid))
		return NULL;
	victim->tag = tag;
	victim->lru = ++ctx->meta_clock;
	return victim;
}

int erofs_meta_block(struct erofs_ctx *ctx, enum erofs_space space,
		     uint64_t blk, const uint8_t **data, size_t *len,
		     uint64_t nid)
{
	const struct erofs_image *img = ctx->img;
	uint64_t size = erofs_space_size(img, space);
	struct erofs_meta_block *mb;

	if (blk >= erofs_div_round_up(size, img->blkszbits))
		return erofs_error(
			&ctx->err, -EFSCORRUPTED, nid, EROFS_NO_OFFSET,
			"metadata block %llu is past the end of the %s",
			(unsigned long long)blk, space_name(space));
	mb = get_block(ctx, space, blk, nid);
	if (!mb)
		return ctx->err.code ? ctx->err.code : -EIO;
	*data = mb->data;
	*len = mb->len;
	return 0;
}

int erofs_meta_read(struct erofs_ctx *ctx, enum erofs_space space, uint64_t pos,
		    void *buf, size_t len, uint64_t nid)
{
	const struct erofs_image *img = ctx->img;
	uint8_t *out = buf;

	if (!erofs_range_ok(pos, len, erofs_space_size(img, space)))
		return erofs_error(
			&ctx->err, -EFSCORRUPTED, nid, pos,
			"metadata at %llu+%zu is past the end of the %s",
			(unsigned long long)pos, len, space_name(space));
	while (len) {
		uint64_t blk = pos >> img->blkszbits;
		size_t off = (size_t)(pos & (img->blksz - 1));
		size_t n = img->blksz - off;
		struct erofs_meta_block *mb;

		if (n > len)
			n = len;
		mb = get_block(ctx, space, blk, nid);
		if (!mb)
			return ctx->err.code ? ctx->err.code : -EIO;
		memcpy(out, mb->data + off, n);
		out += n;
		pos += n;
		len -= n;
	}
	return 0;
}
