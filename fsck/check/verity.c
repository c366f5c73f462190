// SPDX-License-Identifier: MIT
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/verity.h"
#include "erofs/image.h"
#include "fsck.h"
#include "util/grow.h"
#include "util/hex.h"

/*
 * A problem of the tree, where: the file it lies in (label), so that an
 * offset in a hash file is not taken for one in IMAGE.
 */
static int verity_failed(struct report *rep, const char *label,
			 struct erofs_err *err, int ret)
{
	struct fsck_loc loc = { .label = label,
				.nid = EROFS_NO_NID,
				.offset = EROFS_NO_OFFSET };

	report_lib_error(rep, &loc, err, ret);
	return ret;
}

/*
 * The tree t for the data device *src: its upper levels checked, then
 * *src replaced by a source that checks every read (erofs/verity.h).
 * Parameters no tree has are a usage error when the options named the
 * tree (named says how), and a problem of the image when it carried it.
 */
static int verity_open_tree(struct verity_check *vc, struct erofs_source **src,
			    struct report *rep,
			    const struct container_verity *tree,
			    const char *named)
{
	struct erofs_verity_opts o = {
		.data = *src,
		.hash = vc->hash ? vc->hash : *src,
		.hash_offset = tree->offset,
		.root = tree->root,
		.root_len = tree->root_len,
		.params = tree->no_superblock ? &tree->params : NULL,
		.params_from = tree->what,
	};
	struct erofs_source *checked;
	struct erofs_err err;
	int ret;

	erofs_err_clear(&err);
	ret = erofs_verity_open(&vc->v, &o, &err);
	if (ret == -EINVAL && named) {
		/* veritysetup --no-superblock writes a tree without one */
		report_usage(
			rep, "%s: %s%s", named, err.msg,
			!tree->no_superblock && strstr(err.msg, "superblock:")
				? " (a tree made with --no-superblock has none: give --no-superblock and its parameters)"
				: "");
		erofs_err_drop(&err);
		return ret;
	}
	if (ret == -EINVAL) {
		/* what the image carries is damage, and the check goes on */
		err.code = ret = -EFSCORRUPTED;
	}
	if (!ret)
		ret = erofs_verity_source(&checked, *src, vc->v, &err);
	if (ret) {
		vc->unusable = true;
		return verity_failed(rep,
				     vc->hash ? erofs_source_name(vc->hash)
					      : rep->image,
				     &err, ret);
	}
	*src = checked;
	vc->block_size = erofs_verity_info(vc->v)->data_block_size;
	return 0;
}

int verity_cover(struct verity_check *vc, const struct fsck_cfg *cfg,
		 const struct erofs_image *img, struct report *rep)
{
	const struct erofs_verity_info *i;
	struct fsck_loc loc = { .label = rep->image,
				.nid = EROFS_NO_NID,
				.offset = EROFS_NO_OFFSET };
	uint64_t start = img->devs[0].offset, fs = img->blocks * img->blksz;
	uint64_t end = start + fs, tree;

	if (!vc->v)
		return 0;
	if (!cfg->verity && cfg->have_hash_offset && cfg->hash_offset < end) {
		report_usage(
			rep,
			"--hash-offset=%llu lies inside the filesystem, whose blocks end at byte %llu",
			(unsigned long long)cfg->hash_offset,
			(unsigned long long)end);
		return -EINVAL;
	}
	i = erofs_verity_info(vc->v);
	tree = i->data_blocks * i->data_block_size;
	vc->fs_covered = tree > start ? tree - start : 0;
	if (vc->fs_covered > fs)
		vc->fs_covered = fs;
	if (vc->fs_covered == fs)
		return 0;
	report_problem(
		rep, &loc,
		"the filesystem's blocks end at byte %llu, past the %llu bytes the dm-verity tree covers: the tree does not cover the filesystem (a tree cut short passes its root hash; what lies past it is read as unverified and fails)",
		(unsigned long long)end, (unsigned long long)tree);
	return 0;
}

void verity_offset_hint(const struct verity_check *vc,
			const struct fsck_cfg *cfg, uint64_t image_size,
			struct report *rep)
{
	const struct erofs_verity_info *i;
	uint64_t covered;

