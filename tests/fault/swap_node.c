// SPDX-License-Identifier: MIT
/*
 * swap_node.so: an LD_PRELOAD shim that plays the attacker who wins the
 * race between creating a node and setting its metadata
 * (tests/extraction/extract-race.py): right after mknodat() or symlinkat()
 * succeeds, the entry just made is replaced by a hard link to another
 * user's node, as a local user could do in a directory they can write when
 * fs.protected_hardlinks is off.
 *
 *   SWAP_FIFO=PATH     what a new fifo, device or socket is replaced by
 *   SWAP_SYMLINK=PATH  what a new symlink is replaced by
 *
 * At exit it says on standard error how many entries it swapped
 * ("swap_node: swapped N").
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shim.h"

typedef int (*mknodat_fn)(int, const char *, mode_t, dev_t);
typedef int (*symlinkat_fn)(const char *, int, const char *);

static atomic_int swapped;

static void report(void)
{
	shim_say("swap_node: swapped %d\n", atomic_load(&swapped));
}

__attribute__((constructor)) static void swap_node_init(void)
{
	atexit(report);
}

static void swap(int dfd, const char *name, const char *env)
{
	const char *victim = getenv(env);

	if (!victim || unlinkat(dfd, name, 0))
		return;
	if (!linkat(AT_FDCWD, victim, dfd, name, 0))
		atomic_fetch_add(&swapped, 1);
}

int mknodat(int dfd, const char *name, mode_t mode, dev_t dev)
{
	static mknodat_fn real;
	int ret;

	if (!real)
		real = (mknodat_fn)shim_next("mknodat");
	ret = real(dfd, name, mode, dev);
	if (!ret)
		swap(dfd, name, "SWAP_FIFO");
	return ret;
}

int symlinkat(const char *target, int dfd, const char *name)
{
	static symlinkat_fn real;
	int ret;

	if (!real)
		real = (symlinkat_fn)shim_next("symlinkat");
	ret = real(target, dfd, name);
	if (!ret)
		swap(dfd, name, "SWAP_SYMLINK");
	return ret;
}
