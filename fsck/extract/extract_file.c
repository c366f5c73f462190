// SPDX-License-Identifier: MIT
/*
 * Regular files: the walker pins the parent directory (extract_file_begin),
 * a task creates the file unnamed or under a hidden name, writes or copies
 * its data from any worker, and names it once complete, or drops it. The
 * table of files being written, by descriptor, holds what the pieces of a
 * file share: how far its data reaches, its hidden name.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "erofs/data.h"
#include "erofs/image.h"
#include "erofs/inode.h"
#include "extract/extract_state.h"
#include "util/interrupt.h"
#include "util/outfile.h"
#include "util/sparse.h"
#include "walk/walk.h"

#define XFILE_PAGE 256
/* copy_file_range() per call: short enough to notice a signal soon */
#define X_COPY_CHUNK (8u << 20)

/* The table of files being written, for every descriptor there can be. */
bool x_files_init(struct extractor *x)
{
	rlim_t lim = 1 << 20;
	struct rlimit rl;

	pthread_mutex_init(&x->files_lock, NULL);
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < lim)
		lim = rl.rlim_cur;
	x->files = calloc(lim / XFILE_PAGE + 1, sizeof(*x->files));
	if (x->files)
		x->nfilepages = lim / XFILE_PAGE + 1;
	if (getrandom(&x->tmp_seed, sizeof(x->tmp_seed), GRND_NONBLOCK) !=
	    sizeof(x->tmp_seed))
		x->tmp_seed = (uint64_t)getpid() << 32 ^ (uint64_t)time(NULL);
	return x->files;
}

void x_files_fini(struct extractor *x)
{
	size_t i;

	for (i = 0; i < x->nfilepages; i++)
		free(x->files[i]);
	free(x->files);
	pthread_mutex_destroy(&x->files_lock);
}

/* The record of descriptor fd; with add, made if missing (NULL: ENOMEM). */
static struct xfile *xfile_of(struct extractor *x, int fd, bool add)
{
	size_t pg = (size_t)fd / XFILE_PAGE;
	struct xfile *page;

	if (pg >= x->nfilepages)
		return NULL;
	page = __atomic_load_n(&x->files[pg], __ATOMIC_ACQUIRE);
	if (!page && add) {
		pthread_mutex_lock(&x->files_lock);
		page = x->files[pg];
		if (!page) {
			page = calloc(XFILE_PAGE, sizeof(*page));
			__atomic_store_n(&x->files[pg], page, __ATOMIC_RELEASE);
		}
		pthread_mutex_unlock(&x->files_lock);
	}
	return page ? &page[fd % XFILE_PAGE] : NULL;
}

