// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "erofs/hash.h"
#include "erofs/inode.h"
#include "output/manifest.h"
#include "util/mode_letter.h"
#include "util/nidmap.h"
#include "util/strbuf.h"
#include "util/xattr_list.h"
#include "walk/walk.h"

/* A line not printed yet. */
struct mf_line {
	char *path;		/* field 1, escaped */
	uint64_t nid;
	bool linked;		/* field 11 is its group's leader */
	bool pending;		/* fields to come (manifest_complete()) */
	char *body;		/* fields 2 to 10, NULL: its group's */
	char *xattrs;		/* field 12, NULL: its group's */
};

/* A hard-linked inode: the first of its names, and its fields. */
struct mf_group {
	char *leader;		/* escaped path */
	char *body;
	char *xattrs;
};

struct manifest {
	FILE *out;
	struct mf_line *q;	/* a ring of cap lines, head first */
	size_t head, n, cap;
	size_t printed;		/* lines printed: the head's handle */
	struct nidmap groups;	/* nid -> struct mf_group */
	struct strbuf sb;
	int err;		/* the first write error */
};

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
	const struct xattr_item *x = *(const struct xattr_item *const *)a;
	const struct xattr_item *y = *(const struct xattr_item *const *)b;
	int c = mf_bytes_cmp(x->name, x->namelen, y->name, y->namelen);

	/* equal names keep the image's order */
	if (c)
		return c;
	return x < y ? -1 : x > y;
}

/*
 * Field 12: name=hexvalue, the name escaped, sorted by name bytes, joined
 * by commas; "-" if none. The list is sorted through an index: it stays
 * in the image's order for the other outputs.
 */
static void mf_xattrs_field(const struct xattr_list *xl, struct strbuf *sb)
{
	const struct xattr_item **idx;
	size_t i;

	if (!xl->n) {
		sb_addc(sb, '-');
		return;
	}
	idx = malloc(xl->n * sizeof(*idx));
	if (!idx) {
		sb->failed = true;	/* as when sb cannot grow */
		return;
	}
	for (i = 0; i < xl->n; i++)
		idx[i] = &xl->items[i];
	qsort(idx, xl->n, sizeof(*idx), mf_xattr_cmp);
	for (i = 0; i < xl->n; i++) {
		if (i)
			sb_addc(sb, ',');
		sb_escape(sb, idx[i]->name, idx[i]->namelen, ",=");
		sb_addc(sb, '=');
		sb_hex(sb, idx[i]->value, idx[i]->len);
	}
	free(idx);
}

/* The manifest's type letter: ls -l's, but 'f' for a regular file. */
static char mf_type(uint16_t mode)
{
	char c = mode_letter(mode);

	return c == '-' ? 'f' : c;
}

/*
 * Fields 2 to 10, as a listing of the extracted tree shows them: symlinks
 * have mode 0777 whatever EROFS stores, directories no size or link count.
 */
static void mf_body(struct strbuf *sb, const struct erofs_inode *inode,
		    const uint8_t *digest)
{
	char type = mf_type(inode->mode);

	sb_addc(sb, type);
	sb_addc(sb, ' ');
	sb_add_num(sb, type == 'l' ? 0777 : inode->mode & 07777, 8, 4);
	sb_addc(sb, ' ');
	sb_add_num(sb, inode->uid, 10, 0);
	sb_addc(sb, ' ');
	sb_add_num(sb, inode->gid, 10, 0);
	sb_addc(sb, ' ');
	if (type == 'd')
		sb_addc(sb, '-');
	else if (type == 'f' || type == 'l')
		sb_add_num(sb, inode->size, 10, 0);
	else
		sb_addc(sb, '0');
	sb_addc(sb, ' ');
	sb_add_int(sb, inode->mtime);
	sb_addc(sb, '.');
	sb_add_num(sb, inode->mtime_nsec, 10, 9);
	sb_addc(sb, ' ');
	if (digest)
		sb_hex(sb, digest, EROFS_SHA256_LEN);
	else
		sb_addc(sb, '-');
	if (type == 'c' || type == 'b') {
		sb_addc(sb, ' ');
		sb_add_num(sb, erofs_rdev_major(inode->rdev), 10, 0);
		sb_addc(sb, ':');
		sb_add_num(sb, erofs_rdev_minor(inode->rdev), 10, 0);
	} else {
		sb_adds(sb, " -");
	}
	if (type == 'd') {
		sb_adds(sb, " -");
	} else {
		sb_addc(sb, ' ');
		sb_add_num(sb, inode->nlink, 10, 0);
	}
}

