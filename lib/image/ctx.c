// SPDX-License-Identifier: MIT
/*
 * Per-thread reading contexts: the metadata block cache, the pcluster
 * buffers and a nested context for reads of the metabox and packed inodes
 * that happen in the middle of another read.
 *
 * Everything a read needs is reserved when the context is made, so that a
 * read does not depend on an allocation that may fail halfway: the stored
 * bytes of the largest pcluster the image allows, room to decode extents
 * for partial reads (an extent larger than that is the one case that
 * allocates, and fails with a clear -ENOMEM), the nested contexts and the
 * lookup hints.
 */
#include <stdlib.h>
#include <string.h>

#include "erofs/data.h"
#include "erofs/decompress.h"
#include "image/image_internal.h"
#include "zmap/zmap_internal.h"

/* decoded bytes reserved beyond the largest pcluster */
#define CTX_OUTBUF_RESERVE (1u << 20)

/*
 * The largest stored pcluster of the image (format.md, "Pcluster size",
 * "Encoded extents").
 */
static size_t ctx_pcluster_max(const struct erofs_image *img)
{
	uint32_t big = EROFS_FEATURE_INCOMPAT_BIG_PCLUSTER |
		       EROFS_FEATURE_INCOMPAT_48BIT;
	size_t lz4 = (size_t)img->lz4_max_pclusterblks << img->blkszbits;

	if (!(img->feature_incompat & big))
		return img->blksz;
	if (!(img->feature_incompat & EROFS_FEATURE_INCOMPAT_48BIT) &&
	    img->available_compr_algs == 1u << Z_EROFS_COMPRESSION_LZ4 &&
	    lz4 > img->blksz && lz4 < Z_EROFS_PCLUSTER_MAX_SIZE)
		return lz4;
	return Z_EROFS_PCLUSTER_MAX_SIZE;
}

/* Nesting levels reads can reach: packed data may sit in the metabox. */
static int ctx_levels(const struct erofs_image *img)
{
	return (img->has_packed || img->has_metabox) +
	       (img->has_packed && img->has_metabox);
}

static int ctx_init_level(struct erofs_ctx *ctx, struct erofs_image *img,
			  int depth)
{
	size_t pcluster = ctx_pcluster_max(img);
	unsigned int i;

	memset(ctx, 0, sizeof(*ctx));
	ctx->img = img;
	ctx->depth = depth;
	ctx->out_nid = EROFS_NO_NID;
	erofs_err_clear(&ctx->err);
	for (i = 0; i < EROFS_META_CACHE_SLOTS; i++) {
		ctx->meta[i].tag = UINT64_MAX;
		ctx->meta[i].data = malloc(img->blksz);
		if (!ctx->meta[i].data)
			goto nomem;
	}
	ctx->inbuf = malloc(pcluster);
	ctx->outbuf = malloc(pcluster + CTX_OUTBUF_RESERVE);
	if (!ctx->inbuf || !ctx->outbuf || z_erofs_hints_create(ctx))
		goto nomem;
	ctx->inbuf_size = pcluster;
	ctx->outbuf_size = pcluster + CTX_OUTBUF_RESERVE;
	if (depth < ctx_levels(img)) {
		ctx->nested = malloc(sizeof(*ctx->nested));
		if (!ctx->nested)
			goto nomem;
		if (ctx_init_level(ctx->nested, img, depth + 1)) {
			free(ctx->nested);
			ctx->nested = NULL;
			goto nomem;
		}
	}
	return 0;
nomem:
	erofs_ctx_fini(ctx);
	return -ENOMEM;
}

int erofs_ctx_init(struct erofs_ctx *ctx, struct erofs_image *img)
{
	return ctx_init_level(ctx, img, 0);
}

void erofs_ctx_fini(struct erofs_ctx *ctx)
{
	unsigned int i;

	if (ctx->nested) {
		erofs_ctx_fini(ctx->nested);
		free(ctx->nested);
		ctx->nested = NULL;
	}
	erofs_decompress_fini(ctx);
	z_erofs_hints_destroy(ctx);
	for (i = 0; i < EROFS_META_CACHE_SLOTS; i++) {
		free(ctx->meta[i].data);
		ctx->meta[i].data = NULL;
	}
	free(ctx->inbuf);
	free(ctx->outbuf);
	ctx->inbuf = ctx->outbuf = NULL;
	ctx->inbuf_size = ctx->outbuf_size = 0;
}

