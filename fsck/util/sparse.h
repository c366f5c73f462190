/* SPDX-License-Identifier: MIT */
/*
 * --sparse: which bytes of a file become holes, one rule for extraction
 * and archives. The unit is SPARSE_BLOCK bytes of zeros at a multiple of
 * SPARSE_BLOCK in the file, whatever the image's block size: that is the
 * block of common target filesystems, and a shorter run of zeros would not
 * free one.
 */
#ifndef FSCK_SPARSE_H
#define FSCK_SPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SPARSE_BLOCK 4096

/*
 * buf holds len bytes of a file from offset off, to be written into a file
 * that reads as zeros wherever nothing is written. The first range at or
 * after from (0, or an *end this gave) that need not be written: a whole
 * aligned block of zeros (*whole), or the zeros of a block cut by an edge
 * of buf, whose other bytes are written, or not, with the bytes around
 * buf: so a block of zeros that two buffers share is written by neither.
 * Its start, or len when there is none; *end is where it ends.
 */
size_t sparse_next_skip(const uint8_t *buf, size_t len, uint64_t off,
			size_t from, size_t *end, bool *whole);

#endif
