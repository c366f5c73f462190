/* SPDX-License-Identifier: MIT */
/*
 * IMAGE, out of what holds it: standard input (spool.h), an Android
 * sparse image (read in place: erofs/source.h), one logical partition of
 * an Android super image (--partition, erofs/lp.h), raw or sparse, one
 * partition of a GPT disk (erofs/gpt.h: --partition, or the one EROFS
 * root or usr partition) (docs/android.md). What comes out is the source erofs_image_open()
 * reads, with --offset counted from its start.
 */
#ifndef FSCK_CONTAINER_H
#define FSCK_CONTAINER_H

#include <stddef.h>

#include "erofs/gpt.h"
#include "erofs/lp.h"
#include "erofs/source.h"
#include "erofs/verity.h"
#include "fsck.h"
#include "util/report.h"

/*
 * The source to check: IMAGE itself, or its partition cfg->partition
 * (with --list-partitions: IMAGE, the super image); with --write-image,
 * whatever it holds, EROFS or not. The checksums of a
 * sparse image are verified first; a mismatch is reported as a problem and
 * the run goes on. With pair, the dm-verity tree IMAGE carries goes
 * there (pair->found). Returns 0, or a negative errno after reporting why.
 */
/*
 * A dm-verity tree IMAGE carries (docs/android.md): a GPT partition's
 * paired verity partition, as the Discoverable Partitions Specification
 * pairs them (root-x86-64 with the one root-x86-64-verity: the root hash
 * is the data partition's UUID then the verity partition's, or the
 * rootHash of the root-x86-64-verity-sig partition's JSON), or an AVB
 * hashtree footer (the tree in IMAGE after the filesystem, with no
 * superblock; its parameters and root digest in the footer's vbmeta).
 */
struct container_verity {
	bool found;
	bool damaged; /* IMAGE carries one whose description is damaged */
	struct erofs_source *hash; /* the verity partition's; NULL: IMAGE */
	uint64_t offset; /* of the superblock in hash, or of the tree */
	bool no_superblock; /* then params: */
	struct erofs_verity_info params;
	uint8_t root[EROFS_DIGEST_MAX];
	size_t root_len;
	char what[96]; /* names the tree in messages */
	char root_from[96]; /* where root came from */
	/* the same for --json: gpt-uuids, gpt-signature or vbmeta */
	const char *root_kind;
};

int container_open(const struct fsck_cfg *cfg, struct report *rep,
		   struct erofs_source **src, struct container_verity *pair);

/* Does src hold an EROFS superblock at offset? */
bool container_holds_erofs(const struct erofs_source *src, uint64_t offset);

/*
 * --write-image=path: every byte of src (IMAGE out of its container, the
 * partition of --partition), zero runs as holes with --sparse, under a
 * hidden name renamed to path when complete (outfile.h); for
 * --write-partitions, to cfg->write_name in cfg->write_dirfd, where
 * nothing is followed and nothing there replaced without --overwrite.
 * 0, or a negative errno after reporting why.
 */
int container_write_image(const struct fsck_cfg *cfg, struct report *rep,
			  const struct erofs_source *src, const char *path);

/*
 * The metadata of the super image src, of the slot of --slot, or a
 * negative errno after reporting why; a damaged primary copy read from
 * its backup is a warning.
 */
int container_read_lp(const struct fsck_cfg *cfg, struct report *rep,
		      const struct erofs_source *src, struct erofs_lp **lp);

/* Is src a GPT disk? 1 or 0, or a negative errno after reporting. */
int container_detect_gpt(struct report *rep, const struct erofs_source *src);

/*
 * The GPT of src, or a negative errno after reporting why; a damaged
 * primary header read from the backup is a warning.
 */
int container_read_gpt(struct report *rep, const struct erofs_source *src,
		       struct erofs_gpt **gpt);

/*
 * --list-partitions: one line per partition of the GPT disk or super
 * image src on standard output. 0, or a negative errno after reporting
 * why.
 */
int container_list_partitions(const struct fsck_cfg *cfg, struct report *rep,
			      const struct erofs_source *src);

/*
 * What the first bytes of src show it holds: "EROFS", "ext4", "f2fs",
 * "squashfs", "gzip data", "a GPT disk", ..., "zeros", "nothing" (no
 * bytes), "unreadable data" or "unknown data".
 */
const char *container_content(const struct erofs_source *src);

#endif
