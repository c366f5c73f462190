// SPDX-License-Identifier: MIT
/*
 * Fragment reads (lib/image/fragments.c) on the fixture images: every regular
 * file read back, by one thread or four, matches its manifest digest; a
 * packed-inode pcluster is decoded once however many files and threads
 * share it; a small budget evicts and still reads right; a damaged packed
 * pcluster fails every read that needs it, with no wrong data and no hang;
 * images without fragments get no cache; a fragment cut into parts at the
 * packed inode's extents reads the same bytes; extents with readers to
 * come (read ahead, or read in part) are evicted last, and never by
 * read-ahead; an evicted mapping is reused as it is; the default budget
 * grows with the threads.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "erofs/data.h"
#include "erofs/decompress.h"
#include "erofs/dir.h"
#include "erofs/fragments.h"
#include "erofs/hash.h"
#include "erofs/image.h"
#include "erofs/inode.h"
#include "erofs/testing.h"
#include "unit.h"

static const char *const frag_images[] = {
	"lz4hc-all-fragments.erofs",
	"lz4hc-fragments.erofs",
	"lz4hc-c64k-dedupe-fragments-ztailpacking.erofs",
	"lz4hc-fragments-xattr-prefix.erofs",
	"zstd-c64k-fragments.erofs",
	"lz4hc-zD.erofs",
};

/* ---- the manifest: path and digest of every regular file ---- */

struct file {
	char path[4200];
	char sha[65];
};

struct manifest {
	struct file *f;
	size_t n;
};

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return c - 'A' + 10;
}

/* Undo the manifest's \xHH escapes. */
static void unescape(const char *in, char *out, size_t outlen)
{
	size_t o = 0;

	out[o++] = '/';
	while (*in && o + 1 < outlen) {
		if (in[0] == '\\' && in[1] == 'x' && in[2] && in[3]) {
			out[o++] = (char)(hexval(in[2]) << 4 | hexval(in[3]));
			in += 4;
		} else {
			out[o++] = *in++;
		}
	}
	out[o] = '\0';
}

/* The expected manifest of an image: the one tests/data/index names. */
static FILE *manifest_open(const char *image)
{
	const char *base = strrchr(image, '/') ? strrchr(image, '/') + 1 :
						 image;
	char line[1024], name[512], manifest[512], path[1200];
	FILE *index, *fp = NULL;

	snprintf(path, sizeof(path), "%s/index", EROFS_TEST_SRCDATA);
	index = fopen(path, "r");
	ck_assert_msg(index != NULL, "cannot open %s", path);
	while (!fp && fgets(line, sizeof(line), index)) {
		if (sscanf(line, "%511s %511s", name, manifest) != 2 ||
		    strcmp(name, base))
			continue;
		snprintf(path, sizeof(path), "%s/%s", EROFS_TEST_SRCDATA,
			 manifest);
		fp = fopen(path, "r");
	}
	fclose(index);
	ck_assert_msg(fp != NULL, "no manifest for %s", image);
	return fp;
}

static void manifest_load(struct manifest *m, const char *image)
{
	char line[16384];
	size_t cap = 0;
	FILE *fp = manifest_open(image);

	m->f = NULL;
	m->n = 0;
	while (fgets(line, sizeof(line), fp)) {
		char *field[12], *save = NULL, *p = line;
		unsigned int k;

		for (k = 0; k < 12; k++, p = NULL) {
			field[k] = strtok_r(p, " \n", &save);
			if (!field[k])
				break;
		}
		if (k < 12 || strcmp(field[1], "f"))
			continue;
		if (m->n == cap) {
			cap = cap ? 2 * cap : 1024;
			m->f = realloc(m->f, cap * sizeof(*m->f));
			ck_assert_ptr_nonnull(m->f);
		}
		unescape(field[0], m->f[m->n].path, sizeof(m->f[m->n].path));
		snprintf(m->f[m->n].sha, sizeof(m->f[m->n].sha), "%s",
			 field[7]);
		m->n++;
	}
	fclose(fp);
	ck_assert_uint_gt(m->n, 0);
}

/* ---- reading files ---- */

/* 0 with the file's digest in hex, or the read's error. */
/* Readers do not wait for another's decode (test_nowait). */
static bool readers_nowait;

/* Up to len bytes at off: erofs_pread(), or one extent read not waiting. */
static ssize_t read_some(struct erofs_ctx *ctx, const struct erofs_inode *ino,
			 uint8_t *buf, size_t len, uint64_t off)
{
	struct erofs_map map;
	uint64_t n;
	int ret;

	if (!readers_nowait)
		return erofs_pread(ctx, ino, buf, len, off);
	ret = erofs_map(ctx, ino, off, &map);
	if (ret)
		return ret;
	n = map.la + map.llen - off;
	if (n > len)
		n = len;
	if (n > ino->size - off)
		n = ino->size - off;
	ret = erofs_extent_read_nowait(ctx, ino, &map, off - map.la, buf,
				       (size_t)n);
	return ret ? ret : (ssize_t)n;
}

