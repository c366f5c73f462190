/* SPDX-License-Identifier: MIT */
/*
 * The packed inode's extents that no file's read decoded, after the walk
 * (check_packed_rest()): when a selection leaves files out, that is most
 * of the packed inode, so each extent is a task, decoded by whichever
 * thread is free, and reports in the extents' order.
 */
#ifndef FSCK_PACKED_REST_H
#define FSCK_PACKED_REST_H

struct checker;

/* After every file's task is done: 0, or a negative errno that stops. */
int packed_rest_check(struct checker *ck);

#endif
