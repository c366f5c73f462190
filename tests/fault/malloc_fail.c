// SPDX-License-Identifier: MIT
/*
 * LD_PRELOAD shim for allocation-failure tests.
 *
 *   EROFS_FAIL_ALLOC=n           the n-th allocation fails (1-based)
 *   EROFS_FAIL_ALLOC_PERSIST=1   and so does every one after it
 *   EROFS_FAIL_ALLOC_COUNT=FILE  write the number of allocations at exit
 *
 * Allocations are calls of malloc, calloc, realloc, posix_memalign,
 * aligned_alloc and memalign, counted from the moment the shim is loaded.
 * A failing call returns NULL with errno ENOMEM, as the real ones do.
 * Built as a plain shared object; it cannot work under AddressSanitizer,
 * which replaces these functions itself.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void *__libc_malloc(size_t size);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t size);
void *__libc_memalign(size_t align, size_t size);

static unsigned long fail_at;
static int persist;
static atomic_ulong calls;

__attribute__((constructor)) static void shim_init(void)
{
	const char *at = getenv("EROFS_FAIL_ALLOC");
	const char *keep = getenv("EROFS_FAIL_ALLOC_PERSIST");

	fail_at = at ? strtoul(at, NULL, 10) : 0;
	persist = keep && *keep == '1';
}

__attribute__((destructor)) static void shim_report(void)
{
	const char *path = getenv("EROFS_FAIL_ALLOC_COUNT");
	char line[32];
	int fd, len;

	if (!path)
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return;
	len = snprintf(line, sizeof(line), "%lu\n", atomic_load(&calls));
	if (write(fd, line, (size_t)len) != len)
		len = -1;
	close(fd);
}

static int fail_now(void)
{
	unsigned long n = atomic_fetch_add(&calls, 1) + 1;

	if (!fail_at || (persist ? n < fail_at : n != fail_at))
		return 0;
	errno = ENOMEM;
	return 1;
}

void *malloc(size_t size)
{
	return fail_now() ? NULL : __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
	return fail_now() ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
	return fail_now() ? NULL : __libc_realloc(p, size);
}

void *memalign(size_t align, size_t size)
{
	return fail_now() ? NULL : __libc_memalign(align, size);
}

void *aligned_alloc(size_t align, size_t size)
{
	return fail_now() ? NULL : __libc_memalign(align, size);
}

int posix_memalign(void **out, size_t align, size_t size)
{
	void *p;

	if (fail_now())
		return ENOMEM;
	p = __libc_memalign(align, size);
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}
