// SPDX-License-Identifier: MIT
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "erofs/data.h"
#include "erofs/format.h"
#include "erofs/image.h"
#include "erofs/inode.h"
#include "erofs/xattr.h"
#include "manifest.h"

/* Flat extents and fragments are read in pieces of at most this size. */
#define CHECK_PIECE_SIZE (4u << 20)
#define DIGEST_PREFIX "sha256:"
#define DIGEST_PREFIX_LEN 7

/* What walking one inode's data gave. */
struct data_sum {
	uint64_t physical;		/* stored bytes: no holes, fragments */
	bool hash;
	struct erofs_sha256 sha;
	uint8_t digest[EROFS_SHA256_LEN];
	bool have_digest;
};

struct xattr_scan {
	struct checker *ck;
	bool list;			/* collect what listxattr shows */
	struct mf_xattrs listed;
	bool has_digest;
	bool bad_digest;
	uint8_t digest[EROFS_SHA256_LEN];
};

void checker_init(struct checker *ck, struct erofs_ctx *ctx,
		  struct report *rep, const struct fsck_cfg *cfg,
		  struct manifest *manifest)
{
	memset(ck, 0, sizeof(*ck));
	ck->ctx = ctx;
	ck->rep = rep;
	ck->cfg = cfg;
	ck->manifest = manifest;
	nidmap_init(&ck->linked_physical, sizeof(uint64_t));
}

void checker_fini(struct checker *ck)
{
	free(ck->buf);
	ck->buf = NULL;
	ck->bufsize = 0;
	nidmap_fini(&ck->linked_physical);
}

