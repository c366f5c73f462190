// SPDX-License-Identifier: MIT
/*
 * Sources (erofs/source.h): a file read in place, or a table of runs
 * (container_internal.h) over it, each a part of the file, a FILL pattern
 * or zeros, read by source_runs.c; or a verity source, whose reads
 * verity.c checks. A copy in the kernel is made only from one run of the
 * file, never from a verity source.
 */
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef HAVE_ZLIB
#include <zlib.h>
#endif

#include "erofs/data.h"
#include "internal.h"
#include "container/container_internal.h"

static int file_size(int fd, uint64_t *size)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (S_ISREG(st.st_mode)) {
		*size = (uint64_t)st.st_size;
		return 0;
	}
	if (S_ISBLK(st.st_mode))
		return ioctl(fd, BLKGETSIZE64, size) ? -errno : 0;
	return -EINVAL;
}

static int no_memory(struct erofs_err *err)
{
	return erofs_error(err, -ENOMEM, EROFS_NO_NID, EROFS_NO_OFFSET,
			   "out of memory");
}

static struct erofs_source *source_new(int fd, const char *name)
{
	struct erofs_source *src = calloc(1, sizeof(*src));

	if (!src)
		return NULL;
	src->name = strdup(name);
	if (!src->name) {
		free(src);
		return NULL;
	}
	src->fd = fd;
	return src;
}

/* Is it a sparse image? Reads its first bytes, if it has them. */
static int looks_sparse(struct erofs_source *src, uint64_t size, bool *sparse,
			struct erofs_err *err)
{
	uint8_t head[4];

	*sparse = false;
	src->size = size;
	if (size < sizeof(head))
		return 0;
	if (erofs_source_read(src, head, sizeof(head), 0, err))
		return err->code;
	*sparse = erofs_sparse_magic(head, sizeof(head));
	return 0;
}

int erofs_source_open(struct erofs_source **out, const char *path, int fd,
		      struct erofs_err *err)
{
	struct erofs_source *src;
	uint64_t size;
	bool sparse;
	int ret;

	*out = NULL;
	if (fd >= 0)
		fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	else
		fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return erofs_error(err, -errno, EROFS_NO_NID, EROFS_NO_OFFSET,
				   "cannot open %s: %s", path, strerror(errno));
	ret = file_size(fd, &size);
	if (ret) {
		close(fd);
		return erofs_error(err, ret, EROFS_NO_NID, EROFS_NO_OFFSET,
				   "%s is not a regular file or block device",
				   path);
	}
	src = source_new(fd, path);
	if (!src) {
		close(fd);
		return no_memory(err);
	}
	ret = looks_sparse(src, size, &sparse, err);
	if (!ret && sparse)
		ret = erofs_sparse_index(src, size, err);
	if (ret) {
		erofs_source_close(src);
		return ret;
	}
	*out = src;
	return 0;
}

int erofs_source_partition(struct erofs_source **out,
			   const struct erofs_source *base, const char *name,
			   struct erofs_seg_table *t, int built,
			   struct erofs_err *err)
{
	int fd, ret = built == -ENOMEM ? no_memory(err) : built;

	*out = NULL;
	if (ret)
		goto out;
	fd = fcntl(base->fd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0) {
		ret = erofs_error(err, -errno, EROFS_NO_NID, EROFS_NO_OFFSET,
				  "%s: %s", base->name, strerror(errno));
		goto out;
	}
	*out = source_new(fd, name);
	if (!*out) {
		close(fd);
		ret = no_memory(err);
		goto out;
	}
	(*out)->kind = EROFS_SOURCE_PARTITION;
	if (erofs_source_set_segs(*out, t)) {
		erofs_source_close(*out);
		*out = NULL;
		ret = no_memory(err);
	}
out:
	free(t->segs);
	t->segs = NULL;
	return ret;
}

