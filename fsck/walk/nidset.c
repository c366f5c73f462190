// SPDX-License-Identifier: MIT
#include <errno.h>

#include "nidset.h"

#define NIDSET_WORD_BITS 64

void nidset_init(struct nidset *s)
{
	nidmap_init(&s->blocks, NIDSET_BLOCK_BITS / 8);
}

void nidset_fini(struct nidset *s)
{
	nidmap_fini(&s->blocks);
}

int nidset_add(struct nidset *s, uint64_t nid)
{
	unsigned int bit = nid % NIDSET_BLOCK_BITS;
	uint64_t *words, mask;
	int added;

	words = nidmap_get(&s->blocks, nid / NIDSET_BLOCK_BITS, &added);
	if (!words)
		return -ENOMEM;
	mask = 1ULL << (bit % NIDSET_WORD_BITS);
	if (words[bit / NIDSET_WORD_BITS] & mask)
		return 0;
	words[bit / NIDSET_WORD_BITS] |= mask;
	return 1;
}
