/* SPDX-License-Identifier: MIT */
/*
 * EROFS on-disk format: every structure and constant the reader needs.
 * All multi-byte fields are little-endian; read them with the erofs_get*()
 * accessors below, never by casting a pointer into image bytes.
 */
#ifndef EROFS_FORMAT_H
#define EROFS_FORMAT_H

#include <stdint.h>
#include <string.h>

#define EROFS_SUPER_MAGIC 0xE0F5E1E2u
#define EROFS_SUPER_OFFSET 1024
#define EROFS_SB_BASE_SIZE 128
#define EROFS_SB_EXTSLOT_SIZE 16
#define EROFS_MIN_BLKSZBITS 9
#define EROFS_MAX_BLKSZBITS 16
#define EROFS_MAX_BLOCK_SIZE (1u << EROFS_MAX_BLKSZBITS)
#define EROFS_ISLOTBITS 5
#define EROFS_NAME_LEN 255
#define EROFS_DEVT_SLOT_SIZE 128
#define EROFS_NID_METABOX_BIT (1ULL << 63)

/* feature_compat */
#define EROFS_FEATURE_COMPAT_SB_CHKSUM 0x01
#define EROFS_FEATURE_COMPAT_MTIME 0x02
#define EROFS_FEATURE_COMPAT_XATTR_FILTER 0x04
#define EROFS_FEATURE_COMPAT_SHARED_EA_IN_METABOX 0x08
#define EROFS_FEATURE_COMPAT_PLAIN_XATTR_PFX 0x10
#define EROFS_FEATURE_COMPAT_ISHARE_XATTRS 0x20

/* feature_incompat */
#define EROFS_FEATURE_INCOMPAT_LZ4_0PADDING 0x001
#define EROFS_FEATURE_INCOMPAT_COMPR_CFGS 0x002
#define EROFS_FEATURE_INCOMPAT_BIG_PCLUSTER 0x002
#define EROFS_FEATURE_INCOMPAT_CHUNKED_FILE 0x004
#define EROFS_FEATURE_INCOMPAT_DEVICE_TABLE 0x008
#define EROFS_FEATURE_INCOMPAT_COMPR_HEAD2 0x008
#define EROFS_FEATURE_INCOMPAT_ZTAILPACKING 0x010
#define EROFS_FEATURE_INCOMPAT_FRAGMENTS 0x020
#define EROFS_FEATURE_INCOMPAT_DEDUPE 0x020
#define EROFS_FEATURE_INCOMPAT_XATTR_PREFIXES 0x040
#define EROFS_FEATURE_INCOMPAT_48BIT 0x080
#define EROFS_FEATURE_INCOMPAT_METABOX 0x100
#define EROFS_ALL_FEATURE_INCOMPAT 0x1FF

/* superblock field offsets (relative to EROFS_SUPER_OFFSET) */
enum {
	EROFS_SB_MAGIC = 0,
	EROFS_SB_CHECKSUM = 4,
	EROFS_SB_FEATURE_COMPAT = 8,
	EROFS_SB_BLKSZBITS = 12,
	EROFS_SB_EXTSLOTS = 13,
	EROFS_SB_ROOTNID_2B = 14,
	EROFS_SB_INOS = 16,
	EROFS_SB_EPOCH = 24,
	EROFS_SB_FIXED_NSEC = 32,
	EROFS_SB_BLOCKS_LO = 36,
	EROFS_SB_META_BLKADDR = 40,
	EROFS_SB_XATTR_BLKADDR = 44,
	EROFS_SB_UUID = 48,
	EROFS_SB_VOLUME_NAME = 64,
	EROFS_SB_FEATURE_INCOMPAT = 80,
	EROFS_SB_COMPR_ALGS = 84,
	EROFS_SB_EXTRA_DEVICES = 86,
	EROFS_SB_DEVT_SLOTOFF = 88,
	EROFS_SB_DIRBLKBITS = 90,
	EROFS_SB_XATTR_PREFIX_COUNT = 91,
	EROFS_SB_XATTR_PREFIX_START = 92,
	EROFS_SB_PACKED_NID = 96,
	EROFS_SB_XATTR_FILTER_RESERVED = 104,
	EROFS_SB_ISHARE_PREFIX_ID = 105,
	EROFS_SB_BUILD_TIME = 108,
	EROFS_SB_ROOTNID_8B = 112,
	EROFS_SB_METABOX_NID = 128,
	EROFS_SB_MAX_SIZE = 144,
};

