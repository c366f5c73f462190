/* SPDX-License-Identifier: MIT */
/*
 * The files a run reads (IMAGE, every --device), known by device and
 * inode: no output may be one of them, since writing it would destroy
 * the image. Outputs named on the command line are refused before
 * anything is opened for writing; an extracted entry never replaces one.
 */
#ifndef FSCK_INPUTS_H
#define FSCK_INPUTS_H

#include <stdbool.h>
#include <sys/stat.h>

/* Note path ("-": standard input) as read; 0, or -ENOMEM. */
int inputs_add(const char *path);

/* The input st is, as named on the command line, or NULL. */
const char *inputs_name(const struct stat *st);

/* The input path names (through symlinks), as named on the command line. */
const char *inputs_named_by(const char *path);

/* Is the entry name in directory dfd (never followed) one of them? */
bool inputs_hold_at(int dfd, const char *name);

void inputs_fini(void);

#endif
