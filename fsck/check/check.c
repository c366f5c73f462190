// SPDX-License-Identifier: MIT
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check/check_internal.h"
#include "erofs/data.h"
#include "erofs/decompress.h"
#include "erofs/format.h"
#include "erofs/fragments.h"
#include "erofs/image.h"
#include "erofs/inode.h"
#include "erofs/pool.h"
#include "erofs/xattr.h"
#include "util/interrupt.h"

/* Flat extents and fragments are read in pieces of at most this size. */
#define CHECK_PIECE_SIZE (4u << 20)
/* What gathers before it goes on, at most: OUTFILE_WRITE_MAX, one write. */
#define CHECK_GATHER_BYTES (64u << 10)
#define DIGEST_PREFIX "sha256:"
#define DIGEST_PREFIX_LEN 7

/* -p: the stored size of a hard-linked inode, and its further names. */
struct linked_count {
	uint64_t physical;
	uint64_t names;
};

void checker_init(struct checker *ck, struct erofs_ctx *ctx, struct report *rep,
		  const struct fsck_cfg *cfg, struct outputs *outs)
{
	memset(ck, 0, sizeof(*ck));
	ck->ctx = ctx;
	ck->rep = rep;
	ck->cfg = cfg;
	ck->outs = outs;
	ck->decode = cfg->decode || cfg->digests ||
		     outputs_want(outs, OUT_DATA | OUT_DIGEST);
	ck->digests =
		cfg->digests || (ck->decode && !cfg->no_digests &&
				 erofs_ctx_image(ctx)->ishare_prefix_id >= 0);
	ck->salvage = cfg->ignore_errors;
	ck->walker.ck = ck;
	ck->walker.ctx = ctx;
	ck->walker.rep = rep;
	nidmap_init(&ck->linked, sizeof(struct linked_count));
}

void checker_fini(struct checker *ck)
{
	free(ck->walker.buf);
	ck->walker.buf = NULL;
	ck->walker.bufsize = 0;
	nidmap_fini(&ck->linked);
}

/*
 * Index 0 is the pool's inline worker, which runs tasks on the walker's
 * thread: it reads with the walker's context, whose cache holds the block
 * the walker read the file's inode from, where a small file's data lies.
 * A context of its own read that block again for every such file: four
 * block reads in ten of the walker's thread, on a Debian root filesystem
 * packed with lz4hc.
 */
void *checker_worker_init(void *priv, unsigned int index)
{
	struct checker *ck = priv;
	struct fsck_worker *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->ck = ck;
	w->ctx = ck->ctx;
	if (!index)
		return w;
	w->own = erofs_ctx_new(erofs_ctx_image(ck->ctx));
	if (!w->own) {
		free(w);
		return NULL;
	}
	w->ctx = w->own;
	return w;
}

void checker_worker_fini(void *priv, void *worker)
{
	struct fsck_worker *w = worker;

	(void)priv;
	erofs_ctx_free(w->own);
	free(w->buf);
	free(w);
}

static enum fsck_result check_reserve(struct fsck_worker *w, size_t len)
{
	uint8_t *buf;

	if (len <= w->bufsize)
		return FSCK_OK;
	buf = realloc(w->buf, len);
	if (!buf)
		return FSCK_NOMEM;
	w->buf = buf;
	w->bufsize = len;
	return FSCK_OK;
}

static uint64_t inode_offset(const struct erofs_inode *inode)
{
	return inode->space == EROFS_SPACE_PRIMARY ? inode->addr
						   : EROFS_NO_OFFSET;
}

/*
 * Report the context's error record (code: what the library returned):
 * FSCK_REPORTED when the inode could not be checked any further,
 * otherwise what stops everything.
 */
static enum fsck_result check_lib_error(struct fsck_worker *w,
					const struct fsck_loc *loc, int code)
{
	int ret = report_lib_error(w->rep, loc, erofs_ctx_err(w->ctx), code);

	return ret < 0 ? fsck_result_of(ret) : FSCK_REPORTED;
}

enum fsck_result check_sha_zeros(struct erofs_sha256 *sha, uint64_t len)
{
	static const uint8_t zeros[4096];
	unsigned int blocks = 0;

