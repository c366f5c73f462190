// SPDX-License-Identifier: MIT
/*
 * readall [-j N] IMAGE: read every regular file of IMAGE through the
 * library and print "SHA256 NID SIZE" for each, in directory order. With
 * -j N, N threads read the files, each with its own context.
 *
 * Exit status as fsck's: 0 all read, 4 the image is corrupt, 8 anything
 * else (out of memory above all: the allocation-failure test runs this
 * under a shim that makes the n-th allocation fail, and expects either the
 * normal output or exit 8 with a message naming memory).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "erofs/context.h"
#include "erofs/data.h"
#include "erofs/dir.h"
#include "erofs/hash.h"
#include "erofs/image.h"
#include "erofs/inode.h"

#define READ_CHUNK (128u << 10)
#define MAX_THREADS 8

struct file {
	uint64_t nid;
	uint64_t size;
	uint8_t digest[EROFS_SHA256_LEN];
};

struct list {
	uint64_t *nids;
	size_t n, cap;
	int error;
};

struct job {
	struct erofs_image *img;
	struct file *files;
	size_t nfiles;
	unsigned int index, stride;
	int ret;
	struct erofs_err err;
};

static int fail(int code, const struct erofs_err *err, const char *what)
{
	const char *msg = err && err->msg[0] ? err->msg : "";

	fprintf(stderr, "readall: %s: %s%s%s\n", what, strerror(-code),
		*msg ? ": " : "", msg);
	return code == -EFSCORRUPTED ? 4 : 8;
}

static int push(struct list *l, uint64_t nid)
{
	uint64_t *v;

	if (l->n == l->cap) {
		v = realloc(l->nids, (l->cap ? 2 * l->cap : 64) * sizeof(*v));
		if (!v)
			return l->error = -ENOMEM;
		l->nids = v;
		l->cap = l->cap ? 2 * l->cap : 64;
	}
	l->nids[l->n++] = nid;
	return 0;
}

struct walk {
	struct list dirs;
	struct list files;
};

static int collect(void *arg, const struct erofs_dirent *de)
{
	struct walk *w = arg;

	if (de->file_type == EROFS_FT_DIR)
		return push(&w->dirs, de->nid);
	if (de->file_type == EROFS_FT_REG_FILE)
		return push(&w->files, de->nid);
	return 0;
}

/* Directories are walked breadth first; a tree has each one once. */
static int walk_tree(struct erofs_ctx *ctx, struct walk *w)
{
	size_t i;
	int ret;

	ret = push(&w->dirs, ctx->img->root_nid);
	for (i = 0; !ret && i < w->dirs.n; i++) {
		struct erofs_inode dir;

		if (i > 1000000)
			return erofs_error(&ctx->err, -EFSCORRUPTED,
					   EROFS_NO_NID, EROFS_NO_OFFSET,
					   "more than a million directories");
		ret = erofs_read_inode(ctx, w->dirs.nids[i], &dir);
		if (!ret)
			ret = erofs_dir_iterate(ctx, &dir, EROFS_NO_NID,
						collect, w);
	}
	if (ret == -ENOMEM && !ctx->err.code)
		erofs_error(&ctx->err, -ENOMEM, EROFS_NO_NID, EROFS_NO_OFFSET,
			    "out of memory for the file list");
	return ret;
}

static int read_file(struct erofs_ctx *ctx, uint8_t *buf, struct file *f)
{
	struct erofs_sha256 sha;
	struct erofs_inode ino;
	uint64_t off = 0;
	int ret;

	ret = erofs_read_inode(ctx, f->nid, &ino);
	if (ret)
		return ret;
	f->size = ino.size;
	erofs_sha256_init(&sha);
	while (off < ino.size) {
		ssize_t n = erofs_pread(ctx, &ino, buf, READ_CHUNK, off);

		if (n < 0)
			return (int)n;
		if (!n)
			return erofs_error(&ctx->err, -EFSCORRUPTED, f->nid,
					   EROFS_NO_OFFSET, "short file");
		erofs_sha256_update(&sha, buf, (size_t)n);
		off += (uint64_t)n;
	}
	erofs_sha256_final(&sha, f->digest);
	return 0;
}

