// SPDX-License-Identifier: MIT
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "android.h"
#include "check.h"
#include "cost.h"
#include "erofs/data.h"
#include "erofs/decompress.h"
#include "erofs/format.h"
#include "erofs/fragments.h"
#include "erofs/image.h"
#include "erofs/inode.h"
#include "erofs/pool.h"
#include "erofs/xattr.h"
#include "extract.h"
#include "interrupt.h"
#include "list.h"
#include "manifest.h"
#include "split.h"
#include "tar.h"
#include "window.h"

/* Flat extents and fragments are read in pieces of at most this size. */
#define CHECK_PIECE_SIZE (4u << 20)
#define DIGEST_PREFIX "sha256:"
#define DIGEST_PREFIX_LEN 7

/* Tasks printed late at most: bounds the memory of finished ones. */
#define CHECK_MAX_PENDING 4096

/*
 * Decoded bytes of a split file's pieces waiting to be hashed in order,
 * besides the one piece being hashed: per split file, and there are at
 * most as many split files in flight as threads.
 */
#define CHECK_WINDOW_BYTES (4u << 20)

/*
 * What a piece of a file hashed in order hands on: its bytes in order,
 * kept up to CHECK_WINDOW_BYTES; past that, once the piece is due, it
 * hashes them itself as they come (streaming).
 */
struct piece_out {
	struct ord_item item;
	bool ok;			/* the piece decoded its whole range */
	bool streaming;
	uint8_t *buf;			/* the data runs, end to end */
	size_t len, cap;
	struct out_run *runs;
	size_t nruns, runcap;
	/* the consumer's, for streaming */
	struct ord_window *window;
	struct erofs_sha256 *sha;
	const bool *broken;		/* no digest: do not hash */
};

struct out_run {
	size_t len;
	bool zeros;			/* a hole: no bytes in buf */
};

/* What walking one inode's data gave. */
struct data_sum {
	uint64_t physical;		/* stored: no holes, no fragments */
	bool hash;
	struct piece_out *out;		/* to hash later, or NULL */
	struct erofs_sha256 sha;
	uint8_t digest[EROFS_SHA256_LEN];
	bool have_digest;
	bool target_ok;			/* symlink target in w->buf */
	int fd;				/* extraction: the file, or -1 */
	struct tar_file *tf;		/* --tar: the file's entry, or NULL */
};

struct xattr_scan {
	struct fsck_worker *w;
	bool list;			/* collect what listxattr shows */
	struct xa_list listed;
	bool has_digest;
	bool bad_digest;
	uint8_t digest[EROFS_SHA256_LEN];
};

/* -p: the stored size of a hard-linked inode, and its further names. */
struct linked_count {
	uint64_t physical;
	uint64_t names;
};

/* A regular file, checked (and written) by a worker. */
struct file_task {
	struct checker *ck;
	struct report rep;
	struct report_slot slot;
	struct erofs_inode inode;
	struct xdir *dir;		/* where to create it, or NULL */
	struct tar_file *tf;		/* --tar: its entry, or NULL */
	bool start;			/* the start of the walk */
	bool started;			/* the task ran (or was skipped) */
	bool skipped;			/* the run had stopped */
	/* results */
	bool data_ok;
	bool xattrs_ok;
	bool created;
	bool have_digest;
	uint8_t digest[EROFS_SHA256_LEN];
	struct xa_list xl;
	uint64_t physical;
	bool digest_checked;
	size_t mf_handle;
	size_t pathlen, rellen, namelen;
	char path[];			/* in the image, NUL-terminated */
};

/*
 * A regular file split into pieces (fsck/split.h). The walker checks the
 * xattrs and the index and creates the file, then queues the pieces;
 * pieces decode and write their extents with their worker's context. Of
 * the pieces that fail, only the one at the lowest offset is reported:
 * the whole-file check stops at its first problem, which is that one.
 * Whoever drops the last reference (a piece, or the walker) commits or
 * removes the file and marks its report slot done.
 */
struct split_file {
	struct file_task *t;
	int fd;				/* extraction: the file, or -1 */
	int head_ret;			/* the walker's part failed: 1, -errno */
	unsigned int refs;		/* atomic: queued pieces + walker */
	bool stopped;			/* atomic: the run stopped a piece */
	uint64_t physical;		/* atomic: stored bytes of pieces */
	uint64_t fail_at;		/* atomic: start of failed, or max */
	pthread_mutex_t lock;		/* failed */
	struct file_piece *failed;	/* the lowest failed piece so far */
	/* hashed in order (--manifest, a digest to verify): */
	bool hashing;
	struct ord_window window;	/* pieces' bytes, to the hash */
	uint64_t pieces;		/* queued so far: the next seq */
	bool hash_broken;		/* by the deliverer: a piece failed */
	struct erofs_sha256 sha;	/* by the deliverer */
	bool verify;
	uint8_t expected[EROFS_SHA256_LEN];
};

struct file_piece {
	struct split_file *s;
	struct piece_out *out;		/* hashing: to the window */
	struct split_piece range;
	struct erofs_map *maps;		/* the planner's, from range.start */
	size_t nmaps, used;
	uint64_t physical;		/* stored bytes up to a failure */
	int ret;			/* 1 or a negative errno */
	struct report rep;
	struct report_slot slot;
};

void checker_init(struct checker *ck, struct erofs_ctx *ctx,
		  struct report *rep, const struct fsck_cfg *cfg,
		  struct manifest *manifest, struct extractor *x, FILE *list)
{
	memset(ck, 0, sizeof(*ck));
	ck->ctx = ctx;
	ck->rep = rep;
	ck->cfg = cfg;
	ck->manifest = manifest;
	ck->x = x;
	ck->list = list;
	ck->decode = cfg->decode || cfg->extract_dir || cfg->digests ||
		     cfg->tar || manifest;
	ck->walker.ck = ck;
	ck->walker.ctx = ctx;
	ck->walker.rep = rep;
	nidmap_init(&ck->linked, sizeof(struct linked_count));
	nidmap_init(&ck->first_names, sizeof(char *));
}

void checker_fini(struct checker *ck)
{
	size_t i;

	free(ck->walker.buf);
	ck->walker.buf = NULL;
	ck->walker.bufsize = 0;
	nidmap_fini(&ck->linked);
	nidmap_for_each(&ck->first_names, i)
		free(*(char **)nidmap_val(&ck->first_names, i));
	nidmap_fini(&ck->first_names);
}

void *checker_worker_init(void *priv, unsigned int index)
{
	struct checker *ck = priv;
	struct fsck_worker *w = calloc(1, sizeof(*w));

	(void)index;
	if (!w)
		return NULL;
	if (erofs_ctx_init(&w->own, ck->ctx->img)) {
		free(w);
		return NULL;
	}
	w->ck = ck;
	w->ctx = &w->own;
	return w;
}

void checker_worker_fini(void *priv, void *worker)
{
	struct fsck_worker *w = worker;

	(void)priv;
	erofs_ctx_fini(&w->own);
	free(w->buf);
	free(w);
}

