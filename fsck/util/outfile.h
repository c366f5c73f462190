/* SPDX-License-Identifier: MIT */
/*
 * The files the command writes besides an extracted tree (--tar=FILE,
 * --fs-config=FILE, --file-contexts=FILE, spool files): created with the
 * permissions the caller's umask allows, 0666 & ~umask (spool files 0600
 * & ~umask), whatever extraction later does with the process umask
 * (extract.h sets it to 0 and applies the caller's by hand). The umask is
 * the one the command started with, read once by outfile_init().
 */
#ifndef FSCK_OUTFILE_H
#define FSCK_OUTFILE_H

#include <stddef.h>
#include <sys/types.h>

/* Read the caller's umask; first thing in main(), before any thread. */
void outfile_init(void);

/* The caller's umask, as outfile_init() found it. */
mode_t outfile_umask(void);

/* Create (or truncate) path for writing: a descriptor, or -1 and errno. */
int outfile_create(const char *path);

/*
 * All of buf into fd, at off, or at fd's offset when off is negative:
 * how the command writes file data (an extracted file, a spool, an
 * archive), in calls of at most 64 KiB (outfile.c says why), again after
 * EINTR. 0, or a negative errno (-ENOSPC for a call that wrote nothing).
 */
int outfile_write_all(int fd, const void *buf, size_t len, off_t off);

/* $TMPDIR, or /tmp: where spool files go. */
const char *outfile_spool_dir(void);

/*
 * An unnamed file in dir to spool into (where dir has no O_TMPFILE, a
 * hidden name removed at once): a descriptor, or -1 and errno.
 */
int outfile_spool(const char *dir);

#endif
