// SPDX-License-Identifier: MIT
/*
 * readbench: fio-like read workloads on one file of an image, through the
 * library's read call, to measure the cost of mapping file offsets (encoded
 * extent lookups in particular) with and without the optimised lookup.
 *
 * Each run starts from fresh per-thread contexts and, when allowed, a
 * dropped page cache, so that no run inherits another's caches.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "erofs/context.h"
#include "erofs/data.h"
#include "erofs/dir.h"
#include "erofs/hash.h"
#include "erofs/image.h"
#include "erofs/inode.h"
#include "erofs/testing.h"

#define RAND_BLOCK	4096
#define RAND_SEED	0x5eed0f10e2bULL
#define MAX_THREADS	256
#define MAX_RUNS	1000

struct workload {
	const char *name;
	size_t bs;		/* bytes per read */
	bool random;		/* random aligned offsets, else in order */
};

static const struct workload workloads[] = {
	{ "seq4k", 4096, false },
	{ "rand4k", RAND_BLOCK, true },
	{ "seq128k", 128 * 1024, false },
};

struct options {
	const char *image;
	const char *path;
	const struct workload *wl;
	bool plain;
	bool compare;
	bool warm;
	unsigned int threads;
	unsigned int runs;
};

/* One image opened with one lookup flavour, and the file under test. */
struct target {
	const char *label;		/* "opt" or "plain" */
	bool plain;			/* erofs_ctx_set_plain_lookup() */
	struct erofs_image *img;
	struct erofs_inode inode;
	double *iops;			/* per run, for the ratio */
};

struct bench;

struct worker {
	pthread_t tid;
	struct bench *b;
	unsigned int index;
	struct erofs_ctx ctx;
	bool ctx_ready;
	uint64_t bytes;
	uint64_t reads;
	int err;
	char msg[EROFS_ERR_MSG_MAX + 64];
};

/* Holds the workers until all have their context, so they start together. */
struct gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned int ready;
	bool open;
	bool abort;
};

struct bench {
	const struct options *o;
	struct target *t;
	uint8_t *whole;		/* sequential runs: the whole file */
	struct gate gate;
	struct worker *workers;
};

