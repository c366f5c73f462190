/* SPDX-License-Identifier: MIT */
/*
 * What a run verified, and against what (docs/ARCHITECTURE.md, "What a
 * clean exit means"). EROFS has no checksum of file data or of most inode
 * fields: a clean check alone says the image is consistent, not that it
 * is the one that was built. Only a dm-verity tree (every block) or the
 * image-share digests (each file's content) say more, and a tree says
 * where the image came from only when its root hash came from the user.
 *
 * integrity_gather() takes the facts after the check; integrity_report()
 * prints the one line a default run gives when data was not verified by
 * a root hash the user gave, and, with --require-verity, reports each
 * thing short of that as a problem; json.c writes it as "integrity".
 */
#ifndef FSCK_INTEGRITY_H
#define FSCK_INTEGRITY_H

#include <stdbool.h>
#include <stdint.h>

struct container_verity;
struct erofs_image;
struct fsck_cfg;
struct report;
struct verity_check;

/* One device of the filesystem: its bytes, those a tree covers. */
struct integrity_device {
	const char *path;
	uint64_t bytes, verified;
};

struct integrity {
	/*
	 * Where the root hash came from: "option" (--root-hash),
	 * "gpt-uuids", "gpt-signature" (its signature not checked),
	 * "vbmeta" (its signature not checked), or "none" (no tree).
	 */
	const char *root;
	const char *root_text; /* the same, in words */
	bool anchored; /* the root hash is the user's */
	bool tree_failed; /* a tree was to be checked and could not be */
	uint64_t verified, unverified; /* bytes, every device */
	struct integrity_device *devs;
	unsigned int ndevs;
	uint64_t file_bytes; /* the regular files' sizes, if walked */
	uint64_t digests_checked; /* files whose digest was checked */
};

/*
 * The facts of a run on img (NULL: it did not open), with the tree vc
 * and what the container carried. 0 or -ENOMEM.
 */
int integrity_gather(struct integrity *in, const struct fsck_cfg *cfg,
		     const struct erofs_image *img,
		     const struct verity_check *vc,
		     const struct container_verity *carried,
		     uint64_t file_bytes, uint64_t digests_checked);
void integrity_fini(struct integrity *in);

/*
 * The verdict's line on what was not verified (at the default level),
 * and with --require-verity a problem for each thing short of every
 * byte verified against the user's root hash.
 */
void integrity_report(const struct integrity *in, const struct fsck_cfg *cfg,
		      struct report *rep);

#endif
