// SPDX-License-Identifier: MIT
/*
 * The data path shared by every layout: map an offset, then read the
 * extent's bytes (zeros, raw copies or decoded pclusters).
 */
#include <string.h>
#include <sys/stat.h>

#include "erofs/data.h"
#include "erofs/decompress.h"
#include "erofs/fragments.h"
#include "erofs/testing.h"
#include "image/image_internal.h"

/*
 * The most one read of a file's pclusters in a row takes in
 * (pcluster_in()): a few hundred KiB of an ordinary file in one call
 * rather than one call each (bench/README.md, "Figures behind the code's
 * constants").
 */
#define READ_RUN_BYTES (256u << 10)

static int check_device_extent(struct erofs_ctx *ctx,
			       const struct erofs_inode *inode,
			       const struct erofs_map *map)
{
	unsigned int dev;
	uint64_t off;

	return erofs_dev_resolve(ctx, map->device, map->pa, map->plen, &dev,
				 &off, inode->nid);
}

int erofs_map(struct erofs_ctx *ctx, const struct erofs_inode *inode,
	      uint64_t pos, struct erofs_map *map)
{
	int ret;

	if (pos >= inode->size)
		return erofs_error(&ctx->err, -EINVAL, inode->nid,
				   EROFS_NO_OFFSET,
				   "map of offset %llu past the file size %llu",
				   (unsigned long long)pos,
				   (unsigned long long)inode->size);
	if (erofs_inode_is_compressed(inode))
		ret = z_erofs_map(ctx, inode, pos, map);
	else
		ret = erofs_map_flat(ctx, inode, pos, map);
	if (ret)
		return ret;
	if (map->la > pos || map->llen > inode->size - map->la ||
	    map->la + map->llen <= pos)
		return erofs_error(&ctx->err, -EFSCORRUPTED, inode->nid,
				   EROFS_NO_OFFSET,
				   "extent %llu+%llu does not hold offset %llu",
				   (unsigned long long)map->la,
				   (unsigned long long)map->llen,
				   (unsigned long long)pos);
	if (map->loc == EROFS_LOC_DEVICE)
		return check_device_extent(ctx, inode, map);
	return 0;
}

/*
 * Only an uncompressed inode's bytes lie one for one where its extents
 * say (format.md, "Flat and chunk-based data"); a position of a
 * compressed inode is one in decoded data, which has no place in the
 * image. Data on device 0 is placed by erofs_dev_resolve(), as reads
 * place it: the unified block space may put it on an extra device.
 */
uint64_t erofs_pos_offset(struct erofs_ctx *ctx,
			  const struct erofs_inode *inode, uint64_t pos)
{
	struct erofs_err saved = ctx->err;
	uint64_t off = EROFS_NO_OFFSET, pa, fileoff;
	struct erofs_map map;
	unsigned int dev;

	if (erofs_inode_is_compressed(inode) ||
	    erofs_map(ctx, inode, pos, &map))
		goto out;
	pa = map.pa + (pos - map.la);
	if (map.loc == EROFS_LOC_META && map.space == EROFS_SPACE_PRIMARY)
		off = pa;
	else if (map.loc == EROFS_LOC_DEVICE &&
		 !erofs_dev_resolve(ctx, map.device, pa, 1, &dev, &fileoff,
				    inode->nid) &&
		 !dev)
		off = fileoff;
out:
	ctx->err = saved;
	return off;
}

static int read_stored(struct erofs_ctx *ctx, const struct erofs_inode *inode,
		       const struct erofs_map *map, uint64_t off, void *out,
		       size_t len)
{
	if (map->loc == EROFS_LOC_META)
		return erofs_meta_read(ctx, map->space, map->pa + off, out, len,
				       inode->nid);
	return erofs_dev_read(ctx, map->device, map->pa + off, out, len,
			      inode->nid);
}

