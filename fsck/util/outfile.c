// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "util/outfile.h"

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

/* The hidden name beside target: its directory, "/.", its name, ".XXXXXX". */
static char *outfile_tmp_name(const char *target)
{
	const char *slash = strrchr(target, '/');
	size_t dirlen = slash ? (size_t)(slash + 1 - target) : 0;
	char *tmp = malloc(strlen(target) + sizeof(".") + sizeof(".XXXXXX"));

	if (tmp)
		sprintf(tmp, "%.*s.%s.XXXXXX", (int)dirlen, target,
			target + dirlen);
	return tmp;
}

/* Write in place: FILE is not a regular file, so renaming would not do. */
static int outfile_open_in_place(struct outfile *of, const char *path)
{
	of->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		      0666 & ~caller_umask);
	return of->fd < 0 ? -errno : 0;
}

int outfile_open(struct outfile *of, const char *path)
{
	mode_t mode = 0666 & ~caller_umask;
	struct stat st;

	*of = (struct outfile){ .fd = -1, .dirfd = AT_FDCWD };
	if (!stat(path, &st)) {
		/* /dev/stdout and its kin name a descriptor, not a file */
		if (!S_ISREG(st.st_mode) || !strncmp(path, "/dev/", 5) ||
		    !strncmp(path, "/proc/", 6))
			return outfile_open_in_place(of, path);
		/* a replaced file keeps its permissions, as when truncated */
		mode = st.st_mode & 07777;
		of->target = realpath(path, NULL);
	} else if (errno == ENOENT) {
		of->target = strdup(path);
	} else {
		return -errno;
	}
	if (of->target)
		of->tmp = outfile_tmp_name(of->target);
	if (!of->tmp) {
		outfile_discard(of);
		return -ENOMEM;
	}
	of->fd = mkostemp(of->tmp, O_CLOEXEC);
	if (of->fd < 0) {
		free(of->tmp);
		of->tmp = NULL;
		/* a FILE that may be written in a directory that may not */
		if (errno == EACCES || errno == EPERM || errno == EROFS) {
			outfile_discard(of);
			return outfile_open_in_place(of, path);
		}
	}
	if (of->fd < 0 || fchmod(of->fd, mode)) {
		int err = errno;

		outfile_discard(of);
		return -err;
	}
	return 0;
}

/* A new hidden name for of->target in of->dirfd, created: 0 or -errno. */
static int outfile_create_tmp(struct outfile *of)
{
	unsigned int tries;
	size_t len = strlen(of->target);

	of->tmp = malloc(len + sizeof(".") + sizeof(".XXXXXXXX"));
	if (!of->tmp)
		return -ENOMEM;
	for (tries = 0; tries < 100; tries++) {
		sprintf(of->tmp, ".%s.%08x", of->target,
			(unsigned int)random());
		of->fd = openat(of->dirfd, of->tmp,
				O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
					O_CLOEXEC,
				0666 & ~caller_umask);
		if (of->fd >= 0 || errno != EEXIST)
			break;
	}
	if (of->fd >= 0)
		return 0;
	free(of->tmp);
	of->tmp = NULL;
	return -errno;
}

int outfile_open_at(struct outfile *of, int dirfd, const char *name,
		    bool replace)
{
	struct stat st;
	int ret;

	*of = (struct outfile){ .fd = -1, .dirfd = dirfd, .keep = !replace };
	if (!replace && !fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return -EEXIST;
	of->target = strdup(name);
	if (!of->target)
		return -ENOMEM;
	ret = outfile_create_tmp(of);
	if (ret)
		outfile_discard(of);
	return ret;
}

/* tmp to target, over what is there unless of->keep: 0 or -errno. */
static int outfile_name(const struct outfile *of)
{
	if (!of->keep)
		return renameat(of->dirfd, of->tmp, of->dirfd, of->target)
			       ? -errno
			       : 0;
	if (!renameat2(of->dirfd, of->tmp, of->dirfd, of->target,
		       RENAME_NOREPLACE))
		return 0;
	if (errno != EINVAL)
		return -errno;
	/* a filesystem without RENAME_NOREPLACE: a link never replaces */
	if (linkat(of->dirfd, of->tmp, of->dirfd, of->target, 0))
		return -errno;
	unlinkat(of->dirfd, of->tmp, 0);
	return 0;
}

static void outfile_release(struct outfile *of)
{
	free(of->target);
	free(of->tmp);
	of->target = of->tmp = NULL;
	of->fd = -1;
}

int outfile_commit(struct outfile *of)
{
	int ret = 0;

	if (of->fd >= 0 && close(of->fd))
		ret = -errno;
	of->fd = -1;
	if (!ret && of->tmp)
		ret = outfile_name(of);
	if (ret && of->tmp)
		unlinkat(of->dirfd, of->tmp, 0);
	outfile_release(of);
	return ret;
}

void outfile_discard(struct outfile *of)
{
	if (of->fd >= 0)
		close(of->fd);
	if (of->tmp)
		unlinkat(of->dirfd, of->tmp, 0);
	outfile_release(of);
}

/*
 * The most one write() or pwrite() hands the kernel: Linux backs a write
 * with page-cache folios as large as the write, and large folios were
 * slow to come by on a virtual machine that gives its free memory back
 * to its host (bench/README.md, "Figures behind the code's constants").
 */
#define OUTFILE_WRITE_MAX (64u << 10)

int outfile_write_all(int fd, const void *buf, size_t len, off_t off)
{
	const char *p = buf;
	size_t chunk;
	ssize_t n;

	while (len) {
		chunk = len < OUTFILE_WRITE_MAX ? len : OUTFILE_WRITE_MAX;
		n = off < 0 ? write(fd, p, chunk) : pwrite(fd, p, chunk, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -ENOSPC;
		p += n;
		len -= (size_t)n;
		if (off >= 0)
			off += n;
	}
	return 0;
}

bool outfile_room(int fd, uint64_t *room)
{
	struct statvfs vfs;
	struct stat st;

	if (fstat(fd, &st))
		return false;
	if (S_ISBLK(st.st_mode))
		return !ioctl(fd, BLKGETSIZE64, room);
	if (!S_ISREG(st.st_mode) || fstatvfs(fd, &vfs))
		return false;
	*room = (uint64_t)(geteuid() ? vfs.f_bavail : vfs.f_bfree) *
		vfs.f_frsize;
	return true;
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