/* device table slot offsets */
enum {
	EROFS_DEVT_TAG = 0,
	EROFS_DEVT_BLOCKS_LO = 64,
	EROFS_DEVT_UNIADDR_LO = 68,
	EROFS_DEVT_BLOCKS_HI = 72,
	EROFS_DEVT_UNIADDR_HI = 74,
};

/* i_format */
#define EROFS_I_VERSION_BIT 0
#define EROFS_I_DATALAYOUT_SHIFT 1
#define EROFS_I_DATALAYOUT_MASK 0x7
#define EROFS_I_NLINK_1_BIT 4
#define EROFS_I_DOT_OMITTED_BIT 4
#define EROFS_I_ALL 0x1f

enum erofs_datalayout {
	EROFS_INODE_FLAT_PLAIN = 0,
	EROFS_INODE_COMPRESSED_FULL = 1,
	EROFS_INODE_FLAT_INLINE = 2,
	EROFS_INODE_COMPRESSED_COMPACT = 3,
	EROFS_INODE_CHUNK_BASED = 4,
	EROFS_INODE_LAYOUT_MAX
};

#define EROFS_INODE_COMPACT_SIZE 32
#define EROFS_INODE_EXTENDED_SIZE 64

/* compact inode field offsets */
enum {
	EROFS_IC_FORMAT = 0,
	EROFS_IC_XATTR_ICOUNT = 2,
	EROFS_IC_MODE = 4,
	EROFS_IC_NB = 6,
	EROFS_IC_SIZE = 8,
	EROFS_IC_MTIME = 12,
	EROFS_IC_U = 16,
	EROFS_IC_INO = 20,
	EROFS_IC_UID = 24,
	EROFS_IC_GID = 26,
};

/* extended inode field offsets */
enum {
	EROFS_IE_FORMAT = 0,
	EROFS_IE_XATTR_ICOUNT = 2,
	EROFS_IE_MODE = 4,
	EROFS_IE_NB = 6,
	EROFS_IE_SIZE = 8,
	EROFS_IE_U = 16,
	EROFS_IE_INO = 20,
	EROFS_IE_UID = 24,
	EROFS_IE_GID = 28,
	EROFS_IE_MTIME = 32,
	EROFS_IE_MTIME_NSEC = 40,
	EROFS_IE_NLINK = 44,
};

/* chunk-based layout */
#define EROFS_CHUNK_FORMAT_BLKBITS_MASK 0x1F
#define EROFS_CHUNK_FORMAT_INDEXES 0x20
#define EROFS_CHUNK_FORMAT_48BIT 0x40
#define EROFS_CHUNK_FORMAT_ALL 0x7F
#define EROFS_BLOCK_MAP_ENTRY_SIZE 4
#define EROFS_CHUNK_INDEX_SIZE 8
enum {
	EROFS_CHUNK_IDX_STARTBLK_HI = 0,
	EROFS_CHUNK_IDX_DEVICE_ID = 2,
	EROFS_CHUNK_IDX_STARTBLK_LO = 4,
};

/* directories */
#define EROFS_DIRENT_SIZE 12
enum {
	EROFS_DIRENT_NID = 0,
	EROFS_DIRENT_NAMEOFF = 8,
	EROFS_DIRENT_FILE_TYPE = 10,
	EROFS_DIRENT_RESERVED = 11,
};

enum erofs_file_type {
	EROFS_FT_UNKNOWN = 0,
	EROFS_FT_REG_FILE = 1,
	EROFS_FT_DIR = 2,
	EROFS_FT_CHRDEV = 3,
	EROFS_FT_BLKDEV = 4,
	EROFS_FT_FIFO = 5,
	EROFS_FT_SOCK = 6,
	EROFS_FT_SYMLINK = 7,
	EROFS_FT_MAX
};

