// SPDX-License-Identifier: MIT
/*
 * Extended attributes (format.md, "Extended attributes"): the inline region of
 * an inode, shared entries, short and long name prefixes, and the name filter.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "erofs/format.h"
#include "erofs/image.h"
#include "erofs/inode.h"
#include "erofs/xattr.h"
#include "image/image_internal.h"

#define XATTR_VALUE_MAX 65535

static const char *const short_prefixes[EROFS_XATTR_INDEX_MAX] = {
	[EROFS_XATTR_INDEX_USER] = "user.",
	[EROFS_XATTR_INDEX_POSIX_ACL_ACCESS] = "system.posix_acl_access",
	[EROFS_XATTR_INDEX_POSIX_ACL_DEFAULT] = "system.posix_acl_default",
	[EROFS_XATTR_INDEX_TRUSTED] = "trusted.",
	/* lustre. is defined but mapped by no reader: unsupported */
	[EROFS_XATTR_INDEX_SECURITY] = "security.",
};

const char *erofs_xattr_prefix_name(unsigned int index)
{
	return index < EROFS_XATTR_INDEX_MAX ? short_prefixes[index] : NULL;
}

static bool is_acl_index(unsigned int index)
{
	return index == EROFS_XATTR_INDEX_POSIX_ACL_ACCESS ||
	       index == EROFS_XATTR_INDEX_POSIX_ACL_DEFAULT;
}

struct xattr_walk {
	struct erofs_ctx *ctx;
	const struct erofs_inode *inode;
	unsigned int flags;
	erofs_xattr_fn fn;
	void *arg;
	bool check_filter;
	uint32_t filter;
	uint8_t *value;			/* XATTR_VALUE_MAX bytes */
	char name[EROFS_XATTR_NAME_MAX];
};

/* Where an entry is, for messages. */
struct xattr_loc {
	int space;
	uint64_t pos;
	bool shared;
	unsigned int index;		/* inline entry number or shared slot */
};

