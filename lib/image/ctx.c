// SPDX-License-Identifier: MIT
/*
 * Reading contexts, one a thread: made with their levels (ctx_levels.c),
 * and freed with everything their levels came to hold, the codec states
 * and the lookup hints included.
 */
#include <stdlib.h>

#include "erofs/decompress.h"
#include "image/image_internal.h"
#include "zmap/zmap_internal.h"

int erofs_ctx_init(struct erofs_ctx *ctx, struct erofs_image *img)
{
	return erofs_ctx_level_init(ctx, img, 0);
}

struct erofs_ctx *erofs_ctx_new(struct erofs_image *img)
{
	struct erofs_ctx *ctx = malloc(sizeof(*ctx));

	if (ctx && erofs_ctx_init(ctx, img)) {
		free(ctx);
		ctx = NULL;
	}
	return ctx;
}

void erofs_ctx_free(struct erofs_ctx *ctx)
{
	if (!ctx)
		return;
	erofs_ctx_fini(ctx);
	free(ctx);
}

struct erofs_image *erofs_ctx_image(const struct erofs_ctx *ctx)
{
	return ctx->img;
}

struct erofs_err *erofs_ctx_err(struct erofs_ctx *ctx)
{
	return &ctx->err;
}

const struct erofs_ctx_stats *erofs_ctx_stats(const struct erofs_ctx *ctx)
{
	return &ctx->stats;
}

void erofs_ctx_stats_reset(struct erofs_ctx *ctx)
{
	ctx->stats = (struct erofs_ctx_stats){ 0 };
}

void erofs_ctx_fini(struct erofs_ctx *ctx)
{
	if (ctx->nested) {
		erofs_ctx_fini(ctx->nested);
		free(ctx->nested);
		ctx->nested = NULL;
	}
	erofs_decompress_fini(ctx);
	z_erofs_hints_destroy(ctx);
	erofs_ctx_level_free(ctx);
}
