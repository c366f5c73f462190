// SPDX-License-Identifier: MIT
/*
 * create-floor DIR [FILES [BYTES [THREADS]]]: the cost in the kernel of
 * creating FILES small files of BYTES bytes in DIR (a fresh directory on
 * the filesystem to measure), the way fsck.erofs --extract=DIR does it,
 * for each way it can:
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
 * figures of an idle machine are the ones to quote). No decoding: the
 * floor under small-file extraction. With THREADS (default 1) above 1,
 * that many threads share the FILES, and each way runs twice: "shared",
 * every thread creating in the same directory (file i by thread i mod
 * THREADS), and "apart", each thread in a directory of its own; the time
 * is the wall time over FILES, so that a speed-up shows as a smaller
 * figure than one thread's.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum way { BEFORE, TMPFILE, HIDDEN, PLAIN, NWAYS };

static const char *const way_names[NWAYS] = {
	"before",
	"tmpfile",
	"hidden",
	"plain",
};

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int create_one(enum way way, int dfd, const char *name, const char *buf,
		      size_t len)
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

/* A fresh subdirectory of top named for the run; -1 on failure. */
static int fresh_dir(int top, const char *name)
{
	if (mkdirat(top, name, 0755))
		return -1;
	return openat(top, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

struct creator {
	pthread_t tid;
	enum way way;
	int dfd;
	long first, step, files;
	const char *buf;
	size_t len;
	int err;
};

static void *creator_run(void *arg)
{
	struct creator *c = arg;
	char name[32];
	long i;

	for (i = c->first; i < c->files && !c->err; i += c->step) {
		snprintf(name, sizeof(name), "f%07ld", i);
		c->err = create_one(c->way, c->dfd, name, c->buf, c->len);
	}
	return NULL;
}

/*
 * files files by threads threads, in one directory (apart false) or one
 * each, under top, in the way given: microseconds per file, or -1.
 */
static double run_way(int top, enum way way, int round, int threads, bool apart,
		      long files, const char *buf, size_t len)
{
	struct creator c[64];
	char name[48];
	double t0, t;
	int k, shared = -1, ret = 0;

	snprintf(name, sizeof(name), "%s.%s.%d", way_names[way],
		 apart ? "apart" : "shared", round);
	if (!apart && (shared = fresh_dir(top, name)) < 0)
		return -1;
	for (k = 0; k < threads; k++) {
		char sub[64];

		snprintf(sub, sizeof(sub), "%s.%d", name, k);
		c[k] = (struct creator){ .way = way,
					 .first = k,
					 .step = threads,
					 .files = files,
					 .buf = buf,
					 .len = len };
		c[k].dfd = apart ? fresh_dir(top, sub) : dup(shared);
		if (c[k].dfd < 0)
			return -1;
	}
	t0 = now();
	for (k = 0; k < threads; k++)
		if (pthread_create(&c[k].tid, NULL, creator_run, &c[k]))
			return -1;
	for (k = 0; k < threads; k++) {
		pthread_join(c[k].tid, NULL);
		if (c[k].err && !ret)
			ret = c[k].err;
		close(c[k].dfd);
	}
	t = now() - t0;
	if (shared >= 0)
		close(shared);
	if (ret) {
		fprintf(stderr, "%s: %s\n", way_names[way], strerror(-ret));
		return -1;
	}
	return t / (double)files * 1e6;
}

int main(int argc, char **argv)
{
	long files = argc > 2 ? atol(argv[2]) : 20000;
	size_t len = argc > 3 ? (size_t)atol(argv[3]) : 1500;
	int threads = argc > 4 ? atoi(argv[4]) : 1;
	int top, round, apart;
	enum way way;
	double us;
	char *buf;

	if (argc < 2 || files <= 0 || threads < 1 || threads > 64) {
		fprintf(stderr, "usage: %s DIR [FILES [BYTES [THREADS]]]\n",
			argv[0]);
		return 2;
	}
	top = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	buf = calloc(1, len ? len : 1);
	if (top < 0 || !buf) {
		perror(argv[1]);
		return 1;
	}
	printf("# %ld files of %zu bytes in %s by %d thread%s; microseconds per file\n",
	       files, len, argv[1], threads, threads > 1 ? "s" : "");
	for (round = 0; round < 3; round++) {
		for (apart = 0; apart <= (threads > 1); apart++) {
			if (threads > 1)
				printf("%-7s", apart ? "apart" : "shared");
			for (way = 0; way < NWAYS; way++) {
				us = run_way(top, way, round, threads, apart,
					     files, buf, len);
				if (us < 0)
					return 1;
				printf("%-8s %6.2f%s", way_names[way], us,
				       way + 1 < NWAYS ? "   " : "\n");
			}
		}
	}
	return 0;
}
