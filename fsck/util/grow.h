/* SPDX-License-Identifier: MIT */
/*
 * Arrays that grow as they fill: the capacity doubles from a minimum, so
 * that n appends cost O(n) copies, and a failure leaves the array as it
 * was.
 */
#ifndef FSCK_GROW_H
#define FSCK_GROW_H

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>

/*
 * The capacity to hold need elements of size bytes: cap doubled (min to
 * start with) until it does; 0 when that many bytes cannot be counted.
 */
size_t grow_capacity(size_t cap, size_t need, size_t min, size_t size);

/*
 * Room in arr (an array of cap elements, NULL when cap is 0) for at least
 * need: 0, or -ENOMEM with arr and cap unchanged.
 */
#define ARRAY_GROW(arr, cap, need, min)                                        \
	({                                                                     \
		int grow_ret_ = 0;                                             \
		if ((need) > (cap)) {                                          \
			size_t grow_cap_ = grow_capacity((cap), (need), (min), \
							 sizeof(*(arr)));      \
			void *grow_p_ =                                        \
				grow_cap_ ? reallocarray((arr), grow_cap_,     \
							 sizeof(*(arr)))       \
					  : NULL;                              \
			if (grow_p_) {                                         \
				(arr) = grow_p_;                               \
				(cap) = grow_cap_;                             \
			} else {                                               \
				grow_ret_ = -ENOMEM;                           \
			}                                                      \
		}                                                              \
		grow_ret_;                                                     \
	})

#endif
