// SPDX-License-Identifier: MIT
/* The buffering and padding every SHA of digest_buffer.h shares. */
#include <string.h>

#include "hash/digest_buffer.h"

void digest_absorb(const struct digest_buffer *b, digest_blocks_fn *blocks,
		   void *state, const uint8_t *p, size_t len)
{
	size_t n;

	*b->count += len;
	if (*b->used) {
		n = b->block - *b->used;
		if (n > len)
			n = len;
		memcpy(b->buf + *b->used, p, n);
		*b->used += n;
		p += n;
		len -= n;
		if (*b->used < b->block)
			return;
		blocks(state, b->buf, 1);
		*b->used = 0;
	}
	if (len >= b->block) {
		blocks(state, p, len / b->block);
		p += len - len % b->block;
		len %= b->block;
	}
	memcpy(b->buf, p, len);
	*b->used = len;
}

void digest_pad(const struct digest_buffer *b, digest_blocks_fn *blocks,
		void *state, size_t lenbytes)
{
	uint64_t bytes = *b->count;
	size_t used = *b->used, end = b->block - 8;

	b->buf[used++] = 0x80;
	if (used > b->block - lenbytes) {
		memset(b->buf + used, 0, b->block - used);
		blocks(state, b->buf, 1);
		used = 0;
	}
	memset(b->buf + used, 0, end - used);
	/* a 128-bit length's upper half holds the bits a byte count shifts out */
	if (lenbytes > 8)
		b->buf[end - 1] = (uint8_t)(bytes >> 61);
	erofs_put_be64(b->buf + end, bytes << 3);
	blocks(state, b->buf, 1);
	*b->used = 0;
}