void checker_set_pool(struct checker *ck, struct erofs_pool *pool)
{
	unsigned int threads = erofs_pool_threads(pool);

	ck->pool = pool;
	ck->rep->threaded = threads > 0;
	ck->split_ns = split_piece_ns();
	ck->splits_max = threads ? threads : 1;
	readahead_init(&ck->ra, ck->ctx, pool);
	if (ck->tar)
		tar_set_pool(ck->tar, pool);
}

static int check_reserve(struct fsck_worker *w, size_t len)
{
	uint8_t *buf;

	if (len <= w->bufsize)
		return 0;
	buf = realloc(w->buf, len);
	if (!buf)
		return -ENOMEM;
	w->buf = buf;
	w->bufsize = len;
	return 0;
}

static uint64_t inode_offset(const struct erofs_inode *inode)
{
	return inode->space == EROFS_SPACE_PRIMARY ? inode->addr :
						     EROFS_NO_OFFSET;
}

/*
 * Report the context's error record. Returns 1 when the inode could not
 * be checked any further, or the negative errno that stops everything.
 */
static int check_lib_error(struct fsck_worker *w, const struct fsck_loc *loc,
			   int code)
{
	int ret = report_lib_error(w->rep, loc, &w->ctx->err, code);

	erofs_err_clear(&w->ctx->err);
	return ret < 0 ? ret : 1;
}

static int out_run_add(struct piece_out *out, size_t len, bool zeros)
{
	struct out_run *runs;
	size_t cap;

	if (out->nruns && out->runs[out->nruns - 1].zeros == zeros) {
		out->runs[out->nruns - 1].len += len;
		return 0;
	}
	if (out->nruns == out->runcap) {
		cap = out->runcap ? 2 * out->runcap : 8;
		runs = realloc(out->runs, cap * sizeof(*runs));
		if (!runs)
			return -ENOMEM;
		out->runs = runs;
		out->runcap = cap;
	}
	out->runs[out->nruns].len = len;
	out->runs[out->nruns++].zeros = zeros;
	return 0;
}

static void out_hash(const struct piece_out *out, struct erofs_sha256 *sha);
static void sha_zeros(struct erofs_sha256 *sha, uint64_t len);

/* Too much to keep: wait for our turn, hash what we kept, then stream. */
static void out_stream(struct piece_out *out)
{
	ord_window_wait_due(out->window, out->item.seq);
	out->streaming = true;
	if (!*out->broken)
		out_hash(out, out->sha);
	free(out->buf);
	free(out->runs);
	out->buf = NULL;
	out->runs = NULL;
	out->len = out->cap = out->nruns = out->runcap = 0;
}

/* Keep (or hash, when streaming) decoded bytes; 0 or -ENOMEM. */
static int out_add(struct piece_out *out, const uint8_t *buf, size_t len)
{
	size_t cap = out->cap;
	uint8_t *p;

	if (!out->streaming && len > CHECK_WINDOW_BYTES - out->len)
		out_stream(out);
	if (out->streaming) {
		if (!*out->broken)
			erofs_sha256_update(out->sha, buf, len);
		return 0;
	}
	while (cap - out->len < len)
		cap = cap ? 2 * cap : 65536;
	/* len fits in the window with what is kept */
	if (cap > CHECK_WINDOW_BYTES)
		cap = CHECK_WINDOW_BYTES;
	if (cap != out->cap) {
		p = realloc(out->buf, cap);
		if (!p)
			return -ENOMEM;
		out->buf = p;
		out->cap = cap;
	}
	memcpy(out->buf + out->len, buf, len);
	out->len += len;
	return out_run_add(out, len, false);
}

static void out_free(struct piece_out *out)
{
	free(out->buf);
	free(out->runs);
	free(out);
}

static void sha_zeros(struct erofs_sha256 *sha, uint64_t len)
{
	static const uint8_t zeros[4096];

	while (len) {
		size_t n = len < sizeof(zeros) ? len : sizeof(zeros);

		erofs_sha256_update(sha, zeros, n);
		len -= n;
	}
}

/* Hash what a piece kept, in order. */
static void out_hash(const struct piece_out *out, struct erofs_sha256 *sha)
{
	const uint8_t *p = out->buf;
	size_t i;

	for (i = 0; i < out->nruns; i++) {
		if (out->runs[i].zeros) {
			sha_zeros(sha, out->runs[i].len);
			continue;
		}
		erofs_sha256_update(sha, p, out->runs[i].len);
		p += out->runs[i].len;
	}
}

static int hash_zeros(struct data_sum *ds, uint64_t len)
{
	struct piece_out *out = ds->out;

	if (out && out->streaming) {
		if (!*out->broken)
			sha_zeros(out->sha, len);
		return 0;
	}
	if (out)
		return len > SIZE_MAX ? -ENOMEM :
					out_run_add(out, (size_t)len, true);
	sha_zeros(&ds->sha, len);
	return 0;
}

/* Hash and write decoded bytes at file offset off. */
static int check_consume(struct fsck_worker *w, const struct fsck_loc *loc,
			 struct data_sum *ds, const uint8_t *buf, size_t len,
			 uint64_t off)
{
	int ret;

	if (ds->out) {
		ret = out_add(ds->out, buf, len);
		if (ret)
			return ret;
	} else if (ds->hash) {
		erofs_sha256_update(&ds->sha, buf, len);
	}
	if (ds->tf && (ret = tar_file_write(ds->tf, buf, len, off)))
		return ret;
	if (ds->fd < 0)
		return 0;
	return extract_file_write(w->ck->x, w->rep, loc, ds->fd, buf, len,
				  off);
}

/* check_copy_extent(): use read and write instead */
#define CHECK_NO_COPY 2

/*
 * Extraction of stored bytes with nothing to hash: copy them from the
 * image file to the file in the kernel. 0 done, 1 problem reported,
 * CHECK_NO_COPY, or a negative errno.
 */
static int check_copy_extent(struct fsck_worker *w,
			     const struct erofs_inode *inode,
			     const struct erofs_map *map, uint64_t skip,
			     uint64_t len, struct data_sum *ds,
			     const struct fsck_loc *loc)
{
	int ret;

	if (ds->fd < 0 || ds->hash || ds->tf || !erofs_extent_copyable(map))
		return CHECK_NO_COPY;
	ret = extract_file_copy(w->ck->x, w->rep, loc, ds->fd, w->ctx, inode,
				map, skip, len);
	if (ret > 0)
		return CHECK_NO_COPY;
	if (ret < 0 && w->ctx->err.code)
		return check_lib_error(w, loc, ret);
	return ret;
}

/*
 * Decode bytes [skip, skip + len) of an extent. Pclusters are decoded
 * whole, so that the library checks their exact decoded length; flat data
 * and fragments are read in pieces.
 */
