// SPDX-License-Identifier: MIT
/*
 * calibrate: measures the constants of the scheduler's cost model on this
 * machine.
 *
 *   calibrate [--dir=DIR] [--files=N] IMAGE...
 *
 * For every image it decodes every extent of every regular file on one
 * thread and prints, per storage format, the nanoseconds per KiB of output
 * (mapping included). Then it creates N small files in DIR (a fresh
 * filesystem such as a tmpfs) the way extraction does (openat, pwrite,
 * fchmod, futimens, close) and prints the cost per file. The library's
 * codec table (lib/codec/codec_*.c) and fsck's per-file cost take these values.
 */
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "erofs/context.h"
#include "erofs/data.h"
#include "erofs/dir.h"
#include "erofs/image.h"
#include "erofs/inode.h"

static const char *const fmt_names[EROFS_FMT_MAX] = {
	"lz4", "lzma", "deflate", "zstd", "raw-shifted", "raw-interlaced",
};

struct totals {
	uint64_t ns[EROFS_FMT_MAX + 1];		/* last slot: fragments */
	uint64_t bytes[EROFS_FMT_MAX + 1];
};

struct walker {
	struct erofs_ctx *ctx;
	struct totals *t;
	uint64_t *stack;
	size_t depth, cap;
	uint8_t *buf;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int time_file(struct walker *w, const struct erofs_inode *inode)
{
	uint64_t pos = 0;

	while (pos < inode->size) {
		struct erofs_map map;
		unsigned int slot;
		uint64_t t0 = now_ns();
		int ret;

		ret = erofs_map(w->ctx, inode, pos, &map);
		if (!ret && map.llen <= Z_EROFS_PCLUSTER_MAX_DSIZE)
			ret = erofs_extent_read(w->ctx, inode, &map,
						pos - map.la, w->buf,
						(size_t)(map.la + map.llen - pos));
		if (ret)
			return ret;
		slot = map.loc == EROFS_LOC_FRAGMENT ? EROFS_FMT_MAX : map.fmt;
		if (map.loc != EROFS_LOC_HOLE) {
			w->t->ns[slot] += now_ns() - t0;
			w->t->bytes[slot] += map.la + map.llen - pos;
		}
		pos = map.la + map.llen;
	}
	return 0;
}

static int push_dir(void *arg, const struct erofs_dirent *de)
{
	struct walker *w = arg;

	if (w->depth == w->cap) {
		uint64_t *s = realloc(w->stack, 2 * w->cap * sizeof(*s));

		if (!s)
			return -ENOMEM;
		w->stack = s;
		w->cap *= 2;
	}
	w->stack[w->depth++] = de->nid;
	return 0;
}

static int walk_image(struct erofs_ctx *ctx, struct totals *t)
{
	struct walker w = { .ctx = ctx, .t = t, .cap = 64 };
	int ret = 0;

	w.stack = malloc(w.cap * sizeof(*w.stack));
	w.buf = malloc(Z_EROFS_PCLUSTER_MAX_DSIZE);
	if (!w.stack || !w.buf) {
		ret = -ENOMEM;
		goto out;
	}
	w.stack[w.depth++] = ctx->img->root_nid;
	while (!ret && w.depth) {
		struct erofs_inode inode;

		ret = erofs_read_inode(ctx, w.stack[--w.depth], &inode);
		if (ret)
			break;
		if (S_ISDIR(inode.mode))
			ret = erofs_dir_iterate(ctx, &inode, EROFS_NO_NID,
						push_dir, &w);
		else if (S_ISREG(inode.mode))
			ret = time_file(&w, &inode);
	}
out:
	free(w.stack);
	free(w.buf);
	return ret;
}

static int calibrate_image(const char *path, struct totals *t)
{
	struct erofs_open_opts opts = { .path = path };
	struct erofs_image *img;
	struct erofs_ctx ctx;
	struct erofs_err err;
	int ret;

	erofs_err_clear(&err);
	ret = erofs_image_open(&img, &opts, &err);
	if (ret) {
		fprintf(stderr, "calibrate: %s: %s\n", path, err.msg);
		return ret;
	}
	ret = erofs_ctx_init(&ctx, img);
	if (!ret) {
		ret = walk_image(&ctx, t);
		if (ret)
			fprintf(stderr, "calibrate: %s: %s\n", path,
				ctx.err.msg);
		erofs_ctx_fini(&ctx);
	}
	erofs_image_close(img);
	return ret;
}

static int create_files(const char *dir, unsigned int n)
{
	static const char byte = 'x';
	struct timespec times[2] = { { 1700000000, 5 }, { 1700000000, 5 } };
	char name[32];
	uint64_t t0, t1;
	unsigned int i;
	int dfd;

	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0) {
		perror(dir);
		return -1;
	}
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		int fd;

		snprintf(name, sizeof(name), "calibrate.%u", i);
		fd = openat(dfd, name,
			    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0600);
		if (fd < 0 || pwrite(fd, &byte, 1, 0) != 1 ||
		    fchmod(fd, 0644) || futimens(fd, times)) {
			perror(name);
			if (fd >= 0)
				close(fd);
			close(dfd);
			return -1;
		}
		close(fd);
	}
	t1 = now_ns();
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "calibrate.%u", i);
		unlinkat(dfd, name, 0);
	}
	close(dfd);
	printf("per_file_ns=%llu files=%u dir=%s\n",
	       (unsigned long long)((t1 - t0) / n), n, dir);
	return 0;
}

static void print_totals(const struct totals *t)
{
	unsigned int i;

	for (i = 0; i <= EROFS_FMT_MAX; i++) {
		if (!t->bytes[i])
			continue;
		printf("format=%s bytes=%llu ns_per_kib=%llu\n",
		       i == EROFS_FMT_MAX ? "fragment" : fmt_names[i],
		       (unsigned long long)t->bytes[i],
		       (unsigned long long)(t->ns[i] * 1024 / t->bytes[i]));
	}
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "dir", required_argument, NULL, 'D' },
		{ "files", required_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = "/tmp";
	unsigned int files = 5000;
	struct totals t = { 0 };
	int c, i;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (c == 'D')
			dir = optarg;
		else if (c == 'n' && atoi(optarg) > 0)
			files = (unsigned int)atoi(optarg);
		else
			goto usage;
	}
	if (optind == argc)
		goto usage;
	for (i = optind; i < argc; i++)
		if (calibrate_image(argv[i], &t))
			return 1;
	print_totals(&t);
	return create_files(dir, files) ? 1 : 0;
usage:
	fprintf(stderr, "usage: calibrate [--dir=DIR] [--files=N] IMAGE...\n");
	return 2;
}
