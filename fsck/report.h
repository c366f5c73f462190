/* SPDX-License-Identifier: MIT */
/*
 * Problem reporting and exit codes.
 *
 * Every problem is one line on stderr,
 *	fsck.erofs: <where>: nid <n>, offset <o>: <what is wrong>
 * where <where> is the escaped path inside the image ("/" is the root) or a
 * label such as "superblock"; the nid and offset parts are left out when
 * unknown. Problems are printed as they are found; the walk is sequential,
 * so the order is deterministic.
 *
 * Exit codes follow fsck(8) and are or-ed together: 0 no errors, 4 errors
 * left uncorrected, 8 operational error, 16 usage error.
 */
#ifndef FSCK_REPORT_H
#define FSCK_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "erofs/error.h"

enum fsck_exit {
	FSCK_EXIT_OK = 0,
	FSCK_EXIT_UNCORRECTED = 4,
	FSCK_EXIT_OPERATIONAL = 8,
	FSCK_EXIT_USAGE = 16,
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

struct report {
	const char *image;
	int level;
	unsigned long errors;	/* problems found in the image */
	unsigned long warnings;
	int status;		/* enum fsck_exit bits */
	int fatal;		/* the error that stopped the check, if any */
};

void report_init(struct report *r, const char *image, int level);

/* A problem in the image: counted as an error. */
void report_problem(struct report *r, const struct fsck_loc *loc,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Suspicious but readable: printed at the warning level, not counted. */
void report_warning(struct report *r, const struct fsck_loc *loc,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/*
 * A failure of the reading library. Corruption becomes a problem;
 * -EOPNOTSUPP, -EIO, -ENOMEM and the rest are operational errors. The
 * nid and offset of the error record take precedence over those of loc.
 * Returns code when the check cannot go on (anything but corruption and
 * unsupported features), 0 otherwise.
 */
int report_lib_error(struct report *r, const struct fsck_loc *loc,
		     const struct erofs_err *err, int code);

/* An operational error that stops the check (a system call failed...). */
void report_fatal(struct report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Informational and debug output, printed when -d asks for it. */
void report_msg(struct report *r, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Print the verdict line and return the exit code. */
int report_finish(struct report *r);

#endif