static int read_digest(struct erofs_ctx *ctx, const char *path, char hex[65],
		       unsigned int *deferred)
{
	static const char digits[] = "0123456789abcdef";
	uint8_t digest[EROFS_SHA256_LEN], buf[65536];
	struct erofs_sha256 sha;
	struct erofs_inode ino;
	uint64_t nid, off = 0;
	unsigned int i;
	int ret;

	ret = erofs_lookup(ctx, path, &nid);
	if (!ret)
		ret = erofs_read_inode(ctx, nid, &ino);
	if (ret)
		return ret;
	erofs_sha256_init(&sha);
	while (off < ino.size) {
		ssize_t n = read_some(ctx, &ino, buf, sizeof(buf), off);

		if (n == -EAGAIN) {
			/* another reader decodes it: read again */
			(*deferred)++;
			usleep(1000);
			continue;
		}
		if (n <= 0)
			return n ? (int)n : -EIO;
		erofs_sha256_update(&sha, buf, (size_t)n);
		off += (uint64_t)n;
	}
	erofs_sha256_final(&sha, digest);
	for (i = 0; i < EROFS_SHA256_LEN; i++) {
		hex[2 * i] = digits[digest[i] >> 4];
		hex[2 * i + 1] = digits[digest[i] & 15];
	}
	hex[64] = '\0';
	return 0;
}

struct reader {
	struct erofs_image *img;
	const struct manifest *m;
	unsigned int index, stride;
	unsigned int ok, failed, wrong;
	unsigned int deferred; /* reads that came back -EAGAIN */
	char first_error[256];
};

static void *reader_run(void *arg)
{
	struct reader *r = arg;
	struct erofs_ctx ctx;
	size_t i;

	if (erofs_ctx_init(&ctx, r->img)) {
		r->failed = 1;
		snprintf(r->first_error, sizeof(r->first_error), "ctx init");
		return NULL;
	}
	for (i = r->index; i < r->m->n; i += r->stride) {
		char hex[65];
		int ret;

		erofs_err_drop(&ctx.err);
		ret = read_digest(&ctx, r->m->f[i].path, hex, &r->deferred);
		if (ret) {
			if (!r->failed++)
				snprintf(r->first_error,
					 sizeof(r->first_error),
					 "%.60s: %d %.180s",
					 r->m->f[i].path, ret, ctx.err.msg);
		} else if (strcmp(hex, r->m->f[i].sha)) {
			if (!r->wrong++ && !r->failed)
				snprintf(r->first_error,
					 sizeof(r->first_error),
					 "%.200s: wrong content",
					 r->m->f[i].path);
		} else {
			r->ok++;
		}
	}
	erofs_ctx_fini(&ctx);
	return NULL;
}

struct totals {
	unsigned int ok, failed, wrong, deferred;
	char first_error[256];
};

static void read_all(struct erofs_image *img, const struct manifest *m,
		     unsigned int threads, struct totals *t)
{
	struct reader r[8];
	pthread_t tid[8];
	unsigned int i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < threads; i++) {
		memset(&r[i], 0, sizeof(r[i]));
		r[i].img = img;
		r[i].m = m;
		r[i].index = i;
		r[i].stride = threads;
		ck_assert_int_eq(pthread_create(&tid[i], NULL, reader_run,
						&r[i]), 0);
	}
	for (i = 0; i < threads; i++) {
		pthread_join(tid[i], NULL);
		t->ok += r[i].ok;
		t->failed += r[i].failed;
		t->wrong += r[i].wrong;
		t->deferred += r[i].deferred;
		if (!t->first_error[0])
			memcpy(t->first_error, r[i].first_error,
			       sizeof(t->first_error));
	}
}

static struct erofs_image *image_open(const char *path)
{
	struct erofs_open_opts opts = { .path = path };
	struct erofs_image *img;
	struct erofs_err err;
	int ret;

	erofs_err_clear(&err);
	ret = erofs_image_open(&img, &opts, &err);
	ck_assert_msg(!ret, "open %s: %d %s", path, ret, err.msg);
	return img;
}

/* Compressed extents of the packed inode: what the cache may hold. */
static unsigned int packed_extents(struct erofs_image *img)
{
	struct erofs_ctx ctx;
	unsigned int n = 0;
	uint64_t pos = 0;

	ck_assert_int_eq(erofs_ctx_init(&ctx, img), 0);
	while (pos < img->packed.size) {
		struct erofs_map m;

		ck_assert_int_eq(erofs_map(&ctx, &img->packed, pos, &m), 0);
		if (m.fmt < EROFS_FMT_SHIFTED && m.loc != EROFS_LOC_HOLE)
			n++;
		pos = m.la + m.llen;
	}
	erofs_ctx_fini(&ctx);
	return n;
}