static int check_read_extent(struct fsck_worker *w,
			     const struct erofs_inode *inode,
			     const struct erofs_map *map, uint64_t skip,
			     uint64_t len, struct data_sum *ds,
			     const struct fsck_loc *loc)
{
	uint64_t done;
	size_t n;
	int ret;

	if (map->loc == EROFS_LOC_HOLE) {
		if (ds->tf && (ret = tar_file_hole(ds->tf, map->la + skip, len)))
			return ret;
		return ds->hash ? hash_zeros(ds, len) : 0;
	}
	ret = check_copy_extent(w, inode, map, skip, len, ds, loc);
	if (ret != CHECK_NO_COPY)
		return ret;
	if (erofs_inode_is_compressed(inode) &&
	    map->loc != EROFS_LOC_FRAGMENT) {
		/* erofs_map() bounded llen (the extent sanity check) */
		if (check_reserve(w, map->llen))
			return -ENOMEM;
		ret = erofs_extent_read(w->ctx, inode, map, 0, w->buf,
					map->llen);
		if (ret < 0)
			return check_lib_error(w, loc, ret);
		return check_consume(w, loc, ds, w->buf + skip, len,
				     map->la + skip);
	}
	for (done = 0; done < len; done += n) {
		if (interrupted())
			return -EINTR;
		n = len - done < CHECK_PIECE_SIZE ? len - done :
						    CHECK_PIECE_SIZE;
		if (check_reserve(w, n))
			return -ENOMEM;
		ret = erofs_extent_read(w->ctx, inode, map, skip + done,
					w->buf, n);
		if (ret < 0)
			return check_lib_error(w, loc, ret);
		ret = check_consume(w, loc, ds, w->buf, n,
				    map->la + skip + done);
		if (ret)
			return ret;
	}
	return 0;
}

/* check_range(): a piece stopped early, its outcome no longer counts */
#define CHECK_STOPPED 3

static bool piece_should_stop(const struct file_piece *p);
static bool piece_next_map(struct file_piece *p, uint64_t pos,
			   struct erofs_map *map);

/*
 * Map every extent from pos to stop (an extent boundary, or i_size), in
 * order: erofs_map() checks that each holds the current position and lies
 * inside its device. With decode, read them too. A piece of a split file
 * stops between extents when its outcome no longer counts. Returns 0, 1
 * (problem reported), CHECK_STOPPED or a negative errno.
 */
static int check_range(struct fsck_worker *w, const struct erofs_inode *inode,
		       const struct fsck_loc *loc, bool decode,
		       struct data_sum *ds, uint64_t pos, uint64_t stop,
		       struct file_piece *piece)
{
	struct progress_counters *pc = &w->ck->pc;
	uint64_t end, stored;
	struct erofs_map map;
	int ret;

	while (pos < stop) {
		if (interrupted())
			return -EINTR;
		if (piece && piece_should_stop(piece))
			return CHECK_STOPPED;
		ret = piece && piece_next_map(piece, pos, &map) ? 0 :
			erofs_map(w->ctx, inode, pos, &map);
		if (ret < 0)
			return check_lib_error(w, loc, ret);
		end = map.la + map.llen;
		stored = 0;
		if (map.loc == EROFS_LOC_DEVICE || map.loc == EROFS_LOC_META)
			stored = map.plen;
		ds->physical += stored;
		if (decode) {
			ret = check_read_extent(w, inode, &map, pos - map.la,
						end - pos, ds, loc);
			if (ret)
				return ret;
		}
		__atomic_add_fetch(&pc->bytes, end - pos, __ATOMIC_RELAXED);
		__atomic_add_fetch(&pc->stored, stored, __ATOMIC_RELAXED);
		pos = end;
	}
	return 0;
}

/* Check every record of a compressed index (mapping reads only some). */
static int check_index(struct fsck_worker *w, const struct erofs_inode *inode,
		       const struct fsck_loc *loc)
{
	int ret;

	if (!erofs_inode_is_compressed(inode))
		return 0;
	ret = z_erofs_check_index(w->ctx, inode);
	return ret < 0 ? check_lib_error(w, loc, ret) : 0;
}

/*
 * The index, then every extent from 0 to i_size. Returns 0, 1 (problem
 * reported) or a negative errno.
 */
static int check_extents(struct fsck_worker *w, const struct erofs_inode *inode,
			 const struct fsck_loc *loc, bool decode,
			 struct data_sum *ds)
{
	int ret = check_index(w, inode, loc);

	if (ret)
		return ret;
	return check_range(w, inode, loc, decode, ds, 0, inode->size, NULL);
}

static uint64_t blocks_of(const struct checker *ck, uint64_t bytes)
{
	unsigned int bits = ck->ctx->img->blkszbits;

	return (bytes >> bits) + !!(bytes & ((1ULL << bits) - 1));
}

/* Read a symlink target into w->buf, NUL-terminated. */
static int check_symlink(struct fsck_worker *w,
			 const struct erofs_inode *inode,
			 const struct fsck_loc *loc, struct data_sum *ds)
{
	ssize_t n;

	/* erofs_read_inode() bounds the size to 1..4095: no short reads */
	if (check_reserve(w, inode->size + 1))
		return -ENOMEM;
	n = erofs_pread(w->ctx, inode, w->buf, inode->size, 0);
	if (n < 0)
		return check_lib_error(w, loc, (int)n);
	w->buf[inode->size] = '\0';
	if (memchr(w->buf, '\0', inode->size)) {
		report_problem(w->rep, loc,
			       "symlink target contains a NUL byte");
		return 1;
	}
	ds->target_ok = true;
	if (ds->hash)
		erofs_sha256_update(&ds->sha, w->buf, inode->size);
	return 0;
}

/*
 * Is xa the image-share digest (format.md, "Image-share digests"): exactly
 * the long prefix, no more?
 */
static bool is_digest_xattr(const struct erofs_image *img,
			    const struct erofs_xattr *xa)
{
	const struct erofs_xattr_prefix *p;
	const char *base;

	if (img->ishare_prefix_id < 0 || !xa->long_prefix ||
	    xa->prefix_id != img->ishare_prefix_id ||
	    (unsigned int)xa->prefix_id >= img->xattr_prefix_count)
		return false;
	p = &img->xattr_prefixes[xa->prefix_id];
	base = erofs_xattr_prefix_name(p->base_index);
	return xa->namelen == (base ? strlen(base) : 0) + p->infix_len;
}

/* Would listxattr on a mounted image show this name? */
static bool xattr_listed(const struct erofs_xattr *xa)
{
	return xa->base_index != EROFS_XATTR_INDEX_NONE;
}

static int xattr_collect(void *arg, const struct erofs_xattr *xa)
{
	struct xattr_scan *xs = arg;

	if (is_digest_xattr(xs->w->ctx->img, xa)) {
		xs->has_digest = true;
		if (xa->value_len != DIGEST_PREFIX_LEN + EROFS_SHA256_LEN ||
		    memcmp(xa->value, DIGEST_PREFIX, DIGEST_PREFIX_LEN))
			xs->bad_digest = true;
		else
			memcpy(xs->digest,
			       (const uint8_t *)xa->value + DIGEST_PREFIX_LEN,
			       EROFS_SHA256_LEN);
	}
	if (!xs->list || !xattr_listed(xa))
		return 0;
	return xa_list_add(&xs->listed, xa);
}