/* xattrs */
#define EROFS_XATTR_IBODY_HEADER_SIZE 12
#define EROFS_XATTR_ENTRY_SIZE 4
enum {
	EROFS_XATTR_H_NAME_FILTER = 0,
	EROFS_XATTR_H_SHARED_COUNT = 4,
};
enum {
	EROFS_XATTR_E_NAME_LEN = 0,
	EROFS_XATTR_E_NAME_INDEX = 1,
	EROFS_XATTR_E_VALUE_SIZE = 2,
};
enum erofs_xattr_index {
	EROFS_XATTR_INDEX_NONE = 0,
	EROFS_XATTR_INDEX_USER = 1,
	EROFS_XATTR_INDEX_POSIX_ACL_ACCESS = 2,
	EROFS_XATTR_INDEX_POSIX_ACL_DEFAULT = 3,
	EROFS_XATTR_INDEX_TRUSTED = 4,
	EROFS_XATTR_INDEX_LUSTRE = 5,
	EROFS_XATTR_INDEX_SECURITY = 6,
	EROFS_XATTR_INDEX_MAX
};
#define EROFS_XATTR_LONG_PREFIX 0x80
#define EROFS_XATTR_LONG_PREFIX_MASK 0x7f
#define EROFS_XATTR_PREFIX_MAX 128
#define EROFS_XATTR_FILTER_SEED 0x25BBE08Fu
#define EROFS_XATTR_FILTER_BITS 32

/* compression */
enum erofs_compr_alg {
	Z_EROFS_COMPRESSION_LZ4 = 0,
	Z_EROFS_COMPRESSION_LZMA = 1,
	Z_EROFS_COMPRESSION_DEFLATE = 2,
	Z_EROFS_COMPRESSION_ZSTD = 3,
	Z_EROFS_COMPRESSION_MAX
};

#define Z_EROFS_LZ4_CFG_SIZE 14
#define Z_EROFS_LZMA_CFG_SIZE 14
#define Z_EROFS_DEFLATE_CFG_SIZE 6
#define Z_EROFS_ZSTD_CFG_SIZE 6
#define Z_EROFS_LZMA_MIN_DICT_SIZE 4096
#define Z_EROFS_LZMA_MAX_DICT_SIZE (8u << 20)
#define Z_EROFS_ZSTD_MAX_DICT_SIZE (1u << 20)
#define Z_EROFS_PCLUSTER_MAX_SIZE (1u << 20)
#define Z_EROFS_PCLUSTER_MAX_DSIZE (12u << 20)

/* map header */
#define Z_EROFS_MAP_HEADER_SIZE 8
enum {
	Z_EROFS_MH_FRAGMENTOFF = 0,
	Z_EROFS_MH_EXTENTS_LO = 0,
	Z_EROFS_MH_IDATA_SIZE = 2,
	Z_EROFS_MH_ADVISE = 4,
	Z_EROFS_MH_EXTENTS_HI = 6,
	Z_EROFS_MH_ALGORITHMTYPE = 6,
	Z_EROFS_MH_CLUSTERBITS = 7,
};
#define Z_EROFS_FRAGMENT_INODE_BIT 7 /* bit of h_clusterbits */

#define Z_EROFS_ADVISE_COMPACTED_2B 0x0001
#define Z_EROFS_ADVISE_EXTENTS 0x0001
#define Z_EROFS_ADVISE_BIG_PCLUSTER_1 0x0002
#define Z_EROFS_ADVISE_BIG_PCLUSTER_2 0x0004
#define Z_EROFS_ADVISE_INLINE_PCLUSTER 0x0008
#define Z_EROFS_ADVISE_INTERLACED_PCLUSTER 0x0010
#define Z_EROFS_ADVISE_FRAGMENT_PCLUSTER 0x0020
#define Z_EROFS_ADVISE_EXTRECSZ_SHIFT 1
#define Z_EROFS_ADVISE_EXTRECSZ_MASK 0x3

