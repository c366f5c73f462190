// SPDX-License-Identifier: MIT
/* Mapping of uncompressed files: flat, inline-tail and chunk-based. */
#include <string.h>

#include "erofs/data.h"
#include "image/image_internal.h"

/* Physically contiguous chunks merged into one extent, at most. */
#define EROFS_CHUNK_MERGE_MAX 256

static void map_device(struct erofs_map *map, uint64_t la, uint64_t llen,
		       uint64_t pa, uint64_t plen, unsigned int device)
{
	map->la = la;
	map->llen = llen;
	map->pa = pa;
	map->plen = plen;
	map->device = (uint16_t)device;
	map->loc = EROFS_LOC_DEVICE;
	map->fmt = EROFS_FMT_SHIFTED;
	map->flags = EROFS_MAP_FULL_MAPPED;
}

static void map_hole(struct erofs_map *map, uint64_t la, uint64_t llen)
{
	memset(map, 0, sizeof(*map));
	map->la = la;
	map->llen = llen;
	map->loc = EROFS_LOC_HOLE;
	map->flags = EROFS_MAP_FULL_MAPPED;
}

static int map_flat(struct erofs_ctx *ctx, const struct erofs_inode *inode,
		    uint64_t pos, struct erofs_map *map)
{
	const struct erofs_image *img = ctx->img;
	uint64_t nblocks = erofs_div_round_up(inode->size, img->blkszbits);
	uint64_t outside = nblocks;
	uint64_t tailstart;

	if (inode->layout == EROFS_INODE_FLAT_INLINE)
		outside--;
	tailstart = outside << img->blkszbits;
	if (pos >= tailstart) {
		memset(map, 0, sizeof(*map));
		map->la = tailstart;
		map->llen = inode->size - tailstart;
		map->pa = inode->meta_end;
		map->plen = map->llen;
		map->loc = EROFS_LOC_META;
		map->fmt = EROFS_FMT_SHIFTED;
		map->space = (uint8_t)inode->space;
		map->flags = EROFS_MAP_FULL_MAPPED;
		return 0;
	}
	if (inode->startblk_null) {
		map_hole(map, 0, tailstart < inode->size ? tailstart : inode->size);
		return 0;
	}
	if (inode->startblk > (UINT64_MAX >> img->blkszbits))
		return erofs_error(&ctx->err, -EFSCORRUPTED, inode->nid,
				   inode->addr, "start block %llu out of range",
				   (unsigned long long)inode->startblk);
	map_device(map, 0, tailstart < inode->size ? tailstart : inode->size,
		   inode->startblk << img->blkszbits, tailstart, 0);
	return 0;
}

struct chunk {
	bool hole;
	unsigned int device;
	uint64_t blk;
};

static int read_chunk(struct erofs_ctx *ctx, const struct erofs_inode *inode,
		      uint64_t idx, struct chunk *c)
{
	const struct erofs_image *img = ctx->img;
	bool indexes = inode->chunkformat & EROFS_CHUNK_FORMAT_INDEXES;
	unsigned int unit = indexes ? EROFS_CHUNK_INDEX_SIZE :
				      EROFS_BLOCK_MAP_ENTRY_SIZE;
	uint64_t pos = inode->chunk_pos + idx * unit;
	uint8_t raw[EROFS_CHUNK_INDEX_SIZE];
	int ret;

	ret = erofs_meta_read(ctx, inode->space, pos, raw, unit, inode->nid);
	if (ret)
		return ret;
	c->device = 0;
	if (!indexes) {
		c->blk = erofs_get32(raw);
		c->hole = c->blk == UINT32_MAX;
		return 0;
	}
	c->blk = erofs_get32(raw + EROFS_CHUNK_IDX_STARTBLK_LO);
	if (inode->chunkformat & EROFS_CHUNK_FORMAT_48BIT) {
		c->blk |= (uint64_t)erofs_get16(raw + EROFS_CHUNK_IDX_STARTBLK_HI)
			  << 32;
		c->hole = c->blk == (1ULL << 48) - 1;
	} else {
		c->hole = c->blk == UINT32_MAX;
	}
	c->device = erofs_get16(raw + EROFS_CHUNK_IDX_DEVICE_ID) &
		    img->device_id_mask;
	if (c->device > img->extra_devices)
		return erofs_error(&ctx->err, -EFSCORRUPTED, inode->nid, pos,
				   "chunk %llu on device %u, the image has %u extra devices",
				   (unsigned long long)idx, c->device,
				   img->extra_devices);
	return 0;
}

static bool chunk_follows(const struct chunk *a, const struct chunk *b,
			  uint64_t chunkblks)
{
	if (a->hole || b->hole)
		return a->hole && b->hole;
	return a->device == b->device && a->blk + chunkblks == b->blk;
}

static int map_chunks(struct erofs_ctx *ctx, const struct erofs_inode *inode,
		      uint64_t pos, struct erofs_map *map)
{
	const struct erofs_image *img = ctx->img;
	uint64_t chunkblks = 1ULL << (inode->chunkbits - img->blkszbits);
	uint64_t idx = pos >> inode->chunkbits;
	uint64_t nchunks = erofs_div_round_up(inode->size, inode->chunkbits);
	uint64_t count = 1, la = idx << inode->chunkbits, end;
	struct chunk first, prev, next;
	int ret;

	ret = read_chunk(ctx, inode, idx, &first);
	if (ret)
		return ret;
	prev = first;
	while (idx + count < nchunks && count < EROFS_CHUNK_MERGE_MAX) {
		ret = read_chunk(ctx, inode, idx + count, &next);
		if (ret)
			return ret;
		if (!chunk_follows(&prev, &next, chunkblks))
			break;
		prev = next;
		count++;
	}
	end = (idx + count) << inode->chunkbits;
	if (end > inode->size || end < la)
		end = inode->size;
	if (first.hole) {
		map_hole(map, la, end - la);
		return 0;
	}
	if (first.blk > (UINT64_MAX >> img->blkszbits))
		return erofs_error(&ctx->err, -EFSCORRUPTED, inode->nid,
				   EROFS_NO_OFFSET, "chunk block %llu out of range",
				   (unsigned long long)first.blk);
	map_device(map, la, end - la, first.blk << img->blkszbits,
		   erofs_round_up(end - la, img->blksz), first.device);
	return 0;
}

int erofs_map_flat(struct erofs_ctx *ctx, const struct erofs_inode *inode,
		   uint64_t pos, struct erofs_map *map)
{
	if (inode->layout == EROFS_INODE_CHUNK_BASED)
		return map_chunks(ctx, inode, pos, map);
	return map_flat(ctx, inode, pos, map);
}
