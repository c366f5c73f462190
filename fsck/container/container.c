// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "container/container.h"
#include "container/tree.h"
#include "erofs/format.h"
#include "erofs/gpt.h"
#include "erofs/lp.h"
#include "util/inputs.h"
#include "util/interrupt.h"
#include "util/outfile.h"
#include "util/sparse.h"
#include "util/spool.h"
#include "util/strbuf.h"

/* What --write-image reads and writes at once. */
#define WRITE_IMAGE_CHUNK (1u << 20)

/* How much of the start of a partition tells what it holds. */
#define CONTENT_PROBE 4096

/* The ext2/3/4 superblock: its magic, and the features telling them apart */
#define EXT_SB 1024
#define EXT_MAGIC_AT (EXT_SB + 56)
#define EXT_COMPAT_AT (EXT_SB + 92)
#define EXT_INCOMPAT_AT (EXT_SB + 96)
#define EXT_COMPAT_JOURNAL 0x4
#define EXT_INCOMPAT_EXT4 0x2c0 /* extents, 64bit, flex_bg */

static bool magic32(const uint8_t *b, size_t len, size_t at, uint32_t magic)
{
	return len >= at + 4 && erofs_get32(b + at) == magic;
}

static bool bytes_at(const uint8_t *b, size_t len, size_t at, const char *s,
		     size_t slen)
{
	return len >= at + slen && !memcmp(b + at, s, slen);
}

#define HAS(at, lit) bytes_at(b, len, at, lit, sizeof(lit) - 1)

static const char *ext_kind(const uint8_t *b, size_t len)
{
	if (len < EXT_INCOMPAT_AT + 4)
		return "ext2/3/4";
	if (erofs_get32(b + EXT_INCOMPAT_AT) & EXT_INCOMPAT_EXT4)
		return "ext4";
	if (erofs_get32(b + EXT_COMPAT_AT) & EXT_COMPAT_JOURNAL)
		return "ext3";
	return "ext2";
}

/* What b, the first len bytes of a file or partition, shows it holds. */
static const char *content_of(const uint8_t *b, size_t len)
{
	size_t i;

	if (magic32(b, len, EROFS_SUPER_OFFSET, EROFS_SUPER_MAGIC))
		return "EROFS";
	if (magic32(b, len, 1024, 0xf2f52010))
		return "f2fs";
	if (len >= EXT_MAGIC_AT + 2 && erofs_get16(b + EXT_MAGIC_AT) == 0xef53)
		return ext_kind(b, len);
	if (magic32(b, len, 0, 0x73717368))
		return "squashfs";
	if (magic32(b, len, 0, 0xed26ff3a))
		return "an Android sparse image";
	if (HAS(0, "\x1f\x8b"))
		return "gzip data";
	if (HAS(0, "\xfd"
		   "7zXZ\0"))
		return "xz data";
	if (magic32(b, len, 0, 0xfd2fb528))
		return "zstd data";
	if (HAS(0, "BZh"))
		return "bzip2 data";
	if (magic32(b, len, 0, 0x184d2204))
		return "lz4 data";
	if (HAS(257, "ustar"))
		return "a tar archive";
	if (HAS(0, "PK\3\4") || HAS(0, "PK\5\6"))
		return "a zip archive";
	if (HAS(0, "070701") || HAS(0, "070702") || HAS(0, "070707"))
		return "a cpio archive";
	if (HAS(0, "LUKS\xba\xbe"))
		return "a LUKS volume";
	if (HAS(0, "verity\0\0"))
		return "a dm-verity hash tree";
	/* systemd's verity signature: a JSON object with the root hash */
	if (HAS(0, "{") && memmem(b, len, "\"rootHash\"", 10))
		return "a dm-verity signature (JSON)";
	if (HAS(512, "EFI PART"))
		return "a GPT disk";
	if (HAS(510, "\x55\xaa"))
		return "an MBR disk or boot sector";
	for (i = 0; i < len && !b[i]; i++)
		;
	return i == len ? "zeros" : "unknown data";
}

#undef HAS

/* What src holds from offset on, or NULL when the read fails (err). */
static const char *content_at(const struct erofs_source *src, uint64_t offset,
			      struct erofs_err *err)
{
	uint64_t size = erofs_source_size(src);
	uint8_t b[CONTENT_PROBE];
	size_t len;

	if (size <= offset)
		return "nothing";
	len = size - offset < CONTENT_PROBE ? (size_t)(size - offset)
					    : CONTENT_PROBE;
	if (erofs_source_read(src, b, len, offset, err))
		return NULL;
	return content_of(b, len);
}

