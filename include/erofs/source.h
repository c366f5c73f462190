/* SPDX-License-Identifier: MIT */
/*
 * Where the bytes of an image come from: a file or block device read in
 * place, an Android sparse image (its chunks indexed at open, read in
 * place: FILL chunks are made up, DONT_CARE reads as zeros), or one
 * logical partition of an Android super image (erofs/lp.h), whose extents
 * lie in another source. docs/android.md describes both containers.
 *
 * Thread safety: a source is read-only once opened; any number of threads
 * may read it at once.
 */
#ifndef EROFS_SOURCE_H
#define EROFS_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "erofs/error.h"

struct erofs_source;

enum erofs_source_kind {
	EROFS_SOURCE_FILE,	/* the file itself */
	EROFS_SOURCE_SPARSE,	/* an Android sparse image */
	EROFS_SOURCE_PARTITION,	/* a logical partition of a super image */
};

/*
 * Open path, or when fd >= 0 a copy of fd, which path then names in
 * messages. An Android sparse image is recognised by its magic and its
 * chunk table checked and indexed: a malformed one is -EFSCORRUPTED
 * naming the chunk and its offset in the file.
 */
int erofs_source_open(struct erofs_source **out, const char *path, int fd,
		      struct erofs_err *err);
void erofs_source_close(struct erofs_source *src);

enum erofs_source_kind erofs_source_kind(const struct erofs_source *src);
/* What names it in messages: the path, or "PATH, partition NAME". */
const char *erofs_source_name(const struct erofs_source *src);
/* The size of what it gives, in bytes (a sparse image's unsparsed size). */
uint64_t erofs_source_size(const struct erofs_source *src);
/* How many pieces it is read as: sparse chunks or partition extents. */
size_t erofs_source_pieces(const struct erofs_source *src);

/*
 * Read len bytes at byte pos. Anything past the end is -EFSCORRUPTED and
 * nothing is read; a failed or short read of the file is -EIO.
 */
int erofs_source_read(const struct erofs_source *src, void *buf, size_t len,
		      uint64_t pos, struct erofs_err *err);

/*
 * How many bytes from pos on are known to read as zeros without reading
 * them: the rest of the DONT_CARE or zero FILL run of a sparse image, or
 * of a ZERO extent of a partition, that holds pos; 0 where pos is in no
 * such run (bytes of the file, which may still be zeros), at or past the
 * end, and for a source checked by a tree (every byte is read).
 */
uint64_t erofs_source_zeros_at(const struct erofs_source *src, uint64_t pos);
/* Is every read of src checked by a dm-verity tree (erofs/verity.h)? */
bool erofs_source_checked(const struct erofs_source *src);
/* How many bytes of src those runs hold in all. */
uint64_t erofs_source_zeros_total(const struct erofs_source *src);
/*
 * Where byte pos of src lies in the file it reads (*filepos): true when
 * it lies in the file as it is (a plain file, a partition's extent), false
 * when it is made up (zeros, a FILL run) or past the end.
 */
bool erofs_source_file_pos(const struct erofs_source *src, uint64_t pos,
			   uint64_t *filepos);

/*
 * The checksums a sparse image carries (CRC32 chunks: the CRC32 of all
 * the unsparsed bytes before them, DONT_CARE counted as zeros), verified
 * by reading everything they cover once. 0 when they match or there are
 * none; -EFSCORRUPTED naming the first chunk that disagrees.
 */
int erofs_source_verify(const struct erofs_source *src, struct erofs_err *err);

#endif
