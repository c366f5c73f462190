// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "walk/nidset.h"

#define NIDSET_WORD_BITS 64
#define NIDSET_ARRAY_MIN 4

/* A chunk's members: a sorted array of offsets, or a bitmap (cap 0). */
struct nidset_chunk {
	void *data;
	uint16_t n; /* members of the array */
	uint16_t cap; /* room of the array; 0: data is a bitmap */
};

void nidset_init(struct nidset *s)
{
	nidmap_init(&s->chunks, sizeof(struct nidset_chunk));
}

void nidset_fini(struct nidset *s)
{
	size_t i;

	nidmap_for_each(&s->chunks, i)
		free(((struct nidset_chunk *)nidmap_val(&s->chunks, i))->data);
	nidmap_fini(&s->chunks);
}

static int bitmap_add(uint64_t *words, unsigned int off)
{
	uint64_t mask = 1ULL << (off % NIDSET_WORD_BITS);

	if (words[off / NIDSET_WORD_BITS] & mask)
		return 0;
	words[off / NIDSET_WORD_BITS] |= mask;
	return 1;
}

/* The array of c, full, becomes a bitmap. */
static int to_bitmap(struct nidset_chunk *c)
{
	uint64_t *words =
		calloc(NIDSET_CHUNK_NIDS / NIDSET_WORD_BITS, sizeof(*words));
	const uint16_t *offs = c->data;
	unsigned int i;

	if (!words)
		return -ENOMEM;
	for (i = 0; i < c->n; i++)
		bitmap_add(words, offs[i]);
	free(c->data);
	c->data = words;
	c->cap = 0;
	return 0;
}

/* Where off is, or goes, in the sorted array of c. */
static unsigned int array_index(const struct nidset_chunk *c, uint16_t off)
{
	const uint16_t *offs = c->data;
	unsigned int lo = 0, hi = c->n;

	/* walks mostly add nids in order: look at the end first */
	if (c->n && offs[c->n - 1] < off)
		return c->n;
	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (offs[mid] < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* 1 added, 0 there already, -ENOSPC full (a bitmap's turn), -ENOMEM */
static int array_add(struct nidset_chunk *c, uint16_t off)
{
	unsigned int i = array_index(c, off);
	uint16_t *offs = c->data;

	if (i < c->n && offs[i] == off)
		return 0;
	if (c->n == NIDSET_ARRAY_MAX)
		return -ENOSPC;
	if (c->n == c->cap) {
		unsigned int cap = c->cap + c->cap / 2;

		if (cap < NIDSET_ARRAY_MIN)
			cap = NIDSET_ARRAY_MIN;
		if (cap > NIDSET_ARRAY_MAX)
			cap = NIDSET_ARRAY_MAX;
		offs = realloc(c->data, cap * sizeof(*offs));
		if (!offs)
			return -ENOMEM;
		c->data = offs;
		c->cap = (uint16_t)cap;
	}
	memmove(offs + i + 1, offs + i, (c->n - i) * sizeof(*offs));
	offs[i] = off;
	c->n++;
	return 1;
}

int nidset_add(struct nidset *s, uint64_t nid)
{
	uint16_t off = (uint16_t)(nid & (NIDSET_CHUNK_NIDS - 1));
	struct nidset_chunk *c;
	int added, ret;

	c = nidmap_get(&s->chunks, nid >> NIDSET_CHUNK_BITS, &added);
	if (!c)
		return -ENOMEM;
	if (!c->data || c->cap) {
		ret = array_add(c, off);
		if (ret != -ENOSPC)
			return ret;
		if (to_bitmap(c))
			return -ENOMEM;
	}
	return bitmap_add(c->data, off);
}