/* full index records */
#define Z_EROFS_FULL_INDEX_ALIGN(end) ((((end) + 7) & ~7ULL) + 16)
#define Z_EROFS_LCLUSTER_INDEX_SIZE 8
enum {
	Z_EROFS_LI_ADVISE = 0,
	Z_EROFS_LI_CLUSTEROFS = 2,
	Z_EROFS_LI_BLKADDR = 4,
	Z_EROFS_LI_DELTA0 = 4,
	Z_EROFS_LI_DELTA1 = 6,
};
enum z_erofs_lcluster_type {
	Z_EROFS_LCLUSTER_TYPE_PLAIN = 0,
	Z_EROFS_LCLUSTER_TYPE_HEAD1 = 1,
	Z_EROFS_LCLUSTER_TYPE_NONHEAD = 2,
	Z_EROFS_LCLUSTER_TYPE_HEAD2 = 3,
};
#define Z_EROFS_LI_LCLUSTER_TYPE_MASK 0x3
#define Z_EROFS_LI_PARTIAL_REF 0x8000
#define Z_EROFS_LI_D0_CBLKCNT 0x0800

/* encoded extents */
#define Z_EROFS_EXTENT_PLEN_MASK 0x1FFFFFu
#define Z_EROFS_EXTENT_PLEN_RESERVED 0x07E00000u
#define Z_EROFS_EXTENT_PLEN_PARTIAL (1u << 27)
#define Z_EROFS_EXTENT_PLEN_FMT_BIT 28
enum {
	Z_EROFS_EXTENT_PLEN = 0,
	Z_EROFS_EXTENT_PSTART_LO = 4,
	Z_EROFS_EXTENT_PSTART_HI = 8,
	Z_EROFS_EXTENT_LSTART_LO = 12,
	Z_EROFS_EXTENT_LSTART_HI = 16,
};

/* little-endian accessors: image bytes have no alignment guarantee */
static inline uint16_t erofs_get16(const void *p)
{
	const uint8_t *b = p;

	return (uint16_t)(b[0] | b[1] << 8);
}

static inline uint32_t erofs_get32(const void *p)
{
	const uint8_t *b = p;

	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	       (uint32_t)b[3] << 24;
}

static inline uint64_t erofs_get64(const void *p)
{
	const uint8_t *b = p;

	return (uint64_t)erofs_get32(b) | (uint64_t)erofs_get32(b + 4) << 32;
}

/* big-endian, as Android's AVB metadata and the SHA family store words */
static inline uint32_t erofs_get_be32(const void *p)
{
	const uint8_t *b = p;

	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
	       (uint32_t)b[2] << 8 | b[3];
}

static inline uint64_t erofs_get_be64(const void *p)
{
	const uint8_t *b = p;

	return (uint64_t)erofs_get_be32(b) << 32 | erofs_get_be32(b + 4);
}

static inline void erofs_put_be32(void *p, uint32_t v)
{
	uint8_t *b = p;

	b[0] = (uint8_t)(v >> 24);
	b[1] = (uint8_t)(v >> 16);
	b[2] = (uint8_t)(v >> 8);
	b[3] = (uint8_t)v;
}

static inline void erofs_put_be64(void *p, uint64_t v)
{
	uint8_t *b = p;

	erofs_put_be32(b, (uint32_t)(v >> 32));
	erofs_put_be32(b + 4, (uint32_t)v);
}

static inline void erofs_put16(void *p, uint16_t v)
{
	uint8_t *b = p;

	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
}

static inline void erofs_put32(void *p, uint32_t v)
{
	uint8_t *b = p;

	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
	b[2] = (uint8_t)(v >> 16);
	b[3] = (uint8_t)(v >> 24);
}

static inline void erofs_put64(void *p, uint64_t v)
{
	erofs_put32(p, (uint32_t)v);
	erofs_put32((uint8_t *)p + 4, (uint32_t)(v >> 32));
}

#endif
