// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "erofs/inode.h"
#include "select.h"
#include "strbuf.h"

struct select_pattern {
	char *pat; /* without a leading or a trailing '/' */
	/*
	 * A pattern with '/': its first 1 .. ncomp - 1 components, which
	 * the directories that may lead to a match match (FNM_PATHNAME
	 * keeps '*' and '?' within a component).
	 */
	char **prefixes;
	size_t ncomp;
	bool exclude;
	bool path; /* has a '/': matched against the path */
	bool dir_only; /* had a trailing '/' */
};

struct select_name {
	char *path;
	bool found;
};

/* A walked directory: its consumers' state once handed on. */
struct select_dir {
	struct select_dir *parent;
	struct select_dir *prev, *next; /* in selector.dirs */
	struct select_dir *down; /* select_emit_chain()'s scratch */
	void *inner;
	bool emitted;
	bool inc; /* everything below is selected */
	/* until handed on, what its walk_entry held */
	char *path;
	size_t pathlen, rellen, namelen;
	struct erofs_inode inode;
	uint64_t parent_nid;
	unsigned int depth;
};

enum select_verdict {
	SELECT_NO, /* not selected, nothing below can be */
	SELECT_YES,
	SELECT_MAYBE, /* a directory that may lead to a match */
	SELECT_EXCLUDED,
};

static int select_split(struct select_pattern *p)
{
	const char *s;
	size_t i = 0;

	p->prefixes = calloc(p->ncomp - 1, sizeof(*p->prefixes));
	if (!p->prefixes)
		return -ENOMEM;
	for (s = strchr(p->pat, '/'); s; s = strchr(s + 1, '/')) {
		p->prefixes[i] = strndup(p->pat, (size_t)(s - p->pat));
		if (!p->prefixes[i++])
			return -ENOMEM;
	}
	return 0;
}

static void select_pattern_fini(struct select_pattern *p)
{
	size_t i;

	for (i = 0; p->prefixes && i + 1 < p->ncomp; i++)
		free(p->prefixes[i]);
	free(p->prefixes);
	free(p->pat);
}

int select_add_pattern(struct select_rules *r, const char *pat, bool exclude)
{
	size_t skip = strspn(pat, "/"), len = strlen(pat + skip);
	struct select_pattern *p, *pats;
	const char *s;
	int ret;

	pats = realloc(r->pats, (r->npats + 1) * sizeof(*pats));
	if (!pats)
		return -ENOMEM;
	r->pats = pats;
	p = memset(&pats[r->npats], 0, sizeof(*p));
	p->exclude = exclude;
	p->path = skip > 0;
	pat += skip;
	while (len && pat[len - 1] == '/') {
		p->dir_only = true;
		len--;
	}
	if (!len)
		return -EINVAL;
	p->pat = strndup(pat, len);
	if (!p->pat)
		return -ENOMEM;
	r->npats++;
	r->nincludes += !exclude;
	ret = fnmatch(p->pat, "", FNM_PATHNAME);
	if (ret && ret != FNM_NOMATCH)
		return -EINVAL;
	p->ncomp = 1;
	for (s = p->pat; *s; s++)
		p->ncomp += *s == '/';
	if (p->ncomp == 1)
		return 0;
	p->path = true;
	return select_split(p);
}

/* A --files-from line as a walk path: no empty or "." components. */
static char *select_normalize(const char *line)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p = line, *q;

	while (*p) {
		p += strspn(p, "/");
		q = p + strcspn(p, "/");
		if (q > p && !(q - p == 1 && *p == '.')) {
			if (sb.len)
				sb_addc(&sb, '/');
			sb_add(&sb, p, (size_t)(q - p));
		}
		p = q;
	}
	return sb_detach(&sb);
}

static int select_add_name(struct select_rules *r, const char *line)
{
	struct select_name *names;
	char *path = select_normalize(line);

	if (!path)
		return -ENOMEM;
	if (!*path) {
		r->whole = true;
		free(path);
		return 0;
	}
	names = realloc(r->names, (r->nnames + 1) * sizeof(*names));
	if (!names) {
		free(path);
		return -ENOMEM;
	}
	r->names = names;
	names[r->nnames].path = path;
	names[r->nnames++].found = false;
	return 0;
}

static int select_name_cmp(const void *a, const void *b)
{
	const struct select_name *x = a, *y = b;

	return strcmp(x->path, y->path);
}

/* Sort the names and drop repeats. */
static void select_sort_names(struct select_rules *r)
{
	size_t i, n = 0;

	qsort(r->names, r->nnames, sizeof(*r->names), select_name_cmp);
	for (i = 0; i < r->nnames; i++) {
		if (n && !strcmp(r->names[n - 1].path, r->names[i].path))
			free(r->names[i].path);
		else
			r->names[n++] = r->names[i];
	}
	r->nnames = n;
}