/* 0, 1 (problem reported, no xattrs kept) or a negative errno. */
static int check_xattrs(struct fsck_worker *w, const struct erofs_inode *inode,
			const struct fsck_loc *loc, struct xattr_scan *xs)
{
	int ret;

	ret = erofs_xattr_iterate(w->ctx, inode, EROFS_XATTR_HIDDEN,
				  xattr_collect, xs);
	if (ret < 0) {
		xa_list_release(&xs->listed);
		return check_lib_error(w, loc, ret);
	}
	return 0;
}

static bool check_wants_xattrs(const struct checker *ck)
{
	return ck->manifest || ck->tar || (ck->x && ck->cfg->xattrs);
}

/* Is there a digest xattr to verify? Reports one that is malformed. */
static bool check_wants_digest(struct report *rep, const struct checker *ck,
			       const struct fsck_loc *loc,
			       const struct xattr_scan *xs)
{
	if (!ck->cfg->digests || !xs->has_digest)
		return false;
	if (!xs->bad_digest)
		return true;
	report_problem(rep, loc, "digest xattr is not \"sha256:\" and %u bytes",
		       EROFS_SHA256_LEN);
	return false;
}

/* The whole content was hashed into sha: its digest, checked if wanted. */
static void check_digest(struct report *rep, const struct fsck_loc *loc,
			 struct erofs_sha256 *sha, uint8_t *digest,
			 const uint8_t *expected)
{
	erofs_sha256_final(sha, digest);
	if (expected && memcmp(digest, expected, EROFS_SHA256_LEN))
		report_problem(rep, loc,
			       "content does not match its sha256 digest xattr");
}

static int check_file(struct fsck_worker *w, const struct erofs_inode *inode,
		      const struct fsck_loc *loc, const struct xattr_scan *xs,
		      struct data_sum *ds, bool *digest_checked)
{
	const struct checker *ck = w->ck;
	bool digest = check_wants_digest(w->rep, ck, loc, xs);
	int ret;

	ds->hash = ck->manifest || digest;
	ret = check_extents(w, inode, loc, ck->decode, ds);
	if (ret || !ds->hash)
		return ret;
	check_digest(w->rep, loc, &ds->sha, ds->digest,
		     digest ? xs->digest : NULL);
	ds->have_digest = true;
	*digest_checked = digest;
	return 0;
}

static int check_link_target(struct fsck_worker *w,
			     const struct erofs_inode *inode,
			     const struct fsck_loc *loc, struct data_sum *ds)
{
	int ret;

	ret = check_extents(w, inode, loc, false, ds);
	if (ret)
		return ret;
	ds->hash = w->ck->manifest;
	ret = check_symlink(w, inode, loc, ds);
	if (ret || !ds->hash)
		return ret;
	erofs_sha256_final(&ds->sha, ds->digest);
	ds->have_digest = true;
	return 0;
}

/* -p: count the first name of an inode. 0 or -ENOMEM. */
static int check_count_blocks(struct checker *ck,
			      const struct erofs_inode *inode,
			      uint64_t physical)
{
	struct linked_count *lc;
	int added;

	if (!ck->cfg->ratio)
		return 0;
	if (inode->nlink > 1 && !S_ISDIR(inode->mode)) {
		lc = nidmap_get(&ck->linked, inode->nid, &added);
		if (!lc)
			return -ENOMEM;
		lc->physical = physical;
	}
	ck->logical_blocks += blocks_of(ck, inode->size);
	ck->physical_blocks += blocks_of(ck, physical);
	return 0;
}

static void check_loc(struct fsck_loc *loc, const char *path, size_t pathlen,
		      const struct erofs_inode *inode)
{
	loc->label = NULL;
	loc->path = path;
	loc->pathlen = pathlen;
	loc->nid = inode->nid;
	loc->offset = inode_offset(inode);
}

/* Listing */

static const char *check_first_name(struct checker *ck, uint64_t nid)
{
	char **p = nidmap_find(&ck->first_names, nid);

	return p ? *p : NULL;
}

static int check_list(struct checker *ck, const struct walk_entry *e,
		      const char *target)
{
	const char *first = NULL;
	char **p;
	int ret, added;

	if (!ck->list)
		return 0;
	if (!e->first)
		first = check_first_name(ck, e->nid);
	else if (e->inode->nlink > 1 && !S_ISDIR(e->inode->mode)) {
		p = nidmap_get(&ck->first_names, e->nid, &added);
		if (!p)
			return -ENOMEM;
		*p = strndup(e->rel, e->rellen);
		if (!*p)
			return -ENOMEM;
	}
	ret = list_entry(ck->list, e, target, first);
	if (ret < 0 && ret != -ENOMEM && !ck->rep->fatal &&
	    !interrupted())
		report_fatal(ck->rep, "cannot write the listing: %s",
			     strerror(-ret));
	return ret;
}

/* Regular files: tasks */

static const char *task_name(const struct file_task *t)
{
	if (t->start)
		return NULL;
	return t->path + t->pathlen - t->namelen;
}

/* Create, check, decode and write; 0, 1 (problem) or a negative errno. */
static int file_task_work(struct fsck_worker *w, struct file_task *t)
{
	struct checker *ck = w->ck;
	struct xattr_scan xs = { .w = w, .list = check_wants_xattrs(ck) };
	struct data_sum ds = { .fd = -1, .tf = t->tf };
	struct fsck_loc loc;
	int ret;

	check_loc(&loc, t->path, t->pathlen, &t->inode);
	erofs_sha256_init(&ds.sha);
	ret = check_xattrs(w, &t->inode, &loc, &xs);
	if (ret < 0)
		return ret;
	t->xattrs_ok = !ret;
	if (t->dir) {
		ds.fd = extract_file_create(ck->x, w->rep, &loc, t->dir,
					    task_name(t), &t->inode);
		if (ds.fd < -1)
			ret = ds.fd;
	}
	if (ret >= 0)
		ret = check_file(w, &t->inode, &loc, &xs, &ds,
				 &t->digest_checked);
	t->data_ok = !ret;
	if (ds.fd >= 0) {
		if (ret)
			extract_file_abort(ck->x, t->dir, task_name(t), ds.fd);
		else if ((ret = extract_file_commit(ck->x, w->rep, &loc,
						    t->dir, task_name(t),
						    ds.fd, &t->inode,
						    &xs.listed)) >= 0)
			t->created = true;
	}
	t->physical = ds.physical;
	t->have_digest = ds.have_digest;
	memcpy(t->digest, ds.digest, sizeof(t->digest));
	t->xl = xs.listed;
	return ret;
}

