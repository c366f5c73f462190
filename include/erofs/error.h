/* SPDX-License-Identifier: MIT */
/*
 * Error reporting of the reading library. Functions return 0 or a positive
 * count on success and a negative errno on failure; when they fail they also
 * fill the caller's struct erofs_err so that the command can say what was
 * wrong and where. The library never prints.
 *
 * Error classes: -EFSCORRUPTED (the image is inconsistent: a value outside
 * what the format allows), -EOPNOTSUPP (a valid feature this build cannot
 * read: an unknown incompat bit, a codec built without), -EIO (a device read
 * failed or ended early), -ENOMEM, -ENODEV (an extra device is missing),
 * -EINTR (the caller asked the library to stop: erofs_set_stop_check()).
 */
#ifndef EROFS_ERROR_H
#define EROFS_ERROR_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#define EFSCORRUPTED EUCLEAN

#define EROFS_ERR_MSG_MAX 200
#define EROFS_NO_NID UINT64_MAX
#define EROFS_NO_OFFSET UINT64_MAX

struct erofs_err {
	int code;		/* negative errno, 0 if none */
	uint64_t nid;		/* inode concerned, or EROFS_NO_NID */
	uint64_t offset;	/* byte offset in the image, or EROFS_NO_OFFSET */
	bool output;		/* the caller's output failed, not the image */
	char msg[EROFS_ERR_MSG_MAX];
};

/*
 * Record an error and return its code, so that callers can write
 * "return erofs_error(err, -EFSCORRUPTED, nid, off, "bad thing %u", x);".
 * The first error recorded wins until the record is disposed of (below):
 * a failure deep in a call chain keeps its precise message. err may be
 * NULL.
 */
int erofs_error(struct erofs_err *err, int code, uint64_t nid, uint64_t offset,
		const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/*
 * Would err keep a new error? A helper that formats where a structure
 * lies before each of its errors asks first, and formats nothing for an
 * error an earlier one has won over.
 */
static inline bool erofs_err_free(const struct erofs_err *err)
{
	return err && !err->code;
}

/*
 * As erofs_error(), recording "WHERE: DETAIL" (DETAIL alone when where is
 * NULL), DETAIL formatted from fmt and ap: what such a helper hands its
 * va_list to.
 */
int erofs_errorv(struct erofs_err *err, int code, uint64_t nid,
		 uint64_t offset, const char *where, const char *fmt,
		 va_list ap) __attribute__((format(printf, 6, 0)));

/*
 * Who clears a record. The record a failed call fills belongs to the
 * caller of that public call, and stays as it is until that caller
 * disposes of it, in one of two ways, before its next call with it:
 *  - it reports the failure: the command's report_lib_error()
 *    (fsck/report.h) consumes the record it reports;
 *  - it drops the failure deliberately, with erofs_err_drop(): a failure
 *    that is expected, advisory, or someone else's to report.
 * erofs_err_clear() only makes a record clean before first use (one the
 * caller hands to erofs_image_open(), say); the library uses it on the
 * records it owns: those of the contexts and local records it makes.
 */
static inline void erofs_err_clear(struct erofs_err *err)
{
	err->code = 0;
	err->nid = EROFS_NO_NID;
	err->offset = EROFS_NO_OFFSET;
	err->output = false;
	err->msg[0] = '\0';
}

/* Drop a failure on purpose, without reporting it (see above). */
static inline void erofs_err_drop(struct erofs_err *err)
{
	erofs_err_clear(err);
}

/*
 * Stopping long work. The library's loops whose length an image sets
 * (indexing a sparse image's chunks, verifying its checksums) ask
 * stopped(), once one is set, between pieces of work, and end with
 * -EINTR when it says yes: how a command that catches signals stops soon
 * after one. stopped() must be safe to call from any thread.
 */
void erofs_set_stop_check(bool (*stopped)(void));

/* Is this a problem of the image (exit 4) rather than of the system (8)? */
static inline int erofs_err_is_corruption(int code)
{
	return code == -EFSCORRUPTED;
}

#endif
