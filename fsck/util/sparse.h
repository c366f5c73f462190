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

#include <stddef.h>
#include <stdint.h>

#define SPARSE_BLOCK 4096

/*
 * buf holds len bytes of a file from offset off. The index in buf, at or
 * after from, where the first whole aligned block of zeros starts, or len
 * when there is none.
 */
size_t sparse_next_hole(const uint8_t *buf, size_t len, uint64_t off,
			size_t from);

#endif
