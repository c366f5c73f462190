// SPDX-License-Identifier: MIT
/* Decoding and validating compact and extended inodes. */
#include <string.h>
#include <sys/stat.h>

#include "erofs/data.h"
#include "image/image_internal.h"

#define EROFS_SYMLINK_MAX 4095

#define INODE_CORRUPT(ctx, inode, off, ...)                                  \
	erofs_error(&(ctx)->err, -EFSCORRUPTED, (inode)->nid, off, __VA_ARGS__)

unsigned int erofs_mode_to_ftype(uint16_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG:
		return EROFS_FT_REG_FILE;
	case S_IFDIR:
		return EROFS_FT_DIR;
	case S_IFCHR:
		return EROFS_FT_CHRDEV;
	case S_IFBLK:
		return EROFS_FT_BLKDEV;
	case S_IFIFO:
		return EROFS_FT_FIFO;
	case S_IFSOCK:
		return EROFS_FT_SOCK;
	case S_IFLNK:
		return EROFS_FT_SYMLINK;
	}
	return EROFS_FT_UNKNOWN;
}

static int locate(struct erofs_ctx *ctx, uint64_t nid, struct erofs_inode *inode)
{
	const struct erofs_image *img = ctx->img;
	uint64_t slot = nid & ~EROFS_NID_METABOX_BIT;
	uint64_t base = 0;

	inode->nid = nid;
	inode->space = EROFS_SPACE_PRIMARY;
	if (nid & EROFS_NID_METABOX_BIT) {
		if (!img->has_metabox)
			return INODE_CORRUPT(ctx, inode, EROFS_NO_OFFSET,
					     "nid has the metabox bit but the image has no metabox");
		inode->space = EROFS_SPACE_METABOX;
	} else {
		base = img->meta_blkaddr << img->blkszbits;
	}
	if (slot > (UINT64_MAX >> EROFS_ISLOTBITS) ||
	    (slot << EROFS_ISLOTBITS) > UINT64_MAX - base)
		return INODE_CORRUPT(ctx, inode, EROFS_NO_OFFSET,
				     "nid out of range");
	inode->addr = base + (slot << EROFS_ISLOTBITS);
	if (inode->space == EROFS_SPACE_PRIMARY &&
	    inode->addr < EROFS_SUPER_OFFSET + img->sb_size &&
	    inode->addr + EROFS_INODE_COMPACT_SIZE > EROFS_SUPER_OFFSET)
		return INODE_CORRUPT(ctx, inode, inode->addr,
				     "inode overlaps the superblock");
	return 0;
}

/*
 * False when the compact inode's seconds past the superblock's epoch
 * (docs/format.md, "Times") make a time no 64-bit count of seconds holds.
 */
static bool decode_compact(const struct erofs_image *img, const uint8_t *raw,
			   struct erofs_inode *inode, uint16_t *hi)
{
	bool nlink1 = inode->format & (1u << EROFS_I_NLINK_1_BIT);
	uint16_t nb = erofs_get16(raw + EROFS_IC_NB);
	uint32_t secs = erofs_get32(raw + EROFS_IC_MTIME);
	bool time_ok;

	inode->inode_size = EROFS_INODE_COMPACT_SIZE;
	inode->xattr_icount = erofs_get16(raw + EROFS_IC_XATTR_ICOUNT);
	inode->mode = erofs_get16(raw + EROFS_IC_MODE);
	inode->size = erofs_get32(raw + EROFS_IC_SIZE);
	time_ok = !__builtin_add_overflow(img->epoch, (int64_t)secs,
					  &inode->mtime);
	inode->mtime_nsec = img->fixed_nsec;
	inode->ino = erofs_get32(raw + EROFS_IC_INO);
	inode->uid = erofs_get16(raw + EROFS_IC_UID);
	inode->gid = erofs_get16(raw + EROFS_IC_GID);
	*hi = 0;
	if (S_ISDIR(inode->mode) || !nlink1) {
		inode->nlink = nb;
	} else {
		inode->nlink = 1;
		*hi = nb;
	}
	return time_ok;
}

static void decode_extended(const uint8_t *raw, struct erofs_inode *inode,
			    uint16_t *hi)
{
	inode->inode_size = EROFS_INODE_EXTENDED_SIZE;
	inode->xattr_icount = erofs_get16(raw + EROFS_IE_XATTR_ICOUNT);
	inode->mode = erofs_get16(raw + EROFS_IE_MODE);
	inode->size = erofs_get64(raw + EROFS_IE_SIZE);
	inode->ino = erofs_get32(raw + EROFS_IE_INO);
	inode->uid = erofs_get32(raw + EROFS_IE_UID);
	inode->gid = erofs_get32(raw + EROFS_IE_GID);
	inode->mtime = (int64_t)erofs_get64(raw + EROFS_IE_MTIME);
	inode->mtime_nsec = erofs_get32(raw + EROFS_IE_MTIME_NSEC);
	inode->nlink = erofs_get32(raw + EROFS_IE_NLINK);
	*hi = erofs_get16(raw + EROFS_IE_NB);
}

