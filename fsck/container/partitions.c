// SPDX-License-Identifier: MIT
/*
 * --list-partitions: for a GPT disk, list_gpt() says what; for a super
 * image, its metadata in two comment lines,
 * then a header and one tab-separated line per partition, in table order:
 *	NAME GROUP SIZE ATTRIBUTES EXTENTS CONTENT
 * SIZE in bytes; ATTRIBUTES a comma-separated list or "-"; EXTENTS
 * "DEVICE:SECTOR+SECTORS" or "zero+SECTORS" each, comma-separated, or
 * "-"; CONTENT what the partition holds (container_content()), for EROFS
 * with its block size and features, or why it cannot be read.
 *
 * With --json, one object instead:
 *   {"image": "...", "metadata_version": "10.2", "slot": 0, "slots": 2,
 *    "block_size": 4096,
 *    "block_devices": [{"name": "super", "size": N, "first_sector": N}],
 *    "partitions": [{"name": "system_a", "group": "main_a", "slot": "a",
 *      "size": N, "attributes": ["readonly"],
 *      "extents": [{"device": "super", "sector": N, "sectors": N} or
 *                  {"zero": true, "sectors": N}],
 *      "holds": "EROFS", "content": "<CONTENT as above>"}]}
 * "slot" of a partition is the letter of its _a or _b suffix, or null.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "container/container.h"
#include "erofs/gpt.h"
#include "erofs/image.h"
#include "erofs/lp.h"
#include "output/json.h"
#include "util/strbuf.h"

static void put_attrs(struct strbuf *sb, uint32_t attrs)
{
	static const struct {
		uint32_t bit;
		const char *name;
	} names[] = {
		{ EROFS_LP_READONLY, "readonly" },
		{ EROFS_LP_SLOT_SUFFIXED, "slot-suffixed" },
		{ EROFS_LP_UPDATED, "updated" },
		{ EROFS_LP_DISABLED, "disabled" },
	};
	bool any = false;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!(attrs & names[i].bit))
			continue;
		sb_addf(sb, "%s%s", any ? "," : "", names[i].name);
		any = true;
	}
	if (!any)
		sb_addf(sb, "-");
}

static void put_extents(struct strbuf *sb, const struct erofs_lp *lp,
			const struct erofs_lp_partition *p)
{
	uint32_t k;

	for (k = p->first_extent; k < p->first_extent + p->extents; k++) {
		const struct erofs_lp_extent *x = &lp->extents[k];

		if (k > p->first_extent)
			sb_addf(sb, ",");
		if (x->type == EROFS_LP_ZERO)
			sb_addf(sb, "zero+%llu",
				(unsigned long long)x->sectors);
		else
			sb_addf(sb, "%s:%llu+%llu", lp->devices[x->device].name,
				(unsigned long long)x->target,
				(unsigned long long)x->sectors);
	}
	if (!p->extents)
		sb_addf(sb, "-");
}

/* An EROFS partition: its block size and features, or why not. */
static void put_erofs(struct strbuf *sb, struct erofs_source *src)
{
	struct erofs_open_opts oo = { .source = src };
	struct erofs_image *img;
	struct erofs_err err;
	char features[256];

	erofs_err_clear(&err);
	if (erofs_image_open(&img, &oo, &err) < 0) {
		sb_addf(sb, "EROFS, damaged: %s", err.msg);
		erofs_err_drop(&err);
		return;
	}
	if (erofs_feature_names(img, features, sizeof(features)) < 0)
		features[0] = '\0';
	sb_addf(sb, "EROFS, %u-byte blocks, features: %s", img->blksz,
		features[0] ? features : "none");
	erofs_image_close(img);
}

/* CONTENT of a partition open as src (closed here) into sb; in short. */
static const char *put_source_content(struct strbuf *sb,
				      struct erofs_source *src, uint64_t size)
{
	const char *what = container_content(src);

	if (!strcmp(what, "EROFS")) {
		put_erofs(sb, src);
		return what;
	}
	what = size ? what : "empty";
	sb_adds(sb, what);
	erofs_source_close(src);
	return what;
}

