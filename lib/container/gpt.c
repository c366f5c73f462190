// SPDX-License-Identifier: MIT
/* GPT disk images: docs/android.md, "GPT disk images". */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef HAVE_ZLIB
#include <zlib.h>
#endif

#include "erofs/format.h"
#include "erofs/gpt.h"
#include "container/container_internal.h"

#define GPT_SIGNATURE "EFI PART"
#define GPT_HEADER_MIN 92
#define GPT_ENTRY_MIN 128
/* more entries than any partitioner writes (sfdisk at most 128 by default) */
#define GPT_ENTRIES_MAX 4096
#define GPT_NAME_UNITS 36

/* The types of the Discoverable Partitions Specification, by name. */
static const struct {
	const char *name;
	const char *guid;
} gpt_types[] = {
	{ "root-x86-64", "4f68bce3-e8cd-4db1-96e7-fbcaf984b709" },
	{ "root-x86-64-verity", "2c7357ed-ebd2-46d9-aec1-23d437ec2bf5" },
	{ "root-x86-64-verity-sig", "41092b05-9fc8-4523-994f-2def0408b176" },
	{ "usr-x86-64", "8484680c-9521-48c6-9c11-b0720656f69e" },
	{ "usr-x86-64-verity", "77ff5f63-e7b6-4633-acf4-1565b864c0e6" },
	{ "usr-x86-64-verity-sig", "e7bb33fb-06cf-4e81-8273-e543b413e2e2" },
	{ "root-arm64", "b921b045-1df0-41c3-af44-4c6f280d3fae" },
	{ "root-arm64-verity", "df3300ce-d69f-4c92-978c-9bfb0f38d820" },
	{ "root-arm64-verity-sig", "6db69de6-29f4-4758-a7a5-962190f00ce3" },
	{ "usr-arm64", "b0e01050-ee5f-4390-949a-9101b17104e9" },
	{ "usr-arm64-verity", "6e11a4e7-fbca-4ded-b9e9-e1a512bb664e" },
	{ "usr-arm64-verity-sig", "c23ce4ff-44bd-4b00-b2d4-b41b3419e02a" },
	{ "root-x86", "44479540-f297-41b2-9af7-d131d5f0458a" },
	{ "root-x86-verity", "d13c5d3b-b5d1-422a-b29f-9454fdc89d76" },
	{ "usr-x86", "75250d76-8cc6-458e-bd66-bd47cc81a812" },
	{ "usr-x86-verity", "8f461b0d-14ee-4e81-9aa9-049b6fb97abd" },
	{ "root-arm", "69dad710-2ce4-4e3c-b16c-21a1d49abed3" },
	{ "root-arm-verity", "7386cdf2-203c-47a9-a498-f2ecce45a2d6" },
	{ "usr-arm", "7d0359a3-02b3-4f0a-865c-654403e70625" },
	{ "usr-arm-verity", "c215d751-7bcd-4649-be90-6627490a4c05" },
	{ "root-riscv64", "72ec70a6-cf74-40e6-bd49-4bda08e8f224" },
	{ "root-riscv64-verity", "b6ed5582-440b-4209-b8da-5ff7c419ea3d" },
	{ "usr-riscv64", "beaec34b-8442-439b-a40b-984381ed097d" },
	{ "usr-riscv64-verity", "8f1056be-9b05-47c4-81d6-be53128e5b54" },
	{ "esp", "c12a7328-f81f-11d2-ba4b-00a0c93ec93b" },
	{ "xbootldr", "bc13c2ff-59e6-4262-a352-b275fd6f7172" },
	{ "swap", "0657fd6d-a4ab-43c4-84e5-0933c84b4f4f" },
	{ "home", "933ac7e1-2eb4-4f13-b844-0e14e2aef915" },
	{ "srv", "3b8f8425-20e0-4f3b-907f-1a25a76f98e8" },
	{ "var", "4d21b016-b534-45c2-a9fb-5c16e091fd2d" },
	{ "linux-generic", "0fc63daf-8483-4772-8e79-3d69d8477de4" },
};

void erofs_gpt_guid_text(const uint8_t g[16], char out[37])
{
	/* the first three fields are little-endian on disk */
	snprintf(
		out, 37,
		"%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		g[3], g[2], g[1], g[0], g[5], g[4], g[7], g[6], g[8], g[9],
		g[10], g[11], g[12], g[13], g[14], g[15]);
}

static const char *gpt_type_name(const uint8_t type[16])
{
	char text[37];
	size_t i;

	erofs_gpt_guid_text(type, text);
	for (i = 0; i < sizeof(gpt_types) / sizeof(gpt_types[0]); i++)
		if (!strcmp(text, gpt_types[i].guid))
			return gpt_types[i].name;
	return NULL;
}

