/* SPDX-License-Identifier: MIT */
/*
 * Standard output through one place that remembers the first failed
 * write (a full disk, a closed pipe read no more, an I/O error), so that
 * no listing, difference, report or help text is lost silently: the run
 * ends by closing standard output and checking that too, and a failure
 * is a message naming the stream and the error, and exit status 8.
 * (--tar=- writes the descriptor itself and reports its own failures.)
 */
#ifndef FSCK_STDOUT_CHECK_H
#define FSCK_STDOUT_CHECK_H

/* Route stdout through the check; first thing in main(). */
void stdout_check_init(void);

/*
 * Flush what is buffered: 0, or the errno of the first failed write,
 * which the caller reports (with exit status 8) in place of the message
 * at exit.
 */
int stdout_check_flush(void);

#endif
