/* SPDX-License-Identifier: MIT */
/*
 * What the image reader's files (image/) share with compressed mapping
 * (zmap/) and the pcluster decoder (codec/): devices, the metadata block
 * cache, nested contexts and the metabox, the flat map, the algorithms an
 * image enables. Not part of the library's interface.
 */
#ifndef EROFS_LIB_IMAGE_INTERNAL_H
#define EROFS_LIB_IMAGE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "erofs/context.h"
#include "erofs/data.h"
#include "erofs/image.h"
#include "erofs/inode.h"
#include "internal.h"

#define EROFS_MAX_NESTING 2

/* io.c */
/* Open path, or when fd >= 0 a copy of fd, which path then names. */
int erofs_io_open(struct erofs_device *dev, const char *path, int fd,
		  uint64_t offset, struct erofs_err *err);
/* Make src, from byte offset on, the device; it takes src over. */
int erofs_io_attach(struct erofs_device *dev, struct erofs_source *src,
		    uint64_t offset, struct erofs_err *err);
void erofs_io_close(struct erofs_device *dev);
int erofs_io_pread(const struct erofs_device *dev, void *buf, size_t len,
		   uint64_t pos, struct erofs_err *err);
/*
 * Copy len bytes at byte pos of dev to byte off of fd in the kernel: 0,
 * EROFS_COPY_REFUSED, or a negative errno (erofs_extent_copy() says which
 * side each failure is taken for).
 */
int erofs_io_copy(const struct erofs_device *dev, uint64_t pos, uint64_t len,
		  int fd, uint64_t off, struct erofs_err *err);

/*
 * ctx_levels.c: one level of a context (depth 0 for the context itself)
 * and those below it, the buffers and cache slots alone; 0 or -ENOMEM,
 * with nothing left allocated. Freeing a level frees its own buffers.
 */
int erofs_ctx_level_init(struct erofs_ctx *ctx, struct erofs_image *img,
			 int depth);
void erofs_ctx_level_free(struct erofs_ctx *ctx);

/* ctx_levels.c: a context for reads nested inside another one (metabox, packed) */
struct erofs_ctx *erofs_ctx_nested(struct erofs_ctx *ctx);

/*
 * The metabox's own cache of decoded extents (fragments.c's, where readers
 * always wait: they are in the middle of a metadata block): a
 * hostile image whose inodes cycle through the metabox's extents, more
 * blocks than a context caches, has each extent decoded once while they
 * fit, not once per inode. 64 MiB keeps extents of up to 16 MiB.
 */
#define EROFS_META_CACHE_BUDGET (64u << 20)
int erofs_meta_cache_create(struct erofs_image *img, struct erofs_err *err);
void erofs_meta_cache_destroy(struct erofs_image *img);

/* len bytes at off of the metabox's decoded data, through its cache. */
int erofs_metabox_read(struct erofs_ctx *ctx, uint64_t off, void *out,
		       size_t len);
void erofs_ctx_take_error(struct erofs_ctx *ctx, struct erofs_ctx *nested);

/*
 * pos as a byte offset of the image, for an error record: only the primary
 * space has them (the metabox's and packed inode's bytes are decoded).
 */
static inline uint64_t erofs_image_offset(enum erofs_space space, uint64_t pos)
{
	return space == EROFS_SPACE_PRIMARY ? pos : EROFS_NO_OFFSET;
}

/* ctx_levels.c: buffers; meta_cache.c: metadata reads through its cache */
/*
 * Make sure ctx->outbuf (or inbuf) holds at least len bytes. A buffer that
 * grows loses its content (and outbuf forgets the extent it held).
 */
int erofs_ctx_reserve_out(struct erofs_ctx *ctx, size_t len);
int erofs_ctx_reserve_in(struct erofs_ctx *ctx, size_t len);

/*
 * Read len bytes at byte pos of a metadata space, through the context's
 * block cache. Reads may cross block boundaries. Reading past the end of
 * the space is -EFSCORRUPTED. nid is only used for the error record.
 */
int erofs_meta_read(struct erofs_ctx *ctx, enum erofs_space space, uint64_t pos,
		    void *buf, size_t len, uint64_t nid);

/*
 * Block blk of a metadata space, through the context's block cache: *data
 * points at its *len valid bytes (a last block may be short) and stays
 * valid until the next metadata read through ctx. Lets a caller look at
 * many small records of one block without copying them out one by one.
 */
int erofs_meta_block(struct erofs_ctx *ctx, enum erofs_space space,
		     uint64_t blk, const uint8_t **data, size_t *len,
		     uint64_t nid);

/* io.c */
/*
 * Read len bytes of data at byte address pa of device devid (0: unified
 * space, resolved through the device table; n: extra device n). Bounds are
 * checked against the device: nothing past its end is ever read.
 */
int erofs_dev_read(struct erofs_ctx *ctx, unsigned int devid, uint64_t pa,
		   void *buf, size_t len, uint64_t nid);
/* The same, copied to byte off of fd with erofs_io_copy(). */
int erofs_dev_copy(struct erofs_ctx *ctx, unsigned int devid, uint64_t pa,
		   uint64_t len, int fd, uint64_t off, uint64_t nid);

/* map.c: the flat and chunk-based part of erofs_map */
int erofs_map_flat(struct erofs_ctx *ctx, const struct erofs_inode *inode,
		   uint64_t pos, struct erofs_map *map);

/* zmap_inode.c: parse the map header of a compressed inode into inode->z */
int z_erofs_init_inode(struct erofs_ctx *ctx, struct erofs_inode *inode);

/*
 * Does the image let extents use algorithm alg? The one rule: super.c
 * fills the set from the superblock, and gives an image without
 * COMPR_CFGS LZ4 alone (format.md, "Compression algorithms").
 */
static inline bool erofs_alg_enabled(const struct erofs_image *img,
				     unsigned int alg)
{
	return alg < Z_EROFS_COMPRESSION_MAX &&
	       (img->available_compr_algs >> alg & 1);
}

#endif