struct run_result {
	double seconds;
	uint64_t bytes;
	uint64_t reads;
	uint64_t lookups;
	uint64_t lookup_meta_reads;
	uint64_t hint_hits;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* xorshift64*: a fixed, portable sequence for the random offsets. */
static uint64_t next_random(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

static int worker_fail(struct worker *w, const char *what, uint64_t off)
{
	snprintf(w->msg, sizeof(w->msg), "%s at offset %" PRIu64 ": %s", what,
		 off, w->ctx.err.msg[0] ? w->ctx.err.msg : strerror(-w->err));
	return w->err;
}

static int read_one(struct worker *w, uint8_t *buf, size_t len, uint64_t off)
{
	const struct erofs_inode *inode = &w->b->t->inode;
	size_t want = len;
	ssize_t n;

	if (off >= inode->size)
		return 0;
	if (want > inode->size - off)
		want = (size_t)(inode->size - off);
	n = erofs_pread(&w->ctx, inode, buf, len, off);
	if (n < 0) {
		w->err = (int)n;
		return worker_fail(w, "read", off);
	}
	if ((size_t)n != want) {
		w->err = -EIO;
		return worker_fail(w, "short read", off);
	}
	w->bytes += n;
	w->reads++;
	return 0;
}

/* This worker's share [first, last) of count items. */
static void share(const struct worker *w, uint64_t count, uint64_t *first,
		  uint64_t *last)
{
	unsigned int n = w->b->o->threads;

	*first = count / n * w->index + count % n * w->index / n;
	*last = count / n * (w->index + 1) + count % n * (w->index + 1) / n;
}

/* Contiguous ranges, one per thread, read in order into the file buffer. */
static int run_sequential(struct worker *w)
{
	size_t bs = w->b->o->wl->bs;
	uint64_t size = w->b->t->inode.size;
	uint64_t blk, first, last;
	int ret;

	share(w, (size + bs - 1) / bs, &first, &last);
	for (blk = first; blk < last; blk++) {
		ret = read_one(w, w->b->whole + blk * bs, bs, blk * bs);
		if (ret)
			return ret;
	}
	return 0;
}

/* As many aligned random reads as the file has blocks, over all threads. */
static int run_random(struct worker *w)
{
	uint64_t nblocks = (w->b->t->inode.size + RAND_BLOCK - 1) / RAND_BLOCK;
	uint64_t state = RAND_SEED + w->index;
	uint64_t i, first, last;
	uint8_t buf[RAND_BLOCK];
	int ret;

	share(w, nblocks, &first, &last);
	for (i = first; i < last; i++) {
		uint64_t blk = next_random(&state) % nblocks;

		ret = read_one(w, buf, RAND_BLOCK, blk * RAND_BLOCK);
		if (ret)
			return ret;
	}
	return 0;
}

/* A worker is ready: wait for the gate; false if the run is called off. */
static bool gate_pass(struct gate *g)
{
	bool go;

	pthread_mutex_lock(&g->lock);
	g->ready++;
	pthread_cond_broadcast(&g->cond);
	while (!g->open)
		pthread_cond_wait(&g->cond, &g->lock);
	go = !g->abort;
	pthread_mutex_unlock(&g->lock);
	return go;
}

/* Wait for count workers to be ready, then let them go (or not). */
static void gate_open(struct gate *g, unsigned int count, bool abort)
{
	pthread_mutex_lock(&g->lock);
	while (g->ready < count)
		pthread_cond_wait(&g->cond, &g->lock);
	g->open = true;
	g->abort = abort;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	w->err = erofs_ctx_init(&w->ctx, w->b->t->img);
	if (w->err) {
		snprintf(w->msg, sizeof(w->msg), "context: %s",
			 strerror(-w->err));
	} else {
		erofs_ctx_set_plain_lookup(&w->ctx, w->b->t->plain);
		w->ctx_ready = true;
	}
	/* a failed worker passes the gate too, or the others never start */
	if (!gate_pass(&w->b->gate) || w->err)
		return NULL;
	if (w->b->o->wl->random)
		run_random(w);
	else
		run_sequential(w);
	return NULL;
}

static int drop_caches(const struct options *o)
{
	static bool warned;
	int fd;

	if (o->warm)
		return 0;
	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	if (fd >= 0 && write(fd, "3", 1) == 1) {
		close(fd);
		return 0;
	}
	if (!warned)
		fprintf(stderr,
			"readbench: cannot drop the page cache (%s): runs are warm\n",
			strerror(errno));
	warned = true;
	if (fd >= 0)
		close(fd);
	return -1;
}

static void collect(struct bench *b, struct run_result *r)
{
	unsigned int i;

	for (i = 0; i < b->o->threads; i++) {
		struct worker *w = &b->workers[i];
		const struct erofs_ctx_stats *st = erofs_ctx_stats(&w->ctx);

		r->bytes += w->bytes;
		r->reads += w->reads;
		r->lookups += st->lookups;
		r->lookup_meta_reads += st->lookup_meta_reads;
		r->hint_hits += st->hint_hits;
	}
}

static int report_failure(struct bench *b)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i < b->o->threads; i++) {
		struct worker *w = &b->workers[i];

		if (!w->err)
			continue;
		fprintf(stderr, "readbench: %s, thread %u: %s\n", b->t->label,
			i, w->msg);
		ret = w->err;
	}
	return ret;
}

static int start_workers(struct bench *b, unsigned int *started)
{
	unsigned int i;
	int ret;

	for (i = 0; i < b->o->threads; i++) {
		struct worker *w = &b->workers[i];

		memset(w, 0, sizeof(*w));
		w->b = b;
		w->index = i;
		ret = pthread_create(&w->tid, NULL, worker_main, w);
		if (ret) {
			fprintf(stderr, "readbench: thread: %s\n",
				strerror(ret));
			return -ret;
		}
		(*started)++;
	}
	return 0;
}

/*
 * One timed run. The clock starts when every thread has its context and
 * stops when the last one is done.
 */
