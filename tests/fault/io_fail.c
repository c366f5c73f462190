// SPDX-License-Identifier: MIT
/*
 * io_fail.so: an LD_PRELOAD shim that makes one I/O call fail, for the fault
 * tests (tests/fault/io-fault.tap).
 *
 *   EROFS_FAULT_PREAD=N   the N-th pread/pread64 (1-based) of the image fails
 *                         with EIO
 *   EROFS_FAULT_PATH=P    the image: only reads of a file descriptor open on
 *                         P are counted (default: every pread)
 *   EROFS_FAULT_WRITE=N   the N-th write/pwrite/pwrite64/writev/
 *                         copy_file_range to a regular file (standard
 *                         output included when it is one; standard error
 *                         never) fails
 *   EROFS_FAULT_ERRNO=E   ENOSPC (default), EFBIG or EIO: the write error
 *   EROFS_FAULT_READ_DELAY_US=D  every read of the image first sleeps D
 *                         microseconds: a slow disk, for the interruption
 *                         test (tests/hardening/interrupt.sh)
 *   EROFS_FAULT_TAMPER_AT=B  once a read of the image (EROFS_FAULT_PATH,
 *                         which must be set) has returned byte B, that
 *                         byte of the file is inverted: an attacker who
 *                         changes the image between a check's read and a
 *                         later one (tests/hardening/integrity.sh)
 *
 * Calls are counted over the whole process, from every thread. At exit the
 * shim says on standard error whether the fault was injected
 * ("io_fail: injected ...", or "io_fail: not injected: R reads, W writes"),
 * so that a test knows how many calls a run makes and can tell a run that
 * never reached the N-th call.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "shim.h"

typedef ssize_t (*pread_fn)(int, void *, size_t, off_t);
typedef ssize_t (*pwrite_fn)(int, const void *, size_t, off_t);
typedef ssize_t (*write_fn)(int, const void *, size_t);
typedef ssize_t (*writev_fn)(int, const struct iovec *, int);
typedef ssize_t (*cfr_fn)(int, loff_t *, int, loff_t *, size_t,
			  unsigned int);

static long fail_read_at;
static long fail_write_at;
static int write_errno = ENOSPC;
static long read_delay_us;
static long tamper_at = -1;
static atomic_int tampered;
static char image_path[PATH_MAX];
static atomic_long reads;
static atomic_long writes;
static atomic_int injected_read;
static atomic_int injected_write;

static long env_count(const char *name)
{
	const char *s = getenv(name);

	return s ? strtol(s, NULL, 10) : 0;
}

static void report(void)
{
	if (atomic_load(&injected_read))
		shim_say("io_fail: injected EIO into read %ld\n", fail_read_at);
	else if (atomic_load(&injected_write))
		shim_say("io_fail: injected %s into write %ld\n",
			 write_errno == EFBIG ? "EFBIG" :
			 write_errno == EIO   ? "EIO" : "ENOSPC",
			 fail_write_at);
	else if (atomic_load(&tampered))
		shim_say("io_fail: tampered with byte %ld\n", tamper_at);
	else if (fail_read_at || fail_write_at)
		shim_say("io_fail: not injected: %ld reads, %ld writes\n",
			 atomic_load(&reads), atomic_load(&writes));
}

__attribute__((constructor)) static void io_fail_init(void)
{
	const char *path = getenv("EROFS_FAULT_PATH");
	const char *err = getenv("EROFS_FAULT_ERRNO");

	fail_read_at = env_count("EROFS_FAULT_PREAD");
	fail_write_at = env_count("EROFS_FAULT_WRITE");
	read_delay_us = env_count("EROFS_FAULT_READ_DELAY_US");
	if (getenv("EROFS_FAULT_TAMPER_AT"))
		tamper_at = env_count("EROFS_FAULT_TAMPER_AT");
	if (err && !strcmp(err, "EFBIG"))
		write_errno = EFBIG;
	else if (err && !strcmp(err, "EIO"))
		write_errno = EIO;
	if (path && !realpath(path, image_path))
		image_path[0] = '\0';
	atexit(report);
}

static int is_image(int fd)
{
	char link[64], target[PATH_MAX];
	ssize_t n;

	if (!image_path[0])
		return 1;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return 0;
	target[n] = '\0';
	return !strcmp(target, image_path);
}

static int is_output(int fd)
{
	struct stat st;

	return fd != STDERR_FILENO && !fstat(fd, &st) && S_ISREG(st.st_mode);
}

static int fail_read(int fd)
{
	if (!is_image(fd))
		return 0;
	if (read_delay_us > 0) {
		struct timespec ts = {
			.tv_sec = read_delay_us / 1000000,
			.tv_nsec = read_delay_us % 1000000 * 1000,
		};

		/* a signal cuts the sleep short, as it would not a read */
		nanosleep(&ts, NULL);
	}
	if (atomic_fetch_add(&reads, 1) + 1 != fail_read_at)
		return 0;
	atomic_store(&injected_read, 1);
	errno = EIO;
	return 1;
}