static int check_type(struct erofs_ctx *ctx, struct erofs_inode *inode)
{
	unsigned int layout = inode->layout;

	switch (inode->mode & S_IFMT) {
	case S_IFREG:
		return 0;
	case S_IFDIR:
		if (!inode->size)
			return INODE_CORRUPT(ctx, inode, inode->addr,
					     "directory of size 0");
		if (layout == EROFS_INODE_CHUNK_BASED)
			return INODE_CORRUPT(ctx, inode, inode->addr,
					     "chunk-based directory");
		return 0;
	case S_IFLNK:
		if (!inode->size || inode->size > EROFS_SYMLINK_MAX)
			return INODE_CORRUPT(ctx, inode, inode->addr,
					     "symlink target of %llu bytes (1..%u allowed)",
					     (unsigned long long)inode->size,
					     EROFS_SYMLINK_MAX);
		if (layout == EROFS_INODE_CHUNK_BASED)
			return INODE_CORRUPT(ctx, inode, inode->addr,
					     "chunk-based symlink");
		return 0;
	case S_IFCHR:
	case S_IFBLK:
	case S_IFIFO:
	case S_IFSOCK:
		if (inode->size)
			return INODE_CORRUPT(ctx, inode, inode->addr,
					     "special file of size %llu",
					     (unsigned long long)inode->size);
		if (layout != EROFS_INODE_FLAT_PLAIN)
			return INODE_CORRUPT(ctx, inode, inode->addr,
					     "special file with data layout %u",
					     layout);
		return 0;
	}
	return INODE_CORRUPT(ctx, inode, inode->addr,
			     "unknown file type in mode 0%o", inode->mode);
}

static int check_fields(struct erofs_ctx *ctx, struct erofs_inode *inode,
			uint16_t hi)
{
	const struct erofs_image *img = ctx->img;

	if (inode->extended && inode->size >> 63)
		return INODE_CORRUPT(ctx, inode, inode->addr + EROFS_IE_SIZE,
				     "negative size");
	if (inode->mtime_nsec >= 1000000000u)
		return INODE_CORRUPT(ctx, inode,
				     inode->addr + EROFS_IE_MTIME_NSEC,
				     "mtime nanoseconds %u out of range",
				     inode->mtime_nsec);
	if (hi && !(img->feature_incompat & EROFS_FEATURE_INCOMPAT_48BIT) &&
	    inode->layout != EROFS_INODE_CHUNK_BASED)
		return INODE_CORRUPT(ctx, inode, inode->addr + EROFS_IC_NB,
				     "48-bit address bits set without the 48bit feature");
	if (inode->xattr_icount == 1)
		return INODE_CORRUPT(ctx, inode,
				     inode->addr + EROFS_IC_XATTR_ICOUNT,
				     "xattr region of 12 bytes (header only)");
	return check_type(ctx, inode);
}

static int setup_flat(struct erofs_ctx *ctx, struct erofs_inode *inode,
		      uint32_t u, uint16_t hi)
{
	const struct erofs_image *img = ctx->img;
	bool wide = inode->extended ||
		    (inode->format & (1u << EROFS_I_NLINK_1_BIT));
	uint64_t nullmark = wide ? (1ULL << 48) - 1 : UINT32_MAX;
	uint64_t nblocks = erofs_div_round_up(inode->size, img->blkszbits);
	uint64_t outside = nblocks;

	inode->startblk = (uint64_t)u | (uint64_t)hi << 32;
	inode->startblk_null = inode->startblk == nullmark;
	if (inode->layout == EROFS_INODE_FLAT_INLINE && nblocks) {
		uint64_t tail = inode->size - ((nblocks - 1) << img->blkszbits);

		outside = nblocks - 1;
		if ((inode->meta_end & (img->blksz - 1)) + tail > img->blksz)
			return INODE_CORRUPT(ctx, inode, inode->meta_end,
					     "inline data of %llu bytes crosses a block boundary",
					     (unsigned long long)tail);
		if (!erofs_range_ok(inode->meta_end, tail,
				    erofs_space_size(img, inode->space)))
			return INODE_CORRUPT(ctx, inode, inode->meta_end,
					     "inline data past the end of the image");
	}
	if (outside && inode->startblk_null)
		return INODE_CORRUPT(ctx, inode, inode->addr + EROFS_IC_U,
				     "file data of %llu blocks at the null block address",
				     (unsigned long long)outside);
	return 0;
}

