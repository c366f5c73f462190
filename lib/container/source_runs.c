// SPDX-License-Identifier: MIT
/*
 * A source's bytes as they lie (source.c, erofs/source.h): the file read
 * in place, or its table of runs, each a part of the file, a FILL pattern
 * or zeros. A read finds its first run by binary search and walks on from
 * there, so that a sparse image or a partition costs a look-up per read,
 * not per byte. What every source reads with, a verity source's checks
 * included (verity.c reads its tree and its data here).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "container/container_internal.h"

size_t erofs_seg_find(const struct erofs_source *src, uint64_t pos)
{
	size_t lo = 0, hi = src->nsegs;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (src->segs[mid].start <= pos)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

uint32_t erofs_fill_turned(uint32_t pattern, uint64_t skip)
{
	unsigned int bits = (unsigned int)(skip & 3) * 8;

	return bits ? pattern >> bits | pattern << (32 - bits) : pattern;
}

static void fill(uint8_t *buf, size_t len, uint32_t pattern, uint64_t skip)
{
	size_t done;

	pattern = erofs_fill_turned(pattern, skip);
	if (pattern == (pattern & 0xff) * 0x01010101u) {
		memset(buf, (int)(pattern & 0xff), len);
		return;
	}
	for (done = 0; done < len && done < 4; done++)
		buf[done] = (uint8_t)(pattern >> (8 * done));
	/* the pattern doubles with each copy of what is already there */
	while (done < len) {
		size_t n = done < len - done ? done : len - done;

		memcpy(buf + done, buf, n);
		done += n;
	}
}

static int file_read(const struct erofs_source *src, uint8_t *p, size_t len,
		     uint64_t filepos, uint64_t pos, struct erofs_err *err)
{
	while (len) {
		ssize_t n = pread(src->fd, p, len, (off_t)filepos);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return erofs_error(err, -errno, EROFS_NO_NID, pos,
					   "read error on %s at %llu: %s",
					   src->name, (unsigned long long)pos,
					   strerror(errno));
		if (n == 0)
			return erofs_error(err, -EIO, EROFS_NO_NID, pos,
					   "%s ended early at %llu", src->name,
					   (unsigned long long)pos);
		p += n;
		pos += (uint64_t)n;
		filepos += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

int erofs_source_read_runs(const struct erofs_source *src, void *buf,
			   size_t len, uint64_t pos, struct erofs_err *err)
{
	uint8_t *p = buf;
	size_t i;
	int ret = erofs_bound(pos, len, src->size, "read", src->name, err);

	if (ret || !src->segs)
		return ret ? ret : file_read(src, p, len, pos, pos, err);
	for (i = len ? erofs_seg_find(src, pos) : 0; len; i++) {
		const struct erofs_seg *s = &src->segs[i];
		uint64_t skip = pos - s->start;
		size_t n = (size_t)(src->segs[i + 1].start - pos < len
					    ? src->segs[i + 1].start - pos
					    : len);

		if (s->kind == EROFS_SEG_FILE)
			ret = file_read(src, p, n, s->arg + skip, pos, err);
		else if (s->kind == EROFS_SEG_FILL)
			fill(p, n, (uint32_t)s->arg, skip);
		else
			memset(p, 0, n);
		if (ret)
			return ret;
		p += n;
		pos += n;
		len -= n;
	}
	return 0;
}

static bool seg_zeros(const struct erofs_seg *s)
{
	return s->kind == EROFS_SEG_ZERO ||
	       (s->kind == EROFS_SEG_FILL && !s->arg);
}

uint64_t erofs_source_zeros_at(const struct erofs_source *src, uint64_t pos)
{
	const struct erofs_seg *s;

	if (!src->segs || src->verity || pos >= src->size)
		return 0;
	s = &src->segs[erofs_seg_find(src, pos)];
	return seg_zeros(s) ? s[1].start - pos : 0;
}

bool erofs_source_checked(const struct erofs_source *src)
{
	return src->verity != NULL;
}

uint64_t erofs_source_zeros_total(const struct erofs_source *src)
{
	uint64_t total = 0;
	size_t i;

	if (!src->segs || src->verity)
		return 0;
	for (i = 0; i < src->nsegs; i++)
		if (seg_zeros(&src->segs[i]))
			total += src->segs[i + 1].start - src->segs[i].start;
	return total;
}

bool erofs_source_file_pos(const struct erofs_source *src, uint64_t pos,
			   uint64_t *filepos)
{
	const struct erofs_seg *s;

	if (src->under)
		return erofs_source_file_pos(src->under, pos, filepos);
	if (pos >= src->size)
		return false;
	if (!src->segs) {
		*filepos = pos;
		return true;
	}
	s = &src->segs[erofs_seg_find(src, pos)];
	if (s->kind != EROFS_SEG_FILE)
		return false;
	*filepos = s->arg + (pos - s->start);
	return true;
}