static bool gpt_signature_at(const uint8_t *b, size_t len, size_t at)
{
	return at + 8 <= len && !memcmp(b + at, GPT_SIGNATURE, 8);
}

/* The protective MBR: its signature and a partition of type 0xEE. */
static bool gpt_protective_mbr(const uint8_t *b)
{
	unsigned int i;

	if (b[510] != 0x55 || b[511] != 0xAA)
		return false;
	for (i = 0; i < 4; i++)
		if (b[446 + 16 * i + 4] == 0xEE)
			return true;
	return false;
}

int erofs_gpt_detect(const struct erofs_source *src, struct erofs_err *err)
{
	uint8_t head[4096 + 8];
	uint64_t size = erofs_source_size(src);
	size_t len = size < sizeof(head) ? (size_t)size : sizeof(head);
	int ret;

	if (len < 512 + 8)
		return 0;
	ret = erofs_source_read(src, head, len, 0, err);
	if (ret < 0)
		return ret;
	if (!gpt_protective_mbr(head))
		return 0;
	return gpt_signature_at(head, len, 512) ||
	       gpt_signature_at(head, len, 4096);
}

#ifdef HAVE_ZLIB
static uint32_t gpt_crc32(const uint8_t *p, size_t len)
{
	uLong crc = crc32(0, Z_NULL, 0);

	while (len) {
		uInt n = len > UINT_MAX ? UINT_MAX : (uInt)len;

		crc = crc32(crc, p, n);
		p += n;
		len -= n;
	}
	return (uint32_t)crc;
}

/* One header (at sector lba) and its entries, checked. */
struct gpt_copy {
	const struct erofs_source *src;
	uint32_t sector;
	uint64_t lba; /* where its header is */
	uint64_t disk_sectors;
	const char *which; /* "primary" or "backup" */
};

