/* SPDX-License-Identifier: MIT */
/*
 * Fragments: file data stored in the packed inode (format.md, "Fragments"),
 * which many files share. Images with fragments and a compressed packed inode
 * get one cache of decoded packed-inode extents, shared by every thread: a
 * pcluster of the packed inode is decoded once however many files and threads
 * read from it, as long as it stays in the cache. Other images have no cache
 * and their reads take no lock.
 *
 * Thread safety: the cache is created at erofs_image_open() and destroyed
 * at erofs_image_close(); in between, any number of threads may read
 * through it at once, each with its own context.
 */
#ifndef EROFS_FRAGMENTS_H
#define EROFS_FRAGMENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "erofs/error.h"

struct erofs_ctx;
struct erofs_image;
struct erofs_inode;
struct erofs_map;

/* Default bound on the decoded bytes the cache keeps. */
#define EROFS_FRAG_CACHE_BUDGET (32u << 20)

/*
 * What each reading thread may hold pinned at once: the packed extent it
 * decodes or copies out of, 4-8 MiB decoded for the 1 MiB pclusters of
 * live media.
 */
#define EROFS_FRAG_CACHE_PER_THREAD (6u << 20)

/*
 * What the threads share besides: the extents read ahead for the files to
 * come, and those that deduplicated files read again.
 */
#define EROFS_FRAG_CACHE_SHARED (20u << 20)

/*
 * The default budget for that many threads reading at once: the shared
 * part and an extent pinned by each, never less than the default (which
 * is that for two threads). With less, past two threads, the extents
 * they pin took the room of what read-ahead decoded for the files to
 * come, which were then decoded again.
 */
size_t erofs_frag_cache_budget(unsigned int threads);

struct erofs_frag_stats {
	uint64_t hits;		/* extents found decoded */
	uint64_t decodes;	/* extents decoded into the cache */
	uint64_t waits;		/* readers that waited for another's decode */
	uint64_t deferred; /* reads handed back -EAGAIN (data.h) */
	uint64_t evictions;
	uint64_t recycled; /* evicted mappings resized for a new extent */
	uint64_t uncached;	/* reads that bypassed the cache */
	uint64_t prefetches;	/* extents decoded by read-ahead */
	uint64_t held_back; /* read-ahead left to readers: no room */
	uint64_t decoded; /* bytes decoded or tried, into the cache
				 * or not */
	size_t bytes; /* bytes mapped for decoded extents now */
	size_t peak;		/* the most bytes held at once */
	size_t budget;
	size_t entries;
};

/* A snapshot of the counters; all zero without a cache. */
void erofs_frag_cache_stats(struct erofs_image *img,
			    struct erofs_frag_stats *st);

/*
 * Read len bytes at offset off of the packed inode's data, for a fragment
 * of inode: through the cache when the image has one, otherwise through
 * the context's nested reader as any other file read. -EAGAIN, recording
 * nothing, inside erofs_extent_read_nowait() when another thread decodes
 * an extent the read needs.
 */
int erofs_frag_read(struct erofs_ctx *ctx, const struct erofs_inode *inode,
		    uint64_t off, void *out, size_t len);

/*
 * The part of fragment extent map (EROFS_LOC_FRAGMENT, one erofs_map()
 * returned for a file) from file offset pos on that one extent of the
 * packed inode holds: an extent of the file of its own, read as map would
 * be, so that a file cut there has each piece decode a packed extent of
 * its own. packed gets that packed-inode extent. 0 or a negative errno,
 * with ctx->err set.
 */
int erofs_frag_map_part(struct erofs_ctx *ctx, const struct erofs_map *map,
			uint64_t pos, struct erofs_map *part,
			struct erofs_map *packed);

/*
 * Read-ahead: decode map, an extent of the packed inode, into the
 * cache, unless it is there already or being decoded, or the cache would
 * not keep it. Never waits for another thread's decode. An extent that is
 * corrupt or cannot be read is remembered as failed, with its error, for
 * the reader that needs it to report: returns 1 when this call decoded
 * (or failed) the extent, 0 when there was nothing to do, or -ENOMEM.
 * Until a reader reads it, the extent is evicted only after every extent
 * read already.
 */
int erofs_frag_prefetch(struct erofs_ctx *ctx, const struct erofs_map *map);

/*
 * A reader of map, an extent of the packed inode, is on its way: if the
 * cache holds the extent or is decoding it, make it the most recently
 * used, so that read-ahead does not evict it first, and return true.
 * False when the reader would have to decode it (or it is not cached at
 * all): read-ahead may then queue its decode.
 */
bool erofs_frag_want(struct erofs_image *img, const struct erofs_map *map);

/*
 * Since the cache was created (even if evicted since), has the packed-
 * inode extent map been decoded soundly into it, or found corrupt by a
 * reader, which got the error? A checker of the packed inode need not
 * decode it again. False without a cache.
 */
bool erofs_frag_decoded(struct erofs_image *img, const struct erofs_map *map);

#endif