static int run_once(struct bench *b, struct run_result *r)
{
	unsigned int i, started = 0;
	double t0;
	int ret, failed;

	memset(r, 0, sizeof(*r));
	/* a read that returns without writing must not show old bytes */
	if (b->whole)
		memset(b->whole, 0, b->t->inode.size);
	drop_caches(b->o);
	b->gate = (struct gate){ .lock = PTHREAD_MUTEX_INITIALIZER,
				 .cond = PTHREAD_COND_INITIALIZER };
	ret = start_workers(b, &started);
	gate_open(&b->gate, started, ret != 0);
	t0 = now();
	for (i = 0; i < started; i++)
		pthread_join(b->workers[i].tid, NULL);
	r->seconds = now() - t0;
	collect(b, r);
	failed = report_failure(b);
	for (i = 0; i < started; i++)
		if (b->workers[i].ctx_ready)
			erofs_ctx_fini(&b->workers[i].ctx);
	return ret ? ret : failed;
}

static void print_digest(const uint8_t *data, uint64_t size)
{
	uint8_t digest[EROFS_SHA256_LEN];
	struct erofs_sha256 s;
	unsigned int i;

	erofs_sha256_init(&s);
	erofs_sha256_update(&s, data, size);
	erofs_sha256_final(&s, digest);
	printf(" sha256=");
	for (i = 0; i < EROFS_SHA256_LEN; i++)
		printf("%02x", digest[i]);
}

static void print_run(struct bench *b, const struct run_result *r,
		      double *iops)
{
	double secs = r->seconds > 0 ? r->seconds : 1e-9;
	double per_lookup = 0, hits = 0;

	if (r->lookups) {
		per_lookup = (double)r->lookup_meta_reads / r->lookups;
		hits = 100.0 * r->hint_hits / r->lookups;
	}
	*iops = r->reads / secs;
	printf("workload=%s threads=%u iops=%.0f mibps=%.1f "
	       "meta_reads_per_lookup=%.3f hint_hits=%.1f lookup=%s",
	       b->o->wl->name, b->o->threads, *iops,
	       r->bytes / 1048576.0 / secs, per_lookup, hits, b->t->label);
	if (!b->o->wl->random)
		print_digest(b->whole, b->t->inode.size);
	printf("\n");
	fflush(stdout);
}

static int open_target(struct target *t, const struct options *o, bool plain)
{
	struct erofs_open_opts opts = { .path = o->image };
	struct erofs_ctx ctx;
	struct erofs_err err;
	uint64_t nid;
	int ret;

	t->plain = plain;
	t->label = plain ? "plain" : "opt";
	erofs_err_clear(&err);
	ret = erofs_image_open(&t->img, &opts, &err);
	if (ret) {
		fprintf(stderr, "readbench: %s: %s\n", o->image,
			err.msg[0] ? err.msg : strerror(-ret));
		return ret;
	}
	ret = erofs_ctx_init(&ctx, t->img);
	if (ret) {
		fprintf(stderr, "readbench: context: %s\n", strerror(-ret));
		return ret;
	}
	ret = erofs_lookup(&ctx, o->path, &nid);
	if (!ret)
		ret = erofs_read_inode(&ctx, nid, &t->inode);
	if (ret)
		fprintf(stderr, "readbench: %s: %s\n", o->path,
			ctx.err.msg[0] ? ctx.err.msg : strerror(-ret));
	else if (!S_ISREG(t->inode.mode)) {
		fprintf(stderr, "readbench: %s: not a regular file\n", o->path);
		ret = -EINVAL;
	}
	erofs_ctx_fini(&ctx);
	return ret;
}

