/* SPDX-License-Identifier: MIT */
/*
 * What the LD_PRELOAD shims share: the real function behind the one a
 * shim wraps, and its one line on standard error at exit, written with
 * write(2) so that no stdio buffer of the program's is touched.
 */
#ifndef FAULT_SHIM_H
#define FAULT_SHIM_H

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* The next definition of name: the C library's. No shim runs without. */
static void *shim_next(const char *name)
{
	void *fn = dlsym(RTLD_NEXT, name);

	if (!fn)
		abort();
	return fn;
}

static void shim_say(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static void shim_say(const char *fmt, ...)
{
	char msg[160];
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (len > 0)
		(void)!write(STDERR_FILENO, msg,
			     (size_t)len < sizeof(msg) ? (size_t)len
						       : sizeof(msg) - 1);
}

#endif
