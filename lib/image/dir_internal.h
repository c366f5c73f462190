/* SPDX-License-Identifier: MIT */
/* Helpers shared by dir.c and namei.c. */
#ifndef EROFS_DIR_INTERNAL_H
#define EROFS_DIR_INTERNAL_H

#include <stdint.h>

#include "erofs/error.h"

struct erofs_ctx;
struct erofs_inode;

/*
 * Read the directory block at byte blkpos (a multiple of the block size
 * below i_size) into buf, which holds one block. *len receives its usable
 * size.
 */
int erofs_dir_read_block(struct erofs_ctx *ctx, const struct erofs_inode *dir,
			 uint64_t blkpos, uint8_t *buf, unsigned int *len);

/*
 * Copy an error recorded with a position inside the directory into the
 * context's record, with the position turned into an image offset when the
 * directory is stored uncompressed on the primary device (and dropped
 * otherwise). Returns the error code.
 */
int erofs_dir_record_error(struct erofs_ctx *ctx,
			   const struct erofs_inode *dir,
			   const struct erofs_err *local);

#endif
