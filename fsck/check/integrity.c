// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/integrity.h"
#include "check/verity.h"
#include "container/container.h"
#include "erofs/image.h"
#include "fsck.h"
#include "util/report.h"
#include "util/strbuf.h"

/* Where the root hash of the tree in use (or that failed) came from. */
static void integrity_root(struct integrity *in, const struct fsck_cfg *cfg,
			   const struct verity_check *vc,
			   const struct container_verity *carried)
{
	bool tree = vc && (vc->v || vc->unusable);

	in->root = "none";
	in->root_text = "no hash tree";
	if (tree && cfg->root_hash) {
		in->root = "option";
		in->root_text = "--root-hash";
		in->anchored = true;
	} else if (tree && carried && carried->found) {
		in->root = carried->root_kind;
		in->root_text = carried->root_from;
	}
}

/* The bytes of device i of img that the filesystem uses. */
static uint64_t device_bytes(const struct erofs_image *img, unsigned int i)
{
	if (!i)
		return img->blocks << img->blkszbits;
	return img->devs[i].blocks ? img->devs[i].blocks << img->blkszbits
				   : img->devs[i].size;
}

int integrity_gather(struct integrity *in, const struct fsck_cfg *cfg,
		     const struct erofs_image *img,
		     const struct verity_check *vc,
		     const struct container_verity *carried,
		     uint64_t file_bytes, uint64_t digests_checked)
{
	unsigned int i;

	*in = (struct integrity){ .file_bytes = file_bytes,
				  .digests_checked = digests_checked };
	integrity_root(in, cfg, vc, carried);
	in->tree_failed = vc && vc->unusable;
	if (!img)
		return 0;
	in->devs = calloc(img->ndevs, sizeof(*in->devs));
	if (!in->devs)
		return -ENOMEM;
	in->ndevs = img->ndevs;
	for (i = 0; i < img->ndevs; i++) {
		in->devs[i].path = img->devs[i].path;
		in->devs[i].bytes = device_bytes(img, i);
		in->unverified += in->devs[i].bytes;
	}
	if (!vc || !vc->v)
		return 0;
	/* a tree covers the primary device (verity_cover() says how far) */
	in->devs[0].verified = vc->fs_covered;
	in->verified = vc->fs_covered;
	in->unverified -= in->verified;
	return 0;
}

void integrity_fini(struct integrity *in)
{
	free(in->devs);
	in->devs = NULL;
}

/* No tree verified the data: what is left unchecked, in words. */
static void unverified_line(const struct integrity *in, struct report *rep)
{
	char digests[96] = "", size[SIZE_TEXT_MAX];

	if (in->digests_checked)
		snprintf(digests, sizeof(digests),
			 "; the content of %llu files checked by their digests",
			 (unsigned long long)in->digests_checked);
	report_msg(
		rep, FSCK_LVL_WARN,
		"%s: %s: %s of file data and every inode field are unchecked (EROFS has no checksums; use --verity or --xattr-inode-digest)%s",
		rep->image,
		in->tree_failed ? "the dm-verity tree could not be used"
				: "no hash tree",
		size_text(size, in->file_bytes), digests);
}

/* The line of a run whose data no tree verified against a user's root. */
static void integrity_line(const struct integrity *in, struct report *rep)
{
	char size[SIZE_TEXT_MAX];
	unsigned int i;

	if (in->tree_failed || !strcmp(in->root, "none")) {
		unverified_line(in, rep);
		return;
	}
	if (!in->anchored)
		report_msg(
			rep, FSCK_LVL_WARN,
			"%s: root hash taken from the image (%s): proves consistency, not origin (--root-hash gives the one you trust)",
			rep->image, in->root_text);
	for (i = 1; i < in->ndevs; i++)
		report_msg(rep, FSCK_LVL_WARN,
			   "%s: device %u (%s): %s that no hash tree covers",
			   rep->image, i, in->devs[i].path,
			   size_text(size, in->devs[i].bytes));
}

void integrity_report(const struct integrity *in, const struct fsck_cfg *cfg,
		      struct report *rep)
{
	struct fsck_loc loc = { .label = rep->image,
				.nid = EROFS_NO_NID,
				.offset = EROFS_NO_OFFSET };
	unsigned int i;

	integrity_line(in, rep);
	if (!cfg->require_verity)
		return;
	if (in->tree_failed || !strcmp(in->root, "none"))
		report_problem(
			rep, &loc,
			"--require-verity: no dm-verity tree verified the image");
	else if (!in->anchored)
		report_problem(
			rep, &loc,
			"--require-verity: the root hash comes from the image (%s), not from --root-hash",
			in->root_text);
	for (i = 0; i < in->ndevs; i++) {
		if (in->devs[i].verified == in->devs[i].bytes ||
		    (!i && !in->verified))
			continue;
		report_problem(
			rep, &loc,
			"--require-verity: device %u (%s): %llu of its %llu bytes are covered by no hash tree",
			i, in->devs[i].path,
			(unsigned long long)(in->devs[i].bytes -
					     in->devs[i].verified),
			(unsigned long long)in->devs[i].bytes);
	}
}
