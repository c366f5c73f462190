/* SPDX-License-Identifier: MIT */
/* Where a container's dm-verity tree lies (container.h, container_verity). */
#ifndef FSCK_CONTAINER_TREE_H
#define FSCK_CONTAINER_TREE_H

#include "container/container.h"

/*
 * The verity partition paired with GPT partition part of disk, if there
 * is one, into tree: 0 (tree->found says whether), or a negative errno
 * with err set: -EFSCORRUPTED when two partitions could be the tree or
 * its signature, or when the signature's root hash does not pair with
 * the partitions' UUIDs.
 */
int tree_of_gpt(const struct erofs_source *disk, const struct erofs_gpt *gpt,
		const struct erofs_gpt_part *part,
		struct container_verity *tree, struct erofs_err *err);

/*
 * An AVB hashtree footer at the end of src, if it has one, into tree:
 * 0 (tree->found says whether; a damaged footer is reported as a
 * problem and leaves it unset), or a negative errno after reporting.
 */
int tree_of_avb(struct report *rep, const struct erofs_source *src,
		struct container_verity *tree);

#endif
