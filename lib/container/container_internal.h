/* SPDX-License-Identifier: MIT */
/*
 * The sources of include/erofs/source.h inside the library: source.c
 * reads them, seg_table.c builds their tables of runs, sparse.c indexes a
 * sparse image, lp.c cuts a partition out of a super image.
 */
#ifndef EROFS_LIB_SOURCE_INTERNAL_H
#define EROFS_LIB_SOURCE_INTERNAL_H

#include "erofs/source.h"
#include "erofs/verity.h"

enum erofs_seg_kind {
	EROFS_SEG_FILE,		/* bytes of the file, from arg on */
	EROFS_SEG_FILL,		/* arg's 4 bytes (little-endian) repeated */
	EROFS_SEG_ZERO,		/* zeros */
};

/*
 * A run of the bytes a source gives, from start to the next run's start
 * (the last run of a table is a sentinel at the source's size). A FILL
 * run's pattern starts at start: a run cut out of another keeps the
 * pattern turned so that it does.
 */
struct erofs_seg {
	uint64_t start;
	uint64_t arg : 62;
	uint64_t kind : 2;
};

/* A CRC32 chunk of a sparse image: the CRC32 of the bytes before pos. */
struct erofs_sparse_crc {
	uint64_t pos;		/* in the unsparsed image */
	uint64_t fileoff;	/* of the chunk, for messages */
	uint32_t index;		/* of the chunk, from 0 */
	uint32_t value;
};

struct erofs_source {
	int fd;
	char *name;
	uint64_t size;
	enum erofs_source_kind kind;
	/* NULL: the file read in place; else nsegs runs and a sentinel */
	struct erofs_seg *segs;
	size_t nsegs;
	struct erofs_sparse_crc *crcs;
	size_t ncrcs;
	/* a verity source: every read checked by verity, from under */
	const struct erofs_verity *verity;
	struct erofs_source *under;
};

/* seg_table.c: a table of runs being built, run by run in order. */
struct erofs_seg_table {
	struct erofs_seg *segs;
	size_t n, cap;
	uint64_t end;		/* where the next run starts */
};

/*
 * Add len bytes of the given kind after the runs so far, joined to the
 * last run where they continue it. 0 or -ENOMEM.
 */
int erofs_seg_add(struct erofs_seg_table *t, enum erofs_seg_kind kind,
		  uint64_t arg, uint64_t len);

/*
 * Give src the table (which it takes over, with its sentinel) as its
 * runs: its size is where the table ends. 0 or -ENOMEM.
 */
int erofs_source_set_segs(struct erofs_source *src, struct erofs_seg_table *t);

/*
 * A new source of len bytes of base from byte pos on, for a piece of a
 * partition: the runs of base cut to [pos, pos + len), added to t.
 * -EFSCORRUPTED (past the end of base) or -ENOMEM.
 */
int erofs_source_cut(const struct erofs_source *base, uint64_t pos,
		     uint64_t len, struct erofs_seg_table *t);

/*
 * A partition's source: the runs of t, reading base's file, named name.
 * built is what building t came to (0, or the -errno erofs_seg_add() or
 * erofs_source_cut() returned, err already saying why but for -ENOMEM);
 * t's runs are freed whatever happens. 0, or a negative errno with err
 * saying why.
 */
int erofs_source_partition(struct erofs_source **out,
			   const struct erofs_source *base, const char *name,
			   struct erofs_seg_table *t, int built,
			   struct erofs_err *err);

/*
 * source_runs.c: read len bytes at pos of src as they lie, the file or
 * its runs (never through a tree): erofs_source_read() without a verity
 * source, and what verity.c reads its tree and data with. Bounded as
 * erofs_source_read() is.
 */
int erofs_source_read_runs(const struct erofs_source *src, void *buf,
			   size_t len, uint64_t pos, struct erofs_err *err);
/* The run of src's table holding byte pos (< its size). */
size_t erofs_seg_find(const struct erofs_source *src, uint64_t pos);
/* A FILL run's pattern, turned to begin at byte skip of it. */
uint32_t erofs_fill_turned(uint32_t pattern, uint64_t skip);

/*
 * verity.c: a read of a verity source (erofs_verity_source()): the data
 * blocks it touches read whole and checked against the tree.
 */
int erofs_verity_read(const struct erofs_verity *v, void *buf, size_t len,
		      uint64_t pos, struct erofs_err *err);

/* sparse.c: index the sparse image open in src (file_size bytes). */
int erofs_sparse_index(struct erofs_source *src, uint64_t file_size,
		       struct erofs_err *err);
/* Does the file start with a sparse header's magic? */
bool erofs_sparse_magic(const void *head, size_t len);

/*
 * Copy len bytes at byte pos of src to byte off of fd in the kernel
 * (copy_file_range): 0, EROFS_COPY_REFUSED where the bytes are not one
 * run of the file, or a negative errno (an output's failure is recorded
 * with err->output set).
 */
int erofs_source_copy(const struct erofs_source *src, uint64_t pos,
		      uint64_t len, int fd, uint64_t off,
		      struct erofs_err *err);

#endif
