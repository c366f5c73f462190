// SPDX-License-Identifier: MIT
/* The archive as an output (output.h): the calls of tar.h, in order. */
#include <sys/stat.h>

#include "erofs/inode.h"
#include "output/tar/tar.h"

static bool tar_out_room(void *priv)
{
	return tar_has_room(priv);
}

static bool tar_out_failed(void *priv)
{
	return tar_failed(priv);
}

static enum fsck_result tar_out_entry(void *priv, const struct out_entry *oe,
				      void **state)
{
	const struct walk_entry *e = oe->e;

	if (!e->first)
		return fsck_result_of(tar_link(priv, e));
	if (S_ISREG(e->inode->mode))
		return fsck_result_of(
			tar_file_begin(priv, e, (struct tar_file **)state));
	/* an entry whose xattrs or target could not be read is left out */
	if (!oe->xattrs_ok || (S_ISLNK(e->inode->mode) && !oe->target))
		return FSCK_OK;
	return fsck_result_of(tar_node(priv, e, oe->target, oe->xl));
}

static bool tar_out_file_room(void *priv, void *file)
{
	return tar_file_has_room(priv, file);
}

static enum fsck_result tar_out_file_queue(void *priv, void *file,
					   const struct out_file *of)
{
	return fsck_result_of(tar_file_queue(priv, file, of->rep, of->loc));
}

static enum fsck_result tar_out_data(void *priv, void *file,
				     const struct out_file *of, const void *buf,
				     size_t len, uint64_t off)
{
	(void)priv;
	(void)of;
	return fsck_result_of(tar_file_write(file, buf, len, off));
}

static enum fsck_result tar_out_hole(void *priv, void *file, uint64_t off,
				     uint64_t len)
{
	(void)priv;
	return fsck_result_of(tar_file_hole(file, off, len));
}

static enum fsck_result tar_out_file_end(void *priv, void *file,
					 const struct out_file *of,
					 enum fsck_result r)
{
	bool stopped = of->skipped || !fsck_result_goes_on(r);

	(void)priv;
	/* a file the run stopped in the middle of did not fail its check */
	if (file)
		tar_file_done(file,
			      r == FSCK_OK && of->data_ok && of->xattrs_ok,
			      !stopped, of->skipped ? NULL : of->xl);
	return FSCK_OK;
}

static enum fsck_result tar_out_finish(void *priv, struct report *rep,
				       bool complete)
{
	return tar_finish(priv, rep, complete) ? FSCK_STOP : FSCK_OK;
}

static void tar_out_close(void *priv)
{
	tar_close(priv);
}

static const struct output_ops tar_output = {
	.room = tar_out_room,
	.failed = tar_out_failed,
	.entry = tar_out_entry,
	.file_room = tar_out_file_room,
	.file_queue = tar_out_file_queue,
	.data = tar_out_data,
	.hole = tar_out_hole,
	.file_end = tar_out_file_end,
	.finish = tar_out_finish,
	.close = tar_out_close,
};

int tar_add_output(struct outputs *l, const struct tar_opts *o,
		   struct report *rep)
{
	struct tar_writer *tw;
	int ret = tar_open(&tw, o, rep);

	if (!ret)
		outputs_add(l, &tar_output, tw, OUT_XATTRS | OUT_DATA);
	return ret;
}