/* CONTENT into sb; what the partition holds, in short. */
static const char *put_content(struct strbuf *sb,
			       const struct erofs_source *super,
			       const struct erofs_lp *lp,
			       const struct erofs_lp_partition *p)
{
	struct erofs_source *src;
	struct erofs_err err;

	erofs_err_clear(&err);
	if (erofs_lp_open_partition(&src, super, lp, p, &err) < 0) {
		sb_addf(sb, "unreadable: %s", err.msg);
		erofs_err_drop(&err);
		return "unreadable";
	}
	return put_source_content(sb, src, p->size);
}

/*
 * A name the table gives, as --list quotes paths (strbuf.h): "-" when
 * empty, so that a listing's fields stay one word each.
 */
static void put_name(struct strbuf *sb, const char *name)
{
	if (name[0])
		sb_quote(sb, name, strlen(name));
	else
		sb_addc(sb, '-');
}

static void put_summary(const struct erofs_lp *lp, const char *image)
{
	struct strbuf sb = STRBUF_INIT;
	uint32_t i;

	printf("# %s: logical partition metadata %u.%u, slot %u of %u, logical block size %u\n",
	       image, lp->major, lp->minor, lp->slot, lp->slots,
	       lp->block_size);
	printf("# block devices:");
	for (i = 0; i < lp->ndevices; i++) {
		sb_reset(&sb);
		put_name(&sb, lp->devices[i].name);
		printf("%s %s (%llu bytes, partitions from sector %llu)",
		       i ? "," : "", sb.failed ? "?" : sb.s,
		       (unsigned long long)lp->devices[i].size,
		       (unsigned long long)lp->devices[i].first_sector);
	}
	sb_release(&sb);
	printf("\nNAME\tGROUP\tSIZE\tATTRIBUTES\tEXTENTS\tCONTENT\n");
}

static void json_extents(struct strbuf *sb, const struct erofs_lp *lp,
			 const struct erofs_lp_partition *p)
{
	uint32_t k;

	sb_addf(sb, "[");
	for (k = p->first_extent; k < p->first_extent + p->extents; k++) {
		const struct erofs_lp_extent *x = &lp->extents[k];

		sb_addf(sb, "%s{", k > p->first_extent ? ", " : "");
		if (x->type == EROFS_LP_ZERO) {
			sb_addf(sb, "\"zero\": true");
		} else {
			sb_addf(sb, "\"device\": ");
			json_str(sb, lp->devices[x->device].name);
			sb_addf(sb, ", \"sector\": %llu",
				(unsigned long long)x->target);
		}
		sb_addf(sb, ", \"sectors\": %llu}",
			(unsigned long long)x->sectors);
	}
	sb_addf(sb, "]");
}

static void json_attrs(struct strbuf *sb, uint32_t attrs)
{
	struct strbuf names = STRBUF_INIT;
	const char *p, *comma;

	put_attrs(&names, attrs);
	sb_addf(sb, "[");
	for (p = names.s; p && strcmp(p, "-"); p = comma ? comma + 1 : NULL) {
		comma = strchr(p, ',');
		sb_addf(sb, "%s\"%.*s\"", p == names.s ? "" : ", ",
			(int)(comma ? comma - p : (ptrdiff_t)strlen(p)), p);
	}
	sb_addf(sb, "]");
	sb_release(&names);
}

/* A partition's name ends in _a or _b: the slot's letter, or 0. */
static char slot_of(const char *name)
{
	size_t len = strlen(name);

	if (len > 2 && name[len - 2] == '_' &&
	    (name[len - 1] == 'a' || name[len - 1] == 'b'))
		return name[len - 1];
	return 0;
}

static void json_partition(struct strbuf *sb, const struct erofs_source *src,
			   const struct erofs_lp *lp,
			   const struct erofs_lp_partition *p)
{
	struct strbuf content = STRBUF_INIT;
	const char *holds = put_content(&content, src, lp, p);
	char slot = slot_of(p->name);

	sb_addf(sb, "{\"name\": ");
	json_str(sb, p->name);
	sb_addf(sb, ", \"group\": ");
	json_str(sb, lp->groups[p->group].name);
	if (slot)
		sb_addf(sb, ", \"slot\": \"%c\"", slot);
	else
		sb_addf(sb, ", \"slot\": null");
	sb_addf(sb, ", \"size\": %llu, \"attributes\": ",
		(unsigned long long)p->size);
	json_attrs(sb, p->attrs);
	sb_addf(sb, ", \"extents\": ");
	json_extents(sb, lp, p);
	sb_addf(sb, ", \"holds\": ");
	json_str(sb, holds);
	sb_addf(sb, ", \"content\": ");
	json_str(sb, content.failed ? "" : content.s ? content.s : "");
	sb_addf(sb, "}");
	sb->failed |= content.failed;
	sb_release(&content);
}

