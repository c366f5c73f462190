/* SPDX-License-Identifier: MIT */
/*
 * What SHA-1, SHA-256 and SHA-512 share (FIPS 180-4): input gathered into
 * whole blocks, and the final padding (0x80, zeros, the message's length
 * in bits at the end of the last block). Their words are big-endian:
 * erofs_get_be32() and erofs_put_be32() of erofs/format.h.
 */
#ifndef EROFS_LIB_DIGEST_BUFFER_H
#define EROFS_LIB_DIGEST_BUFFER_H

#include <stddef.h>
#include <stdint.h>

#include "erofs/format.h"

/* Compress nblocks whole blocks at p into state. */
typedef void digest_blocks_fn(void *state, const uint8_t *p, size_t nblocks);

struct digest_buffer {
	uint8_t *buf; /* one block */
	size_t block; /* 64 or 128 bytes */
	size_t *used;
	uint64_t *count; /* bytes hashed */
};

/* len bytes at p: whole blocks straight from p, the rest kept in buf. */
void digest_absorb(const struct digest_buffer *b, digest_blocks_fn *blocks,
		   void *state, const uint8_t *p, size_t len);

/* The padding, with the length in the last lenbytes bytes (8 or 16). */
void digest_pad(const struct digest_buffer *b, digest_blocks_fn *blocks,
		void *state, size_t lenbytes);

#endif
