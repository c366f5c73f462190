// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "erofs/dir.h"
#include "erofs/image.h"
#include "erofs/inode.h"
#include "util/grow.h"
#include "util/strbuf.h"
#include "walk/select.h"

struct select_pattern {
	char *pat; /* without a leading "./" or '/', or a trailing '/' */
	char *given; /* as the option gave it, for messages */
	bool matched; /* an include that selected an entry */
	/*
	 * A pattern with '/': its first 1 .. ncomp - 1 components. A
	 * directory at depth d may lead to a match only if it matches the
	 * first d (FNM_PATHNAME keeps '*' and '?' within a component).
	 */
	char **prefixes;
	size_t ncomp;
	bool exclude;
	bool path; /* has a '/': matched against the path */
	bool globstar; /* has a "**" component: glob_match() matches it */
	bool dir_only; /* had a trailing '/' */
};

struct select_name {
	char *path;
	bool found;
	bool cat; /* named by --cat */
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
	free(p->given);
	free(p->pat);
}

size_t select_anchor(const char *pat)
{
	size_t skip = 0;

	for (;;) {
		if (pat[skip] == '/')
			skip++;
		else if (pat[skip] == '.' && pat[skip + 1] == '/')
			skip += 2;
		else
			return skip;
	}
}

/* Is the component s starts with "**"? */
static bool glob_is_globstar(const char *s)
{
	return s[0] == '*' && s[1] == '*' && (!s[2] || s[2] == '/');
}

/* The component after the one s starts with, or NULL. */
static const char *glob_next(const char *s)
{
	s += strcspn(s, "/");
	return *s ? s + 1 : NULL;
}

/* Is a whole component of pat "**"? */
static bool glob_has_globstar(const char *pat)
{
	for (; pat; pat = glob_next(pat))
		if (glob_is_globstar(pat))
			return true;
	return false;
}

/* The component s starts with, as a string in buf (EROFS_NAME_LEN + 1). */
static const char *glob_comp(const char *s, char *buf)
{
	size_t len = strcspn(s, "/");

	if (len > EROFS_NAME_LEN)
		len = EROFS_NAME_LEN;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return buf;
}

/*
 * pat against path, component by component: a "**" component matches
 * any number of path components (none too), any other one component by
 * fnmatch(3), so '*' never matches '/'. With lead, path is a directory:
 * true when the pattern may still match an entry below it. Iterative,
 * going back to the last "**" on a mismatch: paths are 4096 deep.
 */
static bool glob_match(const char *pat, const char *path, bool lead)
{
	char pc[EROFS_NAME_LEN + 1], sc[EROFS_NAME_LEN + 1];
	const char *p = pat, *s = path, *star_p = NULL, *star_s = NULL;

	for (;;) {
		if (!s) {
			while (p && glob_is_globstar(p))
				p = glob_next(p);
			return !p || lead;
		}
		if (p && glob_is_globstar(p)) {
			star_p = p = glob_next(p);
			star_s = s;
			continue;
		}
		if (p && !fnmatch(glob_comp(p, pc), glob_comp(s, sc), 0)) {
			p = glob_next(p);
			s = glob_next(s);
			continue;
		}
		if (!star_s)
			return false;
		/* the last "**" takes one more component */
		star_s = glob_next(star_s);
		s = star_s;
		p = star_p;
		if (!s)
			return !p || lead;
	}
}

int select_add_pattern(struct select_rules *r, const char *pat, bool exclude)
{
	size_t skip = select_anchor(pat), len = strlen(pat + skip);
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
	p->given = strdup(pat);
	if (!p->given)
		return -ENOMEM;
	pat += skip;
	while (len && pat[len - 1] == '/') {
		p->dir_only = true;
		len--;
	}
	if (!len) {
		free(p->given);
		return -EINVAL;
	}
	p->pat = strndup(pat, len);
	if (!p->pat) {
		free(p->given);
		return -ENOMEM;
	}
	r->npats++;
	r->nincludes += !exclude;
	ret = fnmatch(p->pat, "", FNM_PATHNAME);
	if (ret && ret != FNM_NOMATCH)
		return -EINVAL;
	p->ncomp = 1;
	for (s = p->pat; *s; s++)
		p->ncomp += *s == '/';
	p->globstar = glob_has_globstar(p->pat);
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
	names[r->nnames].cat = false;
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

	if (!r->nnames)
		return;
	qsort(r->names, r->nnames, sizeof(*r->names), select_name_cmp);
	for (i = 0; i < r->nnames; i++) {
		if (n && !strcmp(r->names[n - 1].path, r->names[i].path))
			free(r->names[i].path);
		else
			r->names[n++] = r->names[i];
	}
	r->nnames = n;
}

