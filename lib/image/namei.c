// SPDX-License-Identifier: MIT
/*
 * Path lookup (format.md, "Path lookup"): a binary search over the blocks of
 * each directory on the path. Every block read is validated in full; a lookup
 * does not check the order across the blocks it skips (the directory walk
 * does).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "erofs/dir.h"
#include "erofs/format.h"
#include "erofs/image.h"
#include "erofs/inode.h"
#include "image/dir_internal.h"
#include "image/image_internal.h"

enum probe_result {
	PROBE_FOUND,
	PROBE_BEFORE,	/* the name sorts before this block */
	PROBE_AFTER,	/* the name sorts after this block */
	PROBE_ABSENT,	/* the name would be inside this block, and is not */
};

struct probe {
	const char *name;
	unsigned int len;
	int cmp_first;		/* wanted name against the block's first */
	int cmp_last;		/* ... and against the last one seen */
	bool started;
	uint64_t nid;
};

static int probe_entry(void *arg, const struct erofs_dirent *de)
{
	struct probe *p = arg;

	p->cmp_last = erofs_name_cmp(p->name, p->len, de->name, de->namelen);
	if (!p->started) {
		p->cmp_first = p->cmp_last;
		p->started = true;
	}
	if (p->cmp_last > 0)
		return 0;
	if (!p->cmp_last)
		p->nid = de->nid;
	/* a match, or past where the name would be: stop either way */
	return 1;
}

static int probe_block(struct erofs_ctx *ctx, const struct erofs_inode *dir,
		       uint64_t blk, uint8_t *buf, struct probe *p,
		       enum probe_result *res)
{
	uint64_t blkpos = blk << ctx->img->blkszbits;
	struct erofs_err local;
	unsigned int len;
	int ret;

	ret = erofs_dir_read_block(ctx, dir, blkpos, buf, &len);
	if (ret)
		return ret;
	erofs_err_clear(&local);
	p->started = false;
	ret = erofs_dir_parse_block(buf, len, dir->nid, blkpos, probe_entry,
				    p, &local);
	if (ret < 0)
		return erofs_dir_record_error(ctx, dir, &local);
	if (p->cmp_first < 0)
		*res = PROBE_BEFORE;
	else if (!p->cmp_last)
		*res = PROBE_FOUND;
	else if (p->cmp_last > 0)
		*res = PROBE_AFTER;
	else
		*res = PROBE_ABSENT;
	return 0;
}

static int no_entry(struct erofs_ctx *ctx, uint64_t dir_nid,
		    const char *name, size_t len)
{
	return erofs_error(&ctx->err, -ENOENT, dir_nid, EROFS_NO_OFFSET,
			   "no entry '%.*s'", len > 64 ? 64 : (int)len, name);
}

/* Binary search for name over the blocks of dir. */
static int dir_find(struct erofs_ctx *ctx, const struct erofs_inode *dir,
		    const char *name, unsigned int len, uint8_t *buf,
		    uint64_t *nid)
{
	uint64_t lo = 0, hi = ((dir->size - 1) >> ctx->img->blkszbits) + 1;
	struct probe p = { .name = name, .len = len };
	enum probe_result res = PROBE_ABSENT;
	int ret;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		ret = probe_block(ctx, dir, mid, buf, &p, &res);
		if (ret)
			return ret;
		if (res == PROBE_FOUND) {
			*nid = p.nid;
			return 0;
		}
		if (res == PROBE_ABSENT)
			break;
		if (res == PROBE_BEFORE)
			hi = mid;
		else
			lo = mid + 1;
	}
	return no_entry(ctx, dir->nid, name, len);
}

/* Read a directory on the path and make sure it can be searched. */
static int load_dir(struct erofs_ctx *ctx, uint64_t nid,
		    struct erofs_inode *dir)
{
	int ret = erofs_read_inode(ctx, nid, dir);

	if (ret)
		return ret;
	if (!S_ISDIR(dir->mode))
		return erofs_error(&ctx->err, -ENOTDIR, nid, EROFS_NO_OFFSET,
				   "path component is not a directory");
	if (!dir->size)
		return erofs_error(&ctx->err, -EFSCORRUPTED, nid,
				   EROFS_NO_OFFSET, "directory with i_size 0");
	return 0;
}

static int lookup_component(struct erofs_ctx *ctx, uint64_t *cur,
			    const char *name, size_t len, uint8_t *buf)
{
	struct erofs_inode dir;
	int ret = load_dir(ctx, *cur, &dir);

	if (ret)
		return ret;
	/* '.' and '..' are not followed: paths name entries, not routes */
	if (len > EROFS_NAME_LEN || (len == 1 && name[0] == '.') ||
	    (len == 2 && name[0] == '.' && name[1] == '.'))
		return no_entry(ctx, *cur, name, len);
	return dir_find(ctx, &dir, name, len, buf, cur);
}

int erofs_lookup(struct erofs_ctx *ctx, const char *path, uint64_t *nid)
{
	uint64_t cur = ctx->img->root_nid;
	struct erofs_inode last;
	const char *p = path;
	bool trailing_slash = false;
	uint8_t *buf;
	size_t len;
	int ret = 0;

	buf = malloc(ctx->img->blksz);
	if (!buf)
		return erofs_error(&ctx->err, -ENOMEM, EROFS_NO_NID,
				   EROFS_NO_OFFSET, "directory block buffer");
	for (;;) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		len = strcspn(p, "/");
		ret = lookup_component(ctx, &cur, p, len, buf);
		if (ret)
			goto out;
		p += len;
		trailing_slash = *p == '/';
	}
	/* "a/b/" names b only if b is a directory */
	if (trailing_slash) {
		ret = load_dir(ctx, cur, &last);
		if (ret)
			goto out;
	}
	*nid = cur;
out:
	free(buf);
	return ret;
}
