// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "manifest.h"
#include "nidmap.h"
#include "strbuf.h"

struct mf_entry {
	char *path;
	size_t pathlen;
	uint64_t nid;
	size_t src;		/* the entry that holds body and xattrs */
	bool linked;
	char *body;		/* NULL unless src is this entry */
	char *xattrs;
};

struct manifest {
	struct mf_entry *e;
	size_t n, cap;
	struct nidmap first;	/* nid -> index of its first entry */
};

struct manifest *manifest_new(void)
{
	struct manifest *m = calloc(1, sizeof(*m));

	if (m)
		nidmap_init(&m->first, sizeof(size_t));
	return m;
}

void manifest_free(struct manifest *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->n; i++) {
		free(m->e[i].path);
		free(m->e[i].body);
		free(m->e[i].xattrs);
	}
	free(m->e);
	nidmap_fini(&m->first);
	free(m);
}

static struct mf_entry *manifest_new_entry(struct manifest *m,
					   const char *rel, size_t rellen,
					   uint64_t nid)
{
	struct mf_entry *e;

	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 1024;

		e = realloc(m->e, cap * sizeof(*e));
		if (!e)
			return NULL;
		m->e = e;
		m->cap = cap;
	}
	e = &m->e[m->n];
	memset(e, 0, sizeof(*e));
	e->path = malloc(rellen + 1);
	if (!e->path)
		return NULL;
	memcpy(e->path, rel, rellen);
	e->path[rellen] = '\0';
	e->pathlen = rellen;
	e->nid = nid;
	e->src = m->n++;
	return e;
}

int manifest_add(struct manifest *m, const char *rel, size_t rellen,
		 uint64_t nid, bool linked, const char *body,
		 const char *xattrs)
{
	struct mf_entry *e;
	size_t *first;
	int added;

	first = nidmap_get(&m->first, nid, &added);
	if (!first)
		return -ENOMEM;
	e = manifest_new_entry(m, rel, rellen, nid);
	if (!e)
		return -ENOMEM;
	if (added)
		*first = e->src;
	e->linked = linked;
	e->body = strdup(body);
	e->xattrs = strdup(xattrs);
	if (!e->body || !e->xattrs)
		return -ENOMEM;
	return 0;
}

int manifest_add_name(struct manifest *m, const char *rel, size_t rellen,
		      uint64_t nid)
{
	const size_t *first = nidmap_find(&m->first, nid);
	struct mf_entry *e;

	if (!first)
		return -ENOENT;
	e = manifest_new_entry(m, rel, rellen, nid);
	if (!e)
		return -ENOMEM;
	e->src = *first;
	return 0;
}

/* Raw byte order: memcmp on the common length, then shorter first. */
static int mf_path_cmp(const void *a, const void *b)
{
	const struct mf_entry *x = *(const struct mf_entry *const *)a;
	const struct mf_entry *y = *(const struct mf_entry *const *)b;
	size_t n = x->pathlen < y->pathlen ? x->pathlen : y->pathlen;
	int c = memcmp(x->path, y->path, n);

	if (c)
		return c;
	return x->pathlen < y->pathlen ? -1 : x->pathlen > y->pathlen;
}

static void mf_add_path(struct strbuf *sb, const struct mf_entry *e)
{
	if (e->pathlen)
		sb_escape(sb, e->path, e->pathlen, NULL);
	else
		sb_addc(sb, '.');
}

static int mf_line(struct manifest *m, struct mf_entry **sorted, size_t i,
		   struct nidmap *groups, struct strbuf *sb)
{
	const struct mf_entry *e = sorted[i];
	const struct mf_entry *src = &m->e[e->src];
	size_t *leader;
	int added;

	sb_reset(sb);
	mf_add_path(sb, e);
	sb_addf(sb, " %s ", src->body);
	if (src->linked) {
		leader = nidmap_get(groups, e->nid, &added);
		if (!leader)
			return -ENOMEM;
		if (added)
			*leader = i;
		mf_add_path(sb, sorted[*leader]);
	} else {
		sb_addc(sb, '-');
	}
	sb_addf(sb, " %s\n", src->xattrs);
	return sb->failed ? -ENOMEM : 0;
}

int manifest_print(struct manifest *m, FILE *out)
{
	struct strbuf sb = STRBUF_INIT;
	struct mf_entry **sorted;
	struct nidmap groups;
	size_t i;
	int ret = 0;

	sorted = malloc((m->n ? m->n : 1) * sizeof(*sorted));
	if (!sorted)
		return -ENOMEM;
	for (i = 0; i < m->n; i++)
		sorted[i] = &m->e[i];
	qsort(sorted, m->n, sizeof(*sorted), mf_path_cmp);

	/* sorted order makes the first name of a group its smallest */
	nidmap_init(&groups, sizeof(size_t));
	for (i = 0; i < m->n && !ret; i++) {
		ret = mf_line(m, sorted, i, &groups, &sb);
		if (!ret && fwrite(sb.s, 1, sb.len, out) != sb.len)
			ret = -errno;
	}
	if (!ret && fflush(out))
		ret = -errno;
	nidmap_fini(&groups);
	sb_release(&sb);
	free(sorted);
	return ret;
}
