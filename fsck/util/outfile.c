// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"

static mode_t caller_umask = 022;

void outfile_init(void)
{
	caller_umask = umask(0);
	umask(caller_umask);
}

mode_t outfile_umask(void)
{
	return caller_umask;
}

int outfile_create(const char *path)
{
	return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		    0666 & ~caller_umask);
}

const char *outfile_spool_dir(void)
{
	const char *dir = getenv("TMPDIR");

	return dir && *dir ? dir : "/tmp";
}

int outfile_spool(const char *dir)
{
	char *name;
	int fd;

	fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC,
		  0600 & ~caller_umask);
	if (fd >= 0 ||
	    !(errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL))
		return fd;
	if (asprintf(&name, "%s/.fsck.erofs-spool-XXXXXX", dir) < 0) {
		errno = ENOMEM;
		return -1;
	}
	/* mkostemp() makes it 0600, which the umask may narrow further */
	fd = mkostemp(name, O_CLOEXEC);
	if (fd >= 0) {
		unlink(name);
		fchmod(fd, 0600 & ~caller_umask);
	}
	free(name);
	return fd;
}