static int gpt_bad(const struct gpt_copy *c, struct erofs_err *err,
		   uint64_t offset, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int gpt_bad(const struct gpt_copy *c, struct erofs_err *err,
		   uint64_t offset, const char *fmt, ...)
{
	char where[16];
	va_list ap;
	int ret;

	if (!erofs_err_free(err))
		return -EFSCORRUPTED;
	snprintf(where, sizeof(where), "%s GPT", c->which);
	va_start(ap, fmt);
	ret = erofs_errorv(err, -EFSCORRUPTED, EROFS_NO_NID, offset, where,
			   fmt, ap);
	va_end(ap);
	return ret;
}

struct gpt_header {
	uint64_t entries_lba;
	uint32_t nentries, entry_size, entries_crc;
};

static int gpt_read_header(const struct gpt_copy *c, struct erofs_gpt *gpt,
			   struct gpt_header *h, struct erofs_err *err)
{
	uint64_t at = c->lba * c->sector;
	uint8_t *b = malloc(c->sector);
	uint32_t hsize, crc;
	int ret;

	if (!b)
		return erofs_error(err, -ENOMEM, EROFS_NO_NID, EROFS_NO_OFFSET,
				   "out of memory");
	ret = erofs_source_read(c->src, b, c->sector, at, err);
	if (ret < 0)
		goto out;
	hsize = erofs_get32(b + 12);
	if (!gpt_signature_at(b, c->sector, 0)) {
		ret = gpt_bad(c, err, at, "no \"EFI PART\" at sector %llu",
			      (unsigned long long)c->lba);
		goto out;
	}
	if (hsize < GPT_HEADER_MIN || hsize > c->sector) {
		ret = gpt_bad(c, err, at, "header size %u", hsize);
		goto out;
	}
	crc = erofs_get32(b + 16);
	memset(b + 16, 0, 4);
	if (gpt_crc32(b, hsize) != crc) {
		ret = gpt_bad(c, err, at, "header CRC32 %08x does not match",
			      crc);
		goto out;
	}
	if (erofs_get64(b + 24) != c->lba) {
		ret = gpt_bad(c, err, at, "says it lies at sector %llu",
			      (unsigned long long)erofs_get64(b + 24));
		goto out;
	}
	gpt->first_usable = erofs_get64(b + 40);
	gpt->last_usable = erofs_get64(b + 48);
	memcpy(gpt->disk_uuid, b + 56, 16);
	h->entries_lba = erofs_get64(b + 72);
	h->nentries = erofs_get32(b + 80);
	h->entry_size = erofs_get32(b + 84);
	h->entries_crc = erofs_get32(b + 88);
	if (gpt->first_usable > gpt->last_usable ||
	    gpt->last_usable >= c->disk_sectors)
		ret = gpt_bad(c, err, at,
			      "usable sectors %llu to %llu on a disk of %llu",
			      (unsigned long long)gpt->first_usable,
			      (unsigned long long)gpt->last_usable,
			      (unsigned long long)c->disk_sectors);
	else if (h->entry_size < GPT_ENTRY_MIN || h->entry_size % 8 ||
		 h->entry_size > 4096)
		ret = gpt_bad(c, err, at, "entry size %u", h->entry_size);
	else if (!h->nentries || h->nentries > GPT_ENTRIES_MAX)
		ret = gpt_bad(c, err, at, "%u entries", h->nentries);
	else if (h->entries_lba >= c->disk_sectors ||
		 (uint64_t)h->nentries * h->entry_size >
			 (c->disk_sectors - h->entries_lba) * c->sector)
		ret = gpt_bad(c, err, at,
			      "entries at sector %llu run past the disk",
			      (unsigned long long)h->entries_lba);
out:
	free(b);
	return ret;
}

/* UTF-16LE units to UTF-8, stopping at a NUL; others as U+FFFD. */
static void gpt_label(const uint8_t *p, char *out)
{
	size_t o = 0;
	unsigned int i;

	for (i = 0; i < GPT_NAME_UNITS; i++) {
		uint32_t u = erofs_get16(p + 2 * i);

		if (!u)
			break;
		if (u >= 0xD800 && u <= 0xDFFF)
			u = 0xFFFD;
		if (u < 0x80) {
			out[o++] = (char)u;
		} else if (u < 0x800) {
			out[o++] = (char)(0xC0 | u >> 6);
			out[o++] = (char)(0x80 | (u & 0x3F));
		} else {
			out[o++] = (char)(0xE0 | u >> 12);
			out[o++] = (char)(0x80 | ((u >> 6) & 0x3F));
			out[o++] = (char)(0x80 | (u & 0x3F));
		}
	}
	out[o] = '\0';
}

static bool gpt_unused(const uint8_t *e)
{
	static const uint8_t zero[16];

	return !memcmp(e, zero, 16);
}

static int gpt_part_order(const void *a, const void *b)
{
	const struct erofs_gpt_part *p = a, *q = b;

	return p->first_lba < q->first_lba ? -1 : p->first_lba > q->first_lba;
}

/* The used entries, each inside the usable sectors, none overlapping. */
static int gpt_parse_entries(const struct gpt_copy *c, struct erofs_gpt *gpt,
			     const struct gpt_header *h, const uint8_t *tab,
			     struct erofs_err *err)
{
	uint64_t at = h->entries_lba * c->sector;
	struct erofs_gpt_part *p, *sorted;
	uint32_t i, n = 0;
	int ret = 0;

	gpt->parts = calloc(h->nentries, sizeof(*gpt->parts));
	if (!gpt->parts)
		return erofs_error(err, -ENOMEM, EROFS_NO_NID, EROFS_NO_OFFSET,
				   "out of memory");
	for (i = 0; i < h->nentries; i++) {
		const uint8_t *e = tab + (size_t)i * h->entry_size;

		if (gpt_unused(e))
			continue;
		p = &gpt->parts[n++];
		p->index = i + 1;
		memcpy(p->type, e, 16);
		memcpy(p->uuid, e + 16, 16);
		p->first_lba = erofs_get64(e + 32);
		p->last_lba = erofs_get64(e + 40);
		p->attrs = erofs_get64(e + 48);
		gpt_label(e + 56, p->label);
		p->type_name = gpt_type_name(p->type);
		if (p->first_lba > p->last_lba ||
		    p->first_lba < gpt->first_usable ||
		    p->last_lba > gpt->last_usable)
			return gpt_bad(
				c, err, at + (uint64_t)i * h->entry_size,
				"partition %u: sectors %llu to %llu, outside the usable %llu to %llu",
				p->index, (unsigned long long)p->first_lba,
				(unsigned long long)p->last_lba,
				(unsigned long long)gpt->first_usable,
				(unsigned long long)gpt->last_usable);
		p->offset = p->first_lba * c->sector;
		p->size = (p->last_lba - p->first_lba + 1) * c->sector;
	}
	gpt->nparts = n;
	sorted = malloc((n ? n : 1) * sizeof(*sorted));
	if (!sorted)
		return erofs_error(err, -ENOMEM, EROFS_NO_NID, EROFS_NO_OFFSET,
				   "out of memory");
	memcpy(sorted, gpt->parts, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), gpt_part_order);
	for (i = 1; i < n && !ret; i++)
		if (sorted[i].first_lba <= sorted[i - 1].last_lba)
			ret = gpt_bad(c, err, at,
				      "partitions %u and %u overlap",
				      sorted[i - 1].index, sorted[i].index);
	free(sorted);
	return ret;
}

