/* SPDX-License-Identifier: MIT */
/*
 * --verity=HASHFILE (or --hash-offset=N: the tree in IMAGE) with
 * --root-hash=HEX, or the tree IMAGE carries (an AVB footer, a GPT verity
 * partition): every data block of IMAGE checked against a dm-verity hash
 * tree (erofs/verity.h), and each block that fails named by what uses it.
 *
 * verity_open() checks the tree's upper levels against the root hash and
 * puts a verity source in place of IMAGE's, before the image is opened:
 * from then on every read of the image checks the blocks it reads, as
 * it reads them, so that a block that fails is a read that fails (the
 * file, directory or inode that needed it reported and left out, as
 * damage is), and what the outputs get is what was checked.
 * verity_cover() then checks that the tree covers the filesystem.
 *
 * After the walk, the blocks no read checked are swept by
 * verity_leaf_task(), a leaf block at a time on the workers, and
 * verity_sort() reports those that fail: each block is hashed once,
 * whatever read it.
 */
#ifndef FSCK_VERITY_H
#define FSCK_VERITY_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "container/container.h"
#include "erofs/verity.h"
#include "util/report.h"

struct erofs_image;
struct fsck_cfg;

struct verity_check {
	struct erofs_verity *v;
	/* a tree was to be checked, and could not be: none is used */
	bool unusable;
	struct erofs_source *hash; /* HASHFILE's, if not IMAGE's */
	uint32_t block_size; /* of the data blocks */
	uint64_t fs_covered; /* bytes of the filesystem the tree covers */
	pthread_mutex_t lock; /* of what the leaf tasks add */
	uint64_t *bad; /* data blocks that fail, sorted after */
	size_t nbad, capbad;
	uint64_t *bad_leaves; /* leaves that fail: their blocks unchecked */
	size_t nbad_leaves, capleaves;
	int read_error; /* the first failed read, errno */
};

/*
 * Open the tree the options name (--verity or --hash-offset), else the
 * one IMAGE carries (carried, unless --no-verity; --root-hash overrides
 * its root hash), for the data device *src, which becomes a source that
 * checks every read against it: 0, 1 when there is no tree to check, or
 * a negative errno after reporting why (a tree whose root differs, or
 * that the image carries with parameters no tree has, is a problem:
 * -EFSCORRUPTED; *src is then left as it was).
 */
int verity_open(struct verity_check *vc, const struct fsck_cfg *cfg,
		struct erofs_source **src, struct report *rep,
		struct container_verity *carried);

/*
 * Once img is open on that source: --hash-offset inside the filesystem
 * is a usage error (-EINVAL), a tree that covers fewer bytes than the
 * filesystem's blocks a problem reported; vc->fs_covered says how many
 * it covers. 0 otherwise.
 */
int verity_cover(struct verity_check *vc, const struct fsck_cfg *cfg,
		 const struct erofs_image *img, struct report *rep);
void verity_close(struct verity_check *vc);

/*
 * After the image failed to open through the tree of --verity with
 * --offset: when the tree covers less than IMAGE (image_size bytes) from
 * its start, say it
 * may have been made for the filesystem alone, which it then does not
 * fit (it covers IMAGE's bytes from 0, not from the offset).
 */
void verity_offset_hint(const struct verity_check *vc,
			const struct fsck_cfg *cfg, uint64_t image_size,
			struct report *rep);

/* The leaf blocks to check: verity_leaf_task() takes each index. */
uint64_t verity_leaves(const struct verity_check *vc);

/* A pool task: arg is a struct verity_leaf. */
struct verity_leaf {
	struct verity_check *vc;
	uint64_t leaf;
};
int verity_leaf_task(void *worker, void *arg);

/*
 * After every leaf task: report the leaves that failed, read errors, and
 * the data blocks that failed, which no read of the run met (decoded:
 * whether the run read file data, which says what they can be).
 */
int verity_sort(struct verity_check *vc, struct report *rep, bool decoded);

#endif
