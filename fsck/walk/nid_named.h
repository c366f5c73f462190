/* SPDX-License-Identifier: MIT */
/*
 * Is a nid the target of a directory entry of the tree? What tells a
 * --nid that starts no inode (a number mistyped, a usage error) from an
 * inode of the tree that is damaged (a problem of the image).
 */
#ifndef FSCK_NID_NAMED_H
#define FSCK_NID_NAMED_H

#include <stdint.h>

#include "erofs/image.h"

/*
 * Does an entry of a directory reachable from the root name nid? 1 or 0
 * (directories that cannot be read are passed over), -ENOMEM.
 */
int nid_named_in_tree(struct erofs_ctx *ctx, uint64_t nid);

#endif
