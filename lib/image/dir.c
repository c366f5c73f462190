// SPDX-License-Identifier: MIT
/*
 * Directory blocks (format.md, "Directory blocks", "Name order"): validation,
 * iteration.
 *
 * A block is validated completely before any entry is handed to the
 * callback, so that a caller never acts on half of a corrupt block.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "erofs/data.h"
#include "erofs/dir.h"
#include "erofs/format.h"
#include "erofs/image.h"
#include "erofs/inode.h"
#include "image/dir_internal.h"
#include "image/image_internal.h"

/* Room for a shortened, printable copy of a name in an error message. */
#define MSG_NAME_MAX 48

int erofs_name_cmp(const char *a, unsigned int alen, const char *b,
		   unsigned int blen)
{
	int cmp = memcmp(a, b, alen < blen ? alen : blen);

	if (cmp)
		return cmp;
	return alen < blen ? -1 : alen > blen;
}

/* Names are raw bytes: keep messages printable and short. */
static const char *msg_name(char *out, const char *name, unsigned int len)
{
	unsigned int i, n = len < MSG_NAME_MAX - 4 ? len : MSG_NAME_MAX - 4;

	for (i = 0; i < n; i++) {
		unsigned char c = name[i];

		out[i] = c >= 0x20 && c < 0x7f ? c : '?';
	}
	if (n < len) {
		memcpy(out + n, "...", 3);
		n += 3;
	}
	out[n] = '\0';
	return out;
}

static bool is_dot(const char *name, unsigned int len)
{
	return len == 1 && name[0] == '.';
}

static bool is_dotdot(const char *name, unsigned int len)
{
	return len == 2 && name[0] == '.' && name[1] == '.';
}

struct dir_block {
	const uint8_t *blk;
	unsigned int maxsize;
	unsigned int count;
	uint64_t nid;
	uint64_t blkpos;
	struct erofs_err *err;
};

static int check_nameoff0(const struct dir_block *b)
{
	unsigned int nameoff0;

	if (b->maxsize < EROFS_DIRENT_SIZE)
		return erofs_error(b->err, -EFSCORRUPTED, b->nid, b->blkpos,
				   "directory block of %u bytes holds no dirent",
				   b->maxsize);
	nameoff0 = erofs_get16(b->blk + EROFS_DIRENT_NAMEOFF);
	if (!nameoff0 || nameoff0 % EROFS_DIRENT_SIZE ||
	    nameoff0 >= b->maxsize)
		return erofs_error(b->err, -EFSCORRUPTED, b->nid,
				   b->blkpos + EROFS_DIRENT_NAMEOFF,
				   "dirent 0: nameoff %u invalid for a block of %u bytes",
				   nameoff0, b->maxsize);
	return 0;
}

static unsigned int nameoff_of(const struct dir_block *b, unsigned int i)
{
	const uint8_t *de = b->blk + i * EROFS_DIRENT_SIZE;

	return erofs_get16(de + EROFS_DIRENT_NAMEOFF);
}

/*
 * Bounds of name i: the next nameoff, or for the last entry the zero
 * padding (its nameoff is checked against maxsize before strnlen).
 */
static int name_bounds(const struct dir_block *b, unsigned int i,
		       unsigned int *off, unsigned int *len)
{
	unsigned int start = nameoff_of(b, i), end;
	unsigned int fieldpos = i * EROFS_DIRENT_SIZE + EROFS_DIRENT_NAMEOFF;

	if (i + 1 == b->count) {
		if (start >= b->maxsize)
			return erofs_error(b->err, -EFSCORRUPTED, b->nid,
					   b->blkpos + fieldpos,
					   "dirent %u (last): nameoff %u not below block size %u",
					   i, start, b->maxsize);
		*off = start;
		*len = strnlen((const char *)b->blk + start,
			       b->maxsize - start);
		return 0;
	}
	end = nameoff_of(b, i + 1);
	fieldpos += EROFS_DIRENT_SIZE;
	if (end <= start)
		return erofs_error(b->err, -EFSCORRUPTED, b->nid,
				   b->blkpos + fieldpos,
				   "dirent %u: nameoff %u not above the previous %u",
				   i + 1, end, start);
	if (end > b->maxsize)
		return erofs_error(b->err, -EFSCORRUPTED, b->nid,
				   b->blkpos + fieldpos,
				   "dirent %u: nameoff %u past block size %u",
				   i + 1, end, b->maxsize);
	*off = start;
	*len = end - start;
	return 0;
}

