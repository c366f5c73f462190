/* SPDX-License-Identifier: MIT */
/*
 * Shared by the two halves of compressed-file mapping: lcluster indexes
 * (zmap_inode.c) and encoded extents (zmap_extents.c, zmap_records.c,
 * zmap_lookup.c). The checks they share are zmap_check.c's.
 */
#ifndef EROFS_LIB_ZMAP_INTERNAL_H
#define EROFS_LIB_ZMAP_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "erofs/data.h"
#include "erofs/image.h"
#include "erofs/inode.h"

/* h_advise bits this reader knows, for either layout */
#define Z_EROFS_ADVISE_KNOWN 0x003f
/* h_clusterbits bits 4-6 are reserved */
#define Z_EROFS_CLUSTERBITS_RESERVED 0x70

/*
 * First byte past the 48-bit block space ("Encoded extents"), capped at 2^63
 * (64 KiB blocks would make it 2^64) so that sums of lengths checked against it
 * cannot wrap.
 */
static inline uint64_t z_erofs_addr_limit(const struct erofs_image *img)
{
	if (img->blkszbits >= 15)
		return 1ULL << 63;
	return (1ULL << 48) << img->blkszbits;
}

/* ---- zmap_check.c ---- */

/*
 * Record an -EFSCORRUPTED error about inode; pos is the byte position of
 * the offending record in the inode's metadata space.
 */
int z_erofs_corrupt(struct erofs_ctx *ctx, const struct erofs_inode *inode,
		    uint64_t pos, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Is [off, off + len) inside the packed inode, and may inode use it? */
int z_erofs_check_fragment(struct erofs_ctx *ctx,
			   const struct erofs_inode *inode, uint64_t off,
			   uint64_t len, uint64_t pos);

/* map = [la, i_size) stored at packed inode offset off. */
int z_erofs_map_fragment(struct erofs_ctx *ctx,
			 const struct erofs_inode *inode, uint64_t la,
			 uint64_t off, uint64_t pos, struct erofs_map *map);

/* Is algorithm alg enabled in the image? */
int z_erofs_check_alg(struct erofs_ctx *ctx, const struct erofs_inode *inode,
		      unsigned int alg, uint64_t pos);

/*
 * The limits every pcluster extent obeys, once map is filled. short_ok
 * accepts a compressed extent that decodes to less than its pcluster.
 */
int z_erofs_check_extent(struct erofs_ctx *ctx,
			 const struct erofs_inode *inode,
			 const struct erofs_map *map, bool short_ok,
			 uint64_t pos);

/* Encoded extents (zmap_extents.c); h is the raw map header. */
int z_erofs_init_extents(struct erofs_ctx *ctx, struct erofs_inode *inode,
			 const uint8_t *h);
int z_erofs_map_extents(struct erofs_ctx *ctx,
			const struct erofs_inode *inode, uint64_t pos,
			struct erofs_map *map);

/* The lookup hints of a context (ctx->zhints, zmap_lookup.c). */
int z_erofs_hints_create(struct erofs_ctx *ctx);
void z_erofs_hints_destroy(struct erofs_ctx *ctx);

#endif
