// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "erofs/inode.h"
#include "util/report.h"
#include "walk/strip.h"

/* A directory's state: the inner visitor's, if it was handed on. */
struct strip_dir {
	void *inner;
	bool handed;
};

/* e as the outputs see it: n components fewer (e is deeper than n). */
static void strip_entry_view(const struct stripper *s,
			     const struct walk_entry *e, struct walk_entry *le)
{
	const struct strip_dir *parent = e->parent;
	const char *rel = e->rel, *end = e->rel + e->rellen, *slash;
	unsigned int i;

	for (i = 0; i < s->n; i++) {
		slash = memchr(rel, '/', (size_t)(end - rel));
		rel = slash ? slash + 1 : end;
	}
	*le = *e;
	le->rel = rel;
	le->rellen = (size_t)(end - rel);
	le->depth = e->depth - s->n;
	le->parent = parent && parent->handed ? parent->inner : NULL;
}

/* A name of n or fewer components: left out, its directory walked. */
static int strip_leave_out(struct stripper *s, const struct walk_entry *e,
			   void **dir_state)
{
	struct strip_dir *d;

	if (!S_ISDIR(e->inode->mode)) {
		if (e->inode->nlink > 1 && nidset_add(&s->left, e->nid) < 0)
			return -ENOMEM;
		return 0;
	}
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	*dir_state = d;
	return 0;
}

/* Is this the first name handed on of a file whose first name was not? */
static int strip_first(struct stripper *s, const struct walk_entry *e,
		       bool *first)
{
	int ret;

	*first = true;
	if (S_ISDIR(e->inode->mode))
		return 0;
	ret = nidset_add(&s->handed, e->nid);
	if (ret < 0)
		return ret;
	*first = ret;
	if (!ret || e->inode->nlink < 2)
		return 0;
	ret = nidset_add(&s->left, e->nid);
	if (ret < 0)
		return ret;
	/* a hard link to a name left out: the file itself, here */
	if (!ret) {
		struct fsck_loc loc = { .path = e->path,
					.pathlen = e->pathlen,
					.nid = e->nid,
					.offset = EROFS_NO_OFFSET };

		report_warning(
			s->rep, &loc,
			"its first name was left out by --strip-components: written as a file of its own");
	}
	return 0;
}

static int strip_entry(void *arg, const struct walk_entry *e, void **dir_state)
{
	struct stripper *s = arg;
	struct strip_dir *d = NULL;
	struct walk_entry le;
	void *state = NULL;
	bool first;
	int ret;

	if (e->depth <= s->n)
		return strip_leave_out(s, e, dir_state);
	ret = strip_first(s, e, &first);
	if (ret < 0)
		return ret;
	strip_entry_view(s, e, &le);
	le.first = first;
	if (S_ISDIR(e->inode->mode)) {
		d = calloc(1, sizeof(*d));
		if (!d)
			return -ENOMEM;
		d->handed = true;
		*dir_state = d;
	}
	return s->inner.entry(s->inner.arg, &le, d ? &d->inner : &state);
}

static int strip_dir_done(void *arg, const struct walk_entry *e,
			  void *dir_state)
{
	struct stripper *s = arg;
	struct strip_dir *d = dir_state;
	struct walk_entry le;
	int ret = 0;

	if (!d)
		return 0;
	if (d->handed && s->inner.dir_done) {
		strip_entry_view(s, e, &le);
		ret = s->inner.dir_done(s->inner.arg, &le, d->inner);
	}
	free(d);
	return ret;
}

void strip_start(struct stripper *s, unsigned int n, struct report *rep,
		 const struct walk_visitor *inner, struct walk_visitor *v)
{
	s->n = n;
	s->inner = *inner;
	s->rep = rep;
	nidset_init(&s->handed);
	nidset_init(&s->left);
	v->entry = strip_entry;
	v->dir_done = strip_dir_done;
	v->arg = s;
}

void strip_fini(struct stripper *s)
{
	nidset_fini(&s->handed);
	nidset_fini(&s->left);
}
