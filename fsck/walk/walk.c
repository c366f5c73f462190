// SPDX-License-Identifier: MIT
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "erofs/data.h"
#include "erofs/dir.h"
#include "erofs/image.h"
#include "erofs/inode.h"
#include "util/grow.h"
#include "util/interrupt.h"
#include "util/nidmap.h"
#include "util/strbuf.h"
#include "walk/nidset.h"
#include "walk/walk.h"

struct walk_child {
	uint64_t nid;
	uint64_t pos;		/* dirent position in the directory */
	size_t nameoff;		/* in the frame's name arena */
	uint8_t namelen;
	uint8_t ftype;
	uint8_t reserved;
	size_t deferred;	/* 1 + its index in frame's deferred, or 0 */
};

/*
 * What to do with a child, in the frame's event list. A directory whose
 * name is extended by siblings with a byte below '/' ("a", then "a-b",
 * "a.c") is entered at its name and descended after them, so that paths
 * come in byte order ("a", "a-b", "a.c", "a/x"): the manifest's order.
 */
enum walk_event_kind {
	WALK_VISIT,		/* enter, and descend a directory at once */
	WALK_ENTER,		/* enter a directory, descend later */
	WALK_DESCEND,		/* descend a directory entered before */
};

#define WALK_EVENT(kid, kind) ((kid) << 2 | (kind))
#define WALK_EVENT_KID(ev) ((ev) >> 2)
#define WALK_EVENT_KIND(ev) ((ev) & 3)

/* A directory entered, whose children are visited later. */
struct walk_deferred {
	struct erofs_inode inode;
	void *state;
};

/* One directory being walked: its entries and where we are in them. */
struct walk_frame {
	struct erofs_inode inode;
	uint64_t parent_nid;
	void *parent_state;
	void *state;
	size_t pathlen;
	size_t namelen;
	unsigned int depth;
	struct walk_child *kids;
	size_t nkids, kidcap;
	size_t *events;		/* WALK_EVENT()s, in visiting order */
	size_t nevents, eventcap, next;
	struct walk_deferred *deferred;
	size_t ndeferred, deferredcap;
	char *names;
	size_t nameslen, namescap;
	uint64_t subdirs;
	bool complete;		/* every entry read and every inode decoded */
};

struct link_info {
	uint32_t refs;
	uint32_t nlink;
	char *path;		/* a name of the inode, kept to report it */
	size_t pathlen;
};

struct walker {
	struct erofs_ctx *ctx;
	struct report *rep;
	const struct walk_opts *opts;
	const struct walk_visitor *v;
	struct walk_stats *stats;
	struct strbuf path;
	size_t relstart;	/* where descendants' relative paths start */
	struct walk_frame *frames;
	size_t nframes, framecap;
	size_t *open;		/* walk_order()'s scratch stack */
	size_t opencap;
	struct nidset dirs;	/* visited directories */
	struct nidset singles;	/* visited non-directories with one link */
	/*
	 * struct link_info per non-directory with a link count other than
	 * one, and per one-link inode met a second time
	 */
	struct nidmap links;
	bool incomplete;	/* some references may have been missed */
};

static const char *const ftype_names[EROFS_FT_MAX] = {
	[EROFS_FT_UNKNOWN] = "unknown",
	[EROFS_FT_REG_FILE] = "regular file",
	[EROFS_FT_DIR] = "directory",
	[EROFS_FT_CHRDEV] = "character device",
	[EROFS_FT_BLKDEV] = "block device",
	[EROFS_FT_FIFO] = "fifo",
	[EROFS_FT_SOCK] = "socket",
	[EROFS_FT_SYMLINK] = "symlink",
};

static void walk_loc(const struct walker *w, struct fsck_loc *loc,
		     uint64_t nid, uint64_t offset)
{
	loc->label = NULL;
	loc->path = w->path.s ? w->path.s : "";
	loc->pathlen = w->path.len;
	loc->nid = nid;
	loc->offset = offset;
}

/* Report the context's error record at the current path. */
static int walk_lib_error(struct walker *w, uint64_t nid, int code)
{
	struct fsck_loc loc;

	walk_loc(w, &loc, nid, EROFS_NO_OFFSET);
	return report_lib_error(w->rep, &loc, erofs_ctx_err(w->ctx), code);
}

