// SPDX-License-Identifier: MIT
/*
 * GPT disk images (lib/container/gpt.c), written here from the layout
 * docs/android.md gives ("GPT disk images"): partitions read with their
 * labels and types, found by index, label and type name, their bytes
 * read in place; a damaged primary header or entry array replaced by the
 * backup; both damaged, entries that overlap or run past the disk, and a
 * missing protective MBR refused. tests/android/gpt.sh reads the disks
 * sfdisk and systemd-repart make.
 */
#include <errno.h>
#include <string.h>
#include <zlib.h>

#include "erofs/format.h"
#include "erofs/gpt.h"
#include "unit.h"

#define SECTOR 512
#define SECTORS 128 /* a 64 KiB disk */
#define ENTRIES 8 /* of 128 bytes: two sectors */

/* root-x86-64 and esp, as stored: the first three fields little-endian */
static const uint8_t root_type[16] = { 0xe3, 0xbc, 0x68, 0x4f, 0xcd, 0xe8,
				       0xb1, 0x4d, 0x96, 0xe7, 0xfb, 0xca,
				       0xf9, 0x84, 0xb7, 0x09 };
static const uint8_t esp_type[16] = { 0x28, 0x73, 0x2a, 0xc1, 0x1f, 0xf8,
				      0xd2, 0x11, 0xba, 0x4b, 0x00, 0xa0,
				      0xc9, 0x3e, 0xc9, 0x3b };

static uint8_t disk[SECTORS * SECTOR];

static void entry(uint8_t *e, const uint8_t type[16], uint8_t id,
		  uint64_t first, uint64_t last, const char *label)
{
	size_t i;

	memset(e, 0, 128);
	memcpy(e, type, 16);
	memset(e + 16, id, 16);
	erofs_put64(e + 32, first);
	erofs_put64(e + 40, last);
	for (i = 0; label[i]; i++)
		erofs_put16(e + 56 + 2 * i, (uint8_t)label[i]);
}

/* A header at lba, its entries at entries_lba, the other at alt. */
static void header(uint64_t lba, uint64_t alt, uint64_t entries_lba)
{
	uint8_t *h = disk + lba * SECTOR;
	uint32_t crc;

	memset(h, 0, SECTOR);
	memcpy(h, "EFI PART", 8);
	erofs_put32(h + 8, 0x10000);
	erofs_put32(h + 12, 92);
	erofs_put64(h + 24, lba);
	erofs_put64(h + 32, alt);
	erofs_put64(h + 40, 4);
	erofs_put64(h + 48, SECTORS - 4);
	memset(h + 56, 0x77, 16);
	erofs_put64(h + 72, entries_lba);
	erofs_put32(h + 80, ENTRIES);
	erofs_put32(h + 84, 128);
	crc = (uint32_t)crc32(0, disk + entries_lba * SECTOR, ENTRIES * 128);
	erofs_put32(h + 88, crc);
	crc = (uint32_t)crc32(0, h, 92);
	erofs_put32(h + 16, crc);
}

/* A disk of two partitions: root (sectors 8-63) and esp (64-95). */
static void build(void)
{
	size_t i;

	memset(disk, 0, sizeof(disk));
	disk[446 + 4] = 0xee;
	disk[510] = 0x55;
	disk[511] = 0xaa;
	entry(disk + 2 * SECTOR, root_type, 0x11, 8, 63, "root");
	entry(disk + 2 * SECTOR + 128, esp_type, 0x22, 64, 95, "boot");
	memcpy(disk + (SECTORS - 3) * SECTOR, disk + 2 * SECTOR, 2 * SECTOR);
	header(1, SECTORS - 1, 2);
	header(SECTORS - 1, 1, SECTORS - 3);
	for (i = 0; i < 56 * SECTOR; i++)
		disk[8 * SECTOR + i] = (uint8_t)(i * 7);
}

static char path[64];

static struct erofs_source *write_disk(void)
{
	struct erofs_source *src;
	struct erofs_err err;
	int fd;

