// SPDX-License-Identifier: MIT
/* The list of outputs: each call of output.h handed to every output. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "erofs/inode.h"

#include "output/output.h"
#include "walk/walk.h"

/* A directory's states, one per output: the walker's state of it. */
struct out_dirs {
	void *state[OUTPUTS_MAX];
	struct out_dirs *prev, *next;	/* in outputs.dirs */
};

void outputs_add(struct outputs *l, const struct output_ops *ops, void *priv,
		 unsigned int wants)
{
	/* the options open at most one output of each kind */
	l->o[l->n].ops = ops;
	l->o[l->n++].priv = priv;
	l->wants |= wants;
	if (ops->dir_end)
		l->dir_states++;
}

bool outputs_want(const struct outputs *l, unsigned int wants)
{
	return l->wants & wants;
}

bool outputs_room(const struct outputs *l)
{
	unsigned int i;

	for (i = 0; i < l->n; i++)
		if (l->o[i].ops->room && !l->o[i].ops->room(l->o[i].priv))
			return false;
	return true;
}

bool outputs_failed(const struct outputs *l)
{
	unsigned int i;

	for (i = 0; i < l->n; i++)
		if (l->o[i].ops->failed && l->o[i].ops->failed(l->o[i].priv))
			return true;
	return false;
}

/* oe as output i sees it: its own state of the parent directory. */
static void out_entry_for(const struct out_entry *oe, unsigned int i,
			  struct out_entry *mine, struct walk_entry *e)
{
	const struct out_dirs *parent = oe->e->parent;

	*mine = *oe;
	*e = *oe->e;
	e->parent = parent ? parent->state[i] : NULL;
	mine->e = e;
}

/* The outputs' states of a directory, made at its entry. */
static struct out_dirs *out_dirs_for(struct outputs *l,
				     const struct out_entry *oe,
				     void **dir_state)
{
	struct out_dirs *d;

	if (!dir_state || !l->dir_states || !S_ISDIR(oe->e->inode->mode))
		return NULL;
	d = calloc(1, sizeof(*d));
	*dir_state = d;
	if (d) {
		d->next = l->dirs;
		if (l->dirs)
			l->dirs->prev = d;
		l->dirs = d;
	}
	return d;
}

enum fsck_result outputs_entry(struct outputs *l, const struct out_entry *oe,
			       void **dir_state)
{
	struct out_dirs *dirs = out_dirs_for(l, oe, dir_state);
	enum fsck_result r = FSCK_OK;
	struct out_entry mine;
	struct walk_entry e;
	unsigned int i;

	if (dir_state && l->dir_states && S_ISDIR(oe->e->inode->mode) && !dirs)
		return FSCK_NOMEM;
	for (i = 0; i < l->n && r == FSCK_OK; i++) {
		out_entry_for(oe, i, &mine, &e);
		r = l->o[i].ops->entry(l->o[i].priv, &mine,
				       dirs ? &dirs->state[i] : NULL);
		/* one output's problem with the entry is its own */
		if (r == FSCK_REPORTED)
			r = FSCK_OK;
	}
	return r;
}

enum fsck_result outputs_file_begin(struct outputs *l,
				    const struct out_entry *oe,
				    struct out_files *files)
{
	enum fsck_result r = FSCK_OK;
	struct out_entry mine;
	struct walk_entry e;
	unsigned int i;

	memset(files, 0, sizeof(*files));
	for (i = 0; i < l->n && r == FSCK_OK; i++) {
		out_entry_for(oe, i, &mine, &e);
		r = l->o[i].ops->entry(l->o[i].priv, &mine, &files->state[i]);
		if (r == FSCK_REPORTED)
			r = FSCK_OK;
	}
	return r;
}

static void out_dirs_free(struct outputs *l, struct out_dirs *d)
{
	if (d->prev)
		d->prev->next = d->next;
	else
		l->dirs = d->next;
	if (d->next)
		d->next->prev = d->prev;
	free(d);
}

void outputs_dir_end(struct outputs *l, void *dir_state)
{
	struct out_dirs *dirs = dir_state;
	unsigned int i;

	if (!dirs)
		return;
	for (i = 0; i < l->n; i++)
		if (l->o[i].ops->dir_end && dirs->state[i])
			l->o[i].ops->dir_end(l->o[i].priv, dirs->state[i]);
	out_dirs_free(l, dirs);
}

static bool queues(const struct output *o, const struct out_files *files,
		   unsigned int i)
{
	return o->ops->file_queue && files->state[i];
}

bool outputs_file_room(const struct outputs *l, const struct out_files *files)
{
	unsigned int i;

	for (i = 0; i < l->n; i++)
		if (queues(&l->o[i], files, i) &&
		    !l->o[i].ops->file_room(l->o[i].priv, files->state[i]))
			return false;
	return true;
}

