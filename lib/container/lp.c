// SPDX-License-Identifier: MIT
/*
 * Android super images (erofs/lp.h; the layout in docs/android.md, "Super
 * images"): 4 KiB reserved, the geometry and its backup, then every
 * metadata slot and then the backup of every slot. Each copy is checked
 * whole (checksums, version, table bounds, the meaning of every entry)
 * before anything of it is used, so that a damaged primary copy falls
 * back to its backup as a unit.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "erofs/format.h"
#include "erofs/hash.h"
#include "erofs/lp.h"
#include "internal.h"
#include "container/container_internal.h"

#define LP_RESERVED 4096
#define LP_GEOMETRY_SIZE 4096
#define LP_GEOMETRY_MAGIC 0x616c4467u
#define LP_GEOMETRY_STRUCT 52
#define LP_HEADER_MAGIC 0x414c5030u
#define LP_MAJOR 10
#define LP_MINOR_MAX 2
#define LP_HEADER_V1_0 128
#define LP_HEADER_V1_2 256
/* A bound on one copy of the metadata: mkfs tools write 64 KiB. */
#define LP_METADATA_MAX (4u << 20)

/* Entry sizes of the tables, in the header's order. */
enum { T_PARTS, T_EXTENTS, T_GROUPS, T_DEVICES, T_COUNT };
static const uint32_t entry_size[T_COUNT] = { 52, 24, 48, 64 };
static const char *const table_name[T_COUNT] = { "partition", "extent", "group",
						 "block device" };

/* Where a copy of the metadata is read from, for messages. */
struct lp_copy {
	const struct erofs_source *src;
	const char *what; /* "primary metadata of slot 0", ... */
	uint64_t pos;
};