/* The walk must stop: say why at the current path, unless said. */
static void walk_stopped(struct walker *w, uint64_t nid, int code)
{
	struct fsck_loc loc;

	/*
	 * An interruption is reported by the caller, with the signal; a
	 * visitor that stops with -ECANCELED has reported why, or leaves it
	 * to the part that failed (an output, at its finish).
	 */
	if (w->rep->fatal || interrupted() || code == -ECANCELED)
		return;
	walk_loc(w, &loc, nid, EROFS_NO_OFFSET);
	if (code == -ENOMEM)
		report_nomem(w->rep, &loc);
	else
		report_fatal_at(w->rep, &loc, code, "walk stopped: %s",
				strerror(-code));
}

static void walk_truncate(struct walker *w, size_t len)
{
	w->path.len = len;
	if (w->path.s)
		w->path.s[len] = '\0';
}

static void walk_fill_entry(const struct walker *w, struct walk_entry *e,
			    const struct erofs_inode *inode, size_t namelen,
			    unsigned int depth)
{
	e->path = w->path.s ? w->path.s : "";
	e->pathlen = w->path.len;
	if (depth) {
		e->rel = e->path + w->relstart;
		e->rellen = e->pathlen - w->relstart;
	} else {
		e->rel = "";
		e->rellen = 0;
	}
	e->name = e->path + e->pathlen - namelen;
	e->namelen = namelen;
	e->nid = inode->nid;
	e->inode = inode;
	e->depth = depth;
	e->first = true;
	e->later = false;
}

static int walk_collect(void *arg, const struct erofs_dirent *de)
{
	struct walk_frame *f = arg;
	struct walk_child *kid;

	if (ARRAY_GROW(f->kids, f->kidcap, f->nkids + 1, 64) ||
	    ARRAY_GROW(f->names, f->namescap, f->nameslen + de->namelen, 4096))
		return -ENOMEM;
	kid = &f->kids[f->nkids++];
	kid->nid = de->nid;
	kid->pos = de->pos;
	kid->nameoff = f->nameslen;
	kid->namelen = de->namelen;
	kid->ftype = de->file_type;
	kid->reserved = de->reserved;
	kid->deferred = 0;
	memcpy(f->names + f->nameslen, de->name, de->namelen);
	f->nameslen += de->namelen;
	return 0;
}

static struct walk_frame *walk_new_frame(struct walker *w)
{
	struct walk_frame *f;

	if (w->nframes == w->framecap) {
		size_t old = w->framecap;

		if (ARRAY_GROW(w->frames, w->framecap, w->nframes + 1, 16))
			return NULL;
		memset(w->frames + old, 0,
		       (w->framecap - old) * sizeof(*w->frames));
	}
	f = &w->frames[w->nframes++];
	f->nkids = 0;
	f->nevents = 0;
	f->ndeferred = 0;
	f->next = 0;
	f->nameslen = 0;
	f->subdirs = 0;
	f->complete = true;
	f->state = NULL;
	return f;
}

/* Whether b's name is a's followed by a byte below '/'. */
static bool walk_name_extends(const struct walk_frame *f,
			      const struct walk_child *a,
			      const struct walk_child *b)
{
	const char *an = f->names + a->nameoff, *bn = f->names + b->nameoff;

	return b->namelen > a->namelen && !memcmp(an, bn, a->namelen) &&
	       (unsigned char)bn[a->namelen] < '/';
}

/*
 * The order of the children: directory order, but a directory followed by
 * names that extend its own is descended after the last of them. As such
 * names nest ("a", "a-", "a-b", "a."), the directories waiting to be
 * descended form a stack.
 */