struct manifest *manifest_new(FILE *out)
{
	struct manifest *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->out = out;
	nidmap_init(&m->groups, sizeof(struct mf_group));
	m->sb = (struct strbuf)STRBUF_INIT;
	return m;
}

static void mf_line_release(struct mf_line *l)
{
	free(l->path);
	free(l->body);
	free(l->xattrs);
}

void manifest_free(struct manifest *m)
{
	struct mf_group *g;
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->n; i++)
		mf_line_release(&m->q[(m->head + i) & (m->cap - 1)]);
	free(m->q);
	nidmap_for_each(&m->groups, i) {
		g = nidmap_val(&m->groups, i);
		free(g->leader);
		free(g->body);
		free(g->xattrs);
	}
	nidmap_fini(&m->groups);
	sb_release(&m->sb);
	free(m);
}

static struct mf_line *mf_queued(struct manifest *m, size_t i)
{
	return &m->q[(m->head + i) & (m->cap - 1)];
}

/*
 * Keep the first error for manifest_print(): after it, lines (which may
 * lack fields) are dropped, not printed.
 */
static int mf_failed(struct manifest *m, int err)
{
	if (err && !m->err)
		m->err = err;
	return err;
}

static int mf_print_line(struct manifest *m, const struct mf_line *l)
{
	const struct mf_group *g = NULL;
	struct strbuf *sb = &m->sb;

	if (l->linked || !l->body)
		g = nidmap_find(&m->groups, l->nid);
	sb_reset(sb);
	sb_adds(sb, l->path);
	sb_addc(sb, ' ');
	sb_adds(sb, l->body ? l->body : g->body);
	sb_addc(sb, ' ');
	sb_adds(sb, l->linked ? g->leader : "-");
	sb_addc(sb, ' ');
	sb_adds(sb, l->xattrs ? l->xattrs : g->xattrs);
	sb_addc(sb, '\n');
	if (sb->failed)
		return mf_failed(m, -ENOMEM);
	if (fwrite(sb->s, 1, sb->len, m->out) != sb->len)
		return mf_failed(m, errno ? -errno : -EIO);
	return 0;
}

/* Print the head line, unless an error came before. */
static void mf_print_head(struct manifest *m)
{
	struct mf_line *l = mf_queued(m, 0);

	if (!m->err)
		mf_print_line(m, l);
	mf_line_release(l);
	m->head = (m->head + 1) & (m->cap - 1);
	m->n--;
	m->printed++;
}

/* Print the lines whose fields are all known, in order. */
static void mf_flush(struct manifest *m)
{
	while (m->n && !mf_queued(m, 0)->pending)
		mf_print_head(m);
}

static int mf_grow(struct manifest *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64, i;
	struct mf_line *q;

	if (cap > SIZE_MAX / sizeof(*q))
		return -ENOMEM;
	q = malloc(cap * sizeof(*q));
	if (!q)
		return -ENOMEM;
	for (i = 0; i < m->n; i++)
		q[i] = *mf_queued(m, i);
	free(m->q);
	m->q = q;
	m->head = 0;
	m->cap = cap;
	return 0;
}

