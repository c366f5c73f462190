/* SPDX-License-Identifier: MIT */
/*
 * --list: one line per entry, in walk order, like "tar -tv":
 *
 *   drwxr-xr-x 0/0 0 2021-10-02 03:53:10.195016521 hl
 *   -rw-r----- 1000/1000 10000 2022-04-15 05:20:00.000000111 hl/a
 *   hrw-r----- 1000/1000 10000 2022-04-15 05:20:00.000000111 hl/b link to hl/a
 *   lrwxrwxrwx 0/0 1 2021-02-02 11:05:45.713772930 hl/sym -> a
 *   crw-rw-rw- 0/0 1,3 2023-09-08 17:15:59.997941356 special/char-1-3
 *
 * Type and permissions as ls -l shows them ("h" for a further name of a
 * hard-linked inode), numeric owner, size (0 for directories, fifos and
 * sockets, major,minor for devices), mtime in UTC with nanoseconds, the
 * path relative to the start of the walk ("." for the start), then the
 * symlink target or the first name of the inode; names quoted as GNU
 * tar's default quoting shows them in a UTF-8 locale (list.c). Walk order
 * is the byte order of the paths (walk.h).
 */
#ifndef FSCK_LIST_H
#define FSCK_LIST_H

#include <stdio.h>

#include "output/output.h"

/* Add the listing to l, its lines to out. 0 or -ENOMEM. */
int list_add_output(struct outputs *l, FILE *out, struct report *rep);

#endif