static void expect_all_ok(const struct manifest *m, const struct totals *t,
			  const char *what)
{
	ck_assert_msg(!t->failed && !t->wrong && t->ok == m->n,
		      "%s: %u ok, %u failed, %u wrong of %zu (%s)", what, t->ok,
		      t->failed, t->wrong, m->n, t->first_error);
}

/* ---- tests ---- */

START_TEST(test_fragment_images)
{
	struct erofs_frag_stats st;
	struct manifest m;
	struct totals t;
	char path[512];
	unsigned int i;

	for (i = 0; i < sizeof(frag_images) / sizeof(frag_images[0]); i++) {
		struct erofs_image *img;
		unsigned int threads, extents;

		unit_fixture(path, sizeof(path), frag_images[i]);
		manifest_load(&m, path);
		for (threads = 1; threads <= 4; threads += 3) {
			img = image_open(path);
			ck_assert_ptr_nonnull(img->frag_cache);
			extents = packed_extents(img);
			read_all(img, &m, threads, &t);
			expect_all_ok(&m, &t, frag_images[i]);
			erofs_frag_cache_stats(img, &st);
			/* each pcluster decoded once: nothing was evicted */
			ck_assert_uint_eq(st.evictions, 0);
			ck_assert_uint_le(st.decodes, extents);
			ck_assert_uint_gt(st.hits, 0);
			ck_assert_uint_le(st.bytes, EROFS_FRAG_CACHE_BUDGET);
			fprintf(stderr, "%s, %u threads: %llu decodes of %u extents, %llu hits, %llu waits\n",
				frag_images[i], threads,
				(unsigned long long)st.decodes, extents,
				(unsigned long long)st.hits,
				(unsigned long long)st.waits);

			/* the path without a cache reads the same */
			erofs_frag_cache_destroy(img);
			ck_assert_ptr_null(img->frag_cache);
			read_all(img, &m, threads, &t);
			expect_all_ok(&m, &t, "without cache");
			erofs_image_close(img);
		}
		free(m.f);
	}
}
END_TEST

/*
 * Threads of an image limited to n decoders at once read every file right
 * and each packed extent once, and no more than n decode at a time: four
 * readers of a cache that defers nothing (erofs_decoders_limit()).
 */
START_TEST(test_decoders_limited)
{
	struct erofs_frag_stats st;
	struct erofs_image *img;
	struct manifest m;
	struct totals t;
	char path[512];
	unsigned int n;

	unit_fixture(path, sizeof(path), frag_images[0]);
	manifest_load(&m, path);
	for (n = 1; n <= 2; n++) {
		img = image_open(path);
		ck_assert_uint_eq(erofs_decoders_peak(img), 0);
		ck_assert_int_eq(erofs_decoders_limit(img, n), 0);
		ck_assert_int_eq(erofs_decoders_limit(img, n), -EBUSY);
		read_all(img, &m, 4, &t);
		expect_all_ok(&m, &t, "limited decoders");
		erofs_frag_cache_stats(img, &st);
		ck_assert_uint_le(st.decodes, packed_extents(img));
		ck_assert_uint_ge(erofs_decoders_peak(img), 1);
		ck_assert_uint_le(erofs_decoders_peak(img), n);
		erofs_decoders_unlimit(img);
		ck_assert_uint_eq(erofs_decoders_peak(img), 0);
		ck_assert_int_eq(erofs_decoders_limit(img, 0), 0);
		ck_assert_ptr_null(img->decoders);
		erofs_image_close(img);
	}
	free(m.f);
}
END_TEST

/*
 * Cut the fragment map of a file into parts from its start; check that
 * they tile it, each within one packed extent, and read what the whole
 * map reads there. The parts' count.
 */
static unsigned int cut_fragment(struct erofs_ctx *ctx,
				 const struct erofs_inode *ino,
				 const struct erofs_map *whole)
{
	static uint8_t a[1 << 20], b[1 << 20];
	struct erofs_map part, packed;
	uint64_t pos = whole->la, end = whole->la + whole->llen;
	unsigned int parts = 0;

	while (pos < end) {
		ck_assert_int_eq(erofs_frag_map_part(ctx, whole, pos, &part,
						     &packed),
				 0);
		ck_assert_uint_eq(part.la, pos);
		ck_assert_uint_gt(part.llen, 0);
		ck_assert_uint_le(part.la + part.llen, end);
		ck_assert_uint_eq(part.pa, whole->pa + (pos - whole->la));
		ck_assert_uint_ge(part.pa, packed.la);
		ck_assert_uint_le(part.pa + part.llen, packed.la + packed.llen);
		/* a part ends with its packed extent or with the fragment */
		ck_assert(part.pa + part.llen == packed.la + packed.llen ||
			  part.la + part.llen == end);
		if (part.llen <= sizeof(a)) {
			ck_assert_int_eq(erofs_extent_read(ctx, ino, &part, 0,
							   a, part.llen),
					 0);
			ck_assert_int_eq(erofs_extent_read(ctx, ino, whole,
							   pos - whole->la, b,
							   part.llen),
					 0);
			ck_assert(!memcmp(a, b, part.llen));
		}
		pos += part.llen;
		parts++;
	}
	return parts;
}

