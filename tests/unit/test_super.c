// SPDX-License-Identifier: MIT
/* Superblock parsing, feature refusal and inode decoding on built images. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "erofs/data.h"
#include "erofs/hash.h"
#include "erofs/image.h"
#include "erofs/inode.h"
#include "unit.h"

#define IMG_BLOCKS 8
#define BS 4096
#define META_BLKADDR 1

static uint8_t image[IMG_BLOCKS * BS];
static char path[64];

static uint8_t *sb(void)
{
	return image + EROFS_SUPER_OFFSET;
}

static void base_image(void)
{
	memset(image, 0, sizeof(image));
	erofs_put32(sb() + EROFS_SB_MAGIC, EROFS_SUPER_MAGIC);
	sb()[EROFS_SB_BLKSZBITS] = 12;
	erofs_put16(sb() + EROFS_SB_ROOTNID_2B, 5);
	erofs_put32(sb() + EROFS_SB_BLOCKS_LO, IMG_BLOCKS);
	erofs_put32(sb() + EROFS_SB_META_BLKADDR, META_BLKADDR);
	erofs_put64(sb() + EROFS_SB_EPOCH, 1700000000);
	erofs_put32(sb() + EROFS_SB_FIXED_NSEC, 123);
}

static void set_checksum(void)
{
	uint32_t crc;

	sb()[EROFS_SB_FEATURE_COMPAT] |= EROFS_FEATURE_COMPAT_SB_CHKSUM;
	erofs_put32(sb() + EROFS_SB_CHECKSUM, 0);
	crc = erofs_crc32c(~0u, sb(), BS - EROFS_SUPER_OFFSET);
	erofs_put32(sb() + EROFS_SB_CHECKSUM, crc);
}

static int open_image(size_t len, bool no_sbcrc, struct erofs_image **img,
		      struct erofs_err *err)
{
	struct erofs_open_opts opts = { .path = path, .no_sbcrc = no_sbcrc };
	FILE *f;

	strcpy(path, "/tmp/erofs-test-super-XXXXXX");
	ck_assert_int_ge(mkstemp(path), 0);
	f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(image, 1, len, f), len);
	fclose(f);
	erofs_err_clear(err);
	return erofs_image_open(img, &opts, err);
}

static void done(struct erofs_image *img)
{
	erofs_image_close(img);
	unlink(path);
}

START_TEST(test_valid_superblock)
{
	struct erofs_image *img;
	struct erofs_err err;

	base_image();
	set_checksum();
	ck_assert_int_eq(open_image(sizeof(image), false, &img, &err), 0);
	ck_assert_uint_eq(img->blksz, BS);
	ck_assert_uint_eq(img->root_nid, 5);
	ck_assert_uint_eq(img->blocks, IMG_BLOCKS);
	ck_assert(img->sbcrc_checked);
	ck_assert_uint_eq(img->available_compr_algs, 1);
	done(img);
}
END_TEST

START_TEST(test_bad_magic)
{
	struct erofs_image *img;
	struct erofs_err err;

	base_image();
	sb()[0] ^= 1;
	ck_assert_int_eq(open_image(sizeof(image), false, &img, &err),
			 -EFSCORRUPTED);
	ck_assert_ptr_null(img);
	ck_assert_ptr_nonnull(strstr(err.msg, "magic"));
	unlink(path);
}
END_TEST

START_TEST(test_block_size_bounds)
{
	static const uint8_t bad[] = { 0, 8, 17, 255 };
	struct erofs_image *img;
	struct erofs_err err;

	base_image();
	sb()[EROFS_SB_BLKSZBITS] = bad[_i];
	ck_assert_int_eq(open_image(sizeof(image), false, &img, &err),
			 -EFSCORRUPTED);
	ck_assert_ptr_nonnull(strstr(err.msg, "block size"));
	unlink(path);
}
END_TEST

START_TEST(test_unknown_incompat)
{
	struct erofs_image *img;
	struct erofs_err err;

	base_image();
	erofs_put32(sb() + EROFS_SB_FEATURE_INCOMPAT, 0x200);
	ck_assert_int_eq(open_image(sizeof(image), false, &img, &err),
			 -EOPNOTSUPP);
	ck_assert_ptr_nonnull(strstr(err.msg, "0x200"));
	unlink(path);
}
END_TEST

START_TEST(test_checksum_mismatch)
{
	struct erofs_image *img;
	struct erofs_err err;

	base_image();
	set_checksum();
	image[BS - 1] ^= 0x40;	/* inside the checksummed block */
	ck_assert_int_eq(open_image(sizeof(image), false, &img, &err),
			 -EFSCORRUPTED);
	ck_assert_ptr_nonnull(strstr(err.msg, "checksum"));
	unlink(path);
	ck_assert_int_eq(open_image(sizeof(image), true, &img, &err), 0);
	ck_assert(!img->sbcrc_checked);
	done(img);
}
END_TEST