static int walk_order(struct walker *w, struct walk_frame *f)
{
	size_t i, nopen = 0;

	if (f->eventcap < 2 * f->nkids) {
		size_t *ev = realloc(f->events, 2 * f->nkids * sizeof(*ev));

		if (!ev)
			return -ENOMEM;
		f->events = ev;
		f->eventcap = 2 * f->nkids;
	}
	if (w->opencap < f->nkids) {
		size_t *open = realloc(w->open, f->nkids * sizeof(*open));

		if (!open)
			return -ENOMEM;
		w->open = open;
		w->opencap = f->nkids;
	}
	for (i = 0; i < f->nkids; i++) {
		while (nopen &&
		       !walk_name_extends(f, &f->kids[w->open[nopen - 1]],
					  &f->kids[i]))
			f->events[f->nevents++] =
				WALK_EVENT(w->open[--nopen], WALK_DESCEND);
		if (f->kids[i].ftype == EROFS_FT_DIR && i + 1 < f->nkids &&
		    walk_name_extends(f, &f->kids[i], &f->kids[i + 1])) {
			f->events[f->nevents++] = WALK_EVENT(i, WALK_ENTER);
			w->open[nopen++] = i;
		} else {
			f->events[f->nevents++] = WALK_EVENT(i, WALK_VISIT);
		}
	}
	while (nopen)
		f->events[f->nevents++] =
			WALK_EVENT(w->open[--nopen], WALK_DESCEND);
	return 0;
}

/* Push a directory whose entry callback has run, and read its entries. */
static int walk_push(struct walker *w, const struct erofs_inode *dir,
		     uint64_t parent_nid, void *parent_state, void *state,
		     size_t namelen, unsigned int depth)
{
	struct walk_frame *f = walk_new_frame(w);
	int ret;

	if (!f)
		return -ENOMEM;
	f->inode = *dir;
	f->parent_nid = parent_nid;
	f->parent_state = parent_state;
	f->state = state;
	f->pathlen = w->path.len;
	f->namelen = namelen;
	f->depth = depth;
	w->stats->dirs++;

	ret = erofs_dir_iterate(w->ctx, &f->inode, parent_nid, walk_collect, f);
	if (ret < 0) {
		f->complete = false;
		w->incomplete = true;
		ret = walk_lib_error(w, dir->nid, ret);
	}
	if (depth >= w->opts->max_depth && f->nkids) {
		struct fsck_loc loc;

		walk_loc(w, &loc, dir->nid, EROFS_NO_OFFSET);
		report_problem(w->rep, &loc,
			       "directories nested deeper than %u levels, entries not visited",
			       w->opts->max_depth);
		f->nkids = 0;
		f->complete = false;
		w->incomplete = true;
	}
	if (ret >= 0 && walk_order(w, f))
		ret = -ENOMEM;
	return ret;
}

/*
 * Reach a directory and call the entry callback: 1 if its children are to
 * be visited, with *state their parent context, 0 if not, or a negative
 * errno.
 */
static int walk_enter_dir(struct walker *w, const struct erofs_inode *inode,
			  uint64_t parent_nid, void *parent_state,
			  size_t namelen, unsigned int depth, bool later,
			  void **state)
{
	struct walk_entry e;
	struct fsck_loc loc;
	int added, ret;

	*state = NULL;
	added = nidset_add(&w->dirs, inode->nid);
	if (added < 0)
		return added;
	walk_loc(w, &loc, inode->nid, EROFS_NO_OFFSET);
	if (!added) {
		report_problem(w->rep, &loc,
			       "directory reached a second time (hard-linked directory or cycle), not descended");
		return 0;
	}
	walk_fill_entry(w, &e, inode, namelen, depth);
	e.parent_nid = parent_nid;
	e.parent = parent_state;
	e.later = later;
	ret = w->v->entry(w->v->arg, &e, state);
	if (ret < 0)
		return ret;
	if (ret == WALK_SKIP) {
		w->incomplete = true;
		if (w->v->dir_done)
			return w->v->dir_done(w->v->arg, &e, *state);
		return 0;
	}
	return 1;
}

static int walk_visit_dir(struct walker *w, const struct erofs_inode *inode,
			  uint64_t parent_nid, void *parent_state,
			  size_t namelen, unsigned int depth)
{
	void *state;
	int ret;

	ret = walk_enter_dir(w, inode, parent_nid, parent_state, namelen,
			     depth, false, &state);
	if (ret <= 0)
		return ret;
	return walk_push(w, inode, parent_nid, parent_state, state, namelen,
			 depth);
}