	while (len) {
		size_t n = len < sizeof(zeros) ? len : sizeof(zeros);

		/* every 16 MiB: a few milliseconds of hashing */
		if (!(++blocks % 4096) && interrupted())
			return FSCK_STOP;
		erofs_sha256_update(sha, zeros, n);
		len -= n;
	}
	return FSCK_OK;
}

/* A hole: zeros to hash, and a hole for the outputs. */
static enum fsck_result check_hole(struct fsck_worker *w, struct data_sum *ds,
				   uint64_t off, uint64_t len)
{
	enum fsck_result ret;

	if (ds->files &&
	    (ret = outputs_hole(w->ck->outs, ds->files, off, len)) != FSCK_OK)
		return ret;
	if (!ds->hash)
		return FSCK_OK;
	if (ds->sink)
		return ds->sink->zeros(ds->sink->arg, len);
	return check_sha_zeros(&ds->sha, len);
}

/* Decoded bytes at file offset off: to the hash and to the outputs. */
static enum fsck_result check_hand_on(struct fsck_worker *w,
				      struct data_sum *ds, const uint8_t *buf,
				      size_t len, uint64_t off)
{
	enum fsck_result ret;

	if (ds->hash && ds->sink) {
		ret = ds->sink->add(ds->sink->arg, buf, len);
		if (ret != FSCK_OK)
			return ret;
	} else if (ds->hash) {
		erofs_sha256_update(&ds->sha, buf, len);
	}
	if (!ds->files)
		return FSCK_OK;
	return outputs_data(w->ck->outs, ds->files, ds->of, buf, len, off);
}

/*
 * Stored bytes with nothing to hash: the one output that takes them may
 * copy them from the image file in the kernel. *copied tells whether it
 * did; when not, the caller reads and hands them over.
 */
static enum fsck_result check_copy_extent(struct fsck_worker *w,
					  const struct erofs_inode *inode,
					  const struct erofs_map *map,
					  uint64_t skip, uint64_t len,
					  struct data_sum *ds, bool *copied)
{
	struct out_copy c = {
		.ctx = w->ctx,
		.inode = inode,
		.map = map,
		.skip = skip,
		.len = len,
	};

	*copied = false;
	if (!ds->files || ds->hash || !erofs_extent_copyable(map))
		return FSCK_OK;
	return outputs_copy(w->ck->outs, ds->files, ds->of, &c, copied);
}

/*
 * Bytes [off, off + len) of a file could not be read (code: what the
 * library returned): report why. With --ignore-errors, a range the image
 * damaged goes on as zeros, a hole for the outputs, and the file with it
 * (salvaged); otherwise the file's data check ends here.
 */
static enum fsck_result check_unreadable(struct fsck_worker *w,
					 struct data_sum *ds,
					 const struct fsck_loc *loc, int code,
					 uint64_t off, uint64_t len)
{
	int recorded = erofs_ctx_err(w->ctx)->code;
	int why = recorded ? recorded : code;
	enum fsck_result ret = check_lib_error(w, loc, code);

	if (ret != FSCK_REPORTED || !erofs_err_is_corruption(why) ||
	    !w->ck->salvage)
		return ret;
	ds->salvaged = true;
	report_warning(w->rep, loc,
		       "bytes %llu to %llu unreadable: salvaged as zeros",
		       (unsigned long long)off,
		       (unsigned long long)(off + len - 1));
	return check_hole(w, ds, off, len);
}

/*
 * Bytes [skip, skip + n) of a flat extent or a fragment into the buffer.
 * A pool worker whose fragment lies in a packed extent another decodes
 * does not wait for it while the pool has work queued ahead (decoding
 * the next packed extents read-ahead queued), then reads again: two
 * threads decode two extents rather than one decoding while the other
 * idles (on live media at -j2, a tenth of a second a run).
 */
