// SPDX-License-Identifier: MIT
/*
 * The helpers every part of the extractor uses on the state they share
 * (extract_state.h): statistics counted from any thread, arrays that grow.
 */
#include <stdlib.h>

#include "extract/extract_state.h"

void x_count(uint64_t *v)
{
	__atomic_add_fetch(v, 1, __ATOMIC_RELAXED);
}

bool x_grow(void **arr, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 16;
	void *p;

	if (need <= *cap)
		return true;
	while (n < need)
		n *= 2;
	p = realloc(*arr, n * size);
	if (!p)
		return false;
	*arr = p;
	*cap = n;
	return true;
}
