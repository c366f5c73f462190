/* SPDX-License-Identifier: MIT */
/*
 * IMAGE "-": the image on standard input. A regular file or a block
 * device is read in place, by offset (--offset counts from its start, not
 * from where the shell left the file position); anything else, a pipe or
 * a socket, is copied first into an unnamed file in $TMPDIR (default
 * /tmp), gone when the run ends: O_TMPFILE, or where the filesystem has
 * none, a file removed as soon as it is made. A terminal is refused.
 */
#ifndef FSCK_SPOOL_H
#define FSCK_SPOOL_H

#include "util/report.h"

/*
 * The descriptor to read the image from: 0, or the spooled copy. Returns
 * it, or a negative errno after reporting why (-EINTR: interrupted, not
 * reported).
 */
int spool_stdin(struct report *rep);

#endif