START_TEST(test_fragment_parts)
{
	struct erofs_map whole, other;
	struct erofs_image *img;
	struct erofs_inode ino;
	unsigned int i, n, files, parts, cut = 0;
	struct erofs_ctx ctx;
	struct manifest m;
	char path[512];
	uint64_t nid;
	size_t k;

	for (i = 0; i < sizeof(frag_images) / sizeof(frag_images[0]); i++) {
		unit_fixture(path, sizeof(path), frag_images[i]);
		manifest_load(&m, path);
		img = image_open(path);
		ck_assert_int_eq(erofs_ctx_init(&ctx, img), 0);
		files = parts = 0;
		for (k = 0; k < m.n; k++) {
			ck_assert_int_eq(erofs_lookup(&ctx, m.f[k].path, &nid),
					 0);
			ck_assert_int_eq(erofs_read_inode(&ctx, nid, &ino), 0);
			if (!ino.size || !erofs_inode_is_compressed(&ino))
				continue;
			ck_assert_int_eq(
				erofs_map(&ctx, &ino, ino.size - 1, &whole), 0);
			if (whole.loc != EROFS_LOC_FRAGMENT)
				continue;
			files++;
			n = cut_fragment(&ctx, &ino, &whole);
			parts += n;
			cut += n > 1;
			/* only a fragment is cut, and only inside it */
			if (whole.la) {
				ck_assert_int_eq(
					erofs_map(&ctx, &ino, 0, &other), 0);
				ck_assert_int_eq(
					erofs_frag_map_part(&ctx, &other, 0,
							    &other, &other),
					-EINVAL);
				erofs_err_drop(&ctx.err);
			}
			ck_assert_int_eq(
				erofs_frag_map_part(&ctx, &whole,
						    whole.la + whole.llen,
						    &other, &other),
				-EINVAL);
			erofs_err_drop(&ctx.err);
		}
		fprintf(stderr, "%s: %u fragments in %u parts\n",
			frag_images[i], files, parts);
		erofs_ctx_fini(&ctx);
		erofs_image_close(img);
		free(m.f);
	}
	/* some fragment spans packed extents: the cut was tried */
	ck_assert_uint_gt(cut, 0);
}
END_TEST

START_TEST(test_small_budget)
{
	struct erofs_frag_stats st;
	struct erofs_image *img;
	struct erofs_err err;
	struct manifest m;
	struct totals t;
	char path[512];

	unit_fixture(path, sizeof(path), "lz4hc-all-fragments.erofs");
	manifest_load(&m, path);
	img = image_open(path);
	erofs_err_clear(&err);
	/* room for a few extents; larger ones bypass the cache */
	ck_assert_int_eq(erofs_frag_cache_create(img, 512 << 10, &err), 0);
	read_all(img, &m, 4, &t);
	expect_all_ok(&m, &t, "512 KiB budget");
	erofs_frag_cache_stats(img, &st);
	ck_assert_uint_gt(st.evictions, 0);
	/* the extents above were read right out of mappings handed on */
	ck_assert_uint_gt(st.recycled, 0);
	ck_assert_uint_le(st.recycled, st.evictions);
	ck_assert_uint_gt(st.uncached, 0);
	ck_assert_uint_le(st.bytes, 512 << 10);
	erofs_image_close(img);
	free(m.f);
}
END_TEST

/*
 * A reader that asks not to wait (erofs_extent_read_nowait(), as fsck's
 * workers do) gets -EAGAIN where it would wait for another's decode, and
 * the right bytes when it reads again; every read put off is counted
 * (lookups still wait: their directories' fragments are read as usual). That depends on timing, so rounds are read
 * until some read was put off.
 */
START_TEST(test_nowait)
{
	struct erofs_frag_stats st = { 0 };
	struct erofs_image *img;
	struct manifest m;
	struct totals t;
	char path[512];
	unsigned int round;

	unit_fixture(path, sizeof(path), "lz4hc-all-fragments.erofs");
	manifest_load(&m, path);
	readers_nowait = true;
	for (round = 0; round < 200 && !st.deferred; round++) {
		img = image_open(path);
		read_all(img, &m, 4, &t);
		expect_all_ok(&m, &t, "readers that do not wait");
		erofs_frag_cache_stats(img, &st);
		ck_assert_uint_eq(t.deferred, st.deferred);
		erofs_image_close(img);
	}
	readers_nowait = false;
	ck_assert_msg(st.deferred, "no read put off in %u rounds", round);
	free(m.f);
}
END_TEST

