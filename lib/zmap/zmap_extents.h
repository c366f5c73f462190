/* SPDX-License-Identifier: MIT */
/*
 * Shared by the two halves of encoded extents: reading records
 * (zmap_extents.c) and finding the record of an offset (zmap_lookup.c).
 */
#ifndef EROFS_LIB_ZMAP_EXTENTS_H
#define EROFS_LIB_ZMAP_EXTENTS_H

#include <stdbool.h>
#include <stdint.h>

#include "erofs/data.h"
#include "erofs/image.h"
#include "erofs/inode.h"

struct z_extent {
	uint64_t idx;
	uint64_t pos;		/* where the record is */
	uint32_t plen;		/* the raw field: length, flags, format */
	uint64_t pstart;
	uint64_t lstart;	/* recsz 16 and 32 only */
};

/* The metadata block a lookup holds: records [first, end) from data. */
struct z_ext_blk {
	uint64_t blk;
	uint64_t first;
	uint64_t end;
	const uint8_t *data;
};

/* What a lookup in sorted records found. */
struct z_found {
	struct z_extent cur;	/* the record holding the offset */
	struct z_extent next;	/* the record after it, if has_next */
	bool has_next;
	uint64_t end;		/* next.lstart, or i_size */
};

struct z_hint;

/* ---- zmap_records.c: records ---- */

/* An -EFSCORRUPTED error about record ext. */
int z_ext_corrupt(struct erofs_ctx *ctx, const struct erofs_inode *inode,
		  const struct z_extent *ext, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Record idx on its own, as the plain search reads it: one block read. */
int z_ext_load(struct erofs_ctx *ctx, const struct erofs_inode *inode,
	       uint64_t idx, struct z_extent *ext);

/* Bring in the metadata block holding record idx of count records. */
int z_ext_hold(struct erofs_ctx *ctx, const struct erofs_inode *inode,
	       uint64_t idx, uint64_t count, struct z_ext_blk *b);

/* Record idx out of the block in hand. */
int z_ext_at(struct erofs_ctx *ctx, const struct erofs_inode *inode,
	     const struct z_ext_blk *b, uint64_t idx, struct z_extent *ext);

/* Errors of sorted records: a first lstart not 0, an lstart out of order. */
int z_ext_not_zero(struct erofs_ctx *ctx, const struct erofs_inode *inode,
		   const struct z_extent *ext);
int z_ext_unsorted(struct erofs_ctx *ctx, const struct erofs_inode *inode,
		   const struct z_extent *ext);

static inline bool z_ext_holds(const struct z_ext_blk *b, uint64_t idx)
{
	return b->data && idx >= b->first && idx < b->end;
}

/* ---- zmap_lookup.c: the lookup accelerator ---- */

int z_lookup_sorted(struct erofs_ctx *ctx, const struct erofs_inode *inode,
		    uint64_t pos, struct z_found *f, struct z_hint **hint);

/* Keep what a lookup found, once it turned into an extent, in its hint. */
void z_lookup_remember(struct z_hint *h, const struct z_found *f);

/* Record k of a table of count 4-byte records, with its pcluster address. */
int z_lookup_rec4(struct erofs_ctx *ctx, const struct erofs_inode *inode,
		  uint64_t k, uint64_t count, struct z_extent *ext);

#endif
