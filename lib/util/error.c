// SPDX-License-Identifier: MIT
#include <stdarg.h>
#include <stdio.h>

#include "erofs/error.h"

int erofs_error(struct erofs_err *err, int code, uint64_t nid, uint64_t offset,
		const char *fmt, ...)
{
	va_list ap;

	if (!err || err->code)
		return code;
	err->code = code;
	err->nid = nid;
	err->offset = offset;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return code;
}