static int xattr_corrupt(struct xattr_walk *w, const struct xattr_loc *loc,
			 const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int xattr_corrupt(struct xattr_walk *w, const struct xattr_loc *loc,
			 const char *fmt, ...)
{
	char where[32];
	va_list ap;
	int ret;

	if (!erofs_err_free(&w->ctx->err))
		return -EFSCORRUPTED;
	snprintf(where, sizeof(where), "%s xattr %u",
		 loc->shared ? "shared" : "inline", loc->index);
	va_start(ap, fmt);
	ret = erofs_errorv(&w->ctx->err, -EFSCORRUPTED, w->inode->nid,
			   erofs_image_offset(loc->space, loc->pos), where, fmt,
			   ap);
	va_end(ap);
	return ret;
}

static size_t copy_str(char *dst, const char *src)
{
	size_t len;

	if (!src)
		return 0;
	len = strlen(src);
	memcpy(dst, src, len);
	return len;
}

/*
 * Put the prefix of name index ni (short prefix, or short prefix + infix of
 * a long one) at the start of w->name and fill the prefix fields of xa.
 * Returns the prefix length, or a negative errno.
 */
static int xattr_prefix(struct xattr_walk *w, const struct xattr_loc *loc,
			unsigned int ni, struct erofs_xattr *xa)
{
	const struct erofs_image *img = w->ctx->img;
	const struct erofs_xattr_prefix *pfx;
	unsigned int n = ni & EROFS_XATTR_LONG_PREFIX_MASK;
	size_t len;

	xa->long_prefix = ni & EROFS_XATTR_LONG_PREFIX;
	xa->prefix_id = -1;
	if (!xa->long_prefix) {
		if (!erofs_xattr_prefix_name(ni))
			return xattr_corrupt(w, loc, "name index %u", ni);
		xa->base_index = ni;
		return copy_str(w->name, short_prefixes[ni]);
	}
	if (n >= img->xattr_prefix_count)
		return xattr_corrupt(w, loc, "long prefix %u of %u", n,
				     img->xattr_prefix_count);
	pfx = &img->xattr_prefixes[n];
	if (pfx->base_index && !erofs_xattr_prefix_name(pfx->base_index))
		return xattr_corrupt(w, loc, "long prefix %u: base index %u", n,
				     pfx->base_index);
	len = copy_str(w->name, erofs_xattr_prefix_name(pfx->base_index));
	/* short prefix + infix + EROFS_NAME_LEN + NUL always fits */
	if (pfx->infix_len > EROFS_XATTR_NAME_MAX - EROFS_NAME_LEN - 1 - len)
		return xattr_corrupt(w, loc, "long prefix %u: infix of %u bytes",
				     n, pfx->infix_len);
	memcpy(w->name + len, pfx->infix, pfx->infix_len);
	xa->base_index = pfx->base_index;
	xa->prefix_id = n;
	return len + pfx->infix_len;
}

/*
 * format.md, "Xattr name filter": a present name whose filter bit is 1 is
 * hidden from lookups.
 */
static int check_filter(struct xattr_walk *w, const struct xattr_loc *loc,
			const struct erofs_xattr *xa)
{
	const char *sp = erofs_xattr_prefix_name(xa->base_index);
	size_t skip = sp ? strlen(sp) : 0;
	unsigned int bit;

	bit = erofs_xxh32(xa->name + skip, xa->namelen - skip,
			  EROFS_XATTR_FILTER_SEED + xa->base_index) &
	      (EROFS_XATTR_FILTER_BITS - 1);
	if (w->filter >> bit & 1)
		return xattr_corrupt(w, loc,
				     "name hashes to filter bit %u, which is set",
				     bit);
	return 0;
}

static int read_bytes(struct erofs_ctx *ctx, int space, uint64_t pos,
		      void *buf, size_t len, uint64_t nid)
{
	return len ? erofs_meta_read(ctx, space, pos, buf, len, nid) : 0;
}

static int read_entry(struct xattr_walk *w, const struct xattr_loc *loc,
		      const uint8_t *hdr, uint64_t end)
{
	struct erofs_ctx *ctx = w->ctx;
	unsigned int nl = hdr[EROFS_XATTR_E_NAME_LEN];
	unsigned int ni = hdr[EROFS_XATTR_E_NAME_INDEX];
	unsigned int vs = erofs_get16(hdr + EROFS_XATTR_E_VALUE_SIZE);
	uint64_t pos = loc->pos + EROFS_XATTR_ENTRY_SIZE;
	struct erofs_xattr xa = { .name = w->name, .shared = loc->shared };
	int plen, ret;

	if (nl + vs > end - pos)
		return xattr_corrupt(w, loc,
				     "name %u + value %u bytes run past the region end",
				     nl, vs);
	plen = xattr_prefix(w, loc, ni, &xa);
	if (plen < 0)
		return plen;
	if (!nl && !xa.long_prefix && !is_acl_index(ni))
		return xattr_corrupt(w, loc, "empty name with index %u", ni);
	ret = read_bytes(ctx, loc->space, pos, w->name + plen, nl,
			 w->inode->nid);
	if (!ret)
		ret = read_bytes(ctx, loc->space, pos + nl, w->value, vs,
				 w->inode->nid);
	if (ret)
		return ret;
	w->name[plen + nl] = '\0';
	xa.namelen = plen + nl;
	xa.value = w->value;
	xa.value_len = vs;
	if (w->check_filter) {
		ret = check_filter(w, loc, &xa);
		if (ret)
			return ret;
	}
	if (!xa.base_index && !(w->flags & EROFS_XATTR_HIDDEN))
		return 0;
	return w->fn(w->arg, &xa);
}

static unsigned int entry_size(const uint8_t *hdr)
{
	unsigned int len = EROFS_XATTR_ENTRY_SIZE +
			   hdr[EROFS_XATTR_E_NAME_LEN] +
			   erofs_get16(hdr + EROFS_XATTR_E_VALUE_SIZE);

	return (len + 3) & ~3u;
}

static bool is_padding(const uint8_t *hdr)
{
	return !hdr[0] && !hdr[1] && !hdr[2] && !hdr[3];
}

static int walk_inline(struct xattr_walk *w, uint64_t start, uint64_t end)
{
	struct xattr_loc loc = { .space = w->inode->space, .pos = start };
	uint8_t hdr[EROFS_XATTR_ENTRY_SIZE];
	int ret;

	for (; loc.pos < end; loc.pos += entry_size(hdr)) {
		if (end - loc.pos < EROFS_XATTR_ENTRY_SIZE)
			return xattr_corrupt(w, &loc,
					     "header past the region end");
		ret = erofs_meta_read(w->ctx, loc.space, loc.pos, hdr,
				      sizeof(hdr), w->inode->nid);
		if (ret)
			return ret;
		if (is_padding(hdr))
			continue;
		ret = read_entry(w, &loc, hdr, end);
		if (ret)
			return ret;
		loc.index++;
	}
	return 0;
}

static int walk_shared(struct xattr_walk *w, uint64_t ids, unsigned int count)
{
	const struct erofs_image *img = w->ctx->img;
	bool in_metabox = img->feature_compat &
			  EROFS_FEATURE_COMPAT_SHARED_EA_IN_METABOX;
	struct xattr_loc loc = {
		.space = in_metabox ? EROFS_SPACE_METABOX : EROFS_SPACE_PRIMARY,
		.shared = true,
	};
	uint64_t base = img->xattr_blkaddr << img->blkszbits;
	uint64_t end = erofs_space_size(img, loc.space);
	uint8_t raw[4], hdr[EROFS_XATTR_ENTRY_SIZE];
	uint32_t id;
	int ret;

	for (loc.index = 0; loc.index < count; loc.index++) {
		ret = erofs_meta_read(w->ctx, w->inode->space,
				      ids + 4 * loc.index, raw, sizeof(raw),
				      w->inode->nid);
		if (ret)
			return ret;
		id = erofs_get32(raw);
		loc.pos = base + 4 * (uint64_t)id;
		if (loc.pos > end ||
		    end - loc.pos < EROFS_XATTR_ENTRY_SIZE) {
			loc.space = -1;	/* no image offset to report */
			return xattr_corrupt(w, &loc, "id %u outside its space",
					     id);
		}
		ret = erofs_meta_read(w->ctx, loc.space, loc.pos, hdr,
				      sizeof(hdr), w->inode->nid);
		if (!ret)
			ret = read_entry(w, &loc, hdr, end);
		if (ret)
			return ret;
	}
	return 0;
}

static int read_ibody_header(struct xattr_walk *w, unsigned int *shared_count)
{
	const struct erofs_inode *inode = w->inode;
	uint8_t hdr[EROFS_XATTR_IBODY_HEADER_SIZE];
	uint64_t off = erofs_image_offset(inode->space, inode->xattr_pos);
	int ret;

	if (inode->xattr_isize <= EROFS_XATTR_IBODY_HEADER_SIZE)
		return erofs_error(&w->ctx->err, -EFSCORRUPTED, inode->nid, off,
				   "inline xattr region of %u bytes",
				   inode->xattr_isize);
	ret = erofs_meta_read(w->ctx, inode->space, inode->xattr_pos, hdr,
			      sizeof(hdr), inode->nid);
	if (ret)
		return ret;
	w->filter = erofs_get32(hdr + EROFS_XATTR_H_NAME_FILTER);
	*shared_count = hdr[EROFS_XATTR_H_SHARED_COUNT];
	if (EROFS_XATTR_IBODY_HEADER_SIZE + 4 * *shared_count >
	    inode->xattr_isize)
		return erofs_error(&w->ctx->err, -EFSCORRUPTED, inode->nid, off,
				   "%u shared xattr ids overflow a region of %u bytes",
				   *shared_count, inode->xattr_isize);
	return 0;
}

int erofs_xattr_iterate(struct erofs_ctx *ctx, const struct erofs_inode *inode,
			unsigned int flags, erofs_xattr_fn fn, void *arg)
{
	struct xattr_walk *w;
	unsigned int count = 0;
	uint64_t ids;
	int ret;

	if (!inode->xattr_isize)
		return 0;
	w = malloc(sizeof(*w));
	if (w)
		w->value = malloc(XATTR_VALUE_MAX);
	if (!w || !w->value) {
		free(w);
		return erofs_error(&ctx->err, -ENOMEM, inode->nid,
				   EROFS_NO_OFFSET, "xattr buffers");
	}
	w->ctx = ctx;
	w->inode = inode;
	w->flags = flags;
	w->fn = fn;
	w->arg = arg;
	w->check_filter = ctx->img->xattr_filter;
	ret = read_ibody_header(w, &count);
	if (ret)
		goto out;
	ids = inode->xattr_pos + EROFS_XATTR_IBODY_HEADER_SIZE;
	/* lookups search inline entries first: report them in that order */
	ret = walk_inline(w, ids + 4 * count,
			  inode->xattr_pos + inode->xattr_isize);
	if (!ret)
		ret = walk_shared(w, ids, count);
out:
	free(w->value);
	free(w);
	return ret;
}
