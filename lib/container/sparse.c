// SPDX-License-Identifier: MIT
/*
 * Android sparse images (docs/android.md, "Sparse images"): the chunk
 * table is read once, checked, and made a table of runs of the source
 * (source_internal.h), so that the image is then read in place by block.
 * android-libsparse reads a sparse image only as a whole, chunk after
 * chunk, and has no read at an offset: hence this index.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "erofs/format.h"
#include "internal.h"
#include "container/container_internal.h"

#define SPARSE_MAGIC 0xed26ff3au
#define SPARSE_MAJOR 1
#define SPARSE_HEADER_MIN 28
#define SPARSE_CHUNK_HEADER_MIN 12

enum {
	CHUNK_RAW = 0xcac1,
	CHUNK_FILL = 0xcac2,
	CHUNK_DONT_CARE = 0xcac3,
	CHUNK_CRC32 = 0xcac4,
};

/* How many chunks are indexed between two looks at erofs_stop_asked(). */
#define STOP_CHECK_CHUNKS 4096

/* How much of the chunk table is read at once. */
#define HEADER_WINDOW (64u << 10)

struct sparse_reader {
	const struct erofs_source *src;
	uint64_t file_size;
	uint32_t blksz;
	uint32_t total_blks;
	uint32_t total_chunks;
	uint32_t file_hdr_sz;
	uint32_t chunk_hdr_sz;
	/* a window of the file, for chunk headers and FILL values */
	uint8_t *win;
	uint64_t win_pos;
	size_t win_len;
	/* the chunk being read, for messages */
	uint32_t index;
	uint64_t chunk_pos;
	size_t crc_cap; /* room in src->crcs */
};

bool erofs_sparse_magic(const void *head, size_t len)
{
	return len >= 4 && erofs_get32(head) == SPARSE_MAGIC;
}

/* len bytes at file position pos: a pointer into the window. */
static int sparse_bytes(struct sparse_reader *r, uint64_t pos, size_t len,
			const uint8_t **p, struct erofs_err *err)
{
	ssize_t n;

	if (pos < r->win_pos || pos + len > r->win_pos + r->win_len) {
		size_t want = HEADER_WINDOW;

		if (r->file_size - pos < want)
			want = (size_t)(r->file_size - pos);
		do
			n = pread(r->src->fd, r->win, want, (off_t)pos);
		while (n < 0 && errno == EINTR);
		if (n < 0)
			return erofs_error(err, -errno, EROFS_NO_NID, pos,
					   "read error on %s at %llu: %s",
					   r->src->name,
					   (unsigned long long)pos,
					   strerror(errno));
		r->win_pos = pos;
		r->win_len = (size_t)n;
		if (r->win_len < len)
			return erofs_error(err, -EIO, EROFS_NO_NID, pos,
					   "%s ended early at %llu",
					   r->src->name,
					   (unsigned long long)pos);
	}
	*p = r->win + (pos - r->win_pos);
	return 0;
}

static int header_bad(const struct sparse_reader *r, struct erofs_err *err,
		      const char *what)
{
	return erofs_error(err, -EFSCORRUPTED, EROFS_NO_NID, 0,
			   "sparse image %s: header: %s", r->src->name, what);
}

static int read_header(struct sparse_reader *r, struct erofs_err *err)
{
	const uint8_t *h;
	int ret;

	if (r->file_size < SPARSE_HEADER_MIN)
		return header_bad(r, err, "the file is shorter than a header");
	ret = sparse_bytes(r, 0, SPARSE_HEADER_MIN, &h, err);
	if (ret)
		return ret;
	if (erofs_get16(h + 4) != SPARSE_MAJOR)
		return erofs_error(
			err, -EOPNOTSUPP, EROFS_NO_NID, 0,
			"sparse image %s: format version %u.%u, this build reads 1.x",
			r->src->name, erofs_get16(h + 4), erofs_get16(h + 6));
	r->file_hdr_sz = erofs_get16(h + 8);
	r->chunk_hdr_sz = erofs_get16(h + 10);
	r->blksz = erofs_get32(h + 12);
	r->total_blks = erofs_get32(h + 16);
	r->total_chunks = erofs_get32(h + 20);
	if (r->file_hdr_sz < SPARSE_HEADER_MIN || r->file_hdr_sz > r->file_size)
		return header_bad(r, err, "bad header size");
	if (r->chunk_hdr_sz < SPARSE_CHUNK_HEADER_MIN)
		return header_bad(r, err, "bad chunk header size");
	if (!r->blksz || r->blksz % 4)
		return header_bad(r, err,
				  "the block size is not a multiple of 4");
	return 0;
}

