// SPDX-License-Identifier: MIT
#include <stdarg.h>
#include <stdio.h>

#include "erofs/error.h"
#include "internal.h"

static bool (*stop_check)(void);

int erofs_errorv(struct erofs_err *err, int code, uint64_t nid,
		 uint64_t offset, const char *where, const char *fmt,
		 va_list ap)
{
	int n = 0;

	if (!erofs_err_free(err))
		return code;
	err->code = code;
	err->nid = nid;
	err->offset = offset;
	if (where)
		n = snprintf(err->msg, sizeof(err->msg), "%s: ", where);
	if (n >= 0 && (size_t)n < sizeof(err->msg))
		vsnprintf(err->msg + n, sizeof(err->msg) - (size_t)n, fmt, ap);
	return code;
}

int erofs_error(struct erofs_err *err, int code, uint64_t nid, uint64_t offset,
		const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	code = erofs_errorv(err, code, nid, offset, NULL, fmt, ap);
	va_end(ap);
	return code;
}

void erofs_set_stop_check(bool (*stopped)(void))
{
	__atomic_store_n(&stop_check, stopped, __ATOMIC_RELEASE);
}

int erofs_stop_asked(struct erofs_err *err)
{
	bool (*stopped)(void) = __atomic_load_n(&stop_check, __ATOMIC_ACQUIRE);

	if (!stopped || !stopped())
		return 0;
	return erofs_error(err, -EINTR, EROFS_NO_NID, EROFS_NO_OFFSET,
			   "stopped");
}
