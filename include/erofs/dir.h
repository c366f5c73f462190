/* SPDX-License-Identifier: MIT */
/*
 * Directories: parsing and validating directory blocks, iterating a
 * directory, looking up paths.
 *
 * Thread safety: erofs_dir_parse_block() and erofs_name_cmp() touch only
 * their arguments and may be called from any thread; erofs_dir_iterate()
 * and erofs_lookup() read through their ctx, one thread per context, and
 * the iterator's callback runs on the calling thread.
 */
#ifndef EROFS_DIR_H
#define EROFS_DIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "erofs/error.h"

struct erofs_ctx;
struct erofs_inode;

struct erofs_dirent {
	uint64_t nid;
	uint8_t file_type;	/* enum erofs_file_type */
	uint8_t namelen;	/* 1..255 */
	uint8_t reserved;	/* raw reserved byte; non-zero deserves a warning */
	const char *name;	/* namelen bytes, not NUL-terminated */
	uint64_t pos;		/* byte offset of the dirent in the directory */
};

/*
 * Called for each entry in name order. Returning non-zero stops the
 * iteration and is returned by the iterator (positive values are free for
 * callers; negative ones are errors).
 */
typedef int (*erofs_dirent_fn)(void *arg, const struct erofs_dirent *de);

/*
 * Validate one directory block of maxsize usable bytes (format.md, "Directory
 * blocks"): nameoff0, increasing nameoffs, name lengths and bounds, no '/' or
 * NUL in names, file types, strict order inside the block. Calls fn for every
 * entry, '.' and '..' included. blkpos is the block's offset in the directory,
 * for dirent positions and error records.
 */
int erofs_dir_parse_block(const uint8_t *blk, unsigned int maxsize,
			  uint64_t nid, uint64_t blkpos, erofs_dirent_fn fn,
			  void *arg, struct erofs_err *err);

/*
 * Iterate a whole directory: every block validated as above, order checked
 * across blocks (so names are unique), '.' present once and pointing to the
 * directory unless it is dot-omitted, '..' present once and pointing to
 * parent_nid (pass EROFS_NO_NID to skip that check). fn sees every other
 * entry, never '.' or '..'.
 */
int erofs_dir_iterate(struct erofs_ctx *ctx, const struct erofs_inode *dir,
		      uint64_t parent_nid, erofs_dirent_fn fn, void *arg);

/*
 * Find the nid of path ('/'-separated, relative to the root; "" or "/" is
 * the root). -ENOENT if a component is missing, -ENOTDIR if one is not a
 * directory.
 */
int erofs_lookup(struct erofs_ctx *ctx, const char *path, uint64_t *nid);

/* Compare two names as the format orders them (format.md, "Name order"). */
int erofs_name_cmp(const char *a, unsigned int alen, const char *b,
		   unsigned int blen);

#endif
