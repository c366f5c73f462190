// SPDX-License-Identifier: MIT
#include <stdlib.h>
#include <string.h>

#include "util/nidmap.h"

#define NIDMAP_MIN_CAP 64

static size_t nidmap_hash(uint64_t nid)
{
	nid ^= nid >> 33;
	nid *= 0xff51afd7ed558ccdULL;
	nid ^= nid >> 33;
	nid *= 0xc4ceb9fe1a85ec53ULL;
	nid ^= nid >> 33;
	return (size_t)nid;
}

void nidmap_init(struct nidmap *m, size_t valsize)
{
	memset(m, 0, sizeof(*m));
	m->valsize = valsize;
}

void nidmap_fini(struct nidmap *m)
{
	free(m->keys);
	free(m->used);
	free(m->vals);
	nidmap_init(m, m->valsize);
}

static size_t nidmap_slot(const struct nidmap *m, uint64_t nid)
{
	size_t mask = m->cap - 1;
	size_t i = nidmap_hash(nid) & mask;

	while (m->used[i] && m->keys[i] != nid)
		i = (i + 1) & mask;
	return i;
}

void *nidmap_find(const struct nidmap *m, uint64_t nid)
{
	size_t i;

	if (!m->count)
		return NULL;
	i = nidmap_slot(m, nid);
	return m->used[i] ? nidmap_val(m, i) : NULL;
}

static int nidmap_grow(struct nidmap *m)
{
	struct nidmap n = *m;
	size_t i, j;

	n.cap = m->cap ? m->cap * 2 : NIDMAP_MIN_CAP;
	if (n.cap > SIZE_MAX / sizeof(*n.keys) ||
	    (m->valsize && n.cap > SIZE_MAX / m->valsize))
		return -1;
	n.keys = malloc(n.cap * sizeof(*n.keys));
	n.used = calloc(n.cap, 1);
	n.vals = calloc(n.cap, m->valsize ? m->valsize : 1);
	if (!n.keys || !n.used || !n.vals) {
		free(n.keys);
		free(n.used);
		free(n.vals);
		return -1;
	}
	nidmap_for_each(m, i) {
		j = nidmap_slot(&n, m->keys[i]);
		n.used[j] = 1;
		n.keys[j] = m->keys[i];
		memcpy(nidmap_val(&n, j), nidmap_val(m, i), m->valsize);
	}
	free(m->keys);
	free(m->used);
	free(m->vals);
	*m = n;
	return 0;
}

void *nidmap_get(struct nidmap *m, uint64_t nid, int *added)
{
	size_t i;

	*added = 0;
	if (m->count) {
		i = nidmap_slot(m, nid);
		if (m->used[i])
			return nidmap_val(m, i);
	}
	/* keep the load factor at or below 1/2 */
	if ((m->count + 1) * 2 > m->cap && nidmap_grow(m))
		return NULL;
	i = nidmap_slot(m, nid);
	m->used[i] = 1;
	m->keys[i] = nid;
	m->count++;
	*added = 1;
	return nidmap_val(m, i);
}