static int select_read_lines(struct select_rules *r, FILE *f, bool nul,
			     unsigned long *line)
{
	int end = nul ? '\0' : '\n';
	size_t cap = 0;
	char *buf = NULL;
	ssize_t len;
	int ret = 0;

	*line = 0;
	while (!ret && (len = getdelim(&buf, &cap, end, f)) >= 0) {
		++*line;
		if (len && buf[len - 1] == end)
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

int select_read_names(struct select_rules *r, const char *file, bool nul,
		      unsigned long *line)
{
	FILE *f = strcmp(file, "-") ? fopen(file, "re") : stdin;
	int ret;

	if (!f)
		return -errno;
	r->listed = true;
	errno = 0;
	ret = select_read_lines(r, f, nul, line);
	if (f != stdin)
		fclose(f);
	select_sort_names(r);
	return ret;
}

bool select_active(const struct select_rules *r)
{
	return r->npats || r->listed;
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
	/* empty again: the fuzz target runs main() many times */
	memset(r, 0, sizeof(*r));
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

/* Whether --files-from names path; with mark, it is then met. */
static bool select_named(struct select_rules *r, const char *path, bool mark)
{
	size_t i = select_lower_bound(r, path);

	if (i == r->nnames || strcmp(r->names[i].path, path))
		return false;
	if (mark)
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

static bool select_pattern_matches(const struct select_pattern *p,
				   const char *rel, const char *name, bool dir)
{
	if (p->dir_only && !dir)
		return false;
	if (p->globstar)
		return glob_match(p->pat, rel, false);
	return !fnmatch(p->pat, p->path ? rel : name, FNM_PATHNAME);
}

static bool select_matches(const struct select_pattern *p,
			   const struct walk_entry *e, bool dir)
{
	return select_pattern_matches(p, e->rel, e->name, dir);
}

bool select_excluded(const struct select_rules *r, const char *rel,
		     const char *name, bool dir)
{
	size_t i;

	for (i = 0; i < r->npats; i++)
		if (r->pats[i].exclude &&
		    select_pattern_matches(&r->pats[i], rel, name, dir))
			return true;
	return false;
}

/* Whether an entry below directory e may match include pattern p. */
static bool select_may_lead(const struct select_pattern *p,
			    const struct walk_entry *e)
{
	if (!p->path)
		return true;
	if (p->globstar)
		return glob_match(p->pat, e->rel, true);
	if (e->depth >= p->ncomp)
		return false;
	return !fnmatch(p->prefixes[e->depth - 1], e->rel, FNM_PATHNAME);
}

/*
 * The verdict on e, below a directory whose whole tree is selected or not
 * (inc). mark: a --files-from name that e is counts as met.
 */
static enum select_verdict select_judge(struct select_rules *r,
					const struct walk_entry *e, bool inc,
					bool mark)
{
	bool dir = S_ISDIR(e->inode->mode);
	bool named = r->nnames && select_named(r, e->rel, mark);
	bool maybe = false;
	size_t i;

	for (i = 0; i < r->npats; i++)
		if (r->pats[i].exclude && select_matches(&r->pats[i], e, dir))
			return SELECT_EXCLUDED;
	if (inc || named)
		return SELECT_YES;
	for (i = 0; i < r->npats; i++) {
		if (r->pats[i].exclude)
			continue;
		if (select_matches(&r->pats[i], e, dir)) {
			r->pats[i].matched = r->pats[i].matched || mark;
			return SELECT_YES;
		}
		maybe = maybe || (dir && select_may_lead(&r->pats[i], e));
	}
	if (maybe || (dir && select_named_below(r, e->rel, e->rellen)))
		return SELECT_MAYBE;
	return SELECT_NO;
}

int select_add_cat(struct select_rules *r, const char *path)
{
	int ret = select_add_name(r, path);

	if (ret)
		return ret;
	r->listed = true;
	if (r->nnames)
		r->names[r->nnames - 1].cat = true;
	select_sort_names(r);
	return 0;
}

bool select_takes(const struct select_rules *r, const char *path)
{
	char *p = select_normalize(path), *slash, *name;
	bool taken = !r->nincludes && !r->listed, dir = false;
	size_t i;

	if (!p)
		return true;
	/* each directory on the way, then the path itself */
	for (slash = p;; dir = false) {
		slash = strchr(slash, '/');
		if (slash) {
			*slash = '\0';
			dir = true;
		}
		name = strrchr(p, '/');
		name = name ? name + 1 : p;
		if (select_excluded(r, p, name, dir)) {
			taken = false;
			break;
		}
		for (i = 0; !taken && i < r->npats; i++)
			taken = !r->pats[i].exclude &&
				select_pattern_matches(&r->pats[i], p, name,
						       dir);
		taken = taken || (r->nnames && select_named(
						       (struct select_rules *)r,
						       p, false));
		if (!slash)
			break;
		*slash++ = '/';
	}
	free(p);
	return taken || r->whole;
}

/* Whether the start's whole tree is selected, but for excludes. */
static bool select_all_below_start(const struct select_rules *r)
{
	return r->whole || (!r->nincludes && !r->listed);
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

/*
 * Probes. A directory that may lead to a match but is descended after
 * siblings (walk_entry.later) would be handed on after them, out of
 * order, if it were kept until something below it is selected: its
 * subtree is walked first, by the walker itself, to know. What a probe
 * learns is kept by nid, so that no directory is walked twice for
 * nothing: a directory walked whole without a match is barren (pruned
 * when the walk reaches it), those above a match are fertile. What the
 * probe's walk finds wrong is dropped: the walk reports it when it gets
 * there, and the probe counts it as a match, for the walk to see.
 */
enum select_scan {
	SELECT_BARREN = 1,
	SELECT_FERTILE,
};

/* A directory of a probe's walk, with the one it is in. */
struct probe_dir {
	uint64_t nid;
	struct probe_dir *up;
	struct probe_dir *next_made; /* all a probe made, to free */
};

struct probe {
	struct selector *s;
	const struct walk_entry *top; /* the directory probed */
	struct strbuf rel; /* an entry's path from the walk's start */
	struct probe_dir *made;
	const struct report *quiet; /* what the probe's walk found wrong */
	bool found;
};

static uint8_t select_probed(const struct selector *s, uint64_t nid)
{
	const uint8_t *v = nidmap_find(&s->probed, nid);

	return v ? *v : 0;
}

static int select_mark(struct selector *s, uint64_t nid, uint8_t state)
{
	int added;
	uint8_t *v = nidmap_get(&s->probed, nid, &added);

	if (!v)
		return -ENOMEM;
	*v = state;
	return 0;
}

/* Every directory from d up is above a match. */
static int probe_found(struct probe *p, const struct probe_dir *d)
{
	int ret = 0;

	p->found = true;
	for (; d && !ret; d = d->up)
		ret = select_mark(p->s, d->nid, SELECT_FERTILE);
	return ret ? ret : -ECANCELED;
}

/*
 * Judge entry e of the probe's walk as the walk will judge it: a verdict,
 * or -ENOMEM.
 */
static int probe_judge(struct probe *p, const struct walk_entry *e)
{
	const struct walk_entry *top = p->top;
	struct walk_entry le = *e;

	sb_reset(&p->rel);
	sb_add(&p->rel, top->rel, top->rellen);
	if (top->rellen)
		sb_addc(&p->rel, '/');
	sb_add(&p->rel, e->rel, e->rellen);
	if (p->rel.failed)
		return -ENOMEM;
	le.rel = p->rel.s;
	le.rellen = p->rel.len;
	le.name = le.rel + le.rellen - e->namelen;
	le.depth = top->depth + e->depth;
	return select_judge(p->s->rules, &le, false, false);
}

static int probe_entry(void *arg, const struct walk_entry *e, void **dir_state)
{
	struct probe *p = arg;
	struct probe_dir *d;
	int v = SELECT_MAYBE;

	if (p->quiet->errors)
		return probe_found(p, e->parent);
	if (e->depth) {
		if (S_ISDIR(e->inode->mode))
			switch (select_probed(p->s, e->nid)) {
			case SELECT_BARREN:
				return WALK_SKIP;
			case SELECT_FERTILE:
				return probe_found(p, e->parent);
			}
		if (p->top->depth + e->depth >= WALK_MAX_DEPTH)
			return probe_found(p, e->parent);
		v = probe_judge(p, e);
	}
	if (v < 0)
		return v;
	if (v == SELECT_YES)
		return probe_found(p, e->parent);
	if (!S_ISDIR(e->inode->mode))
		return 0;
	if (v != SELECT_MAYBE)
		return WALK_SKIP;
	d = malloc(sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->nid = e->nid;
	d->up = e->parent;
	d->next_made = p->made;
	p->made = d;
	*dir_state = d;
	return 0;
}

/* A directory walked whole: nothing below it matched, nothing failed. */
static int probe_dir_done(void *arg, const struct walk_entry *e,
			  void *dir_state)
{
	struct probe *p = arg;

	if (!dir_state)
		return 0;
	if (p->quiet->errors)
		return probe_found(p, dir_state);
	return select_mark(p->s, e->nid, SELECT_BARREN);
}

/*
 * Whether something below directory e, which may lead to a match, is
 * selected: 1, 0, or a negative errno. Only a directory descended after
 * siblings is walked ahead; the others are kept until the walk knows.
 */
static int select_leads(struct selector *s, const struct walk_entry *e)
{
	struct report quiet;
	struct probe p = {
		.s = s, .top = e, .rel = STRBUF_INIT, .quiet = &quiet
	};
	const struct walk_visitor v = { probe_entry, probe_dir_done, &p };
	struct walk_opts opts = {
		.start_nid = e->nid,
		.start_parent = e->parent_nid,
		.max_depth = WALK_MAX_DEPTH,
	};
	uint8_t state = select_probed(s, e->nid);
	struct report_slot dropped;
	struct walk_stats stats;
	char *base;
	int ret;

	if (state == SELECT_BARREN)
		return 0;
	if (!e->later || state == SELECT_FERTILE)
		return 1;
	base = strndup(e->path, e->pathlen);
	if (!base)
		return -ENOMEM;
	opts.base = base;
	report_slot_init(&dropped);
	report_init(&quiet, "", 0);
	report_hold(&quiet, &dropped);
	ret = walk_tree(s->ctx, &quiet, &opts, &v, &stats);
	/* what stopped the probe's walk but memory and signals, the walk meets */
	if (ret == -ECANCELED ||
	    (ret != -ENOMEM && ret != -EINTR && (ret < 0 || quiet.errors))) {
		p.found = true;
		ret = 0;
	}
	report_discard(&quiet);
	free(base);
	while (p.made) {
		struct probe_dir *d = p.made;

		p.made = d->next_made;
		free(d);
	}
	sb_release(&p.rel);
	return ret < 0 ? ret : p.found;
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
		v = select_judge(s->rules, e, parent->inc, true);
	if (v == SELECT_MAYBE) {
		ret = select_leads(s, e);
		if (ret < 0)
			return ret;
		if (!ret)
			v = SELECT_NO;
	}
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
	le.all_below = d && d->inc;
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
		  struct erofs_ctx *ctx, const struct walk_visitor *inner,
		  struct walk_visitor *v)
{
	s->rules = r;
	s->ctx = ctx;
	nidmap_init(&s->probed, sizeof(uint8_t));
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
		report_failure(rep, &loc, r->names[i].cat ?
					 "named by --cat, not in the image" :
					 "named by --files-from, not in the image");
	}
	/*
	 * An excluded directory is not walked: what it holds is unknown. A
	 * pattern that selects nothing is a failure, as a path named and
	 * not found is (GNU tar: "Not found in archive"); where the image's
	 * damage hid part of the tree, only a warning.
	 */
	for (i = 0; i < r->npats; i++) {
		if (r->pats[i].exclude || r->pats[i].matched)
			continue;
		(rep->errors ? report_warning : report_failure)(
			rep, NULL,
			"--include=%s: selects nothing in the image%s%s",
			r->pats[i].given,
			r->npats > r->nincludes ? " that an --exclude leaves in"
						: "",
			rep->errors ? " (or in what its damage hid)" : "");
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
	nidmap_fini(&s->probed);
}
