// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "erofs/inode.h"
#include "output/cat.h"
#include "util/outfile.h"
#include "walk/walk.h"

struct cat {
	struct cat_opts o;
	struct report *rep;
	size_t held; /* walker: bytes waiting in memory */
	int err; /* the first failed write, or 0 */
};

struct cat_file {
	uint64_t size;
	uint8_t *mem; /* the data, or NULL: */
	int spool; /* in this unnamed file, or -1 */
	bool queued;
	int err; /* atomic: a write into the spool failed */
};

/* The --cat operand entry e is, or -1 (any file, with a selection). */
static int cat_named(const struct cat *c, const struct walk_entry *e)
{
	unsigned int i;

	for (i = 0; i < c->o.n; i++)
		if (strlen(c->o.rels[i]) == e->rellen &&
		    !memcmp(c->o.rels[i], e->rel, e->rellen))
			return (int)i;
	return -1;
}

static const char *cat_type(mode_t mode)
{
	return S_ISDIR(mode)   ? "a directory"
	       : S_ISLNK(mode) ? "a symlink"
			       : "a special file";
}

static enum fsck_result cat_entry(void *priv, const struct out_entry *oe,
				  void **state)
{
	struct cat *c = priv;
	const struct walk_entry *e = oe->e;
	int i = cat_named(c, e);
	struct cat_file *f;

	if (i < 0)
		return FSCK_OK;
	if (!S_ISREG(e->inode->mode)) {
		report_failure(oe->rep, oe->loc,
			       "--cat=%s: %s, not a regular file",
			       c->o.paths[i], cat_type(e->inode->mode));
		return FSCK_REPORTED;
	}
	/* a later name of a file met before: its data came with the first */
	if (!e->first)
		return FSCK_OK;
	f = calloc(1, sizeof(*f));
	if (!f)
		return FSCK_NOMEM;
	f->size = e->inode->size;
	f->spool = -1;
	*state = f;
	return FSCK_OK;
}

static uint64_t cat_mem_bytes(const struct cat_file *f)
{
	return f->size <= CAT_MEM_FILE ? f->size : 0;
}

static bool cat_file_room(void *priv, void *file)
{
	struct cat *c = priv;
	struct cat_file *f = file;

	return !f || !c->held || c->held + cat_mem_bytes(f) <= CAT_WINDOW_BYTES;
}

static enum fsck_result cat_file_queue(void *priv, void *file,
				       const struct out_file *of)
{
	struct cat *c = priv;
	struct cat_file *f = file;

	if (!f)
		return FSCK_OK;
	if (f->size <= CAT_MEM_FILE) {
		f->mem = calloc(1, f->size ? (size_t)f->size : 1);
		if (!f->mem)
			return FSCK_NOMEM;
		c->held += f->size;
	} else {
		f->spool = outfile_spool(outfile_spool_dir());
		if (f->spool < 0) {
			report_fatal_at(
				of->rep, of->loc, -errno,
				"--cat: cannot make a spool file in %s (TMPDIR): %s",
				outfile_spool_dir(), strerror(errno));
			return FSCK_STOP;
		}
	}
	f->queued = true;
	return FSCK_OK;
}

static enum fsck_result cat_data(void *priv, void *file,
				 const struct out_file *of, const void *buf,
				 size_t len, uint64_t off)
{
	struct cat_file *f = file;
	int err;

	(void)priv;
	(void)of;
	if (off > f->size || len > f->size - off)
		return FSCK_OK;
	/* holes are zeros already: the memory is cleared, a spool has them */
	if (f->mem) {
		memcpy(f->mem + off, buf, len);
		return FSCK_OK;
	}
	err = outfile_write_all(f->spool, buf, len, (off_t)off);
	if (err)
		__atomic_store_n(&f->err, -err, __ATOMIC_RELAXED);
	return FSCK_OK;
}

/* The whole of f to standard output. */
static int cat_write(struct cat *c, struct cat_file *f)
{
	uint8_t *buf;
	uint64_t off = 0;
	ssize_t n;
	size_t chunk;

	if (f->mem)
		return fwrite(f->mem, 1, (size_t)f->size, c->o.out) ==
				       (size_t)f->size
			       ? 0
			       : -EIO;
	buf = malloc(1u << 20);
	if (!buf)
		return -ENOMEM;
	while (off < f->size) {
		chunk = f->size - off < (1u << 20) ? (size_t)(f->size - off)
						   : 1u << 20;
		n = pread(f->spool, buf, chunk, (off_t)off);
		if (n <= 0 || fwrite(buf, 1, (size_t)n, c->o.out) != (size_t)n)
			break;
		off += (uint64_t)n;
	}
	free(buf);
	return off == f->size ? 0 : -EIO;
}

static void cat_file_free(struct cat *c, struct cat_file *f)
{
	if (!f)
		return;
	if (f->mem)
		c->held -= f->size;
	free(f->mem);
	if (f->spool >= 0)
		close(f->spool);
	free(f);
}

static enum fsck_result cat_file_done(void *priv, void *file,
				      const struct out_file *of)
{
	struct cat *c = priv;
	struct cat_file *f = file;
	enum fsck_result r = FSCK_OK;
	int err;

	if (!f)
		return FSCK_OK;
	err = __atomic_load_n(&f->err, __ATOMIC_RELAXED);
	if (err) {
		report_failure(of->rep, of->loc,
			       "--cat: cannot keep the data: %s",
			       strerror(err));
		r = FSCK_REPORTED;
	} else if (f->queued && !of->skipped && of->data_ok) {
		/* a file whose data failed the check is reported, not written */
		err = cat_write(c, f);
		if (err == -ENOMEM)
			r = FSCK_NOMEM;
	}
	cat_file_free(c, f);
	return r;
}

static void cat_close(void *priv)
{
	free(priv);
}

static const struct output_ops cat_output = {
	.entry = cat_entry,
	.file_room = cat_file_room,
	.file_queue = cat_file_queue,
	.data = cat_data,
	.file_done = cat_file_done,
	.close = cat_close,
};

int cat_add_output(struct outputs *l, const struct cat_opts *o,
		   struct report *rep)
{
	struct cat *c = calloc(1, sizeof(*c));

	if (!c) {
		report_nomem(rep, NULL);
		return -ENOMEM;
	}
	c->o = *o;
	c->rep = rep;
	outputs_add(l, &cat_output, c, OUT_DATA);
	return 0;
}