/* Keep an entered directory of the top frame's child idx for later. */
static int walk_defer(struct walker *w, size_t idx,
		      const struct erofs_inode *inode, void *state)
{
	struct walk_frame *f = &w->frames[w->nframes - 1];

	if (ARRAY_GROW(f->deferred, f->deferredcap, f->ndeferred + 1, 4))
		return -ENOMEM;
	f->deferred[f->ndeferred].inode = *inode;
	f->deferred[f->ndeferred++].state = state;
	f->kids[idx].deferred = f->ndeferred;
	return 0;
}

/* Reach a directory, and visit its children now or, deferred, later. */
static int walk_reach_dir(struct walker *w, size_t idx, bool deferred,
			  const struct erofs_inode *inode, uint64_t parent_nid,
			  void *parent_state, size_t namelen,
			  unsigned int depth)
{
	void *state;
	int ret;

	if (!deferred)
		return walk_visit_dir(w, inode, parent_nid, parent_state,
				      namelen, depth);
	ret = walk_enter_dir(w, inode, parent_nid, parent_state, namelen,
			     depth, true, &state);
	if (ret <= 0)
		return ret;
	return walk_defer(w, idx, inode, state);
}

/*
 * Count a reference to a non-directory; *first tells whether it is the
 * first. One-link inodes, most of an image, are only members of a set
 * until one is met again.
 */
static int walk_count_ref(struct walker *w, const struct erofs_inode *inode,
			  bool *first)
{
	struct link_info *li;
	int added;

	*first = false;
	if (inode->nlink == 1) {
		added = nidset_add(&w->singles, inode->nid);
		if (added < 0)
			return added;
		if (added) {
			w->stats->others++;
			*first = true;
			return 0;
		}
	}
	li = nidmap_get(&w->links, inode->nid, &added);
	if (!li)
		return -ENOMEM;
	if (added) {
		li->nlink = inode->nlink;
		/* a one-link inode's first reference is in the set */
		li->refs = inode->nlink == 1;
		if (inode->nlink != 1) {
			w->stats->others++;
			*first = true;
		}
	}
	if (li->refs < UINT32_MAX)
		li->refs++;
	if (!li->path) {
		li->path = malloc(w->path.len + 1);
		if (!li->path)
			return -ENOMEM;
		memcpy(li->path, w->path.s ? w->path.s : "", w->path.len + 1);
		li->pathlen = w->path.len;
	}
	return 0;
}

static int walk_visit_other(struct walker *w, const struct erofs_inode *inode,
			    uint64_t parent_nid, void *parent_state,
			    size_t namelen, unsigned int depth)
{
	struct walk_entry e;
	void *state = NULL;
	bool first;
	int ret;

	ret = walk_count_ref(w, inode, &first);
	if (ret < 0)
		return ret;
	walk_fill_entry(w, &e, inode, namelen, depth);
	e.parent_nid = parent_nid;
	e.parent = parent_state;
	e.first = first;
	return w->v->entry(w->v->arg, &e, &state);
}

static bool walk_special_nid(struct walker *w, uint64_t nid)
{
	const struct erofs_image *img = erofs_ctx_image(w->ctx);
	struct fsck_loc loc;
	const char *what;

	if (img->has_packed && nid == img->packed_nid)
		what = "packed";
	else if (img->has_metabox && nid == img->metabox_nid)
		what = "metabox";
	else
		return false;
	walk_loc(w, &loc, nid, EROFS_NO_OFFSET);
	report_problem(w->rep, &loc, "directory entry refers to the %s inode",
		       what);
	return true;
}

