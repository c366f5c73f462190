/* SPDX-License-Identifier: MIT */
/*
 * A hash map from nid to a small fixed-size value, for the walker's visited
 * set and link counts and the manifest's link groups. Memory grows with the
 * number of distinct nids inserted, which the image itself bounds.
 */
#ifndef FSCK_NIDMAP_H
#define FSCK_NIDMAP_H

#include <stddef.h>
#include <stdint.h>

struct nidmap {
	uint64_t *keys;
	uint8_t *used;
	uint8_t *vals;
	size_t valsize;
	size_t cap;		/* a power of two, or 0 */
	size_t count;
};

void nidmap_init(struct nidmap *m, size_t valsize);
void nidmap_fini(struct nidmap *m);

/* The value of nid, or NULL if absent. */
void *nidmap_find(const struct nidmap *m, uint64_t nid);

/*
 * The value of nid, inserted zero-filled if absent (*added tells which).
 * NULL when memory runs out. Pointers stay valid until the next insertion.
 */
void *nidmap_get(struct nidmap *m, uint64_t nid, int *added);

/* Visit every entry, in no particular order. */
#define nidmap_for_each(m, i) \
	for ((i) = 0; (i) < (m)->cap; (i)++) \
		if ((m)->used[i])

static inline uint64_t nidmap_key(const struct nidmap *m, size_t i)
{
	return m->keys[i];
}

static inline void *nidmap_val(const struct nidmap *m, size_t i)
{
	return m->vals + i * m->valsize;
}

#endif
