// SPDX-License-Identifier: MIT
/*
 * Symlinks, devices, fifos and sockets, on the walker thread: made by
 * name, then given their metadata through an O_PATH descriptor reopened
 * by name and checked to be what was made. One replacing an entry is
 * made under a hidden name and renamed over it, complete.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "erofs/inode.h"
#include "extract/extract_state.h"
#include "walk/walk.h"

/* Is what o reaches, reopened by name, what was just created? */
static bool x_node_is_ours(const struct extractor *x, const struct xdir *parent,
			   const struct x_obj *o,
			   const struct erofs_inode *inode)
{
	struct stat st;

	/*
	 * A hard link to another's node put there meanwhile would get the
	 * image's owner and mode (only fs.protected_hardlinks stops that).
	 */
	return !fstat(o->fd, &st) &&
	       (st.st_mode & S_IFMT) == (inode->mode & S_IFMT) &&
	       st.st_nlink == 1 && st.st_uid == x->euid &&
	       st.st_dev == parent->dev;
}

/* Metadata of a symlink or node, through an O_PATH descriptor. */
static void x_node_meta(struct extractor *x, struct xdir *parent,
			const char *name, const struct erofs_inode *inode,
			const struct xattr_list *xl, const struct fsck_loc *loc)
{
	struct x_obj o = { .opath = true,
			   .kind = XKIND_OTHER,
			   .chown = x->o.owner };

	o.strip_acls =
		x->o.xattrs && parent->inherits_acl && !S_ISLNK(inode->mode);
	o.fd = openat(parent->fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (o.fd < 0) {
		x_report_errno(x->rep, loc, "open what was created", errno);
		return;
	}
	if (!x_node_is_ours(x, parent, &o, inode)) {
		report_failure(x->rep, loc, "changed while being created");
		close(o.fd);
		return;
	}
	snprintf(o.proc, sizeof(o.proc), "/proc/self/fd/%d", o.fd);
	if (!x->have_proc && !S_ISLNK(inode->mode))
		report_failure(x->rep, loc,
			       "cannot set the mode: /proc is not mounted");
	else
		x_apply(x, x->rep, loc, &o, inode, inode->mode, xl, true);
	close(o.fd);
}

/* symlinkat or mknodat; 0 or an errno. */
static int x_mknod_at(int pfd, const char *name,
		      const struct erofs_inode *inode, const char *target)
{
	dev_t rdev = makedev(erofs_rdev_major(inode->rdev),
			     erofs_rdev_minor(inode->rdev));
	int ret;

	if (S_ISLNK(inode->mode))
		ret = symlinkat(target, pfd, name);
	else
		ret = mknodat(pfd, name, (inode->mode & S_IFMT) | 0600,
			      S_ISCHR(inode->mode) || S_ISBLK(inode->mode) ?
			      rdev : 0);
	return ret ? errno : 0;
}

/*
 * --overwrite: a node replacing an entry is made under a hidden name, gets
 * its metadata there, and is then renamed over the entry, which stays
 * until then. Returns 0 or an errno.
 */
static int x_mknode_over(struct extractor *x, struct xdir *parent,
			 const char *name, const struct erofs_inode *inode,
			 const char *target, const struct xattr_list *xl,
			 const struct fsck_loc *loc)
{
	char tmp[X_TMP_LEN + 1];
	int i, err = EEXIST;

	for (i = 0; i < X_TMP_TRIES && err == EEXIST; i++) {
		x_tmp_name(x, tmp);
		err = x_mknod_at(parent->fd, tmp, inode, target);
	}
	if (err)
		return err;
	x_node_meta(x, parent, tmp, inode, xl, loc);
	err = x_rename_over(parent->fd, tmp, name);
	if (err)
		unlinkat(parent->fd, tmp, 0);
	return err;
}

/* Create a symlink or node and set its metadata. */
static enum fsck_result
x_mknode(struct extractor *x, struct xdir *parent, const char *name,
	 const struct erofs_inode *inode, const char *target,
	 const struct xattr_list *xl, const struct fsck_loc *loc)
{
	int err = x_mknod_at(parent->fd, name, inode, target);

	if (!err) {
		x_node_meta(x, parent, name, inode, xl, loc);
		return FSCK_OK;
	}
	if (err == EEXIST && x_replaces(x))
		err = x_mknode_over(x, parent, name, inode, target, xl, loc);
	if (!err)
		return FSCK_OK;
	if (err == EEXIST) {
		x_report_exists(x->rep, loc, "create");
		return FSCK_REPORTED;
	}
	return x_create_failed(x, x->rep, loc, "create", err);
}

enum fsck_result extract_node(struct extractor *x, const struct walk_entry *e,
			      const struct fsck_loc *loc, const char *target,
			      size_t tlen, const struct xattr_list *xl)
{
	struct xdir *parent = x_parent_of(x, e);
	const struct erofs_inode *inode = e->inode;
	enum xprimary_state state;
	enum fsck_result res;
	const char *name;

	if (parent->failed || !(name = x_entry_name(x, e, loc)))
		return FSCK_REPORTED;
	if (S_ISLNK(inode->mode) && (!tlen || memchr(target, '\0', tlen)))
		return FSCK_REPORTED;	/* by the checker */
	if (xdir_fd(x, parent) < 0)
		return x_create_failed(x, x->rep, loc,
				       "reopen the parent directory of", errno);
	if (x_kept(x, parent, name, inode->mode, tlen, inode->rdev, inode)) {
		x_count(&x->nkept);
		res = FSCK_OK;
		state = XPRIMARY_KEPT;
	} else {
		res = x_mknode(x, parent, name, inode, target, xl, loc);
		if (res == FSCK_STOP)
			return res;
		if (res == FSCK_OK)
			x_count(S_ISLNK(inode->mode) ? &x->nsymlinks :
						       &x->nnodes);
		state = res == FSCK_OK ? XPRIMARY_CREATED : XPRIMARY_FAILED;
	}
	if (inode->nlink > 1 && !x_add_primary(x, e, parent, name, state))
		return FSCK_NOMEM;
	return res;
}