static void *run_job(void *arg)
{
	struct job *job = arg;
	struct erofs_ctx ctx;
	uint8_t *buf = malloc(READ_CHUNK);
	size_t i;

	erofs_err_clear(&job->err);
	job->ret = buf ? erofs_ctx_init(&ctx, job->img) : -ENOMEM;
	if (job->ret) {
		free(buf);
		return NULL;
	}
	for (i = job->index; i < job->nfiles && !job->ret; i += job->stride)
		job->ret = read_file(&ctx, buf, &job->files[i]);
	job->err = ctx.err;
	erofs_ctx_fini(&ctx);
	free(buf);
	return NULL;
}

static int read_files(struct erofs_image *img, struct file *files,
		      size_t n, unsigned int threads)
{
	struct job jobs[MAX_THREADS];
	pthread_t tid[MAX_THREADS];
	unsigned int i, started = 0;
	int status = 0;

	for (i = 0; i < threads; i++) {
		jobs[i] = (struct job){ .img = img, .files = files, .nfiles = n,
					 .index = i, .stride = threads };
		if (threads == 1)
			run_job(&jobs[i]);
		else if (pthread_create(&tid[i], NULL, run_job, &jobs[i]))
			break;
		started++;
	}
	if (threads > 1)
		for (i = 0; i < started; i++)
			pthread_join(tid[i], NULL);
	if (started < threads) {
		errno = ENOMEM;
		status = fail(-ENOMEM, NULL, "cannot start a thread");
	}
	for (i = 0; i < started && !status; i++)
		if (jobs[i].ret)
			status = fail(jobs[i].ret, &jobs[i].err, "read");
	return status;
}

static int run(const char *path, unsigned int threads)
{
	struct erofs_open_opts opts = { .path = path };
	struct walk w = { { 0 }, { 0 } };
	struct erofs_image *img;
	struct file *files = NULL;
	struct erofs_ctx ctx;
	struct erofs_err err;
	int ret, status = 0;
	size_t i, j;

	erofs_err_clear(&err);
	ret = erofs_image_open(&img, &opts, &err);
	if (ret)
		return fail(ret, &err, "open");
	ret = erofs_ctx_init(&ctx, img);
	if (ret) {
		erofs_image_close(img);
		return fail(ret, NULL, "context");
	}
	ret = walk_tree(&ctx, &w);
	if (ret)
		status = fail(ret, &ctx.err, "walk");
	erofs_ctx_fini(&ctx);
	if (!status) {
		files = calloc(w.files.n ? w.files.n : 1, sizeof(*files));
		if (!files)
			status = fail(-ENOMEM, NULL, "file table");
	}
	if (!status) {
		for (i = 0; i < w.files.n; i++)
			files[i].nid = w.files.nids[i];
		status = read_files(img, files, w.files.n, threads);
	}
	for (i = 0; !status && i < w.files.n; i++) {
		for (j = 0; j < EROFS_SHA256_LEN; j++)
			printf("%02x", files[i].digest[j]);
		printf(" %llu %llu\n", (unsigned long long)files[i].nid,
		       (unsigned long long)files[i].size);
	}
	if (!status && (fflush(stdout) || ferror(stdout)))
		status = fail(-EIO, NULL, "output");
	free(files);
	free(w.dirs.nids);
	free(w.files.nids);
	erofs_image_close(img);
	return status;
}

int main(int argc, char **argv)
{
	unsigned int threads = 1;

	if (argc == 4 && !strcmp(argv[1], "-j")) {
		threads = (unsigned int)strtoul(argv[2], NULL, 10);
		argv += 2;
		argc -= 2;
	}
	if (argc != 2 || !threads || threads > MAX_THREADS) {
		fprintf(stderr, "usage: readall [-j 1..%d] IMAGE\n",
			MAX_THREADS);
		return 16;
	}
	return run(argv[1], threads);
}