static int file_task_run(void *worker, void *arg)
{
	struct fsck_worker *w = worker;
	struct file_task *t = arg;
	struct checker *ck = w->ck;
	struct fsck_loc loc;
	int ret = 0;

	t->started = true;
	w->rep = &t->rep;
	if (erofs_pool_stopped(ck->pool) || interrupted())
		t->skipped = true;
	else
		ret = file_task_work(w, t);
	if (ret == -ENOMEM && !t->rep.fatal) {
		check_loc(&loc, t->path, t->pathlen, &t->inode);
		report_nomem(&t->rep, &loc);
	}
	extract_file_end(ck->x, t->dir);
	if (t->tf)
		tar_file_done(t->tf, t->data_ok && t->xattrs_ok, &t->xl);
	w->rep = NULL;
	/* the walker may free t from here on */
	report_task_done(ck->rep, &t->rep);
	return ret < 0 ? ret : 0;
}

static void file_task_free(struct file_task *t)
{
	xa_list_release(&t->xl);
	free(t);
}

/* Walker, in walk order: take the results of a finished task. */
static void file_task_complete(void *arg)
{
	struct file_task *t = arg;
	struct checker *ck = t->ck;
	struct mf_xattrs mx = { 0 };
	size_t i;
	int ret = 0;

	if (t->skipped || !t->started) {
		file_task_free(t);
		return;
	}
	ck->stats.stored += t->physical;
	ck->digests_checked += t->digest_checked;
	if (ck->x && t->inode.nlink > 1)
		extract_file_status(ck->x, t->inode.nid, t->created);
	if (check_count_blocks(ck, &t->inode, t->physical))
		ret = -ENOMEM;
	for (i = 0; ck->manifest && !ret && i < t->xl.n; i++)
		ret = mf_xattrs_add(&mx, t->xl.items[i].name,
				    t->xl.items[i].namelen,
				    t->xl.items[i].value, t->xl.items[i].len);
	if (ck->manifest && !ret)
		ret = manifest_complete(ck->manifest, t->mf_handle, &t->inode,
					t->have_digest ? t->digest : NULL,
					&mx);
	mf_xattrs_release(&mx);
	if (ret && !ck->rep->fatal) {
		struct fsck_loc loc;

		check_loc(&loc, t->path, t->pathlen, &t->inode);
		report_nomem(ck->rep, &loc);
	}
	file_task_free(t);
}

/* Wait for the oldest pending task and print what is ready. */
static bool check_throttle(void *arg)
{
	struct checker *ck = arg;

	if (!ck->rep->q_tasks)
		return false;
	/* the oldest task may still sit in the batch being filled */
	erofs_pool_flush(ck->pool);
	report_wait_head(ck->rep);
	report_drain(ck->rep);
	return true;
}

static struct file_task *file_task_new(struct checker *ck,
				       const struct walk_entry *e)
{
	struct file_task *t = calloc(1, sizeof(*t) + e->pathlen + 1);

	if (!t)
		return NULL;
	t->ck = ck;
	t->inode = *e->inode;
	t->start = !e->depth;
	memcpy(t->path, e->path, e->pathlen);
	t->pathlen = e->pathlen;
	t->rellen = e->rellen;
	t->namelen = e->namelen;
	return t;
}

/* The task was not queued: finish it here so that its slot is done. */
static void file_task_abandon(struct checker *ck, struct file_task *t)
{
	t->skipped = true;
	extract_file_end(ck->x, t->dir);
	if (t->tf)
		tar_file_done(t->tf, false, NULL);
	report_task_done(ck->rep, &t->rep);
}

/* Regular files: split into pieces */

/*
 * Split a file whose decoding is worth several pieces. A file hashed in
 * order is split too: its pieces hand their bytes to the hash in order
 * through an ordered window (window.h).
 */
static bool check_may_split(struct checker *ck,
			    const struct erofs_inode *inode)
{
	uint64_t cost;

	if (!ck->split_ns || !ck->decode || !erofs_pool_threads(ck->pool))
		return false;
	cost = split_data_cost(inode->size, cost_data_per_kib(inode));
	return split_worth(cost, ck->split_ns);
}

static struct split_file *split_new(struct file_task *t)
{
	struct split_file *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->t = t;
	s->fd = -1;
	s->refs = 1;
	s->fail_at = UINT64_MAX;
	pthread_mutex_init(&s->lock, NULL);
	return s;
}