static char *mf_path(const char *rel, size_t rellen)
{
	struct strbuf sb = STRBUF_INIT;

	if (rellen)
		sb_escape(&sb, rel, rellen, NULL);
	else
		sb_addc(&sb, '.');
	return sb_detach(&sb);
}

/* Queue a line for rel; NULL when memory runs out. */
static struct mf_line *mf_queue(struct manifest *m, const char *rel,
				size_t rellen, uint64_t nid)
{
	struct mf_line *l;

	if (m->n == m->cap && mf_grow(m))
		return NULL;
	l = mf_queued(m, m->n);
	memset(l, 0, sizeof(*l));
	l->path = mf_path(rel, rellen);
	if (!l->path)
		return NULL;
	l->nid = nid;
	m->n++;
	return l;
}

/* The group of a hard-linked nid met first: its leader is this name. */
static int mf_new_group(struct manifest *m, const struct mf_line *l)
{
	struct mf_group *g;
	int added;

	g = nidmap_get(&m->groups, l->nid, &added);
	if (!g)
		return -ENOMEM;
	if (!added)
		return 0;
	g->leader = strdup(l->path);
	return g->leader ? 0 : -ENOMEM;
}

/* A group's fields, once its first name's are known. */
static int mf_group_fields(struct manifest *m, const struct mf_line *l)
{
	struct mf_group *g = nidmap_find(&m->groups, l->nid);

	if (!g)
		return 0;
	free(g->body);
	free(g->xattrs);
	g->body = strdup(l->body);
	g->xattrs = strdup(l->xattrs);
	return g->body && g->xattrs ? 0 : -ENOMEM;
}

static int mf_add(struct manifest *m, const char *rel, size_t rellen,
		  uint64_t nid, bool linked, char *body, char *xattrs,
		  bool pending)
{
	struct mf_line *l = mf_queue(m, rel, rellen, nid);
	int ret;

	if (!l) {
		free(body);
		free(xattrs);
		return -ENOMEM;
	}
	l->linked = linked;
	l->pending = pending;
	l->body = body;
	l->xattrs = xattrs;
	if (!body || !xattrs)
		return -ENOMEM;
	ret = linked ? mf_new_group(m, l) : 0;
	if (!ret && linked)
		ret = mf_group_fields(m, l);
	if (!ret)
		mf_flush(m);
	return ret;
}

int manifest_add(struct manifest *m, const char *rel, size_t rellen,
		 uint64_t nid, bool linked, const char *body,
		 const char *xattrs)
{
	return mf_failed(m, mf_add(m, rel, rellen, nid, linked, strdup(body),
				   strdup(xattrs), false));
}

static int mf_fields(const struct erofs_inode *inode, const uint8_t *digest,
		     const struct xattr_list *xl, char **body, char **xattrs)
{
	struct strbuf b = STRBUF_INIT, x = STRBUF_INIT;

	mf_body(&b, inode, digest);
	mf_xattrs_field(xl, &x);
	*body = sb_detach(&b);
	*xattrs = sb_detach(&x);
	return *body && *xattrs ? 0 : -ENOMEM;
}

static bool mf_linked(const struct erofs_inode *inode)
{
	return !S_ISDIR(inode->mode) && inode->nlink > 1;
}

static int mf_add_inode(struct manifest *m, const char *rel, size_t rellen,
			const struct erofs_inode *inode, const uint8_t *digest,
			const struct xattr_list *xl, bool pending)
{
	char *body, *xattrs;

	mf_fields(inode, digest, xl, &body, &xattrs);
	return mf_add(m, rel, rellen, inode->nid, mf_linked(inode), body,
		      xattrs, pending);
}

int manifest_add_inode(struct manifest *m, const char *rel, size_t rellen,
		       const struct erofs_inode *inode, const uint8_t *digest,
		       const struct xattr_list *xl)
{
	return mf_failed(m, mf_add_inode(m, rel, rellen, inode, digest, xl,
					 false));
}

