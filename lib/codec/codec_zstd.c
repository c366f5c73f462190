// SPDX-License-Identifier: MIT
/*
 * Zstandard (format.md, "Zstandard"): one frame per pcluster. Each context
 * keeps one ZSTD_DCtx. Full decodes run in one pass straight into the caller's
 * buffer; partial ones stream and stop when the buffer is full.
 */
#include <stdlib.h>

#include "erofs/format.h"
#include "codec/codec_internal.h"

/* measured by bench/calibrate (see codec_lz4.c) */
#define ZSTD_COST_NS_PER_KIB 2000

#ifdef HAVE_ZSTD
#include <zstd.h>
#include <zstd_errors.h>

#define EROFS_ZSTD_WINDOWLOG_MAX 20
_Static_assert(1u << EROFS_ZSTD_WINDOWLOG_MAX == Z_EROFS_ZSTD_MAX_DICT_SIZE,
	       "zstd window log");

struct zstd_state {
	ZSTD_DCtx *dctx;
};

static struct zstd_state *zstd_state(struct erofs_codec_state *state)
{
	return (struct zstd_state *)state;
}

static void zstd_fini(struct erofs_codec_state *state)
{
	struct zstd_state *s = zstd_state(state);

	ZSTD_freeDCtx(s->dctx);
	free(s);
}

static int zstd_init(struct erofs_codec_state **state,
		     const struct erofs_image *img)
{
	struct zstd_state *s = malloc(sizeof(*s));
	size_t ret;

	if (!s)
		return -ENOMEM;
	s->dctx = ZSTD_createDCtx();
	if (!s->dctx) {
		free(s);
		return -ENOMEM;
	}
	ret = ZSTD_DCtx_setParameter(s->dctx, ZSTD_d_windowLogMax,
				     EROFS_ZSTD_WINDOWLOG_MAX);
	if (ZSTD_isError(ret)) {
		zstd_fini((struct erofs_codec_state *)s);
		return -EINVAL;
	}
	*state = (struct erofs_codec_state *)s;
	return 0;
}

/*
 * Window size a frame header asks for (RFC 8878, 3.1.1.1), 0 if the header
 * is cut short (decoding then fails on its own).
 */
static uint64_t zstd_frame_window(const uint8_t *in, size_t len)
{
	static const uint8_t did_len[4] = { 0, 1, 2, 4 };
	/* single-segment frames always carry a content size */
	static const uint8_t fcs_len[4] = { 1, 2, 4, 8 };
	unsigned int fhd, pos, n, i;
	uint64_t fcs = 0;

	if (len < 6)
		return 0;
	fhd = in[4];
	if (!(fhd & 0x20)) {
		uint64_t base = 1ULL << (10 + (in[5] >> 3));

		return base + base / 8 * (in[5] & 7);
	}
	pos = 5 + did_len[fhd & 3];
	n = fcs_len[fhd >> 6];
	if (len < pos + n)
		return 0;
	for (i = 0; i < n; i++)
		fcs |= (uint64_t)in[pos + i] << (8 * i);
	return n == 2 ? fcs + 256 : fcs;
}

static int zstd_full(struct zstd_state *s, const struct erofs_decomp_req *req,
		     struct erofs_err *err)
{
	size_t flen = ZSTD_findFrameCompressedSize(req->in, req->inlen);
	size_t done;

	if (ZSTD_isError(flen))
		return erofs_error(err, -EFSCORRUPTED, req->nid, req->pa,
				   "zstd: truncated or invalid frame of %zu bytes (%s)",
				   req->inlen, ZSTD_getErrorName(flen));
	/* bytes after the frame are ignored, as Linux and erofs-utils do */
	done = ZSTD_decompressDCtx(s->dctx, req->out, req->outlen, req->in,
				   flen);
	if (ZSTD_getErrorCode(done) == ZSTD_error_dstSize_tooSmall)
		return erofs_error(err, -EFSCORRUPTED, req->nid, req->pa,
				   "zstd: frame goes on past %zu bytes",
				   req->outlen);
	if (ZSTD_isError(done))
		return erofs_error(err, -EFSCORRUPTED, req->nid, req->pa,
				   "zstd: %s", ZSTD_getErrorName(done));
	if (done != req->outlen)
		return erofs_error(err, -EFSCORRUPTED, req->nid, req->pa,
				   "zstd: frame ends after %zu of %zu bytes",
				   done, req->outlen);
	return 0;
}

static int zstd_partial(struct zstd_state *s,
			const struct erofs_decomp_req *req,
			struct erofs_err *err)
{
	ZSTD_inBuffer in = { req->in, req->inlen, 0 };
	ZSTD_outBuffer out = { req->out, req->outlen, 0 };
	size_t ret = 1;

	ZSTD_DCtx_reset(s->dctx, ZSTD_reset_session_only);
	while (out.pos < out.size && ret) {
		size_t in_pos = in.pos, out_pos = out.pos;

		ret = ZSTD_decompressStream(s->dctx, &out, &in);
		if (ZSTD_isError(ret))
			return erofs_error(err, -EFSCORRUPTED, req->nid,
					   req->pa,
					   "zstd: %s after %zu of %zu bytes",
					   ZSTD_getErrorName(ret), out.pos,
					   req->outlen);
		if (in.pos == in_pos && out.pos == out_pos)
			break;
	}
	if (out.pos == out.size)
		return 0;
	return erofs_error(err, -EFSCORRUPTED, req->nid, req->pa,
			   "zstd: frame %s after %zu of %zu bytes",
			   ret ? "truncated" : "ends", out.pos, req->outlen);
}

static int zstd_decode(struct erofs_codec_state *state,
		       const struct erofs_decomp_req *req,
		       struct erofs_err *err)
{
	struct zstd_state *s = zstd_state(state);
	uint64_t window;

	/* mkfs writes one plain frame: no skippable frame, no other magic */
	if (req->inlen < 4)
		return erofs_error(err, -EFSCORRUPTED, req->nid, req->pa,
				   "zstd: stream of %zu bytes is too short",
				   req->inlen);
	if (erofs_get32(req->in) != ZSTD_MAGICNUMBER)
		return erofs_error(err, -EFSCORRUPTED, req->nid, req->pa,
				   "zstd: stream starts with 0x%08x, not a frame",
				   erofs_get32(req->in));
	/*
	 * Linux sizes its decoder for the format's window, so a frame asking
	 * for more is unreadable there, even when a one-pass decode here
	 * would not need the window at all.
	 */
	window = zstd_frame_window(req->in, req->inlen);
	if (window > Z_EROFS_ZSTD_MAX_DICT_SIZE)
		return erofs_error(err, -EFSCORRUPTED, req->nid, req->pa,
				   "zstd: frame window of %llu bytes exceeds %u",
				   (unsigned long long)window,
				   Z_EROFS_ZSTD_MAX_DICT_SIZE);
	if (req->partial)
		return zstd_partial(s, req, err);
	return zstd_full(s, req, err);
}
#endif

const struct erofs_codec erofs_codec_zstd = {
	.name = "zstd",
	.cost_ns_per_kib = ZSTD_COST_NS_PER_KIB,
#ifdef HAVE_ZSTD
	.available = true,
	.init = zstd_init,
	.fini = zstd_fini,
	.decode = zstd_decode,
#endif
};