START_TEST(test_no_cache_without_fragments)
{
	static const char *const names[] = {
		"lz4hc-default.erofs", "lz4hc-dedupe.erofs", "zstd-48bit.erofs",
	};
	char path[512];
	unsigned int i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct erofs_image *img;

		unit_fixture(path, sizeof(path), names[i]);
		img = image_open(path);
		ck_assert_ptr_null(img->frag_cache);
		erofs_image_close(img);
	}
}
END_TEST

/* Zero the first compressed pcluster of the packed inode in a copy. */
static void damage_copy(const char *src, char *dst, size_t dstlen)
{
	struct erofs_image *img = image_open(src);
	struct erofs_ctx ctx;
	struct erofs_map m;
	uint64_t pos = 0;
	char cmd[2048];
	uint8_t *zeros;
	FILE *fp;

	ck_assert_int_eq(erofs_ctx_init(&ctx, img), 0);
	do {
		ck_assert_uint_lt(pos, img->packed.size);
		ck_assert_int_eq(erofs_map(&ctx, &img->packed, pos, &m), 0);
		pos = m.la + m.llen;
	} while (m.fmt >= EROFS_FMT_SHIFTED || m.loc != EROFS_LOC_DEVICE);
	erofs_ctx_fini(&ctx);
	erofs_image_close(img);

	snprintf(dst, dstlen, "/tmp/test_fragments.%d.erofs", (int)getpid());
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s' && chmod u+w '%s'", src, dst,
		 dst);
	ck_assert_int_eq(system(cmd), 0);
	zeros = calloc(1, (size_t)m.plen);
	fp = fopen(dst, "r+b");
	ck_assert_ptr_nonnull(fp);
	ck_assert_int_eq(fseeko(fp, (off_t)m.pa, SEEK_SET), 0);
	ck_assert_uint_eq(fwrite(zeros, 1, (size_t)m.plen, fp), m.plen);
	fclose(fp);
	free(zeros);
}

START_TEST(test_damaged_packed)
{
	struct erofs_image *img;
	struct manifest m;
	struct totals t;
	char path[512], bad[600];
	unsigned int threads;

	unit_fixture(path, sizeof(path), "lz4hc-all-fragments.erofs");
	manifest_load(&m, path);
	damage_copy(path, bad, sizeof(bad));
	for (threads = 1; threads <= 4; threads += 3) {
		img = image_open(bad);
		read_all(img, &m, threads, &t);
		/* files in the damaged pcluster fail, the others read right */
		ck_assert_uint_gt(t.failed, 0);
		ck_assert_uint_gt(t.ok, 0);
		ck_assert_msg(!t.wrong, "%u files with wrong content",
			      t.wrong);
		ck_assert_uint_eq(t.ok + t.failed, m.n);
		ck_assert_msg(strstr(t.first_error, "zero") != NULL,
			      "unexpected error: %s", t.first_error);
		erofs_image_close(img);
	}
	unlink(bad);
	free(m.f);
}
END_TEST

/* The first compressed pcluster of the packed inode, as damage_copy. */
static void first_compressed(struct erofs_ctx *ctx, struct erofs_map *m)
{
	const struct erofs_inode *packed = &ctx->img->packed;
	uint64_t pos = 0;

	do {
		ck_assert_uint_lt(pos, packed->size);
		ck_assert_int_eq(erofs_map(ctx, packed, pos, m), 0);
		pos = m->la + m->llen;
	} while (m->fmt >= EROFS_FMT_SHIFTED || m->loc != EROFS_LOC_DEVICE);
}

/*
 * Read-ahead decodes an extent once, for the reader that comes next; a
 * damaged one stays failed without a word until a reader meets it, and
 * only then counts as checked.
 */
START_TEST(test_prefetch)
{
	struct erofs_image *img;
	struct erofs_frag_stats st;
	struct erofs_ctx ctx;
	struct erofs_map m;
	char path[512], bad[600];
	uint8_t byte;
	int pass;

	unit_fixture(path, sizeof(path), "lz4hc-all-fragments.erofs");
	damage_copy(path, bad, sizeof(bad));
	for (pass = 0; pass < 2; pass++) {
		img = image_open(pass ? bad : path);
		ck_assert_int_eq(erofs_ctx_init(&ctx, img), 0);
		first_compressed(&ctx, &m);
		ck_assert(!erofs_frag_decoded(img, &m));
		ck_assert_int_eq(erofs_frag_prefetch(&ctx, &m), 1);
		/* pending, done or failed: never decoded twice */
		ck_assert_int_eq(erofs_frag_prefetch(&ctx, &m), 0);
		ck_assert_int_eq(ctx.err.code, 0);
		/* a failure is not counted until a reader is told of it */
		ck_assert(erofs_frag_decoded(img, &m) == !pass);
		ck_assert_int_eq(erofs_frag_read(&ctx, &img->packed, m.la,
						 &byte, 1),
				 pass ? -EFSCORRUPTED : 0);
		ck_assert(erofs_frag_decoded(img, &m));
		erofs_frag_cache_stats(img, &st);
		ck_assert_uint_eq(st.prefetches, 1);
		ck_assert_uint_eq(st.decodes, !pass);
		ck_assert_uint_eq(st.hits, !pass);
		erofs_ctx_fini(&ctx);
		erofs_image_close(img);
	}
	unlink(bad);
}
END_TEST

