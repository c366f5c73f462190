/* SPDX-License-Identifier: MIT */
/*
 * Inodes: compact and extended on-disk inodes decoded into one struct.
 * erofs_read_inode() touches only the context's cache; the result is a
 * plain value that any thread may read.
 */
#ifndef EROFS_INODE_H
#define EROFS_INODE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct erofs_ctx;

/*
 * Compression state parsed from the map header (format.md, "Map header") at
 * inode read.
 */
struct z_erofs_info {
	uint16_t advise;
	uint8_t algs[2];		/* HEAD1, HEAD2 algorithms */
	uint8_t lclusterbits;
	bool whole_fragment;		/* the whole file is in the packed inode */
	bool extents;			/* format.md, "Encoded extents" */
	uint8_t recsz;			/* encoded extent record size */
	uint16_t idata_size;		/* inline pcluster size */
	uint64_t fragmentoff;		/* tail/whole fragment offset */
	uint64_t nextents;		/* encoded extents with recsz >= 16 */
	uint64_t hpos;			/* map header position in its space */
	uint64_t records;		/* first record/pack position */
	/* tail handling, computed at init */
	uint64_t tailhead_lcn;		/* lcluster of the tail HEAD */
	uint64_t tail_la;		/* where the tail extent starts */
	uint64_t idata_pos;		/* inline pcluster position */
	bool has_tailhead;
	/* recsz 4: base address before record 0 */
	uint64_t rec4_base;
};

struct erofs_inode {
	uint64_t nid;
	int space;			/* enum erofs_space holding the inode */
	uint64_t addr;			/* byte position in that space */
	uint16_t format;		/* raw i_format */
	uint8_t layout;			/* enum erofs_datalayout */
	bool extended;
	uint8_t inode_size;		/* 32 or 64 */

	uint16_t mode;
	uint32_t nlink;
	uint64_t size;
	uint32_t uid;
	uint32_t gid;
	int64_t mtime;
	uint32_t mtime_nsec;
	uint32_t ino;
	uint32_t rdev;			/* raw on-disk encoding */
	bool dot_omitted;		/* directories only */

	uint16_t xattr_icount;
	uint32_t xattr_isize;		/* inline xattr region size */
	uint64_t xattr_pos;		/* region start (iend) */
	uint64_t meta_end;		/* iend + xattr_isize (mend) */

	/* FLAT_PLAIN / FLAT_INLINE */
	uint64_t startblk;
	bool startblk_null;		/* the hole marker */
	/* CHUNK_BASED */
	uint16_t chunkformat;
	uint8_t chunkbits;		/* log2(chunk size) in bytes */
	uint64_t chunk_pos;		/* chunk array position in its space */
	/* COMPRESSED_* */
	uint64_t compressed_blocks;
	struct z_erofs_info z;
};

static inline bool erofs_inode_is_compressed(const struct erofs_inode *inode)
{
	return inode->layout == 1 /* COMPRESSED_FULL */ ||
	       inode->layout == 3 /* COMPRESSED_COMPACT */;
}

/*
 * Read and validate the inode at nid (bit 63: in the metabox). Checks the
 * format bits, the type, the layout against the type, the sizes, and that
 * the inode, its xattr region and its layout payload lie inside its space.
 * Compressed inodes also get their map header parsed (z_erofs_init_inode).
 */
int erofs_read_inode(struct erofs_ctx *ctx, uint64_t nid,
		     struct erofs_inode *inode);

/* major/minor of a device inode's rdev (Linux "new" encoding). */
static inline unsigned int erofs_rdev_major(uint32_t rdev)
{
	return (rdev >> 8) & 0xfff;
}

static inline unsigned int erofs_rdev_minor(uint32_t rdev)
{
	return (rdev & 0xff) | ((rdev >> 12) & 0xfff00);
}

/* enum erofs_file_type matching an inode mode, EROFS_FT_UNKNOWN if none. */
unsigned int erofs_mode_to_ftype(uint16_t mode);

#endif
