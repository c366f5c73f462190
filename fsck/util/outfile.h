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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Read the caller's umask; first thing in main(), before any thread. */
void outfile_init(void);

/* The caller's umask, as outfile_init() found it. */
mode_t outfile_umask(void);

/*
 * An output file named on the command line, written as an extracted file
 * is: under a hidden name beside FILE (beside what FILE links to), renamed
 * over FILE only when complete, so that a run that fails or is
 * interrupted leaves whatever FILE held. A FILE that exists and is not a
 * regular file (a pipe, a device), or is under /dev or /proc (/dev/stdout
 * redirected to a file), is written in place, and so is one in a
 * directory where no other file may be made.
 */
struct outfile {
	int fd;
	int dirfd; /* what target and tmp are relative to */
	bool keep; /* never replace what is at target */
	char *target; /* what the hidden name replaces; NULL: in place */
	char *tmp;
};

/* Open path for writing as above: 0, or a negative errno. */
int outfile_open(struct outfile *of, const char *path);

/*
 * Open name, a plain name in the directory dirfd, as above, for a file
 * whose name the command made (--write-partitions): nothing is followed.
 * Unless replace, what is already at name is kept, then as the file is
 * named (-EEXIST); with replace, a symlink there is replaced, never its
 * target.
 */
int outfile_open_at(struct outfile *of, int dirfd, const char *name,
		    bool replace);

/*
 * Close the file (unless its descriptor was handed on and closed, fd -1)
 * and give it its name: 0, or a negative errno.
 */
int outfile_commit(struct outfile *of);

/* Close the file; a hidden name is removed, FILE is left as it was. */
void outfile_discard(struct outfile *of);

/*
 * All of buf into fd, at off, or at fd's offset when off is negative:
 * how the command writes file data (an extracted file, a spool, an
 * archive), in calls of at most 64 KiB (outfile.c says why), again after
 * EINTR. 0, or a negative errno (-ENOSPC for a call that wrote nothing).
 */
int outfile_write_all(int fd, const void *buf, size_t len, off_t off);

/*
 * How many bytes can still be written to fd: the free space of the
 * filesystem of a regular file (the blocks kept for root counted for
 * root), the size of a block device. false when nothing says (a pipe, a
 * character device such as /dev/null): a writer whose size an image sets
 * checks it before writing, not by filling the disk.
 */
bool outfile_room(int fd, uint64_t *room);

/* $TMPDIR, or /tmp: where spool files go. */
const char *outfile_spool_dir(void);

/*
 * An unnamed file in dir to spool into (where dir has no O_TMPFILE, a
 * hidden name removed at once): a descriptor, or -1 and errno.
 */
int outfile_spool(const char *dir);

#endif