#define WANT_EXTENTS 4096

/* The first (up to max) extents of the packed inode the cache may hold. */
static unsigned int cacheable_extents(struct erofs_ctx *ctx,
				      struct erofs_map *maps, unsigned int max)
{
	const struct erofs_inode *packed = &ctx->img->packed;
	unsigned int n = 0;
	uint64_t pos = 0;

	while (pos < packed->size && n < max) {
		ck_assert_int_eq(erofs_map(ctx, packed, pos, &maps[n]), 0);
		pos = maps[n].la + maps[n].llen;
		if (maps[n].fmt < EROFS_FMT_SHIFTED &&
		    maps[n].loc != EROFS_LOC_HOLE)
			n++;
	}
	return n;
}

/* Read len bytes of m: did the cache have to decode it again? */
static bool read_part_decodes(struct erofs_ctx *ctx, const struct erofs_map *m,
			      uint64_t len)
{
	struct erofs_frag_stats before, after;
	uint8_t *buf = malloc((size_t)len);

	ck_assert_ptr_nonnull(buf);
	erofs_frag_cache_stats(ctx->img, &before);
	ck_assert_int_eq(erofs_frag_read(ctx, &ctx->img->packed, m->la, buf,
					 (size_t)len),
			 0);
	erofs_frag_cache_stats(ctx->img, &after);
	free(buf);
	return after.decodes > before.decodes;
}

/* Read a byte of m, which leaves the rest of it to readers to come. */
static bool read_decodes(struct erofs_ctx *ctx, const struct erofs_map *m)
{
	return read_part_decodes(ctx, m, 1);
}

/* Read all of m: it is used up. */
static bool read_all_decodes(struct erofs_ctx *ctx, const struct erofs_map *m)
{
	return read_part_decodes(ctx, m, m->llen);
}

/*
 * Readers decode maps[from..n), a byte of each or whole, until one evicts
 * an extent: its index.
 */
static unsigned int read_until_eviction(struct erofs_ctx *ctx,
					const struct erofs_map *maps,
					unsigned int from, unsigned int n,
					bool whole)
{
	struct erofs_frag_stats st;
	unsigned int i;

	for (i = from; i < n; i++) {
		ck_assert(whole ? read_all_decodes(ctx, &maps[i])
				: read_decodes(ctx, &maps[i]));
		erofs_frag_cache_stats(ctx->img, &st);
		if (st.evictions)
			break;
	}
	ck_assert_uint_lt(i, n);
	return i;
}

/*
 * lz4hc-all-fragments.erofs with a cache of four of its largest extents,
 * ctx on it, and its first *n cacheable extents in maps: the budget.
 */
static uint64_t small_cache(struct erofs_image **img, struct erofs_ctx *ctx,
			    struct erofs_map *maps, unsigned int *n)
{
	struct erofs_err err;
	uint64_t budget = 0;
	char path[512];
	unsigned int i;

	unit_fixture(path, sizeof(path), "lz4hc-all-fragments.erofs");
	*img = image_open(path);
	ck_assert_int_eq(erofs_ctx_init(ctx, *img), 0);
	*n = cacheable_extents(ctx, maps, WANT_EXTENTS);
	for (i = 0; i < *n; i++)
		if (4 * maps[i].llen > budget)
			budget = 4 * maps[i].llen;
	erofs_err_clear(&err);
	ck_assert_int_eq(erofs_frag_cache_create(*img, (size_t)budget, &err),
			 0);
	return budget;
}

/*
 * A reader announced with erofs_frag_want keeps its extent from being the
 * next one evicted: with the cache full of extents read ahead in order,
 * the oldest, once wanted, outlives the second oldest.
 */
START_TEST(test_want)
{
	static struct erofs_map maps[WANT_EXTENTS];
	struct erofs_image *img;
	struct erofs_ctx ctx;
	uint64_t budget, held = 0;
	unsigned int n, full;

	budget = small_cache(&img, &ctx, maps, &n);
	ck_assert(!erofs_frag_want(img, &maps[0]));
	for (full = 0; full < n && held + maps[full].llen <= budget; full++) {
		ck_assert_int_eq(erofs_frag_prefetch(&ctx, &maps[full]), 1);
		held += maps[full].llen;
	}
	ck_assert_uint_ge(full, 2);
	ck_assert_uint_lt(full, n);
	ck_assert(erofs_frag_want(img, &maps[0]));
	read_until_eviction(&ctx, maps, full, n, false);
	ck_assert(!read_decodes(&ctx, &maps[0]));
	ck_assert(read_decodes(&ctx, &maps[1]));
	erofs_ctx_fini(&ctx);
	erofs_image_close(img);
}
END_TEST

