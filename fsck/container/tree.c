// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "container/tree.h"
#include "erofs/avb.h"
#include "util/hex.h"

/* The UUID's 16 bytes in their text order: the root hash's order. */
static void uuid_bytes(const uint8_t guid[16], uint8_t out[16])
{
	char text[37];
	size_t n = 0, i;

	erofs_gpt_guid_text(guid, text);
	for (i = 0; text[i] && n < 16; i += text[i] == '-' ? 1 : 2)
		if (text[i] != '-')
			n += hex_decode(text + i, 2, out + n, 1);
}

/*
 * The partition of type "<type of part><suffix>" (root-x86-64-verity for
 * root-x86-64 and "-verity") into *found, NULL when there is none: 0; two
 * are ambiguous, as systemd finds them (-EFSCORRUPTED naming both): which
 * one holds the tree is not for a checker to guess.
 */
static int gpt_partner(const struct erofs_gpt *gpt,
		       const struct erofs_gpt_part *part, const char *suffix,
		       const struct erofs_gpt_part **found,
		       struct erofs_err *err)
{
	size_t n;
	uint32_t i;

	*found = NULL;
	if (!part->type_name || strstr(part->type_name, "-verity"))
		return 0;
	n = strlen(part->type_name);
	for (i = 0; i < gpt->nparts; i++) {
		const char *t = gpt->parts[i].type_name;

		if (!t || strncmp(t, part->type_name, n) ||
		    strcmp(t + n, suffix))
			continue;
		if (*found)
			return erofs_error(
				err, -EFSCORRUPTED, EROFS_NO_NID,
				gpt->parts[i].offset,
				"GPT partitions %u and %u are both %s: which holds the tree of partition %u is ambiguous",
				(*found)->index, gpt->parts[i].index, t,
				part->index);
		*found = &gpt->parts[i];
	}
	return 0;
}

/*
 * A root hash the signature partition gives: the data partition's UUID
 * is its first 16 bytes and the verity partition's its last 16, as
 * systemd pairs them. 0, or -EFSCORRUPTED naming the three partitions.
 */
static int gpt_paired(const struct erofs_gpt_part *part,
		      const struct erofs_gpt_part *vp,
		      const struct erofs_gpt_part *sig,
		      const struct container_verity *tree,
		      struct erofs_err *err)
{
	uint8_t a[16], b[16];

	uuid_bytes(part->uuid, a);
	uuid_bytes(vp->uuid, b);
	if (tree->root_len >= 32 && !memcmp(a, tree->root, 16) &&
	    !memcmp(b, tree->root + tree->root_len - 16, 16))
		return 0;
	return erofs_error(
		err, -EFSCORRUPTED, EROFS_NO_NID, sig->offset,
		"GPT partitions %u and %u: their UUIDs are not the two halves of the rootHash of partition %u (%s), as they pair",
		part->index, vp->index, sig->index, sig->type_name);
}

/* A signature partition holds one JSON object, padded with NUL bytes. */
#define SIG_JSON_MAX (64u << 10)

/*
 * The "rootHash" string of the JSON object in sig, into tree: true when
 * there is one. Only that member is read: the signature and certificate
 * are not checked.
 */
static bool root_of_sig(const struct erofs_source *disk,
			const struct erofs_gpt_part *sig,
			struct container_verity *tree)
{
	size_t len =
		sig->size < SIG_JSON_MAX ? (size_t)sig->size : SIG_JSON_MAX;
	struct erofs_source *src;
	struct erofs_err err;
	char *json = malloc(len + 1), *p, *end;
	size_t n = 0;

	erofs_err_clear(&err);
	if (!json || erofs_gpt_open_partition(&src, disk, sig, &err)) {
		erofs_err_drop(&err);
		free(json);
		return false;
	}
	if (!erofs_source_read(src, json, len, 0, &err)) {
		json[len] = '\0';
		p = strstr(json, "\"rootHash\"");
		p = p ? p + strlen("\"rootHash\"") : NULL;
		while (p &&
		       (*p == ' ' || *p == ':' || *p == '\t' || *p == '\n'))
			p++;
		end = p && *p == '"' ? strchr(++p, '"') : NULL;
		n = end ? hex_decode(p, (size_t)(end - p), tree->root,
				     sizeof(tree->root))
			: 0;
		if (n) {
			tree->root_len = n;
			tree->root_kind = "gpt-signature";
			snprintf(
				tree->root_from, sizeof(tree->root_from),
				"the rootHash of GPT partition %u (%s), its signature not checked",
				sig->index, sig->type_name);
		}
	}
	erofs_err_drop(&err);
	erofs_source_close(src);
	free(json);
	return n;
}

int tree_of_gpt(const struct erofs_source *disk, const struct erofs_gpt *gpt,
		const struct erofs_gpt_part *part,
		struct container_verity *tree, struct erofs_err *err)
{
	const struct erofs_gpt_part *vp, *sig;
	int ret = gpt_partner(gpt, part, "-verity", &vp, err);

	if (!ret)
		ret = gpt_partner(gpt, part, "-verity-sig", &sig, err);
	if (ret || !vp)
		return ret;
	uuid_bytes(part->uuid, tree->root);
	uuid_bytes(vp->uuid, tree->root + 16);
	tree->root_len = 32;
	snprintf(tree->root_from, sizeof(tree->root_from),
		 "the partitions' UUIDs");
	tree->root_kind = "gpt-uuids";
	if (sig && root_of_sig(disk, sig, tree))
		ret = gpt_paired(part, vp, sig, tree, err);
	if (ret)
		return ret;
	snprintf(tree->what, sizeof(tree->what), "GPT partition %u (%s)",
		 vp->index, vp->type_name);
	ret = erofs_gpt_open_partition(&tree->hash, disk, vp, err);
	tree->found = !ret;
	return ret;
}

int tree_of_avb(struct report *rep, const struct erofs_source *src,
		struct container_verity *tree)
{
	struct fsck_loc loc = { .label = rep->image,
				.nid = EROFS_NO_NID,
				.offset = EROFS_NO_OFFSET };
	struct erofs_avb_hashtree avb;
	struct erofs_err err;
	int ret;

	erofs_err_clear(&err);
	ret = erofs_avb_find_hashtree(src, &avb, &err);
	if (ret < 0) {
		tree->damaged = erofs_err_is_corruption(ret);
		report_lib_error(rep, &loc, &err, ret);
		return ret == -ENOMEM || ret == -EIO ? ret : 0;
	}
	if (!ret)
		return 0;
	tree->found = true;
	tree->offset = avb.tree_offset;
	tree->no_superblock = true;
	tree->params = avb.params;
	memcpy(tree->root, avb.root, avb.root_len);
	tree->root_len = avb.root_len;
	snprintf(tree->what, sizeof(tree->what),
		 "the AVB hashtree footer (partition \"%.40s\")",
		 avb.partition);
	tree->root_kind = "vbmeta";
	snprintf(tree->root_from, sizeof(tree->root_from),
		 "its vbmeta at byte %llu, %s",
		 (unsigned long long)avb.vbmeta_offset,
		 avb.signed_vbmeta ? "whose signature is not checked"
				   : "which is not signed");
	return 0;
}
