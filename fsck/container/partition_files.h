/* SPDX-License-Identifier: MIT */
/*
 * --write-partitions: the partitions of IMAGE to write (every partition
 * of a GPT disk, those of a super image that hold bytes), read from its
 * table once, and each one's file name in DIR: the name or label the
 * table gives it when that is a plain file name of its own, else partN.
 */
#ifndef FSCK_PARTITION_FILES_H
#define FSCK_PARTITION_FILES_H

#include <stddef.h>
#include <stdint.h>

struct erofs_gpt;
struct erofs_lp;
struct erofs_source;
struct fsck_cfg;
struct report;

struct partition_file {
	uint32_t index; /* GPT's, or the place in the super image's table */
	const char *given; /* the table's name or label */
	char *file; /* "NAME.img" */
	const void *part; /* the table's entry */
};

struct partition_files {
	struct erofs_source *src; /* IMAGE out of its container */
	struct erofs_gpt *gpt; /* one of the two tables */
	struct erofs_lp *lp;
	struct partition_file *files;
	size_t n;
};

/*
 * Read IMAGE's partition table and name each partition's file, warning
 * when a name the table gives is not used: 0, or a negative errno after
 * reporting why.
 */
int partition_files_open(struct partition_files *pf, const struct fsck_cfg *cfg,
			 struct report *rep);

/* Partition i's bytes, as a source of their own: 0 or -errno reported. */
int partition_files_source(const struct partition_files *pf, size_t i,
			   struct report *rep, struct erofs_source **out);

void partition_files_close(struct partition_files *pf);

#endif