static double median(double *v, unsigned int n)
{
	unsigned int i, j;

	for (i = 1; i < n; i++)
		for (j = i; j > 0 && v[j - 1] > v[j]; j--) {
			double tmp = v[j];

			v[j] = v[j - 1];
			v[j - 1] = tmp;
		}
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int bench_runs(const struct options *o, struct target *targets,
		      unsigned int ntargets, uint8_t *whole)
{
	struct bench b = { .o = o, .whole = whole };
	struct run_result r;
	unsigned int run, k;
	int ret = 0;

	b.workers = calloc(o->threads, sizeof(*b.workers));
	if (!b.workers)
		return -ENOMEM;
	/* interleave the flavours so that drifting conditions hit both */
	for (run = 0; run < o->runs && !ret; run++)
		for (k = 0; k < ntargets && !ret; k++) {
			b.t = &targets[k];
			ret = run_once(&b, &r);
			if (!ret)
				print_run(&b, &r, &targets[k].iops[run]);
		}
	free(b.workers);
	return ret;
}

static void print_ratio(const struct options *o, struct target *targets)
{
	double opt = median(targets[0].iops, o->runs);
	double plain = median(targets[1].iops, o->runs);

	printf("ratio workload=%s threads=%u iops_opt/iops_plain=%.3f\n",
	       o->wl->name, o->threads, plain > 0 ? opt / plain : 0);
}

static int run_bench(const struct options *o)
{
	struct target targets[2] = { { 0 } };
	unsigned int k, ntargets = o->compare ? 2 : 1;
	uint8_t *whole = NULL;
	int ret = 0;

	for (k = 0; k < ntargets && !ret; k++) {
		ret = open_target(&targets[k], o, k ? true : o->plain);
		if (!ret) {
			targets[k].iops = calloc(o->runs, sizeof(double));
			if (!targets[k].iops)
				ret = -ENOMEM;
		}
	}
	if (ret)
		goto out;
	if (!o->wl->random) {
		uint64_t size = targets[0].inode.size;

		if (size > SIZE_MAX / 2 || !(whole = malloc(size ? size : 1))) {
			fprintf(stderr, "readbench: no memory for %" PRIu64
				" bytes\n", size);
			ret = -ENOMEM;
			goto out;
		}
	}
	ret = bench_runs(o, targets, ntargets, whole);
	if (!ret && o->compare)
		print_ratio(o, targets);
out:
	free(whole);
	for (k = 0; k < ntargets; k++) {
		free(targets[k].iops);
		if (targets[k].img)
			erofs_image_close(targets[k].img);
	}
	return ret;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: readbench IMAGE PATH WORKLOAD [--plain | --compare]\n"
		"                 [--threads=N] [--runs=N] [--warm]\n"
		"WORKLOAD: seq4k, rand4k or seq128k\n"
		"  --plain      plain binary search for encoded extents\n"
		"  --compare    run the optimised and the plain lookup,\n"
		"               and print their iops ratio\n"
		"  --threads=N  reader threads (default 1)\n"
		"  --runs=N     runs of each lookup flavour (default 1)\n"
		"  --warm       keep the page cache between runs\n");
}

static int parse_count(const char *arg, unsigned int max, unsigned int *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || !v || v > max)
		return -1;
	*out = (unsigned int)v;
	return 0;
}

static const struct workload *find_workload(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(workloads) / sizeof(workloads[0]); i++)
		if (!strcmp(workloads[i].name, name))
			return &workloads[i];
	return NULL;
}

static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "plain", no_argument, NULL, 'p' },
		{ "compare", no_argument, NULL, 'c' },
		{ "threads", required_argument, NULL, 't' },
		{ "runs", required_argument, NULL, 'r' },
		{ "warm", no_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*o = (struct options){ .threads = 1, .runs = 1 };
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			o->plain = true;
			break;
		case 'c':
			o->compare = true;
			break;
		case 't':
			if (parse_count(optarg, MAX_THREADS, &o->threads))
				return -1;
			break;
		case 'r':
			if (parse_count(optarg, MAX_RUNS, &o->runs))
				return -1;
			break;
		case 'w':
			o->warm = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			return -1;
		}
	}
	if (argc - optind != 3 || (o->plain && o->compare))
		return -1;
	o->image = argv[optind];
	o->path = argv[optind + 1];
	o->wl = find_workload(argv[optind + 2]);
	return o->wl ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct options o;

	if (parse_options(argc, argv, &o)) {
		usage(stderr);
		return 2;
	}
	return run_bench(&o) ? 1 : 0;
}