static int check_read_shared(struct fsck_worker *w,
			     const struct erofs_inode *inode,
			     const struct erofs_map *map, uint64_t skip,
			     size_t n)
{
	int err = -EAGAIN;

	if (w->ctx == w->ck->ctx)
		return erofs_extent_read(w->ctx, inode, map, skip, w->buf, n);
	do
		err = erofs_extent_read_nowait(w->ctx, inode, map, skip, w->buf,
					       n);
	while (err == -EAGAIN && erofs_pool_help(w->ck->pool, w));
	if (err == -EAGAIN)
		err = erofs_extent_read(w->ctx, inode, map, skip, w->buf, n);
	return err;
}

/*
 * Decoded bytes of consecutive extents, gathered in w->buf before they go
 * on to the hash and the outputs: a file's small pclusters (4 KiB each,
 * as mkfs writes them) reach the outputs as one write of up to
 * CHECK_GATHER_BYTES instead of one each (bench/README.md, "Figures behind
 * the code's constants").
 */
struct gather {
	uint64_t off; /* in the file, of w->buf[0] */
	size_t len;
};

static enum fsck_result gather_flush(struct fsck_worker *w, struct data_sum *ds,
				     struct gather *g)
{
	size_t len = g->len;

	g->len = 0;
	return len ? check_hand_on(w, ds, w->buf, len, g->off) : FSCK_OK;
}

/*
 * A whole pcluster decoded after what is gathered, and the bytes
 * [skip, skip + len) of it kept there.
 */
static enum fsck_result
gather_pcluster(struct fsck_worker *w, const struct erofs_inode *inode,
		const struct erofs_map *map, uint64_t skip, uint64_t len,
		struct data_sum *ds, const struct fsck_loc *loc,
		struct gather *g)
{
	enum fsck_result ret = FSCK_OK;
	int err;

	if (g->len && g->off + g->len != map->la + skip)
		ret = gather_flush(w, ds, g);
	/* erofs_map() bounded llen (the extent sanity check) */
	if (ret == FSCK_OK)
		ret = check_reserve(w, g->len + map->llen);
	if (ret != FSCK_OK)
		return ret;
	err = erofs_extent_read(w->ctx, inode, map, 0, w->buf + g->len,
				map->llen);
	if (err < 0) {
		ret = gather_flush(w, ds, g);
		return ret != FSCK_OK ? ret
				      : check_unreadable(w, ds, loc, err,
							 map->la + skip, len);
	}
	if (skip)
		memmove(w->buf + g->len, w->buf + g->len + skip, len);
	if (!g->len)
		g->off = map->la + skip;
	g->len += len;
	return g->len >= CHECK_GATHER_BYTES ? gather_flush(w, ds, g) : FSCK_OK;
}

/*
 * Decode bytes [skip, skip + len) of an extent. Pclusters are decoded
 * whole, so that the library checks their exact decoded length, and
 * gathered; flat data and fragments are read in pieces.
 */
static enum fsck_result
check_read_extent(struct fsck_worker *w, const struct erofs_inode *inode,
		  const struct erofs_map *map, uint64_t skip, uint64_t len,
		  struct data_sum *ds, const struct fsck_loc *loc,
		  struct gather *g)
{
	enum fsck_result ret;
	uint64_t done;
	bool copied;
	size_t n;
	int err;

	if (erofs_inode_is_compressed(inode) &&
	    map->loc != EROFS_LOC_FRAGMENT && map->loc != EROFS_LOC_HOLE)
		return gather_pcluster(w, inode, map, skip, len, ds, loc, g);
	ret = gather_flush(w, ds, g);
	if (ret != FSCK_OK)
		return ret;
	if (map->loc == EROFS_LOC_HOLE)
		return check_hole(w, ds, map->la + skip, len);
	ret = check_copy_extent(w, inode, map, skip, len, ds, &copied);
	if (ret != FSCK_OK || copied)
		return ret;
	for (done = 0; done < len; done += n) {
		if (interrupted())
			return FSCK_STOP;
		n = len - done < CHECK_PIECE_SIZE ? len - done
						  : CHECK_PIECE_SIZE;
		if (check_reserve(w, n) != FSCK_OK)
			return FSCK_NOMEM;
		err = check_read_shared(w, inode, map, skip + done, n);
		if (err < 0)
			ret = check_unreadable(w, ds, loc, err,
					       map->la + skip + done, n);
		else
			ret = check_hand_on(w, ds, w->buf, n,
					    map->la + skip + done);
		if (ret != FSCK_OK)
			return ret;
	}
	return FSCK_OK;
}