	strcpy(path, "/tmp/test_gpt.XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, disk, sizeof(disk)), (ssize_t)sizeof(disk));
	close(fd);
	erofs_err_clear(&err);
	ck_assert_int_eq(erofs_source_open(&src, path, -1, &err), 0);
	return src;
}

/* Read the disk as it is: 0 with *gpt, or the error and err. */
static int read_disk(struct erofs_gpt **gpt, struct erofs_err *err)
{
	struct erofs_source *src = write_disk();
	int ret;

	erofs_err_clear(err);
	ck_assert_int_eq(erofs_gpt_detect(src, err), 1);
	ret = erofs_gpt_read(gpt, src, err);
	erofs_source_close(src);
	unlink(path);
	return ret;
}

START_TEST(test_partitions_read)
{
	struct erofs_gpt *gpt;
	struct erofs_err err;
	char text[37];

	build();
	ck_assert_int_eq(read_disk(&gpt, &err), 0);
	ck_assert(!gpt->used_backup);
	ck_assert_uint_eq(gpt->sector, SECTOR);
	ck_assert_uint_eq(gpt->nparts, 2);
	ck_assert_str_eq(gpt->parts[0].label, "root");
	ck_assert_str_eq(gpt->parts[0].type_name, "root-x86-64");
	ck_assert_uint_eq(gpt->parts[0].offset, 8 * SECTOR);
	ck_assert_uint_eq(gpt->parts[0].size, 56 * SECTOR);
	ck_assert_str_eq(gpt->parts[1].type_name, "esp");
	ck_assert_uint_eq(gpt->parts[1].index, 2);
	erofs_gpt_guid_text(gpt->parts[0].type, text);
	ck_assert_str_eq(text, "4f68bce3-e8cd-4db1-96e7-fbcaf984b709");
	erofs_gpt_free(gpt);
}
END_TEST

START_TEST(test_find_and_read)
{
	const struct erofs_gpt_part *p;
	struct erofs_source *src, *part;
	struct erofs_gpt *gpt;
	struct erofs_err err;
	uint8_t buf[100];

	build();
	src = write_disk();
	erofs_err_clear(&err);
	ck_assert_int_eq(erofs_gpt_read(&gpt, src, &err), 0);
	ck_assert_int_eq(erofs_gpt_find(gpt, "2", &p, &err), 0);
	ck_assert_str_eq(p->label, "boot");
	ck_assert_int_eq(erofs_gpt_find(gpt, "boot", &p, &err), 0);
	ck_assert_uint_eq(p->index, 2);
	ck_assert_int_eq(erofs_gpt_find(gpt, "root", &p, &err), 0);
	ck_assert_uint_eq(p->index, 1);
	ck_assert_int_eq(erofs_gpt_find(gpt, "root-x86-64", &p, &err), 0);
	ck_assert_int_eq(erofs_gpt_find(gpt, "usr", &p, &err), -ENOENT);
	erofs_err_drop(&err);
	ck_assert_int_eq(erofs_gpt_find(gpt, "root", &p, &err), 0);
	ck_assert_int_eq(erofs_gpt_open_partition(&part, src, p, &err), 0);
	ck_assert_uint_eq(erofs_source_size(part), 56 * SECTOR);
	ck_assert_int_eq(erofs_source_read(part, buf, sizeof(buf), 1000, &err),
			 0);
	ck_assert_mem_eq(buf, disk + 8 * SECTOR + 1000, sizeof(buf));
	ck_assert_int_eq(erofs_source_read(part, buf, 2, 56 * SECTOR - 1, &err),
			 -EFSCORRUPTED);
	erofs_err_drop(&err);
	erofs_source_close(part);
	erofs_gpt_free(gpt);
	erofs_source_close(src);
	unlink(path);
}
END_TEST

/* The primary's header, or its entries, damaged: the backup read. */
START_TEST(test_backup_used)
{
	struct erofs_gpt *gpt;
	struct erofs_err err;

	build();
	disk[SECTOR + 40] ^= 1; /* the header, after its CRC was taken */
	ck_assert_int_eq(read_disk(&gpt, &err), 0);
	ck_assert(gpt->used_backup);
	ck_assert_uint_eq(gpt->nparts, 2);
	ck_assert_msg(strstr(gpt->damage.msg, "primary"), "%s",
		      gpt->damage.msg);
	erofs_gpt_free(gpt);
	build();
	disk[2 * SECTOR + 60] ^= 1; /* a label of the primary's entries */
	ck_assert_int_eq(read_disk(&gpt, &err), 0);
	ck_assert(gpt->used_backup);
	ck_assert_str_eq(gpt->parts[0].label, "root");
	erofs_gpt_free(gpt);
}
END_TEST

/* Rewrite both copies of the entries, their CRCs right: the rules. */
static void both_entries(uint64_t first, uint64_t last)
{
	entry(disk + 2 * SECTOR + 128, esp_type, 0x22, first, last, "boot");
	memcpy(disk + (SECTORS - 3) * SECTOR, disk + 2 * SECTOR, 2 * SECTOR);
	header(1, SECTORS - 1, 2);
	header(SECTORS - 1, 1, SECTORS - 3);
}

static void refused(const char *what)
{
	struct erofs_gpt *gpt = NULL;
	struct erofs_err err;

	ck_assert_int_eq(read_disk(&gpt, &err), -EFSCORRUPTED);
	ck_assert_msg(strstr(err.msg, what), "want \"%s\" in \"%s\"", what,
		      err.msg);
	erofs_err_drop(&err);
}

START_TEST(test_both_damaged)
{
	build();
	disk[SECTOR + 40] ^= 1;
	disk[(SECTORS - 1) * SECTOR + 40] ^= 1;
	refused("backup GPT: header CRC32");
}
END_TEST

START_TEST(test_overlap_refused)
{
	build();
	both_entries(60, 95); /* over root's sectors 60 to 63 */
	refused("partitions 1 and 2 overlap");
}
END_TEST

START_TEST(test_past_usable_refused)
{
	build();
	both_entries(64, SECTORS - 2); /* into the backup's entries */
	refused("outside the usable");
}
END_TEST

START_TEST(test_no_protective_mbr)
{
	struct erofs_source *src;
	struct erofs_err err;

	build();
	disk[446 + 4] = 0x83;
	src = write_disk();
	erofs_err_clear(&err);
	ck_assert_int_eq(erofs_gpt_detect(src, &err), 0);
	erofs_source_close(src);
	unlink(path);
}
END_TEST

UNIT_MAIN("gpt", NULL,
	  { "gpt",
	    .tests = UNIT_TESTS(test_partitions_read, test_find_and_read,
				test_backup_used, test_both_damaged,
				test_overlap_refused, test_past_usable_refused,
				test_no_protective_mbr) })
