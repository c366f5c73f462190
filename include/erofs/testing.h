/* SPDX-License-Identifier: MIT */
/*
 * Entry points for the tests and the benchmarks only (tests/unit,
 * bench/readbench): fsck.erofs includes none of this. They reach inside
 * one step of a read, or switch an implementation to compare two.
 */
#ifndef EROFS_TESTING_H
#define EROFS_TESTING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "erofs/data.h"
#include "erofs/error.h"
#include "erofs/image.h"
#include "erofs/inode.h"

/* The compressed part of erofs_map() (lib/zmap/zmap_inode.c). */
int z_erofs_map(struct erofs_ctx *ctx, const struct erofs_inode *inode,
		uint64_t pos, struct erofs_map *map);

/*
 * With plain, lookups in encoded extents through ctx and its nested
 * contexts are a plain binary search, without the accelerator of
 * lib/zmap/zmap_lookup.c, to compare the two. Set it before reading.
 */
void erofs_ctx_set_plain_lookup(struct erofs_ctx *ctx, bool plain);

/*
 * Give img a cache of at most budget decoded bytes if its reads of
 * fragments can use one (FRAGMENTS and a compressed packed inode);
 * otherwise leave img->frag_cache NULL. Replaces any cache img had:
 * only while no thread reads img. erofs_image_open() makes the cache
 * with erofs_open_opts.frag_cache_budget; tests change it afterwards.
 */
int erofs_frag_cache_create(struct erofs_image *img, size_t budget,
			    struct erofs_err *err);
void erofs_frag_cache_destroy(struct erofs_image *img);

/*
 * Not thread-safe: make SHA-256 use the portable block function (accel
 * false) or the fastest one the CPU supports. Returns whether an
 * accelerated block function is now in use.
 */
bool erofs_sha256_select(bool accel);

#endif
