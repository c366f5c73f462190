/* SPDX-License-Identifier: MIT */
/*
 * Checking inodes: the walker's visitor for `fsck.erofs IMAGE`.
 *
 * For every inode: the fields the library leaves to the checker, the
 * xattrs, then the data. Every extent of a regular file, directory or
 * symlink is mapped from offset 0 to i_size (the mapping validates the
 * indexes and the device bounds); with --extract (no directory),
 * --xattr-inode-digest or --manifest, regular files are also decoded,
 * pcluster by pcluster, strictly. Symlink targets are always read.
 */
#ifndef FSCK_CHECK_H
#define FSCK_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "erofs/hash.h"
#include "fsck.h"
#include "nidmap.h"
#include "report.h"
#include "walk.h"

struct erofs_ctx;
struct erofs_inode;
struct manifest;

struct checker {
	struct erofs_ctx *ctx;
	struct report *rep;
	const struct fsck_cfg *cfg;
	struct manifest *manifest;	/* NULL unless --manifest */

	uint8_t *buf;			/* one decoded extent or piece */
	size_t bufsize;

	/*
	 * For -p, in blocks, counted as upstream fsck.erofs does: once per
	 * name, so a file with three names counts three times.
	 */
	uint64_t logical_blocks;
	uint64_t physical_blocks;
	struct nidmap linked_physical;	/* stored bytes of linked files */
	uint64_t digests_checked;
};

void checker_init(struct checker *ck, struct erofs_ctx *ctx,
		  struct report *rep, const struct fsck_cfg *cfg,
		  struct manifest *manifest);
void checker_fini(struct checker *ck);

/* The visitor to hand to walk_tree(). */
void checker_visitor(struct checker *ck, struct walk_visitor *v);

/*
 * Check the packed and metabox inodes, which no directory lists: their
 * extents, and with --extract their decoded content. Returns 0 or a
 * negative errno when the check cannot go on.
 */
int check_special_inodes(struct checker *ck);

#endif
