// SPDX-License-Identifier: MIT
#include <string.h>

#include "sparse.h"

static int zero_block(const uint8_t *p)
{
	return !p[0] && !memcmp(p, p + 1, SPARSE_BLOCK - 1);
}

size_t sparse_next_hole(const uint8_t *buf, size_t len, uint64_t off,
			size_t from)
{
	size_t i = from, mis = (size_t)((off + from) % SPARSE_BLOCK);

	if (mis)
		i += SPARSE_BLOCK - mis;
	for (; i <= len && len - i >= SPARSE_BLOCK; i += SPARSE_BLOCK)
		if (zero_block(buf + i))
			return i;
	return len;
}