static int select_read_lines(struct select_rules *r, FILE *f,
			     unsigned long *line)
{
	size_t cap = 0;
	char *buf = NULL;
	ssize_t len;
	int ret = 0;

	*line = 0;
	while (!ret && (len = getline(&buf, &cap, f)) >= 0) {
		++*line;
		if (len && buf[len - 1] == '\n')
			buf[--len] = '\0';
		if (memchr(buf, '\0', (size_t)len))
			ret = -EINVAL;
		else if (len)
			ret = select_add_name(r, buf);
	}
	if (!ret && ferror(f))
		ret = errno ? -errno : -EIO;
	free(buf);
	return ret;
}

int select_read_names(struct select_rules *r, const char *file,
		      unsigned long *line)
{
	FILE *f = strcmp(file, "-") ? fopen(file, "re") : stdin;
	int ret;

	if (!f)
		return -errno;
	errno = 0;
	ret = select_read_lines(r, f, line);
	if (f != stdin)
		fclose(f);
	select_sort_names(r);
	return ret;
}

bool select_active(const struct select_rules *r)
{
	return r->npats || r->nnames || r->whole;
}

void select_rules_fini(struct select_rules *r)
{
	size_t i;

	for (i = 0; i < r->npats; i++)
		select_pattern_fini(&r->pats[i]);
	free(r->pats);
	for (i = 0; i < r->nnames; i++)
		free(r->names[i].path);
	free(r->names);
}

