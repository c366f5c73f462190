/* SPDX-License-Identifier: MIT */
/*
 * GPT disk images (docs/android.md, "GPT disk images"): the protective
 * MBR, the header and its partition entries, each with its CRC32, and the
 * backup header at the disk's last sector, read when the primary is
 * damaged; a partition made a source of its own (erofs/source.h).
 * Partition types of the Discoverable Partitions Specification (root,
 * usr, their verity partitions, esp, ...) are known by name.
 *
 * Thread safety: a struct erofs_gpt is read-only once read.
 */
#ifndef EROFS_GPT_H
#define EROFS_GPT_H

#include <stdbool.h>
#include <stdint.h>

#include "erofs/error.h"
#include "erofs/source.h"

/* a label: 36 UTF-16 code units, as UTF-8 */
#define EROFS_GPT_LABEL_MAX (36 * 3)

struct erofs_gpt_part {
	uint32_t index; /* 1-based, in the entry array */
	uint8_t type[16]; /* GUIDs as stored: mixed-endian */
	uint8_t uuid[16];
	uint64_t first_lba, last_lba; /* last inclusive */
	uint64_t attrs;
	uint64_t offset, size; /* bytes */
	char label[EROFS_GPT_LABEL_MAX + 1];
	const char *type_name; /* "root-x86-64", "esp", ...; or NULL */
};

struct erofs_gpt {
	uint32_t sector; /* logical sector size: 512 or 4096 */
	uint8_t disk_uuid[16];
	uint64_t first_usable, last_usable;
	/* the primary header or its entries were damaged: damage says how */
	bool used_backup;
	struct erofs_err damage;
	struct erofs_gpt_part *parts; /* used entries, in entry order */
	uint32_t nparts;
};

/*
 * Does src hold a GPT (a protective MBR, then "EFI PART" at sector 1 of
 * 512 or 4096 bytes)? 1 or 0, or the negative errno of a failed read.
 */
int erofs_gpt_detect(const struct erofs_source *src, struct erofs_err *err);

/*
 * Read and check the GPT of src: the header's and the entries' CRC32s,
 * the header's fields, every used entry inside the usable sectors and
 * apart from every other. A damaged primary falls back to the backup
 * header at the last sector (gpt->used_backup). -EFSCORRUPTED when
 * neither holds; -EOPNOTSUPP in a build without zlib (its CRC32).
 */
int erofs_gpt_read(struct erofs_gpt **out, const struct erofs_source *src,
		   struct erofs_err *err);
void erofs_gpt_free(struct erofs_gpt *gpt);

/* The GUID in its usual text form (36 characters and a NUL). */
void erofs_gpt_guid_text(const uint8_t guid[16], char out[37]);

/*
 * The partition spec names: its index ("2"), its label, or its type's
 * name ("root-x86-64", "esp"; "root" and "usr" for any architecture's,
 * without verity), when that names one partition. -ENOENT or -EINVAL
 * (more than one) with a message listing the partitions.
 */
int erofs_gpt_find(const struct erofs_gpt *gpt, const char *spec,
		   const struct erofs_gpt_part **out, struct erofs_err *err);

/* A source of the partition's bytes, read from src. */
int erofs_gpt_open_partition(struct erofs_source **out,
			     const struct erofs_source *src,
			     const struct erofs_gpt_part *part,
			     struct erofs_err *err);

#endif
