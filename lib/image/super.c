// SPDX-License-Identifier: MIT
/*
 * Opening an image: superblock, checksum, feature gates, compression
 * records, device table, special inodes and long xattr prefixes.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "erofs/decompress.h"
#include "erofs/fragments.h"
#include "erofs/hash.h"
#include "erofs/source.h"
#include "erofs/testing.h"
#include "image/image_internal.h"

#define SB_CORRUPT(err, off, ...) \
	erofs_error(err, -EFSCORRUPTED, EROFS_NO_NID, off, __VA_ARGS__)

static const char *const incompat_names[] = {
	"lz4_0padding", "compr_cfgs", "chunked_file", "device_table",
	"ztailpacking", "fragments", "xattr_prefixes", "48bit", "metabox",
};

static const char *const compat_names[] = {
	"sb_csum", "mtime", "xattr_filter", "shared_ea_in_metabox",
	"plain_xattr_pfx", "ishare_xattrs",
};

static int append_names(char *buf, size_t len, size_t *pos, uint32_t bits,
			const char *const *names, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < 32; i++) {
		int w;

		if (!(bits & (1u << i)))
			continue;
		if (i < n)
			w = snprintf(buf + *pos, len - *pos, "%s%s",
				     *pos ? " " : "", names[i]);
		else
			w = snprintf(buf + *pos, len - *pos, "%sbit%u",
				     *pos ? " " : "", i);
		if (w < 0 || (size_t)w >= len - *pos)
			return -ENOSPC;
		*pos += (size_t)w;
	}
	return 0;
}

int erofs_feature_names(const struct erofs_image *img, char *buf, size_t len)
{
	size_t pos = 0;
	int ret;

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	ret = append_names(buf, len, &pos, img->feature_compat, compat_names,
			   sizeof(compat_names) / sizeof(compat_names[0]));
	if (!ret)
		ret = append_names(buf, len, &pos, img->feature_incompat,
				   incompat_names,
				   sizeof(incompat_names) /
					   sizeof(incompat_names[0]));
	return ret;
}

static int check_incompat(struct erofs_image *img, struct erofs_err *err)
{
	uint32_t unknown = img->feature_incompat & ~EROFS_ALL_FEATURE_INCOMPAT;

	if (!unknown)
		return 0;
	return erofs_error(err, -EOPNOTSUPP, EROFS_NO_NID,
			   EROFS_SUPER_OFFSET + EROFS_SB_FEATURE_INCOMPAT,
			   "unknown incompatible feature bits 0x%x (this reader knows 0x%x)",
			   unknown, EROFS_ALL_FEATURE_INCOMPAT);
}

/*
 * Damage a salvaging open goes on past (erofs_open_opts.salvage): kept in
 * the image for the caller to report, 0; else the open fails with it.
 */
