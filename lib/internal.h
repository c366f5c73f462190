/* SPDX-License-Identifier: MIT */
/* Declarations shared inside the library, not part of its interface. */
#ifndef EROFS_LIB_INTERNAL_H
#define EROFS_LIB_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "erofs/image.h"

#define EROFS_MAX_NESTING 2

/* io.c */
/* Open path, or when fd >= 0 a copy of fd, which path then names. */
int erofs_io_open(struct erofs_device *dev, const char *path, int fd,
		  uint64_t offset, struct erofs_err *err);
void erofs_io_close(struct erofs_device *dev);
int erofs_io_pread(const struct erofs_device *dev, void *buf, size_t len,
		   uint64_t pos, struct erofs_err *err);

/* ctx.c: a context for reads nested inside another one (metabox, packed) */
struct erofs_ctx *erofs_ctx_nested(struct erofs_ctx *ctx);
void erofs_ctx_take_error(struct erofs_ctx *ctx, struct erofs_ctx *nested);

/* Overflow-safe "does [pos, pos + len) fit in [0, size)". */
static inline bool erofs_range_ok(uint64_t pos, uint64_t len, uint64_t size)
{
	return pos <= size && len <= size - pos;
}

static inline uint64_t erofs_round_up(uint64_t x, uint64_t align)
{
	return (x + align - 1) & ~(align - 1);
}

static inline uint64_t erofs_div_round_up(uint64_t x, unsigned int bits)
{
	return (x >> bits) + !!(x & ((1ULL << bits) - 1));
}

#endif
