// SPDX-License-Identifier: MIT
#include <string.h>
#include <unistd.h>

#include "container.h"
#include "erofs/format.h"
#include "erofs/lp.h"
#include "spool.h"

/* How much of the start of a partition tells what it holds. */
#define CONTENT_PROBE 4096

static bool magic32(const uint8_t *b, size_t len, size_t at, uint32_t magic)
{
	return len >= at + 4 && erofs_get32(b + at) == magic;
}

const char *container_content(const struct erofs_source *src)
{
	uint64_t size = erofs_source_size(src);
	size_t len = size < CONTENT_PROBE ? (size_t)size : CONTENT_PROBE;
	uint8_t b[CONTENT_PROBE];
	struct erofs_err err;
	size_t i;

	if (!size)
		return "nothing";
	erofs_err_clear(&err);
	if (erofs_source_read(src, b, len, 0, &err)) {
		erofs_err_drop(&err);
		return "unreadable data";
	}
	if (magic32(b, len, EROFS_SUPER_OFFSET, EROFS_SUPER_MAGIC))
		return "EROFS";
	if (magic32(b, len, 1024, 0xf2f52010))
		return "f2fs";
	if (len >= 1082 && erofs_get16(b + 1080) == 0xef53)
		return "ext4";
	if (magic32(b, len, 0, 0x73717368))
		return "squashfs";
	for (i = 0; i < len && !b[i]; i++)
		;
	return i == len ? "zeros" : "unknown data";
}

/* IMAGE, or "-": standard input, spooled unless it is a file. */
static int open_image_source(struct report *rep, const char *image,
			     struct erofs_source **src)
{
	struct fsck_loc loc = { .label = rep->image,
				.nid = EROFS_NO_NID,
				.offset = EROFS_NO_OFFSET };
	struct erofs_err err;
	int fd = -1, ret;

	if (!strcmp(image, "-")) {
		fd = spool_stdin(rep);
		if (fd < 0)
			return fd;
	}
	erofs_err_clear(&err);
	ret = erofs_source_open(src, rep->image, fd, &err);
	if (fd > STDIN_FILENO)
		close(fd);
	if (ret < 0) {
		report_lib_error(rep, &loc, &err, ret);
		return ret;
	}
	if (erofs_source_kind(*src) == EROFS_SOURCE_SPARSE)
		report_msg(
			rep, FSCK_LVL_INFO,
			"%s: an Android sparse image of %zu runs, %llu bytes unsparsed",
			rep->image, erofs_source_pieces(*src),
			(unsigned long long)erofs_source_size(*src));
	ret = erofs_source_verify(*src, &err);
	/* a checksum that disagrees is a problem; the check goes on */
	if (ret < 0 && report_lib_error(rep, &loc, &err, ret)) {
		erofs_source_close(*src);
		*src = NULL;
		return ret;
	}
	return 0;
}

/* Is src a super image? 1 or 0, or a negative errno after reporting. */
static int detect_super(struct report *rep, const struct erofs_source *src)
{
	struct fsck_loc loc = { .label = rep->image,
				.nid = EROFS_NO_NID,
				.offset = EROFS_NO_OFFSET };
	struct erofs_err err;
	int ret;

	erofs_err_clear(&err);
	ret = erofs_lp_detect(src, &err);
	if (ret < 0)
		report_lib_error(rep, &loc, &err, ret);
	return ret;
}

int container_read_lp(const struct fsck_cfg *cfg, struct report *rep,
		      const struct erofs_source *src, struct erofs_lp **lp)
{
	struct fsck_loc loc = { .label = rep->image,
				.nid = EROFS_NO_NID,
				.offset = EROFS_NO_OFFSET };
	struct erofs_err err;
	int ret;

	ret = detect_super(rep, src);
	if (ret < 0)
		return ret;
	if (!ret) {
		report_fatal(
			rep,
			"%s is not an Android super image (no logical partition geometry at byte 4096)",
			rep->image);
		return -EINVAL;
	}
	erofs_err_clear(&err);
	ret = erofs_lp_read(lp, src, cfg->slot == 'b', &err);
	if (ret < 0) {
		report_lib_error(rep, &loc, &err, ret);
		return ret;
	}
	if ((*lp)->used_backup)
		report_warning(rep, &loc, "%s; read the backup copy",
			       (*lp)->damage.msg);
	return 0;
}

/* The partition cfg->partition of the super image super, if EROFS. */
static int open_partition(const struct fsck_cfg *cfg, struct report *rep,
			  const struct erofs_source *super,
			  struct erofs_source **src)
{
	struct fsck_loc loc = { .label = rep->image,
				.nid = EROFS_NO_NID,
				.offset = EROFS_NO_OFFSET };
	const struct erofs_lp_partition *part;
	struct erofs_lp *lp;
	struct erofs_err err;
	const char *what;
	int ret = container_read_lp(cfg, rep, super, &lp);

	if (ret)
		return ret;
	erofs_err_clear(&err);
	ret = erofs_lp_find(lp, cfg->partition, cfg->slot, &part, &err);
	if (ret == -EINVAL) {
		report_usage(rep, "%s", err.msg);
		erofs_err_drop(&err);
	}
	if (!ret)
		ret = erofs_lp_open_partition(src, super, lp, part, &err);
	if (ret < 0 && ret != -EINVAL)
		report_lib_error(rep, &loc, &err, ret);
	if (!ret) {
		what = container_content(*src);
		report_msg(rep, FSCK_LVL_INFO,
			   "%s: partition %s, %llu bytes in %zu runs, holds %s",
			   rep->image, part->name,
			   (unsigned long long)part->size,
			   erofs_source_pieces(*src), what);
		if (strcmp(what, "EROFS") && !cfg->offset) {
			report_fatal(rep, "partition %s holds %s, not EROFS",
				     part->name, what);
			erofs_source_close(*src);
			*src = NULL;
			ret = -EINVAL;
		}
	}
	erofs_lp_free(lp);
	return ret < 0 ? ret : 0;
}

int container_open(const struct fsck_cfg *cfg, struct report *rep,
		   struct erofs_source **src)
{
	struct erofs_source *image;
	int ret = open_image_source(rep, cfg->image, &image);

	*src = NULL;
	if (ret)
		return ret;
	if (cfg->partition) {
		ret = open_partition(cfg, rep, image, src);
		erofs_source_close(image);
		return ret;
	}
	ret = cfg->list_partitions ? 0 : detect_super(rep, image);
	if (ret > 0) {
		report_usage(
			rep,
			"%s is an Android super image: name the partition to read with --partition=NAME (--list-partitions lists them)",
			rep->image);
		ret = -EINVAL;
	}
	if (ret < 0) {
		erofs_source_close(image);
		return ret;
	}
	*src = image;
	return 0;
}