static int gpt_read_copy(const struct gpt_copy *c, struct erofs_gpt *gpt,
			 struct erofs_err *err)
{
	struct gpt_header h = { 0 };
	uint8_t *tab;
	size_t len;
	int ret = gpt_read_header(c, gpt, &h, err);

	if (ret)
		return ret;
	len = (size_t)h.nentries * h.entry_size;
	tab = malloc(len);
	if (!tab)
		return erofs_error(err, -ENOMEM, EROFS_NO_NID, EROFS_NO_OFFSET,
				   "out of memory");
	ret = erofs_source_read(c->src, tab, len, h.entries_lba * c->sector,
				err);
	if (!ret && gpt_crc32(tab, len) != h.entries_crc)
		ret = gpt_bad(c, err, h.entries_lba * c->sector,
			      "partition entries' CRC32 %08x does not match",
			      h.entries_crc);
	if (!ret)
		ret = gpt_parse_entries(c, gpt, &h, tab, err);
	free(tab);
	return ret;
}

/* The logical sector size: where "EFI PART" is. */
static int gpt_sector(const struct erofs_source *src, uint32_t *sector,
		      struct erofs_err *err)
{
	uint8_t b[8];
	uint32_t s;
	int ret;

	for (s = 512; s <= 4096; s *= 8) {
		if (erofs_source_size(src) < 2ULL * s)
			break;
		ret = erofs_source_read(src, b, 8, s, err);
		if (ret < 0)
			return ret;
		if (!memcmp(b, GPT_SIGNATURE, 8)) {
			*sector = s;
			return 0;
		}
	}
	/* the primary may be gone: the backup at the end of a 512 disk */
	*sector = 512;
	return 0;
}

/*
 * A primary header read with 512-byte sectors: is there a valid one for
 * 4096-byte sectors too? A disk holds one table: two that are each
 * valid would be read one way here and another by a system that knows
 * the device's sector size, so neither is taken (-EFSCORRUPTED).
 */
static int gpt_one_sector_size(const struct gpt_copy *c, struct erofs_err *err)
{
	struct gpt_copy other = *c;
	struct erofs_gpt *gpt;
	struct erofs_err ignored;
	int ret;

	if (c->sector != 512 || erofs_source_size(c->src) < 3 * 4096ULL)
		return 0;
	gpt = calloc(1, sizeof(*gpt));
	if (!gpt)
		return erofs_error(err, -ENOMEM, EROFS_NO_NID, EROFS_NO_OFFSET,
				   "out of memory");
	other.sector = 4096;
	other.disk_sectors = erofs_source_size(c->src) / 4096;
	erofs_err_clear(&ignored);
	ret = gpt_read_copy(&other, gpt, &ignored);
	erofs_err_drop(&ignored);
	erofs_gpt_free(gpt);
	if (ret == -ENOMEM)
		return erofs_error(err, -ENOMEM, EROFS_NO_NID, EROFS_NO_OFFSET,
				   "out of memory");
	if (ret)
		return 0;
	return erofs_error(
		err, -EFSCORRUPTED, EROFS_NO_NID, 512,
		"GPT: valid headers for both 512-byte (at byte 512) and 4096-byte sectors (at byte 4096): which table the disk has depends on its device, so neither is read");
}

int erofs_gpt_read(struct erofs_gpt **out, const struct erofs_source *src,
		   struct erofs_err *err)
{
	struct erofs_gpt *gpt = calloc(1, sizeof(*gpt));
	struct gpt_copy c = { .src = src, .lba = 1, .which = "primary" };
	int ret;

