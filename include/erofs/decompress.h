/* SPDX-License-Identifier: MIT */
/*
 * Codec table and pcluster decoding. Each algorithm is one entry indexed by
 * its on-disk id: name, per-context setup and teardown, decode, and a cost
 * estimate used by the scheduler. Decoder state lives in the calling
 * thread's struct erofs_ctx and is reused across pclusters.
 */
#ifndef EROFS_DECOMPRESS_H
#define EROFS_DECOMPRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "erofs/error.h"

struct erofs_ctx;
struct erofs_image;
struct erofs_codec_state;

struct erofs_decomp_req {
	unsigned int alg;	/* Z_EROFS_COMPRESSION_* */
	const uint8_t *in;	/* the stored pcluster (with any zero padding) */
	size_t inlen;
	uint8_t *out;		/* decoded bytes, from the extent start */
	size_t outlen;		/* bytes wanted */
	bool partial;		/* stop after outlen; the stream may go on */
	bool zero_padding;	/* LZ4: stream right-aligned (LZ4_0PADDING) */
	uint64_t nid;		/* for error records */
	uint64_t pa;
};

/*
 * An entry built without its library has available false and NULL
 * functions; a codec without state has NULL init and fini.
 */
struct erofs_codec {
	const char *name;
	bool available;		/* built with its library */
	/* relative decode cost in nanoseconds per output KiB (scheduler) */
	unsigned int cost_ns_per_kib;
	int (*init)(struct erofs_codec_state **state,
		    const struct erofs_image *img);
	void (*fini)(struct erofs_codec_state *state);
	/*
	 * Decode req->in (zero padding already stripped) into req->out.
	 * Returns 0, or -EFSCORRUPTED with err filled.
	 */
	int (*decode)(struct erofs_codec_state *state,
		      const struct erofs_decomp_req *req, struct erofs_err *err);
};

/* The table entry of an algorithm id, NULL if the id is unknown. */
const struct erofs_codec *erofs_codec_get(unsigned int alg);

/*
 * Decode one pcluster with the calling context's decoder for req->alg, creating
 * it on first use. Strips the leading zero padding, then applies the
 * exact-length rules (format.md, "Zero padding", "Exact lengths"): a full
 * decode must produce exactly outlen bytes and consume the stream, a partial
 * one at least outlen. A codec this build lacks gives -EOPNOTSUPP ("built
 * without zstd support").
 */
int erofs_decompress(struct erofs_ctx *ctx, const struct erofs_decomp_req *req);

/*
 * Let at most n threads of img decode a pcluster at once (0: no limit, as
 * opened); the others wait their turn inside erofs_decompress(). Reading
 * the stored bytes, copying out of the caches and waiting for an extent
 * another thread decodes stay outside the limit, so a thread that waits
 * for its turn holds nothing another needs. Set it before threads read.
 * 0, -EBUSY when a limit is set already, or -ENOMEM.
 */
int erofs_decoders_limit(struct erofs_image *img, unsigned int n);

/*
 * The most threads that decoded img's pclusters at once since its limit
 * was set; 0 without a limit.
 */
unsigned int erofs_decoders_peak(const struct erofs_image *img);

/* Drop img's limit (erofs_image_close() calls it). */
void erofs_decoders_unlimit(struct erofs_image *img);

/* Release every decoder of a context (erofs_ctx_fini calls it). */
void erofs_decompress_fini(struct erofs_ctx *ctx);

#endif
