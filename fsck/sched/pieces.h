/* SPDX-License-Identifier: MIT */
/*
 * A regular file split into pieces for the worker pool (the arithmetic of
 * the plan is split.h's): the walker checks the xattrs and the index and
 * creates the file, maps it once to cut it at extent starts, and queues
 * one task per piece with the maps of its extents; pieces decode and
 * write their extents with their worker's context. Of the pieces that
 * fail, only the one at the lowest offset is reported: the whole-file
 * check stops at its first problem, which is that one. Whoever drops the
 * last reference (a piece, or the walker) commits or removes the file and
 * marks its report slot done.
 *
 * When the content is hashed (--manifest, a digest to verify), each piece
 * keeps its decoded bytes, up to a bound, and the ordered window (window.h)
 * hands them to the hash in file order; past the bound, a piece waits for
 * its turn and hashes its bytes itself as they come.
 */
#ifndef FSCK_PIECES_H
#define FSCK_PIECES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "result.h"

struct checker;
struct erofs_inode;
struct erofs_map;
struct file_piece;
struct file_task;
struct fsck_loc;
struct piece_out;
struct split_file;

/* Is the file worth splitting (only with threads)? */
bool pieces_worth(const struct checker *ck, const struct erofs_inode *inode);

struct split_file *split_new(struct file_task *t);
/* Before split_submit(), when the task is not submitted after all. */
void split_free(struct split_file *s);

/*
 * The file's task starts: the walker's part, then the pieces. FSCK_OK or
 * FSCK_REPORTED when the run goes on; otherwise the run is cancelled.
 */
enum fsck_result split_submit(struct checker *ck, struct split_file *s,
			      const struct fsck_loc *loc);

/* A piece's decoded bytes, in order: kept for the hash, or hashed. */
enum fsck_result piece_out_add(struct piece_out *out, const uint8_t *buf,
			       size_t len);
/* The same for a hole of len bytes. */
enum fsck_result piece_out_zeros(struct piece_out *out, uint64_t len);

/*
 * Between extents: should the piece stop, its outcome no longer counting
 * (the run stopped, or a piece before it failed)? Once true, the piece is
 * cut short and its outcome is dropped.
 */
bool piece_cut_short(struct file_piece *p);

/*
 * The extent at pos as the planner mapped it, if it did: pieces are not
 * mapped twice. Past the planner's maps, the piece maps on its own.
 */
bool piece_next_map(struct file_piece *p, uint64_t pos, struct erofs_map *map);

#endif