	*out = NULL;
	if (!gpt)
		return erofs_error(err, -ENOMEM, EROFS_NO_NID, EROFS_NO_OFFSET,
				   "out of memory");
	ret = gpt_sector(src, &c.sector, err);
	if (ret)
		goto fail;
	gpt->sector = c.sector;
	c.disk_sectors = erofs_source_size(src) / c.sector;
	if (c.disk_sectors < 3) {
		ret = erofs_error(err, -EFSCORRUPTED, EROFS_NO_NID,
				  EROFS_NO_OFFSET, "GPT: a disk of %llu bytes",
				  (unsigned long long)erofs_source_size(src));
		goto fail;
	}
	ret = gpt_read_copy(&c, gpt, err);
	if (!ret)
		ret = gpt_one_sector_size(&c, err);
	else if (ret == -EFSCORRUPTED) {
		/* kept to say why the backup was read, or why neither was */
		gpt->damage = *err;
		erofs_err_drop(err);
		free(gpt->parts);
		gpt->parts = NULL;
		c.lba = c.disk_sectors - 1;
		c.which = "backup";
		ret = gpt_read_copy(&c, gpt, err);
		if (ret == -EFSCORRUPTED) {
			struct erofs_err backup = *err;

			erofs_err_drop(err);
			ret = erofs_error(err, ret, EROFS_NO_NID, backup.offset,
					  "%s; %s", gpt->damage.msg,
					  backup.msg);
		}
		gpt->used_backup = !ret;
	}
	if (ret)
		goto fail;
	*out = gpt;
	return 0;
fail:
	erofs_gpt_free(gpt);
	return ret;
}
#else
int erofs_gpt_read(struct erofs_gpt **out, const struct erofs_source *src,
		   struct erofs_err *err)
{
	(void)src;
	*out = NULL;
	return erofs_error(
		err, -EOPNOTSUPP, EROFS_NO_NID, EROFS_NO_OFFSET,
		"GPT: built without zlib, which its CRC32s need (Debian package zlib1g-dev)");
}
#endif

void erofs_gpt_free(struct erofs_gpt *gpt)
{
	if (!gpt)
		return;
	free(gpt->parts);
	free(gpt);
}

/* Does spec name p's type: its name, or "root"/"usr" for any arch's? */
static bool gpt_type_named(const struct erofs_gpt_part *p, const char *spec)
{
	size_t n = strlen(spec);

	if (!p->type_name)
		return false;
	if (!strcmp(p->type_name, spec))
		return true;
	if (strcmp(spec, "root") && strcmp(spec, "usr"))
		return false;
	return !strncmp(p->type_name, spec, n) && p->type_name[n] == '-' &&
	       !strstr(p->type_name + n, "-verity");
}

static bool gpt_names(const struct erofs_gpt_part *p, const char *spec)
{
	char *end;
	unsigned long index = strtoul(spec, &end, 10);

	if (*spec >= '0' && *spec <= '9' && !*end)
		return index == p->index;
	return !strcmp(p->label, spec) || gpt_type_named(p, spec);
}

static void gpt_list(const struct erofs_gpt *gpt, char *buf, size_t len)
{
	size_t used = 0;
	uint32_t i;

	buf[0] = '\0';
	for (i = 0; i < gpt->nparts && used + 1 < len; i++) {
		const struct erofs_gpt_part *p = &gpt->parts[i];
		int n = snprintf(buf + used, len - used, "%s%u %s (%s)",
				 i ? ", " : "", p->index,
				 p->label[0] ? p->label : "-",
				 p->type_name ? p->type_name : "other");

		if (n < 0)
			break;
		used += (size_t)n;
	}
	if (!gpt->nparts)
		snprintf(buf, len, "none");
}

int erofs_gpt_find(const struct erofs_gpt *gpt, const char *spec,
		   const struct erofs_gpt_part **out, struct erofs_err *err)
{
	const struct erofs_gpt_part *found = NULL;
	unsigned int matches = 0;
	char names[160];
	uint32_t i;

	for (i = 0; i < gpt->nparts; i++) {
		if (!gpt_names(&gpt->parts[i], spec))
			continue;
		found = found ? found : &gpt->parts[i];
		matches++;
	}
	*out = found;
	if (matches == 1)
		return 0;
	gpt_list(gpt, names, sizeof(names));
	return erofs_error(err, matches ? -EINVAL : -ENOENT, EROFS_NO_NID,
			   EROFS_NO_OFFSET,
			   "%s GPT partition %s (the partitions: %s)",
			   matches ? "more than one" : "no", spec, names);
}

int erofs_gpt_open_partition(struct erofs_source **out,
			     const struct erofs_source *src,
			     const struct erofs_gpt_part *part,
			     struct erofs_err *err)
{
	struct erofs_seg_table t = { 0 };
	char name[PATH_MAX];
	int ret = erofs_source_cut(src, part->offset, part->size, &t);
	if (ret == -EFSCORRUPTED)
		ret = erofs_error(
			err, ret, EROFS_NO_NID, part->offset,
			"GPT partition %u runs past the end of %s (%llu bytes)",
			part->index, erofs_source_name(src),
			(unsigned long long)erofs_source_size(src));
	snprintf(name, sizeof(name), "%s, partition %u%s%s",
		 erofs_source_name(src), part->index, part->label[0] ? " " : "",
		 part->label);
	return erofs_source_partition(out, src, name, &t, ret, err);
}
