// SPDX-License-Identifier: MIT
/*
 * create-floor DIR [FILES [BYTES]]: the cost in the kernel of creating
 * FILES small files of BYTES bytes in DIR (a fresh directory on the
 * filesystem to measure), the way fsck.erofs --extract=DIR does it, for
 * each way it can:
 *
 *   before   openat(O_CREAT|O_EXCL), fstat, pwrite, fchown, futimens,
 *            close: extraction before it was crash-safe
 *   tmpfile  openat(O_TMPFILE), pwrite, futimens, linkat, close: an
 *            unnamed file linked when complete (the default)
 *   hidden   openat(O_CREAT|O_EXCL) of a hidden name, pwrite, futimens,
 *            renameat2(RENAME_NOREPLACE), close: the fallback
 *   plain    openat(O_CREAT|O_EXCL), pwrite, futimens, close: the same
 *            calls without any crash safety, for reference
 *
 * Prints microseconds per file for each, three rounds in turn (the
 * figures of an idle machine are the ones to quote). No decoding, no
 * threads: the floor under small-file extraction.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum way { BEFORE, TMPFILE, HIDDEN, PLAIN, NWAYS };

static const char *const way_names[NWAYS] = {
	"before", "tmpfile", "hidden", "plain",
};

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int create_one(enum way way, int dfd, const char *name,
		      const char *buf, size_t len)
{
	static const struct timespec ts[2] = { { 1700000000, 0 },
					       { 1700000000, 0 } };
	int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
	char hidden[64];
	struct stat st;
	int fd, ret = 0;

	snprintf(hidden, sizeof(hidden), ".hidden-%s", name);
	if (way == TMPFILE)
		fd = openat(dfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
	else
		fd = openat(dfd, way == HIDDEN ? hidden : name, flags, 0644);
	if (fd < 0)
		return -errno;
	if (way == BEFORE && fstat(fd, &st))
		ret = -errno;
	if (pwrite(fd, buf, len, 0) != (ssize_t)len)
		ret = -EIO;
	if (way == BEFORE && fchown(fd, geteuid(), getegid()))
		ret = -errno;
	if (futimens(fd, ts))
		ret = -errno;
	if (way == TMPFILE && linkat(fd, "", dfd, name, AT_EMPTY_PATH))
		ret = -errno;
	if (way == HIDDEN &&
	    renameat2(dfd, hidden, dfd, name, RENAME_NOREPLACE))
		ret = -errno;
	close(fd);
	return ret;
}

/* A fresh subdirectory of top per way and round; -1 on failure. */
static int fresh_dir(int top, enum way way, int round)
{
	char name[32];

	snprintf(name, sizeof(name), "%s.%d", way_names[way], round);
	if (mkdirat(top, name, 0755))
		return -1;
	return openat(top, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

int main(int argc, char **argv)
{
	long files = argc > 2 ? atol(argv[2]) : 20000;
	size_t len = argc > 3 ? (size_t)atol(argv[3]) : 1500;
	char name[32], *buf;
	int top, round, dfd, err;
	enum way way;
	long i;
	double t0;

	if (argc < 2 || files <= 0) {
		fprintf(stderr, "usage: %s DIR [FILES [BYTES]]\n", argv[0]);
		return 2;
	}
	top = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	buf = calloc(1, len ? len : 1);
	if (top < 0 || !buf) {
		perror(argv[1]);
		return 1;
	}
	printf("# %ld files of %zu bytes in %s; microseconds per file\n",
	       files, len, argv[1]);
	for (round = 0; round < 3; round++) {
		for (way = 0; way < NWAYS; way++) {
			dfd = fresh_dir(top, way, round);
			if (dfd < 0) {
				perror("mkdirat");
				return 1;
			}
			t0 = now();
			for (i = 0; i < files; i++) {
				snprintf(name, sizeof(name), "f%07ld", i);
				err = create_one(way, dfd, name, buf, len);
				if (err) {
					fprintf(stderr, "%s: %s\n",
						way_names[way], strerror(-err));
					return 1;
				}
			}
			printf("%-8s %6.2f%s", way_names[way],
			       (now() - t0) / (double)files * 1e6,
			       way + 1 < NWAYS ? "   " : "\n");
			close(dfd);
		}
	}
	return 0;
}
