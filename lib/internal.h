/* SPDX-License-Identifier: MIT */
/*
 * The rules every folder of the library shares: the one bounds check of
 * a read, and rounding. Each folder's own declarations are in its
 * *_internal.h (docs/ARCHITECTURE.md, "Layers").
 */
#ifndef EROFS_LIB_INTERNAL_H
#define EROFS_LIB_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "erofs/error.h"

/* Overflow-safe "does [pos, pos + len) fit in [0, size)". */
static inline bool erofs_range_ok(uint64_t pos, uint64_t len, uint64_t size)
{
	return pos <= size && len <= size - pos;
}

/*
 * The bounds check of every read and copy of a device or a source, before
 * it is issued: 0, or -EFSCORRUPTED recorded in err naming what (a read
 * or a copy), the bytes and name, whose size they pass.
 */
static inline int erofs_bound(uint64_t pos, uint64_t len, uint64_t size,
			      const char *what, const char *name,
			      struct erofs_err *err)
{
	if (erofs_range_ok(pos, len, size))
		return 0;
	return erofs_error(err, -EFSCORRUPTED, EROFS_NO_NID, pos,
			   "%s of %llu bytes at %llu is past the end of %s",
			   what, (unsigned long long)len,
			   (unsigned long long)pos, name);
}

/*
 * Has the caller asked to stop (erofs_set_stop_check())? Then -EINTR,
 * recorded in err: what a long loop returns.
 */
int erofs_stop_asked(struct erofs_err *err);

/*
 * Room in the array *arrp points to (*cap elements of size bytes, NULL
 * when *cap is 0) for need of them, the capacity doubled from min: n
 * appends cost O(n) copies. 0, or -ENOMEM with the array as it was.
 */
int erofs_grow(void *arrp, size_t *cap, size_t need, size_t size, size_t min);

static inline uint64_t erofs_round_up(uint64_t x, uint64_t align)
{
	return (x + align - 1) & ~(align - 1);
}

static inline uint64_t erofs_div_round_up(uint64_t x, unsigned int bits)
{
	return (x >> bits) + !!(x & ((1ULL << bits) - 1));
}

#endif