static int lp_bad(const struct lp_copy *c, struct erofs_err *err,
		  const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int lp_bad(const struct lp_copy *c, struct erofs_err *err,
		  const char *fmt, ...)
{
	char where[EROFS_ERR_MSG_MAX];
	va_list ap;
	int ret;

	if (!erofs_err_free(err))
		return -EFSCORRUPTED;
	snprintf(where, sizeof(where), "super image: %s", c->what);
	va_start(ap, fmt);
	ret = erofs_errorv(err, -EFSCORRUPTED, EROFS_NO_NID, c->pos, where,
			   fmt, ap);
	va_end(ap);
	return ret;
}

/*
 * The SHA-256 of len bytes, as if the checksum stored at sum_at were
 * zeros (sum_at == len: there is none in them).
 */
static void sha256_of(const uint8_t *buf, size_t len, size_t sum_at,
		      uint8_t out[EROFS_SHA256_LEN])
{
	static const uint8_t zeros[EROFS_SHA256_LEN];
	struct erofs_sha256 s;

	erofs_sha256_init(&s);
	erofs_sha256_update(&s, buf, sum_at);
	if (sum_at < len) {
		erofs_sha256_update(&s, zeros, sizeof(zeros));
		erofs_sha256_update(&s, buf + sum_at + EROFS_SHA256_LEN,
				    len - sum_at - EROFS_SHA256_LEN);
	}
	erofs_sha256_final(&s, out);
}

int erofs_lp_detect(const struct erofs_source *src, struct erofs_err *err)
{
	uint64_t pos = LP_RESERVED;
	uint8_t m[4];
	int ret;

	for (; pos <= LP_RESERVED + LP_GEOMETRY_SIZE; pos += LP_GEOMETRY_SIZE) {
		if (!erofs_range_ok(pos, sizeof(m), erofs_source_size(src)))
			return 0;
		ret = erofs_source_read(src, m, sizeof(m), pos, err);
		if (ret)
			return ret;
		if (erofs_get32(m) == LP_GEOMETRY_MAGIC)
			return 1;
	}
	return 0;
}

/* Where the metadata starts, and how much room it takes at the most. */
static uint64_t metadata_end(const struct erofs_lp *lp)
{
	return LP_RESERVED + 2 * LP_GEOMETRY_SIZE +
	       2 * (uint64_t)lp->slots * lp->max_size;
}

static int parse_geometry(struct erofs_lp *lp, const uint8_t *g,
			  const struct lp_copy *c, struct erofs_err *err)
{
	uint8_t sum[EROFS_SHA256_LEN];

	if (erofs_get32(g) != LP_GEOMETRY_MAGIC)
		return lp_bad(c, err, "no geometry magic");
	if (erofs_get32(g + 4) != LP_GEOMETRY_STRUCT)
		return lp_bad(c, err, "a geometry of %u bytes, not %u",
			      erofs_get32(g + 4), LP_GEOMETRY_STRUCT);
	sha256_of(g, LP_GEOMETRY_STRUCT, 8, sum);
	if (memcmp(sum, g + 8, sizeof(sum)))
		return lp_bad(c, err, "SHA-256 checksum mismatch");
	lp->max_size = erofs_get32(g + 40);
	lp->slots = erofs_get32(g + 44);
	lp->block_size = erofs_get32(g + 48);
	if (!lp->max_size || lp->max_size % EROFS_LP_SECTOR ||
	    lp->max_size > LP_METADATA_MAX)
		return lp_bad(c, err, "bad metadata size %u", lp->max_size);
	if (!lp->slots || metadata_end(lp) > erofs_source_size(c->src))
		return lp_bad(
			c, err,
			"%u metadata slots of %u bytes do not fit in %llu bytes",
			lp->slots, lp->max_size,
			(unsigned long long)erofs_source_size(c->src));
	if (!lp->block_size || lp->block_size % EROFS_LP_SECTOR)
		return lp_bad(c, err, "bad logical block size %u",
			      lp->block_size);
	return 0;
}

static int read_geometry(struct erofs_lp *lp, const struct erofs_source *src,
			 struct erofs_err *err)
{
	static const char *const what[2] = { "geometry", "backup geometry" };
	uint8_t g[LP_GEOMETRY_STRUCT];
	struct erofs_err backup;
	int i, ret = 0;

	for (i = 0; i < 2; i++) {
		struct lp_copy c = { src, what[i],
				     LP_RESERVED + i * LP_GEOMETRY_SIZE };
		struct erofs_err *e = i ? &backup : err;

		erofs_err_clear(&backup);
		ret = erofs_source_read(src, g, sizeof(g), c.pos, e);
		if (!ret)
			ret = parse_geometry(lp, g, &c, e);
		if (!ret)
			break;
	}
	if (ret) {
		erofs_err_drop(&backup);
		return err->code;
	}
	if (i) {
		lp->used_backup = true;
		lp->damage = *err;
		erofs_err_drop(err);
	}
	return 0;
}

/* A name field of n bytes: NUL-padded, printable, not empty. */
static int copy_name(char *dst, const uint8_t *p, const struct lp_copy *c,
		     const char *table, uint32_t i, bool may_be_empty,
		     struct erofs_err *err)
{
	size_t len = strnlen((const char *)p, EROFS_LP_NAME_MAX);
	size_t k;

	for (k = 0; k < len; k++)
		if (p[k] <= ' ' || p[k] >= 0x7f)
			return lp_bad(c, err, "%s %u: a name with byte 0x%02x",
				      table, i, p[k]);
	for (k = len; k < EROFS_LP_NAME_MAX; k++)
		if (p[k])
			return lp_bad(c, err,
				      "%s %u: bytes after the end of its name",
				      table, i);
	if (!len && !may_be_empty)
		return lp_bad(c, err, "%s %u has no name", table, i);
	memcpy(dst, p, len);
	dst[len] = '\0';
	return 0;
}

struct lp_tables {
	const uint8_t *at[T_COUNT];
	uint32_t count[T_COUNT];
};

static int parse_header(struct erofs_lp *lp, const uint8_t *m,
			struct lp_tables *tb, const struct lp_copy *c,
			struct erofs_err *err)
{
	uint8_t sum[EROFS_SHA256_LEN];
	uint32_t hsize, tsize;
	int t;

	if (erofs_get32(m) != LP_HEADER_MAGIC)
		return lp_bad(c, err, "no metadata header magic");
	lp->major = erofs_get16(m + 4);
	lp->minor = erofs_get16(m + 6);
	if (lp->major != LP_MAJOR || lp->minor > LP_MINOR_MAX)
		return erofs_error(
			err, -EOPNOTSUPP, EROFS_NO_NID, c->pos,
			"super image: %s: metadata version %u.%u, this build reads %u.0 to %u.%u",
			c->what, lp->major, lp->minor, LP_MAJOR, LP_MAJOR,
			LP_MINOR_MAX);
	hsize = erofs_get32(m + 8);
	if (hsize != (lp->minor >= 2 ? LP_HEADER_V1_2 : LP_HEADER_V1_0))
		return lp_bad(c, err, "a header of %u bytes for version %u.%u",
			      hsize, lp->major, lp->minor);
	sha256_of(m, hsize, 12, sum);
	if (memcmp(sum, m + 12, sizeof(sum)))
		return lp_bad(c, err, "header SHA-256 checksum mismatch");
	tsize = erofs_get32(m + 44);
	if (tsize > lp->max_size - hsize)
		return lp_bad(c, err,
			      "tables of %u bytes past the metadata's %u bytes",
			      tsize, lp->max_size);
	sha256_of(m + hsize, tsize, tsize, sum);
	if (memcmp(sum, m + 48, sizeof(sum)))
		return lp_bad(c, err, "tables SHA-256 checksum mismatch");
	for (t = 0; t < T_COUNT; t++) {
		const uint8_t *d = m + 80 + 12 * t;
		uint32_t off = erofs_get32(d), n = erofs_get32(d + 4);
		uint32_t esize = erofs_get32(d + 8);

		if (esize != entry_size[t])
			return lp_bad(c, err, "%s entries of %u bytes, not %u",
				      table_name[t], esize, entry_size[t]);
		if (off > tsize || (uint64_t)n * esize > tsize - off)
			return lp_bad(
				c, err,
				"the %s table (%u entries at %u) is past the tables' %u bytes",
				table_name[t], n, off, tsize);
		tb->at[t] = m + hsize + off;
		tb->count[t] = n;
	}
	lp->header_flags = hsize >= LP_HEADER_V1_2 ? erofs_get32(m + 128) : 0;
	return 0;
}

static int parse_devices(struct erofs_lp *lp, const struct lp_tables *tb,
			 const struct lp_copy *c, struct erofs_err *err)
{
	uint32_t i;
	int ret;

	if (!lp->ndevices)
		return lp_bad(c, err, "no block device");
	for (i = 0; i < lp->ndevices; i++) {
		const uint8_t *e =
			tb->at[T_DEVICES] + i * entry_size[T_DEVICES];
		struct erofs_lp_device *d = &lp->devices[i];

		d->first_sector = erofs_get64(e);
		d->size = erofs_get64(e + 16);
		d->flags = erofs_get32(e + 60);
		ret = copy_name(d->name, e + 24, c, "block device", i, false,
				err);
		if (ret)
			return ret;
		if (d->first_sector > d->size / EROFS_LP_SECTOR)
			return lp_bad(
				c, err,
				"block device %s: partitions start at sector %llu, past its %llu bytes",
				d->name, (unsigned long long)d->first_sector,
				(unsigned long long)d->size);
	}
	if (lp->devices[0].first_sector * EROFS_LP_SECTOR < metadata_end(lp))
		return lp_bad(
			c, err,
			"partitions start at sector %llu, inside the metadata (%llu bytes)",
			(unsigned long long)lp->devices[0].first_sector,
			(unsigned long long)metadata_end(lp));
	return 0;
}

static int parse_groups(struct erofs_lp *lp, const struct lp_tables *tb,
			const struct lp_copy *c, struct erofs_err *err)
{
	uint32_t i;
	int ret;

	for (i = 0; i < lp->ngroups; i++) {
		const uint8_t *e = tb->at[T_GROUPS] + i * entry_size[T_GROUPS];
		struct erofs_lp_group *g = &lp->groups[i];

		ret = copy_name(g->name, e, c, "group", i, false, err);
		if (ret)
			return ret;
		g->flags = erofs_get32(e + 36);
		g->max_size = erofs_get64(e + 40);
	}
	return 0;
}

static int parse_extent(struct erofs_lp *lp, const struct lp_tables *tb,
			uint32_t i, const struct lp_copy *c,
			struct erofs_err *err)
{
	const uint8_t *e = tb->at[T_EXTENTS] + i * entry_size[T_EXTENTS];
	struct erofs_lp_extent *x = &lp->extents[i];
	const struct erofs_lp_device *d;
	uint32_t type = erofs_get32(e + 8);

	x->sectors = erofs_get64(e);
	x->target = erofs_get64(e + 12);
	x->device = erofs_get32(e + 20);
	if (x->sectors > UINT64_MAX / EROFS_LP_SECTOR)
		return lp_bad(c, err, "extent %u: %llu sectors", i,
			      (unsigned long long)x->sectors);
	if (type == EROFS_LP_ZERO) {
		x->type = EROFS_LP_ZERO;
		return 0;
	}
	if (type != EROFS_LP_LINEAR)
		return lp_bad(c, err, "extent %u: unknown target type %u", i,
			      type);
	x->type = EROFS_LP_LINEAR;
	if (x->device >= lp->ndevices)
		return lp_bad(c, err, "extent %u: block device %u of %u", i,
			      x->device, lp->ndevices);
	d = &lp->devices[x->device];
	if (x->target < d->first_sector ||
	    !erofs_range_ok(x->target, x->sectors, d->size / EROFS_LP_SECTOR))
		return lp_bad(
			c, err,
			"extent %u: sectors %llu+%llu outside %llu..%llu of block device %s",
			i, (unsigned long long)x->target,
			(unsigned long long)x->sectors,
			(unsigned long long)d->first_sector,
			(unsigned long long)(d->size / EROFS_LP_SECTOR),
			d->name);
	return 0;
}

static int parse_partition(struct erofs_lp *lp, const struct lp_tables *tb,
			   uint32_t i, uint32_t *owner, const struct lp_copy *c,
			   struct erofs_err *err)
{
	const uint8_t *e = tb->at[T_PARTS] + i * entry_size[T_PARTS];
	struct erofs_lp_partition *p = &lp->parts[i];
	uint32_t mask = EROFS_LP_READONLY | EROFS_LP_SLOT_SUFFIXED;
	uint32_t k;
	int ret = copy_name(p->name, e, c, "partition", i, false, err);

	if (ret)
		return ret;
	if (lp->minor >= 1)
		mask |= EROFS_LP_UPDATED | EROFS_LP_DISABLED;
	p->attrs = erofs_get32(e + 36);
	p->first_extent = erofs_get32(e + 40);
	p->extents = erofs_get32(e + 44);
	p->group = erofs_get32(e + 48);
	if (p->attrs & ~mask)
		return lp_bad(c, err, "partition %s: unknown attributes 0x%x",
			      p->name, p->attrs & ~mask);
	if (p->group >= lp->ngroups)
		return lp_bad(c, err, "partition %s: group %u of %u", p->name,
			      p->group, lp->ngroups);
	if (!erofs_range_ok(p->first_extent, p->extents, lp->nextents))
		return lp_bad(
			c, err,
			"partition %s: extents %u+%u past the %u of the table",
			p->name, p->first_extent, p->extents, lp->nextents);
	for (k = p->first_extent; k < p->first_extent + p->extents; k++) {
		if (owner[k] != UINT32_MAX)
			return lp_bad(c, err,
				      "extent %u belongs to both %s and %s", k,
				      lp->parts[owner[k]].name, p->name);
		owner[k] = i;
		if (lp->extents[k].sectors * EROFS_LP_SECTOR >
		    UINT64_MAX - p->size)
			return lp_bad(c, err, "partition %s: too large",
				      p->name);
		p->size += lp->extents[k].sectors * EROFS_LP_SECTOR;
	}
	return 0;
}

static int name_order(const void *a, const void *b)
{
	return strcmp(((const struct erofs_lp_partition *)a)->name,
		      ((const struct erofs_lp_partition *)b)->name);
}

/* No two partitions of one name (sorted, so that many cost little). */
static int check_names(const struct erofs_lp *lp, const struct lp_copy *c,
		       struct erofs_err *err)
{
	struct erofs_lp_partition *sorted;
	uint32_t i;
	int ret = 0;

	sorted = malloc((lp->nparts + 1) * sizeof(*sorted));
	if (!sorted)
		return -ENOMEM;
	memcpy(sorted, lp->parts, lp->nparts * sizeof(*sorted));
	qsort(sorted, lp->nparts, sizeof(*sorted), name_order);
	for (i = 1; i < lp->nparts && !ret; i++)
		if (!strcmp(sorted[i - 1].name, sorted[i].name))
			ret = lp_bad(c, err, "two partitions named %s",
				     sorted[i].name);
	free(sorted);
	return ret;
}

/* The extents of block devices, in order of device and sector. */
static int extent_order(const void *a, const void *b, void *arg)
{
	const struct erofs_lp_extent *x = arg;
	const struct erofs_lp_extent *p = &x[*(const uint32_t *)a];
	const struct erofs_lp_extent *q = &x[*(const uint32_t *)b];

	if (p->device != q->device)
		return p->device < q->device ? -1 : 1;
	if (p->target != q->target)
		return p->target < q->target ? -1 : 1;
	return 0;
}

/* Name of the partition extent k belongs to, for messages. */
static const char *owner_name(const struct erofs_lp *lp, const uint32_t *owner,
			      uint32_t k)
{
	return owner[k] == UINT32_MAX ? "no partition"
				      : lp->parts[owner[k]].name;
}

/* No two extents of block devices share a sector. */
static int check_overlaps(const struct erofs_lp *lp, const uint32_t *owner,
			  const struct lp_copy *c, struct erofs_err *err)
{
	uint32_t *order = malloc((lp->nextents + 1) * sizeof(*order));
	uint32_t i, n = 0;
	int ret = 0;

	if (!order)
		return -ENOMEM;
	for (i = 0; i < lp->nextents; i++)
		if (lp->extents[i].type == EROFS_LP_LINEAR &&
		    lp->extents[i].sectors)
			order[n++] = i;
	qsort_r(order, n, sizeof(*order), extent_order, lp->extents);
	for (i = 1; i < n && !ret; i++) {
		const struct erofs_lp_extent *p = &lp->extents[order[i - 1]];
		const struct erofs_lp_extent *q = &lp->extents[order[i]];

		if (p->device == q->device &&
		    q->target < p->target + p->sectors)
			ret = lp_bad(
				c, err,
				"extents %u (%s) and %u (%s) overlap at sector %llu",
				order[i - 1],
				owner_name(lp, owner, order[i - 1]), order[i],
				owner_name(lp, owner, order[i]),
				(unsigned long long)q->target);
	}
	free(order);
	return ret;
}

static int alloc_tables(struct erofs_lp *lp, const struct lp_tables *tb)
{
	lp->nparts = tb->count[T_PARTS];
	lp->nextents = tb->count[T_EXTENTS];
	lp->ngroups = tb->count[T_GROUPS];
	lp->ndevices = tb->count[T_DEVICES];
	lp->parts = calloc(lp->nparts + 1, sizeof(*lp->parts));
	lp->extents = calloc(lp->nextents + 1, sizeof(*lp->extents));
	lp->groups = calloc(lp->ngroups + 1, sizeof(*lp->groups));
	lp->devices = calloc(lp->ndevices + 1, sizeof(*lp->devices));
	return lp->parts && lp->extents && lp->groups && lp->devices ? 0
								     : -ENOMEM;
}

static void free_tables(struct erofs_lp *lp)
{
	free(lp->parts);
	free(lp->extents);
	free(lp->groups);
	free(lp->devices);
	lp->parts = NULL;
	lp->extents = NULL;
	lp->groups = NULL;
	lp->devices = NULL;
}

static int parse_tables(struct erofs_lp *lp, const struct lp_tables *tb,
			const struct lp_copy *c, struct erofs_err *err)
{
	uint32_t *owner = NULL;
	uint32_t i;
	int ret = alloc_tables(lp, tb);

	if (!ret)
		owner = malloc((lp->nextents + 1) * sizeof(*owner));
	if (ret || !owner) {
		free(owner);
		return erofs_error(err, -ENOMEM, EROFS_NO_NID, EROFS_NO_OFFSET,
				   "out of memory");
	}
	memset(owner, 0xff, (lp->nextents + 1) * sizeof(*owner));
	ret = parse_devices(lp, tb, c, err);
	if (!ret)
		ret = parse_groups(lp, tb, c, err);
	for (i = 0; !ret && i < lp->nextents; i++)
		ret = parse_extent(lp, tb, i, c, err);
	for (i = 0; !ret && i < lp->nparts; i++)
		ret = parse_partition(lp, tb, i, owner, c, err);
	if (!ret)
		ret = check_names(lp, c, err);
	if (!ret)
		ret = check_overlaps(lp, owner, c, err);
	if (ret == -ENOMEM)
		ret = erofs_error(err, -ENOMEM, EROFS_NO_NID, EROFS_NO_OFFSET,
				  "out of memory");
	free(owner);
	return ret;
}

/* One copy of the metadata of a slot, read and checked whole. */
static int read_copy(struct erofs_lp *lp, const struct lp_copy *c,
		     struct erofs_err *err)
{
	struct lp_tables tb;
	uint8_t *m = malloc(lp->max_size);
	int ret;

	if (!m)
		return erofs_error(err, -ENOMEM, EROFS_NO_NID, EROFS_NO_OFFSET,
				   "out of memory");
	ret = erofs_source_read(c->src, m, lp->max_size, c->pos, err);
	if (!ret)
		ret = parse_header(lp, m, &tb, c, err);
	if (!ret)
		ret = parse_tables(lp, &tb, c, err);
	if (ret)
		free_tables(lp);
	free(m);
	return ret;
}

static int read_metadata(struct erofs_lp *lp, const struct erofs_source *src,
			 struct erofs_err *err)
{
	uint64_t start = LP_RESERVED + 2 * LP_GEOMETRY_SIZE;
	uint64_t slot_off = (uint64_t)lp->slot * lp->max_size;
	char primary[40], backup[48];
	struct lp_copy c[2] = {
		{ src, primary, start + slot_off },
		{ src, backup,
		  start + (uint64_t)lp->slots * lp->max_size + slot_off },
	};
	struct erofs_err second;
	int ret;

	snprintf(primary, sizeof(primary), "metadata of slot %u", lp->slot);
	snprintf(backup, sizeof(backup), "backup metadata of slot %u",
		 lp->slot);
	ret = read_copy(lp, &c[0], err);
	if (!ret || ret == -ENOMEM)
		return ret;
	erofs_err_clear(&second);
	if (read_copy(lp, &c[1], &second)) {
		erofs_err_drop(&second);
		return ret;
	}
	if (!lp->used_backup)
		lp->damage = *err;
	lp->used_backup = true;
	erofs_err_drop(err);
	return 0;
}

int erofs_lp_read(struct erofs_lp **out, const struct erofs_source *src,
		  uint32_t slot, struct erofs_err *err)
{
	struct erofs_lp *lp = calloc(1, sizeof(*lp));
	int ret;

	*out = NULL;
	if (!lp)
		return erofs_error(err, -ENOMEM, EROFS_NO_NID, EROFS_NO_OFFSET,
				   "out of memory");
	erofs_err_clear(&lp->damage);
	ret = read_geometry(lp, src, err);
	if (!ret && slot >= lp->slots && lp->slots > 1)
		ret = erofs_error(
			err, -EINVAL, EROFS_NO_NID, EROFS_NO_OFFSET,
			"super image %s has %u metadata slots, not slot %u",
			erofs_source_name(src), lp->slots, slot);
	lp->slot = slot < lp->slots ? slot : 0;
	if (!ret)
		ret = read_metadata(lp, src, err);
	if (ret) {
		erofs_lp_free(lp);
		return ret;
	}
	*out = lp;
	return 0;
}

void erofs_lp_free(struct erofs_lp *lp)
{
	if (!lp)
		return;
	free_tables(lp);
	free(lp);
}

static const struct erofs_lp_partition *lp_named(const struct erofs_lp *lp,
						 const char *name)
{
	uint32_t i;

	for (i = 0; i < lp->nparts; i++)
		if (!strcmp(lp->parts[i].name, name))
			return &lp->parts[i];
	return NULL;
}

/* name with the suffix of slot s */
static const struct erofs_lp_partition *lp_slotted(const struct erofs_lp *lp,
						   const char *name, char s)
{
	char full[EROFS_LP_NAME_MAX + 4];

	snprintf(full, sizeof(full), "%s_%c", name, s);
	return strlen(name) <= EROFS_LP_NAME_MAX ? lp_named(lp, full) : NULL;
}

/* "system_a, system_b, vendor_a" as far as the message has room */
static void list_names(const struct erofs_lp *lp, char *buf, size_t len)
{
	size_t used = 0;
	uint32_t i;

	buf[0] = '\0';
	for (i = 0; i < lp->nparts && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 i ? ", " : "", lp->parts[i].name);
	if (!lp->nparts)
		snprintf(buf, len, "none");
}

int erofs_lp_find(const struct erofs_lp *lp, const char *name, char slot,
		  const struct erofs_lp_partition **out, struct erofs_err *err)
{
	const struct erofs_lp_partition *a, *b;
	char names[120];
	size_t len = strlen(name);

	*out = lp_named(lp, name);
	if (*out && slot && len > 2 && name[len - 2] == '_' &&
	    name[len - 1] != slot)
		return erofs_error(err, -EINVAL, EROFS_NO_NID, EROFS_NO_OFFSET,
				   "partition %s is not of slot %c", name,
				   slot);
	if (*out)
		return 0;
	if (slot) {
		*out = lp_slotted(lp, name, slot);
	} else {
		a = lp_slotted(lp, name, 'a');
		b = lp_slotted(lp, name, 'b');
		if (a && b && !a->size != !b->size)
			*out = a->size ? a : b;
		else if (a && b)
			return erofs_error(
				err, -EINVAL, EROFS_NO_NID, EROFS_NO_OFFSET,
				"both %s_a and %s_b %s: choose one with --slot=a or --slot=b",
				name, name,
				a->size ? "hold data" : "are empty");
		else
			*out = a ? a : b;
	}
	if (*out)
		return 0;
	list_names(lp, names, sizeof(names));
	return erofs_error(err, -ENOENT, EROFS_NO_NID, EROFS_NO_OFFSET,
			   "no partition %s%s%.*s (the partitions: %s)", name,
			   slot ? "_" : "", slot ? 1 : 0, &slot, names);
}

int erofs_lp_open_partition(struct erofs_source **out,
			    const struct erofs_source *src,
			    const struct erofs_lp *lp,
			    const struct erofs_lp_partition *part,
			    struct erofs_err *err)
{
	struct erofs_seg_table t = { 0 };
	char name[PATH_MAX];
	uint32_t k;
	int ret = 0;

	*out = NULL;
	for (k = part->first_extent;
	     !ret && k < part->first_extent + part->extents; k++) {
		const struct erofs_lp_extent *x = &lp->extents[k];
		uint64_t len = x->sectors * EROFS_LP_SECTOR;

		if (x->type == EROFS_LP_ZERO) {
			ret = erofs_seg_add(&t, EROFS_SEG_ZERO, 0, len);
			continue;
		}
		if (x->device)
			ret = erofs_error(
				err, -EOPNOTSUPP, EROFS_NO_NID, EROFS_NO_OFFSET,
				"partition %s: extent %u lies on block device %s, which is not in %s",
				part->name, k, lp->devices[x->device].name,
				erofs_source_name(src));
		else
			ret = erofs_source_cut(src, x->target * EROFS_LP_SECTOR,
					       len, &t);
		if (ret == -EFSCORRUPTED)
			ret = erofs_error(
				err, ret, EROFS_NO_NID,
				x->target * EROFS_LP_SECTOR,
				"partition %s: extent %u (sectors %llu+%llu) is past the end of %s (%llu bytes)",
				part->name, k, (unsigned long long)x->target,
				(unsigned long long)x->sectors,
				erofs_source_name(src),
				(unsigned long long)erofs_source_size(src));
	}
	snprintf(name, sizeof(name), "%s, partition %s", erofs_source_name(src),
		 part->name);
	return erofs_source_partition(out, src, name, &t, ret, err);
}