/*
 * Map every extent from pos to stop, in order: erofs_map() checks that
 * each holds the current position and lies inside its device. The source
 * may stop the range between extents.
 */
static enum fsck_result
check_mapped(struct fsck_worker *w, const struct erofs_inode *inode,
	     const struct fsck_loc *loc, bool decode, struct data_sum *ds,
	     uint64_t pos, uint64_t stop, const struct extent_source *src,
	     struct gather *g)
{
	struct progress_counters *pc = &w->ck->pc;
	enum fsck_result ret;
	uint64_t end, stored;
	struct erofs_map map;
	int err;

	while (pos < stop) {
		if (interrupted())
			return FSCK_STOP;
		if (src && !src->go_on(src->arg))
			return FSCK_OK;
		err = src && src->next_map(src->arg, pos, &map)
			      ? 0
			      : erofs_map(w->ctx, inode, pos, &map);
		/* unmapped, nothing tells where the next extent begins */
		if (err < 0 && !decode)
			return check_lib_error(w, loc, err);
		if (err < 0) {
			ret = gather_flush(w, ds, g);
			return ret != FSCK_OK
				       ? ret
				       : check_unreadable(w, ds, loc, err, pos,
							  stop - pos);
		}
		end = map.la + map.llen;
		stored = 0;
		if (map.loc == EROFS_LOC_DEVICE || map.loc == EROFS_LOC_META)
			stored = map.plen;
		ds->physical += stored;
		if (decode) {
			ret = check_read_extent(w, inode, &map, pos - map.la,
						end - pos, ds, loc, g);
			if (ret != FSCK_OK)
				return ret;
		}
		__atomic_add_fetch(&pc->bytes, end - pos, __ATOMIC_RELAXED);
		__atomic_add_fetch(&pc->stored, stored, __ATOMIC_RELAXED);
		pos = end;
	}
	return FSCK_OK;
}

enum fsck_result check_range(struct fsck_worker *w,
			     const struct erofs_inode *inode,
			     const struct fsck_loc *loc, bool decode,
			     struct data_sum *ds, uint64_t pos, uint64_t stop,
			     const struct extent_source *src)
{
	struct gather g = { 0 };
	enum fsck_result ret;

	ret = check_mapped(w, inode, loc, decode, ds, pos, stop, src, &g);
	/* what a failure left gathered goes on as read: it was checked */
	if (ret == FSCK_OK || ret == FSCK_REPORTED) {
		enum fsck_result flushed = gather_flush(w, ds, &g);

		if (ret == FSCK_OK)
			ret = flushed;
	}
	return ret;
}

enum fsck_result check_index(struct fsck_worker *w,
			     const struct erofs_inode *inode,
			     const struct fsck_loc *loc)
{
	int err;

	if (!erofs_inode_is_compressed(inode))
		return FSCK_OK;
	err = z_erofs_check_index(w->ctx, inode);
	return err < 0 ? check_lib_error(w, loc, err) : FSCK_OK;
}

/* The index, then every extent from 0 to i_size. */
static enum fsck_result check_extents(struct fsck_worker *w,
				      const struct erofs_inode *inode,
				      const struct fsck_loc *loc, bool decode,
				      struct data_sum *ds)
{
	enum fsck_result ret = check_index(w, inode, loc);

	/* salvaging, what the index still maps is read */
	if (ret != FSCK_OK &&
	    !(ret == FSCK_REPORTED && w->ck->salvage && decode))
		return ret;
	return check_range(w, inode, loc, decode, ds, 0, inode->size, NULL);
}

static uint64_t blocks_of(const struct checker *ck, uint64_t bytes)
{
	unsigned int bits = erofs_ctx_image(ck->ctx)->blkszbits;

	return (bytes >> bits) + !!(bytes & ((1ULL << bits) - 1));
}

