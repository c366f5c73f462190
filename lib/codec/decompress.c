// SPDX-License-Identifier: MIT
/*
 * Pcluster decoding: the codec table and the rules every codec shares, zero
 * padding (format.md, "Zero padding") and the request checks of "Decoding a
 * pcluster". The exact length rules ("Exact lengths") are applied by each
 * codec, whose library decides how an overlong or short stream shows.
 */
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
	return codec->decode(ctx->codec[req->alg], &stream, &ctx->err);
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