/* Do event ev (WALK_EVENT()) of the top frame. */
static int walk_child(struct walker *w, size_t ev)
{
	struct walk_frame *f = &w->frames[w->nframes - 1];
	size_t idx = WALK_EVENT_KID(ev);
	struct walk_child kid = f->kids[idx];
	uint64_t parent_nid = f->inode.nid;
	void *parent_state = f->state;
	unsigned int depth = f->depth + 1;
	size_t pathlen = w->path.len, frames = w->nframes;
	struct erofs_inode inode;
	unsigned int ftype;
	struct fsck_loc loc;
	int ret;

	if (w->path.len)
		sb_addc(&w->path, '/');
	sb_add(&w->path, f->names + kid.nameoff, kid.namelen);
	if (w->path.failed)
		return -ENOMEM;

	ret = 0;
	if (WALK_EVENT_KIND(ev) == WALK_DESCEND) {
		/* walk_push() may move the frames, not their deferred */
		if (kid.deferred)
			ret = walk_push(w, &f->deferred[kid.deferred - 1].inode,
					parent_nid, parent_state,
					f->deferred[kid.deferred - 1].state,
					kid.namelen, depth);
		goto out;
	}
	w->stats->entries++;
	if (walk_special_nid(w, kid.nid))
		goto out;
	ret = erofs_read_inode(w->ctx, kid.nid, &inode);
	if (ret < 0) {
		f->complete = false;
		w->incomplete = true;
		ret = walk_lib_error(w, kid.nid, ret);
		goto out;
	}
	ftype = erofs_mode_to_ftype(inode.mode);
	if (kid.ftype != EROFS_FT_UNKNOWN && kid.ftype != ftype) {
		walk_loc(w, &loc, kid.nid,
			 erofs_pos_offset(w->ctx, &f->inode, kid.pos));
		report_problem(w->rep, &loc,
			       "directory entry says %s, inode is a %s",
			       kid.ftype < EROFS_FT_MAX ?
			       ftype_names[kid.ftype] : "invalid type",
			       ftype_names[ftype]);
	}
	if (kid.reserved) {
		walk_loc(w, &loc, kid.nid,
			 erofs_pos_offset(w->ctx, &f->inode, kid.pos));
		report_warning(w->rep, &loc,
			       "directory entry reserved byte is 0x%02x",
			       kid.reserved);
	}
	if (S_ISDIR(inode.mode)) {
		f->subdirs++;
		ret = walk_reach_dir(w, idx,
				     WALK_EVENT_KIND(ev) == WALK_ENTER, &inode,
				     parent_nid, parent_state, kid.namelen,
				     depth);
	} else {
		ret = walk_visit_other(w, &inode, parent_nid, parent_state,
				       kid.namelen, depth);
	}
out:
	if (ret < 0)
		walk_stopped(w, kid.nid, ret);
	/* a pushed directory keeps its path until it is popped */
	if (w->nframes == frames)
		walk_truncate(w, pathlen);
	return ret < 0 ? ret : 0;
}

static void walk_check_dir_nlink(struct walker *w, const struct walk_frame *f)
{
	struct fsck_loc loc;

	if (!f->complete || f->inode.nlink == 1 ||
	    f->inode.nlink == 2 + f->subdirs)
		return;
	walk_loc(w, &loc, f->inode.nid, EROFS_NO_OFFSET);
	report_problem(w->rep, &loc,
		       "directory link count %u, expected 2 + %llu subdirectories",
		       f->inode.nlink, (unsigned long long)f->subdirs);
}

static int walk_pop(struct walker *w)
{
	struct walk_frame *f = &w->frames[w->nframes - 1];
	struct walk_entry e;
	int ret = 0;

	walk_check_dir_nlink(w, f);
	if (w->v->dir_done) {
		walk_fill_entry(w, &e, &f->inode, f->namelen, f->depth);
		e.parent_nid = f->parent_nid;
		e.parent = f->parent_state;
		ret = w->v->dir_done(w->v->arg, &e, f->state);
	}
	w->nframes--;
	if (w->nframes)
		walk_truncate(w, w->frames[w->nframes - 1].pathlen);
	return ret < 0 ? ret : 0;
}

struct link_problem {
	uint64_t nid;
	const struct link_info *li;
};

static int link_problem_cmp(const void *a, const void *b)
{
	const struct link_problem *x = a, *y = b;

	return x->nid < y->nid ? -1 : x->nid > y->nid;
}

static bool walk_link_bad(const struct walker *w, const struct link_info *li)
{
	if (li->refs > li->nlink)
		return true;
	return li->refs < li->nlink && w->opts->whole_tree && !w->incomplete;
}

