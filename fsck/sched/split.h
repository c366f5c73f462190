/* SPDX-License-Identifier: MIT */
/*
 * Splitting a large regular file into pieces for the worker pool.
 *
 * A file whose data costs many times a batch to decode is checked (and
 * written) by several tasks, each a run of consecutive extents worth about
 * piece_ns. The walker maps the file once to find where pieces start: a
 * piece always starts at the start of an extent, as the whole-file check
 * maps it, so a piece meets exactly what the whole-file check would meet
 * from there on. This file holds the arithmetic; fsck/pieces.h the tasks.
 */
#ifndef FSCK_SPLIT_H
#define FSCK_SPLIT_H

#include <stdbool.h>
#include <stdint.h>

/* Target cost of one piece: 1.5 ms of decoding. */
#define SPLIT_PIECE_NS 1500000ULL

/* Per extent: mapping it and handing its bytes on. */
#define SPLIT_EXTENT_NS 500ULL

/* A run of extents [start, end); before: stored bytes ahead of it. */
struct split_piece {
	uint64_t start, end;
	uint64_t before;
	uint64_t cost;		/* estimated, ns */
};

struct split_plan {
	uint64_t piece_ns;
	uint64_t size;		/* the file's i_size */
	uint64_t start;		/* of the piece being filled */
	uint64_t cost;		/* of the piece being filled */
	uint64_t before;	/* stored bytes ahead of it */
	uint64_t stored;	/* stored bytes mapped so far */
};

/*
 * The piece cost target: EROFS_FSCK_SPLIT (nanoseconds; 0 never splits)
 * or SPLIT_PIECE_NS.
 */
uint64_t split_piece_ns(void);

/* Cost of len bytes of data at cost_per_kib ns/KiB, saturating. */
uint64_t split_data_cost(uint64_t len, uint64_t cost_per_kib);

/* Is a file of this data cost worth at least two pieces? */
bool split_worth(uint64_t data_ns, uint64_t piece_ns);

void split_plan_init(struct split_plan *p, uint64_t size, uint64_t piece_ns);

/*
 * The extent that ends at end (past the end of the previous one) costs
 * cost and stores stored bytes. When it completes a piece that is not the
 * last, fills *out and returns true.
 */
bool split_plan_add(struct split_plan *p, uint64_t end, uint64_t cost,
		    uint64_t stored, struct split_piece *out);

/* The last piece: from the last cut to i_size. */
void split_plan_last(const struct split_plan *p, struct split_piece *out);

#endif
