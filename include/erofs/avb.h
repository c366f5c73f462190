/* SPDX-License-Identifier: MIT */
/*
 * Android Verified Boot's hashtree footer (docs/android.md, "AVB hashtree
 * footers"): a partition image that ends with a footer pointing at a
 * vbmeta blob whose hashtree descriptor gives a dm-verity tree stored in
 * the partition after the filesystem, without a superblock. Only what
 * checking that tree needs is read; the vbmeta's signature is not
 * checked, so its root digest is only as trustworthy as the image.
 */
#ifndef EROFS_AVB_H
#define EROFS_AVB_H

#include <stdbool.h>
#include <stdint.h>

#include "erofs/error.h"
#include "erofs/source.h"
#include "erofs/verity.h"

#define EROFS_AVB_NAME_MAX 64

struct erofs_avb_hashtree {
	struct erofs_verity_info params; /* hash type 1, no superblock */
	uint64_t tree_offset, tree_size; /* bytes of the partition */
	uint64_t vbmeta_offset;
	uint8_t root[EROFS_DIGEST_MAX];
	size_t root_len;
	char partition[EROFS_AVB_NAME_MAX]; /* as the descriptor names it */
	bool signed_vbmeta; /* it carries a signature (not checked) */
};

/*
 * Does src end with an AVB footer whose vbmeta has a hashtree
 * descriptor? 1 with *out filled; 0 when src has no footer, or a footer
 * with no hashtree (a boot image's hash descriptor); -EFSCORRUPTED for a
 * footer, vbmeta or descriptor that points past the partition or does
 * not add up; -EOPNOTSUPP for a version this build does not read.
 */
int erofs_avb_find_hashtree(const struct erofs_source *src,
			    struct erofs_avb_hashtree *out,
			    struct erofs_err *err);

#endif
