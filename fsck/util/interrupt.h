/* SPDX-License-Identifier: MIT */
/*
 * Interruption by a signal (SIGINT, SIGTERM, SIGHUP; SIGPIPE while
 * extracting). The handler only records the signal; the walker checks
 * between directory entries and the file tasks between extents and
 * pieces of data, and the run then stops the way an operational error
 * stops it: the file being written is removed, nothing more is queued.
 * main() reports the signal and exits with FSCK_EXIT_CANCELLED.
 *
 * A second signal (SIGPIPE aside: every write to the closed pipe raises
 * one), once the first is recorded, terminates the process at once with
 * the default action.
 */
#ifndef FSCK_INTERRUPT_H
#define FSCK_INTERRUPT_H

#include <stdbool.h>

/*
 * Install the handlers (SIGPIPE too with catch_pipe) and clear the record.
 * A signal ignored on entry (nohup, a background job of a script) stays
 * ignored.
 */
void interrupt_install(bool catch_pipe);

/* Put back the dispositions interrupt_install() found. */
void interrupt_restore(void);

/* The signal received, or 0. Safe from any thread. */
int interrupt_signal(void);

static inline bool interrupted(void)
{
	return interrupt_signal() != 0;
}

/* "SIGINT" and so on, for the message. */
const char *interrupt_signal_name(int sig);

#endif