static int sb_damage(struct erofs_image *img, bool salvage,
		     struct erofs_err *err, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int sb_damage(struct erofs_image *img, bool salvage,
		     struct erofs_err *err, uint64_t off, const char *fmt, ...)
{
	struct erofs_err *rec = err;
	va_list ap;
	int ret;

	if (salvage && img->ndamage < EROFS_SB_DAMAGE_MAX) {
		rec = &img->damage[img->ndamage++];
		erofs_err_clear(rec);
	}
	va_start(ap, fmt);
	ret = erofs_errorv(rec, -EFSCORRUPTED, EROFS_NO_NID, off, NULL, fmt,
			   ap);
	va_end(ap);
	return rec == err ? ret : 0;
}

static int verify_checksum(struct erofs_image *img, uint8_t *blk, size_t len,
			   bool salvage, struct erofs_err *err)
{
	uint32_t crc;

	erofs_put32(blk + EROFS_SB_CHECKSUM, 0);
	crc = erofs_crc32c(~0u, blk, len);
	erofs_put32(blk + EROFS_SB_CHECKSUM, img->checksum);
	if (crc != img->checksum)
		return sb_damage(
			img, salvage, err,
			EROFS_SUPER_OFFSET + EROFS_SB_CHECKSUM,
			"superblock checksum mismatch: stored 0x%08x, computed 0x%08x",
			img->checksum, crc);
	img->sbcrc_checked = true;
	return 0;
}

static void parse_fields(struct erofs_image *img, const uint8_t *sb)
{
	bool is48 = img->feature_incompat & EROFS_FEATURE_INCOMPAT_48BIT;
	uint64_t rootnid_8b = is48 ? erofs_get64(sb + EROFS_SB_ROOTNID_8B) : 0;

	img->blocks = erofs_get32(sb + EROFS_SB_BLOCKS_LO);
	if (rootnid_8b) {
		img->root_nid = rootnid_8b;
		img->blocks |= (uint64_t)erofs_get16(sb + EROFS_SB_ROOTNID_2B)
			       << 32;
	} else {
		img->root_nid = erofs_get16(sb + EROFS_SB_ROOTNID_2B);
	}
	img->inos = erofs_get64(sb + EROFS_SB_INOS);
	img->epoch = (int64_t)erofs_get64(sb + EROFS_SB_EPOCH);
	img->fixed_nsec = erofs_get32(sb + EROFS_SB_FIXED_NSEC);
	img->meta_blkaddr = erofs_get32(sb + EROFS_SB_META_BLKADDR);
	img->xattr_blkaddr = erofs_get32(sb + EROFS_SB_XATTR_BLKADDR);
	memcpy(img->uuid, sb + EROFS_SB_UUID, sizeof(img->uuid));
	memcpy(img->volume_name, sb + EROFS_SB_VOLUME_NAME, 16);
	img->volume_name[16] = '\0';
	img->xattr_prefix_count = sb[EROFS_SB_XATTR_PREFIX_COUNT];
	img->xattr_prefix_start = erofs_get32(sb + EROFS_SB_XATTR_PREFIX_START);
	img->packed_nid = erofs_get64(sb + EROFS_SB_PACKED_NID);
	img->build_time = erofs_get32(sb + EROFS_SB_BUILD_TIME);
	if (img->sb_size > EROFS_SB_METABOX_NID)
		img->metabox_nid = erofs_get64(sb + EROFS_SB_METABOX_NID);
	img->xattr_filter =
		(img->feature_compat & EROFS_FEATURE_COMPAT_XATTR_FILTER) &&
		!sb[EROFS_SB_XATTR_FILTER_RESERVED];
	img->ishare_prefix_id = -1;
	if (img->feature_compat & EROFS_FEATURE_COMPAT_ISHARE_XATTRS)
		img->ishare_prefix_id = sb[EROFS_SB_ISHARE_PREFIX_ID];
}

static int check_fields(struct erofs_image *img, const uint8_t *sb,
			bool salvage, struct erofs_err *err)
{
	uint64_t need;
	int ret;

	if (sb[EROFS_SB_DIRBLKBITS])
		return SB_CORRUPT(err, EROFS_SUPER_OFFSET + EROFS_SB_DIRBLKBITS,
				  "superblock dirblkbits is %u, must be 0",
				  sb[EROFS_SB_DIRBLKBITS]);
	if (img->feature_incompat & EROFS_FEATURE_INCOMPAT_METABOX) {
		if (img->sb_size <= EROFS_SB_METABOX_NID)
			return SB_CORRUPT(err, EROFS_SUPER_OFFSET + EROFS_SB_EXTSLOTS,
					  "metabox feature without the superblock extension slot");
		if (img->metabox_nid & EROFS_NID_METABOX_BIT)
			return SB_CORRUPT(err, EROFS_SUPER_OFFSET + EROFS_SB_METABOX_NID,
					  "metabox nid %llu points into the metabox",
					  (unsigned long long)img->metabox_nid);
	}
	if (img->packed_nid & EROFS_NID_METABOX_BIT)
		return SB_CORRUPT(err, EROFS_SUPER_OFFSET + EROFS_SB_PACKED_NID,
				  "packed nid %llu has the metabox bit",
				  (unsigned long long)img->packed_nid);
	if ((img->root_nid & EROFS_NID_METABOX_BIT) &&
	    !(img->feature_incompat & EROFS_FEATURE_INCOMPAT_METABOX))
		return SB_CORRUPT(err, EROFS_SUPER_OFFSET + EROFS_SB_ROOTNID_8B,
				  "root nid in the metabox without the metabox feature");
	if (img->blocks > (UINT64_MAX >> img->blkszbits))
		return SB_CORRUPT(err, EROFS_SUPER_OFFSET + EROFS_SB_BLOCKS_LO,
				  "block count %llu overflows",
				  (unsigned long long)img->blocks);
	need = img->blocks << img->blkszbits;
	if (need > img->devs[0].size) {
		ret = sb_damage(
			img, salvage, err,
			EROFS_SUPER_OFFSET + EROFS_SB_BLOCKS_LO,
			"image truncated: superblock says %llu blocks (%llu bytes), the image has %llu bytes",
			(unsigned long long)img->blocks,
			(unsigned long long)need,
			(unsigned long long)img->devs[0].size);
		if (ret)
			return ret;
		/*
		 * Salvaging: extents are placed in the size the image was
		 * made with, and a read past the end of its source fails
		 * there, by itself (erofs_source_read()).
		 */
		img->devs[0].size = need;
	}
	if (img->xattr_prefix_count > EROFS_XATTR_PREFIX_MAX)
		return SB_CORRUPT(err,
				  EROFS_SUPER_OFFSET + EROFS_SB_XATTR_PREFIX_COUNT,
				  "%u long xattr prefixes, at most %u allowed",
				  img->xattr_prefix_count, EROFS_XATTR_PREFIX_MAX);
	if (img->ishare_prefix_id >= 0 &&
	    (unsigned int)img->ishare_prefix_id >= img->xattr_prefix_count)
		return SB_CORRUPT(err, EROFS_SUPER_OFFSET + EROFS_SB_ISHARE_PREFIX_ID,
				  "image-share prefix %d is not below the prefix count %u",
				  img->ishare_prefix_id, img->xattr_prefix_count);
	return 0;
}

static int read_superblock(struct erofs_image *img,
			   const struct erofs_open_opts *opts,
			   struct erofs_err *err)
{
	uint8_t head[EROFS_SUPER_OFFSET + EROFS_SB_BASE_SIZE];
	const uint8_t *sb = head + EROFS_SUPER_OFFSET;
	uint8_t *blk;
	size_t blklen;
	int ret;

	if (img->devs[0].size < sizeof(head))
		return SB_CORRUPT(err, 0,
				  "image is %llu bytes, too small to hold a superblock",
				  (unsigned long long)img->devs[0].size);
	ret = erofs_io_pread(&img->devs[0], head, sizeof(head), 0, err);
	if (ret)
		return ret;
	if (erofs_get32(sb + EROFS_SB_MAGIC) != EROFS_SUPER_MAGIC)
		return SB_CORRUPT(err, EROFS_SUPER_OFFSET,
				  "no EROFS superblock: magic 0x%08x, expected 0x%08x",
				  erofs_get32(sb + EROFS_SB_MAGIC),
				  EROFS_SUPER_MAGIC);
	img->blkszbits = sb[EROFS_SB_BLKSZBITS];
	if (img->blkszbits < EROFS_MIN_BLKSZBITS ||
	    img->blkszbits > EROFS_MAX_BLKSZBITS)
		return SB_CORRUPT(err, EROFS_SUPER_OFFSET + EROFS_SB_BLKSZBITS,
				  "block size bits %u outside 9..16",
				  img->blkszbits);
	img->blksz = 1u << img->blkszbits;
	img->feature_compat = erofs_get32(sb + EROFS_SB_FEATURE_COMPAT);
	img->feature_incompat = erofs_get32(sb + EROFS_SB_FEATURE_INCOMPAT);
	img->checksum = erofs_get32(sb + EROFS_SB_CHECKSUM);
	ret = check_incompat(img, err);
	if (ret)
		return ret;

	blklen = img->blksz > EROFS_SUPER_OFFSET ?
			 img->blksz - EROFS_SUPER_OFFSET :
			 img->blksz;
	img->sb_size = EROFS_SB_BASE_SIZE +
		       EROFS_SB_EXTSLOT_SIZE * sb[EROFS_SB_EXTSLOTS];
	if (img->sb_size > blklen || img->sb_size > EROFS_SB_MAX_SIZE)
		return SB_CORRUPT(err, EROFS_SUPER_OFFSET + EROFS_SB_EXTSLOTS,
				  "superblock of %u bytes does not fit its block",
				  img->sb_size);
	if (img->devs[0].size < EROFS_SUPER_OFFSET + blklen)
		return SB_CORRUPT(err, EROFS_SUPER_OFFSET,
				  "image truncated inside the superblock block");
	blk = malloc(blklen);
	if (!blk)
		return erofs_error(err, -ENOMEM, EROFS_NO_NID, EROFS_NO_OFFSET,
				   "out of memory");
	ret = erofs_io_pread(&img->devs[0], blk, blklen, EROFS_SUPER_OFFSET,
			     err);
	if (!ret && !opts->no_sbcrc &&
	    (img->feature_compat & EROFS_FEATURE_COMPAT_SB_CHKSUM))
		ret = verify_checksum(img, blk, blklen, opts->salvage, err);
	if (!ret) {
		uint8_t full[EROFS_SB_MAX_SIZE] = { 0 };

		memcpy(full, blk, img->sb_size);
		parse_fields(img, full);
		ret = check_fields(img, full, opts->salvage, err);
	}
	free(blk);
	return ret;
}

static int read_primary(struct erofs_image *img, uint64_t pos, void *buf,
			size_t len, const char *what, struct erofs_err *err)
{
	if (!erofs_range_ok(pos, len, img->devs[0].size))
		return SB_CORRUPT(err, pos, "%s at %llu is past the end of the image",
				  what, (unsigned long long)pos);
	return erofs_io_pread(&img->devs[0], buf, len, pos, err);
}

static int parse_compr_cfg(struct erofs_image *img, unsigned int alg,
			   const uint8_t *p, uint64_t pos, struct erofs_err *err)
{
	switch (alg) {
	case Z_EROFS_COMPRESSION_LZ4:
		img->lz4_max_distance = erofs_get16(p);
		img->lz4_max_pclusterblks = erofs_get16(p + 2);
		if ((uint64_t)img->lz4_max_pclusterblks << img->blkszbits >
		    Z_EROFS_PCLUSTER_MAX_SIZE)
			return SB_CORRUPT(err, pos,
					  "lz4 config: %u blocks per pcluster exceed 1 MiB",
					  img->lz4_max_pclusterblks);
		return 0;
	case Z_EROFS_COMPRESSION_LZMA:
		img->lzma_dict_size = erofs_get32(p);
		if (erofs_get16(p + 4))
			return SB_CORRUPT(err, pos, "lzma config: unknown format %u",
					  erofs_get16(p + 4));
		if (img->lzma_dict_size < Z_EROFS_LZMA_MIN_DICT_SIZE ||
		    img->lzma_dict_size > Z_EROFS_LZMA_MAX_DICT_SIZE)
			return SB_CORRUPT(err, pos,
					  "lzma config: dictionary size %u outside 4 KiB..8 MiB",
					  img->lzma_dict_size);
		return 0;
	case Z_EROFS_COMPRESSION_DEFLATE:
		img->deflate_windowbits = p[0];
		if (img->deflate_windowbits > 15)
			return SB_CORRUPT(err, pos,
					  "deflate config: window bits %u above 15",
					  img->deflate_windowbits);
		return 0;
	default:
		img->zstd_windowlog = p[1];
		if (p[0])
			return SB_CORRUPT(err, pos, "zstd config: unknown format %u",
					  p[0]);
		if (img->zstd_windowlog > 10)
			return SB_CORRUPT(err, pos,
					  "zstd config: window log %u above 10",
					  img->zstd_windowlog);
		return 0;
	}
}

static int read_compr_cfgs(struct erofs_image *img, const uint8_t *sb,
			   struct erofs_err *err)
{
	static const uint8_t min_len[Z_EROFS_COMPRESSION_MAX] = {
		Z_EROFS_LZ4_CFG_SIZE, Z_EROFS_LZMA_CFG_SIZE,
		Z_EROFS_DEFLATE_CFG_SIZE, Z_EROFS_ZSTD_CFG_SIZE,
	};
	uint64_t pos = EROFS_SUPER_OFFSET + img->sb_size;
	uint16_t field = erofs_get16(sb + EROFS_SB_COMPR_ALGS);
	unsigned int alg;
	int ret;

	/* the one place that decides which algorithms are enabled */
	if (!(img->feature_incompat & EROFS_FEATURE_INCOMPAT_COMPR_CFGS)) {
		img->lz4_max_distance = field;
		img->available_compr_algs = 1u << Z_EROFS_COMPRESSION_LZ4;
		return 0;
	}
	if (field >> Z_EROFS_COMPRESSION_MAX)
		return erofs_error(err, -EOPNOTSUPP, EROFS_NO_NID,
				   EROFS_SUPER_OFFSET + EROFS_SB_COMPR_ALGS,
				   "unknown compression algorithms 0x%x",
				   field >> Z_EROFS_COMPRESSION_MAX);
	img->available_compr_algs = field;
	for (alg = 0; alg < Z_EROFS_COMPRESSION_MAX; alg++) {
		uint8_t rec[2 + 64];
		uint16_t len;

		if (!(field & (1u << alg)))
			continue;
		pos = erofs_round_up(pos, 4);
		ret = read_primary(img, pos, rec, 2, "compression config", err);
		if (ret)
			return ret;
		len = erofs_get16(rec);
		if (len < min_len[alg] || len > sizeof(rec) - 2)
			return SB_CORRUPT(err, pos,
					  "compression config of algorithm %u has length %u",
					  alg, len);
		ret = read_primary(img, pos + 2, rec + 2, len,
				   "compression config", err);
		if (ret)
			return ret;
		ret = parse_compr_cfg(img, alg, rec + 2, pos, err);
		if (ret)
			return ret;
		pos += 2 + len;
	}
	return 0;
}

static int check_device_ranges(struct erofs_image *img, struct erofs_err *err)
{
	unsigned int i, j;

	for (i = 1; i < img->ndevs; i++) {
		const struct erofs_device *a = &img->devs[i];

		if (!a->uniaddr)
			continue;
		if (a->uniaddr < img->blocks)
			return SB_CORRUPT(err, EROFS_NO_OFFSET,
					  "device %u is mapped at block %llu, inside the primary device",
					  i, (unsigned long long)a->uniaddr);
		for (j = 1; j < i; j++) {
			const struct erofs_device *b = &img->devs[j];

			if (b->uniaddr && a->uniaddr < b->uniaddr + b->blocks &&
			    b->uniaddr < a->uniaddr + a->blocks)
				return SB_CORRUPT(err, EROFS_NO_OFFSET,
						  "devices %u and %u overlap in the unified address space",
						  j, i);
		}
	}
	return 0;
}

static int open_device(struct erofs_image *img, unsigned int i,
		       const uint8_t *slot, const char *path,
		       struct erofs_err *err)
{
	bool is48 = img->feature_incompat & EROFS_FEATURE_INCOMPAT_48BIT;
	struct erofs_device *dev = &img->devs[i];
	uint64_t maxblocks = UINT64_MAX >> img->blkszbits;
	int ret;

	memcpy(dev->tag, slot + EROFS_DEVT_TAG, 64);
	dev->tag[64] = '\0';
	dev->blocks = erofs_get32(slot + EROFS_DEVT_BLOCKS_LO);
	dev->uniaddr = erofs_get32(slot + EROFS_DEVT_UNIADDR_LO);
	if (is48) {
		dev->blocks |= (uint64_t)erofs_get16(slot + EROFS_DEVT_BLOCKS_HI)
			       << 32;
		dev->uniaddr |=
			(uint64_t)erofs_get16(slot + EROFS_DEVT_UNIADDR_HI)
			<< 32;
	}
	if (!dev->blocks || dev->blocks > maxblocks ||
	    dev->uniaddr > maxblocks - dev->blocks)
		return SB_CORRUPT(err, EROFS_NO_OFFSET,
				  "device %u: bad size of %llu blocks at block %llu",
				  i, (unsigned long long)dev->blocks,
				  (unsigned long long)dev->uniaddr);
	ret = erofs_io_open(dev, path, -1, 0, err);
	if (ret)
		return ret;
	if (dev->size < dev->blocks << img->blkszbits)
		return SB_CORRUPT(err, EROFS_NO_OFFSET,
				  "device %u (%s) has %llu bytes, the image says %llu blocks",
				  i, path, (unsigned long long)dev->size,
				  (unsigned long long)dev->blocks);
	return 0;
}

static int read_devices(struct erofs_image *img, const uint8_t *sb,
			const struct erofs_open_opts *opts,
			struct erofs_err *err)
{
	uint64_t pos = (uint64_t)erofs_get16(sb + EROFS_SB_DEVT_SLOTOFF) *
		       EROFS_DEVT_SLOT_SIZE;
	unsigned int i, n = 0;
	int ret;

	if (img->feature_incompat & EROFS_FEATURE_INCOMPAT_DEVICE_TABLE)
		n = erofs_get16(sb + EROFS_SB_EXTRA_DEVICES);
	if (opts->ndevices != n)
		return erofs_error(err, -ENODEV, EROFS_NO_NID, EROFS_NO_OFFSET,
				   "the image has %u extra devices, %u given with --device",
				   n, opts->ndevices);
	img->extra_devices = n;
	img->device_id_mask = 1;
	while (img->device_id_mask < n)
		img->device_id_mask = (uint16_t)(img->device_id_mask << 1 | 1);
	if (!n)
		return 0;
	if (pos < EROFS_SUPER_OFFSET + img->sb_size)
		return SB_CORRUPT(err, EROFS_SUPER_OFFSET + EROFS_SB_DEVT_SLOTOFF,
				  "device table at %llu overlaps the superblock",
				  (unsigned long long)pos);
	for (i = 1; i <= n; i++) {
		uint8_t slot[EROFS_DEVT_SLOT_SIZE];

		ret = read_primary(img, pos, slot, sizeof(slot),
				   "device table", err);
		if (!ret)
			ret = open_device(img, i, slot, opts->devices[i - 1],
					  err);
		img->ndevs = i + 1;
		if (ret)
			return ret;
		pos += EROFS_DEVT_SLOT_SIZE;
	}
	return check_device_ranges(img, err);
}

static int load_special_inode(struct erofs_ctx *ctx, uint64_t nid,
			      struct erofs_inode *inode, const char *what,
			      struct erofs_err *err)
{
	int ret = erofs_read_inode(ctx, nid, inode);

	if (ret) {
		*err = ctx->err;
		return ret;
	}
	if ((inode->mode & 0xF000) != 0x8000)
		return SB_CORRUPT(err, EROFS_NO_OFFSET,
				  "%s inode %llu is not a regular file", what,
				  (unsigned long long)nid);
	return 0;
}

static int read_prefix(struct erofs_ctx *ctx, enum erofs_space space,
		       uint64_t *pos, struct erofs_xattr_prefix *pfx)
{
	uint8_t hdr[3];
	uint16_t len;
	int ret;

	ret = erofs_meta_read(ctx, space, *pos, hdr, sizeof(hdr),
			      EROFS_NO_NID);
	if (ret)
		return ret;
	len = erofs_get16(hdr);
	if (len < 1 || len > 256)
		return erofs_error(&ctx->err, -EFSCORRUPTED, EROFS_NO_NID, *pos,
				   "long xattr prefix of length %u", len);
	pfx->base_index = hdr[2];
	if (pfx->base_index >= EROFS_XATTR_INDEX_MAX ||
	    pfx->base_index == EROFS_XATTR_INDEX_LUSTRE)
		return erofs_error(&ctx->err, -EFSCORRUPTED, EROFS_NO_NID, *pos,
				   "long xattr prefix with base index %u",
				   pfx->base_index);
	pfx->infix_len = (uint16_t)(len - 1);
	pfx->infix = malloc(len);
	if (!pfx->infix)
		return erofs_error(&ctx->err, -ENOMEM, EROFS_NO_NID,
				   EROFS_NO_OFFSET, "out of memory");
	ret = erofs_meta_read(ctx, space, *pos + 3, pfx->infix,
			      pfx->infix_len, EROFS_NO_NID);
	if (ret)
		return ret;
	if (memchr(pfx->infix, '\0', pfx->infix_len))
		return erofs_error(&ctx->err, -EFSCORRUPTED, EROFS_NO_NID, *pos,
				   "long xattr prefix contains a NUL byte");
	*pos = erofs_round_up(*pos + 2 + len, 4);
	return 0;
}

static int read_xattr_prefixes(struct erofs_image *img, struct erofs_ctx *ctx,
			       struct erofs_err *err)
{
	enum erofs_space space = EROFS_SPACE_PRIMARY;
	uint64_t pos = (uint64_t)img->xattr_prefix_start * 4;
	unsigned int i;
	int ret;

	if (!img->xattr_prefix_count)
		return 0;
	if (!(img->feature_compat & EROFS_FEATURE_COMPAT_PLAIN_XATTR_PFX)) {
		if (img->has_metabox)
			space = EROFS_SPACE_METABOX;
		else if (img->has_packed)
			space = EROFS_SPACE_PACKED;
	}
	img->xattr_prefixes = calloc(img->xattr_prefix_count,
				     sizeof(*img->xattr_prefixes));
	if (!img->xattr_prefixes)
		return erofs_error(err, -ENOMEM, EROFS_NO_NID, EROFS_NO_OFFSET,
				   "out of memory");
	for (i = 0; i < img->xattr_prefix_count; i++) {
		ret = read_prefix(ctx, space, &pos, &img->xattr_prefixes[i]);
		if (ret) {
			*err = ctx->err;
			return ret;
		}
	}
	return 0;
}

static int load_tables(struct erofs_image *img, struct erofs_err *err)
{
	struct erofs_ctx ctx;
	int ret;

	ret = erofs_ctx_init(&ctx, img);
	if (ret)
		return erofs_error(err, ret, EROFS_NO_NID, EROFS_NO_OFFSET,
				   "out of memory");
	if (img->feature_incompat & EROFS_FEATURE_INCOMPAT_METABOX) {
		ret = load_special_inode(&ctx, img->metabox_nid, &img->metabox,
					 "metabox", err);
		if (ret)
			goto out;
		img->has_metabox = true;
	}
	if (img->packed_nid) {
		ret = load_special_inode(&ctx, img->packed_nid, &img->packed,
					 "packed", err);
		if (ret)
			goto out;
		img->has_packed = true;
		if (img->packed.layout != EROFS_INODE_FLAT_PLAIN &&
		    img->packed.layout != EROFS_INODE_FLAT_INLINE &&
		    (img->packed.z.whole_fragment ||
		     (img->packed.z.advise & Z_EROFS_ADVISE_FRAGMENT_PCLUSTER))) {
			ret = SB_CORRUPT(err, EROFS_NO_OFFSET,
					 "the packed inode uses fragments itself");
			goto out;
		}
	}
	ret = read_xattr_prefixes(img, &ctx, err);
out:
	erofs_ctx_fini(&ctx);
	return ret;
}

int erofs_image_open(struct erofs_image **out,
		     const struct erofs_open_opts *opts, struct erofs_err *err)
{
	uint8_t sb[EROFS_SB_MAX_SIZE] = { 0 };
	struct erofs_image *img;
	int ret;

	*out = NULL;
	img = calloc(1, sizeof(*img));
	if (img)
		img->devs = calloc(1 + opts->ndevices, sizeof(*img->devs));
	if (!img || !img->devs) {
		free(img);
		erofs_source_close(opts->source);
		return erofs_error(err, -ENOMEM, EROFS_NO_NID, EROFS_NO_OFFSET,
				   "out of memory");
	}
	img->ndevs = 1;
	if (opts->source)
		ret = erofs_io_attach(&img->devs[0], opts->source,
				      opts->offset, err);
	else
		ret = erofs_io_open(&img->devs[0], opts->path,
				    opts->use_fd ? opts->fd : -1, opts->offset,
				    err);
	if (!ret)
		ret = read_superblock(img, opts, err);
	if (!ret)
		ret = erofs_io_pread(&img->devs[0], sb, img->sb_size,
				     EROFS_SUPER_OFFSET, err);
	if (!ret)
		ret = read_compr_cfgs(img, sb, err);
	if (!ret)
		ret = read_devices(img, sb, opts, err);
	if (!ret)
		ret = load_tables(img, err);
	if (!ret)
		ret = erofs_frag_cache_create(img,
					      opts->frag_cache_budget
						      ? opts->frag_cache_budget
						      : EROFS_FRAG_CACHE_BUDGET,
					      err);
	if (!ret)
		ret = erofs_meta_cache_create(img, err);
	if (ret) {
		erofs_image_close(img);
		return ret;
	}
	*out = img;
	return 0;
}

void erofs_image_close(struct erofs_image *img)
{
	unsigned int i;

	if (!img)
		return;
	erofs_frag_cache_destroy(img);
	erofs_meta_cache_destroy(img);
	erofs_decoders_unlimit(img);
	for (i = 0; i < img->ndevs; i++)
		erofs_io_close(&img->devs[i]);
	if (img->xattr_prefixes)
		for (i = 0; i < img->xattr_prefix_count; i++)
			free(img->xattr_prefixes[i].infix);
	free(img->xattr_prefixes);
	free(img->devs);
	free(img);
}
