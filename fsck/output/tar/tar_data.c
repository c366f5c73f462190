// SPDX-License-Identifier: MIT
/*
 * A regular file's data while it waits for its turn in the archive: in
 * memory or in a spool, written at its offsets by the pieces in any order,
 * with the holes they punch (tar.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "output/tar/tar_internal.h"
#include "util/grow.h"
#include "util/outfile.h"
#include "util/sparse.h"

static void tar_file_fail(struct tar_file *tf, int err)
{
	int none = 0;

	__atomic_compare_exchange_n(&tf->err, &none, err, false,
				    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

/*
 * Bytes [off, off + len) lie in the file: checked once where data or a
 * hole comes in, and the ranges stored or punched lie within them.
 */
static bool tar_in_file(const struct tar_file *tf, uint64_t off, uint64_t len)
{
	return off <= tf->inode.size && len <= tf->inode.size - off;
}

static int tar_store(struct tar_file *tf, const uint8_t *buf, size_t len,
		     uint64_t off)
{
	int err;

	if (tf->mem) {
		memcpy(tf->mem + off, buf, len);
		return 0;
	}
	/* once a piece failed, the file is left out: the others stop */
	if (__atomic_load_n(&tf->err, __ATOMIC_RELAXED))
		return 0;
	err = outfile_write_all(tf->spool, buf, len, (off_t)off);
	if (err)
		tar_file_fail(tf, -err);
	return 0;
}

/* A range that reads as zeros; zeros: found in the data, not the image's. */
static int tar_add_hole(struct tar_file *tf, uint64_t off, uint64_t len,
			bool zeros)
{
	struct tar_hole *h;
	int ret = 0;

	if (!len)
		return 0;
	/*
	 * The buffer is not zeroed (tar_file_queue()): a hole's bytes are
	 * never archived from it, but a linked file's copy writes it whole.
	 */
	if (tf->mem)
		memset(tf->mem + off, 0, len);
	pthread_mutex_lock(&tf->lock);
	h = tf->nholes ? &tf->holes[tf->nholes - 1] : NULL;
	if (h && h->off + h->len == off) {
		h->len += len;
		h->zeros_end = zeros;
		goto out;
	}
	ret = ARRAY_GROW(tf->holes, tf->holecap, tf->nholes + 1, 8);
	if (ret)
		goto out;
	h = &tf->holes[tf->nholes++];
	h->off = off;
	h->len = len;
	h->zeros_start = h->zeros_end = zeros;
out:
	pthread_mutex_unlock(&tf->lock);
	return ret;
}

int tar_file_hole(struct tar_file *tf, uint64_t off, uint64_t len)
{
	if (!tar_in_file(tf, off, len))
		return -EINVAL;
	return tar_add_hole(tf, off, len, false);
}

/*
 * --sparse: zeros become holes (sparse.h); those of a block that the edge
 * of buf cuts are kept as holes only where the holes around them fill the
 * whole block (tar_sparse_map()).
 */
static int tar_store_sparse(struct tar_file *tf, const uint8_t *buf, size_t len,
			    uint64_t off)
{
	size_t data = 0, skip, end;
	bool whole;
	int ret;

	while (data < len) {
		skip = sparse_next_skip(buf, len, off, data, &end, &whole);
		ret = skip > data ? tar_store(tf, buf + data, skip - data,
					      off + data)
				  : 0;
		if (!ret && skip < len)
			ret = tar_add_hole(tf, off + skip, end - skip, true);
		if (ret)
			return ret;
		data = end;
	}
	return 0;
}

int tar_file_write(struct tar_file *tf, const void *buf, size_t len,
		   uint64_t off)
{
	if (!tar_in_file(tf, off, len))
		return -EINVAL;
	if (tf->tw->sparse)
		return tar_store_sparse(tf, buf, len, off);
	return tar_store(tf, buf, len, off);
}

static int hole_cmp(const void *a, const void *b)
{
	const struct tar_hole *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/*
 * The ends of a merged hole that --sparse found in the data, not at a
 * block boundary: the rest of that block holds data, so they are trimmed
 * to whole blocks. false when nothing is left.
 */
static bool tar_trim_hole(struct tar_hole *h, uint64_t size)
{
	uint64_t start = h->off, end = h->off + h->len;

	if (h->zeros_start && start % SPARSE_BLOCK)
		start += SPARSE_BLOCK - start % SPARSE_BLOCK;
	if (h->zeros_end && end % SPARSE_BLOCK && end != size)
		end -= end % SPARSE_BLOCK;
	if (end <= start)
		return false;
	h->off = start;
	h->len = end - start;
	return true;
}

/*
 * Pieces punched holes in any order: sort and merge them, cut them at
 * i_size (a last extent may map past it), and map the data between.
 */
void tar_sparse_map(struct tar_file *tf)
{
	uint64_t pos = 0, size = tf->inode.size, end;
	struct tar_hole *h = tf->holes;
	size_t i, n = 0;

	if (!tf->nholes)
		return;
	qsort(h, tf->nholes, sizeof(*h), hole_cmp);
	for (i = 0; i < tf->nholes && h[i].off < size; i++) {
		if (h[i].len > size - h[i].off)
			h[i].len = size - h[i].off;
		end = h[i].off + h[i].len;
		if (n && h[n - 1].off + h[n - 1].len >= h[i].off) {
			if (end > h[n - 1].off + h[n - 1].len) {
				h[n - 1].len = end - h[n - 1].off;
				h[n - 1].zeros_end = h[i].zeros_end;
			}
		} else {
			h[n++] = h[i];
		}
	}
	for (i = 0, tf->nholes = 0; i < n; i++)
		if (tar_trim_hole(&h[i], size))
			h[tf->nholes++] = h[i];
	n = tf->nholes;
	if (!n)
		return;
	if (!tf->tw->caps.sparse) {
		tar_losses_add(&tf->tw->losses, TAR_LOST_SPARSE, tf->name);
		return;
	}
	for (i = 0; i < n; pos = h[i].off + h[i].len, i++)
		if (h[i].off > pos)
			archive_entry_sparse_add_entry(
				tf->entry, (la_int64_t)pos,
				(la_int64_t)(h[i].off - pos));
	/* the data after the last hole: an empty run if it ends the file */
	archive_entry_sparse_add_entry(tf->entry, (la_int64_t)pos,
				       (la_int64_t)(size - pos));
}