static int setup_chunks(struct erofs_ctx *ctx, struct erofs_inode *inode,
			uint32_t u)
{
	const struct erofs_image *img = ctx->img;
	unsigned int unit, bits;
	uint64_t nchunks;

	inode->chunkformat = (uint16_t)u;
	if ((u & 0xFFFF) & ~EROFS_CHUNK_FORMAT_ALL || u >> 16)
		return INODE_CORRUPT(ctx, inode, inode->addr + EROFS_IC_U,
				     "unknown chunk format bits 0x%x", u);
	bits = img->blkszbits + (u & EROFS_CHUNK_FORMAT_BLKBITS_MASK);
	if (bits > 48)
		return INODE_CORRUPT(ctx, inode, inode->addr + EROFS_IC_U,
				     "chunk size 2^%u too large", bits);
	inode->chunkbits = (uint8_t)bits;
	unit = (u & EROFS_CHUNK_FORMAT_INDEXES) ? EROFS_CHUNK_INDEX_SIZE :
						  EROFS_BLOCK_MAP_ENTRY_SIZE;
	inode->chunk_pos = erofs_round_up(inode->meta_end, unit);
	nchunks = erofs_div_round_up(inode->size, bits);
	if (nchunks > UINT64_MAX / unit ||
	    !erofs_range_ok(inode->chunk_pos, nchunks * unit,
			    erofs_space_size(img, inode->space)))
		return INODE_CORRUPT(ctx, inode, inode->chunk_pos,
				     "chunk array of %llu entries past the end of the image",
				     (unsigned long long)nchunks);
	return 0;
}

static int setup_layout(struct erofs_ctx *ctx, struct erofs_inode *inode,
			uint32_t u, uint16_t hi)
{
	switch (inode->layout) {
	case EROFS_INODE_FLAT_PLAIN:
	case EROFS_INODE_FLAT_INLINE:
		if (S_ISCHR(inode->mode) || S_ISBLK(inode->mode)) {
			inode->rdev = u;
			return 0;
		}
		return setup_flat(ctx, inode, u, hi);
	case EROFS_INODE_CHUNK_BASED:
		return setup_chunks(ctx, inode, u);
	default:
		inode->compressed_blocks = (uint64_t)u | (uint64_t)hi << 32;
		return z_erofs_init_inode(ctx, inode);
	}
}

int erofs_read_inode(struct erofs_ctx *ctx, uint64_t nid,
		     struct erofs_inode *inode)
{
	const struct erofs_image *img = ctx->img;
	uint8_t raw[EROFS_INODE_EXTENDED_SIZE];
	uint16_t hi;
	int ret;

	memset(inode, 0, sizeof(*inode));
	ret = locate(ctx, nid, inode);
	if (!ret)
		ret = erofs_meta_read(ctx, inode->space, inode->addr, raw,
				      EROFS_INODE_COMPACT_SIZE, nid);
	if (ret)
		return ret;
	inode->format = erofs_get16(raw);
	if (inode->format & ~EROFS_I_ALL)
		return INODE_CORRUPT(ctx, inode, inode->addr,
				     "unknown i_format bits 0x%x", inode->format);
	inode->layout = (inode->format >> EROFS_I_DATALAYOUT_SHIFT) &
			EROFS_I_DATALAYOUT_MASK;
	if (inode->layout >= EROFS_INODE_LAYOUT_MAX)
		return INODE_CORRUPT(ctx, inode, inode->addr,
				     "unknown data layout %u", inode->layout);
	inode->extended = inode->format & (1u << EROFS_I_VERSION_BIT);
	if (inode->extended) {
		ret = erofs_meta_read(ctx, inode->space,
				      inode->addr + EROFS_INODE_COMPACT_SIZE,
				      raw + EROFS_INODE_COMPACT_SIZE,
				      EROFS_INODE_COMPACT_SIZE, nid);
		if (ret)
			return ret;
		decode_extended(raw, inode, &hi);
	} else if (!decode_compact(img, raw, inode, &hi)) {
		return INODE_CORRUPT(ctx, inode, inode->addr + EROFS_IC_MTIME,
				     "mtime %u seconds past the superblock's epoch %lld overflows",
				     erofs_get32(raw + EROFS_IC_MTIME),
				     (long long)img->epoch);
	}
	inode->dot_omitted = S_ISDIR(inode->mode) &&
			     (inode->format & (1u << EROFS_I_DOT_OMITTED_BIT));
	ret = check_fields(ctx, inode, hi);
	if (ret)
		return ret;
	inode->xattr_isize = inode->xattr_icount ?
		EROFS_XATTR_IBODY_HEADER_SIZE + 4 * (inode->xattr_icount - 1) : 0;
	inode->xattr_pos = inode->addr + inode->inode_size;
	inode->meta_end = inode->xattr_pos + inode->xattr_isize;
	if (!erofs_range_ok(inode->addr, inode->meta_end - inode->addr,
			    erofs_space_size(img, inode->space)))
		return INODE_CORRUPT(ctx, inode, inode->addr,
				     "inode and xattrs run past the end of the image");
	return setup_layout(ctx, inode, erofs_get32(raw + EROFS_IC_U), hi);
}