	if (!vc->v || !cfg->verity || !cfg->offset)
		return;
	i = erofs_verity_info(vc->v);
	covered = i->data_blocks * i->data_block_size;
	if (covered >= image_size)
		return;
	report_msg(
		rep, FSCK_LVL_WARN,
		"%s: the tree of --verity covers %llu bytes from byte 0 of IMAGE, which holds %llu; one made for the filesystem alone (from --offset=%llu) covers a file or device holding just that (losetup -o %llu, or dd skip=)",
		rep->image, (unsigned long long)covered,
		(unsigned long long)image_size, (unsigned long long)cfg->offset,
		(unsigned long long)cfg->offset);
}

static void verity_init(struct verity_check *vc)
{
	memset(vc, 0, sizeof(*vc));
	pthread_mutex_init(&vc->lock, NULL);
}

/* --no-superblock: the parameters veritysetup would take, as options. */
static void params_of_options(struct container_verity *t,
			      const struct fsck_cfg *cfg,
			      const struct erofs_source *data)
{
	struct erofs_verity_info *p = &t->params;
	uint64_t bytes = erofs_source_size(data);

	t->no_superblock = true;
	p->hash_type = cfg->verity_format;
	snprintf(p->algorithm, sizeof(p->algorithm), "%s", cfg->verity_hash);
	p->data_block_size = cfg->data_block_size;
	p->hash_block_size = cfg->hash_block_size;
	p->data_blocks = cfg->data_blocks ? cfg->data_blocks
					  : bytes / cfg->data_block_size;
	/* options.c let through only hex of at most the salt's room */
	p->salt_size =
		(uint16_t)(cfg->salt ? hex_decode(cfg->salt, (size_t)-1,
						  p->salt, sizeof(p->salt))
				     : 0);
	snprintf(t->what, sizeof(t->what), "--no-superblock parameters");
}

/* The tree --verity or --hash-offset names, into t. */
static int tree_of_options(struct container_verity *t,
			   const struct fsck_cfg *cfg,
			   const struct erofs_source *data, struct report *rep)
{
	struct erofs_err err;
	int ret;

	if (cfg->verity) {
		erofs_err_clear(&err);
		ret = erofs_source_open(&t->hash, cfg->verity, -1, &err);
		if (ret)
			return verity_failed(rep, cfg->verity, &err, ret);
	}
	t->found = true;
	t->offset = cfg->hash_offset;
	if (cfg->no_superblock)
		params_of_options(t, cfg, data);
	else
		snprintf(t->what, sizeof(t->what), "superblock");
	return 0;
}

int verity_open(struct verity_check *vc, const struct fsck_cfg *cfg,
		struct erofs_source **src, struct report *rep,
		struct container_verity *carried)
{
	struct container_verity own = { .found = false };
	struct container_verity *t = carried;
	char named[PATH_MAX + 16];
	int ret;

	verity_init(vc);
	if (cfg->verity || cfg->have_hash_offset) {
		t = &own;
		ret = tree_of_options(t, cfg, *src, rep);
		if (ret)
			return ret;
	} else if (!t || !t->found || cfg->no_verity) {
		/* a tree to check that cannot be read: none is used */
		vc->unusable = t && t->damaged && !cfg->no_verity;
		if (!cfg->root_hash || cfg->no_verity || vc->unusable)
			return 1;
		report_usage(
			rep,
			"--root-hash: %s carries no dm-verity tree (no AVB hashtree footer, no paired verity partition); name one with --verity=HASHFILE or --hash-offset=N",
			rep->image);
		return -EINVAL;
	} else {
		report_msg(
			rep, FSCK_LVL_INFO,
			"%s: the dm-verity tree of %s, its root hash from %s",
			rep->image, t->what,
			cfg->root_hash ? "--root-hash" : t->root_from);
	}
	/* options.c let through only hex of a digest's length */
	if (cfg->root_hash)
		t->root_len = hex_decode(cfg->root_hash, (size_t)-1, t->root,
					 sizeof(t->root));
	vc->hash = t->hash;
	t->hash = NULL;
	if (t != &own)
		return verity_open_tree(vc, src, rep, t, NULL);
	if (cfg->verity)
		snprintf(named, sizeof(named), "--verity=%s", cfg->verity);
	else
		snprintf(named, sizeof(named), "--hash-offset=%llu",
			 (unsigned long long)cfg->hash_offset);
	return verity_open_tree(vc, src, rep, t, named);
}

