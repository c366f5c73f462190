/* SPDX-License-Identifier: MIT */
/*
 * The layout of a reading context, for the library, its unit tests and
 * bench/ (which make contexts in place with erofs_ctx_init() and look
 * inside them); fsck uses erofs_ctx_new() and the accessors of
 * erofs/image.h and never includes this.
 */
#ifndef EROFS_CONTEXT_H
#define EROFS_CONTEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "erofs/error.h"
#include "erofs/format.h"
#include "erofs/image.h"

#define EROFS_META_CACHE_SLOTS 16

struct erofs_meta_block {
	uint64_t tag;		/* (space << 62) | block number, or UINT64_MAX */
	uint32_t len;		/* valid bytes (a last block may be short) */
	uint32_t lru;
	uint8_t *data;		/* blksz bytes */
};

struct erofs_codec_state;
struct z_erofs_hints;

/* Per-thread reading context: error record, caches, buffers, decoders. */
struct erofs_ctx {
	struct erofs_image *img;
	struct erofs_err err;

	struct erofs_meta_block meta[EROFS_META_CACHE_SLOTS];
	uint32_t meta_clock;
	uint8_t *meta_run; /* blocks read at once, then cached */
	uint64_t meta_next; /* the block after the last miss's */
	struct erofs_ctx_stats stats;	/* erofs_ctx_stats() */

	/* decoder contexts, created on first use and reused */
	struct erofs_codec_state *codec[Z_EROFS_COMPRESSION_MAX];

	/*
	 * The stored bytes of one pcluster, or of a run of the pclusters
	 * of one file that lie next to each other on a device, read at once
	 * (data.c): run_len bytes from run_pa of device run_dev, 0 when
	 * it holds no run.
	 */
	uint8_t *inbuf;
	size_t inbuf_size;
	unsigned int run_dev;
	uint64_t run_pa;
	size_t run_len;
	uint8_t *outbuf;		/* one decoded extent */
	size_t outbuf_size;
	/* the extent currently decoded in outbuf, to serve small reads */
	uint64_t out_nid;
	uint64_t out_la;
	uint64_t out_len;
	bool out_failed;		/* it is corrupt: out_err says why */
	struct erofs_err out_err;
	int depth;			/* nesting of metabox/packed reads */
	struct erofs_ctx *nested;	/* for reads inside another read */
	/* zmap_extents.c: per-inode hints of encoded-extent lookups */
	struct z_erofs_hints *zhints;
	/* inside erofs_extent_read_nowait() (data.h) */
	bool frag_nowait;
};

/* A context made in place; 0 or -ENOMEM. erofs_ctx_fini() frees it. */
int erofs_ctx_init(struct erofs_ctx *ctx, struct erofs_image *img);
void erofs_ctx_fini(struct erofs_ctx *ctx);

#endif