static int read_fragment(struct erofs_ctx *ctx, const struct erofs_inode *inode,
			 const struct erofs_map *map, uint64_t skip, void *out,
			 size_t len)
{
	const struct erofs_image *img = ctx->img;

	if (!img->has_packed ||
	    !erofs_range_ok(map->pa, map->llen, img->packed.size))
		return erofs_error(&ctx->err, -EFSCORRUPTED, inode->nid,
				   EROFS_NO_OFFSET,
				   "fragment %llu+%llu outside the packed inode",
				   (unsigned long long)map->pa,
				   (unsigned long long)map->llen);
	return erofs_frag_read(ctx, inode, map->pa + skip, out, len);
}

static int read_interlaced(struct erofs_ctx *ctx,
			   const struct erofs_inode *inode,
			   const struct erofs_map *map, uint64_t skip,
			   uint8_t *out, size_t len)
{
	uint32_t bs = ctx->img->blksz;
	uint64_t p = ((map->la & (bs - 1)) + skip) & (bs - 1);
	size_t first = bs - p < len ? (size_t)(bs - p) : len;
	int ret;

	if (map->plen != bs)
		return erofs_error(&ctx->err, -EFSCORRUPTED, inode->nid,
				   map->pa,
				   "interlaced pcluster of %llu bytes (one block allowed)",
				   (unsigned long long)map->plen);
	ret = read_stored(ctx, inode, map, p, out, first);
	if (!ret && len > first)
		ret = read_stored(ctx, inode, map, 0, out + first, len - first);
	return ret;
}

/* Does the run read last hold the stored bytes of map? */
static bool in_run(const struct erofs_ctx *ctx, const struct erofs_map *map)
{
	return ctx->run_len && map->loc == EROFS_LOC_DEVICE &&
	       map->device == ctx->run_dev && map->pa >= ctx->run_pa &&
	       map->pa - ctx->run_pa <= ctx->run_len &&
	       map->plen <= ctx->run_len - (map->pa - ctx->run_pa);
}

/*
 * How many bytes from map->pa the pclusters of the file from map on hold
 * while each lies right after the one before on the same device, up to
 * READ_RUN_BYTES, in *len: what one read takes in, where mkfs wrote a
 * file's pclusters in order. Mapping ahead changes nothing the caller
 * sees: damage there only ends the run (the file's own mapping says it),
 * but a failing device is said now. 0 or a negative errno.
 */
static int run_length(struct erofs_ctx *ctx, const struct erofs_inode *inode,
		      const struct erofs_map *map, size_t *len)
{
	uint64_t end = map->pa + map->plen, la = map->la + map->llen;
	struct erofs_err saved = ctx->err;
	struct erofs_map next;
	int ret = 0;

	while (la < inode->size) {
		ret = erofs_map(ctx, inode, la, &next);
		if (ret == -EFSCORRUPTED)
			ctx->err = saved;
		if (ret < 0)
			break;
		if (next.loc != EROFS_LOC_DEVICE ||
		    next.fmt >= Z_EROFS_COMPRESSION_MAX ||
		    next.device != map->device || next.pa != end ||
		    next.plen > READ_RUN_BYTES - (end - map->pa))
			break;
		end += next.plen;
		la = next.la + next.llen;
	}
	*len = (size_t)(end - map->pa);
	return ret == -EFSCORRUPTED || ret > 0 ? 0 : ret;
}

/*
 * The stored bytes of the pcluster of map, in *in: from the run read
 * last, or read with those after it (run_length()). A run that is damaged
 * (a block past the end, or failing its hash tree) is given up for the
 * pcluster alone, so that damage after it is not its own; a failing
 * device is said as it is.
 */
