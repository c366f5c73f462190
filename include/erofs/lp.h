/* SPDX-License-Identifier: MIT */
/*
 * Android super images: the logical partition ("LP") metadata that says
 * where system, vendor, product... lie inside super (docs/android.md,
 * "Super images"), read from a source (erofs/source.h), raw or sparse,
 * and a partition made a source of its own.
 *
 * Thread safety: a struct erofs_lp is read-only once read.
 */
#ifndef EROFS_LP_H
#define EROFS_LP_H

#include <stdbool.h>
#include <stdint.h>

#include "erofs/error.h"
#include "erofs/source.h"

#define EROFS_LP_NAME_MAX 36
#define EROFS_LP_SECTOR 512

/* Partition attributes. */
enum {
	EROFS_LP_READONLY = 1 << 0,
	EROFS_LP_SLOT_SUFFIXED = 1 << 1,
	EROFS_LP_UPDATED = 1 << 2,
	EROFS_LP_DISABLED = 1 << 3,
};

enum erofs_lp_target {
	EROFS_LP_LINEAR = 0,	/* sectors of a block device */
	EROFS_LP_ZERO = 1,	/* zeros */
};

struct erofs_lp_extent {
	uint64_t sectors;
	enum erofs_lp_target type;
	uint64_t target;	/* LINEAR: first sector on the block device */
	uint32_t device;	/* LINEAR: index in the block device table */
};

struct erofs_lp_partition {
	char name[EROFS_LP_NAME_MAX + 1];
	uint32_t attrs;
	uint32_t group;		/* index in the group table */
	uint32_t first_extent;	/* index in the extent table */
	uint32_t extents;
	uint64_t size;		/* bytes: the sum of its extents */
};

struct erofs_lp_group {
	char name[EROFS_LP_NAME_MAX + 1];
	uint32_t flags;
	uint64_t max_size;	/* bytes, 0: no limit */
};

struct erofs_lp_device {
	char name[EROFS_LP_NAME_MAX + 1];	/* its partition in the GPT */
	uint64_t first_sector;	/* first sector for partitions */
	uint64_t size;		/* bytes */
	uint32_t flags;
};

struct erofs_lp {
	uint16_t major, minor;		/* metadata version */
	uint32_t slots;			/* metadata slots */
	uint32_t slot;			/* the slot read */
	uint32_t max_size;		/* of one copy of the metadata */
	uint32_t block_size;		/* logical block size */
	uint32_t header_flags;

	/*
	 * The primary geometry or metadata was damaged and the backup was
	 * read: damage says what was wrong with the primary.
	 */
	bool used_backup;
	struct erofs_err damage;

	struct erofs_lp_partition *parts;
	uint32_t nparts;
	struct erofs_lp_extent *extents;
	uint32_t nextents;
	struct erofs_lp_group *groups;
	uint32_t ngroups;
	struct erofs_lp_device *devices;
	uint32_t ndevices;
};

/*
 * Does src hold LP geometry (a super image)? Reads its magic: 1 or 0, or
 * the negative errno of a failed read (err says why).
 */
int erofs_lp_detect(const struct erofs_source *src, struct erofs_err *err);

/*
 * Read and check the metadata of slot slot (0 for _a, 1 for _b; a super
 * image of one metadata slot has slot 0 only): the geometry, the header
 * and the tables with their SHA-256 checksums, every table bound, every
 * extent against its block device and every other extent. A damaged
 * primary copy falls back to the backup (lp->used_backup). src must hold
 * block device 0, the one with the metadata.
 */
int erofs_lp_read(struct erofs_lp **out, const struct erofs_source *src,
		  uint32_t slot, struct erofs_err *err);
void erofs_lp_free(struct erofs_lp *lp);

/*
 * The partition called name, or name with the suffix of slot ('a', 'b';
 * 0 for none given): with no slot given, the one of name_a and name_b
 * that holds anything, if only one does. -ENOENT or -EINVAL with a message
 * saying which names there are.
 */
int erofs_lp_find(const struct erofs_lp *lp, const char *name, char slot,
		  const struct erofs_lp_partition **out, struct erofs_err *err);

/*
 * A source of the partition's bytes, its extents in a row, read from src
 * (block device 0). An extent on another block device, or past the end of
 * src, fails.
 */
int erofs_lp_open_partition(struct erofs_source **out,
			    const struct erofs_source *src,
			    const struct erofs_lp *lp,
			    const struct erofs_lp_partition *part,
			    struct erofs_err *err);

#endif
