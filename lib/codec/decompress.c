// SPDX-License-Identifier: MIT
/*
 * Pcluster decoding: the codec table and the rules every codec shares, zero
 * padding (format.md, "Zero padding") and the request checks of "Decoding a
 * pcluster". The exact length rules ("Exact lengths") are applied by each
 * codec, whose library decides how an overlong or short stream shows.
 */
#include <errno.h>
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>

#include "erofs/decompress.h"
#include "erofs/format.h"
#include "erofs/image.h"
#include "codec/codec_internal.h"
#include "image/image_internal.h"

static const struct erofs_codec *const codecs[Z_EROFS_COMPRESSION_MAX] = {
	[Z_EROFS_COMPRESSION_LZ4] = &erofs_codec_lz4,
	[Z_EROFS_COMPRESSION_LZMA] = &erofs_codec_lzma,
	[Z_EROFS_COMPRESSION_DEFLATE] = &erofs_codec_deflate,
	[Z_EROFS_COMPRESSION_ZSTD] = &erofs_codec_zstd,
};

const struct erofs_codec *erofs_codec_get(unsigned int alg)
{
	if (alg >= Z_EROFS_COMPRESSION_MAX)
		return NULL;
	return codecs[alg];
}

/* The turns to decode one image's pclusters (erofs_decoders_limit()). */
struct erofs_decoders {
	sem_t turns;
	unsigned int decoding, peak; /* atomic */
};

int erofs_decoders_limit(struct erofs_image *img, unsigned int n)
{
	struct erofs_decoders *d;

	if (img->decoders)
		return -EBUSY;
	if (!n)
		return 0;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	if (sem_init(&d->turns, 0, n)) {
		free(d);
		return -ENOMEM;
	}
	img->decoders = d;
	return 0;
}

unsigned int erofs_decoders_peak(const struct erofs_image *img)
{
	if (!img->decoders)
		return 0;
	return __atomic_load_n(&img->decoders->peak, __ATOMIC_RELAXED);
}

void erofs_decoders_unlimit(struct erofs_image *img)
{
	if (!img->decoders)
		return;
	sem_destroy(&img->decoders->turns);
	free(img->decoders);
	img->decoders = NULL;
}

static void decoders_enter(struct erofs_decoders *d)
{
	unsigned int now, peak;

	if (!d)
		return;
	/* a signal's handler returns into the wait: keep waiting */
	while (sem_wait(&d->turns) && errno == EINTR)
		;
	now = __atomic_add_fetch(&d->decoding, 1, __ATOMIC_RELAXED);
	peak = __atomic_load_n(&d->peak, __ATOMIC_RELAXED);
	while (now > peak &&
	       !__atomic_compare_exchange_n(&d->peak, &peak, now, true,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

static void decoders_leave(struct erofs_decoders *d)
{
	if (!d)
		return;
	__atomic_sub_fetch(&d->decoding, 1, __ATOMIC_RELAXED);
	sem_post(&d->turns);
}

/* Length of the run of zero bytes that starts buf. */
static size_t zero_prefix_len(const uint8_t *buf, size_t len)
{
	size_t i = 0;
	uint64_t word;

	for (; len - i >= sizeof(word); i += sizeof(word)) {
		memcpy(&word, buf + i, sizeof(word));
		if (word)
			break;
	}
	while (i < len && !buf[i])
		i++;
	return i;
}

static int codec_check(struct erofs_ctx *ctx, const struct erofs_codec *codec,
		       const struct erofs_decomp_req *req)
{
	if (!codec)
		return erofs_error(&ctx->err, -EOPNOTSUPP, req->nid, req->pa,
				   "unknown compression algorithm %u",
				   req->alg);
	if (!erofs_alg_enabled(ctx->img, req->alg))
		return erofs_error(&ctx->err, -EFSCORRUPTED, req->nid, req->pa,
				   "%s pcluster, but the superblock does not enable %s",
				   codec->name, codec->name);
	if (!codec->available)
		return erofs_error(&ctx->err, -EOPNOTSUPP, req->nid, req->pa,
				   "built without %s support", codec->name);
	return 0;
}

static int codec_state(struct erofs_ctx *ctx, const struct erofs_codec *codec,
		       const struct erofs_decomp_req *req)
{
	int ret;

	if (ctx->codec[req->alg] || !codec->init)
		return 0;
	ret = codec->init(&ctx->codec[req->alg], ctx->img);
	if (ret)
		return erofs_error(&ctx->err, ret, req->nid, req->pa,
				   "cannot set up the %s decoder", codec->name);
	return 0;
}

int erofs_decompress(struct erofs_ctx *ctx, const struct erofs_decomp_req *req)
{
	const struct erofs_codec *codec = erofs_codec_get(req->alg);
	struct erofs_decomp_req stream;
	size_t pad;
	int ret;

	ret = codec_check(ctx, codec, req);
	if (ret)
		return ret;
	/* also keeps every length within the int sizes of codec APIs */
	if (req->inlen > Z_EROFS_PCLUSTER_MAX_SIZE ||
	    req->outlen > Z_EROFS_PCLUSTER_MAX_DSIZE)
		return erofs_error(&ctx->err, -EFSCORRUPTED, req->nid, req->pa,
				   "%s pcluster of %zu bytes decoding to %zu bytes exceeds the format limits",
				   codec->name, req->inlen, req->outlen);
	pad = zero_prefix_len(req->in, req->inlen);
	if (pad == req->inlen)
		return erofs_error(&ctx->err, -EFSCORRUPTED, req->nid, req->pa,
				   "%s pcluster of %zu bytes is all zeros",
				   codec->name, req->inlen);
	if (req->partial && !req->outlen)
		return 0;

	ret = codec_state(ctx, codec, req);
	if (ret)
		return ret;
	stream = *req;
	stream.in += pad;
	stream.inlen -= pad;
	decoders_enter(ctx->img->decoders);
	ret = codec->decode(ctx->codec[req->alg], &stream, &ctx->err);
	decoders_leave(ctx->img->decoders);
	return ret;
}

void erofs_decompress_fini(struct erofs_ctx *ctx)
{
	unsigned int alg;

	for (alg = 0; alg < Z_EROFS_COMPRESSION_MAX; alg++) {
		if (!ctx->codec[alg])
			continue;
		codecs[alg]->fini(ctx->codec[alg]);
		ctx->codec[alg] = NULL;
	}
}
