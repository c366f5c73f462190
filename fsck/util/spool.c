// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/interrupt.h"
#include "util/outfile.h"
#include "util/spool.h"

#define SPOOL_BUF (1u << 20)

static int spool_write(struct report *rep, const char *dir, int fd,
		       const char *buf, size_t len)
{
	int err = outfile_write_all(fd, buf, len, -1);

	if (err)
		report_fatal(
			rep,
			"standard input: cannot copy it to a temporary file in %s ($TMPDIR): %s",
			dir, strerror(-err));
	return err;
}

static int spool_copy(struct report *rep, const char *dir, int fd, char *buf)
{
	ssize_t n;
	int ret;

	for (;;) {
		if (interrupted())
			return -EINTR;
		n = read(STDIN_FILENO, buf, SPOOL_BUF);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			report_fatal(rep, "cannot read standard input: %s",
				     strerror(-ret));
			return ret;
		}
		if (!n)
			return 0;
		ret = spool_write(rep, dir, fd, buf, (size_t)n);
		if (ret)
			return ret;
	}
}

int spool_stdin(struct report *rep)
{
	const char *dir = outfile_spool_dir();
	struct stat st;
	char *buf;
	int fd, ret;

	if (fstat(STDIN_FILENO, &st)) {
		ret = -errno;
		report_fatal(rep, "standard input: %s", strerror(-ret));
		return ret;
	}
	if (S_ISREG(st.st_mode) || S_ISBLK(st.st_mode))
		return STDIN_FILENO;
	if (isatty(STDIN_FILENO)) {
		report_fatal(rep, "standard input is a terminal, not an image");
		return -EINVAL;
	}
	fd = outfile_spool(dir);
	if (fd < 0) {
		ret = -errno;
		report_fatal(
			rep,
			"standard input: cannot make a temporary file in %s ($TMPDIR): %s",
			dir, strerror(-ret));
		return ret;
	}
	buf = malloc(SPOOL_BUF);
	ret = buf ? spool_copy(rep, dir, fd, buf) : -ENOMEM;
	if (!buf)
		report_nomem(rep, NULL);
	free(buf);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}