static int fail_write(int fd)
{
	if (!is_output(fd))
		return 0;
	if (atomic_fetch_add(&writes, 1) + 1 != fail_write_at)
		return 0;
	atomic_store(&injected_write, 1);
	errno = write_errno;
	return 1;
}

/* A read of n bytes at pos returned byte tamper_at: invert it, once. */
static void tamper_after(int fd, ssize_t n, off_t pos)
{
	static pread_fn real_pread;
	static pwrite_fn real_pwrite;
	unsigned char b;
	int wfd;

	if (tamper_at < 0 || !image_path[0] || n <= 0 || tamper_at < pos ||
	    tamper_at >= pos + n || !is_image(fd) ||
	    atomic_exchange(&tampered, 1))
		return;
	if (!real_pread)
		real_pread = (pread_fn)shim_next("pread");
	if (!real_pwrite)
		real_pwrite = (pwrite_fn)shim_next("pwrite");
	wfd = open(image_path, O_RDWR);
	if (wfd < 0)
		return;
	if (real_pread(wfd, &b, 1, tamper_at) == 1) {
		b ^= 0xff;
		if (real_pwrite(wfd, &b, 1, tamper_at) != 1)
			atomic_store(&tampered, 0);
	}
	close(wfd);
}

ssize_t pread(int fd, void *buf, size_t len, off_t pos)
{
	static pread_fn real;
	ssize_t n;

	if (!real)
		real = (pread_fn)shim_next("pread");
	if (fail_read(fd))
		return -1;
	n = real(fd, buf, len, pos);
	tamper_after(fd, n, pos);
	return n;
}

ssize_t pread64(int fd, void *buf, size_t len, off_t pos)
{
	static pread_fn real;
	ssize_t n;

	if (!real)
		real = (pread_fn)shim_next("pread64");
	if (fail_read(fd))
		return -1;
	n = real(fd, buf, len, pos);
	tamper_after(fd, n, pos);
	return n;
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t pos)
{
	static pwrite_fn real;

	if (!real)
		real = (pwrite_fn)shim_next("pwrite");
	return fail_write(fd) ? -1 : real(fd, buf, len, pos);
}

ssize_t pwrite64(int fd, const void *buf, size_t len, off_t pos)
{
	static pwrite_fn real;

	if (!real)
		real = (pwrite_fn)shim_next("pwrite64");
	return fail_write(fd) ? -1 : real(fd, buf, len, pos);
}

ssize_t write(int fd, const void *buf, size_t len)
{
	static write_fn real;

	if (!real)
		real = (write_fn)shim_next("write");
	return fail_write(fd) ? -1 : real(fd, buf, len);
}

ssize_t writev(int fd, const struct iovec *iov, int iovcnt)
{
	static writev_fn real;

	if (!real)
		real = (writev_fn)shim_next("writev");
	return fail_write(fd) ? -1 : real(fd, iov, iovcnt);
}

ssize_t copy_file_range(int fd_in, loff_t *off_in, int fd_out,
			loff_t *off_out, size_t len, unsigned int flags)
{
	static cfr_fn real;

	if (!real)
		real = (cfr_fn)shim_next("copy_file_range");
	return fail_write(fd_out) ? -1 :
		real(fd_in, off_in, fd_out, off_out, len, flags);
}