static int check_name(const struct dir_block *b, unsigned int i,
		      unsigned int off, unsigned int len)
{
	const uint8_t *name = b->blk + off;

	if (!len)
		return erofs_error(b->err, -EFSCORRUPTED, b->nid,
				   b->blkpos + off, "dirent %u: empty name", i);
	if (len > EROFS_NAME_LEN)
		return erofs_error(b->err, -EFSCORRUPTED, b->nid,
				   b->blkpos + off,
				   "dirent %u: name of %u bytes (max %u)",
				   i, len, EROFS_NAME_LEN);
	if (memchr(name, '/', len))
		return erofs_error(b->err, -EFSCORRUPTED, b->nid,
				   b->blkpos + off,
				   "dirent %u: name contains '/'", i);
	if (memchr(name, '\0', len))
		return erofs_error(b->err, -EFSCORRUPTED, b->nid,
				   b->blkpos + off,
				   "dirent %u: name contains NUL", i);
	return 0;
}

static int check_order(const struct dir_block *b, unsigned int i,
		       unsigned int prev_off, unsigned int prev_len,
		       unsigned int off, unsigned int len)
{
	const char *prev = (const char *)b->blk + prev_off;
	const char *cur = (const char *)b->blk + off;
	char m1[MSG_NAME_MAX], m2[MSG_NAME_MAX];
	int cmp = erofs_name_cmp(prev, prev_len, cur, len);

	if (cmp < 0)
		return 0;
	if (!cmp)
		return erofs_error(b->err, -EFSCORRUPTED, b->nid,
				   b->blkpos + i * EROFS_DIRENT_SIZE,
				   "dirent %u: duplicate name '%s'", i,
				   msg_name(m1, cur, len));
	return erofs_error(b->err, -EFSCORRUPTED, b->nid,
			   b->blkpos + i * EROFS_DIRENT_SIZE,
			   "dirent %u: name '%s' not after '%s'", i,
			   msg_name(m1, cur, len),
			   msg_name(m2, prev, prev_len));
}

static int check_entries(const struct dir_block *b)
{
	unsigned int i, off, len, prev_off = 0, prev_len = 0;
	int ret;

	for (i = 0; i < b->count; i++) {
		const uint8_t *de = b->blk + i * EROFS_DIRENT_SIZE;
		unsigned int ftype = de[EROFS_DIRENT_FILE_TYPE];

		ret = name_bounds(b, i, &off, &len);
		if (!ret)
			ret = check_name(b, i, off, len);
		if (!ret && i)
			ret = check_order(b, i, prev_off, prev_len, off, len);
		if (ret)
			return ret;
		if (ftype >= EROFS_FT_MAX)
			return erofs_error(b->err, -EFSCORRUPTED, b->nid,
					   b->blkpos + i * EROFS_DIRENT_SIZE +
					   EROFS_DIRENT_FILE_TYPE,
					   "dirent %u: file type %u", i, ftype);
		prev_off = off;
		prev_len = len;
	}
	return 0;
}