enum fsck_result outputs_file_queue(struct outputs *l, struct out_files *files,
				    const struct out_file *of)
{
	enum fsck_result r = FSCK_OK;
	unsigned int i;

	for (i = 0; i < l->n && fsck_result_goes_on(r); i++)
		if (queues(&l->o[i], files, i))
			r = l->o[i].ops->file_queue(l->o[i].priv,
						    files->state[i], of);
	return r;
}

enum fsck_result outputs_file_open(struct outputs *l, struct out_files *files,
				   const struct out_file *of)
{
	enum fsck_result r, ret = FSCK_OK;
	unsigned int i;

	for (i = 0; i < l->n; i++) {
		if (!l->o[i].ops->file_open)
			continue;
		r = l->o[i].ops->file_open(l->o[i].priv, &files->state[i], of);
		/* an output that failed to open the file still lets it be checked */
		if (r != FSCK_OK && ret == FSCK_OK)
			ret = r;
		if (!fsck_result_goes_on(r))
			break;
	}
	return ret;
}

static bool takes_data(const struct output *o, const struct out_files *files,
		       unsigned int i)
{
	return o->ops->data && files->state[i];
}

bool outputs_take_data(const struct outputs *l, const struct out_files *files)
{
	unsigned int i;

	for (i = 0; i < l->n; i++)
		if (takes_data(&l->o[i], files, i))
			return true;
	return false;
}

enum fsck_result outputs_data(struct outputs *l, struct out_files *files,
			      const struct out_file *of, const void *buf,
			      size_t len, uint64_t off)
{
	enum fsck_result r;
	unsigned int i;

	for (i = 0; i < l->n; i++) {
		if (!takes_data(&l->o[i], files, i))
			continue;
		r = l->o[i].ops->data(l->o[i].priv, files->state[i], of, buf,
				      len, off);
		if (r != FSCK_OK)
			return r;
	}
	return FSCK_OK;
}

enum fsck_result outputs_hole(struct outputs *l, struct out_files *files,
			      uint64_t off, uint64_t len)
{
	enum fsck_result r;
	unsigned int i;

	for (i = 0; i < l->n; i++) {
		if (!takes_data(&l->o[i], files, i) || !l->o[i].ops->hole)
			continue;
		r = l->o[i].ops->hole(l->o[i].priv, files->state[i], off, len);
		if (r != FSCK_OK)
			return r;
	}
	return FSCK_OK;
}

enum fsck_result outputs_copy(struct outputs *l, struct out_files *files,
			      const struct out_file *of,
			      const struct out_copy *c, bool *copied)
{
	const struct output *taker = NULL;
	unsigned int i, at = 0;

	*copied = false;
	for (i = 0; i < l->n; i++) {
		if (!takes_data(&l->o[i], files, i))
			continue;
		if (taker)
			return FSCK_OK;
		taker = &l->o[i];
		at = i;
	}
	if (!taker || !taker->ops->copy)
		return FSCK_OK;
	return taker->ops->copy(taker->priv, files->state[at], of, c, copied);
}

enum fsck_result outputs_file_end(struct outputs *l, struct out_files *files,
				  const struct out_file *of, enum fsck_result r)
{
	enum fsck_result ret = r, one;
	unsigned int i;

	for (i = 0; i < l->n; i++) {
		if (!l->o[i].ops->file_end)
			continue;
		one = l->o[i].ops->file_end(l->o[i].priv, files->state[i], of,
					    r);
		if (fsck_result_goes_on(ret) && !fsck_result_goes_on(one))
			ret = one;
	}
	return ret;
}

enum fsck_result outputs_file_done(struct outputs *l, struct out_files *files,
				   const struct out_file *of)
{
	enum fsck_result ret = FSCK_OK, one;
	unsigned int i;

	for (i = 0; i < l->n; i++) {
		if (!l->o[i].ops->file_done)
			continue;
		one = l->o[i].ops->file_done(l->o[i].priv, files->state[i], of);
		if (ret == FSCK_OK && one != FSCK_REPORTED)
			ret = one;
	}
	return ret;
}

enum fsck_result outputs_finish(struct outputs *l, struct report *rep,
				bool complete)
{
	enum fsck_result ret = FSCK_OK, one;
	unsigned int i;

	for (i = 0; i < l->n; i++) {
		if (!l->o[i].ops->finish)
			continue;
		one = l->o[i].ops->finish(l->o[i].priv, rep, complete);
		if (one == FSCK_STOP || one == FSCK_NOMEM)
			ret = one;
	}
	return ret;
}

void outputs_close(struct outputs *l)
{
	unsigned int i;

	while (l->dirs) {
		for (i = 0; i < l->n; i++)
			if (l->o[i].ops->dir_drop && l->dirs->state[i])
				l->o[i].ops->dir_drop(l->o[i].priv,
						      l->dirs->state[i]);
		out_dirs_free(l, l->dirs);
	}
	for (i = 0; i < l->n; i++)
		if (l->o[i].ops->close)
			l->o[i].ops->close(l->o[i].priv);
	l->n = 0;
}
