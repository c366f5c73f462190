// SPDX-License-Identifier: MIT
/* Extraction as an output (output.h): the calls of extract.h, in order. */
#include <stdlib.h>
#include <sys/stat.h>

#include "erofs/inode.h"
#include "extract/extract.h"
#include "util/interrupt.h"
#include "util/xattr_list.h"
#include "walk/walk.h"

/* A regular file being extracted: where, and what came of it. */
struct x_file {
	struct xdir *dir; /* pinned until file_end */
	int fd; /* -1 until created, or when not created */
	bool created; /* it got its name */
};

/* A problem with one output file is reported, and the check goes on. */
static enum fsck_result x_out(enum fsck_result r)
{
	return r == FSCK_REPORTED ? FSCK_OK : r;
}

static bool x_out_room(void *priv)
{
	return extract_has_room(priv);
}

static enum fsck_result
x_out_file_begin(struct extractor *x, const struct out_entry *oe, void **state)
{
	struct x_file *f = malloc(sizeof(*f));
	enum fsck_result r;

	if (!f)
		return FSCK_NOMEM;
	f->fd = -1;
	f->created = false;
	r = extract_file_begin(x, oe->e, oe->loc, &f->dir);
	*state = f;
	return x_out(r);
}

static enum fsck_result x_out_entry(void *priv, const struct out_entry *oe,
				    void **state)
{
	const struct walk_entry *e = oe->e;
	struct extractor *x = priv;

	if (!e->first)
		return x_out(extract_link(x, e, oe->loc));
	if (S_ISREG(e->inode->mode))
		return x_out_file_begin(x, oe, state);
	if (S_ISDIR(e->inode->mode))
		return x_out(extract_dir(x, e, oe->loc, oe->xl, state));
	if (S_ISLNK(e->inode->mode) && !oe->target)
		return FSCK_OK;
	return x_out(extract_node(x, e, oe->loc, oe->target,
				  oe->target ? e->inode->size : 0, oe->xl));
}

static void x_out_dir_end(void *priv, void *state)
{
	extract_dir_done(priv, state);
}

/* A file that could not be created (fd -1) is still checked. */
static enum fsck_result x_out_file_open(void *priv, void **file,
					const struct out_file *of)
{
	struct x_file *f = *file;

	if (!f->dir)
		return FSCK_OK;
	return x_out(extract_file_create(priv, of->rep, of->loc, f->dir,
					 of->name, of->inode, &f->fd));
}

static enum fsck_result x_out_data(void *priv, void *file,
				   const struct out_file *of, const void *buf,
				   size_t len, uint64_t off)
{
	struct x_file *f = file;

	if (f->fd < 0)
		return FSCK_OK;
	return x_out(extract_file_write(priv, of->rep, of->loc, f->fd, buf, len,
					off));
}

static enum fsck_result x_out_copy(void *priv, void *file,
				   const struct out_file *of,
				   const struct out_copy *c, bool *copied)
{
	struct x_file *f = file;

	if (f->fd < 0)
		return FSCK_OK;
	return x_out(extract_file_copy(priv, of->rep, of->loc, f->fd, c->ctx,
				       c->inode, c->map, c->skip, c->len,
				       copied));
}

static enum fsck_result x_out_file_end(void *priv, void *file,
				       const struct out_file *of,
				       enum fsck_result r)
{
	struct extractor *x = priv;
	struct x_file *f = file;
	enum fsck_result ret = FSCK_OK;

	if (!f)
		return FSCK_OK;
	if (f->fd >= 0 && r != FSCK_OK) {
		extract_file_abort(x, f->dir, of->name, f->fd);
		/* the problem said what was wrong; this, what became of it */
		if (r == FSCK_REPORTED && !of->data_ok && !interrupted())
			report_warning(
				of->rep, of->loc,
				"not extracted, as its data failed the check (--ignore-errors keeps what can be read)");
	} else if (f->fd >= 0) {
		ret = extract_file_commit(x, of->rep, of->loc, f->dir, of->name,
					  f->fd, of->inode, of->xl,
					  of->salvaged);
		f->created = fsck_result_goes_on(ret);
	}
	f->fd = -1;
	extract_file_end(x, f->dir);
	f->dir = NULL;
	return ret;
}

static enum fsck_result x_out_file_done(void *priv, void *file,
					const struct out_file *of)
{
	struct x_file *f = file;

	if (f && !of->skipped && of->inode->nlink > 1)
		extract_file_status(priv, of->inode->nid, f->created);
	free(f);
	return FSCK_OK;
}

static enum fsck_result x_out_finish(void *priv, struct report *rep,
				     bool complete)
{
	(void)rep;
	extract_finish(priv, !complete);
	return FSCK_OK;
}

static void x_out_close(void *priv)
{
	extract_close(priv);
}

const struct output_ops extract_output = {
	.room = x_out_room,
	.entry = x_out_entry,
	.dir_end = x_out_dir_end,
	.file_open = x_out_file_open,
	.data = x_out_data,
	.copy = x_out_copy,
	.file_end = x_out_file_end,
	.file_done = x_out_file_done,
	.finish = x_out_finish,
	.close = x_out_close,
};