static void split_free(struct split_file *s)
{
	if (s->hashing)
		ord_window_fini(&s->window);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

/* The window's consumer: one piece's bytes, in file order. */
static void split_hash_piece(void *arg, struct ord_item *item)
{
	struct piece_out *out = (struct piece_out *)item;
	struct split_file *s = arg;

	if (!out->ok)
		s->hash_broken = true;
	if (!s->hash_broken && !out->streaming)
		out_hash(out, &s->sha);
	out_free(out);
}

/* Before the walker waits for room: hand over the pieces it queued. */
static void split_flush(void *arg)
{
	struct split_file *s = arg;

	erofs_pool_flush(s->t->ck->pool);
}

static int split_start_hash(struct split_file *s, const uint8_t *expected)
{
	int ret = ord_window_init(&s->window, CHECK_WINDOW_BYTES,
				  split_hash_piece, split_flush, s);

	if (ret)
		return ret;
	s->hashing = true;
	erofs_sha256_init(&s->sha);
	if (expected) {
		s->verify = true;
		memcpy(s->expected, expected, EROFS_SHA256_LEN);
	}
	return 0;
}

static void piece_free(struct file_piece *p)
{
	report_discard(&p->rep);
	free(p->maps);
	free(p);
}

/*
 * The extent at pos as the planner mapped it, if it did: pieces are not
 * mapped twice. Past the planner's maps, the piece maps on its own.
 */
static bool piece_next_map(struct file_piece *p, uint64_t pos,
			   struct erofs_map *map)
{
	const struct erofs_map *m;

	if (p->used >= p->nmaps)
		return false;
	m = &p->maps[p->used];
	if (pos < m->la || pos - m->la >= m->llen)
		return false;
	p->used++;
	*map = *m;
	return true;
}

/* Stop between extents: the run stopped, or a piece before failed. */
static bool piece_should_stop(const struct file_piece *p)
{
	const struct split_file *s = p->s;

	return erofs_pool_stopped(s->t->ck->pool) ||
	       __atomic_load_n(&s->fail_at, __ATOMIC_RELAXED) < p->range.start;
}

/* Keep p if it failed before every piece that failed so far. */
static void piece_failed(struct split_file *s, struct file_piece *p)
{
	struct file_piece *drop = p;

	pthread_mutex_lock(&s->lock);
	if (!s->failed || p->range.start < s->failed->range.start) {
		drop = s->failed;
		s->failed = p;
		__atomic_store_n(&s->fail_at, p->range.start,
				 __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&s->lock);
	if (drop)
		piece_free(drop);
}

/*
 * Every piece is done: report the first failure, commit or remove the
 * file, mark the slot done. Returns 0 or the errno that stops the run.
 */
static int split_finish(struct split_file *s)
{
	struct file_task *t = s->t;
	struct checker *ck = t->ck;
	struct file_piece *p = s->failed;
	uint64_t physical = s->physical;
	int ret = s->head_ret;
	struct fsck_loc loc;

	check_loc(&loc, t->path, t->pathlen, &t->inode);
	if (!ret && p) {
		report_take(&t->rep, &p->rep);
		ret = p->ret;
		physical = p->range.before + p->physical;
	}
	if (p)
		piece_free(p);
	t->physical = physical;
	t->data_ok = !ret && !s->stopped;
	t->skipped = s->stopped;
	if (t->data_ok && s->hashing && !s->hash_broken) {
		check_digest(&t->rep, &loc, &s->sha, t->digest,
			     s->verify ? s->expected : NULL);
		t->have_digest = true;
		t->digest_checked = s->verify;
	}
	if (s->fd >= 0 && !t->data_ok) {
		extract_file_abort(ck->x, t->dir, task_name(t), s->fd);
	} else if (s->fd >= 0) {
		ret = extract_file_commit(ck->x, &t->rep, &loc, t->dir,
					  task_name(t), s->fd, &t->inode,
					  &t->xl);
		t->created = ret >= 0;
	}
	if (ret == -ENOMEM && !t->rep.fatal)
		report_fatal(&t->rep, "out of memory");
	extract_file_end(ck->x, t->dir);
	if (t->tf)
		tar_file_done(t->tf, t->data_ok && t->xattrs_ok, &t->xl);
	split_free(s);
	__atomic_sub_fetch(&ck->splits_open, 1, __ATOMIC_RELAXED);
	/* the walker may free t from here on */
	report_task_done(ck->rep, &t->rep);
	return ret < 0 ? ret : 0;
}

static int split_put(struct split_file *s)
{
	if (__atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL))
		return 0;
	return split_finish(s);
}

static int piece_run(void *worker, void *arg)
{
	struct fsck_worker *w = worker;
	struct file_piece *p = arg;
	struct split_file *s = p->s;
	struct file_task *t = s->t;
	struct data_sum ds = { .fd = s->fd, .hash = s->hashing, .out = p->out,
			       .tf = t->tf };
	struct piece_out *out = p->out;
	struct fsck_loc loc;
	int ret = CHECK_STOPPED;

	check_loc(&loc, t->path, t->pathlen, &t->inode);
	w->rep = &p->rep;
	if (!piece_should_stop(p))
		ret = check_range(w, &t->inode, &loc, true, &ds,
				  p->range.start, p->range.end, p);
	if (ret == -ENOMEM && !p->rep.fatal)
		report_fatal(&p->rep, "out of memory");
	w->rep = NULL;
	if (ret == CHECK_STOPPED && erofs_pool_stopped(t->ck->pool))
		__atomic_store_n(&s->stopped, true, __ATOMIC_RELAXED);
	if (!ret)
		__atomic_add_fetch(&s->physical, ds.physical,
				   __ATOMIC_RELAXED);
	if (!ret || ret == CHECK_STOPPED) {
		piece_free(p);
	} else {
		p->ret = ret;
		p->physical = ds.physical;
		piece_failed(s, p);
	}
	if (out) {
		out->ok = !ret;
		/* before the put: the last put finds every piece hashed */
		ord_window_complete(&s->window, &out->item);
	}
	return split_put(s);
}

/* Queue one piece. Only with threads: submit then never runs it inline. */
/* The maps of the piece being planned. */
struct map_list {
	struct erofs_map *maps;
	size_t n, cap;
	bool full;			/* no memory: the piece maps the rest */
};

static void map_list_add(struct map_list *ml, const struct erofs_map *map)
{
	struct erofs_map *maps;
	size_t cap;

	if (ml->full)
		return;
	if (ml->n == ml->cap) {
		cap = ml->cap ? 2 * ml->cap : 16;
		maps = realloc(ml->maps, cap * sizeof(*maps));
		if (!maps) {
			ml->full = true;
			return;
		}
		ml->maps = maps;
		ml->cap = cap;
	}
	ml->maps[ml->n++] = *map;
}

/* Queue one piece with the maps in ml, which starts again empty. */
static int split_queue(struct checker *ck, struct split_file *s,
		       const struct split_piece *range, struct map_list *ml)
{
	struct file_piece *p = calloc(1, sizeof(*p));
	uint64_t len;
	int ret;

	if (p) {
		p->maps = ml->maps;
		p->nmaps = ml->n;
	} else {
		free(ml->maps);
	}
	memset(ml, 0, sizeof(*ml));
	if (!p)
		return -ENOMEM;
	if (s->hashing && !(p->out = calloc(1, sizeof(*p->out)))) {
		free(p->maps);
		free(p);
		return -ENOMEM;
	}
	p->s = s;
	p->range = *range;
	report_detached_init(ck->rep, &p->rep, &p->slot);
	__atomic_add_fetch(&s->refs, 1, __ATOMIC_ACQ_REL);
	if (p->out) {
		p->out->item.seq = s->pieces++;
		/* a piece keeps at most that much (struct piece_out) */
		len = range->end - range->start;
		p->out->item.bytes = len < CHECK_WINDOW_BYTES ?
					     (size_t)len : CHECK_WINDOW_BYTES;
		p->out->window = &s->window;
		p->out->sha = &s->sha;
		p->out->broken = &s->hash_broken;
		ord_window_reserve(&s->window, p->out->item.bytes);
	}
	ret = erofs_pool_submit(ck->pool, piece_run, p, range->cost);
	if (ret) {
		/* not queued; the walker's reference keeps s */
		__atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL);
		if (p->out) {
			/* its turn must still come: it breaks the hash */
			ord_window_complete(&s->window, &p->out->item);
		}
		free(p->maps);
		free(p);
	}
	return ret;
}

/*
 * Map the file on the walker to cut it into pieces at extent starts; each
 * piece gets the maps of its extents, so that nothing is mapped twice. A
 * mapping error is left to the piece that meets it: the last one, from
 * the last cut to i_size, which maps on its own past the maps it got.
 */
static int split_plan_queue(struct checker *ck, struct split_file *s)
{
	const struct erofs_inode *inode = &s->t->inode;
	struct erofs_ctx *ctx = ck->walker.ctx;
	struct map_list ml = { 0 };
	struct split_piece range;
	struct split_plan plan;
	struct erofs_map map;
	uint64_t pos = 0, end, stored;
	int ret;

	split_plan_init(&plan, inode->size, ck->split_ns);
	while (pos < inode->size) {
		if (erofs_map(ctx, inode, pos, &map) < 0) {
			erofs_err_clear(&ctx->err);
			break;
		}
		end = map.la + map.llen;
		if (end <= pos)
			break;
		stored = 0;
		if (map.loc == EROFS_LOC_DEVICE || map.loc == EROFS_LOC_META)
			stored = map.plen;
		map_list_add(&ml, &map);
		if (split_plan_add(&plan, end, cost_extent(&map, end - pos),
				   stored, &range)) {
			ret = split_queue(ck, s, &range, &ml);
			if (ret)
				return ret;
		}
		pos = end;
	}
	split_plan_last(&plan, &range);
	return split_queue(ck, s, &range, &ml);
}