START_TEST(test_truncated)
{
	struct erofs_image *img;
	struct erofs_err err;

	base_image();
	ck_assert_int_eq(open_image(sizeof(image) - BS, false, &img, &err),
			 -EFSCORRUPTED);
	ck_assert_ptr_nonnull(strstr(err.msg, "truncated"));
	unlink(path);
	ck_assert_int_eq(open_image(1000, false, &img, &err), -EFSCORRUPTED);
	unlink(path);
}
END_TEST

START_TEST(test_dirblkbits)
{
	struct erofs_image *img;
	struct erofs_err err;

	base_image();
	sb()[EROFS_SB_DIRBLKBITS] = 1;
	ck_assert_int_eq(open_image(sizeof(image), false, &img, &err),
			 -EFSCORRUPTED);
	ck_assert_ptr_nonnull(strstr(err.msg, "dirblkbits"));
	unlink(path);
}
END_TEST

START_TEST(test_missing_device)
{
	struct erofs_image *img;
	struct erofs_err err;

	base_image();
	erofs_put32(sb() + EROFS_SB_FEATURE_INCOMPAT,
		    EROFS_FEATURE_INCOMPAT_DEVICE_TABLE);
	erofs_put16(sb() + EROFS_SB_EXTRA_DEVICES, 1);
	erofs_put16(sb() + EROFS_SB_DEVT_SLOTOFF, 2048 / 128);
	ck_assert_int_eq(open_image(sizeof(image), false, &img, &err),
			 -ENODEV);
	ck_assert_ptr_nonnull(strstr(err.msg, "extra devices"));
	unlink(path);
}
END_TEST

START_TEST(test_bad_lzma_config)
{
	struct erofs_image *img;
	struct erofs_err err;
	uint8_t *rec = sb() + EROFS_SB_BASE_SIZE;

	base_image();
	erofs_put32(sb() + EROFS_SB_FEATURE_INCOMPAT,
		    EROFS_FEATURE_INCOMPAT_COMPR_CFGS);
	erofs_put16(sb() + EROFS_SB_COMPR_ALGS, 1u << Z_EROFS_COMPRESSION_LZMA);
	erofs_put16(rec, Z_EROFS_LZMA_CFG_SIZE);
	erofs_put32(rec + 2, 16u << 20);
	ck_assert_int_eq(open_image(sizeof(image), false, &img, &err),
			 -EFSCORRUPTED);
	ck_assert_ptr_nonnull(strstr(err.msg, "dictionary"));
	unlink(path);
	erofs_put32(rec + 2, 1u << 20);
	ck_assert_int_eq(open_image(sizeof(image), false, &img, &err), 0);
	ck_assert_uint_eq(img->lzma_dict_size, 1u << 20);
	done(img);
}
END_TEST

static uint8_t *inode_at(uint64_t nid)
{
	return image + META_BLKADDR * BS + nid * 32;
}

static int read_inode(uint64_t nid, struct erofs_inode *inode,
		      struct erofs_ctx *ctx, struct erofs_image **img)
{
	struct erofs_err err;
	int ret;

	ck_assert_int_eq(open_image(sizeof(image), false, img, &err), 0);
	ck_assert_int_eq(erofs_ctx_init(ctx, *img), 0);
	ret = erofs_read_inode(ctx, nid, inode);
	return ret;
}

static void release(struct erofs_ctx *ctx, struct erofs_image *img)
{
	erofs_ctx_fini(ctx);
	done(img);
}

START_TEST(test_compact_inode)
{
	struct erofs_inode inode;
	struct erofs_image *img;
	struct erofs_ctx ctx;
	uint8_t *raw;

	base_image();
	raw = inode_at(3);
	erofs_put16(raw + EROFS_IC_FORMAT, EROFS_INODE_FLAT_PLAIN << 1);
	erofs_put16(raw + EROFS_IC_MODE, S_IFREG | 0640);
	erofs_put16(raw + EROFS_IC_NB, 2);
	erofs_put32(raw + EROFS_IC_SIZE, 5000);
	erofs_put32(raw + EROFS_IC_MTIME, 10);
	erofs_put32(raw + EROFS_IC_U, 4);
	erofs_put16(raw + EROFS_IC_UID, 1000);
	erofs_put16(raw + EROFS_IC_GID, 100);
	ck_assert_int_eq(read_inode(3, &inode, &ctx, &img), 0);
	ck_assert(!inode.extended);
	ck_assert_uint_eq(inode.mode, S_IFREG | 0640);
	ck_assert_uint_eq(inode.nlink, 2);
	ck_assert_uint_eq(inode.size, 5000);
	ck_assert_int_eq(inode.mtime, 1700000010);
	ck_assert_uint_eq(inode.mtime_nsec, 123);
	ck_assert_uint_eq(inode.uid, 1000);
	ck_assert_uint_eq(inode.gid, 100);
	ck_assert_uint_eq(inode.startblk, 4);
	ck_assert_uint_eq(inode.addr, META_BLKADDR * BS + 3 * 32);
	release(&ctx, img);
}
END_TEST

