// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int erofs_grow(void *arrp, size_t *cap, size_t need, size_t size, size_t min)
{
	size_t n = *cap ? *cap : (min ? min : 1);
	void *arr, *p;

	if (need <= *cap)
		return 0;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return -ENOMEM;
		n *= 2;
	}
	/* through memcpy: arrp points to a pointer of any object type */
	memcpy(&arr, arrp, sizeof(arr));
	p = reallocarray(arr, n, size);
	if (!p)
		return -ENOMEM;
	memcpy(arrp, &p, sizeof(p));
	*cap = n;
	return 0;
}