static int emit_entries(const struct dir_block *b, erofs_dirent_fn fn,
			void *arg)
{
	struct erofs_dirent ent;
	unsigned int i, off, len;
	int ret;

	for (i = 0; i < b->count; i++) {
		const uint8_t *de = b->blk + i * EROFS_DIRENT_SIZE;

		/* cannot fail: check_entries() accepted the block */
		name_bounds(b, i, &off, &len);
		ent.nid = erofs_get64(de + EROFS_DIRENT_NID);
		ent.file_type = de[EROFS_DIRENT_FILE_TYPE];
		ent.reserved = de[EROFS_DIRENT_RESERVED];
		ent.namelen = len;
		ent.name = (const char *)b->blk + off;
		ent.pos = b->blkpos + i * EROFS_DIRENT_SIZE;
		ret = fn(arg, &ent);
		if (ret)
			return ret;
	}
	return 0;
}

int erofs_dir_parse_block(const uint8_t *blk, unsigned int maxsize,
			  uint64_t nid, uint64_t blkpos, erofs_dirent_fn fn,
			  void *arg, struct erofs_err *err)
{
	struct dir_block b = {
		.blk = blk, .maxsize = maxsize, .nid = nid,
		.blkpos = blkpos, .err = err,
	};
	int ret;

	ret = check_nameoff0(&b);
	if (ret)
		return ret;
	b.count = erofs_get16(blk + EROFS_DIRENT_NAMEOFF) / EROFS_DIRENT_SIZE;
	ret = check_entries(&b);
	if (ret)
		return ret;
	return emit_entries(&b, fn, arg);
}

int erofs_dir_read_block(struct erofs_ctx *ctx, const struct erofs_inode *dir,
			 uint64_t blkpos, uint8_t *buf, unsigned int *len)
{
	uint64_t left = dir->size - blkpos;
	size_t want = left < ctx->img->blksz ? left : ctx->img->blksz;
	ssize_t got = erofs_pread(ctx, dir, buf, want, blkpos);

	if (got < 0)
		return got;
	if ((size_t)got != want)
		return erofs_error(&ctx->err, -EFSCORRUPTED, dir->nid,
				   EROFS_NO_OFFSET,
				   "directory block at %llu: short read (%zd of %zu bytes)",
				   (unsigned long long)blkpos, got, want);
	*len = want;
	return 0;
}

int erofs_dir_record_error(struct erofs_ctx *ctx,
			   const struct erofs_inode *dir,
			   const struct erofs_err *local)
{
	return erofs_error(&ctx->err, local->code, local->nid,
			   erofs_pos_offset(ctx, dir, local->offset), "%s",
			   local->msg);
}

struct dir_walk {
	const struct erofs_inode *dir;
	uint64_t parent_nid;
	erofs_dirent_fn fn;
	void *arg;
	struct erofs_err err;	/* positions relative to the directory */
	bool seen_dot, seen_dotdot;
	unsigned int lastlen;	/* 0 before the first entry */
	char last[EROFS_NAME_LEN];
};

static int walk_corrupt(struct dir_walk *w, const struct erofs_dirent *de,
			const char *what)
{
	char m[MSG_NAME_MAX];

	return erofs_error(&w->err, -EFSCORRUPTED, w->dir->nid, de->pos,
			   "dirent '%s': %s",
			   msg_name(m, de->name, de->namelen), what);
}

/* Entries of one block are ordered already; this catches block borders. */
static int walk_check_order(struct dir_walk *w, const struct erofs_dirent *de)
{
	char m1[MSG_NAME_MAX], m2[MSG_NAME_MAX];

	if (w->lastlen &&
	    erofs_name_cmp(w->last, w->lastlen, de->name, de->namelen) >= 0)
		return erofs_error(&w->err, -EFSCORRUPTED, w->dir->nid,
				   de->pos,
				   "dirent '%s' not after '%s' of the previous block",
				   msg_name(m1, de->name, de->namelen),
				   msg_name(m2, w->last, w->lastlen));
	memcpy(w->last, de->name, de->namelen);
	w->lastlen = de->namelen;
	return 0;
}

static bool dot_ftype_ok(const struct erofs_dirent *de)
{
	return de->file_type == EROFS_FT_DIR ||
	       de->file_type == EROFS_FT_UNKNOWN;
}

