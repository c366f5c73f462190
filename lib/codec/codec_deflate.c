// SPDX-License-Identifier: MIT
/*
 * Raw DEFLATE (format.md, "DEFLATE"). Full decodes go through libdeflate when
 * it is built in (it is faster); partial decodes need a decoder that can stop
 * early, zlib's raw inflate. A build with libdeflate but without zlib decodes
 * partial requests whole into a scratch buffer.
 */
#include <stdlib.h>
#include <string.h>

#include "erofs/format.h"
#include "codec/codec_internal.h"

/* measured by bench/calibrate (see codec_lz4.c) */
#define DEFLATE_COST_NS_PER_KIB 3500

#if defined(HAVE_ZLIB) || defined(HAVE_LIBDEFLATE)
#ifdef HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif
#ifdef HAVE_ZLIB
#define ZLIB_CONST
#include <zlib.h>
#endif

struct dfl_state {
#ifdef HAVE_LIBDEFLATE
	struct libdeflate_decompressor *ld;
#endif
#ifdef HAVE_ZLIB
	z_stream zs;
#else
	uint8_t *scratch;
	size_t scratch_size;
#endif
};

static struct dfl_state *dfl_state(struct erofs_codec_state *state)
{
	return (struct dfl_state *)state;
}

static void dfl_fini(struct erofs_codec_state *state)
{
	struct dfl_state *s = dfl_state(state);

#ifdef HAVE_LIBDEFLATE
	if (s->ld)
		libdeflate_free_decompressor(s->ld);
#endif
#ifdef HAVE_ZLIB
	inflateEnd(&s->zs);
#else
	free(s->scratch);
#endif
	free(s);
}

static int dfl_init(struct erofs_codec_state **state,
		    const struct erofs_image *img)
{
	struct dfl_state *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
#ifdef HAVE_ZLIB
	/* negative window bits: raw stream; 15 reads any window size */
	if (inflateInit2(&s->zs, -15) != Z_OK) {
		free(s);
		return -ENOMEM;
	}
#endif
#ifdef HAVE_LIBDEFLATE
	s->ld = libdeflate_alloc_decompressor();
	if (!s->ld) {
		dfl_fini((struct erofs_codec_state *)s);
		return -ENOMEM;
	}
#endif
	*state = (struct erofs_codec_state *)s;
	return 0;
}

static int dfl_short(const struct erofs_decomp_req *req, size_t done,
		     struct erofs_err *err)
{
	return erofs_error(err, -EFSCORRUPTED, req->nid, req->pa,
			   "deflate: stream ends after %zu of %zu bytes",
			   done, req->outlen);
}

static int dfl_long(const struct erofs_decomp_req *req, struct erofs_err *err)
{
	return erofs_error(err, -EFSCORRUPTED, req->nid, req->pa,
			   "deflate: stream goes on past %zu bytes",
			   req->outlen);
}

#ifdef HAVE_LIBDEFLATE
static int dfl_result(const struct erofs_decomp_req *req,
		      enum libdeflate_result ret, size_t done,
		      struct erofs_err *err)
{
	if (ret == LIBDEFLATE_INSUFFICIENT_SPACE)
		return dfl_long(req, err);
	if (ret != LIBDEFLATE_SUCCESS)
		return erofs_error(err, -EFSCORRUPTED, req->nid, req->pa,
				   "deflate: invalid or truncated stream of %zu bytes",
				   req->inlen);
	if (done < req->outlen)
		return dfl_short(req, done, err);
	return 0;
}

static int dfl_libdeflate_full(struct dfl_state *s,
			       const struct erofs_decomp_req *req,
			       struct erofs_err *err)
{
	enum libdeflate_result ret;
	size_t done;

	ret = libdeflate_deflate_decompress(s->ld, req->in, req->inlen,
					    req->out, req->outlen, &done);
	return dfl_result(req, ret, done, err);
}
#endif

#ifdef HAVE_ZLIB
/*
 * Z_FINISH asks for the whole stream at once: it ends with Z_STREAM_END
 * only if the final block ends within outlen bytes. Z_SYNC_FLUSH lets a
 * partial decode stop as soon as the output buffer is full.
 */
