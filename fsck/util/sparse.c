// SPDX-License-Identifier: MIT
#include <string.h>

#include "util/sparse.h"

static bool all_zero(const uint8_t *p, size_t len)
{
	return !len || (!p[0] && !memcmp(p, p + 1, len - 1));
}

size_t sparse_next_skip(const uint8_t *buf, size_t len, uint64_t off,
			size_t from, size_t *end, bool *whole)
{
	uint64_t first = (off + SPARSE_BLOCK - 1) / SPARSE_BLOCK * SPARSE_BLOCK;
	uint64_t last = (off + len) / SPARSE_BLOCK * SPARSE_BLOCK;
	/* [0, head): a block the start of buf cuts; [tail, len): the end's */
	size_t head = first - off < len ? (size_t)(first - off) : len;
	size_t tail = last > off + head ? (size_t)(last - off) : head;
	size_t i = from < head ? head : from;

	*whole = false;
	if (!from && head && all_zero(buf, head)) {
		*end = head;
		return 0;
	}
	/* i stays a block boundary: callers go on from an end given here */
	for (; i + SPARSE_BLOCK <= tail; i += SPARSE_BLOCK) {
		if (all_zero(buf + i, SPARSE_BLOCK)) {
			*end = i + SPARSE_BLOCK;
			*whole = true;
			return i;
		}
	}
	if (tail < len && from <= tail && all_zero(buf + tail, len - tail)) {
		*end = len;
		return tail;
	}
	*end = len;
	return len;
}
