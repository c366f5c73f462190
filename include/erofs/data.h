/* SPDX-License-Identifier: MIT */
/*
 * Mapping file offsets to stored data, and reading file content.
 *
 * Every layout answers the same question through struct erofs_map: "which
 * extent holds file offset pos, and where are its bytes?". The data path
 * above it does not care whether the file is flat, chunk-based or
 * compressed.
 *
 * Thread safety: every call reads through the ctx it is given, which only
 * its own thread may use; any number of threads may map, read and copy
 * the same inode at once, each with its own context (image.h). A read of
 * a fragment shares the image's fragment cache, which is thread-safe
 * (fragments.h); erofs_extent_copy() writes to the caller's descriptor,
 * whose ranges the caller keeps apart.
 */
#ifndef EROFS_DATA_H
#define EROFS_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct erofs_ctx;
struct erofs_inode;

/* Where an extent's bytes are. */
enum erofs_loc {
	EROFS_LOC_HOLE = 0,	/* reads as zeros */
	EROFS_LOC_DEVICE,	/* pa: data byte address, device map.device */
	EROFS_LOC_META,		/* pa: position in the inode's metadata space */
	EROFS_LOC_FRAGMENT,	/* pa: offset in the packed inode's data */
};

/* How an extent's bytes are stored. Values 0-3 are the on-disk codec ids. */
enum erofs_fmt {
	EROFS_FMT_LZ4 = 0,
	EROFS_FMT_LZMA = 1,
	EROFS_FMT_DEFLATE = 2,
	EROFS_FMT_ZSTD = 3,
	EROFS_FMT_SHIFTED = 4,		/* raw, extent byte i at pcluster byte i */
	EROFS_FMT_INTERLACED = 5,	/* raw, rotated by la mod blksz */
	EROFS_FMT_MAX
};

#define EROFS_MAP_FULL_MAPPED 0x01	/* llen is exact */
#define EROFS_MAP_PARTIAL_REF 0x02	/* uses a prefix of its pcluster */
#define EROFS_MAP_ENCODED 0x04		/* from an encoded extent record */

struct erofs_map {
	uint64_t la;		/* extent start in the file */
	uint64_t llen;		/* extent length in the file */
	uint64_t pa;		/* see enum erofs_loc */
	uint64_t plen;		/* stored length in bytes */
	uint16_t device;	/* 0: unified space; n: extra device n */
	uint8_t loc;		/* enum erofs_loc */
	uint8_t fmt;		/* enum erofs_fmt */
	uint8_t flags;		/* EROFS_MAP_* */
	uint8_t space;		/* metadata space for EROFS_LOC_META */
};

/*
 * Map file offset pos (< i_size) of a regular file, directory or symlink.
 * Fills the extent containing pos. Extents of compressed files have exact
 * lengths and are clamped to i_size; flat files may return one extent for
 * their whole run of blocks. Returns 0 or a negative errno (ctx->err set).
 */
int erofs_map(struct erofs_ctx *ctx, const struct erofs_inode *inode,
	      uint64_t pos, struct erofs_map *map);

/*
 * Validate every lcluster record of a compressed inode's index; mapping
 * reads only the records it needs (lib/zmap/zmap_inode.c). Checkers call this.
 */
int z_erofs_check_index(struct erofs_ctx *ctx, const struct erofs_inode *inode);

/*
 * Bytes [la + skip, la + skip + len) of the extent described by map, into
 * out. map is one erofs_map() returned for inode: its lengths have passed
 * the extent sanity check, which this read relies on. When the request
 * covers the whole of a fully mapped extent that is not a partial
 * reference, the pcluster is decoded strictly: it must produce exactly
 * llen bytes and end where its stream ends.
 */
int erofs_extent_read(struct erofs_ctx *ctx, const struct erofs_inode *inode,
		      const struct erofs_map *map, uint64_t skip, void *out,
		      size_t len);

/*
 * erofs_extent_read(), but a fragment whose packed extent another thread
 * is decoding (the fragment cache) comes back -EAGAIN at once rather than
 * wait for it, with nothing recorded in the context's error and the bytes
 * of out undefined: the caller may do other work meanwhile and read
 * again, or read with erofs_extent_read() to wait.
 */
int erofs_extent_read_nowait(struct erofs_ctx *ctx,
			     const struct erofs_inode *inode,
			     const struct erofs_map *map, uint64_t skip,
			     void *out, size_t len);

/* Do the extent's bytes have to be decoded (a codec's pcluster)? */
static inline bool erofs_extent_encoded(const struct erofs_map *map)
{
	return map->loc != EROFS_LOC_HOLE && map->fmt < EROFS_FMT_SHIFTED;
}

/*
 * Can erofs_extent_copy() copy the extent? Its bytes must be stored raw
 * and unrotated on a device (format.md, "Raw pclusters").
 */
static inline bool erofs_extent_copyable(const struct erofs_map *map)
{
	return map->loc == EROFS_LOC_DEVICE && map->fmt == EROFS_FMT_SHIFTED;
}

/* erofs_extent_copy(): the kernel cannot copy here, read the bytes */
#define EROFS_COPY_REFUSED 1

/*
 * Copy bytes [la + skip, la + skip + len) of a copyable extent (map is
 * one erofs_map() returned for inode) to byte off of the caller's file fd,
 * in the kernel (copy_file_range), bounded as erofs_extent_read() is.
 * Returns 0 when copied; EROFS_COPY_REFUSED when the kernel cannot copy
 * between these files (what it copied is then to be written again from
 * erofs_extent_read()); or a negative errno, with ctx->err filled: a
 * failure of the image as erofs_extent_read() records it, or, with
 * ctx->err.output set, the errno of the copy itself, which is taken for a
 * failure of fd, as a write's would be: the kernel does not say which
 * side failed, and the image's side was bounded first.
 */
int erofs_extent_copy(struct erofs_ctx *ctx, const struct erofs_inode *inode,
		      const struct erofs_map *map, uint64_t skip, uint64_t len,
		      int fd, uint64_t off);

/*
 * The byte offset in the primary image of byte pos of an inode's data, for
 * messages, or EROFS_NO_OFFSET when it has none there: a hole, compressed
 * data, bytes on an extra device or in the metabox or packed inode, or a
 * position that cannot be mapped. Never changes ctx->err, so that it may
 * be called while an error is being recorded or reported.
 */
uint64_t erofs_pos_offset(struct erofs_ctx *ctx,
			  const struct erofs_inode *inode, uint64_t pos);

/*
 * Read len bytes at offset off of a file's content into buf. Returns the
 * number of bytes read (short only at end of file) or a negative errno.
 */
ssize_t erofs_pread(struct erofs_ctx *ctx, const struct erofs_inode *inode,
		    void *buf, size_t len, uint64_t off);

#endif