static int dfl_zlib(struct dfl_state *s, const struct erofs_decomp_req *req,
		    struct erofs_err *err)
{
	z_stream *zs = &s->zs;
	int flush = req->partial ? Z_SYNC_FLUSH : Z_FINISH;
	int ret;

	inflateReset(zs);
	zs->next_in = req->in;
	zs->avail_in = (uInt)req->inlen;
	zs->next_out = req->out;
	zs->avail_out = (uInt)req->outlen;
	do {
		uInt in_left = zs->avail_in, out_left = zs->avail_out;

		ret = inflate(zs, flush);
		if (ret == Z_OK && zs->avail_in == in_left &&
		    zs->avail_out == out_left)
			ret = Z_BUF_ERROR;
	} while (ret == Z_OK && zs->avail_out);

	if (ret == Z_OK || ret == Z_STREAM_END) {
		if (zs->avail_out)
			return dfl_short(req, req->outlen - zs->avail_out, err);
		return 0;
	}
	if (ret == Z_MEM_ERROR)
		return erofs_error(err, -ENOMEM, req->nid, req->pa,
				   "deflate: out of memory");
	if (ret == Z_DATA_ERROR)
		return erofs_error(err, -EFSCORRUPTED, req->nid, req->pa,
				   "deflate: %s after %zu of %zu bytes",
				   zs->msg ? zs->msg : "invalid stream",
				   req->outlen - zs->avail_out, req->outlen);
	if (!zs->avail_out)
		return dfl_long(req, err);
	return erofs_error(err, -EFSCORRUPTED, req->nid, req->pa,
			   "deflate: stream truncated after %zu of %zu bytes",
			   req->outlen - zs->avail_out, req->outlen);
}
#else
/*
 * libdeflate cannot stop early: decode the whole pcluster into a scratch
 * buffer, growing it up to the largest extent the format allows (format.md,
 * "Compression algorithms"), and keep its prefix.
 */
static int dfl_libdeflate_partial(struct dfl_state *s,
				  const struct erofs_decomp_req *req,
				  struct erofs_err *err)
{
	size_t cap = req->outlen < 65536 ? 65536 : req->outlen;
	enum libdeflate_result ret;
	size_t done;
	int rc;

	for (;;) {
		if (cap > s->scratch_size) {
			free(s->scratch);
			s->scratch_size = 0;
			s->scratch = malloc(cap);
			if (!s->scratch)
				return erofs_error(err, -ENOMEM, req->nid,
						   req->pa,
						   "deflate: out of memory");
			s->scratch_size = cap;
		}
		ret = libdeflate_deflate_decompress(s->ld, req->in, req->inlen,
						    s->scratch, cap, &done);
		if (ret != LIBDEFLATE_INSUFFICIENT_SPACE ||
		    cap >= Z_EROFS_PCLUSTER_MAX_DSIZE)
			break;
		cap = cap > Z_EROFS_PCLUSTER_MAX_DSIZE / 2 ?
		      Z_EROFS_PCLUSTER_MAX_DSIZE : cap * 2;
	}
	if (ret == LIBDEFLATE_INSUFFICIENT_SPACE)
		return erofs_error(err, -EFSCORRUPTED, req->nid, req->pa,
				   "deflate: pcluster decodes to more than %u bytes",
				   Z_EROFS_PCLUSTER_MAX_DSIZE);
	rc = dfl_result(req, ret, done, err);
	if (!rc)
		memcpy(req->out, s->scratch, req->outlen);
	return rc;
}
#endif

static int dfl_decode(struct erofs_codec_state *state,
		      const struct erofs_decomp_req *req, struct erofs_err *err)
{
	struct dfl_state *s = dfl_state(state);

#ifdef HAVE_LIBDEFLATE
	if (!req->partial)
		return dfl_libdeflate_full(s, req, err);
#endif
#ifdef HAVE_ZLIB
	return dfl_zlib(s, req, err);
#else
	return dfl_libdeflate_partial(s, req, err);
#endif
}
#endif

const struct erofs_codec erofs_codec_deflate = {
	.name = "deflate",
	.cost_ns_per_kib = DEFLATE_COST_NS_PER_KIB,
#if defined(HAVE_ZLIB) || defined(HAVE_LIBDEFLATE)
	.available = true,
	.init = dfl_init,
	.fini = dfl_fini,
	.decode = dfl_decode,
#endif
};