/* Read a symlink target into w->buf, NUL-terminated. */
static enum fsck_result check_symlink(struct fsck_worker *w,
				      const struct erofs_inode *inode,
				      const struct fsck_loc *loc,
				      struct data_sum *ds)
{
	ssize_t n;

	/* erofs_read_inode() bounds the size to 1..4095: no short reads */
	if (check_reserve(w, inode->size + 1) != FSCK_OK)
		return FSCK_NOMEM;
	n = erofs_pread(w->ctx, inode, w->buf, inode->size, 0);
	if (n < 0)
		return check_lib_error(w, loc, (int)n);
	w->buf[inode->size] = '\0';
	if (memchr(w->buf, '\0', inode->size)) {
		report_problem(w->rep, loc,
			       "symlink target contains a NUL byte");
		return FSCK_REPORTED;
	}
	ds->target_ok = true;
	if (ds->hash)
		erofs_sha256_update(&ds->sha, w->buf, inode->size);
	return FSCK_OK;
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

	if (is_digest_xattr(erofs_ctx_image(xs->w->ctx), xa)) {
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
	return xattr_list_add(&xs->listed, xa->name, xa->namelen, xa->value,
			      xa->value_len)
		       ? 0
		       : -ENOMEM;
}

enum fsck_result check_xattrs(struct fsck_worker *w,
			      const struct erofs_inode *inode,
			      const struct fsck_loc *loc, struct xattr_scan *xs)
{
	int ret;

	ret = erofs_xattr_iterate(w->ctx, inode, EROFS_XATTR_HIDDEN,
				  xattr_collect, xs);
	if (ret < 0) {
		xattr_list_release(&xs->listed);
		return check_lib_error(w, loc, ret);
	}
	return FSCK_OK;
}

bool check_wants_digest(struct report *rep, const struct checker *ck,
			const struct fsck_loc *loc, const struct xattr_scan *xs)
{
	if (!ck->digests || !xs->has_digest)
		return false;
	if (!xs->bad_digest)
		return true;
	report_problem(rep, loc, "digest xattr is not \"sha256:\" and %u bytes",
		       EROFS_SHA256_LEN);
	return false;
}

bool check_digest(struct report *rep, const struct fsck_loc *loc,
		  struct erofs_sha256 *sha, uint8_t *digest,
		  const uint8_t *expected)
{
	erofs_sha256_final(sha, digest);
	if (!expected || !memcmp(digest, expected, EROFS_SHA256_LEN))
		return true;
	report_problem(rep, loc,
		       "content does not match its sha256 digest xattr");
	return false;
}

enum fsck_result check_file(struct fsck_worker *w,
			    const struct erofs_inode *inode,
			    const struct fsck_loc *loc, struct data_sum *ds)
{
	return check_extents(w, inode, loc, w->ck->decode, ds);
}

bool check_hashes(const struct checker *ck)
{
	return outputs_want(ck->outs, OUT_DIGEST);
}

static enum fsck_result check_link_target(struct fsck_worker *w,
					  const struct erofs_inode *inode,
					  const struct fsck_loc *loc,
					  struct data_sum *ds)
{
	enum fsck_result ret;