static int pcluster_in(struct erofs_ctx *ctx, const struct erofs_inode *inode,
		       const struct erofs_map *map, const uint8_t **in)
{
	size_t len = (size_t)map->plen;
	struct erofs_err saved = ctx->err;
	int ret;

	if (in_run(ctx, map)) {
		*in = ctx->inbuf + (map->pa - ctx->run_pa);
		return 0;
	}
	ctx->run_len = 0;
	ret = map->loc == EROFS_LOC_DEVICE && len < READ_RUN_BYTES
		      ? run_length(ctx, inode, map, &len)
		      : 0;
	/* z_erofs_check_extent() bounded plen and llen for every mapper */
	if (!ret)
		ret = erofs_ctx_reserve_in(ctx, len);
	if (!ret)
		ret = read_stored(ctx, inode, map, 0, ctx->inbuf, len);
	if (ret == -EFSCORRUPTED && len > map->plen) {
		ctx->err = saved;
		len = (size_t)map->plen;
		ret = read_stored(ctx, inode, map, 0, ctx->inbuf, len);
	}
	if (ret)
		return ret;
	if (map->loc == EROFS_LOC_DEVICE) {
		ctx->run_dev = map->device;
		ctx->run_pa = map->pa;
		ctx->run_len = len;
	}
	*in = ctx->inbuf;
	return 0;
}

static int decode(struct erofs_ctx *ctx, const struct erofs_inode *inode,
		  const struct erofs_map *map, uint8_t *out, size_t want)
{
	struct erofs_decomp_req req = {
		.alg = map->fmt,
		.out = out,
		.outlen = want,
		.nid = inode->nid,
		.pa = map->pa,
	};
	int ret;

	ret = pcluster_in(ctx, inode, map, &req.in);
	if (ret)
		return ret;
	ctx->stats.decoded_bytes += want;
	req.inlen = (size_t)map->plen;
	req.partial = want != map->llen ||
		      !(map->flags & EROFS_MAP_FULL_MAPPED) ||
		      (map->flags & EROFS_MAP_PARTIAL_REF);
	req.zero_padding = ctx->img->feature_incompat &
			   EROFS_FEATURE_INCOMPAT_LZ4_0PADDING;
	return erofs_decompress(ctx, &req);
}

static int read_compressed(struct erofs_ctx *ctx,
			   const struct erofs_inode *inode,
			   const struct erofs_map *map, uint64_t skip,
			   uint8_t *out, size_t len)
{
	int ret;

	if (!skip && len == map->llen)
		return decode(ctx, inode, map, out, len);
	if (ctx->out_nid != inode->nid || ctx->out_la != map->la ||
	    ctx->out_len != map->llen) {
		bool clean = !ctx->err.code;

		ret = erofs_ctx_reserve_out(ctx, (size_t)map->llen);
		if (!ret)
			ret = decode(ctx, inode, map, ctx->outbuf,
				     (size_t)map->llen);
		if (ret && (ret != -EFSCORRUPTED || !clean))
			return ret;
		/*
		 * A corrupt extent is remembered like a decoded one: small
		 * reads of it (files in one packed extent) would otherwise
		 * decode up to 12 MiB again each to fail the same way.
		 */
		ctx->out_nid = inode->nid;
		ctx->out_la = map->la;
		ctx->out_len = map->llen;
		ctx->out_failed = ret;
		ctx->out_err = ctx->err;
	}
	if (ctx->out_failed) {
		if (!ctx->err.code)
			ctx->err = ctx->out_err;
		return ctx->out_err.code;
	}
	memcpy(out, ctx->outbuf + skip, len);
	return 0;
}

/* Is [skip, skip + len) inside the extent? what: "read" or "copy". */
static int check_extent_range(struct erofs_ctx *ctx,
			      const struct erofs_inode *inode,
			      const struct erofs_map *map, uint64_t skip,
			      uint64_t len, const char *what)
{
	if (skip > map->llen || len > map->llen - skip)
		return erofs_error(&ctx->err, -EINVAL, inode->nid,
				   EROFS_NO_OFFSET,
				   "%s of %llu bytes at %llu outside the extent",
				   what, (unsigned long long)len,
				   (unsigned long long)skip);
	return 0;
}