int manifest_add_pending(struct manifest *m, const char *rel, size_t rellen,
			 const struct erofs_inode *inode, size_t *handle)
{
	const struct xattr_list none = { 0 };

	*handle = m->printed + m->n;
	return mf_failed(m, mf_add_inode(m, rel, rellen, inode, NULL, &none,
					 true));
}

int manifest_complete(struct manifest *m, size_t handle,
		      const struct erofs_inode *inode, const uint8_t *digest,
		      const struct xattr_list *xl)
{
	struct mf_line *l;
	int ret;

	if (handle < m->printed || handle - m->printed >= m->n)
		return -ENOENT;
	l = mf_queued(m, handle - m->printed);
	free(l->body);
	free(l->xattrs);
	ret = mf_fields(inode, digest, xl, &l->body, &l->xattrs);
	l->pending = false;
	if (!ret && l->linked)
		ret = mf_group_fields(m, l);
	if (!ret)
		mf_flush(m);
	return mf_failed(m, ret);
}

int manifest_add_name(struct manifest *m, const char *rel, size_t rellen,
		      const struct erofs_inode *inode)
{
	const struct xattr_list none = { 0 };
	struct mf_line *l;

	/*
	 * An inode of one link named again (the walk reports it) has no
	 * group: its fields are its inode's, without what its data gives.
	 */
	if (!mf_linked(inode) || !nidmap_find(&m->groups, inode->nid))
		return mf_failed(m, mf_add_inode(m, rel, rellen, inode, NULL,
						 &none, false));
	l = mf_queue(m, rel, rellen, inode->nid);
	if (!l)
		return mf_failed(m, -ENOMEM);
	l->linked = true;
	mf_flush(m);
	return 0;
}

int manifest_print(struct manifest *m)
{
	size_t i;

	/* a task that did not run leaves only the fields known */
	for (i = 0; i < m->n; i++)
		mf_queued(m, i)->pending = false;
	mf_flush(m);
	if (!m->err && fflush(m->out))
		m->err = -errno;
	return m->err;
}

/* The output (output.h): lines in walk order, printed at the end. */

static enum fsck_result manifest_out_entry(void *priv,
					   const struct out_entry *oe,
					   void **state)
{
	const struct walk_entry *e = oe->e;
	size_t handle;
	int ret;

	if (!e->first)
		return fsck_result_of(
			manifest_add_name(priv, e->rel, e->rellen, e->inode));
	if (!S_ISREG(e->inode->mode))
		return fsck_result_of(manifest_add_inode(priv, e->rel,
							 e->rellen, e->inode,
							 oe->digest, oe->xl));
	ret = manifest_add_pending(priv, e->rel, e->rellen, e->inode, &handle);
	/* the file's state is its handle: the manifest takes no data */
	*state = (void *)(uintptr_t)handle;
	return fsck_result_of(ret);
}

static enum fsck_result manifest_out_file_done(void *priv, void *file,
					       const struct out_file *of)
{
	if (of->skipped)
		return FSCK_OK;
	return fsck_result_of(manifest_complete(priv, (uintptr_t)file,
						of->inode, of->digest,
						of->xl));
}

static enum fsck_result manifest_out_finish(void *priv, struct report *rep,
					    bool complete)
{
	int ret;

	if (!complete)
		return FSCK_OK;
	ret = manifest_print(priv);
	if (ret == -ENOMEM)
		report_fatal(rep, "%s: out of memory while %s", rep->image,
			     "writing the manifest");
	else if (ret < 0)
		report_fatal(rep, "cannot write the manifest to standard output: %s",
			     strerror(-ret));
	return ret < 0 ? FSCK_STOP : FSCK_OK;
}

static void manifest_out_close(void *priv)
{
	manifest_free(priv);
}

const struct output_ops manifest_output = {
	.entry = manifest_out_entry,
	.file_done = manifest_out_file_done,
	.finish = manifest_out_finish,
	.close = manifest_out_close,
};