static int walk_dot(struct dir_walk *w, const struct erofs_dirent *de)
{
	if (w->dir->dot_omitted)
		return walk_corrupt(w, de, "in a dot-omitted directory");
	if (de->nid != w->dir->nid)
		return erofs_error(&w->err, -EFSCORRUPTED, w->dir->nid,
				   de->pos,
				   "dirent '.': nid %llu, not the directory",
				   (unsigned long long)de->nid);
	if (!dot_ftype_ok(de))
		return walk_corrupt(w, de, "file type is not a directory");
	w->seen_dot = true;
	return 0;
}

static int walk_dotdot(struct dir_walk *w, const struct erofs_dirent *de)
{
	if (w->parent_nid != EROFS_NO_NID && de->nid != w->parent_nid)
		return erofs_error(&w->err, -EFSCORRUPTED, w->dir->nid,
				   de->pos,
				   "dirent '..': nid %llu, parent is %llu",
				   (unsigned long long)de->nid,
				   (unsigned long long)w->parent_nid);
	if (!dot_ftype_ok(de))
		return walk_corrupt(w, de, "file type is not a directory");
	w->seen_dotdot = true;
	return 0;
}

static int walk_entry(void *arg, const struct erofs_dirent *de)
{
	struct dir_walk *w = arg;
	int ret = walk_check_order(w, de);

	if (ret)
		return ret;
	/* strict order makes a second '.' or '..' impossible */
	if (is_dot(de->name, de->namelen))
		return walk_dot(w, de);
	if (is_dotdot(de->name, de->namelen))
		return walk_dotdot(w, de);
	return w->fn(w->arg, de);
}

static int walk_finish(struct erofs_ctx *ctx, struct dir_walk *w)
{
	if (!w->seen_dotdot)
		return erofs_error(&ctx->err, -EFSCORRUPTED, w->dir->nid,
				   EROFS_NO_OFFSET, "directory has no '..'");
	if (!w->seen_dot && !w->dir->dot_omitted)
		return erofs_error(&ctx->err, -EFSCORRUPTED, w->dir->nid,
				   EROFS_NO_OFFSET, "directory has no '.'");
	return 0;
}

static int check_dir_inode(struct erofs_ctx *ctx,
			   const struct erofs_inode *dir)
{
	if (!S_ISDIR(dir->mode))
		return erofs_error(&ctx->err, -ENOTDIR, dir->nid,
				   EROFS_NO_OFFSET, "not a directory");
	if (!dir->size)
		return erofs_error(&ctx->err, -EFSCORRUPTED, dir->nid,
				   EROFS_NO_OFFSET, "directory with i_size 0");
	return 0;
}

int erofs_dir_iterate(struct erofs_ctx *ctx, const struct erofs_inode *dir,
		      uint64_t parent_nid, erofs_dirent_fn fn, void *arg)
{
	struct dir_walk w = {
		.dir = dir, .parent_nid = parent_nid, .fn = fn, .arg = arg,
	};
	uint64_t pos;
	unsigned int len;
	uint8_t *buf;
	int ret;

	ret = check_dir_inode(ctx, dir);
	if (ret)
		return ret;
	buf = malloc(ctx->img->blksz);
	if (!buf)
		return erofs_error(&ctx->err, -ENOMEM, dir->nid,
				   EROFS_NO_OFFSET, "directory block buffer");
	erofs_err_clear(&w.err);
	/* a huge i_size stops at the first block that cannot be read */
	for (pos = 0; pos < dir->size; pos += len) {
		ret = erofs_dir_read_block(ctx, dir, pos, buf, &len);
		if (ret)
			goto out;
		ret = erofs_dir_parse_block(buf, len, dir->nid, pos, walk_entry,
					    &w, &w.err);
		if (ret) {
			if (w.err.code)
				ret = erofs_dir_record_error(ctx, dir, &w.err);
			goto out;
		}
	}
	ret = walk_finish(ctx, &w);
out:
	free(buf);
	return ret;
}