/* A raw extent's bytes are its stored bytes: no more of them. */
static int check_raw_extent(struct erofs_ctx *ctx,
			    const struct erofs_inode *inode,
			    const struct erofs_map *map)
{
	if (map->llen > map->plen)
		return erofs_error(&ctx->err, -EFSCORRUPTED, inode->nid,
				   map->pa,
				   "raw extent of %llu bytes in %llu stored bytes",
				   (unsigned long long)map->llen,
				   (unsigned long long)map->plen);
	return 0;
}

int erofs_extent_read(struct erofs_ctx *ctx, const struct erofs_inode *inode,
		      const struct erofs_map *map, uint64_t skip, void *out,
		      size_t len)
{
	int ret = check_extent_range(ctx, inode, map, skip, len, "read");

	if (ret)
		return ret;
	if (map->loc == EROFS_LOC_HOLE) {
		memset(out, 0, len);
		return 0;
	}
	if (map->loc == EROFS_LOC_FRAGMENT)
		return read_fragment(ctx, inode, map, skip, out, len);
	if (map->fmt < Z_EROFS_COMPRESSION_MAX)
		return read_compressed(ctx, inode, map, skip, out, len);
	ret = check_raw_extent(ctx, inode, map);
	if (ret)
		return ret;
	if (map->fmt == EROFS_FMT_INTERLACED)
		return read_interlaced(ctx, inode, map, skip, out, len);
	return read_stored(ctx, inode, map, skip, out, len);
}

int erofs_extent_read_nowait(struct erofs_ctx *ctx,
			     const struct erofs_inode *inode,
			     const struct erofs_map *map, uint64_t skip,
			     void *out, size_t len)
{
	int ret;

	ctx->frag_nowait = true;
	ret = erofs_extent_read(ctx, inode, map, skip, out, len);
	ctx->frag_nowait = false;
	return ret;
}

int erofs_extent_copy(struct erofs_ctx *ctx, const struct erofs_inode *inode,
		      const struct erofs_map *map, uint64_t skip, uint64_t len,
		      int fd, uint64_t off)
{
	int ret = check_extent_range(ctx, inode, map, skip, len, "copy");

	if (ret)
		return ret;
	if (!erofs_extent_copyable(map))
		return erofs_error(&ctx->err, -EINVAL, inode->nid,
				   EROFS_NO_OFFSET,
				   "copy of an extent not stored raw on a device");
	ret = check_raw_extent(ctx, inode, map);
	if (ret)
		return ret;
	return erofs_dev_copy(ctx, map->device, map->pa + skip, len, fd, off,
			      inode->nid);
}

ssize_t erofs_pread(struct erofs_ctx *ctx, const struct erofs_inode *inode,
		    void *buf, size_t len, uint64_t off)
{
	uint8_t *out = buf;
	size_t done = 0;

	if (!S_ISREG(inode->mode) && !S_ISDIR(inode->mode) &&
	    !S_ISLNK(inode->mode))
		return erofs_error(&ctx->err, -EINVAL, inode->nid,
				   EROFS_NO_OFFSET,
				   "read of a file without data");
	if (off >= inode->size)
		return 0;
	if (len > inode->size - off)
		len = (size_t)(inode->size - off);
	while (done < len) {
		uint64_t pos = off + done;
		struct erofs_map map;
		uint64_t skip, n;
		int ret;

		ret = erofs_map(ctx, inode, pos, &map);
		if (ret)
			return ret;
		skip = pos - map.la;
		n = map.llen - skip;
		if (n > len - done)
			n = len - done;
		ret = erofs_extent_read(ctx, inode, &map, skip, out + done,
					(size_t)n);
		if (ret)
			return ret;
		done += (size_t)n;
	}
	return (ssize_t)done;
}
