// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "container/container.h"
#include "container/partition_files.h"
#include "erofs/gpt.h"
#include "erofs/lp.h"
#include "extract/extract.h"
#include "fsck.h"
#include "util/report.h"

/* A name of the generated kind, "part" and digits, which labels never get. */
static bool generated_name(const char *name)
{
	return !strncmp(name, "part", 4) && name[4] &&
	       strspn(name + 4, "0123456789") == strlen(name + 4);
}

/*
 * Each partition's file: the name its table gives it when that is a
 * plain file name (extract.h), given to no other partition and not of
 * the generated kind; else "partN", said in a warning. Files then never
 * collide, and none lies outside DIR.
 */
static int name_files(struct partition_files *pf, struct report *rep)
{
	struct partition_file *f = pf->files;
	size_t i, k;
	bool own;
	int ret;

	for (i = 0; i < pf->n; i++) {
		const char *given = f[i].given;

		own = given[0] && plain_file_name(given) &&
		      !generated_name(given);
		for (k = 0; own && k < pf->n; k++)
			own = k == i || strcmp(f[k].given, given);
		if (own)
			ret = asprintf(&f[i].file, "%s.img", given);
		else
			ret = asprintf(&f[i].file, "part%u.img", f[i].index);
		if (ret < 0) {
			f[i].file = NULL;
			report_nomem(rep, NULL);
			return -ENOMEM;
		}
		if (!own && given[0])
			report_warning(
				rep, NULL,
				"partition %u: its name \"%s\" is not a plain file name of its own: written as %s",
				f[i].index, given, f[i].file);
	}
	return 0;
}

/* The GPT disk's partitions, all of them. */
static void gpt_files(struct partition_files *pf)
{
	uint32_t i;

	for (i = 0; i < pf->gpt->nparts; i++) {
		const struct erofs_gpt_part *p = &pf->gpt->parts[i];

		pf->files[pf->n++] = (struct partition_file){ .index = p->index,
							      .given = p->label,
							      .part = p };
	}
}

/* The super image's partitions that hold bytes. */
static void lp_files(struct partition_files *pf)
{
	uint32_t i;

	for (i = 0; i < pf->lp->nparts; i++) {
		const struct erofs_lp_partition *p = &pf->lp->parts[i];

		if (p->size)
			pf->files[pf->n++] = (struct partition_file){
				.index = i + 1, .given = p->name, .part = p
			};
	}
}

int partition_files_open(struct partition_files *pf, const struct fsck_cfg *cfg,
			 struct report *rep)
{
	struct fsck_cfg whole = *cfg;
	int kind, ret;

	*pf = (struct partition_files){ .n = 0 };
	whole.list_partitions = true;
	ret = container_open(&whole, rep, &pf->src, NULL);
	if (ret)
		return ret;
	kind = container_detect_gpt(rep, pf->src);
	if (kind < 0)
		return kind;
	ret = kind ? container_read_gpt(rep, pf->src, &pf->gpt)
		   : container_read_lp(cfg, rep, pf->src, &pf->lp);
	if (ret)
		return ret;
	pf->files = calloc(kind ? pf->gpt->nparts + 1 : pf->lp->nparts + 1,
			   sizeof(*pf->files));
	if (!pf->files) {
		report_nomem(rep, NULL);
		return -ENOMEM;
	}
	if (pf->gpt)
		gpt_files(pf);
	else
		lp_files(pf);
	return name_files(pf, rep);
}

int partition_files_source(const struct partition_files *pf, size_t i,
			   struct report *rep, struct erofs_source **out)
{
	struct fsck_loc loc = { .label = rep->image,
				.nid = EROFS_NO_NID,
				.offset = EROFS_NO_OFFSET };
	struct erofs_err err;
	int ret;

	erofs_err_clear(&err);
	ret = pf->gpt ? erofs_gpt_open_partition(out, pf->src,
						 pf->files[i].part, &err)
		      : erofs_lp_open_partition(out, pf->src, pf->lp,
						pf->files[i].part, &err);
	if (ret < 0)
		report_lib_error(rep, &loc, &err, ret);
	return ret < 0 ? ret : 0;
}

void partition_files_close(struct partition_files *pf)
{
	size_t i;

	for (i = 0; pf->files && i < pf->n; i++)
		free(pf->files[i].file);
	free(pf->files);
	erofs_gpt_free(pf->gpt);
	erofs_lp_free(pf->lp);
	erofs_source_close(pf->src);
	*pf = (struct partition_files){ .n = 0 };
}
