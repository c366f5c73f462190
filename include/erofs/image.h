/* SPDX-License-Identifier: MIT */
/*
 * The image handle (superblock, devices, global tables) and the per-thread
 * reading context.
 *
 * Thread safety: an image is read-only after erofs_image_open() returns, so
 * any number of threads may use it at once, each through its own
 * struct erofs_ctx. A context must never be shared between threads.
 */
#ifndef EROFS_IMAGE_H
#define EROFS_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "erofs/error.h"
#include "erofs/format.h"
#include "erofs/inode.h"

struct erofs_decoders;
struct erofs_frag_cache;
struct erofs_source;

/* One opened device: the primary image (index 0) or an extra device. */
struct erofs_device {
	struct erofs_source *src;	/* erofs/source.h */
	const char *path;		/* the source's name */
	uint64_t offset;	/* where the EROFS data starts in the file */
	uint64_t size;		/* bytes available after offset */
	uint64_t blocks;	/* size the image claims, in blocks */
	uint64_t uniaddr;	/* first block in the unified space, 0 = none */
	char tag[65];		/* device table tag, NUL-terminated */
};

struct erofs_xattr_prefix {
	uint8_t base_index;	/* short prefix index, 0 for none */
	uint16_t infix_len;
	char *infix;		/* not NUL-terminated */
};

/* What a salvaging open lets through: a wrong checksum, a short image. */
#define EROFS_SB_DAMAGE_MAX 2

struct erofs_open_opts {
	const char *path;		/* image file or block device */
	uint64_t offset;		/* byte offset of the image in path */
	const char *const *devices;	/* extra devices, in table order */
	unsigned int ndevices;
	bool no_sbcrc;			/* skip the superblock checksum */
	/*
	 * Open an image whose superblock checksum is wrong or which is cut
	 * short of the blocks it claims: each is recorded in the image's
	 * damage (below) instead of failing the open, and a read past the
	 * end then fails by itself, so that the rest can be salvaged.
	 */
	bool salvage;
	bool use_fd;			/* read fd (a copy of it): path names it */
	int fd;
	/*
	 * Or read this source (a partition of a super image, say), which
	 * the image takes over, failing or not; path and fd are not used.
	 */
	struct erofs_source *source;
	/*
	 * The fragment cache's bound on decoded bytes
	 * (erofs_frag_cache_budget(), erofs/fragments.h); 0: the default,
	 * EROFS_FRAG_CACHE_BUDGET. Set here, as the image is never changed
	 * once open.
	 */
	size_t frag_cache_budget;
};

struct erofs_image {
	struct erofs_device *devs;	/* [0] primary, [i] extra device i */
	unsigned int ndevs;		/* 1 + extra devices */
	unsigned int extra_devices;	/* from the device table */
	uint16_t device_id_mask;

	unsigned int blkszbits;
	uint32_t blksz;
	uint32_t feature_compat;
	uint32_t feature_incompat;
	uint32_t sb_size;
	uint32_t checksum;
	bool sbcrc_checked;
	/* with salvage: what was wrong with the superblock, that it opened */
	struct erofs_err damage[EROFS_SB_DAMAGE_MAX];
	unsigned int ndamage;

	uint64_t blocks;		/* primary device size in blocks */
	uint64_t meta_blkaddr;
	uint64_t xattr_blkaddr;
	uint64_t root_nid;
	uint64_t packed_nid;
	uint64_t metabox_nid;
	uint64_t inos;
	int64_t epoch;
	uint32_t fixed_nsec;
	uint32_t build_time;
	uint8_t uuid[16];
	char volume_name[17];

	/* compression configuration */
	uint16_t available_compr_algs;	/* bit n: algorithm n may be used */
	uint16_t lz4_max_distance;
	uint16_t lz4_max_pclusterblks;
	uint32_t lzma_dict_size;
	uint8_t deflate_windowbits;
	uint8_t zstd_windowlog;

	/* long xattr name prefixes */
	unsigned int xattr_prefix_count;
	uint32_t xattr_prefix_start;
	struct erofs_xattr_prefix *xattr_prefixes;
	bool xattr_filter;		/* h_name_filter may be trusted */
	int ishare_prefix_id;		/* -1 if none */

	/* special inodes, loaded at open when present */
	bool has_packed;
	struct erofs_inode packed;
	bool has_metabox;
	struct erofs_inode metabox;

	struct erofs_frag_cache *frag_cache;	/* shared, thread-safe */
	struct erofs_decoders *decoders; /* NULL: no limit (decompress.h) */
	/* decoded extents of a compressed metabox, shared, thread-safe */
	struct erofs_frag_cache *meta_cache;
};

/* Metadata spaces: where inodes, xattrs and indexes are read from. */
enum erofs_space {
	EROFS_SPACE_PRIMARY = 0,	/* primary device bytes */
	EROFS_SPACE_METABOX = 1,	/* decoded data of the metabox inode */
	EROFS_SPACE_PACKED = 2,		/* decoded data of the packed inode */
};

/*
 * What the encoded-extent lookups of a context cost, for benchmarks and
 * tests. A block read is one request for a metadata block, whether the
 * context's cache has it or not: what a kernel reader pays a buffer lookup
 * for.
 */
struct erofs_ctx_stats {
	uint64_t lookups;		/* lookups in encoded extents */
	uint64_t lookup_meta_reads;	/* metadata block reads by them */
	uint64_t hint_hits;		/* served by the per-inode hint */
	uint64_t decoded_bytes; /* asked of the decoders */
};

/*
 * Per-thread reading context: error record, caches, buffers, decoders. Its
 * layout is the library's (erofs/context.h); a caller makes one with
 * erofs_ctx_new() and reads it through the accessors below.
 */
struct erofs_ctx;

/*
 * Open an image: read and verify the superblock, compression records,
 * device table and long xattr prefixes, open extra devices, load the packed
 * and metabox inodes. On failure *out is NULL and err says why.
 */
int erofs_image_open(struct erofs_image **out, const struct erofs_open_opts *opts,
		     struct erofs_err *err);
void erofs_image_close(struct erofs_image *img);

/* Names of the feature bits set in the image, for reports. */
int erofs_feature_names(const struct erofs_image *img, char *buf, size_t len);

/*
 * A reading context for img, for one thread at a time; NULL without
 * memory. erofs_ctx_free() frees it and all it came to hold.
 */
struct erofs_ctx *erofs_ctx_new(struct erofs_image *img);
void erofs_ctx_free(struct erofs_ctx *ctx);

/* The image ctx reads, and its error record (erofs/error.h). */
struct erofs_image *erofs_ctx_image(const struct erofs_ctx *ctx);
struct erofs_err *erofs_ctx_err(struct erofs_ctx *ctx);

/* The context's counters since it was made or last reset. */
const struct erofs_ctx_stats *erofs_ctx_stats(const struct erofs_ctx *ctx);
void erofs_ctx_stats_reset(struct erofs_ctx *ctx);

/*
 * Resolve a data address to a device index and a byte offset inside that
 * device (add devs[dev].offset for the position in its file), checking that
 * [pa, pa + len) lies inside it.
 */
int erofs_dev_resolve(struct erofs_ctx *ctx, unsigned int devid, uint64_t pa,
		      uint64_t len, unsigned int *dev, uint64_t *fileoff,
		      uint64_t nid);

/* Size in bytes of a metadata space. */
uint64_t erofs_space_size(const struct erofs_image *img, enum erofs_space space);

#endif
