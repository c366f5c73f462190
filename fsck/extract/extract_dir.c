// SPDX-License-Identifier: MIT
/*
 * Directories, on the walker thread: each is created 0700 (or an existing
 * one is taken, as the rules allow), opened, and kept on the walk's stack
 * while its children are extracted; its metadata waits for the fix-ups
 * after the walk (extract_links.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "erofs/inode.h"
#include "extract/extract_state.h"
#include "util/grow.h"
#include "walk/walk.h"

struct xdir *xdir_new(struct extractor *x, struct xdir *parent,
		      const char *name, size_t namelen, const char *path,
		      size_t pathlen)
{
	struct xdir *d;

	if (ARRAY_GROW(x->all, x->capall, x->nall + 1, 16))
		return NULL;
	d = calloc(1, sizeof(*d) + namelen + 1);
	if (!d)
		return NULL;
	d->path = malloc(pathlen + 1);
	if (!d->path) {
		free(d);
		return NULL;
	}
	memcpy(d->path, path, pathlen);
	d->path[pathlen] = '\0';
	d->pathlen = pathlen;
	memcpy(d->name, name, namelen);
	d->parent = parent;
	d->fd = -1;
	d->refs = 1;
	x->all[x->nall++] = d;
	return d;
}

struct xdir *x_parent_of(struct extractor *x, const struct walk_entry *e)
{
	/* at depth 1 it is DIR: also under a level --strip-components left */
	return e->depth > 1 ? e->parent : x->root;
}

static void xdir_set_meta(struct xdir *d, const struct erofs_inode *inode)
{
	d->nid = inode->nid;
	d->mode = inode->mode;
	d->uid = inode->uid;
	d->gid = inode->gid;
	d->mtime = inode->mtime;
	d->mtime_nsec = inode->mtime_nsec;
}

/* The descriptor of d, open on the directory st describes. */
static void xdir_set_fd(struct extractor *x, struct xdir *d, int fd,
			const struct stat *st, bool fresh)
{
	d->dev = st->st_dev;
	d->ino = st->st_ino;
	d->fresh = fresh;
	d->new_gid = st->st_mode & S_ISGID ? st->st_gid : x->egid;
	x_fd_opened(x, d, fd);
}

/*
 * An entry of d's name exists: a directory is used (*existed), anything
 * else replaced when allowed.
 */
static enum fsck_result x_mkdir_existing(struct extractor *x, struct xdir *d,
					 int pfd, const struct fsck_loc *loc,
					 bool *existed)
{
	struct stat st;
	int err;

	if (fstatat(pfd, d->name, &st, AT_SYMLINK_NOFOLLOW))
		return x_create_failed(x, x->rep, loc, "create the directory",
				       errno);
	*existed = S_ISDIR(st.st_mode);
	if (*existed)
		return FSCK_OK;
	if (!x_replaces(x)) {
		report_failure(x->rep, loc,
			       "cannot create the directory: an entry that is not a directory exists (--overwrite replaces it)");
		return FSCK_REPORTED;
	}
	err = x_remove(pfd, d->name);
	if (!err && mkdirat(pfd, d->name, 0700))
		err = errno;
	if (err)
		return x_create_failed(x, x->rep, loc, "create the directory",
				       err);
	return FSCK_OK;
}

/* Open what was made or found, and set what it passes to its entries. */
static enum fsck_result x_mkdir_open(struct extractor *x, struct xdir *d,
				     int pfd, const struct fsck_loc *loc,
				     bool existed)
{
	struct stat st;
	int fd, err;

	fd = openat(pfd, d->name, DIR_OPEN_FLAGS);
	if (fd < 0 || fstat(fd, &st)) {
		err = errno;
		if (fd >= 0)
			close(fd);
		return x_create_failed(x, x->rep, loc, "create the directory",
				       err);
	}
	/* swapped for another's directory between mkdirat and openat */
	if (!existed && st.st_uid != x->euid) {
		close(fd);
		report_failure(x->rep, loc, "changed while being created");
		return FSCK_REPORTED;
	}
	xdir_set_fd(x, d, fd, &st, !existed);
	if (existed) {
		d->inherits_acl = has_default_acl(fd);
		d->strip_acls = true;
		if (x_replaces(x))
			x_clean_tmp(fd);
	} else {
		d->inherits_acl = d->parent->inherits_acl;
		d->strip_acls = d->inherits_acl;
	}
	return FSCK_OK;
}

