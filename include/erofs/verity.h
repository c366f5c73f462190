/* SPDX-License-Identifier: MIT */
/*
 * dm-verity hash trees (docs/format.md, "dm-verity hash trees"), in the
 * format veritysetup writes: a superblock, then the tree's levels from
 * the one below the root down to the leaves, which hold the digests of
 * the data blocks. The tree's upper levels are read and checked against
 * the root hash when it is opened and kept; each leaf block is checked
 * with the data blocks it covers, by whichever thread asks, so that the
 * leaves can be shared among workers.
 *
 * Thread safety: once opened, any number of threads may check leaves at
 * once.
 */
#ifndef EROFS_VERITY_H
#define EROFS_VERITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "erofs/error.h"
#include "erofs/hash.h"
#include "erofs/source.h"

#define EROFS_VERITY_SALT_MAX 256

/* What the superblock says, or what the caller knows without one. */
struct erofs_verity_info {
	uint32_t hash_type; /* 1: salt first; 0: salt last (Chrome OS) */
	char algorithm[32]; /* sha1, sha256, sha512 */
	uint32_t data_block_size, hash_block_size;
	uint64_t data_blocks;
	uint16_t salt_size;
	uint8_t salt[EROFS_VERITY_SALT_MAX];
	unsigned int levels;
	uint64_t leaf_blocks; /* hash blocks of the lowest level */
	uint64_t data_per_leaf; /* data blocks one leaf block covers */
};

struct erofs_verity_opts {
	const struct erofs_source *data; /* the data device: IMAGE */
	const struct erofs_source *hash; /* may be data itself */
	uint64_t hash_offset; /* the superblock's byte in hash, or the tree's */
	const uint8_t *root; /* the root hash expected */
	size_t root_len;
	/*
	 * A tree with no superblock (veritysetup --no-superblock, AVB): its
	 * parameters (hash type to salt; the rest is computed), and what
	 * gave them, for messages. NULL: read the superblock.
	 */
	const struct erofs_verity_info *params;
	const char *params_from;
};

struct erofs_verity;

/*
 * Read the superblock at hash_offset of hash (or take o->params) and check
 * it (version, algorithm, block sizes, the data inside data, the tree
 * inside hash and not over the data it covers when both are one), then
 * the tree's upper
 * levels against the root hash. -EFSCORRUPTED when the tree is damaged
 * or its root is not the one given (the message says both),
 * -EOPNOTSUPP for an algorithm this build does not compute, -EINVAL for
 * parameters no tree has.
 */
int erofs_verity_open(struct erofs_verity **out,
		      const struct erofs_verity_opts *o, struct erofs_err *err);
void erofs_verity_close(struct erofs_verity *v);

const struct erofs_verity_info *erofs_verity_info(const struct erofs_verity *v);

/*
 * Check every data block of leaf block leaf (0 .. leaf_blocks - 1) that
 * no read of a verity source checked (all of them when none was read),
 * the leaf first against the level above. The data blocks whose digest
 * differs go in bad (room for data_per_leaf), their count in *nbad; 0.
 * When the leaf itself fails, none of its data blocks can be checked:
 * -EFSCORRUPTED, err saying so. -EIO for a failed read.
 */
int erofs_verity_check_leaf(const struct erofs_verity *v, uint64_t leaf,
			    uint64_t *bad, size_t *nbad, struct erofs_err *err);

/*
 * A source that reads data (v's data device, which it takes over: closed
 * with it) through v, for every read of the image to go through: the
 * data blocks a read touches are read whole and each checked against
 * the tree as it is read, so that the bytes handed out are the bytes
 * checked, however the file changes meanwhile. A block that fails its
 * hash, or lies past the blocks the tree covers, fails the read
 * (-EFSCORRUPTED naming the block); its leaf hash block is checked
 * against the level above when first needed, and a few are kept.
 * Copies in the kernel are refused (erofs_extent_copy()): read instead.
 * v must outlive the source.
 */
int erofs_verity_source(struct erofs_source **out, struct erofs_source *data,
			const struct erofs_verity *v, struct erofs_err *err);

#endif