	ret = check_extents(w, inode, loc, false, ds);
	if (ret != FSCK_OK)
		return ret;
	ds->hash = check_hashes(w->ck);
	ret = check_symlink(w, inode, loc, ds);
	if (ret != FSCK_OK || !ds->hash)
		return ret;
	erofs_sha256_final(&ds->sha, ds->digest);
	ds->have_digest = true;
	return FSCK_OK;
}

enum fsck_result check_count_blocks(struct checker *ck,
				    const struct erofs_inode *inode,
				    uint64_t physical)
{
	struct linked_count *lc;
	int added;

	if (!ck->cfg->ratio)
		return FSCK_OK;
	if (inode->nlink > 1 && !S_ISDIR(inode->mode)) {
		lc = nidmap_get(&ck->linked, inode->nid, &added);
		if (!lc)
			return FSCK_NOMEM;
		lc->physical = physical;
	}
	ck->logical_blocks += blocks_of(ck, inode->size);
	ck->physical_blocks += blocks_of(ck, physical);
	return FSCK_OK;
}

void check_out_entry(struct out_entry *oe, struct checker *ck,
		     const struct walk_entry *e, const struct fsck_loc *loc)
{
	memset(oe, 0, sizeof(*oe));
	oe->e = e;
	oe->loc = loc;
	oe->rep = ck->rep;
	oe->ctx = ck->ctx;
	oe->xattrs_ok = true;
}

void check_loc(struct fsck_loc *loc, const char *path, size_t pathlen,
	       const struct erofs_inode *inode)
{
	loc->label = NULL;
	loc->path = path;
	loc->pathlen = pathlen;
	loc->nid = inode->nid;
	loc->offset = inode_offset(inode);
}

enum fsck_result check_inline_data(struct checker *ck,
				   const struct erofs_inode *inode,
				   const struct fsck_loc *loc,
				   struct data_sum *ds)
{
	struct fsck_worker *w = &ck->walker;
	enum fsck_result ret, counted;

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
		return FSCK_OK;
	}
	counted = check_count_blocks(ck, inode, ds->physical);
	return counted != FSCK_OK ? counted : ret;
}

void check_count_name(struct checker *ck, const struct erofs_inode *inode)
{
	struct linked_count *lc;

	if (ck->cfg->ratio && (lc = nidmap_find(&ck->linked, inode->nid))) {
		lc->names++;
		ck->logical_blocks += blocks_of(ck, inode->size);
	}
}

void check_count_links(struct checker *ck)
{
	struct linked_count *lc;
	size_t i;

	nidmap_for_each(&ck->linked, i)
	{
		lc = nidmap_val(&ck->linked, i);
		ck->physical_blocks += blocks_of(ck, lc->physical) * lc->names;
	}
}

/* The packed inode's extents are decoded as files read them. */
static bool packed_deferred(const struct checker *ck)
{
	return ck->decode && erofs_ctx_image(ck->ctx)->frag_cache;
}

/* The packed inode's name in reports, wherever its problems are found. */
static const char packed_label[] = "packed inode";

/* Where a problem of an inode no directory lists is reported. */
static void special_loc(struct fsck_loc *loc, const struct erofs_inode *inode,
			const char *label)
{
	*loc = (struct fsck_loc){
		.label = label,
		.nid = inode->nid,
		.offset = inode_offset(inode),
	};
}

static enum fsck_result check_special(struct checker *ck,
				      const struct erofs_inode *inode,
				      const char *label, bool count,
				      bool decode)
{
	struct fsck_worker *w = &ck->walker;
	struct data_sum ds = { 0 };
	struct fsck_loc loc;
	enum fsck_result ret;

	special_loc(&loc, inode, label);
	report_msg(ck->rep, FSCK_LVL_DEBUG, "%s: nid %llu, size %llu", label,
		   (unsigned long long)inode->nid,
		   (unsigned long long)inode->size);
	ret = check_extents(w, inode, &loc, decode, &ds);
	if (count) {
		ck->physical_blocks += blocks_of(ck, ds.physical);
		ck->stats.packed_stored += ds.physical;
	}
	if (ret == FSCK_NOMEM && !ck->rep->fatal)
		report_nomem(ck->rep, &loc);
	return ret;
}

int check_special_inodes(struct checker *ck)
{
	const struct erofs_image *img = erofs_ctx_image(ck->ctx);
	enum fsck_result ret = FSCK_OK;

	if (img->has_packed)
		ret = check_special(ck, &img->packed, packed_label, true,
				    ck->decode && !packed_deferred(ck));
	if (fsck_result_goes_on(ret) && img->has_metabox)
		ret = check_special(ck, &img->metabox, "metabox inode", false,
				    ck->decode);
	return check_errno(ret);
}

/*
 * encoded: the bytes of the packed inode's encoded extents; rest: those
 * decoded after the walk, for extents no file read.
 */
