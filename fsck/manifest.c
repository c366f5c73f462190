// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "erofs/hash.h"
#include "erofs/inode.h"
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

struct mf_xattr {
	char *name;
	size_t namelen;
	char *text;		/* name=hexvalue, escaped */
};

int mf_xattrs_add(struct mf_xattrs *xl, const char *name, size_t namelen,
		  const void *value, size_t value_len)
{
	struct strbuf sb = STRBUF_INIT;
	struct mf_xattr *it;

	if (xl->n == xl->cap) {
		size_t cap = xl->cap ? xl->cap * 2 : 16;

		it = realloc(xl->items, cap * sizeof(*it));
		if (!it)
			return -ENOMEM;
		xl->items = it;
		xl->cap = cap;
	}
	sb_escape(&sb, name, namelen, ",=");
	sb_addc(&sb, '=');
	sb_hex(&sb, value, value_len);
	it = &xl->items[xl->n];
	it->text = sb_detach(&sb);
	it->name = malloc(namelen ? namelen : 1);
	if (!it->text || !it->name) {
		free(it->text);
		free(it->name);
		return -ENOMEM;
	}
	memcpy(it->name, name, namelen);
	it->namelen = namelen;
	xl->n++;
	return 0;
}

void mf_xattrs_release(struct mf_xattrs *xl)
{
	size_t i;

	for (i = 0; i < xl->n; i++) {
		free(xl->items[i].name);
		free(xl->items[i].text);
	}
	free(xl->items);
	xl->items = NULL;
	xl->n = 0;
	xl->cap = 0;
}

/* Raw byte order: memcmp on the common length, then shorter first. */
static int mf_bytes_cmp(const char *a, size_t alen, const char *b,
			size_t blen)
{
	int c = memcmp(a, b, alen < blen ? alen : blen);

	if (c)
		return c;
	return alen < blen ? -1 : alen > blen;
}

static int mf_xattr_cmp(const void *a, const void *b)
{
	const struct mf_xattr *x = a, *y = b;

	return mf_bytes_cmp(x->name, x->namelen, y->name, y->namelen);
}

/* Field 12: sorted by name bytes, joined by commas; "-" if none. */
static void mf_xattrs_field(struct mf_xattrs *xl, struct strbuf *sb)
{
	size_t i;

	if (!xl->n) {
		sb_addc(sb, '-');
		return;
	}
	qsort(xl->items, xl->n, sizeof(*xl->items), mf_xattr_cmp);
	for (i = 0; i < xl->n; i++) {
		if (i)
			sb_addc(sb, ',');
		sb_addf(sb, "%s", xl->items[i].text);
	}
}

static char mf_type(uint16_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG:
		return 'f';
	case S_IFDIR:
		return 'd';
	case S_IFLNK:
		return 'l';
	case S_IFCHR:
		return 'c';
	case S_IFBLK:
		return 'b';
	case S_IFIFO:
		return 'p';
	default:
		return 's';
	}
}

/*
 * Fields 2 to 10, as a listing of the extracted tree shows them: symlinks
 * have mode 0777 whatever EROFS stores, directories no size or link count.
 */
static void mf_body(struct strbuf *sb, const struct erofs_inode *inode,
		    const uint8_t *digest)
{
	char type = mf_type(inode->mode);

	sb_addf(sb, "%c %04o %u %u ", type,
		type == 'l' ? 0777 : inode->mode & 07777, inode->uid,
		inode->gid);
	if (type == 'd')
		sb_addc(sb, '-');
	else if (type == 'f' || type == 'l')
		sb_addf(sb, "%llu", (unsigned long long)inode->size);
	else
		sb_addc(sb, '0');
	sb_addf(sb, " %lld.%09u ", (long long)inode->mtime, inode->mtime_nsec);
	if (digest)
		sb_hex(sb, digest, EROFS_SHA256_LEN);
	else
		sb_addc(sb, '-');
	if (type == 'c' || type == 'b')
		sb_addf(sb, " %u:%u", erofs_rdev_major(inode->rdev),
			erofs_rdev_minor(inode->rdev));
	else
		sb_addf(sb, " -");
	if (type == 'd')
		sb_addf(sb, " -");
	else
		sb_addf(sb, " %u", inode->nlink);
}

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

int manifest_add_inode(struct manifest *m, const char *rel, size_t rellen,
		       const struct erofs_inode *inode, const uint8_t *digest,
		       struct mf_xattrs *xl)
{
	struct strbuf body = STRBUF_INIT, xattrs = STRBUF_INIT;
	int ret = -ENOMEM;

	mf_body(&body, inode, digest);
	mf_xattrs_field(xl, &xattrs);
	if (!body.failed && !xattrs.failed)
		ret = manifest_add(m, rel, rellen, inode->nid,
				   !S_ISDIR(inode->mode) && inode->nlink > 1,
				   body.s, xattrs.s);
	sb_release(&body);
	sb_release(&xattrs);
	return ret;
}

int manifest_add_pending(struct manifest *m, const char *rel, size_t rellen,
			 const struct erofs_inode *inode, size_t *handle)
{
	struct mf_xattrs none = { 0 };
	int ret;

	*handle = m->n;
	ret = manifest_add_inode(m, rel, rellen, inode, NULL, &none);
	return ret;
}

int manifest_complete(struct manifest *m, size_t handle,
		      const struct erofs_inode *inode, const uint8_t *digest,
		      struct mf_xattrs *xl)
{
	struct strbuf body = STRBUF_INIT, xattrs = STRBUF_INIT;
	struct mf_entry *e = &m->e[handle];

	mf_body(&body, inode, digest);
	mf_xattrs_field(xl, &xattrs);
	if (body.failed || xattrs.failed) {
		sb_release(&body);
		sb_release(&xattrs);
		return -ENOMEM;
	}
	free(e->body);
	free(e->xattrs);
	e->body = sb_detach(&body);
	e->xattrs = sb_detach(&xattrs);
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

static int mf_path_cmp(const void *a, const void *b)
{
	const struct mf_entry *x = *(const struct mf_entry *const *)a;
	const struct mf_entry *y = *(const struct mf_entry *const *)b;

	return mf_bytes_cmp(x->path, x->pathlen, y->path, y->pathlen);
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