/* Compare reference counts with link counts, reporting in nid order. */
static int walk_check_links(struct walker *w)
{
	struct link_problem *probs;
	struct fsck_loc loc;
	size_t i, n = 0;

	nidmap_for_each(&w->links, i)
		n += walk_link_bad(w, nidmap_val(&w->links, i));
	if (!n)
		return 0;
	probs = malloc(n * sizeof(*probs));
	if (!probs)
		return -ENOMEM;
	n = 0;
	nidmap_for_each(&w->links, i) {
		const struct link_info *li = nidmap_val(&w->links, i);

		if (walk_link_bad(w, li)) {
			probs[n].nid = nidmap_key(&w->links, i);
			probs[n++].li = li;
		}
	}
	qsort(probs, n, sizeof(*probs), link_problem_cmp);
	for (i = 0; i < n; i++) {
		const struct link_info *li = probs[i].li;

		loc.label = NULL;
		loc.path = li->path;
		loc.pathlen = li->pathlen;
		loc.nid = probs[i].nid;
		loc.offset = EROFS_NO_OFFSET;
		report_problem(w->rep, &loc,
			       "link count %u, but %u directory entries refer to it",
			       li->nlink, li->refs);
	}
	free(probs);
	return 0;
}

static int walk_start(struct walker *w)
{
	const struct walk_opts *o = w->opts;
	struct erofs_inode inode;
	int ret;

	sb_add(&w->path, o->base, strlen(o->base));
	if (w->path.failed)
		return -ENOMEM;
	w->relstart = w->path.len ? w->path.len + 1 : 0;

	ret = erofs_read_inode(w->ctx, o->start_nid, &inode);
	if (ret < 0) {
		w->incomplete = true;
		return walk_lib_error(w, o->start_nid, ret);
	}
	if (S_ISDIR(inode.mode))
		return walk_visit_dir(w, &inode, o->start_parent, NULL, 0, 0);
	if (o->whole_tree) {
		struct fsck_loc loc;

		walk_loc(w, &loc, inode.nid,
			 inode.space == EROFS_SPACE_PRIMARY ? inode.addr :
							     EROFS_NO_OFFSET);
		report_problem(w->rep, &loc,
			       "the root inode is not a directory (mode 0%o)",
			       inode.mode);
	}
	return walk_visit_other(w, &inode, o->start_parent, NULL, 0, 0);
}

static void walk_release(struct walker *w)
{
	size_t i;

	for (i = 0; i < w->framecap; i++) {
		free(w->frames[i].kids);
		free(w->frames[i].names);
		free(w->frames[i].events);
		free(w->frames[i].deferred);
	}
	free(w->frames);
	free(w->open);
	nidmap_for_each(&w->links, i)
		free(((struct link_info *)nidmap_val(&w->links, i))->path);
	nidmap_fini(&w->links);
	nidset_fini(&w->singles);
	nidset_fini(&w->dirs);
	sb_release(&w->path);
}

int walk_tree(struct erofs_ctx *ctx, struct report *rep,
	      const struct walk_opts *opts, const struct walk_visitor *v,
	      struct walk_stats *stats)
{
	struct walker w = {
		.ctx = ctx,
		.rep = rep,
		.opts = opts,
		.v = v,
		.stats = stats,
		.path = STRBUF_INIT,
	};
	int ret;

	memset(stats, 0, sizeof(*stats));
	nidset_init(&w.dirs);
	nidset_init(&w.singles);
	nidmap_init(&w.links, sizeof(struct link_info));

	ret = walk_start(&w);
	while (ret >= 0 && w.nframes) {
		struct walk_frame *f = &w.frames[w.nframes - 1];

		if (interrupted())
			ret = -EINTR;
		else if (f->next < f->nevents)
			ret = walk_child(&w, f->events[f->next++]);
		else
			ret = walk_pop(&w);
	}
	if (ret >= 0)
		ret = walk_check_links(&w);
	if (ret < 0)
		walk_stopped(&w, EROFS_NO_NID, ret);
	walk_release(&w);
	return ret < 0 ? ret : 0;
}