/*
 * Extents not used up are evicted after those readers used up: with the
 * cache filled by readers of whole extents after them, the oldest extent,
 * read ahead and read in part, and the second oldest, read ahead and not
 * read, outlive the third, used up.
 */
START_TEST(test_used_up_first)
{
	static struct erofs_map maps[WANT_EXTENTS];
	struct erofs_image *img;
	struct erofs_ctx ctx;
	unsigned int n;

	small_cache(&img, &ctx, maps, &n);
	ck_assert_uint_ge(n, 4);
	ck_assert_int_eq(erofs_frag_prefetch(&ctx, &maps[0]), 1);
	ck_assert(!read_decodes(&ctx, &maps[0]));
	ck_assert_int_eq(erofs_frag_prefetch(&ctx, &maps[1]), 1);
	ck_assert_uint_ge(read_until_eviction(&ctx, maps, 2, n, true), 3);
	ck_assert(!read_decodes(&ctx, &maps[0]));
	ck_assert(!read_decodes(&ctx, &maps[1]));
	ck_assert(read_decodes(&ctx, &maps[2]));
	erofs_ctx_fini(&ctx);
	erofs_image_close(img);
}
END_TEST

/*
 * Read maps[0] of lz4hc-all-fragments.erofs (with a small cache) in
 * pieces: npieces of about equal length, those of order[0..count) in that
 * order. Then, with maps[1] read ahead and not read, readers of whole
 * extents after them fill the cache until one is evicted: was it maps[0],
 * taken as used up?
 */
static bool pieces_use_up(unsigned int npieces, const unsigned int *order,
			  unsigned int count)
{
	static struct erofs_map maps[WANT_EXTENTS];
	struct erofs_image *img;
	struct erofs_ctx ctx;
	uint64_t piece, skip, len;
	unsigned int n, i;
	uint8_t *buf;
	bool evicted;

	small_cache(&img, &ctx, maps, &n);
	ck_assert_uint_ge(n, 4);
	ck_assert_uint_ge(maps[0].llen, npieces);
	piece = maps[0].llen / npieces;
	buf = malloc((size_t)maps[0].llen);
	ck_assert_ptr_nonnull(buf);
	for (i = 0; i < count; i++) {
		skip = order[i] * piece;
		len = order[i] == npieces - 1 ? maps[0].llen - skip : piece;
		ck_assert_int_eq(erofs_frag_read(&ctx, &ctx.img->packed,
						 maps[0].la + skip, buf,
						 (size_t)len),
				 0);
	}
	free(buf);
	ck_assert_int_eq(erofs_frag_prefetch(&ctx, &maps[1]), 1);
	read_until_eviction(&ctx, maps, 2, n, true);
	ck_assert(!read_decodes(&ctx, &maps[1]));
	evicted = read_decodes(&ctx, &maps[0]);
	erofs_ctx_fini(&ctx);
	erofs_image_close(img);
	return evicted;
}

/*
 * An extent is used up once readers copied out all of it, in whatever
 * order, not once one reached its end: readers in walk order may read a
 * directory's fragments before those of the files in its parent, which
 * come first in the extent.
 */
START_TEST(test_used_up_whole)
{
	unsigned int down[16], apart[32], i;

	/* from the end down, but piece 7 last */
	for (i = 0; i < 15; i++)
		down[i] = i < 8 ? 15 - i : 14 - i;
	down[15] = 7;
	ck_assert(!pieces_use_up(2, (const unsigned int[]){ 1 }, 1));
	ck_assert(pieces_use_up(2, (const unsigned int[]){ 1, 0 }, 2));
	ck_assert(!pieces_use_up(16, down, 15));
	ck_assert(pieces_use_up(16, down, 16));
	/* more spans apart than are kept, then the gaps between them */
	for (i = 0; i < 16; i++) {
		apart[i] = 2 * i;
		apart[16 + i] = 2 * i + 1;
	}
	ck_assert(pieces_use_up(32, apart, 32));
}
END_TEST

/*
 * Read-ahead never evicts an extent not used up: with the cache full of
 * extents read ahead, the next is held back and nothing is evicted; once
 * the oldest is used up, read-ahead takes its room.
 */