static void json_lp(struct strbuf *sb, const struct erofs_source *src,
		    const struct erofs_lp *lp, const char *image)
{
	uint32_t i;

	sb_addf(sb, "{\n  \"image\": ");
	json_str(sb, image);
	sb_addf(sb,
		",\n  \"metadata_version\": \"%u.%u\", \"slot\": %u, \"slots\": %u, \"block_size\": %u,\n  \"block_devices\": [",
		lp->major, lp->minor, lp->slot, lp->slots, lp->block_size);
	for (i = 0; i < lp->ndevices; i++) {
		sb_addf(sb, "%s{\"name\": ", i ? ", " : "");
		json_str(sb, lp->devices[i].name);
		sb_addf(sb, ", \"size\": %llu, \"first_sector\": %llu}",
			(unsigned long long)lp->devices[i].size,
			(unsigned long long)lp->devices[i].first_sector);
	}
	sb_addf(sb, "],\n  \"partitions\": [");
	for (i = 0; i < lp->nparts; i++) {
		sb_addf(sb, "%s\n    ", i ? "," : "");
		json_partition(sb, src, lp, &lp->parts[i]);
	}
	sb_addf(sb, "%s]\n}\n", lp->nparts ? "\n  " : "");
}

/* A GPT partition's CONTENT into sb. */
static const char *put_gpt_content(struct strbuf *sb,
				   const struct erofs_source *disk,
				   const struct erofs_gpt_part *p)
{
	struct erofs_source *src;
	struct erofs_err err;

	erofs_err_clear(&err);
	if (erofs_gpt_open_partition(&src, disk, p, &err) < 0) {
		sb_addf(sb, "unreadable: %s", err.msg);
		erofs_err_drop(&err);
		return "unreadable";
	}
	return put_source_content(sb, src, p->size);
}

static void json_gpt(struct strbuf *sb, const struct erofs_source *disk,
		     const struct erofs_gpt *gpt, const char *image)
{
	struct strbuf content = STRBUF_INIT;
	char guid[37];
	const char *holds;
	uint32_t i;

	erofs_gpt_guid_text(gpt->disk_uuid, guid);
	sb_addf(sb, "{\n  \"image\": ");
	json_str(sb, image);
	sb_addf(sb,
		",\n  \"table\": \"gpt\", \"sector_size\": %u, \"disk_guid\": \"%s\", \"backup_header_read\": %s,\n  \"partitions\": [",
		gpt->sector, guid, gpt->used_backup ? "true" : "false");
	for (i = 0; i < gpt->nparts; i++) {
		const struct erofs_gpt_part *p = &gpt->parts[i];

		sb_reset(&content);
		holds = put_gpt_content(&content, disk, p);
		sb_addf(sb, "%s\n    {\"index\": %u, \"label\": ", i ? "," : "",
			p->index);
		json_str(sb, p->label);
		sb_addf(sb, ", \"type\": ");
		if (p->type_name)
			json_str(sb, p->type_name);
		else
			sb_addf(sb, "null");
		erofs_gpt_guid_text(p->type, guid);
		sb_addf(sb, ", \"type_guid\": \"%s\"", guid);
		erofs_gpt_guid_text(p->uuid, guid);
		sb_addf(sb,
			", \"uuid\": \"%s\", \"offset\": %llu, \"size\": %llu, \"holds\": ",
			guid, (unsigned long long)p->offset,
			(unsigned long long)p->size);
		json_str(sb, holds);
		sb_addf(sb, ", \"content\": ");
		json_str(sb, content.failed || !content.s ? "" : content.s);
		sb_addf(sb, "}");
		sb->failed |= content.failed;
	}
	sb_addf(sb, "%s]\n}\n", gpt->nparts ? "\n  " : "");
	sb_release(&content);
}

