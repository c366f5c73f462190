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

/*
 * The most a single write() or pwrite() of the command hands the kernel,
 * into an extracted file, a spool or an archive: Linux backs a write with
 * page-cache folios as large as the write, and folios of 128 KiB or more
 * were slow to come by on a virtual machine that gives its free memory
 * back to its host. There, 50 MB written to a new ext4 file after a few
 * idle seconds took 0.56-0.64 s in writes of 128 KiB to 1 MiB, against
 * 0.02 s in writes of 64 KiB (0.07 s in writes of 4 KiB); extracting
 * live media onto ext4 took 2.5 s instead of 3.3 s at -j1.
 */
#define OUTFILE_WRITE_MAX (64u << 10)

/* The bytes of len to hand one write call. */
static inline size_t outfile_write_len(size_t len)
{
	return len < OUTFILE_WRITE_MAX ? len : OUTFILE_WRITE_MAX;
}

/* Read the caller's umask; first thing in main(), before any thread. */
void outfile_init(void);

/* The caller's umask, as outfile_init() found it. */
mode_t outfile_umask(void);

/* Create (or truncate) path for writing: a descriptor, or -1 and errno. */
int outfile_create(const char *path);

/* $TMPDIR, or /tmp: where spool files go. */
const char *outfile_spool_dir(void);

/*
 * An unnamed file in dir to spool into (where dir has no O_TMPFILE, a
 * hidden name removed at once): a descriptor, or -1 and errno.
 */
int outfile_spool(const char *dir);

#endif