/*
 * The walker's part, as a task starts: xattrs, the file, the index. 0, or
 * the file's failure: 1 (reported) or a negative errno.
 */
static int split_head(struct checker *ck, struct split_file *s,
		      const struct fsck_loc *loc)
{
	struct fsck_worker *w = &ck->walker;
	struct file_task *t = s->t;
	struct xattr_scan xs = { .w = w, .list = check_wants_xattrs(ck) };
	struct report *saved = w->rep;
	int ret;

	bool digest;

	w->rep = &t->rep;
	ret = check_xattrs(w, &t->inode, loc, &xs);
	if (ret < 0)
		goto out;
	t->xattrs_ok = !ret;
	t->xl = xs.listed;
	ret = 0;
	if (t->dir) {
		s->fd = extract_file_create(ck->x, w->rep, loc, t->dir,
					    task_name(t), &t->inode);
		if (s->fd < -1) {
			ret = s->fd;
			s->fd = -1;
		}
	}
	digest = !ret && check_wants_digest(w->rep, ck, loc, &xs);
	if (!ret && (ck->manifest || digest))
		ret = split_start_hash(s, digest ? xs.digest : NULL);
	if (!ret)
		ret = check_index(w, &t->inode, loc);
out:
	w->rep = saved;
	return ret;
}

/* Returns 0 or the errno that stops the run. */
static int check_submit_split(struct checker *ck, struct split_file *s,
			      const struct fsck_loc *loc)
{
	int ret, err;

	s->t->started = true;
	__atomic_add_fetch(&ck->splits_open, 1, __ATOMIC_RELAXED);
	ret = split_head(ck, s, loc);
	s->head_ret = ret;
	if (!ret && (ret = split_plan_queue(ck, s)))
		__atomic_store_n(&s->stopped, true, __ATOMIC_RELAXED);
	err = split_put(s);
	if (ret < 0)
		err = ret;
	if (err)
		erofs_pool_cancel(ck->pool, err);
	return err;
}

static int check_submit_file(struct checker *ck, const struct walk_entry *e,
			     const struct fsck_loc *loc)
{
	struct split_file *s = NULL;
	const char *rel;
	struct file_task *t;
	int ret, added;

	ck->stats.files++;
	ck->stats.bytes += e->inode->size;
	/* further names may come before the task is done: count them */
	if (ck->cfg->ratio && e->inode->nlink > 1 &&
	    !nidmap_get(&ck->linked, e->nid, &added))
		return -ENOMEM;
	t = file_task_new(ck, e);
	if (!t)
		return -ENOMEM;
	rel = t->path + t->pathlen - t->rellen;
	ret = check_list(ck, e, NULL);
	if (!ret && ck->decode)
		ret = readahead_file(&ck->ra, e->inode, ck->rep, loc);
	if (!ret && check_may_split(ck, e->inode) && !(s = split_new(t)))
		ret = -ENOMEM;
	if (!ret && ck->manifest)
		ret = manifest_add_pending(ck->manifest, rel, t->rellen,
					   e->inode, &t->mf_handle);
	if (!ret && ck->x)
		ret = extract_file_begin(ck->x, e, loc, &t->dir);
	if (!ret && ck->tar)
		ret = tar_file_begin(ck->tar, e, ck->rep, loc, &t->tf);
	if (ret) {
		if (s)
			split_free(s);
		free(t);
		return ret;
	}
	while (ck->rep->q_tasks >= CHECK_MAX_PENDING && check_throttle(ck))
		;
	/* every split file in flight holds a descriptor */
	while (s && __atomic_load_n(&ck->splits_open, __ATOMIC_RELAXED) >=
			    ck->splits_max && check_throttle(ck))
		;
	report_task_init(ck->rep, &t->rep, &t->slot, file_task_complete, t);
	if (s)
		ret = check_submit_split(ck, s, loc);
	else
		ret = erofs_pool_submit(ck->pool, file_task_run, t,
					cost_file(e->inode, ck->decode, ck->x));
	if (!ret)
		return 0;
	if (!t->started)
		file_task_abandon(ck, t);
	ck->stopped = true;
	erofs_pool_wait(ck->pool);
	report_drain(ck->rep);
	return ret;
}

/* Directories, symlinks and the rest: on the walker */

static int check_inline_data(struct checker *ck,
			     const struct erofs_inode *inode,
			     const struct fsck_loc *loc, struct data_sum *ds)
{
	struct fsck_worker *w = &ck->walker;
	int ret, err;

	switch (inode->mode & S_IFMT) {
	case S_IFDIR:
		ck->stats.dirs++;
		ret = check_extents(w, inode, loc, false, ds);
		break;
	case S_IFLNK:
		ck->stats.symlinks++;
		ret = check_link_target(w, inode, loc, ds);
		break;
	default:
		ck->stats.specials++;
		return 0;
	}
	err = check_count_blocks(ck, inode, ds->physical);
	return err ? err : ret;
}

static int check_extract_inline(struct checker *ck, const struct walk_entry *e,
				const struct fsck_loc *loc,
				const struct data_sum *ds,
				struct xattr_scan *xs, void **dir_state)
{
	const char *target = ds->target_ok ? (const char *)ck->walker.buf :
					     NULL;

	if (S_ISDIR(e->inode->mode))
		return extract_dir(ck->x, e, loc, &xs->listed, dir_state);
	if (S_ISLNK(e->inode->mode) && !target)
		return 0;
	return extract_node(ck->x, e, loc, target,
			    target ? e->inode->size : 0, &xs->listed);
}

static int check_inline(struct checker *ck, const struct walk_entry *e,
			const struct fsck_loc *loc, void **dir_state)
{
	const struct erofs_inode *inode = e->inode;
	struct fsck_worker *w = &ck->walker;
	struct xattr_scan xs = { .w = w, .list = check_wants_xattrs(ck) };
	struct data_sum ds = { .fd = -1 };
	struct mf_xattrs mx = { 0 };
	bool xattrs_ok;
	size_t i;
	int ret;

	erofs_sha256_init(&ds.sha);
	ret = check_xattrs(w, inode, loc, &xs);
	xattrs_ok = !ret;
	if (ret >= 0)
		ret = check_inline_data(ck, inode, loc, &ds);
	if (ret < 0)
		goto out;
	ret = check_list(ck, e, ds.target_ok ? (const char *)w->buf : NULL);
	for (i = 0; ck->manifest && !ret && i < xs.listed.n; i++)
		ret = mf_xattrs_add(&mx, xs.listed.items[i].name,
				    xs.listed.items[i].namelen,
				    xs.listed.items[i].value,
				    xs.listed.items[i].len);
	if (!ret && ck->manifest)
		ret = manifest_add_inode(ck->manifest, e->rel, e->rellen, inode,
					 ds.have_digest ? ds.digest : NULL,
					 &mx);
	if (!ret && ck->x)
		ret = check_extract_inline(ck, e, loc, &ds, &xs, dir_state);
	if (!ret && ck->tar && xattrs_ok &&
	    (ds.target_ok || !S_ISLNK(inode->mode)))
		ret = tar_node(ck->tar, e,
			       ds.target_ok ? (const char *)w->buf : NULL,
			       &xs.listed);
out:
	mf_xattrs_release(&mx);
	xa_list_release(&xs.listed);
	return ret;
}