static int chunk_bad(const struct sparse_reader *r, struct erofs_err *err,
		     const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int chunk_bad(const struct sparse_reader *r, struct erofs_err *err,
		     const char *fmt, ...)
{
	char where[EROFS_ERR_MSG_MAX];
	va_list ap;
	int ret;

	if (!erofs_err_free(err))
		return -EFSCORRUPTED;
	snprintf(where, sizeof(where), "sparse image %s: chunk %u at byte %llu",
		 r->src->name, r->index, (unsigned long long)r->chunk_pos);
	va_start(ap, fmt);
	ret = erofs_errorv(err, -EFSCORRUPTED, EROFS_NO_NID, r->chunk_pos,
			   where, fmt, ap);
	va_end(ap);
	return ret;
}

static int add_crc(struct erofs_source *src, struct sparse_reader *r,
		   uint64_t pos, uint32_t value)
{
	/* doubled as it fills: a million CRC32 chunks, not a million copies */
	if (erofs_grow(&src->crcs, &r->crc_cap, src->ncrcs + 1,
		       sizeof(*src->crcs), 16))
		return -ENOMEM;
	src->crcs[src->ncrcs++] = (struct erofs_sparse_crc){
		.pos = pos,
		.fileoff = r->chunk_pos,
		.index = r->index,
		.value = value,
	};
	return 0;
}

/* The run a chunk of type with data_len bytes after its header gives. */
static int chunk_run(struct sparse_reader *r, struct erofs_seg_table *t,
		     struct erofs_source *src, unsigned int type,
		     uint32_t blocks, uint64_t data_len, struct erofs_err *err)
{
	uint64_t data = r->chunk_pos + r->chunk_hdr_sz;
	uint64_t len = (uint64_t)blocks * r->blksz;
	const uint8_t *v;
	int ret;

	switch (type) {
	case CHUNK_RAW:
		if (data_len != len)
			return chunk_bad(
				r, err,
				"%llu bytes of data for %u blocks of %u bytes",
				(unsigned long long)data_len, blocks, r->blksz);
		return erofs_seg_add(t, EROFS_SEG_FILE, data, len);
	case CHUNK_FILL:
	case CHUNK_CRC32:
		if (data_len != 4)
			return chunk_bad(
				r, err,
				"%s chunk with %llu bytes of data, not 4",
				type == CHUNK_FILL ? "a FILL" : "a CRC32",
				(unsigned long long)data_len);
		ret = sparse_bytes(r, data, 4, &v, err);
		if (ret)
			return ret;
		if (type == CHUNK_FILL)
			return erofs_seg_add(t, EROFS_SEG_FILL, erofs_get32(v),
					     len);
		if (blocks)
			return chunk_bad(r, err,
					 "a CRC32 chunk that claims %u blocks",
					 blocks);
		return add_crc(src, r, t->end, erofs_get32(v));
	case CHUNK_DONT_CARE:
		if (data_len)
			return chunk_bad(
				r, err,
				"a DONT_CARE chunk with %llu bytes of data",
				(unsigned long long)data_len);
		return erofs_seg_add(t, EROFS_SEG_ZERO, 0, len);
	}
	return chunk_bad(r, err, "unknown chunk type 0x%04x", type);
}

/* The chunk at r->chunk_pos, added to t; *next: where the next one is. */
static int read_chunk(struct sparse_reader *r, struct erofs_seg_table *t,
		      struct erofs_source *src, uint64_t *blocks_so_far,
		      uint64_t *next, struct erofs_err *err)
{
	const uint8_t *h;
	uint32_t blocks, total;
	unsigned int type;
	int ret;

	if (r->file_size - r->chunk_pos < r->chunk_hdr_sz)
		return chunk_bad(
			r, err,
			"past the end of the file (%llu bytes), %u of %u chunks read",
			(unsigned long long)r->file_size, r->index,
			r->total_chunks);
	ret = sparse_bytes(r, r->chunk_pos, SPARSE_CHUNK_HEADER_MIN, &h, err);
	if (ret)
		return ret;
	type = erofs_get16(h);
	blocks = erofs_get32(h + 4);
	total = erofs_get32(h + 8);
	if (total < r->chunk_hdr_sz || total > r->file_size - r->chunk_pos)
		return chunk_bad(
			r, err,
			"a size of %u bytes, past the end of the file (%llu bytes)",
			total, (unsigned long long)r->file_size);
	if (blocks > r->total_blks - *blocks_so_far)
		return chunk_bad(
			r, err,
			"%u blocks after %llu, past the %u blocks of the header",
			blocks, (unsigned long long)*blocks_so_far,
			r->total_blks);
	ret = chunk_run(r, t, src, type, blocks, total - r->chunk_hdr_sz, err);
	if (ret == -ENOMEM)
		return erofs_error(err, -ENOMEM, EROFS_NO_NID, EROFS_NO_OFFSET,
				   "out of memory");
	*blocks_so_far += blocks;
	*next = r->chunk_pos + total;
	return ret;
}

int erofs_sparse_index(struct erofs_source *src, uint64_t file_size,
		       struct erofs_err *err)
{
	struct sparse_reader r = { .src = src, .file_size = file_size };
	struct erofs_seg_table t = { 0 };
	uint64_t blocks = 0, pos;
	int ret;

	r.win = malloc(HEADER_WINDOW);
	if (!r.win)
		return erofs_error(err, -ENOMEM, EROFS_NO_NID, EROFS_NO_OFFSET,
				   "out of memory");
	ret = read_header(&r, err);
	for (pos = r.file_hdr_sz; !ret && r.index < r.total_chunks; r.index++) {
		r.chunk_pos = pos;
		ret = read_chunk(&r, &t, src, &blocks, &pos, err);
		if (!ret && !(r.index % STOP_CHECK_CHUNKS))
			ret = erofs_stop_asked(err);
	}
	if (!ret && blocks != r.total_blks)
		ret = erofs_error(
			err, -EFSCORRUPTED, EROFS_NO_NID, 0,
			"sparse image %s: its %u chunks hold %llu blocks, the header says %u",
			src->name, r.total_chunks, (unsigned long long)blocks,
			r.total_blks);
	if (!ret && erofs_source_set_segs(src, &t))
		ret = erofs_error(err, -ENOMEM, EROFS_NO_NID, EROFS_NO_OFFSET,
				  "out of memory");
	if (!ret)
		src->kind = EROFS_SOURCE_SPARSE;
	free(t.segs);
	free(r.win);
	return ret;
}
