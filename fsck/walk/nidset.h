/* SPDX-License-Identifier: MIT */
/*
 * A set of nids as a sparse bitmap: one bit per nid, in blocks of
 * NIDSET_BLOCK_BITS consecutive nids held in a nidmap by block number.
 * Inodes lie at consecutive nids, so in an ordinary image a block is full
 * and a member costs a bit plus its block's share of a map entry: well
 * under a byte. Memory grows with the number of distinct blocks touched,
 * at most one per member, which the image itself bounds.
 */
#ifndef FSCK_NIDSET_H
#define FSCK_NIDSET_H

#include <stdint.h>

#include "nidmap.h"

#define NIDSET_BLOCK_BITS 512

struct nidset {
	struct nidmap blocks;	/* nid / NIDSET_BLOCK_BITS -> bits */
};

void nidset_init(struct nidset *s);
void nidset_fini(struct nidset *s);

/*
 * Add nid: 1 if it was added, 0 if it was already there, -ENOMEM when
 * memory runs out.
 */
int nidset_add(struct nidset *s, uint64_t nid);

#endif