START_TEST(test_extended_inode)
{
	struct erofs_inode inode;
	struct erofs_image *img;
	struct erofs_ctx ctx;
	uint8_t *raw;

	base_image();
	raw = inode_at(127);	/* crosses into the next block */
	erofs_put16(raw + EROFS_IE_FORMAT, 1 | EROFS_INODE_FLAT_PLAIN << 1);
	erofs_put16(raw + EROFS_IE_MODE, S_IFCHR | 0600);
	erofs_put32(raw + EROFS_IE_U, (4095 << 8) | 0xff | (0xfff00u << 12));
	erofs_put32(raw + EROFS_IE_UID, 4000000000u);
	erofs_put32(raw + EROFS_IE_GID, 65536);
	erofs_put64(raw + EROFS_IE_MTIME, (uint64_t)-1);
	erofs_put32(raw + EROFS_IE_MTIME_NSEC, 500000000);
	erofs_put32(raw + EROFS_IE_NLINK, 70000);
	ck_assert_int_eq(read_inode(127, &inode, &ctx, &img), 0);
	ck_assert(inode.extended);
	ck_assert_uint_eq(inode.uid, 4000000000u);
	ck_assert_uint_eq(inode.gid, 65536);
	ck_assert_int_eq(inode.mtime, -1);
	ck_assert_uint_eq(inode.mtime_nsec, 500000000);
	ck_assert_uint_eq(inode.nlink, 70000);
	ck_assert_uint_eq(erofs_rdev_major(inode.rdev), 4095);
	ck_assert_uint_eq(erofs_rdev_minor(inode.rdev), 1048575);
	release(&ctx, img);
}
END_TEST

static void expect_corrupt(uint64_t nid, const char *what)
{
	struct erofs_inode inode;
	struct erofs_image *img;
	struct erofs_ctx ctx;

	ck_assert_int_eq(read_inode(nid, &inode, &ctx, &img), -EFSCORRUPTED);
	ck_assert_msg(strstr(ctx.err.msg, what), "message '%s' lacks '%s'",
		      ctx.err.msg, what);
	ck_assert_uint_eq(ctx.err.nid, nid);
	release(&ctx, img);
}

START_TEST(test_corrupt_inodes)
{
	uint8_t *raw;

	base_image();
	raw = inode_at(2);
	erofs_put16(raw + EROFS_IC_MODE, S_IFREG | 0644);
	erofs_put16(raw + EROFS_IC_FORMAT, 0x20);
	expect_corrupt(2, "i_format");
	erofs_put16(raw + EROFS_IC_FORMAT, 5 << 1);
	expect_corrupt(2, "layout");
	erofs_put16(raw + EROFS_IC_FORMAT, 0);
	erofs_put16(raw + EROFS_IC_MODE, 0xE000 | 0644);
	expect_corrupt(2, "file type");
	erofs_put16(raw + EROFS_IC_MODE, S_IFLNK | 0777);
	expect_corrupt(2, "symlink");
	erofs_put16(raw + EROFS_IC_MODE, S_IFDIR | 0755);
	expect_corrupt(2, "directory of size 0");
	erofs_put16(raw + EROFS_IC_MODE, S_IFIFO | 0644);
	erofs_put32(raw + EROFS_IC_SIZE, 10);
	expect_corrupt(2, "special file");
	erofs_put16(raw + EROFS_IC_MODE, S_IFREG | 0644);
	erofs_put16(raw + EROFS_IC_XATTR_ICOUNT, 1);
	expect_corrupt(2, "xattr");
	erofs_put16(raw + EROFS_IC_XATTR_ICOUNT, 0);
	/* an inline tail that would cross a block boundary */
	erofs_put16(raw + EROFS_IC_FORMAT, EROFS_INODE_FLAT_INLINE << 1);
	erofs_put32(raw + EROFS_IC_SIZE, 4090);
	expect_corrupt(2, "crosses a block");
	/* a nid far past the end of the image */
	expect_corrupt(1u << 20, "past the end");
}
END_TEST

START_TEST(test_data_past_end)
{
	struct erofs_inode inode;
	struct erofs_image *img;
	struct erofs_ctx ctx;
	struct erofs_map map;
	uint8_t *raw;

	base_image();
	raw = inode_at(2);
	erofs_put16(raw + EROFS_IC_MODE, S_IFREG | 0644);
	erofs_put32(raw + EROFS_IC_SIZE, 8000);
	erofs_put32(raw + EROFS_IC_U, IMG_BLOCKS - 1);
	ck_assert_int_eq(read_inode(2, &inode, &ctx, &img), 0);
	ck_assert_int_eq(erofs_map(&ctx, &inode, 0, &map), -EFSCORRUPTED);
	ck_assert_ptr_nonnull(strstr(ctx.err.msg, "past the end"));
	release(&ctx, img);
}
END_TEST

UNIT_MAIN("super", NULL,
	  { "core",
	    .tests = UNIT_TESTS(test_valid_superblock, test_bad_magic,
				test_unknown_incompat, test_checksum_mismatch,
				test_truncated, test_dirblkbits,
				test_missing_device, test_bad_lzma_config,
				test_compact_inode, test_extended_inode,
				test_corrupt_inodes, test_data_past_end),
	    .loops = UNIT_LOOPS({ test_block_size_bounds, 4 }) })