static void put_gpt_summary(const struct erofs_gpt *gpt, const char *image)
{
	char guid[37];

	erofs_gpt_guid_text(gpt->disk_uuid, guid);
	printf("# %s: GPT, %u-byte sectors, disk GUID %s, usable sectors %llu to %llu%s%s\n",
	       image, gpt->sector, guid, (unsigned long long)gpt->first_usable,
	       (unsigned long long)gpt->last_usable,
	       gpt->used_backup ? "; read from the backup header: " : "",
	       gpt->used_backup ? gpt->damage.msg : "");
	printf("INDEX\tLABEL\tTYPE\tOFFSET\tSIZE\tUUID\tCONTENT\n");
}

/*
 * --list-partitions of a GPT disk: a comment line, a header, then
 *	INDEX LABEL TYPE OFFSET SIZE UUID CONTENT
 * tab-separated, LABEL "-" when empty, TYPE the specification's name or
 * the GUID, OFFSET and SIZE in bytes; with --json one object as
 * json_gpt() writes it.
 */
static int list_gpt(const struct fsck_cfg *cfg, struct report *rep,
		    const struct erofs_source *src)
{
	struct strbuf sb = STRBUF_INIT;
	struct erofs_gpt *gpt;
	char type[37], uuid[37];
	uint32_t i;
	int ret = container_read_gpt(rep, src, &gpt);

	if (ret < 0)
		return ret;
	if (cfg->json)
		json_gpt(&sb, src, gpt, rep->image);
	else
		put_gpt_summary(gpt, rep->image);
	for (i = 0; !cfg->json && i < gpt->nparts && !sb.failed; i++) {
		const struct erofs_gpt_part *p = &gpt->parts[i];

		erofs_gpt_guid_text(p->type, type);
		erofs_gpt_guid_text(p->uuid, uuid);
		sb_reset(&sb);
		sb_add_int(&sb, p->index);
		sb_addc(&sb, '\t');
		put_name(&sb, p->label);
		sb_addf(&sb, "\t%s\t%llu\t%llu\t%s\t",
			p->type_name ? p->type_name : type,
			(unsigned long long)p->offset,
			(unsigned long long)p->size, uuid);
		put_gpt_content(&sb, src, p);
		if (!sb.failed)
			printf("%s\n", sb.s);
	}
	if (cfg->json && !sb.failed)
		fputs(sb.s, stdout);
	if (sb.failed) {
		report_nomem(rep, NULL);
		ret = -ENOMEM;
	}
	sb_release(&sb);
	erofs_gpt_free(gpt);
	return ret;
}

int container_list_partitions(const struct fsck_cfg *cfg, struct report *rep,
			      const struct erofs_source *src)
{
	struct strbuf sb = STRBUF_INIT;
	struct erofs_lp *lp;
	uint32_t i;
	int ret = container_detect_gpt(rep, src);

	if (ret)
		return ret < 0 ? ret : list_gpt(cfg, rep, src);
	ret = container_read_lp(cfg, rep, src, &lp);
	if (ret < 0)
		return ret;
	if (cfg->json) {
		json_lp(&sb, src, lp, rep->image);
		if (sb.failed) {
			report_nomem(rep, NULL);
			ret = -ENOMEM;
		} else {
			fputs(sb.s, stdout);
		}
		sb_release(&sb);
		erofs_lp_free(lp);
		return ret;
	}
	put_summary(lp, rep->image);
	for (i = 0; i < lp->nparts; i++) {
		const struct erofs_lp_partition *p = &lp->parts[i];

		sb_reset(&sb);
		put_name(&sb, p->name);
		sb_addc(&sb, '\t');
		put_name(&sb, lp->groups[p->group].name);
		sb_addf(&sb, "\t%llu\t", (unsigned long long)p->size);
		put_attrs(&sb, p->attrs);
		sb_addf(&sb, "\t");
		put_extents(&sb, lp, p);
		sb_addf(&sb, "\t");
		put_content(&sb, src, lp, p);
		if (sb.failed) {
			report_nomem(rep, NULL);
			ret = -ENOMEM;
			break;
		}
		printf("%s\n", sb.s);
	}
	sb_release(&sb);
	erofs_lp_free(lp);
	return ret;
}
