// SPDX-License-Identifier: MIT
/*
 * After the walk and every task (extract.h, "Threads"): the further names
 * of hard-linked inodes, linked to the first name once it is complete,
 * then the metadata of directories, children before parents, and the
 * summary of what the target refused.
 */
#include <stdlib.h>
#include <string.h>

#include "erofs/format.h"
#include "erofs/inode.h"
#include "extract/extract_state.h"
#include "util/grow.h"
#include "util/interrupt.h"
#include "walk/walk.h"

/* The first name of an inode with several, for its further names. */
bool x_add_primary(struct extractor *x, const struct walk_entry *e,
		   struct xdir *dir, const char *name,
		   enum xprimary_state state)
{
	struct xprimary *p;
	int added;

	p = nidmap_get(&x->primaries, e->nid, &added);
	if (!p)
		return false;
	if (!added)
		return true;
	p->name = strdup(name);
	if (!p->name)
		return false;
	p->dir = dir;
	p->state = state;
	p->mode = e->inode->mode;
	p->size = e->inode->size;
	return true;
}

void extract_file_status(struct extractor *x, uint64_t nid, bool ok)
{
	struct xprimary *p = nidmap_find(&x->primaries, nid);

	/* a file kept by --keep-existing, or a node, is settled */
	if (p && p->state == XPRIMARY_PENDING)
		p->state = ok ? XPRIMARY_CREATED : XPRIMARY_FAILED;
}

enum fsck_result extract_link(struct extractor *x, const struct walk_entry *e,
			      const struct fsck_loc *loc)
{
	struct xdir *parent = x_parent_of(x, e);
	const char *name;
	struct xlink *l;

	if (parent->failed || !(name = x_entry_name(x, e, loc)))
		return FSCK_REPORTED;
	if (ARRAY_GROW(x->links, x->caplinks, x->nlinks + 1, 16))
		return FSCK_NOMEM;
	l = &x->links[x->nlinks];
	l->dir = parent;
	l->nid = e->nid;
	l->name = strdup(name);
	l->path = strndup(e->path, e->pathlen);
	l->pathlen = e->pathlen;
	if (!l->name || !l->path) {
		free(l->name);
		free(l->path);
		return FSCK_NOMEM;
	}
	x->nlinks++;
	return FSCK_OK;
}

void x_links_fini(struct extractor *x)
{
	size_t i;

	for (i = 0; i < x->nlinks; i++) {
		free(x->links[i].name);
		free(x->links[i].path);
	}
	free(x->links);
	nidmap_for_each(&x->primaries, i)
		free(((struct xprimary *)nidmap_val(&x->primaries, i))->name);
	nidmap_fini(&x->primaries);
}

static void x_link_one(struct extractor *x, const struct xlink *l)
{
	struct fsck_loc loc = {
		.path = l->path,
		.pathlen = l->pathlen,
		.nid = l->nid,
		.offset = EROFS_NO_OFFSET,
	};
	struct xprimary *p = nidmap_find(&x->primaries, l->nid);
	int pfd, dfd, err;

	/* the first name failed, and said so */
	if (!p || (p->state != XPRIMARY_CREATED && p->state != XPRIMARY_KEPT))
		return;
	x_trim(x);
	pfd = xdir_fd(x, p->dir);
	dfd = pfd < 0 ? -1 : xdir_fd(x, l->dir);
	if (dfd < 0) {
		x_report_errno(x->rep, &loc, "reopen a directory", errno);
		return;
	}
	if (x_kept(x, l->dir, l->name, p->mode, p->size, 0, NULL)) {
		x_count(&x->nkept);
		return;
	}
	err = x_link_replacing(x, pfd, p->name, 0, dfd, l->name);
	if (!err) {
		x_count(&x->nlinked);
		return;
	}
	if (err == EEXIST)
		report_failure(x->rep, &loc,
			       "cannot link: an entry of that name exists (--overwrite replaces it)");
	else
		x_report_errno(x->rep, &loc, "link", err);
}

static void x_fix_dir(struct extractor *x, struct xdir *d)
{
	struct fsck_loc loc = {
		.path = d->path,
		.pathlen = d->pathlen,
		.nid = d->nid,
		.offset = EROFS_NO_OFFSET,
	};
	struct x_obj o = { .kind = XKIND_REG, .chown = x->o.owner };
	struct erofs_inode inode;

	x_trim(x);
	o.fd = xdir_fd(x, d);
	if (o.fd < 0) {
		x_report_errno(x->rep, &loc, "reopen the directory", errno);
		return;
	}
	o.strip_acls = x->o.xattrs && d->strip_acls;
	memset(&inode, 0, sizeof(inode));
	inode.mode = d->mode;
	inode.uid = d->uid;
	inode.gid = d->gid;
	inode.mtime = d->mtime;
	inode.mtime_nsec = d->mtime_nsec;
	x_apply(x, x->rep, &loc, &o, &inode, d->mode, &d->xl, true);
	x_fd_close(x, d);
}

/*
 * DIR made here, whose entry of the image never came (--strip-components
 * took the start of the walk away): the mode mkdir(1) gives, not the
 * 0700 an interrupted run leaves.
 */
static void x_fix_bare_root(struct extractor *x)
{
	struct fsck_loc loc = { .label = x->o.dir,
				.nid = EROFS_NO_NID,
				.offset = EROFS_NO_OFFSET };
	int fd;

	if (interrupted() || !x->root_made || !x->root->fixup ||
	    x->root->mode)
		return;
	fd = xdir_fd(x, x->root);
	if (fd < 0 || fchmod(fd, 0777 & ~x->o.umask))
		x_report_errno(x->rep, &loc, "set the mode", errno);
}

void extract_finish(struct extractor *x, bool stopped)
{
	size_t i;

	x->nstack = 0;
	for (i = 0; !stopped && i < x->nlinks; i++)
		x_link_one(x, &x->links[i]);
	/* interrupted: directories stay 0700, as made, and writable */
	for (i = 0; !interrupted() && i < x->npost; i++)
		if (x->post[i]->fixup && !x->post[i]->failed)
			x_fix_dir(x, x->post[i]);
	x_fix_bare_root(x);
	x_summary(x);
}
