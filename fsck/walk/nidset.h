/* SPDX-License-Identifier: MIT */
/*
 * A set of nids, in chunks of NIDSET_CHUNK_NIDS consecutive nids held in
 * a nidmap by chunk number. A chunk of few members keeps them as a sorted
 * array of 16-bit offsets (2 bytes each); one of more than
 * NIDSET_ARRAY_MAX members, where the array would outgrow it, becomes a
 * bitmap of the chunk (1 bit per nid). So a member costs at most about 3
 * bytes (the array, with the room it grows by) plus its chunk's share of
 * a map entry however far apart inodes lie: 32-byte inodes in a row, or
 * inodes with 2 KiB of inline data between them.
 */
#ifndef FSCK_NIDSET_H
#define FSCK_NIDSET_H

#include <stdint.h>

#include "util/nidmap.h"

#define NIDSET_CHUNK_BITS 12
#define NIDSET_CHUNK_NIDS (1u << NIDSET_CHUNK_BITS)
/* an array of more would take more than the chunk's bitmap */
#define NIDSET_ARRAY_MAX (NIDSET_CHUNK_NIDS / 16)

struct nidset {
	struct nidmap chunks;	/* nid >> NIDSET_CHUNK_BITS -> nidset_chunk */
};

void nidset_init(struct nidset *s);
void nidset_fini(struct nidset *s);

/*
 * Add nid: 1 if it was added, 0 if it was already there, -ENOMEM when
 * memory runs out.
 */
int nidset_add(struct nidset *s, uint64_t nid);

#endif