void erofs_source_close(struct erofs_source *src)
{
	if (!src)
		return;
	if (src->fd >= 0)
		close(src->fd);
	erofs_source_close(src->under);
	free(src->segs);
	free(src->crcs);
	free(src->name);
	free(src);
}

enum erofs_source_kind erofs_source_kind(const struct erofs_source *src)
{
	return src->kind;
}

const char *erofs_source_name(const struct erofs_source *src)
{
	return src->name;
}

uint64_t erofs_source_size(const struct erofs_source *src)
{
	return src->size;
}

size_t erofs_source_pieces(const struct erofs_source *src)
{
	if (src->under)
		return erofs_source_pieces(src->under);
	return src->segs ? src->nsegs : 1;
}


int erofs_source_read(const struct erofs_source *src, void *buf, size_t len,
		      uint64_t pos, struct erofs_err *err)
{
	int ret;

	if (!src->verity)
		return erofs_source_read_runs(src, buf, len, pos, err);
	ret = erofs_bound(pos, len, src->size, "read", src->name, err);
	return ret ? ret : erofs_verity_read(src->verity, buf, len, pos, err);
}

int erofs_source_cut(const struct erofs_source *base, uint64_t pos,
		     uint64_t len, struct erofs_seg_table *t)
{
	size_t i;

	if (!erofs_range_ok(pos, len, base->size))
		return -EFSCORRUPTED;
	if (!base->segs)
		return erofs_seg_add(t, EROFS_SEG_FILE, pos, len);
	for (i = len ? erofs_seg_find(base, pos) : 0; len; i++) {
		const struct erofs_seg *s = &base->segs[i];
		uint64_t skip = pos - s->start;
		uint64_t n = base->segs[i + 1].start - pos;
		uint64_t arg = s->arg;
		int ret;

		n = n < len ? n : len;
		if (s->kind == EROFS_SEG_FILE)
			arg += skip;
		else if (s->kind == EROFS_SEG_FILL)
			arg = erofs_fill_turned((uint32_t)arg, skip);
		ret = erofs_seg_add(t, s->kind, arg, n);
		if (ret)
			return ret;
		pos += n;
		len -= n;
	}
	return 0;
}

/*
 * copy_file_range() cannot copy between these files: another filesystem,
 * a kind of file it does not copy, an output opened for appending, or no
 * copy_file_range() at all; 0 copied is taken as the same.
 */
static bool copy_refused(int err)
{
	return !err || err == EXDEV || err == EINVAL || err == ENOSYS ||
	       err == EOPNOTSUPP || err == EBADF;
}

/* The failure of a copy, recorded as the output's. */
static int copy_failed(struct erofs_err *err, int code, uint64_t off)
{
	bool first = !err->code;

	erofs_error(err, -code, EROFS_NO_NID, EROFS_NO_OFFSET,
		    "copy to the output at %llu: %s", (unsigned long long)off,
		    strerror(code));
	if (first)
		err->output = true;
	return -code;
}

int erofs_source_copy(const struct erofs_source *src, uint64_t pos,
		      uint64_t len, int fd, uint64_t off, struct erofs_err *err)
{
	loff_t in = (loff_t)pos, out = (loff_t)off;
	ssize_t n;
	int ret = erofs_bound(pos, len, src->size, "copy", src->name, err);

	if (ret)
		return ret;
	/* what a verity source hands out is what it checked, in memory */
	if (src->verity)
		return EROFS_COPY_REFUSED;
	if (src->segs) {
		const struct erofs_seg *s =
			&src->segs[erofs_seg_find(src, pos)];

		if (s->kind != EROFS_SEG_FILE || s[1].start - pos < len)
			return EROFS_COPY_REFUSED;
		in = (loff_t)(s->arg + (pos - s->start));
	}
	while (len) {
		n = copy_file_range(src->fd, &in, fd, &out,
				    len < SSIZE_MAX ? (size_t)len : SSIZE_MAX,
				    0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n > 0) {
			len -= (uint64_t)n;
			continue;
		}
		if (copy_refused(n ? errno : 0))
			return EROFS_COPY_REFUSED;
		return copy_failed(err, errno, (uint64_t)out);
	}
	return 0;
}