/* Index of the first name not below path in byte order. */
static size_t select_lower_bound(const struct select_rules *r, const char *path)
{
	size_t lo = 0, hi = r->nnames, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (strcmp(r->names[mid].path, path) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Whether --files-from names path; it is then marked as found. */
static bool select_named(struct select_rules *r, const char *path)
{
	size_t i = select_lower_bound(r, path);

	if (i == r->nnames || strcmp(r->names[i].path, path))
		return false;
	r->names[i].found = true;
	return true;
}

/* Whether --files-from names an entry below the directory path. */
static bool select_named_below(const struct select_rules *r, const char *path,
			       size_t len)
{
	size_t i;

	for (i = select_lower_bound(r, path); i < r->nnames; i++) {
		if (strncmp(r->names[i].path, path, len))
			return false;
		if (r->names[i].path[len] == '/')
			return true;
	}
	return false;
}

static bool select_matches(const struct select_pattern *p,
			   const struct walk_entry *e, bool dir)
{
	if (p->dir_only && !dir)
		return false;
	return !fnmatch(p->pat, p->path ? e->rel : e->name, FNM_PATHNAME);
}

/* Whether an entry below directory e may match include pattern p. */
static bool select_may_lead(const struct select_pattern *p,
			    const struct walk_entry *e)
{
	if (!p->path)
		return true;
	if (e->depth >= p->ncomp)
		return false;
	return !fnmatch(p->prefixes[e->depth - 1], e->rel, FNM_PATHNAME);
}

static enum select_verdict select_judge(struct selector *s,
					const struct walk_entry *e,
					const struct select_dir *parent)
{
	struct select_rules *r = s->rules;
	bool dir = S_ISDIR(e->inode->mode);
	bool named = r->nnames && select_named(r, e->rel);
	bool maybe = false;
	size_t i;

	for (i = 0; i < r->npats; i++)
		if (r->pats[i].exclude && select_matches(&r->pats[i], e, dir))
			return SELECT_EXCLUDED;
	if (parent->inc || named)
		return SELECT_YES;
	for (i = 0; i < r->npats; i++) {
		if (r->pats[i].exclude)
			continue;
		if (select_matches(&r->pats[i], e, dir))
			return SELECT_YES;
		maybe = maybe || (dir && select_may_lead(&r->pats[i], e));
	}
	if (maybe || (dir && select_named_below(r, e->rel, e->rellen)))
		return SELECT_MAYBE;
	return SELECT_NO;
}

/* Whether the start's whole tree is selected, but for excludes. */
static bool select_all_below_start(const struct select_rules *r)
{
	return r->whole || (!r->nincludes && !r->nnames);
}

static struct select_dir *select_dir_new(struct selector *s,
					 struct select_dir *parent, bool inc)
{
	struct select_dir *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->parent = parent;
	d->inc = inc;
	d->next = s->dirs;
	if (s->dirs)
		s->dirs->prev = d;
	s->dirs = d;
	return d;
}

static void select_dir_free(struct selector *s, struct select_dir *d)
{
	if (d->prev)
		d->prev->next = d->next;
	else
		s->dirs = d->next;
	if (d->next)
		d->next->prev = d->prev;
	free(d->path);
	free(d);
}

/* Keep what a directory's entry says until it is handed on. */
static int select_keep(struct select_dir *d, const struct walk_entry *e)
{
	d->path = malloc(e->pathlen + 1);
	if (!d->path)
		return -ENOMEM;
	memcpy(d->path, e->path, e->pathlen + 1);
	d->pathlen = e->pathlen;
	d->rellen = e->rellen;
	d->namelen = e->namelen;
	d->inode = *e->inode;
	d->parent_nid = e->parent_nid;
	d->depth = e->depth;
	return 0;
}

static int select_emit_kept(struct selector *s, struct select_dir *d)
{
	struct walk_entry e = {
		.path = d->path,
		.pathlen = d->pathlen,
		.rel = d->path + d->pathlen - d->rellen,
		.rellen = d->rellen,
		.name = d->path + d->pathlen - d->namelen,
		.namelen = d->namelen,
		.nid = d->inode.nid,
		.inode = &d->inode,
		.parent_nid = d->parent_nid,
		.parent = d->parent->inner,
		.depth = d->depth,
		.first = true,
	};
	int ret = s->inner.entry(s->inner.arg, &e, &d->inner);

	d->emitted = true;
	s->entries++;
	free(d->path);
	d->path = NULL;
	return ret < 0 ? ret : 0;
}

/* Hand on the directories above a selected entry not handed on yet. */
static int select_emit_chain(struct selector *s, struct select_dir *parent)
{
	struct select_dir *top = NULL, *d;
	int ret;

	for (d = parent; d && !d->emitted; d = d->parent) {
		d->down = top;
		top = d;
	}
	for (d = top; d; d = d->down) {
		ret = select_emit_kept(s, d);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static int select_entry(void *arg, const struct walk_entry *e, void **dir_state)
{
	struct selector *s = arg;
	struct select_dir *parent = e->parent, *d;
	enum select_verdict v = SELECT_YES;
	struct walk_entry le = *e;
	void *state = NULL;
	int ret;

	if (e->depth)
		v = select_judge(s, e, parent);
	if (v == SELECT_NO || v == SELECT_EXCLUDED)
		return WALK_SKIP;
	if (S_ISDIR(e->inode->mode)) {
		d = select_dir_new(s, parent,
				   parent ? v == SELECT_YES
					  : select_all_below_start(s->rules));
		if (!d)
			return -ENOMEM;
		*dir_state = d;
		if (v == SELECT_MAYBE && !e->later)
			return select_keep(d, e);
	} else {
		d = NULL;
		ret = nidset_add(&s->emitted, e->nid);
		if (ret < 0)
			return ret;
		le.first = ret;
	}
	ret = select_emit_chain(s, parent);
	if (ret < 0)
		return ret;
	/* the chain's states are known now */
	le.parent = parent ? parent->inner : NULL;
	s->entries++;
	ret = s->inner.entry(s->inner.arg, &le, d ? &d->inner : &state);
	if (d)
		d->emitted = true;
	return ret;
}

static int select_dir_done(void *arg, const struct walk_entry *e,
			   void *dir_state)
{
	struct selector *s = arg;
	struct select_dir *d = dir_state;
	struct walk_entry le = *e;
	int ret = 0;

	if (!d)
		return 0;
	le.parent = d->parent ? d->parent->inner : NULL;
	if (d->emitted && s->inner.dir_done)
		ret = s->inner.dir_done(s->inner.arg, &le, d->inner);
	select_dir_free(s, d);
	return ret;
}

void select_start(struct selector *s, struct select_rules *r,
		  const struct walk_visitor *inner, struct walk_visitor *v)
{
	s->rules = r;
	s->inner = *inner;
	nidset_init(&s->emitted);
	s->dirs = NULL;
	s->entries = 0;
	v->entry = select_entry;
	v->dir_done = select_dir_done;
	v->arg = s;
}

int select_report_missing(const struct selector *s, struct report *rep,
			  const char *base)
{
	const struct select_rules *r = s->rules;
	struct fsck_loc loc = { .nid = EROFS_NO_NID,
				.offset = EROFS_NO_OFFSET };
	struct strbuf path = STRBUF_INIT;
	size_t i;
	int ret;

	for (i = 0; i < r->nnames; i++) {
		if (r->names[i].found)
			continue;
		sb_reset(&path);
		if (*base)
			sb_addf(&path, "%s/", base);
		sb_add(&path, r->names[i].path, strlen(r->names[i].path));
		if (path.failed)
			break;
		loc.path = path.s;
		loc.pathlen = path.len;
		report_failure(rep, &loc,
			       "named by --files-from, not in the image");
	}
	ret = path.failed ? -ENOMEM : 0;
	sb_release(&path);
	return ret;
}

void select_fini(struct selector *s)
{
	while (s->dirs)
		select_dir_free(s, s->dirs);
	nidset_fini(&s->emitted);
}
