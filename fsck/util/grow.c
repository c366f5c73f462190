// SPDX-License-Identifier: MIT
#include <stdint.h>

#include "util/grow.h"

size_t grow_capacity(size_t cap, size_t need, size_t min, size_t size)
{
	if (!cap)
		cap = min ? min : 1;
	while (cap < need) {
		if (cap > SIZE_MAX / 2)
			return 0;
		cap *= 2;
	}
	return cap > SIZE_MAX / size ? 0 : cap;
}