static void packed_report_stats(struct checker *ck, uint64_t encoded,
				uint64_t rest)
{
	struct erofs_frag_stats st;

	erofs_frag_cache_stats(erofs_ctx_image(ck->ctx), &st);
	ck->stats.packed_encoded = encoded;
	ck->stats.packed_decoded = st.decoded + rest;
	report_msg(
		ck->rep, FSCK_LVL_INFO,
		"packed inode: %llu bytes decoded of its %llu encoded (%.3f)",
		(unsigned long long)ck->stats.packed_decoded,
		(unsigned long long)encoded,
		encoded ? (double)ck->stats.packed_decoded / (double)encoded
			: 0);
	report_msg(
		ck->rep, FSCK_LVL_DEBUG,
		"fragment cache: budget %zu, peak %zu bytes; %llu decodes (%llu read ahead, %llu held back), %llu hits, %llu waits (%llu reads put off to run tasks meanwhile), %llu evictions (%llu mappings reused), %llu uncached reads",
		st.budget, st.peak, (unsigned long long)st.decodes,
		(unsigned long long)st.prefetches,
		(unsigned long long)st.held_back, (unsigned long long)st.hits,
		(unsigned long long)st.waits, (unsigned long long)st.deferred,
		(unsigned long long)st.evictions,
		(unsigned long long)st.recycled,
		(unsigned long long)st.uncached);
}

enum fsck_result check_packed_extent(struct fsck_worker *w,
				     const struct erofs_map *map)
{
	const struct erofs_inode *packed = &erofs_ctx_image(w->ck->ctx)->packed;
	struct data_sum ds = { 0 };
	struct fsck_loc loc;

	struct gather g = { 0 };
	enum fsck_result ret;

	special_loc(&loc, packed, packed_label);
	ret = check_read_extent(w, packed, map, 0, map->llen, &ds, &loc, &g);
	return ret == FSCK_OK ? gather_flush(w, &ds, &g) : ret;
}

/*
 * The next packed extent from pr->pos on: false at the end, or when the
 * scan cannot go on (pr->ret says why).
 */
static bool packed_next(struct checker *ck, struct packed_rest *pr,
			struct erofs_map *map)
{
	const struct erofs_inode *packed = &erofs_ctx_image(ck->ctx)->packed;
	struct fsck_worker *w = &ck->walker;
	struct fsck_loc loc;
	int err;

	if (pr->pos >= packed->size)
		return false;
	if (interrupted()) {
		pr->ret = FSCK_STOP;
		return false;
	}
	err = erofs_map(w->ctx, packed, pr->pos, map);
	/* check_special_inodes() reported a corrupt mapping */
	if (err == -EFSCORRUPTED) {
		erofs_err_drop(erofs_ctx_err(w->ctx));
		return false;
	}
	if (err < 0) {
		special_loc(&loc, packed, packed_label);
		pr->ret = check_lib_error(w, &loc, err);
		return false;
	}
	if (map->la + map->llen <= pr->pos)
		return false;
	pr->pos = map->la + map->llen;
	if (erofs_extent_encoded(map))
		pr->encoded += map->llen;
	return true;
}

bool check_packed_rest(struct checker *ck, struct packed_rest *pr,
		       struct erofs_map *map)
{
	if (!packed_deferred(ck) || !fsck_result_goes_on(pr->ret))
		return false;
	while (packed_next(ck, pr, map)) {
		if (erofs_frag_decoded(erofs_ctx_image(ck->ctx), map))
			continue;
		pr->extents++;
		if (erofs_extent_encoded(map))
			pr->rest += map->llen;
		return true;
	}
	return false;
}

int check_packed_report(struct checker *ck, const struct packed_rest *pr)
{
	enum fsck_result ret = pr->ret;
	struct fsck_loc loc;

	if (!packed_deferred(ck))
		return 0;
	packed_report_stats(ck, pr->encoded, pr->rest);
	if (pr->extents)
		report_msg(
			ck->rep, FSCK_LVL_DEBUG,
			"packed extents no file read, decoded after the walk: %llu (%llu bytes)",
			(unsigned long long)pr->extents,
			(unsigned long long)pr->rest);
	special_loc(&loc, &erofs_ctx_image(ck->ctx)->packed, packed_label);
	if (ret == FSCK_NOMEM && !ck->rep->fatal)
		report_nomem(ck->rep, &loc);
	return check_errno(ret);
}
