/* SPDX-License-Identifier: MIT */
/*
 * The progress line: on a terminal, a thread redraws one line on stderr a
 * few times a second (entries walked, file bytes done, rate, estimated time
 * left). Messages printed meanwhile hide it first (progress_hide), so that
 * they never share a line with it.
 */
#ifndef FSCK_PROGRESS_H
#define FSCK_PROGRESS_H

#include <stdint.h>

/* Updated with atomic adds by the walker and the tasks. */
struct progress_counters {
	uint64_t entries;	/* entries visited */
	uint64_t bytes;		/* file bytes checked or written */
	uint64_t stored;	/* bytes of the image those came from */
};

struct progress;

/*
 * Start redrawing for counters c. total_stored and total_inodes (from the
 * superblock) give the estimate of what is left. NULL if the thread could
 * not start: the run goes on without a progress line.
 */
struct progress *progress_start(const struct progress_counters *c,
				uint64_t total_stored, uint64_t total_inodes);
/* Erase the line and stop the thread; p may be NULL. */
void progress_stop(struct progress *p);

/* Take the line off the screen until progress_show(); p may be NULL. */
void progress_hide(struct progress *p);
void progress_show(struct progress *p);

#endif
