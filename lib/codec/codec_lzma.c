// SPDX-License-Identifier: MIT
/*
 * MicroLZMA (format.md, "MicroLZMA") through liblzma's MicroLZMA decoder. Each
 * context keeps one lzma_stream: re-initialising the same stream with the same
 * dictionary size reuses its allocations, so the dictionary is allocated once
 * per context, not once per pcluster.
 */
#include <stdlib.h>

#include "erofs/format.h"
#include "erofs/image.h"
#include "codec/codec_internal.h"

/* measured by bench/calibrate (see codec_lz4.c) */
#define LZMA_COST_NS_PER_KIB 19000

#ifdef HAVE_LZMA
#include <lzma.h>

struct mlzma_state {
	lzma_stream strm;
	uint32_t dict_size;
};

static struct mlzma_state *mlzma_state(struct erofs_codec_state *state)
{
	return (struct mlzma_state *)state;
}

/*
 * mkfs records the largest dictionary its encoder used (format.md, "Compression
 * algorithms"), so that much history decodes every valid pcluster; a stream
 * reaching further back is corrupt, as it is for Linux. Images without a usable
 * record get the format maximum.
 */
static uint32_t mlzma_dict_size(const struct erofs_image *img)
{
	uint32_t dict = img->lzma_dict_size;

	if (dict < Z_EROFS_LZMA_MIN_DICT_SIZE ||
	    dict > Z_EROFS_LZMA_MAX_DICT_SIZE)
		return Z_EROFS_LZMA_MAX_DICT_SIZE;
	return dict;
}

static int mlzma_init(struct erofs_codec_state **state,
		      const struct erofs_image *img)
{
	struct mlzma_state *s = malloc(sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->strm = (lzma_stream)LZMA_STREAM_INIT;
	s->dict_size = mlzma_dict_size(img);
	*state = (struct erofs_codec_state *)s;
	return 0;
}

static void mlzma_fini(struct erofs_codec_state *state)
{
	struct mlzma_state *s = mlzma_state(state);

	lzma_end(&s->strm);
	free(s);
}

static int mlzma_fail(const lzma_stream *strm,
		      const struct erofs_decomp_req *req, lzma_ret ret,
		      struct erofs_err *err)
{
	size_t done = req->outlen - strm->avail_out;

	switch (ret) {
	case LZMA_MEM_ERROR:
		return erofs_error(err, -ENOMEM, req->nid, req->pa,
				   "lzma: out of memory");
	case LZMA_OPTIONS_ERROR:
		return erofs_error(err, -EFSCORRUPTED, req->nid, req->pa,
				   "lzma: invalid properties byte 0x%02x",
				   (uint8_t)~req->in[0]);
	case LZMA_STREAM_END:
		return erofs_error(err, -EFSCORRUPTED, req->nid, req->pa,
				   "lzma: stream ends after %zu of %zu bytes",
				   done, req->outlen);
	case LZMA_DATA_ERROR:
		return erofs_error(err, -EFSCORRUPTED, req->nid, req->pa,
				   "lzma: corrupt stream, or not %zu bytes long (%zu decoded)",
				   req->outlen, done);
	case LZMA_BUF_ERROR:
		/* no end marker: a short stream and a cut one look alike */
		if (!strm->avail_in)
			return erofs_error(err, -EFSCORRUPTED, req->nid,
					   req->pa,
					   "lzma: input ends after %zu of %zu bytes",
					   done, req->outlen);
		return erofs_error(err, -EFSCORRUPTED, req->nid, req->pa,
				   "lzma: stream goes on past %zu bytes",
				   req->outlen);
	default:
		return erofs_error(err, -EFSCORRUPTED, req->nid, req->pa,
				   "lzma: decoder error %d after %zu of %zu bytes",
				   (int)ret, done, req->outlen);
	}
}

/*
 * comp_size is exactly the stream after the padding (format.md, "MicroLZMA"). A
 * full decode declares the output size exact, so liblzma itself rejects a
 * stream that goes on past it or ends before it.
 */
static int mlzma_decode(struct erofs_codec_state *state,
			const struct erofs_decomp_req *req,
			struct erofs_err *err)
{
	struct mlzma_state *s = mlzma_state(state);
	lzma_stream *strm = &s->strm;
	lzma_ret ret;

	strm->next_in = req->in;
	strm->avail_in = req->inlen;
	strm->next_out = req->out;
	strm->avail_out = req->outlen;
	ret = lzma_microlzma_decoder(strm, req->inlen, req->outlen,
				     !req->partial, s->dict_size);
	if (ret != LZMA_OK)
		return mlzma_fail(strm, req, ret, err);
	do {
		size_t in_left = strm->avail_in, out_left = strm->avail_out;

		ret = lzma_code(strm, LZMA_FINISH);
		if (ret == LZMA_OK && strm->avail_in == in_left &&
		    strm->avail_out == out_left)
			ret = LZMA_BUF_ERROR;
	} while (ret == LZMA_OK);
	if (ret == LZMA_STREAM_END && !strm->avail_out)
		return 0;
	return mlzma_fail(strm, req, ret, err);
}
#endif

const struct erofs_codec erofs_codec_lzma = {
	.name = "lzma",
	.cost_ns_per_kib = LZMA_COST_NS_PER_KIB,
#ifdef HAVE_LZMA
	.available = true,
	.init = mlzma_init,
	.fini = mlzma_fini,
	.decode = mlzma_decode,
#endif
};