/* mkdirat, or an existing directory. */
static enum fsck_result x_mkdir(struct extractor *x, struct xdir *d, int pfd,
				const struct fsck_loc *loc)
{
	enum fsck_result res;
	bool existed = false;

	x_evict(x);
	if (mkdirat(pfd, d->name, 0700)) {
		if (errno != EEXIST)
			return x_create_failed(x, x->rep, loc,
					       "create the directory", errno);
		res = x_mkdir_existing(x, d, pfd, loc, &existed);
		if (res != FSCK_OK)
			return res;
	}
	return x_mkdir_open(x, d, pfd, loc, existed);
}

static bool x_push(struct extractor *x, struct xdir *d)
{
	if (ARRAY_GROW(x->stack, x->capstack, x->nstack + 1, 16))
		return false;
	x->stack[x->nstack++] = d;
	return true;
}

/* Create d in its parent; FSCK_REPORTED when it was not. */
static enum fsck_result x_create_dir(struct extractor *x, struct xdir *d,
				     const struct fsck_loc *loc)
{
	int pfd = xdir_fd(x, d->parent);

	if (pfd < 0)
		return x_create_failed(x, x->rep, loc,
				       "reopen the parent directory of", errno);
	return x_mkdir(x, d, pfd, loc);
}

/* The struct xdir of entry e (not the start), created if it may be. */
static enum fsck_result x_dir_entry(struct extractor *x,
				    const struct walk_entry *e,
				    const struct fsck_loc *loc,
				    struct xdir **out)
{
	const char *name = x_entry_name(x, e, loc);
	struct xdir *parent = x_parent_of(x, e), *d;
	enum fsck_result res;

	d = xdir_new(x, parent, name ? name : "", name ? e->namelen : 0,
		     e->path, e->pathlen);
	if (!d)
		return FSCK_NOMEM;
	*out = d;
	res = name && !parent->failed ? x_create_dir(x, d, loc) : FSCK_REPORTED;
	d->failed = res != FSCK_OK;
	d->fixup = res == FSCK_OK;
	if (res == FSCK_OK)
		x_count(&x->ndirs);
	return res;
}

enum fsck_result extract_dir(struct extractor *x, const struct walk_entry *e,
			     const struct fsck_loc *loc, struct xattr_list *xl,
			     void **state)
{
	enum fsck_result res = FSCK_OK;
	struct xdir *d = x->root;

	if (e->depth) {
		res = x_dir_entry(x, e, loc, &d);
		if (!fsck_result_goes_on(res))
			return res;
	} else {
		/* output paths are DIR and the path below the start */
		x->start_pathlen = e->pathlen;
	}
	xdir_set_meta(d, e->inode);
	d->xl = *xl;
	memset(xl, 0, sizeof(*xl));
	*state = d;
	return x_push(x, d) ? res : FSCK_NOMEM;
}

void extract_dir_done(struct extractor *x, void *state)
{
	struct xdir *d = state;
	struct fsck_loc loc = { .label = "/", .path = d->path,
				.pathlen = d->pathlen, .nid = d->nid,
				.offset = EROFS_NO_OFFSET };

	if (x->nstack && x->stack[x->nstack - 1] == d)
		x->nstack--;
	if (!ARRAY_GROW(x->post, x->cappost, x->npost + 1, 16)) {
		x->post[x->npost++] = d;
	} else if (d->fixup) {
		/* its mode, owner and times would be left as made: say so */
		report_nomem(x->rep, &loc);
		d->fixup = false;
	}
	xdir_unref(x, d);
}