const char *container_content(const struct erofs_source *src)
{
	struct erofs_err err;
	const char *what;

	erofs_err_clear(&err);
	what = content_at(src, 0, &err);
	if (what)
		return what;
	erofs_err_drop(&err);
	return "unreadable data";
}

/* IMAGE, or "-": standard input, spooled unless it is a file. */
/*
 * A failure of the source: its messages name the file themselves
 * (source.h), but running out of memory names IMAGE here.
 */
static int source_failed(struct report *rep, struct erofs_err *err, int ret)
{
	/* damage is said as IMAGE's; a file not opened names itself */
	struct fsck_loc loc = { .nid = EROFS_NO_NID,
				.offset = EROFS_NO_OFFSET };

	if (erofs_err_is_corruption(ret))
		loc.label = rep->image;

	if (ret != -ENOMEM)
		return report_lib_error(rep, &loc, err, ret);
	erofs_err_drop(err);
	report_nomem(rep, NULL);
	return ret;
}

static int open_image_source(struct report *rep, const char *image,
			     struct erofs_source **src)
{
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
		source_failed(rep, &err, ret);
		return ret;
	}
	if (erofs_source_kind(*src) == EROFS_SOURCE_SPARSE)
		report_msg(
			rep, FSCK_LVL_INFO,
			"%s: an Android sparse image of %zu run%s, %llu bytes unsparsed",
			rep->image, erofs_source_pieces(*src),
			erofs_source_pieces(*src) == 1 ? "" : "s",
			(unsigned long long)erofs_source_size(*src));
	ret = erofs_source_verify(*src, &err);
	/* a checksum that disagrees is a problem; the check goes on */
	if (ret < 0 && source_failed(rep, &err, ret)) {
		erofs_source_close(*src);
		*src = NULL;
		return ret;
	}
	return 0;
}

bool container_holds_erofs(const struct erofs_source *src, uint64_t offset)
{
	struct erofs_err err;
	const char *what;

	erofs_err_clear(&err);
	what = content_at(src, offset, &err);
	erofs_err_drop(&err);
	return what && !strcmp(what, "EROFS");
}

/*
 * buf, of len bytes at off, into fd, a new file that reads zeros where
 * nothing is written: the blocks of zeros sparse.h says become holes.
 */
static int write_sparse(int fd, const uint8_t *buf, size_t len, uint64_t off)
{
	size_t from = 0, skip, end;
	bool whole;
	int ret;

	while (from < len) {
		skip = sparse_next_skip(buf, len, off, from, &end, &whole);
		if (skip > from) {
			ret = outfile_write_all(fd, buf + from, skip - from,
						(off_t)(off + from));
			if (ret)
				return ret;
		}
		from = end;
	}
	return 0;
}

/*
 * len known zeros at off into fd: nothing with sparse (a hole, which the
 * final size keeps), else zeros from buf, never read from the source.
 */