static int reserve(uint8_t **buf, size_t *size, size_t len)
{
	uint8_t *p;

	if (*size >= len)
		return 0;
	p = malloc(len);
	if (!p)
		return -ENOMEM;
	free(*buf);
	*buf = p;
	*size = len;
	return 0;
}

int erofs_ctx_reserve_out(struct erofs_ctx *ctx, size_t len)
{
	ctx->out_nid = EROFS_NO_NID;
	if (reserve(&ctx->outbuf, &ctx->outbuf_size, len))
		return erofs_error(&ctx->err, -ENOMEM, EROFS_NO_NID,
				   EROFS_NO_OFFSET,
				   "out of memory for a %zu-byte buffer", len);
	return 0;
}

int erofs_ctx_reserve_in(struct erofs_ctx *ctx, size_t len)
{
	if (reserve(&ctx->inbuf, &ctx->inbuf_size, len))
		return erofs_error(&ctx->err, -ENOMEM, EROFS_NO_NID,
				   EROFS_NO_OFFSET,
				   "out of memory for a %zu-byte buffer", len);
	return 0;
}

struct erofs_ctx *erofs_ctx_nested(struct erofs_ctx *ctx)
{
	if (ctx->depth >= EROFS_MAX_NESTING) {
		erofs_error(&ctx->err, -EFSCORRUPTED, EROFS_NO_NID,
			    EROFS_NO_OFFSET,
			    "metabox or packed inode data refers to itself");
		return NULL;
	}
	/* contexts made before the packed inode was loaded have none */
	if (!ctx->nested) {
		ctx->nested = malloc(sizeof(*ctx->nested));
		if (!ctx->nested ||
		    ctx_init_level(ctx->nested, ctx->img, ctx->depth + 1)) {
			free(ctx->nested);
			ctx->nested = NULL;
			erofs_error(&ctx->err, -ENOMEM, EROFS_NO_NID,
				    EROFS_NO_OFFSET,
				    "out of memory for a nested reading context");
			return NULL;
		}
	}
	erofs_err_clear(&ctx->nested->err);
	return ctx->nested;
}

void erofs_ctx_take_error(struct erofs_ctx *ctx, struct erofs_ctx *nested)
{
	if (!ctx->err.code && nested->err.code)
		ctx->err = nested->err;
}

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
				   "short read of the %s inode at %llu",
				   space == EROFS_SPACE_METABOX ? "metabox" :
								  "packed",
				   (unsigned long long)pos);
	return 0;
}

static struct erofs_meta_block *get_block(struct erofs_ctx *ctx,
					  enum erofs_space space, uint64_t blk,
					  uint64_t nid)
{
	uint64_t tag = (uint64_t)space << 62 | blk;
	struct erofs_meta_block *victim = &ctx->meta[0];
	unsigned int i;

	for (i = 0; i < EROFS_META_CACHE_SLOTS; i++) {
		struct erofs_meta_block *mb = &ctx->meta[i];

		if (mb->tag == tag) {
			mb->lru = ++ctx->meta_clock;
			return mb;
		}
		if (mb->lru < victim->lru)
			victim = mb;
	}
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
		return erofs_error(&ctx->err, -EFSCORRUPTED, nid,
				   EROFS_NO_OFFSET,
				   "metadata block %llu is past the end of the %s",
				   (unsigned long long)blk,
				   space == EROFS_SPACE_PRIMARY ? "image" :
				   space == EROFS_SPACE_METABOX ? "metabox" :
								  "packed inode");
	mb = get_block(ctx, space, blk, nid);
	if (!mb)
		return ctx->err.code ? ctx->err.code : -EIO;
	*data = mb->data;
	*len = mb->len;
	return 0;
}

int erofs_meta_read(struct erofs_ctx *ctx, enum erofs_space space,
		    uint64_t pos, void *buf, size_t len, uint64_t nid)
{
	const struct erofs_image *img = ctx->img;
	uint8_t *out = buf;

	if (!erofs_range_ok(pos, len, erofs_space_size(img, space)))
		return erofs_error(&ctx->err, -EFSCORRUPTED, nid, pos,
				   "metadata at %llu+%zu is past the end of the %s",
				   (unsigned long long)pos, len,
				   space == EROFS_SPACE_PRIMARY ? "image" :
				   space == EROFS_SPACE_METABOX ? "metabox" :
								  "packed inode");
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
