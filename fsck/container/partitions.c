// SPDX-License-Identifier: MIT
/*
 * --list-partitions: the super image's metadata in two comment lines,
 * then a header and one tab-separated line per partition, in table order:
 *	NAME GROUP SIZE ATTRIBUTES EXTENTS CONTENT
 * SIZE in bytes; ATTRIBUTES a comma-separated list or "-"; EXTENTS
 * "DEVICE:SECTOR+SECTORS" or "zero+SECTORS" each, comma-separated, or
 * "-"; CONTENT what the partition holds (container_content()), for EROFS
 * with its block size and features, or why it cannot be read.
 */
#include <stdio.h>
#include <string.h>

#include "container.h"
#include "erofs/image.h"
#include "erofs/lp.h"
#include "strbuf.h"

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

static void put_content(struct strbuf *sb, const struct erofs_source *super,
			const struct erofs_lp *lp,
			const struct erofs_lp_partition *p)
{
	struct erofs_source *src;
	struct erofs_err err;
	const char *what;

	erofs_err_clear(&err);
	if (erofs_lp_open_partition(&src, super, lp, p, &err) < 0) {
		sb_addf(sb, "unreadable: %s", err.msg);
		erofs_err_drop(&err);
		return;
	}
	what = container_content(src);
	if (!strcmp(what, "EROFS")) {
		put_erofs(sb, src);
		return;
	}
	sb_addf(sb, "%s", p->size ? what : "empty");
	erofs_source_close(src);
}

static void put_summary(const struct erofs_lp *lp, const char *image)
{
	uint32_t i;

	printf("# %s: logical partition metadata %u.%u, slot %u of %u, logical block size %u\n",
	       image, lp->major, lp->minor, lp->slot, lp->slots,
	       lp->block_size);
	printf("# block devices:");
	for (i = 0; i < lp->ndevices; i++)
		printf("%s %s (%llu bytes, partitions from sector %llu)",
		       i ? "," : "", lp->devices[i].name,
		       (unsigned long long)lp->devices[i].size,
		       (unsigned long long)lp->devices[i].first_sector);
	printf("\nNAME\tGROUP\tSIZE\tATTRIBUTES\tEXTENTS\tCONTENT\n");
}

int container_list_partitions(const struct fsck_cfg *cfg, struct report *rep,
			      const struct erofs_source *src)
{
	struct strbuf sb = STRBUF_INIT;
	struct erofs_lp *lp;
	uint32_t i;
	int ret = container_read_lp(cfg, rep, src, &lp);

	if (ret < 0)
		return ret;
	put_summary(lp, rep->image);
	for (i = 0; i < lp->nparts; i++) {
		const struct erofs_lp_partition *p = &lp->parts[i];

		sb_reset(&sb);
		sb_addf(&sb, "%s\t%s\t%llu\t", p->name,
			lp->groups[p->group].name, (unsigned long long)p->size);
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
