/* SPDX-License-Identifier: MIT */
/*
 * What one step of the command came to: checking an entry (check/, the
 * visitor and the scheduling of files, sched/) or writing it out (every
 * output's call, output.h). The library speaks negative errno values with
 * an error record (erofs/error.h), and so do fsck's parts that only
 * succeed or fail (the walk, the manifest's and the archive's writers,
 * Android metadata): they become one of these where they are called, in
 * one place (fsck_result_of(), below), and go back to errno values only
 * for the worker pool and the walker, in one place too (check_errno(),
 * check_internal.h).
 *
 * A problem in the image, or with one output file, is reported where it
 * is found and the run goes on (FSCK_REPORTED). Running out of memory is
 * returned as such, so that the caller that knows the entry reports it
 * (report_nomem) and the run stops. FSCK_STOP stops the run for a reason
 * already reported, or for an interrupt (interrupt.h), which the verdict
 * reports.
 */
#ifndef FSCK_RESULT_H
#define FSCK_RESULT_H

#include <errno.h>
#include <stdbool.h>

enum fsck_result {
	FSCK_OK = 0,
	FSCK_REPORTED,		/* a problem was reported; go on */
	FSCK_NOMEM,		/* out of memory: report it, then stop */
	FSCK_STOP,		/* stop the run; already reported */
};

/* Whether the run goes on after a step that came to r. */
static inline bool fsck_result_goes_on(enum fsck_result r)
{
	return r == FSCK_OK || r == FSCK_REPORTED;
}

/*
 * A negative errno of the library or of a part of fsck that only succeeds
 * or fails (already reported, but for -ENOMEM, which the caller that knows
 * the entry reports), or a positive count of problems reported: the one
 * place such a value becomes a result.
 */
static inline enum fsck_result fsck_result_of(int ret)
{
	if (ret > 0)
		return FSCK_REPORTED;
	if (!ret)
		return FSCK_OK;
	return ret == -ENOMEM ? FSCK_NOMEM : FSCK_STOP;
}

#endif
