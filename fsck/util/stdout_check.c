// SPDX-License-Identifier: MIT
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "options.h"
#include "util/interrupt.h"
#include "util/report.h"
#include "util/stdout_check.h"

static int first_error; /* atomic: errno of the first failed write */
static bool reported; /* the run's report said it: exit status 8 is set */

static ssize_t stdout_check_write(void *cookie, const char *buf, size_t size)
{
	size_t done = 0;
	ssize_t n;
	int expected = 0;

	(void)cookie;
	while (done < size) {
		n = write(STDOUT_FILENO, buf + done, size - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			__atomic_compare_exchange_n(&first_error, &expected,
						    n < 0 ? errno : ENOSPC,
						    false, __ATOMIC_RELAXED,
						    __ATOMIC_RELAXED);
			return done ? (ssize_t)done : -1;
		}
		done += (size_t)n;
	}
	return (ssize_t)done;
}

/*
 * The first failed write, but for a closed pipe whose SIGPIPE stopped
 * the run as interrupted (interrupt.h): that is said once, there. (A
 * SIGPIPE the caller ignores leaves the failure to be said here.)
 */
static int stdout_check_error(void)
{
	int err = __atomic_load_n(&first_error, __ATOMIC_RELAXED);

	return err == EPIPE && interrupt_signal() == SIGPIPE ? 0 : err;
}

int stdout_check_flush(void)
{
	int err;

	fflush(stdout);
	err = stdout_check_error();
	reported = err != 0;
	return err;
}

/* At exit: flush, close, and turn a lost write into exit status 8. */
static void stdout_check_exit(void)
{
	int err;

	fclose(stdout);
	err = stdout_check_error();
	if (!err && close(STDOUT_FILENO) && errno != EBADF)
		err = errno;
	if (!err || reported)
		return;
	fprintf(stderr, PROG ": standard output: %s\n", strerror(err));
	_exit(FSCK_EXIT_OPERATIONAL);
}

void stdout_check_init(void)
{
	cookie_io_functions_t io = { .write = stdout_check_write };
	static bool done; /* the fuzz target runs main() again and again */
	FILE *f;

	if (done)
		return;
	done = true;
	f = fopencookie(NULL, "w", io);
	/* without memory for it, stdout stays as it is, unchecked */
	if (!f)
		return;
	setvbuf(f, NULL, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, BUFSIZ);
	/* glibc's stdout is a variable a program may set */
	stdout = f;
	atexit(stdout_check_exit);
}