START_TEST(test_held_back)
{
	static struct erofs_map maps[WANT_EXTENTS];
	struct erofs_frag_stats st;
	struct erofs_image *img;
	struct erofs_ctx ctx;
	uint64_t budget, held = 0;
	unsigned int n, full, used;

	budget = small_cache(&img, &ctx, maps, &n);
	for (full = 0; full < n && held + maps[full].llen <= budget; full++) {
		ck_assert_int_eq(erofs_frag_prefetch(&ctx, &maps[full]), 1);
		held += maps[full].llen;
	}
	ck_assert_uint_lt(full, n);
	ck_assert_int_eq(erofs_frag_prefetch(&ctx, &maps[full]), 0);
	erofs_frag_cache_stats(img, &st);
	ck_assert_uint_eq(st.held_back, 1);
	ck_assert_uint_eq(st.evictions, 0);
	/* use up the oldest until the next fits beside the others */
	for (used = 0; held + maps[full].llen > budget; used++) {
		ck_assert(!read_all_decodes(&ctx, &maps[used]));
		held -= maps[used].llen;
	}
	ck_assert_uint_lt(used, full);
	ck_assert_int_eq(erofs_frag_prefetch(&ctx, &maps[full]), 1);
	erofs_frag_cache_stats(img, &st);
	ck_assert_uint_eq(st.held_back, 1);
	ck_assert_uint_ge(st.evictions, 1);
	ck_assert(!read_decodes(&ctx, &maps[used]));
	ck_assert(read_decodes(&ctx, &maps[0]));
	erofs_ctx_fini(&ctx);
	erofs_image_close(img);
}
END_TEST

/*
 * An evicted mapping up to twice as long as the new extent is taken as it
 * is, not resized, and charged whole: A, the largest extent, is used up,
 * fillers no larger than B keep the budget just short of A + B, and B
 * then evicts A and takes its mapping.
 */
START_TEST(test_mapping_reused)
{
	static struct erofs_map maps[WANT_EXTENTS];
	struct erofs_frag_stats st;
	struct erofs_image *img;
	struct erofs_ctx ctx;
	unsigned int n, i, a = 0, b = 0;
	uint64_t budget, fill = 0;

	budget = small_cache(&img, &ctx, maps, &n);
	for (i = 0; i < n; i++)
		if (maps[i].llen > maps[a].llen)
			a = i;
	for (i = 0; i < n; i++)
		if (maps[i].llen < maps[a].llen &&
		    2 * maps[i].llen >= maps[a].llen &&
		    maps[i].llen > maps[b].llen)
			b = i;
	ck_assert_uint_ne(a, b);
	ck_assert(read_all_decodes(&ctx, &maps[a]));
	for (i = 0; i < n; i++) {
		if (i == a || i == b || maps[i].llen > maps[b].llen ||
		    fill + maps[i].llen > budget - maps[a].llen)
			continue;
		ck_assert(read_all_decodes(&ctx, &maps[i]));
		fill += maps[i].llen;
	}
	ck_assert_uint_gt(fill + maps[a].llen + maps[b].llen, budget);
	erofs_frag_cache_stats(img, &st);
	ck_assert_uint_eq(st.evictions, 0);
	ck_assert(read_all_decodes(&ctx, &maps[b]));
	erofs_frag_cache_stats(img, &st);
	ck_assert_uint_eq(st.evictions, 1);
	ck_assert_uint_eq(st.recycled, 1);
	ck_assert_uint_eq(st.bytes, fill + maps[a].llen);
	ck_assert(!read_decodes(&ctx, &maps[b]));
	ck_assert(read_decodes(&ctx, &maps[a]));
	erofs_ctx_fini(&ctx);
	erofs_image_close(img);
}
END_TEST

/*
 * The default budget: two threads or fewer read in the default one; each
 * more gets room for the extent it holds pinned.
 */
START_TEST(test_budget_per_thread)
{
	unsigned int t;

	for (t = 0; t <= 2; t++)
		ck_assert_uint_eq(erofs_frag_cache_budget(t),
				  EROFS_FRAG_CACHE_BUDGET);
	ck_assert_uint_eq(EROFS_FRAG_CACHE_SHARED +
				  2 * EROFS_FRAG_CACHE_PER_THREAD,
			  EROFS_FRAG_CACHE_BUDGET);
	for (; t < 4096; t++)
		ck_assert_uint_eq(erofs_frag_cache_budget(t),
				  EROFS_FRAG_CACHE_SHARED +
					  (size_t)t *
						  EROFS_FRAG_CACHE_PER_THREAD);
	ck_assert_uint_le(erofs_frag_cache_budget(~0u), SIZE_MAX / 2);
	ck_assert_uint_ge(erofs_frag_cache_budget(~0u),
			  erofs_frag_cache_budget(4095));
}
END_TEST

UNIT_MAIN("fragments", "EROFS_TEST_DATA",
	  { "images",
	    .tests = UNIT_TESTS(test_fragment_images, test_decoders_limited,
				test_fragment_parts, test_small_budget,
				test_nowait, test_no_cache_without_fragments,
				test_damaged_packed, test_prefetch, test_want,
				test_used_up_first, test_used_up_whole,
				test_held_back, test_mapping_reused,
				test_budget_per_thread),
	    .timeout = 300 })