/* A further name of an inode met before. */
static int check_other_name(struct checker *ck, const struct walk_entry *e,
			    const struct fsck_loc *loc)
{
	struct linked_count *lc;
	int ret;

	if (ck->cfg->ratio && (lc = nidmap_find(&ck->linked, e->nid))) {
		lc->names++;
		ck->logical_blocks += blocks_of(ck, e->inode->size);
	}
	ret = check_list(ck, e, NULL);
	if (!ret && ck->manifest)
		ret = manifest_add_name(ck->manifest, e->rel, e->rellen,
					 e->inode);
	if (!ret && ck->x)
		ret = extract_link(ck->x, e, loc);
	if (!ret && ck->tar)
		ret = tar_link(ck->tar, e);
	return ret;
}

static int check_entry(void *arg, const struct walk_entry *e, void **dir_state)
{
	struct checker *ck = arg;
	const struct erofs_inode *inode = e->inode;
	struct fsck_loc loc;
	int ret;

	/* the archive could not be written: stop (tar_finish says why) */
	if (ck->tar && tar_failed(ck->tar))
		return -EIO;
	__atomic_add_fetch(&ck->pc.entries, 1, __ATOMIC_RELAXED);
	report_msg(ck->rep, FSCK_LVL_DEBUG, "nid %llu: mode 0%o, size %llu",
		   (unsigned long long)e->nid, inode->mode,
		   (unsigned long long)inode->size);
	check_loc(&loc, e->path, e->pathlen, inode);
	ret = ck->android ? android_entry(ck->android, ck->ctx, e, &loc) : 0;
	if (!ret && !e->first)
		ret = check_other_name(ck, e, &loc);
	else if (!ret && S_ISREG(inode->mode))
		ret = check_submit_file(ck, e, &loc);
	else if (!ret)
		ret = check_inline(ck, e, &loc, dir_state);
	report_drain(ck->rep);
	if (ret == -ENOMEM && !ck->rep->fatal)
		report_nomem(ck->rep, &loc);
	return ret < 0 ? ret : 0;
}

static int check_dir_done(void *arg, const struct walk_entry *e,
			  void *dir_state)
{
	struct checker *ck = arg;

	(void)e;
	if (ck->x && dir_state)
		extract_dir_done(ck->x, dir_state);
	report_drain(ck->rep);
	return 0;
}

void checker_visitor(struct checker *ck, struct walk_visitor *v)
{
	v->entry = check_entry;
	v->dir_done = check_dir_done;
	v->arg = ck;
	if (ck->x)
		extract_set_throttle(ck->x, check_throttle, ck);
}

int checker_finish(struct checker *ck)
{
	struct linked_count *lc;
	size_t i;
	int ret = 0;

	if (ck->pool && interrupted())
		erofs_pool_cancel(ck->pool, -EINTR);
	if (ck->pool)
		ret = erofs_pool_wait(ck->pool);
	report_drain(ck->rep);
	if (ret)
		ck->stopped = true;
	nidmap_for_each(&ck->linked, i) {
		lc = nidmap_val(&ck->linked, i);
		ck->physical_blocks += blocks_of(ck, lc->physical) * lc->names;
	}
	return ret;
}

/* The packed inode's extents are decoded as files read them. */
static bool packed_deferred(const struct checker *ck)
{
	return ck->decode && ck->ctx->img->frag_cache;
}

static int check_special(struct checker *ck, const struct erofs_inode *inode,
			 const char *label, bool count, bool decode)
{
	struct fsck_worker *w = &ck->walker;
	struct data_sum ds = { .fd = -1 };
	struct fsck_loc loc = {
		.label = label,
		.nid = inode->nid,
		.offset = inode_offset(inode),
	};
	int ret;

	report_msg(ck->rep, FSCK_LVL_DEBUG, "%s: nid %llu, size %llu", label,
		   (unsigned long long)inode->nid,
		   (unsigned long long)inode->size);
	ret = check_extents(w, inode, &loc, decode, &ds);
	if (count) {
		ck->physical_blocks += blocks_of(ck, ds.physical);
		ck->stats.packed_stored += ds.physical;
	}
	if (ret == -ENOMEM && !ck->rep->fatal)
		report_nomem(ck->rep, &loc);
	return ret < 0 ? ret : 0;
}

int check_special_inodes(struct checker *ck)
{
	const struct erofs_image *img = ck->ctx->img;
	int ret = 0;

	if (img->has_packed)
		ret = check_special(ck, &img->packed, "packed inode", true,
				    ck->decode && !packed_deferred(ck));
	if (!ret && img->has_metabox)
		ret = check_special(ck, &img->metabox, "metabox inode", false,
				    ck->decode);
	return ret;
}

static void packed_report_stats(struct checker *ck)
{
	struct erofs_frag_stats st;

	erofs_frag_cache_stats(ck->ctx->img, &st);
	report_msg(ck->rep, FSCK_LVL_DEBUG,
		   "fragment cache: budget %zu, peak %zu bytes; %llu decodes (%llu read ahead), %llu hits, %llu waits, %llu evictions, %llu uncached reads",
		   st.budget, st.peak, (unsigned long long)st.decodes,
		   (unsigned long long)st.prefetches,
		   (unsigned long long)st.hits, (unsigned long long)st.waits,
		   (unsigned long long)st.evictions,
		   (unsigned long long)st.uncached);
}

int check_packed_rest(struct checker *ck)
{
	const struct erofs_inode *packed = &ck->ctx->img->packed;
	struct fsck_worker *w = &ck->walker;
	struct data_sum ds = { .fd = -1 };
	struct fsck_loc loc = {
		.label = "packed inode",
		.nid = packed->nid,
		.offset = inode_offset(packed),
	};
	struct erofs_map map;
	uint64_t pos;
	int ret = 0;

	if (!packed_deferred(ck))
		return 0;
	packed_report_stats(ck);
	for (pos = 0; pos < packed->size && !ret; pos = map.la + map.llen) {
		if (interrupted())
			return -EINTR;
		ret = erofs_map(w->ctx, packed, pos, &map);
		/* check_special_inodes() reported a corrupt mapping */
		if (ret == -EFSCORRUPTED) {
			erofs_err_clear(&w->ctx->err);
			return 0;
		}
		if (ret < 0) {
			ret = check_lib_error(w, &loc, ret);
			break;
		}
		if (map.la + map.llen <= pos)
			return 0;
		if (!erofs_frag_decoded(ck->ctx->img, &map))
			ret = check_read_extent(w, packed, &map, 0, map.llen,
						&ds, &loc);
	}
	if (ret == -ENOMEM && !ck->rep->fatal)
		report_nomem(ck->rep, &loc);
	return ret < 0 ? ret : 0;
}