static void xfile_written(struct extractor *x, int fd, uint64_t end)
{
	struct xfile *f = xfile_of(x, fd, false);
	uint64_t cur = __atomic_load_n(&f->end, __ATOMIC_RELAXED);

	while (cur < end &&
	       !__atomic_compare_exchange_n(&f->end, &cur, end, true,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

enum fsck_result extract_file_begin(struct extractor *x,
				    const struct walk_entry *e,
				    const struct fsck_loc *loc,
				    struct xdir **dir)
{
	struct xdir *parent = x_parent_of(x, e);
	const char *name;
	bool kept;

	*dir = NULL;
	if (parent->failed || !(name = x_entry_name(x, e, loc)))
		return FSCK_REPORTED;
	x_evict(x);
	if (xdir_fd(x, parent) < 0)
		return x_create_failed(x, x->rep, loc,
				       "reopen the parent directory of", errno);
	kept = x_kept(x, parent, name, e->inode->mode, e->inode->size, 0,
		      e->inode);
	if (e->inode->nlink > 1 &&
	    !x_add_primary(x, e, parent, name,
			   kept ? XPRIMARY_KEPT : XPRIMARY_PENDING))
		return FSCK_NOMEM;
	if (kept) {
		x_count(&x->nkept);
		return FSCK_OK;
	}
	__atomic_add_fetch(&parent->refs, 1, __ATOMIC_ACQ_REL);
	*dir = parent;
	return FSCK_OK;
}

/* O_TMPFILE is not there: the kernel or the filesystem has none. */
static bool no_tmpfile_errno(int err)
{
	return err == EOPNOTSUPP || err == EISDIR || err == EINVAL;
}

/*
 * A new file no one sees: unnamed (*tmp_id 0), or under a hidden name,
 * made with O_EXCL and O_NOFOLLOW, so that nothing in the way is reused
 * or followed. Returns a descriptor, or -1 with errno set.
 */
static int x_tmp_create(struct extractor *x, int dfd, mode_t m,
			uint64_t *tmp_id)
{
	int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
	char tmp[X_TMP_LEN + 1];
	int fd, i;

	*tmp_id = 0;
	if (!__atomic_load_n(&x->no_tmpfile, __ATOMIC_RELAXED)) {
		fd = openat(dfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, m);
		if (fd >= 0 || !no_tmpfile_errno(errno))
			return fd;
		__atomic_store_n(&x->no_tmpfile, 1, __ATOMIC_RELAXED);
	}
	for (i = 0; i < X_TMP_TRIES; i++) {
		*tmp_id = x_tmp_name(x, tmp);
		fd = openat(dfd, tmp, flags, m);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	errno = EEXIST;
	return -1;
}

/* Remove the hidden name of a file that will not get its own. */
static void x_tmp_remove(int dfd, uint64_t tmp_id)
{
	char tmp[X_TMP_LEN + 1];

	if (!tmp_id)
		return;
	x_tmp_format(tmp_id, tmp);
	unlinkat(dfd, tmp, 0);
}

enum fsck_result extract_file_create(struct extractor *x, struct report *rep,
				     const struct fsck_loc *loc,
				     struct xdir *dir, const char *name,
				     const struct erofs_inode *inode, int *fd)
{
	mode_t m = x_mode(x, inode->mode) & 0777;
	uint64_t tmp_id;
	struct xfile *f;
	int nfd;

	*fd = -1;
	if (!name)
		name = x->start_name;
	/* in a directory of this run, only a bad image repeats a name */
	if (!dir->fresh && !x_replaces(x) && x_exists(dir->fd, name)) {
		x_report_exists(rep, loc, "create");
		return FSCK_REPORTED;
	}
	nfd = x_tmp_create(x, dir->fd, m, &tmp_id);
	if (nfd < 0)
		return x_create_failed(x, rep, loc, "create", errno);
	f = xfile_of(x, nfd, true);
	if (!f) {
		close(nfd);
		x_tmp_remove(dir->fd, tmp_id);
		return x_create_failed(x, rep, loc, "create", ENOMEM);
	}
	__atomic_store_n(&f->end, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&f->tmp_id, tmp_id, __ATOMIC_RELAXED);
	*fd = nfd;
	return FSCK_OK;
}

static enum fsck_result x_pwrite(struct extractor *x, struct report *rep,
				 const struct fsck_loc *loc, int fd,
				 const uint8_t *p, size_t len, uint64_t off)
{
	int err = outfile_write_all(fd, p, len, (off_t)off);

	if (err) {
		x_report_out(x, rep, loc, true, "write", -err);
		return FSCK_STOP;
	}
	xfile_written(x, fd, off + len);
	return FSCK_OK;
}

/*
 * --sparse: write all but the zeros of sparse.h, which the file, new and
 * empty, already reads as. Only what is written counts as its end:
 * ftruncate gives it its size at the commit.
 */
static enum fsck_result x_write_sparse(struct extractor *x, struct report *rep,
				       const struct fsck_loc *loc, int fd,
				       const uint8_t *buf, size_t len,
				       uint64_t off)
{
	size_t data = 0, skip, end;
	bool whole;

	while (data < len) {
		skip = sparse_next_skip(buf, len, off, data, &end, &whole);
		if (skip > data && x_pwrite(x, rep, loc, fd, buf + data,
					    skip - data, off + data) != FSCK_OK)
			return FSCK_STOP;
		data = end;
	}
	return FSCK_OK;
}

enum fsck_result extract_file_write(struct extractor *x, struct report *rep,
				    const struct fsck_loc *loc, int fd,
				    const void *buf, size_t len, uint64_t off)
{
	if (x->o.sparse && len)
		return x_write_sparse(x, rep, loc, fd, buf, len, off);
	return x_pwrite(x, rep, loc, fd, buf, len, off);
}

enum fsck_result extract_file_copy(struct extractor *x, struct report *rep,
				   const struct fsck_loc *loc, int fd,
				   struct erofs_ctx *ctx,
				   const struct erofs_inode *inode,
				   const struct erofs_map *map, uint64_t skip,
				   uint64_t len, bool *copied)
{
	uint64_t off, n;
	int ret;

	*copied = false;
	/* copied bytes are data: zeros are only found reading them */
	if (x->o.sparse || __atomic_load_n(&x->no_copy, __ATOMIC_RELAXED))
		return FSCK_OK;
	for (off = map->la + skip; len; skip += n, off += n, len -= n) {
		if (interrupted())
			return FSCK_STOP;
		n = len < X_COPY_CHUNK ? len : X_COPY_CHUNK;
		ret = erofs_extent_copy(ctx, inode, map, skip, n, fd, off);
		if (ret == EROFS_COPY_REFUSED) {
			__atomic_store_n(&x->no_copy, 1, __ATOMIC_RELAXED);
			return FSCK_OK;
		}
		if (ret < 0 && erofs_ctx_err(ctx)->output) {
			x_report_out(x, rep, loc, true, "write", -ret);
			erofs_err_drop(erofs_ctx_err(ctx));
			return FSCK_STOP;
		}
		/* the image failed: reading the extent reports it */
		if (ret < 0) {
			erofs_err_drop(erofs_ctx_err(ctx));
			return FSCK_OK;
		}
		xfile_written(x, fd, off + n);
	}
	*copied = true;
	return FSCK_OK;
}

/* Link the unnamed file fd as name; 0 or an errno. */
static int x_link_unnamed(struct extractor *x, int fd, int dfd,
			  const char *name)
{
	char proc[32];
	int err = ENOENT;

	/* needs CAP_DAC_READ_SEARCH; else the kernel says ENOENT */
	if (!__atomic_load_n(&x->no_empty_path, __ATOMIC_RELAXED)) {
		err = x_link_replacing(x, fd, "", AT_EMPTY_PATH, dfd, name);
		if (err != ENOENT || !x->have_proc)
			return err;
		__atomic_store_n(&x->no_empty_path, 1, __ATOMIC_RELAXED);
	}
	if (!x->have_proc)
		return err;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	return x_link_replacing(x, AT_FDCWD, proc, AT_SYMLINK_FOLLOW, dfd,
				name);
}

/* Move a file written under a hidden name to name; 0 or an errno. */
static int x_rename_tmp(struct extractor *x, int dfd, const char *tmp,
			const char *name)
{
	int err;

	if (x_replaces(x))
		err = x_rename_over(dfd, tmp, name);
	else if (!renameat2(dfd, tmp, dfd, name, RENAME_NOREPLACE))
		err = 0;
	else if (errno != EINVAL)
		err = errno;
	/* no RENAME_NOREPLACE here: a link does not replace either */
	else if (linkat(dfd, tmp, dfd, name, 0))
		err = errno;
	else
		err = unlinkat(dfd, tmp, 0) ? errno : 0;
	if (err)
		unlinkat(dfd, tmp, 0);
	return err;
}

/* The file is complete: give it its name. */
static enum fsck_result x_place(struct extractor *x, struct report *rep,
				const struct fsck_loc *loc, int dfd,
				const char *name, int fd, struct xfile *f)
{
	uint64_t tmp_id = __atomic_load_n(&f->tmp_id, __ATOMIC_RELAXED);
	char tmp[X_TMP_LEN + 1];
	int err;

	if (tmp_id) {
		x_tmp_format(tmp_id, tmp);
		err = x_rename_tmp(x, dfd, tmp, name);
	} else {
		err = x_link_unnamed(x, fd, dfd, name);
	}
	if (!err)
		return FSCK_OK;
	if (err == EEXIST) {
		x_report_exists(rep, loc, "create");
		return FSCK_REPORTED;
	}
	return x_create_failed(x, rep, loc, "create", err);
}

/* Does the file need chown to get the image's owner? */
static bool x_chown_needed(const struct extractor *x, const struct xdir *dir,
			   const struct erofs_inode *inode)
{
	return x->o.owner &&
	       (inode->uid != x->euid || inode->gid != dir->new_gid);
}

/* x_apply() for a file written in dir, by its descriptor. */
static bool x_file_meta(struct extractor *x, struct report *rep,
			const struct fsck_loc *loc, const struct xdir *dir,
			int fd, const struct erofs_inode *inode,
			const struct xattr_list *xl, bool salvaged)
{
	struct x_obj o = { .fd = fd, .kind = XKIND_REG, .salvaged = salvaged };
	mode_t m = x_mode(x, inode->mode);

	o.strip_acls = x->o.xattrs && dir->inherits_acl;
	o.chown = x_chown_needed(x, dir, inode);
	return x_apply(x, rep, loc, &o, inode, inode->mode, xl,
		       (m & 07000) || o.strip_acls);
}

enum fsck_result extract_file_commit(struct extractor *x, struct report *rep,
				     const struct fsck_loc *loc,
				     struct xdir *dir, const char *name, int fd,
				     const struct erofs_inode *inode,
				     const struct xattr_list *xl, bool salvaged)
{
	struct xfile *f = xfile_of(x, fd, false);
	enum fsck_result placed;
	bool meta_ok;

	if (!name)
		name = x->start_name;
	if (__atomic_load_n(&f->end, __ATOMIC_RELAXED) != inode->size &&
	    ftruncate(fd, (off_t)inode->size)) {
		x_report_out(x, rep, loc, true, "write", errno);
		extract_file_abort(x, dir, name, fd);
		return FSCK_STOP;
	}
	meta_ok = x_file_meta(x, rep, loc, dir, fd, inode, xl, salvaged);
	placed = x_place(x, rep, loc, dir->fd, name, fd, f);
	if (placed != FSCK_OK) {
		close(fd);
		return placed;
	}
	if (close(fd)) {
		x_report_out(x, rep, loc, true, "write", errno);
		unlinkat(dir->fd, name, 0);
		return FSCK_STOP;
	}
	x_count(&x->nfiles);
	return meta_ok ? FSCK_OK : FSCK_REPORTED;
}

/* The data failed: the name, if any, is as it was. */
void extract_file_abort(struct extractor *x, struct xdir *dir,
			const char *name, int fd)
{
	struct xfile *f = xfile_of(x, fd, false);

	(void)name;
	x_tmp_remove(dir->fd,
		     f ? __atomic_load_n(&f->tmp_id, __ATOMIC_RELAXED) : 0);
	close(fd);
}

void extract_file_end(struct extractor *x, struct xdir *dir)
{
	if (dir)
		xdir_unref(x, dir);
}