static int write_zero_run(int fd, bool sparse, uint8_t *buf, uint64_t len)
{
	size_t n;
	int ret;

	/* past the largest file the filesystem holds: EINVAL, said EFBIG */
	if (sparse)
		return lseek(fd, (off_t)len, SEEK_CUR) < 0
			       ? (errno == EINVAL ? -EFBIG : -errno)
			       : 0;
	memset(buf, 0, WRITE_IMAGE_CHUNK);
	for (; len; len -= n) {
		if (interrupted())
			return -EINTR;
		n = len < WRITE_IMAGE_CHUNK ? (size_t)len : WRITE_IMAGE_CHUNK;
		ret = outfile_write_all(fd, buf, n, -1);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Every byte of src into fd; with sparse (fd a new regular file), zero
 * blocks as holes. The runs the container itself says are zeros (a
 * DONT_CARE chunk, a ZERO extent) are never read: a sparse image of a
 * few KiB may claim terabytes of them.
 */
static int copy_source(const struct erofs_source *src, int fd, bool sparse,
		       uint8_t *buf, struct report *rep)
{
	uint64_t size = erofs_source_size(src), off, zeros;
	struct erofs_err err;
	size_t n;
	int ret;

	for (off = 0; off < size; off += n) {
		if (interrupted())
			return -EINTR;
		zeros = erofs_source_zeros_at(src, off);
		if (zeros) {
			ret = write_zero_run(fd, sparse, buf, zeros);
			if (ret)
				return ret;
			off += zeros;
			n = 0;
			continue;
		}
		n = size - off < WRITE_IMAGE_CHUNK ? (size_t)(size - off)
						   : WRITE_IMAGE_CHUNK;
		erofs_err_clear(&err);
		ret = erofs_source_read(src, buf, n, off, &err);
		if (ret)
			return source_failed(rep, &err, ret) ? ret : -EIO;
		/* in order, without offsets: a pipe or device may be the file */
		ret = sparse ? write_sparse(fd, buf, n, off)
			     : outfile_write_all(fd, buf, n, -1);
		if (ret)
			return ret;
	}
	/* a hole at the end still counts in the size */
	if (sparse && ftruncate(fd, (off_t)size))
		return errno == EINVAL ? -EFBIG : -errno;
	return 0;
}

/*
 * Refuse up front what cannot fit where it goes: every byte, or with
 * sparse all but the known zeros. A destination that says nothing of
 * its room (a pipe) is written until it fails or a signal stops it.
 */
static int check_room(const struct erofs_source *src, int fd, bool sparse,
		      const char *path, struct report *rep)
{
	uint64_t need = erofs_source_size(src), room;
	char needs[SIZE_TEXT_MAX], has[SIZE_TEXT_MAX];

	if (sparse)
		need -= erofs_source_zeros_total(src);
	if (!outfile_room(fd, &room) || need <= room)
		return 0;
	report_fatal(
		rep,
		"cannot write %s: %s needs %llu bytes (%s%s), and there is room for %s",
		path, rep->image, (unsigned long long)need,
		size_text(needs, need),
		sparse ? ", its zero runs left as holes"
		       : "; --sparse leaves its zero runs as holes",
		size_text(has, room));
	return -ENOSPC;
}

int container_write_image(const struct fsck_cfg *cfg, struct report *rep,
			  const struct erofs_source *src, const char *path)
{
	uint8_t *buf = malloc(WRITE_IMAGE_CHUNK);
	struct outfile of;
	bool sparse;
	int ret;

	if (!buf) {
		report_nomem(rep, NULL);
		return -ENOMEM;
	}
	if (inputs_named_by(path)) {
		report_usage(
			rep,
			"%s: the same file as %s, which this run reads: not overwritten",
			path, inputs_named_by(path));
		free(buf);
		return -EINVAL;
	}
	ret = cfg->write_dirfd >= 0
		      ? outfile_open_at(&of, cfg->write_dirfd, cfg->write_name,
					cfg->overwrite)
		      : outfile_open(&of, path);
	if (ret == -EEXIST) {
		report_fatal(
			rep,
			"%s exists, not replaced (--overwrite replaces it)",
			path);
		free(buf);
		return ret;
	}
	if (ret) {
		report_fatal(rep, "cannot create %s: %s", path, strerror(-ret));
		free(buf);
		return ret;
	}
	/* a device or pipe written in place holds no holes */
	sparse = cfg->sparse && of.tmp;
	ret = check_room(src, of.fd, sparse, path, rep);
	if (ret) {
		free(buf);
		outfile_discard(&of);
		return ret;
	}
	ret = copy_source(src, of.fd, sparse, buf, rep);
	free(buf);
	if (ret) {
		outfile_discard(&of);
		if (ret != -EINTR && ret != -EIO)
			report_fatal(rep, "cannot write %s: %s", path,
				     strerror(-ret));
		return ret;
	}
	ret = outfile_commit(&of);
	if (ret == -EEXIST)
		report_fatal(rep, "%s was made while written, not replaced",
			     path);
	else if (ret)
		report_fatal(rep, "cannot write %s: %s", path, strerror(-ret));
	else
		report_msg(rep, FSCK_LVL_INFO, "%s: %llu bytes written to %s",
			   rep->image,
			   (unsigned long long)erofs_source_size(src), path);
	return ret;
}

/* Does src hold what detect looks for? 1 or 0, or -errno after reporting. */
static int detect_with(struct report *rep, const struct erofs_source *src,
		       int (*detect)(const struct erofs_source *src,
				     struct erofs_err *err))
{
	struct fsck_loc loc = { .label = rep->image,
				.nid = EROFS_NO_NID,
				.offset = EROFS_NO_OFFSET };
	struct erofs_err err;
	int ret;

	erofs_err_clear(&err);
	ret = detect(src, &err);
	if (ret < 0)
		report_lib_error(rep, &loc, &err, ret);
	return ret;
}

/* Is src a super image? 1 or 0, or a negative errno after reporting. */
static int detect_super(struct report *rep, const struct erofs_source *src)
{
	return detect_with(rep, src, erofs_lp_detect);
}

/*
 * A partition table read (ret, err): the error reported, or the damage
 * of a primary copy that the backup (what) replaced warned of (damage,
 * NULL when the primary was read). 0 or ret.
 */
static int table_read(struct report *rep, struct erofs_err *err, int ret,
		      const struct erofs_err *damage, const char *what)
{
	struct fsck_loc loc = { .label = rep->image,
				.nid = EROFS_NO_NID,
				.offset = EROFS_NO_OFFSET };

	if (ret < 0) {
		report_lib_error(rep, &loc, err, ret);
		return ret;
	}
	if (damage)
		report_warning(rep, &loc, "%s; read the %s", damage->msg, what);
	return 0;
}

int container_read_lp(const struct fsck_cfg *cfg, struct report *rep,
		      const struct erofs_source *src, struct erofs_lp **lp)
{
	struct erofs_err err;
	int ret;

	ret = detect_super(rep, src);
	if (ret < 0)
		return ret;
	if (!ret) {
		report_fatal(
			rep,
			"%s is neither a GPT disk nor an Android super image (no \"EFI PART\" header at byte 512 or 4096, no logical partition geometry at byte 4096)",
			rep->image);
		return -EINVAL;
	}
	erofs_err_clear(&err);
	ret = erofs_lp_read(lp, src, cfg->slot == 'b', &err);
	return table_read(rep, &err, ret,
			  ret < 0 || !(*lp)->used_backup ? NULL : &(*lp)->damage,
			  "backup copy");
}

/*
 * Does src (partition name, or NULL: IMAGE) hold EROFS at --offset? If
 * not, what it holds is no image to check: an operational error, as
 * e2fsck's for a bad magic number, naming it. 0, or -EINVAL.
 */
static int holds_erofs(const struct fsck_cfg *cfg, struct report *rep,
		       const struct erofs_source *src, const char *name)
{
	struct fsck_loc loc = { .label = rep->image,
				.nid = EROFS_NO_NID,
				.offset = EROFS_NO_OFFSET };
	struct erofs_err err;
	const char *what;

	erofs_err_clear(&err);
	what = content_at(src, cfg->offset, &err);
	if (!what)
		return report_lib_error(rep, &loc, &err, -EIO);
	if (!strcmp(what, "EROFS"))
		return 0;
	if (name && cfg->offset)
		report_fatal(
			rep,
			"partition %s holds %s at --offset=%llu, not EROFS",
			name, what, (unsigned long long)cfg->offset);
	else if (name)
		report_fatal(rep, "partition %s holds %s, not EROFS", name,
			     what);
	else if (cfg->offset)
		report_fatal(
			rep,
			"%s holds %s at --offset=%llu, not EROFS (no EROFS superblock at byte %llu of the file)",
			rep->image, what, (unsigned long long)cfg->offset,
			(unsigned long long)cfg->offset + EROFS_SUPER_OFFSET);
	else
		report_fatal(
			rep,
			"%s holds %s, not EROFS (no EROFS superblock at byte %u)",
			rep->image, what, EROFS_SUPER_OFFSET);
	return -EINVAL;
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
		ret = cfg->write_image
			      ? 0
			      : holds_erofs(cfg, rep, *src, part->name);
		if (ret) {
			erofs_source_close(*src);
			*src = NULL;
		}
	}
	erofs_lp_free(lp);
	return ret < 0 ? ret : 0;
}

int container_detect_gpt(struct report *rep, const struct erofs_source *src)
{
	return detect_with(rep, src, erofs_gpt_detect);
}

int container_read_gpt(struct report *rep, const struct erofs_source *src,
		       struct erofs_gpt **gpt)
{
	struct erofs_err err;
	int ret;

	erofs_err_clear(&err);
	ret = erofs_gpt_read(gpt, src, &err);
	return table_read(rep, &err, ret,
			  ret < 0 || !(*gpt)->used_backup ? NULL : &(*gpt)->damage,
			  "backup header");
}

/*
 * Without --partition, the partition of a GPT disk to read: the one root
 * or usr partition (of any architecture, verity's aside) that holds
 * EROFS, as systemd opens a discoverable disk image. NULL after a usage
 * error when there is none, or more than one.
 */
static const struct erofs_gpt_part *gpt_default(struct report *rep,
						const struct erofs_source *disk,
						const struct erofs_gpt *gpt)
{
	const struct erofs_gpt_part *found = NULL;
	struct erofs_source *src;
	struct erofs_err err;
	unsigned int n = 0;
	uint32_t i;

	for (i = 0; i < gpt->nparts; i++) {
		const struct erofs_gpt_part *p = &gpt->parts[i];
		bool erofs;

		if (!p->type_name || strstr(p->type_name, "-verity") ||
		    (strncmp(p->type_name, "root-", 5) &&
		     strncmp(p->type_name, "usr-", 4)))
			continue;
		erofs_err_clear(&err);
		if (erofs_gpt_open_partition(&src, disk, p, &err) < 0) {
			erofs_err_drop(&err);
			continue;
		}
		erofs = container_holds_erofs(src, 0);
		erofs_source_close(src);
		if (erofs && !n++)
			found = p;
	}
	if (n == 1)
		return found;
	report_usage(
		rep,
		"%s is a GPT disk with %s EROFS root or usr partition: name the partition to read with --partition=INDEX, LABEL or TYPE (--list-partitions lists them)",
		rep->image, n ? "more than one" : "no");
	return NULL;
}

/* The partition of --partition, or gpt_default()'s: 0 or -errno. */
static int gpt_select(const struct fsck_cfg *cfg, struct report *rep,
		      const struct erofs_source *disk,
		      const struct erofs_gpt *gpt,
		      const struct erofs_gpt_part **part, struct erofs_err *err)
{
	int ret;

	if (!cfg->partition) {
		*part = gpt_default(rep, disk, gpt);
		return *part ? 0 : -EINVAL;
	}
	ret = erofs_gpt_find(gpt, cfg->partition, part, err);
	if (ret == -EINVAL) {
		report_usage(rep, "%s", err->msg);
		erofs_err_drop(err);
	}
	return ret;
}

/* The GPT partition of --partition, or gpt_default()'s, if EROFS. */
static int open_gpt_partition(const struct fsck_cfg *cfg, struct report *rep,
			      const struct erofs_source *disk,
			      struct erofs_source **src,
			      struct container_verity *pair)
{
	struct fsck_loc loc = { .label = rep->image,
				.nid = EROFS_NO_NID,
				.offset = EROFS_NO_OFFSET };
	const struct erofs_gpt_part *part = NULL;
	struct erofs_gpt *gpt;
	struct erofs_err err;
	char name[64];
	int ret = container_read_gpt(rep, disk, &gpt);

	if (ret)
		return ret;
	erofs_err_clear(&err);
	ret = gpt_select(cfg, rep, disk, gpt, &part, &err);
	if (!ret)
		ret = erofs_gpt_open_partition(src, disk, part, &err);
	if (!ret && pair)
		ret = tree_of_gpt(disk, gpt, part, pair, &err);
	if (ret < 0 && ret != -EINVAL)
		report_lib_error(rep, &loc, &err, ret);
	if (!ret) {
		snprintf(name, sizeof(name), "%u%s%.*s", part->index,
			 part->label[0] ? " " : "", 40, part->label);
		report_msg(
			rep, FSCK_LVL_INFO,
			"%s: GPT partition %s (%s), %llu bytes at byte %llu, holds %s",
			rep->image, name,
			part->type_name ? part->type_name : "other type",
			(unsigned long long)part->size,
			(unsigned long long)part->offset,
			container_content(*src));
		ret = cfg->write_image ? 0 : holds_erofs(cfg, rep, *src, name);
		if (ret) {
			erofs_source_close(*src);
			*src = NULL;
		}
	}
	erofs_gpt_free(gpt);
	return ret < 0 ? ret : 0;
}

static int open_source(const struct fsck_cfg *cfg, struct report *rep,
		       struct erofs_source **src, struct container_verity *pair)
{
	struct erofs_source *image;
	int ret = open_image_source(rep, cfg->image, &image);

	*src = NULL;
	if (ret)
		return ret;
	/* a whole GPT disk is listed, or written with --write-image */
	ret = cfg->list_partitions || (cfg->write_image && !cfg->partition)
		      ? 0
		      : container_detect_gpt(rep, image);
	if (ret) {
		if (ret > 0)
			ret = open_gpt_partition(cfg, rep, image, src, pair);
		erofs_source_close(image);
		return ret;
	}
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
	/* --write-image takes whatever the container holds */
	if (!ret && !cfg->list_partitions && !cfg->write_image)
		ret = holds_erofs(cfg, rep, image, NULL);
	if (ret < 0) {
		erofs_source_close(image);
		return ret;
	}
	*src = image;
	return 0;
}

int container_open(const struct fsck_cfg *cfg, struct report *rep,
		   struct erofs_source **src, struct container_verity *pair)
{
	int ret = open_source(cfg, rep, src, pair);

	/* an Android partition image ends with its tree's AVB footer */
	if (!ret && *src && pair && !pair->found && !cfg->list_partitions &&
	    !cfg->write_image)
		ret = tree_of_avb(rep, *src, pair);
	if (ret < 0 && *src) {
		erofs_source_close(*src);
		*src = NULL;
	}
	return ret;
}
