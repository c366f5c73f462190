/* SPDX-License-Identifier: MIT */
/*
 * Problem reporting and exit codes.
 *
 * Every problem is one line on stderr,
 *	fsck.erofs: <where>: nid <n>, offset <o>: <what is wrong>
 * where <where> is the escaped path inside the image ("/" is the root) or a
 * label such as "superblock"; the nid and offset parts are left out when
 * unknown.
 *
 * Order. A report prints its messages at once, unless it holds them in a
 * slot (report_hold(), report_held_init()) for whoever restores their
 * order: the scheduler's queue of results (sched/order.h) holds each
 * task's messages, and the walker's own behind the tasks queued before
 * them, so that the output is the same whatever the number of threads.
 * Nothing here locks or waits: a report is used by one thread at a time.
 *
 * Counters (errors, warnings, status, fatal) are updated when a message is
 * made, in the report it is made in; a held report's counters are added to
 * another when its messages are taken (report_take()).
 *
 * Exit codes follow fsck(8) and are or-ed together: 0 no errors, 4 errors
 * left uncorrected, 8 operational error, 16 usage error, 32 cancelled;
 * with --compare=DIR, 1 (the bit fsck(8) gives to errors corrected, which
 * a read-only check never makes): the image and DIR differ. Differences
 * are printed on standard output, one line each, "<path>: <what differs>",
 * in walk order like problems.
 */
#ifndef FSCK_REPORT_H
#define FSCK_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "erofs/error.h"

enum fsck_exit {
	FSCK_EXIT_OK = 0,
	FSCK_EXIT_DIFFERS = 1,		/* --compare: the trees differ */
	FSCK_EXIT_UNCORRECTED = 4,
	FSCK_EXIT_OPERATIONAL = 8,
	FSCK_EXIT_USAGE = 16,
	FSCK_EXIT_CANCELLED = 32,	/* interrupted by a signal */
};

/* Message levels of -d, as upstream fsck.erofs numbers them. */
enum fsck_level {
	FSCK_LVL_ERR = 0,
	FSCK_LVL_WARN = 2,	/* the default */
	FSCK_LVL_INFO = 3,
	FSCK_LVL_DEBUG = 7,
};

#define FSCK_LVL_DEFAULT FSCK_LVL_WARN
#define FSCK_LVL_MAX 9

/* Where a problem is: a path in the image, or a label. */
struct fsck_loc {
	const char *label;	/* used when path is NULL */
	const char *path;	/* relative to the image root, not escaped */
	size_t pathlen;
	uint64_t nid;		/* or EROFS_NO_NID */
	uint64_t offset;	/* in the image, or EROFS_NO_OFFSET */
};

struct report_rec;
struct progress;

/* Messages held, in the order they were made. */
struct report_slot {
	struct report_rec *head, **tail;
};

/* Problems kept for the JSON report. */
struct report_log {
	struct report_rec *head, **tail;
	size_t count;
	size_t dropped;			/* beyond REPORT_LOG_MAX */
};

/* a few MiB of records, whatever the number of problems */
#define REPORT_LOG_MAX 10000

struct report {
	const char *image;
	const char *job;	/* "check" or "extraction", for the verdict */
	int level;
	unsigned long errors;	/* problems found in the image */
	unsigned long warnings;
	int status;		/* enum fsck_exit bits */
	int fatal;		/* the error that stopped the check, if any */

	struct report_slot *slot; /* messages held here, if set */

	/* main report only */
	struct report_log *log;		/* NULL unless --json */
	struct progress *progress;	/* cleared before printing */
};

void report_init(struct report *r, const char *image, int level);
void report_fini(struct report *r);

/* Keep every problem for report_log_*() (--json). 0 or -ENOMEM. */
int report_keep_log(struct report *r);

/* A problem in the image: counted as an error. */
void report_problem(struct report *r, const struct fsck_loc *loc,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Suspicious but readable: printed at the warning level, not counted. */
void report_warning(struct report *r, const struct fsck_loc *loc,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* --compare: the image and the directory differ at loc (stdout). */
void report_difference(struct report *r, const struct fsck_loc *loc,
		       const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * An operational failure that does not stop the run (an entry could not
 * be created, an owner could not be set): exit status 8.
 */
void report_failure(struct report *r, const struct fsck_loc *loc,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/*
 * A failure of the reading library, from its error record err, which this
 * consumes: err is clean afterwards (the rule of include/erofs/error.h).
 * Corruption becomes a problem; -EOPNOTSUPP, -EIO, -ENOMEM and the rest
 * are operational errors. The nid and offset of the record take
 * precedence over those of loc; code stands in for an empty record.
 * Returns code when the check cannot go on (anything but corruption and
 * unsupported features), 0 otherwise.
 */
int report_lib_error(struct report *r, const struct fsck_loc *loc,
		     struct erofs_err *err, int code);

/* An operational error that stops the check (a system call failed...). */
void report_fatal(struct report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The same, at a place in the image, with the errno that stopped it. */
void report_fatal_at(struct report *r, const struct fsck_loc *loc, int code,
		     const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * An allocation failed while working on loc (NULL: the image as a whole):
 * "out of memory during the check" (or extraction), fatal.
 */
void report_nomem(struct report *r, const struct fsck_loc *loc);

/* The run was cancelled (a signal): a fatal record, exit status 32. */
void report_cancelled(struct report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * A usage error that shows only once the image is read (a super image
 * without --partition): a fatal record, exit status 16.
 */
void report_usage(struct report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Informational and debug output, printed when -d asks for it. */
void report_msg(struct report *r, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Print the verdict line and return the exit code. */
int report_finish(struct report *r);

void report_slot_init(struct report_slot *slot);

/*
 * A report r like main (its image, job and level) that holds every
 * message in slot: report_take() later moves them, with the counters, into
 * another report, or report_discard() drops them.
 */
void report_held_init(const struct report *main, struct report *r,
		      struct report_slot *slot);
void report_take(struct report *dst, struct report *src);
void report_discard(struct report *r);

/* r's messages are held in slot from now on; NULL: printed at once. */
void report_hold(struct report *r, struct report_slot *slot);

/* The messages held in slot, sent on as if r had made them now. */
void report_release(struct report *r, struct report_slot *slot);

/* Walk the problems kept for --json, oldest first. */
struct report_rec *report_log_first(const struct report *r);
struct report_rec *report_log_next(const struct report_rec *rec);

struct report_rec_view {
	const char *severity;	/* "error", "warning", "failure", "fatal" */
	const char *where;	/* escaped path with a leading '/', or label */
	bool is_path;
	uint64_t nid, offset;
	const char *message;
};

void report_rec_view(const struct report_rec *rec,
		     struct report_rec_view *view);

/* The noun for a count in a message: one, or many ("1 entry", "2 entries"). */
static inline const char *report_noun(uint64_t n, const char *one,
				      const char *many)
{
	return n == 1 ? one : many;
}

#endif