static int check_reserve(struct checker *ck, size_t len)
{
	uint8_t *buf;

	if (len <= ck->bufsize)
		return 0;
	buf = realloc(ck->buf, len);
	if (!buf)
		return -ENOMEM;
	ck->buf = buf;
	ck->bufsize = len;
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
static int check_lib_error(struct checker *ck, const struct fsck_loc *loc,
			   int code)
{
	int ret = report_lib_error(ck->rep, loc, &ck->ctx->err, code);

	erofs_err_clear(&ck->ctx->err);
	return ret < 0 ? ret : 1;
}

static void hash_zeros(struct data_sum *ds, uint64_t len)
{
	static const uint8_t zeros[4096];

	while (len) {
		size_t n = len < sizeof(zeros) ? len : sizeof(zeros);

		erofs_sha256_update(&ds->sha, zeros, n);
		len -= n;
	}
}

/*
 * Decode bytes [skip, skip + len) of an extent. Pclusters are decoded
 * whole, so that the library checks their exact decoded length; flat data
 * and fragments are read in pieces.
 */
static int check_read_extent(struct checker *ck,
			     const struct erofs_inode *inode,
			     const struct erofs_map *map, uint64_t skip,
			     uint64_t len, struct data_sum *ds,
			     const struct fsck_loc *loc)
{
	uint64_t done;
	size_t n;
	int ret;

	if (map->loc == EROFS_LOC_HOLE) {
		if (ds->hash)
			hash_zeros(ds, len);
		return 0;
	}
	if (erofs_inode_is_compressed(inode) &&
	    map->loc != EROFS_LOC_FRAGMENT) {
		if (map->llen > Z_EROFS_PCLUSTER_MAX_DSIZE) {
			report_problem(ck->rep, loc,
				       "extent at file offset %llu decodes to %llu bytes, more than %u",
				       (unsigned long long)map->la,
				       (unsigned long long)map->llen,
				       Z_EROFS_PCLUSTER_MAX_DSIZE);
			return 1;
		}
		if (check_reserve(ck, map->llen))
			return -ENOMEM;
		ret = erofs_extent_read(ck->ctx, inode, map, 0, ck->buf,
					map->llen);
		if (ret < 0)
			return check_lib_error(ck, loc, ret);
		if (ds->hash)
			erofs_sha256_update(&ds->sha, ck->buf + skip, len);
		return 0;
	}
	for (done = 0; done < len; done += n) {
		n = len - done < CHECK_PIECE_SIZE ? len - done :
						    CHECK_PIECE_SIZE;
		if (check_reserve(ck, n))
			return -ENOMEM;
		ret = erofs_extent_read(ck->ctx, inode, map, skip + done,
					ck->buf, n);
		if (ret < 0)
			return check_lib_error(ck, loc, ret);
		if (ds->hash)
			erofs_sha256_update(&ds->sha, ck->buf, n);
	}
	return 0;
}

/*
 * Check every record of a compressed index (mapping reads only those it
 * needs), then map every extent from 0 to i_size, in order: erofs_map()
 * checks that each holds the current position and lies inside its device.
 * With decode, read them too. Returns 0, 1 (problem reported) or a
 * negative errno.
 */
static int check_extents(struct checker *ck, const struct erofs_inode *inode,
			 const struct fsck_loc *loc, bool decode,
			 struct data_sum *ds)
{
	uint64_t pos = 0, end;
	struct erofs_map map;
	int ret;

	if (erofs_inode_is_compressed(inode)) {
		ret = z_erofs_check_index(ck->ctx, inode);
		if (ret < 0)
			return check_lib_error(ck, loc, ret);
	}
	while (pos < inode->size) {
		ret = erofs_map(ck->ctx, inode, pos, &map);
		if (ret < 0)
			return check_lib_error(ck, loc, ret);
		end = map.la + map.llen;
		if (map.loc == EROFS_LOC_DEVICE || map.loc == EROFS_LOC_META)
			ds->physical += map.plen;
		if (decode) {
			ret = check_read_extent(ck, inode, &map, pos - map.la,
						end - pos, ds, loc);
			if (ret)
				return ret;
		}
		pos = end;
	}
	return 0;
}

static uint64_t blocks_of(const struct checker *ck, uint64_t bytes)
{
	unsigned int bits = ck->ctx->img->blkszbits;

	return (bytes >> bits) + !!(bytes & ((1ULL << bits) - 1));
}

static int check_symlink(struct checker *ck, const struct erofs_inode *inode,
			 const struct fsck_loc *loc, struct data_sum *ds)
{
	ssize_t n;

	/* erofs_read_inode() bounds the size to 1..4095: no short reads */
	if (check_reserve(ck, inode->size))
		return -ENOMEM;
	n = erofs_pread(ck->ctx, inode, ck->buf, inode->size, 0);
	if (n < 0)
		return check_lib_error(ck, loc, (int)n);
	if (memchr(ck->buf, '\0', inode->size)) {
		report_problem(ck->rep, loc,
			       "symlink target contains a NUL byte");
		return 1;
	}
	if (ds->hash)
		erofs_sha256_update(&ds->sha, ck->buf, inode->size);
	return 0;
}

/* Is xa the image-share digest of 6.7: exactly the long prefix, no more? */
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

	if (is_digest_xattr(xs->ck->ctx->img, xa)) {
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
	return mf_xattrs_add(&xs->listed, xa->name, xa->namelen, xa->value,
			     xa->value_len);
}

static int check_xattrs(struct checker *ck, const struct erofs_inode *inode,
			const struct fsck_loc *loc, struct xattr_scan *xs)
{
	int ret;

	ret = erofs_xattr_iterate(ck->ctx, inode, EROFS_XATTR_HIDDEN,
				  xattr_collect, xs);
	if (ret < 0)
		return check_lib_error(ck, loc, ret);
	return 0;
}

static int check_file(struct checker *ck, const struct erofs_inode *inode,
		      const struct fsck_loc *loc, const struct xattr_scan *xs,
		      struct data_sum *ds)
{
	bool digest = ck->cfg->digests && xs->has_digest;
	int ret;

	if (digest && xs->bad_digest) {
		report_problem(ck->rep, loc,
			       "digest xattr is not \"sha256:\" and %u bytes",
			       EROFS_SHA256_LEN);
		digest = false;
	}
	ds->hash = ck->manifest || digest;
	ret = check_extents(ck, inode, loc, ck->cfg->decode || ds->hash, ds);
	if (ret)
		return ret;
	if (ds->hash) {
		erofs_sha256_final(&ds->sha, ds->digest);
		ds->have_digest = true;
	}
	if (!digest)
		return 0;
	ck->digests_checked++;
	if (memcmp(ds->digest, xs->digest, EROFS_SHA256_LEN))
		report_problem(ck->rep, loc,
			       "content does not match its sha256 digest xattr");
	return 0;
}

static int check_link_target(struct checker *ck,
			     const struct erofs_inode *inode,
			     const struct fsck_loc *loc, struct data_sum *ds)
{
	int ret;

	ret = check_extents(ck, inode, loc, false, ds);
	if (ret)
		return ret;
	ds->hash = ck->manifest;
	ret = check_symlink(ck, inode, loc, ds);
	if (ret || !ds->hash)
		return ret;
	erofs_sha256_final(&ds->sha, ds->digest);
	ds->have_digest = true;
	return 0;
}

/* Count a name of an inode for -p; 0 or -ENOMEM. */
static int check_count_blocks(struct checker *ck,
			      const struct erofs_inode *inode, bool first,
			      uint64_t physical)
{
	uint64_t *stored;
	int added;

	if (!ck->cfg->ratio)
		return 0;
	if (first && inode->nlink > 1 && !S_ISDIR(inode->mode)) {
		stored = nidmap_get(&ck->linked_physical, inode->nid, &added);
		if (!stored)
			return -ENOMEM;
		*stored = physical;
	} else if (!first) {
		stored = nidmap_find(&ck->linked_physical, inode->nid);
		if (!stored)
			return 0;
		physical = *stored;
	}
	ck->logical_blocks += blocks_of(ck, inode->size);
	ck->physical_blocks += blocks_of(ck, physical);
	return 0;
}

/* Map (and maybe decode) the data of an inode; count it for -p. */
static int check_data(struct checker *ck, const struct erofs_inode *inode,
		      const struct fsck_loc *loc, const struct xattr_scan *xs,
		      struct data_sum *ds)
{
	int ret, err;

	switch (inode->mode & S_IFMT) {
	case S_IFREG:
		ret = check_file(ck, inode, loc, xs, ds);
		break;
	case S_IFDIR:
		ret = check_extents(ck, inode, loc, false, ds);
		break;
	case S_IFLNK:
		ret = check_link_target(ck, inode, loc, ds);
		break;
	default:
		return 0;
	}
	err = check_count_blocks(ck, inode, true, ds->physical);
	return err ? err : ret;
}

static int check_entry(void *arg, const struct walk_entry *e, void **dir_state)
{
	struct checker *ck = arg;
	const struct erofs_inode *inode = e->inode;
	struct xattr_scan xs = { .ck = ck, .list = ck->manifest != NULL };
	struct data_sum ds = { 0 };
	struct fsck_loc loc = {
		.path = e->path,
		.pathlen = e->pathlen,
		.nid = e->nid,
		.offset = inode_offset(inode),
	};
	int ret;

	report_msg(ck->rep, FSCK_LVL_DEBUG, "nid %llu: mode 0%o, size %llu",
		   (unsigned long long)e->nid, inode->mode,
		   (unsigned long long)inode->size);
	if (!e->first) {
		ret = check_count_blocks(ck, inode, false, 0);
		if (!ret && ck->manifest)
			ret = manifest_add_name(ck->manifest, e->rel, e->rellen,
						e->nid);
		return ret;
	}

	erofs_sha256_init(&ds.sha);
	ret = check_xattrs(ck, inode, &loc, &xs);
	if (ret >= 0)
		ret = check_data(ck, inode, &loc, &xs, &ds);
	if (ret >= 0 && ck->manifest)
		ret = manifest_add_inode(ck->manifest, e->rel, e->rellen, inode,
					 ds.have_digest ? ds.digest : NULL,
					 &xs.listed);
	mf_xattrs_release(&xs.listed);
	if (ret == -ENOMEM && !ck->rep->fatal)
		report_fatal(ck->rep, "out of memory");
	return ret < 0 ? ret : 0;
}

void checker_visitor(struct checker *ck, struct walk_visitor *v)
{
	v->entry = check_entry;
	v->dir_done = NULL;
	v->arg = ck;
}

static int check_special(struct checker *ck, const struct erofs_inode *inode,
			 const char *label, bool count)
{
	struct data_sum ds = { 0 };
	struct fsck_loc loc = {
		.label = label,
		.nid = inode->nid,
		.offset = inode_offset(inode),
	};
	int ret;

	report_msg(ck->rep, FSCK_LVL_DEBUG, "%s: nid %llu, size %llu", label,
		   (unsigned long long)inode->nid,
		   (unsigned long long)inode->size);
	ret = check_extents(ck, inode, &loc, ck->cfg->decode, &ds);
	if (count)
		ck->physical_blocks += blocks_of(ck, ds.physical);
	if (ret == -ENOMEM && !ck->rep->fatal)
		report_fatal(ck->rep, "out of memory");
	return ret < 0 ? ret : 0;
}

int check_special_inodes(struct checker *ck)
{
	const struct erofs_image *img = ck->ctx->img;
	int ret = 0;

	if (img->has_packed)
		ret = check_special(ck, &img->packed, "packed inode", true);
	if (!ret && img->has_metabox)
		ret = check_special(ck, &img->metabox, "metabox inode", false);
	return ret;
}