void verity_close(struct verity_check *vc)
{
	erofs_verity_close(vc->v);
	if (vc->hash)
		erofs_source_close(vc->hash);
	free(vc->bad);
	free(vc->bad_leaves);
	pthread_mutex_destroy(&vc->lock);
}

uint64_t verity_leaves(const struct verity_check *vc)
{
	return vc->v ? erofs_verity_info(vc->v)->leaf_blocks : 0;
}

int verity_leaf_task(void *worker, void *arg)
{
	struct verity_leaf *l = arg;
	struct verity_check *vc = l->vc;
	size_t per = erofs_verity_info(vc->v)->data_per_leaf, n;
	uint64_t *bad = malloc(per * sizeof(*bad));
	struct erofs_err err;
	int ret;

	(void)worker;
	if (!bad)
		return -ENOMEM;
	erofs_err_clear(&err);
	ret = erofs_verity_check_leaf(vc->v, l->leaf, bad, &n, &err);
	erofs_err_drop(&err);
	pthread_mutex_lock(&vc->lock);
	if (ret == -EFSCORRUPTED) {
		if (!ARRAY_GROW(vc->bad_leaves, vc->capleaves,
				vc->nbad_leaves + 1, 64))
			vc->bad_leaves[vc->nbad_leaves++] = l->leaf;
		else
			ret = -ENOMEM;
	} else if (ret) {
		if (!vc->read_error)
			vc->read_error = -ret;
	} else if (!ARRAY_GROW(vc->bad, vc->capbad, vc->nbad + n, 64)) {
		/* no array is made while every block matches */
		if (n)
			memcpy(vc->bad + vc->nbad, bad, n * sizeof(*bad));
		vc->nbad += n;
	} else {
		ret = -ENOMEM;
	}
	pthread_mutex_unlock(&vc->lock);
	free(bad);
	return ret == -ENOMEM ? ret : 0;
}

static int u64_order(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Each data block the sweep found failing: no read of the run met it. */
static void verity_report_swept(const struct verity_check *vc,
				struct report *rep, bool decoded)
{
	struct fsck_loc loc = { .label = rep->image,
				.nid = EROFS_NO_NID,
				.offset = EROFS_NO_OFFSET };
	size_t k;

	for (k = 0; k < vc->nbad; k++) {
		loc.offset = vc->bad[k] * vc->block_size;
		report_problem(
			rep, &loc, "data block %llu fails its verity hash; %s",
			(unsigned long long)vc->bad[k],
			decoded ? "nothing this run read lies in it (free space, or data of a file left out of the run)"
				: "this check reads no file data: --extract names the file it belongs to, if any");
	}
}

int verity_sort(struct verity_check *vc, struct report *rep, bool decoded)
{
	const struct erofs_verity_info *i = erofs_verity_info(vc->v);
	struct fsck_loc loc = { .label = rep->image,
				.nid = EROFS_NO_NID,
				.offset = EROFS_NO_OFFSET };
	uint64_t first, last;
	size_t k;

	if (vc->nbad)
		qsort(vc->bad, vc->nbad, sizeof(*vc->bad), u64_order);
	if (vc->nbad_leaves)
		qsort(vc->bad_leaves, vc->nbad_leaves, sizeof(*vc->bad_leaves),
		      u64_order);
	for (k = 0; k < vc->nbad_leaves; k++) {
		first = vc->bad_leaves[k] * i->data_per_leaf;
		last = first + i->data_per_leaf - 1;
		if (last >= i->data_blocks)
			last = i->data_blocks - 1;
		report_problem(
			rep, &loc,
			"dm-verity tree: leaf hash block %llu fails its hash: data blocks %llu to %llu cannot be checked",
			(unsigned long long)vc->bad_leaves[k],
			(unsigned long long)first, (unsigned long long)last);
	}
	if (vc->read_error)
		report_fatal(rep, "%s: dm-verity check: cannot read: %s",
			     rep->image, strerror(vc->read_error));
	verity_report_swept(vc, rep, decoded);
	report_msg(
		rep, FSCK_LVL_INFO,
		"dm-verity (%s, a tree of %u level%s): %llu data block%s of %u bytes checked, %zu fail",
		i->algorithm, i->levels, i->levels == 1 ? "" : "s",
		(unsigned long long)i->data_blocks,
		i->data_blocks == 1 ? "" : "s", i->data_block_size, vc->nbad);
	return vc->read_error ? -vc->read_error : 0;
}
