// SPDX-License-Identifier: MIT
/*
 * The levels of a reading context: for each, the slots of the metadata
 * block cache (meta_cache.c fills them) and the pcluster buffers, made
 * when the context is; the nested level, for reads of the metabox and
 * packed inodes in the middle of another read, made with it when the
 * image has them, else on first use. The codec states and lookup hints a
 * level comes to hold are made on first use by their owners
 * (codec/decompress.c, zmap/zmap_lookup.c) and freed by ctx.c.
 */
#include <stdlib.h>
#include <string.h>

#include "erofs/data.h"
#include "image/image_internal.h"

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

int erofs_ctx_level_init(struct erofs_ctx *ctx, struct erofs_image *img,
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
	if (!ctx->inbuf || !ctx->outbuf)
		goto nomem;
	ctx->inbuf_size = pcluster;
	ctx->outbuf_size = pcluster + CTX_OUTBUF_RESERVE;
	if (depth < ctx_levels(img)) {
		ctx->nested = malloc(sizeof(*ctx->nested));
		if (!ctx->nested)
			goto nomem;
		if (erofs_ctx_level_init(ctx->nested, img, depth + 1)) {
			free(ctx->nested);
			ctx->nested = NULL;
			goto nomem;
		}
	}
	return 0;
nomem:
	erofs_ctx_level_free(ctx);
	return -ENOMEM;
}

void erofs_ctx_level_free(struct erofs_ctx *ctx)
{
	unsigned int i;

	for (i = 0; i < EROFS_META_CACHE_SLOTS; i++) {
		free(ctx->meta[i].data);
		ctx->meta[i].data = NULL;
	}
	free(ctx->meta_run);
	ctx->meta_run = NULL;
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
		if (!ctx->nested || erofs_ctx_level_init(ctx->nested, ctx->img,
							 ctx->depth + 1)) {
			free(ctx->nested);
			ctx->nested = NULL;
			erofs_error(
				&ctx->err, -ENOMEM, EROFS_NO_NID,
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