#ifdef HAVE_ZLIB
/*
 * The CRC of crc's bytes followed by len bytes of a 4-byte pattern (from
 * its first byte on), in steps that double: a DONT_CARE run of terabytes
 * costs a few hundred combinations, not a pass over its zeros.
 */
static uLong crc_pattern(uLong crc, uint32_t pattern, uint64_t len)
{
	uint8_t p[4] = { (uint8_t)pattern, (uint8_t)(pattern >> 8),
			 (uint8_t)(pattern >> 16), (uint8_t)(pattern >> 24) };
	uLong piece = crc32(0, p, 4), run = crc32(0, Z_NULL, 0);
	uint64_t piece_len = 4, run_len = 0, whole = len / 4;

	while (whole) {
		if (whole & 1) {
			run = crc32_combine64(run, piece, (z_off64_t)piece_len);
			run_len += piece_len;
		}
		whole >>= 1;
		if (whole) {
			piece = crc32_combine64(piece, piece,
						(z_off64_t)piece_len);
			piece_len *= 2;
		}
	}
	crc = crc32_combine64(crc, run, (z_off64_t)run_len);
	return crc32(crc, p, (uInt)(len & 3));
}

/* Feed the CRC with the bytes [*pos, end) of src. */
static int crc_through(const struct erofs_source *src, uint64_t *pos,
		       uint64_t end, uLong *crc, uint8_t *buf, size_t bufsz,
		       struct erofs_err *err)
{
	while (*pos < end) {
		const struct erofs_seg *s =
			&src->segs[erofs_seg_find(src, *pos)];
		uint64_t n = (s[1].start < end ? s[1].start : end) - *pos;
		int ret;

		if (s->kind != EROFS_SEG_FILE) {
			/* runs of a sparse image start on whole blocks */
			*crc = crc_pattern(
				*crc,
				s->kind == EROFS_SEG_FILL
					? erofs_fill_turned((uint32_t)s->arg,
							    *pos - s->start)
					: 0,
				n);
			*pos += n;
			continue;
		}
		n = n < bufsz ? n : bufsz;
		ret = erofs_stop_asked(err);
		if (!ret)
			ret = erofs_source_read(src, buf, (size_t)n, *pos, err);
		if (ret)
			return ret;
		*crc = crc32(*crc, buf, (uInt)n);
		*pos += n;
	}
	return 0;
}

int erofs_source_verify(const struct erofs_source *src, struct erofs_err *err)
{
	const size_t bufsz = 1 << 20;
	uLong crc = crc32(0, Z_NULL, 0);
	uint64_t pos = 0;
	uint8_t *buf;
	size_t i;
	int ret = 0;

	if (!src->ncrcs)
		return 0;
	buf = malloc(bufsz);
	if (!buf)
		return no_memory(err);
	for (i = 0; i < src->ncrcs && !ret; i++) {
		const struct erofs_sparse_crc *c = &src->crcs[i];

		ret = crc_through(src, &pos, c->pos, &crc, buf, bufsz, err);
		if (!ret && (uint32_t)crc != c->value)
			ret = erofs_error(
				err, -EFSCORRUPTED, EROFS_NO_NID, c->fileoff,
				"sparse image %s: CRC32 chunk %u says %08x, the %llu bytes before it give %08x",
				src->name, c->index, c->value,
				(unsigned long long)c->pos, (uint32_t)crc);
	}
	free(buf);
	return ret;
}
#else
int erofs_source_verify(const struct erofs_source *src, struct erofs_err *err)
{
	if (!src->ncrcs)
		return 0;
	return erofs_error(
		err, -EOPNOTSUPP, EROFS_NO_NID, EROFS_NO_OFFSET,
		"sparse image %s: its CRC32 chunks are not verified by a build without zlib",
		src->name);
}
#endif
