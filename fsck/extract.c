// SPDX-License-Identifier: MIT
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/magic.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "erofs/data.h"
#include "erofs/format.h"
#include "erofs/image.h"
#include "erofs/inode.h"
#include "erofs/xattr.h"
#include "extract.h"
#include "interrupt.h"
#include "nidmap.h"
#include "sparse.h"
#include "strbuf.h"
#include "walk.h"

#define DIR_OPEN_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
#define FD_RESERVE 32		/* image, devices, stdio, progress */
#define FD_BUDGET_MIN 8
/* copy_file_range() per call: short enough to notice a signal soon */
#define X_COPY_CHUNK (8u << 20)
#define ACL_ACCESS "system.posix_acl_access"
#define ACL_DEFAULT "system.posix_acl_default"
/*
 * Hidden names of files being written: the prefix and 16 hex digits. A
 * rerun with --overwrite or --keep-existing removes such names left by a
 * killed run from the directories it finds.
 */
#define X_TMP_PREFIX ".fsck.erofs-"
#define X_TMP_LEN (sizeof(X_TMP_PREFIX) - 1 + 16)
#define X_TMP_TRIES 16
#define XFILE_PAGE 256

/* A directory of the extraction. */
struct xdir {
	struct xdir *parent;
	char *path;		/* in the image, for messages */
	size_t pathlen;
	int fd;			/* -1 while closed */
	int refs;		/* atomic: the walk while on its stack, tasks */
	dev_t dev;
	ino_t ino;
	bool failed;		/* not created: nothing is created inside */
	bool inherits_acl;	/* passes a default ACL to what is created */
	bool strip_acls;	/* may hold ACLs the image does not have */
	bool fixup;		/* apply its metadata at the end */
	bool fresh;		/* made by this run: holds only what it made */
	gid_t new_gid;		/* the group of what is created in it */
	uint64_t nid;
	uint16_t mode;
	uint32_t uid, gid;
	int64_t mtime;
	uint32_t mtime_nsec;
	struct xa_list xl;
	char name[];		/* NUL-terminated, "" for DIR */
};

/* A further name of an inode, linked at the end. */
struct xlink {
	struct xdir *dir;
	char *name;
	char *path;
	size_t pathlen;
	uint64_t nid;
};

/* The first name of an inode with several. */
struct xprimary {
	struct xdir *dir;
	char *name;
	int state;		/* 0 pending, 1 created, 2 kept, -1 failed */
	uint16_t mode;
	uint64_t size;
};

/*
 * A regular file being written, found by its descriptor: how far its data
 * reaches (a trailing hole is left to ftruncate), and its hidden name when
 * it is not an unnamed (O_TMPFILE) file. Both are atomic: pieces write
 * from any worker, and a descriptor number closed by one thread is reused
 * by another.
 */
struct xfile {
	uint64_t end;
	uint64_t tmp_id;	/* the hidden name's digits, 0: unnamed */
};

/* Namespaces and kinds of the once-only xattr warnings. */
enum { XNS_USER, XNS_TRUSTED, XNS_SECURITY, XNS_SYSTEM, XNS_OTHER, XNS_MAX };
enum { XKIND_REG, XKIND_OTHER, XKIND_MAX };

static const char *const xns_names[XNS_MAX] = {
	"user.*", "trusted.*", "security.*", "system.*", "other",
};

struct extractor {
	struct extract_opts o;
	struct report *rep;
	struct xdir *root;
	char *start_name;	/* a non-directory start: the file in root */
	size_t start_pathlen;	/* the start's path in the image */
	bool have_proc;		/* /proc/self/fd/N reaches O_PATH objects */
	int no_copy;		/* atomic: copy_file_range does not work */
	int no_tmpfile;		/* atomic: write files under hidden names */
	int no_empty_path;	/* atomic: linkat(AT_EMPTY_PATH) refused */
	uid_t euid;
	gid_t egid;
	uint64_t tmp_seed;
	uint64_t tmp_count;	/* atomic */
	struct xfile **files;	/* pages of XFILE_PAGE, by descriptor */
	size_t nfilepages;
	pthread_mutex_t files_lock;

	struct xdir **all;	/* every directory, to free */
	size_t nall, capall;
	struct xdir **post;	/* post-order: the order of fix-ups */
	size_t npost, cappost;
	struct xdir **stack;	/* the walk's current path */
	size_t nstack, capstack;
	struct xdir **chain;	/* scratch for reopening */
	size_t capchain;
	struct xlink *links;
	size_t nlinks, caplinks;
	struct nidmap primaries;	/* struct xprimary */

	int open_dirs;		/* atomic: directory descriptors open */
	int budget;		/* how many may be */
	bool (*throttle)(void *arg);
	void *throttle_arg;

	/* atomic: once-only warnings, counted */
	unsigned long refused[XNS_MAX][XKIND_MAX];
	int refused_err[XNS_MAX][XKIND_MAX];
	unsigned long owner_refused;
	int owner_err;
	unsigned long bad_xattr_names;

	/* atomic: statistics */
	uint64_t ndirs, nfiles, nsymlinks, nnodes, nlinked, nkept;
};

static void atomic_inc(uint64_t *v)
{
	__atomic_add_fetch(v, 1, __ATOMIC_RELAXED);
}

int xa_list_add(struct xa_list *l, const struct erofs_xattr *xa)
{
	struct xa_item *it;

	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 8;

		it = realloc(l->items, cap * sizeof(*it));
		if (!it)
			return -ENOMEM;
		l->items = it;
		l->cap = cap;
	}
	it = &l->items[l->n];
	it->name = malloc(xa->namelen + 1);
	it->value = malloc(xa->value_len ? xa->value_len : 1);
	if (!it->name || !it->value) {
		free(it->name);
		free(it->value);
		return -ENOMEM;
	}
	memcpy(it->name, xa->name, xa->namelen);
	it->name[xa->namelen] = '\0';
	it->namelen = xa->namelen;
	memcpy(it->value, xa->value, xa->value_len);
	it->len = xa->value_len;
	l->n++;
	return 0;
}

void xa_list_release(struct xa_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->items[i].name);
		free(l->items[i].value);
	}
	free(l->items);
	memset(l, 0, sizeof(*l));
}

static bool xa_list_has(const struct xa_list *l, const char *name)
{
	size_t i;

	for (i = 0; l && i < l->n; i++)
		if (!strcmp(l->items[i].name, name))
			return true;
	return false;
}

static int grow(void **arr, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 16;
	void *p;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	p = realloc(*arr, n * size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = n;
	return 0;
}

#define GROW(x, arr, cap, need) \
	grow((void **)&(x)->arr, &(x)->cap, (need), sizeof(*(x)->arr))

/* The mode an entry gets: the image's, or with the umask, no set-ids. */
static mode_t x_mode(const struct extractor *x, uint16_t mode)
{
	mode_t m = mode & 07777;

	if (!x->o.perms)
		m &= ~x->o.umask;
	if (!x->o.owner)
		m &= ~(mode_t)(S_ISUID | S_ISGID);
	return m;
}

static bool name_ok(const char *name, size_t len)
{
	if (!len || len > EROFS_NAME_LEN)
		return false;
	if (len == 1 && name[0] == '.')
		return false;
	if (len == 2 && name[0] == '.' && name[1] == '.')
		return false;
	return !memchr(name, '/', len) && !memchr(name, '\0', len);
}

/*
 * The name to create for entry e, or NULL (reported) when it must not be
 * created. The start of the walk is DIR itself, or start_name.
 */
static const char *x_entry_name(struct extractor *x, const struct walk_entry *e,
				const struct fsck_loc *loc)
{
	if (!e->depth) {
		x->start_pathlen = e->pathlen;
		return x->start_name ? x->start_name : "";
	}
	if (name_ok(e->name, e->namelen))
		return e->name;
	report_problem(x->rep, loc, "unsafe name, not extracted");
	return NULL;
}

static void x_report_errno(struct report *rep, const struct fsck_loc *loc,
			   const char *what, int err)
{
	report_failure(rep, loc, "cannot %s: %s", what, strerror(err));
}

/* Where the entry at loc goes: DIR, then its path below the start. */
static void x_out_path(const struct extractor *x, const struct fsck_loc *loc,
		       struct strbuf *sb)
{
	size_t skip = x->start_pathlen + !!x->start_pathlen;

	sb_escape(sb, x->o.dir, strlen(x->o.dir), NULL);
	if (loc->path && loc->pathlen > skip) {
		sb_addc(sb, '/');
		sb_escape(sb, loc->path + skip, loc->pathlen - skip, NULL);
	}
}

/*
 * "cannot <what> <output path>: <error>", a failure or, with fatal, an
 * error that stops the run.
 */
static void x_report_out(struct extractor *x, struct report *rep,
			 const struct fsck_loc *loc, bool fatal,
			 const char *what, int err)
{
	struct strbuf sb = STRBUF_INIT;
	const char *out;

	x_out_path(x, loc, &sb);
	out = sb.failed ? "(out of memory)" : sb.s;
	if (fatal)
		report_fatal_at(rep, loc, -err, "cannot %s %s: %s", what, out,
				strerror(err));
	else
		report_failure(rep, loc, "cannot %s %s: %s", what, out,
			       strerror(err));
	sb_release(&sb);
}

static void x_report_exists(struct report *rep, const struct fsck_loc *loc,
			    const char *what)
{
	report_failure(rep, loc,
		       "cannot %s: an entry of that name exists (--overwrite replaces it)",
		       what);
}

/* Errors after which nothing more can be written: stop the run. */
static bool errno_stops(int err)
{
	return err == ENOSPC || err == EDQUOT || err == EIO || err == EFBIG ||
	       err == EROFS || err == ENOMEM;
}

/* Creation failed: report; a negative errno if the run must stop. */
static int x_create_failed(struct extractor *x, struct report *rep,
			   const struct fsck_loc *loc, const char *what,
			   int err)
{
	bool stops = errno_stops(err);

	x_report_out(x, rep, loc, stops, what, err);
	return stops ? -err : 0;
}

/* --overwrite: take an entry out of the way, never following it. */
static int x_remove(int dfd, const char *name)
{
	if (!unlinkat(dfd, name, 0))
		return 0;
	if (errno == EISDIR && !unlinkat(dfd, name, AT_REMOVEDIR))
		return 0;
	return -errno;
}

/* Entries in the way are replaced: --overwrite, or --keep-existing. */
static bool x_replaces(const struct extractor *x)
{
	return x->o.overwrite || x->o.keep_existing;
}

/* Is there an entry of this name (never followed)? */
static bool x_exists(int dfd, const char *name)
{
	struct stat st;

	return !fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW);
}

static void x_tmp_format(uint64_t id, char *buf)
{
	snprintf(buf, X_TMP_LEN + 1, X_TMP_PREFIX "%016llx",
		 (unsigned long long)id);
}

/* A hidden name no other run or thread of this run uses; its digits. */
static uint64_t x_tmp_name(struct extractor *x, char *buf)
{
	uint64_t v = x->tmp_seed + 0x9e3779b97f4a7c15ull *
		     __atomic_add_fetch(&x->tmp_count, 1, __ATOMIC_RELAXED);

	/* splitmix64: neighbouring counts give unrelated names */
	v = (v ^ (v >> 30)) * 0xbf58476d1ce4e5b9ull;
	v = (v ^ (v >> 27)) * 0x94d049bb133111ebull;
	v ^= v >> 31;
	v += !v;	/* 0 means unnamed */
	x_tmp_format(v, buf);
	return v;
}

static bool x_is_tmp_name(const char *name)
{
	size_t plen = sizeof(X_TMP_PREFIX) - 1;

	return strlen(name) == X_TMP_LEN &&
	       !strncmp(name, X_TMP_PREFIX, plen) &&
	       strspn(name + plen, "0123456789abcdef") == X_TMP_LEN - plen;
}

/*
 * Move tmp over name. No call replaces a directory by a file: an empty
 * directory in the way is removed first.
 */
static int x_rename_over(int dfd, const char *tmp, const char *name)
{
	if (!renameat(dfd, tmp, dfd, name))
		return 0;
	if (errno != EISDIR || unlinkat(dfd, name, AT_REMOVEDIR) ||
	    renameat(dfd, tmp, dfd, name))
		return -errno;
	return 0;
}

/*
 * linkat(sdfd, spath, dfd, name, flags). An entry in the way is replaced
 * when allowed, atomically: the link is made under a hidden name, which is
 * then renamed over it. Returns 0 or a negative errno.
 */
static int x_link_replacing(struct extractor *x, int sdfd, const char *spath,
			    int flags, int dfd, const char *name)
{
	char tmp[X_TMP_LEN + 1];
	int i, err;

	if (!linkat(sdfd, spath, dfd, name, flags))
		return 0;
	if (errno != EEXIST || !x_replaces(x))
		return -errno;
	for (i = 0; i < X_TMP_TRIES; i++) {
		x_tmp_name(x, tmp);
		if (!linkat(sdfd, spath, dfd, tmp, flags))
			break;
		if (errno != EEXIST)
			return -errno;
	}
	if (i == X_TMP_TRIES)
		return -EEXIST;
	err = x_rename_over(dfd, tmp, name);
	if (err)
		unlinkat(dfd, tmp, 0);
	return err;
}

/* A rerun: remove the hidden names a killed run left in directory fd. */
static void x_clean_tmp(int fd)
{
	int dfd = dup(fd);
	struct dirent *de;
	DIR *d;

	if (dfd < 0)
		return;
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return;
	}
	while ((de = readdir(d)))
		if (x_is_tmp_name(de->d_name))
			unlinkat(fd, de->d_name, 0);
	closedir(d);
}

/* Directory descriptors */

static void x_fd_opened(struct extractor *x, struct xdir *d, int fd)
{
	d->fd = fd;
	__atomic_add_fetch(&x->open_dirs, 1, __ATOMIC_RELAXED);
}

static void x_fd_close(struct extractor *x, struct xdir *d)
{
	if (d->fd < 0 || d == x->root)
		return;
	close(d->fd);
	d->fd = -1;
	__atomic_sub_fetch(&x->open_dirs, 1, __ATOMIC_RELAXED);
}

static bool x_fd_room(const struct extractor *x)
{
	return __atomic_load_n(&x->open_dirs, __ATOMIC_RELAXED) < x->budget;
}

/* Open d from its parent's descriptor; it must still be the same dir. */
static int xdir_reopen(struct xdir *d, int pfd)
{
	struct stat st;
	int fd = openat(pfd, d->name, DIR_OPEN_FLAGS);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || st.st_dev != d->dev || st.st_ino != d->ino) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

/*
 * A descriptor of d, reopened from the nearest open ancestor if needed
 * (DIR's stays open). Levels opened on the way are kept while there is
 * room. Only for directories no task can close: on the walk's stack, or
 * after every task has finished.
 */
static int xdir_fd(struct extractor *x, struct xdir *d)
{
	struct xdir *a;
	size_t n = 0;
	int pfd, fd, spare = -1;

	for (a = d; a->fd < 0; a = a->parent) {
		if (GROW(x, chain, capchain, n + 1))
			return -ENOMEM;
		x->chain[n++] = a;
	}
	pfd = a->fd;
	while (n--) {
		a = x->chain[n];
		fd = xdir_reopen(a, pfd);
		if (spare >= 0)
			close(spare);
		spare = -1;
		if (fd < 0)
			return fd;
		if (a == d || x_fd_room(x))
			x_fd_opened(x, a, fd);
		else
			spare = fd;
		pfd = fd;
	}
	return d->fd;
}

/* Close descriptors of directories up the walk that no task uses. */
static void x_evict(struct extractor *x)
{
	size_t i;

	for (i = 1; i + 1 < x->nstack && !x_fd_room(x); i++) {
		struct xdir *d = x->stack[i];

		if (d->fd >= 0 &&
		    __atomic_load_n(&d->refs, __ATOMIC_ACQUIRE) == 1)
			x_fd_close(x, d);
	}
}

/* Walker: make room for one more descriptor if the budget is spent. */
static void x_make_room(struct extractor *x)
{
	while (!x_fd_room(x)) {
		x_evict(x);
		if (x_fd_room(x) || !x->throttle ||
		    !x->throttle(x->throttle_arg))
			return;
	}
}

/* After the walk: drop cached descriptors if the budget is spent. */
static void x_trim(struct extractor *x)
{
	size_t i;

	if (x_fd_room(x))
		return;
	for (i = 0; i < x->nall; i++)
		x_fd_close(x, x->all[i]);
}

static void xdir_unref(struct extractor *x, struct xdir *d)
{
	if (!__atomic_sub_fetch(&d->refs, 1, __ATOMIC_ACQ_REL))
		x_fd_close(x, d);
}

/* Metadata */

static int xattr_ns(const char *name)
{
	if (!strncmp(name, "user.", 5))
		return XNS_USER;
	if (!strncmp(name, "trusted.", 8))
		return XNS_TRUSTED;
	if (!strncmp(name, "security.", 9))
		return XNS_SECURITY;
	if (!strncmp(name, "system.", 7))
		return XNS_SYSTEM;
	return XNS_OTHER;
}

static bool refusal(int err)
{
	return err == EPERM || err == EOPNOTSUPP || err == EACCES;
}

static void x_refused(struct extractor *x, int ns, int kind, int err)
{
	int none = 0;

	__atomic_add_fetch(&x->refused[ns][kind], 1, __ATOMIC_RELAXED);
	__atomic_compare_exchange_n(&x->refused_err[ns][kind], &none, err,
				    false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

/* How to reach an object: a real descriptor, or an O_PATH one. */
struct x_obj {
	int fd;
	bool opath;
	char proc[32];		/* /proc/self/fd/N for an O_PATH fd */
	int kind;		/* XKIND_* */
	bool strip_acls;	/* it inherited ACLs the image may not have */
	bool chown;		/* its owner is not yet the image's */
};

static int obj_setxattr(const struct x_obj *o, const struct xa_item *it)
{
	int ret;

	if (o->opath)
		ret = setxattr(o->proc, it->name, it->value, it->len, 0);
	else
		ret = fsetxattr(o->fd, it->name, it->value, it->len, 0);
	return ret ? -errno : 0;
}

static int obj_removexattr(const struct x_obj *o, const char *name)
{
	int ret;

	if (o->opath)
		ret = removexattr(o->proc, name);
	else
		ret = fremovexattr(o->fd, name);
	return ret && errno != ENODATA ? -errno : 0;
}

static int x_set_xattr(struct extractor *x, struct report *rep,
		       const struct fsck_loc *loc, const struct x_obj *o,
		       const struct xa_item *it)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	if (strlen(it->name) != it->namelen) {
		__atomic_add_fetch(&x->bad_xattr_names, 1, __ATOMIC_RELAXED);
		return 1;
	}
	ret = obj_setxattr(o, it);
	if (!ret)
		return 0;
	if (refusal(-ret)) {
		x_refused(x, xattr_ns(it->name), o->kind, -ret);
		return 0;
	}
	sb_escape(&sb, it->name, it->namelen, NULL);
	report_failure(rep, loc, "cannot set xattr %s: %s",
		       sb.s ? sb.s : "", strerror(-ret));
	sb_release(&sb);
	return 1;
}

/* xattrs of the image; inherited ACLs the image does not have removed. */
static int x_set_xattrs(struct extractor *x, struct report *rep,
			const struct fsck_loc *loc, const struct x_obj *o,
			const struct xa_list *xl, bool dir)
{
	size_t i;
	int ret = 0, err;

	if (!x->o.xattrs)
		return 0;
	for (i = 0; xl && i < xl->n; i++)
		ret |= x_set_xattr(x, rep, loc, o, &xl->items[i]);
	if (!o->strip_acls)
		return ret;
	err = xa_list_has(xl, ACL_ACCESS) ? 0 : obj_removexattr(o, ACL_ACCESS);
	if (!err && dir && !xa_list_has(xl, ACL_DEFAULT))
		err = obj_removexattr(o, ACL_DEFAULT);
	if (err) {
		x_report_errno(rep, loc, "remove an inherited ACL", -err);
		ret = 1;
	}
	return ret;
}

static int x_owner_failed(struct extractor *x, struct report *rep,
			  const struct fsck_loc *loc, int err)
{
	int none = 0;

	if (err != EPERM) {
		x_report_errno(rep, loc, "set the owner", err);
		return 1;
	}
	__atomic_add_fetch(&x->owner_refused, 1, __ATOMIC_RELAXED);
	__atomic_compare_exchange_n(&x->owner_err, &none, err, false,
				    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	return 0;
}

/*
 * Owner, mode, xattrs, times, in this order: chown clears set-id bits and
 * file capabilities, so mode and xattrs come after it; xattrs do not
 * change the mtime. Returns 0, or 1 when something was not set.
 */
static int x_apply(struct extractor *x, struct report *rep,
		   const struct fsck_loc *loc, const struct x_obj *o,
		   const struct erofs_inode *inode, uint16_t mode,
		   const struct xa_list *xl, bool chmod_needed)
{
	struct timespec ts[2];
	mode_t m = x_mode(x, mode);
	int ret = 0, err;

	if (o->chown) {
		err = o->opath ? fchownat(o->fd, "", inode->uid, inode->gid,
					  AT_EMPTY_PATH) :
				 fchown(o->fd, inode->uid, inode->gid);
		if (err)
			ret |= x_owner_failed(x, rep, loc, errno);
	}
	if (chmod_needed && !S_ISLNK(mode)) {
		err = o->opath ? chmod(o->proc, m) : fchmod(o->fd, m);
		if (err) {
			x_report_errno(rep, loc, "set the mode", errno);
			ret = 1;
		}
	}
	ret |= x_set_xattrs(x, rep, loc, o, xl, S_ISDIR(mode));
	ts[0].tv_sec = inode->mtime;
	ts[0].tv_nsec = inode->mtime_nsec;
	ts[1] = ts[0];
	err = o->opath ? utimensat(o->fd, "", ts, AT_EMPTY_PATH) :
			 futimens(o->fd, ts);
	if (err) {
		x_report_errno(rep, loc, "set the times", errno);
		ret = 1;
	}
	return ret;
}

/* Setup */

static int x_count_entries(int fd, bool *empty)
{
	int dfd = dup(fd);
	struct dirent *de;
	DIR *d;

	if (dfd < 0)
		return -errno;
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return -errno;
	}
	*empty = true;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			*empty = false;
	closedir(d);
	return 0;
}

static bool has_default_acl(int dfd)
{
	return fgetxattr(dfd, ACL_DEFAULT, NULL, 0) > 0;
}

static int x_fd_budget(unsigned int threads)
{
	struct rlimit rl;
	rlim_t lim;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return FD_BUDGET_MIN;
	if (rl.rlim_cur < rl.rlim_max) {
		rlim_t old = rl.rlim_cur;

		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			rl.rlim_cur = old;
	}
	lim = rl.rlim_cur;
	if (lim == RLIM_INFINITY || lim > (1 << 20))
		lim = 1 << 20;
	if (lim < FD_RESERVE + 2 * (rlim_t)threads + FD_BUDGET_MIN)
		return FD_BUDGET_MIN;
	return (int)(lim - FD_RESERVE - 2 * threads);
}

static struct xdir *xdir_new(struct extractor *x, struct xdir *parent,
			     const char *name, size_t namelen,
			     const char *path, size_t pathlen)
{
	struct xdir *d;

	if (GROW(x, all, capall, x->nall + 1))
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

/* DIR, or the parent of the file DIR names, as the root of the run. */
static void x_root_set(struct extractor *x, int fd, const struct stat *st,
		       bool fresh)
{
	x->root->fd = fd;
	x->root->dev = st->st_dev;
	x->root->ino = st->st_ino;
	x->root->fresh = fresh;
	x->root->new_gid = st->st_mode & S_ISGID ? st->st_gid : x->egid;
}

/* DIR as the start directory: create it, or accept it if allowed. */
static int x_open_dir(struct extractor *x)
{
	const char *dir = x->o.dir;
	bool created = false, empty = false;
	struct stat st;
	int fd, ret, err;

	if (!mkdir(dir, 0700))
		created = true;
	else if (errno != EEXIST)
		goto fail;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		goto fail;
	if (!created && !x->o.force) {
		ret = x_count_entries(fd, &empty);
		if (ret || !empty) {
			close(fd);
			if (ret) {
				errno = -ret;
				goto fail;
			}
			report_fatal(x->rep, "--extract=%s: directory exists and is not empty (--force extracts into it)",
				     dir);
			return -EINVAL;
		}
	}
	if (fstat(fd, &st)) {
		close(fd);
		goto fail;
	}
	x_root_set(x, fd, &st, created || empty);
	x->root->fixup = true;
	if (!created && x_replaces(x))
		x_clean_tmp(fd);
	return 0;
fail:
	err = errno;
	report_fatal(x->rep, "--extract=%s: %s", dir, strerror(err));
	return -err;
}

/* DIR as the file to create: open its parent. */
static int x_open_parent(struct extractor *x)
{
	const char *dir = x->o.dir, *slash;
	char *parent;
	size_t len = strlen(dir);
	struct stat st;
	int fd, err;

	while (len > 1 && dir[len - 1] == '/')
		len--;
	slash = memrchr(dir, '/', len);
	x->start_name = strndup(slash ? slash + 1 : dir,
				len - (slash ? (size_t)(slash + 1 - dir) : 0));
	parent = slash ? strndup(dir, slash == dir ? 1 : slash - dir) :
			 strdup(".");
	if (!x->start_name || !parent) {
		free(parent);
		report_fatal(x->rep,
			     "--extract=%s: out of memory while preparing it",
			     dir);
		return -ENOMEM;
	}
	if (!name_ok(x->start_name, strlen(x->start_name))) {
		report_fatal(x->rep, "--extract=%s: not a file name", dir);
		free(parent);
		return -EINVAL;
	}
	fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	err = errno;
	free(parent);
	if (fd >= 0 && fstat(fd, &st)) {
		err = errno;
		close(fd);
		fd = -1;
	}
	if (fd < 0) {
		report_fatal(x->rep, "--extract=%s: %s", dir, strerror(err));
		return -err;
	}
	x_root_set(x, fd, &st, false);
	return 0;
}

/* The table of files being written, for every descriptor there can be. */
static int x_files_init(struct extractor *x)
{
	rlim_t lim = 1 << 20;
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < lim)
		lim = rl.rlim_cur;
	x->files = calloc(lim / XFILE_PAGE + 1, sizeof(*x->files));
	if (x->files)
		x->nfilepages = lim / XFILE_PAGE + 1;
	if (getrandom(&x->tmp_seed, sizeof(x->tmp_seed), GRND_NONBLOCK) !=
	    sizeof(x->tmp_seed))
		x->tmp_seed = (uint64_t)getpid() << 32 ^ (uint64_t)time(NULL);
	if (x->files)
		return 0;
	report_fatal(x->rep, "--extract=%s: out of memory while preparing it",
		     x->o.dir);
	return -ENOMEM;
}

static bool has_dac_read_search(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data))
		return false;
	return data[CAP_TO_INDEX(CAP_DAC_READ_SEARCH)].effective &
	       CAP_TO_MASK(CAP_DAC_READ_SEARCH);
}

/*
 * How an unnamed file gets its name: linkat(AT_EMPTY_PATH) with
 * CAP_DAC_READ_SEARCH, else through its /proc/self/fd link (a real /proc
 * only); without either, files are written under hidden names, as they
 * are with EROFS_FSCK_TMPFILE=0.
 */
static void x_how_to_link(struct extractor *x)
{
	const char *env = getenv("EROFS_FSCK_TMPFILE");
	struct statfs sfs;

	x->have_proc = !statfs("/proc/self/fd", &sfs) &&
		       sfs.f_type == PROC_SUPER_MAGIC;
	x->no_empty_path = !has_dac_read_search();
	x->no_tmpfile = (env && !strcmp(env, "0")) ||
			(x->no_empty_path && !x->have_proc);
}

int extract_open(struct extractor **out, const struct extract_opts *o,
		 struct report *rep, bool start_is_dir)
{
	struct extractor *x = calloc(1, sizeof(*x));
	int ret;

	*out = NULL;
	if (!x) {
		report_fatal(rep,
			     "--extract=%s: out of memory while preparing it",
			     o->dir);
		return -ENOMEM;
	}
	x->o = *o;
	x->rep = rep;
	pthread_mutex_init(&x->files_lock, NULL);
	nidmap_init(&x->primaries, sizeof(struct xprimary));
	x->budget = x_fd_budget(o->threads);
	x->root = xdir_new(x, NULL, "", 0, "", 0);
	if (!x->root) {
		extract_close(x);
		report_fatal(rep,
			     "--extract=%s: out of memory while preparing it",
			     o->dir);
		return -ENOMEM;
	}
	x->root->refs = 2;	/* the walk never closes it */
	x->euid = geteuid();
	x->egid = getegid();
	ret = x_files_init(x);
	if (!ret)
		ret = start_is_dir ? x_open_dir(x) : x_open_parent(x);
	if (ret) {
		extract_close(x);
		return ret;
	}
	/* modes are given exactly; the user's umask is applied by hand */
	umask(0);
	x_how_to_link(x);
	x->root->inherits_acl = has_default_acl(x->root->fd);
	x->root->strip_acls = x->root->fixup;
	*out = x;
	return 0;
}

void extract_close(struct extractor *x)
{
	size_t i;

	if (!x)
		return;
	for (i = 0; i < x->nall; i++) {
		struct xdir *d = x->all[i];

		if (d->fd >= 0)
			close(d->fd);
		xa_list_release(&d->xl);
		free(d->path);
		free(d);
	}
	for (i = 0; i < x->nlinks; i++) {
		free(x->links[i].name);
		free(x->links[i].path);
	}
	nidmap_for_each(&x->primaries, i)
		free(((struct xprimary *)nidmap_val(&x->primaries, i))->name);
	nidmap_fini(&x->primaries);
	for (i = 0; i < x->nfilepages; i++)
		free(x->files[i]);
	free(x->files);
	pthread_mutex_destroy(&x->files_lock);
	free(x->all);
	free(x->post);
	free(x->stack);
	free(x->chain);
	free(x->links);
	free(x->start_name);
	free(x);
}

void extract_set_throttle(struct extractor *x, bool (*fn)(void *arg),
			  void *arg)
{
	x->throttle = fn;
	x->throttle_arg = arg;
}

/* Walker side */

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

/* mkdirat, or an existing directory; 0 or 1 (reported, not created). */
static int x_mkdir(struct extractor *x, struct xdir *d, int pfd,
		   const struct fsck_loc *loc)
{
	bool existed = false;
	struct stat st;
	int fd, err;

	x_make_room(x);
	if (mkdirat(pfd, d->name, 0700)) {
		err = errno;
		if (err != EEXIST)
			goto fail;
		existed = true;
		if (fstatat(pfd, d->name, &st, AT_SYMLINK_NOFOLLOW)) {
			err = errno;
			goto fail;
		}
		if (!S_ISDIR(st.st_mode)) {
			if (!x_replaces(x)) {
				report_failure(x->rep, loc,
					       "cannot create the directory: an entry that is not a directory exists (--overwrite replaces it)");
				return 1;
			}
			existed = false;
			err = -x_remove(pfd, d->name);
			if (err || mkdirat(pfd, d->name, 0700)) {
				err = err ? err : errno;
				goto fail;
			}
		}
	}
	fd = openat(pfd, d->name, DIR_OPEN_FLAGS);
	if (fd < 0 || fstat(fd, &st)) {
		err = errno;
		if (fd >= 0)
			close(fd);
		goto fail;
	}
	/* swapped for another's directory between mkdirat and openat */
	if (!existed && st.st_uid != x->euid) {
		close(fd);
		report_failure(x->rep, loc, "changed while being created");
		return 1;
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
	return 0;
fail:
	return x_create_failed(x, x->rep, loc, "create the directory",
			       err) ?: 1;
}

static int x_push(struct extractor *x, struct xdir *d)
{
	if (GROW(x, stack, capstack, x->nstack + 1))
		return -ENOMEM;
	x->stack[x->nstack++] = d;
	return 0;
}

int extract_dir(struct extractor *x, const struct walk_entry *e,
		const struct fsck_loc *loc, struct xa_list *xl, void **state)
{
	struct xdir *parent = e->parent, *d;
	const char *name;
	int pfd, ret;

	if (!e->depth) {
		d = x->root;
		goto ready;
	}
	name = x_entry_name(x, e, loc);
	d = xdir_new(x, parent, name ? name : "", name ? e->namelen : 0,
		     e->path, e->pathlen);
	if (!d)
		return -ENOMEM;
	if (!name || parent->failed) {
		d->failed = true;
		goto ready;
	}
	pfd = xdir_fd(x, parent);
	if (pfd < 0) {
		ret = x_create_failed(x, x->rep, loc,
				      "reopen the parent directory of", -pfd);
		d->failed = true;
		if (ret)
			return ret;
		goto ready;
	}
	ret = x_mkdir(x, d, pfd, loc);
	if (ret < 0)
		return ret;
	d->failed = ret;
	d->fixup = !ret;
	if (!ret)
		atomic_inc(&x->ndirs);
ready:
	xdir_set_meta(d, e->inode);
	d->xl = *xl;
	memset(xl, 0, sizeof(*xl));
	*state = d;
	return x_push(x, d);
}

void extract_dir_done(struct extractor *x, void *state)
{
	struct xdir *d = state;

	if (x->nstack && x->stack[x->nstack - 1] == d)
		x->nstack--;
	if (!GROW(x, post, cappost, x->npost + 1))
		x->post[x->npost++] = d;
	else
		d->fixup = false;
	xdir_unref(x, d);
}

static int x_add_primary(struct extractor *x, const struct walk_entry *e,
			 struct xdir *dir, const char *name, int state)
{
	struct xprimary *p;
	int added;

	p = nidmap_get(&x->primaries, e->nid, &added);
	if (!p)
		return -ENOMEM;
	if (!added)
		return 0;
	p->name = strdup(name);
	if (!p->name)
		return -ENOMEM;
	p->dir = dir;
	p->state = state;
	p->mode = e->inode->mode;
	p->size = e->inode->size;
	return 0;
}

/*
 * --keep-existing: is the entry there, complete? A regular file under its
 * name is complete (this extraction names a file only once it is), unless
 * its size says otherwise; the type must be the image's, and so must a
 * symlink's length and a device's number. A symlink or node is made by
 * name, then given its metadata, times last: with with_mtime (its inode),
 * it is complete only if it has the image's mtime.
 */
static bool x_kept(struct extractor *x, const struct xdir *dir,
		   const char *name, uint16_t mode, uint64_t size,
		   uint32_t raw_rdev, const struct erofs_inode *with_mtime)
{
	dev_t rdev = makedev(erofs_rdev_major(raw_rdev),
			     erofs_rdev_minor(raw_rdev));
	struct stat st;

	if (!x->o.keep_existing || dir->fresh ||
	    fstatat(dir->fd, name, &st, AT_SYMLINK_NOFOLLOW) ||
	    (st.st_mode & S_IFMT) != (mode & S_IFMT))
		return false;
	if (with_mtime && (st.st_mtim.tv_sec != with_mtime->mtime ||
			   st.st_mtim.tv_nsec != with_mtime->mtime_nsec))
		return false;
	if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))
		return (uint64_t)st.st_size == size;
	if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
		return st.st_rdev == rdev;
	return true;
}

/* Metadata of a symlink or node, through an O_PATH descriptor. */
static int x_node_meta(struct extractor *x, struct xdir *parent,
		       const char *name, const struct erofs_inode *inode,
		       const struct xa_list *xl, const struct fsck_loc *loc)
{
	struct x_obj o = { .opath = true, .kind = XKIND_OTHER,
			   .chown = x->o.owner };
	int pfd = parent->fd;
	struct stat st;
	int ret;

	o.strip_acls = x->o.xattrs && parent->inherits_acl &&
		       !S_ISLNK(inode->mode);
	o.fd = openat(pfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (o.fd < 0) {
		x_report_errno(x->rep, loc, "open what was created", errno);
		return 1;
	}
	/*
	 * What was reopened by name must be what was just created: a hard
	 * link to another's node put there meanwhile would get the image's
	 * owner and mode (only fs.protected_hardlinks stops that).
	 */
	if (fstat(o.fd, &st) ||
	    (st.st_mode & S_IFMT) != (inode->mode & S_IFMT) ||
	    st.st_nlink != 1 || st.st_uid != x->euid ||
	    st.st_dev != parent->dev) {
		report_failure(x->rep, loc, "changed while being created");
		close(o.fd);
		return 1;
	}
	snprintf(o.proc, sizeof(o.proc), "/proc/self/fd/%d", o.fd);
	if (!x->have_proc && !S_ISLNK(inode->mode)) {
		report_failure(x->rep, loc,
			       "cannot set the mode: /proc is not mounted");
		close(o.fd);
		return 1;
	}
	ret = x_apply(x, x->rep, loc, &o, inode, inode->mode, xl, true);
	close(o.fd);
	return ret;
}

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
			 const char *target, const struct xa_list *xl,
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
	err = -x_rename_over(parent->fd, tmp, name);
	if (err)
		unlinkat(parent->fd, tmp, 0);
	return err;
}

/*
 * Create a symlink or node and set its metadata; 0, 1 (reported) or a
 * negative errno.
 */
static int x_mknode(struct extractor *x, struct xdir *parent,
		    const char *name, const struct erofs_inode *inode,
		    const char *target, const struct xa_list *xl,
		    const struct fsck_loc *loc)
{
	int err = x_mknod_at(parent->fd, name, inode, target);

	if (!err) {
		x_node_meta(x, parent, name, inode, xl, loc);
		return 0;
	}
	if (err == EEXIST && x_replaces(x))
		err = x_mknode_over(x, parent, name, inode, target, xl, loc);
	if (!err)
		return 0;
	if (err == EEXIST) {
		x_report_exists(x->rep, loc, "create");
		return 1;
	}
	return x_create_failed(x, x->rep, loc, "create", err) ?: 1;
}

int extract_node(struct extractor *x, const struct walk_entry *e,
		 const struct fsck_loc *loc, const char *target, size_t tlen,
		 const struct xa_list *xl)
{
	struct xdir *parent = e->depth ? e->parent : x->root;
	const char *name;
	int pfd, ret;

	if (parent->failed || !(name = x_entry_name(x, e, loc)))
		return 0;
	if (S_ISLNK(e->inode->mode) && (!tlen || memchr(target, '\0', tlen)))
		return 0;	/* reported by the checker */
	pfd = xdir_fd(x, parent);
	if (pfd < 0)
		return x_create_failed(x, x->rep, loc,
				       "reopen the parent directory of", -pfd);
	if (x_kept(x, parent, name, e->inode->mode, tlen, e->inode->rdev,
		   e->inode))
		ret = 2;
	else
		ret = x_mknode(x, parent, name, e->inode, target, xl, loc);
	if (ret < 0)
		return ret;
	if (ret == 2) {
		atomic_inc(&x->nkept);
		ret = 0;
	} else if (!ret) {
		atomic_inc(S_ISLNK(e->inode->mode) ? &x->nsymlinks :
						     &x->nnodes);
	}
	if (e->inode->nlink > 1)
		return x_add_primary(x, e, parent, name, ret ? -1 : 1);
	return 0;
}

int extract_link(struct extractor *x, const struct walk_entry *e,
		 const struct fsck_loc *loc)
{
	struct xdir *parent = e->depth ? e->parent : x->root;
	const char *name;
	struct xlink *l;

	if (parent->failed || !(name = x_entry_name(x, e, loc)))
		return 0;
	if (GROW(x, links, caplinks, x->nlinks + 1))
		return -ENOMEM;
	l = &x->links[x->nlinks];
	l->dir = parent;
	l->nid = e->nid;
	l->name = strdup(name);
	l->path = strndup(e->path, e->pathlen);
	l->pathlen = e->pathlen;
	if (!l->name || !l->path) {
		free(l->name);
		free(l->path);
		return -ENOMEM;
	}
	x->nlinks++;
	return 0;
}

int extract_file_begin(struct extractor *x, const struct walk_entry *e,
		       const struct fsck_loc *loc, struct xdir **dir)
{
	struct xdir *parent = e->depth ? e->parent : x->root;
	const char *name;
	bool kept;
	int pfd, ret;

	*dir = NULL;
	if (parent->failed || !(name = x_entry_name(x, e, loc)))
		return 0;
	x_make_room(x);
	pfd = xdir_fd(x, parent);
	if (pfd < 0)
		return x_create_failed(x, x->rep, loc,
				       "reopen the parent directory of", -pfd);
	kept = x_kept(x, parent, name, e->inode->mode, e->inode->size, 0,
		      NULL);
	if (e->inode->nlink > 1) {
		ret = x_add_primary(x, e, parent, name, kept ? 2 : 0);
		if (ret)
			return ret;
	}
	if (kept) {
		atomic_inc(&x->nkept);
		return 0;
	}
	__atomic_add_fetch(&parent->refs, 1, __ATOMIC_ACQ_REL);
	*dir = parent;
	return 0;
}

void extract_file_status(struct extractor *x, uint64_t nid, bool ok)
{
	struct xprimary *p = nidmap_find(&x->primaries, nid);

	/* a file kept by --keep-existing, or a node, is settled */
	if (p && !p->state)
		p->state = ok ? 1 : -1;
}

/* Task side */

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
			__atomic_store_n(&x->files[pg], page,
					 __ATOMIC_RELEASE);
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

/* O_TMPFILE is not there: the kernel or the filesystem has none. */
static bool no_tmpfile_errno(int err)
{
	return err == EOPNOTSUPP || err == EISDIR || err == EINVAL;
}

/*
 * A new file no one sees: unnamed (tmp ""), or under a hidden name, made
 * with O_EXCL and O_NOFOLLOW, so that nothing in the way is reused or
 * followed. Returns a descriptor or a negative errno.
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
			return fd >= 0 ? fd : -errno;
		__atomic_store_n(&x->no_tmpfile, 1, __ATOMIC_RELAXED);
	}
	for (i = 0; i < X_TMP_TRIES; i++) {
		*tmp_id = x_tmp_name(x, tmp);
		fd = openat(dfd, tmp, flags, m);
		if (fd >= 0 || errno != EEXIST)
			return fd >= 0 ? fd : -errno;
	}
	return -EEXIST;
}

int extract_file_create(struct extractor *x, struct report *rep,
			const struct fsck_loc *loc, struct xdir *dir,
			const char *name, const struct erofs_inode *inode)
{
	mode_t m = x_mode(x, inode->mode) & 0777;
	char tmp[X_TMP_LEN + 1];
	uint64_t tmp_id;
	struct xfile *f;
	int fd;

	if (!name)
		name = x->start_name;
	/* in a directory of this run, only a bad image repeats a name */
	if (!dir->fresh && !x_replaces(x) && x_exists(dir->fd, name)) {
		x_report_exists(rep, loc, "create");
		return -1;
	}
	fd = x_tmp_create(x, dir->fd, m, &tmp_id);
	if (fd < 0)
		return x_create_failed(x, rep, loc, "create", -fd) ?: -1;
	f = xfile_of(x, fd, true);
	if (!f) {
		close(fd);
		if (tmp_id) {
			x_tmp_format(tmp_id, tmp);
			unlinkat(dir->fd, tmp, 0);
		}
		return x_create_failed(x, rep, loc, "create", ENOMEM);
	}
	__atomic_store_n(&f->end, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&f->tmp_id, tmp_id, __ATOMIC_RELAXED);
	return fd;
}

static int x_pwrite(struct extractor *x, struct report *rep,
		    const struct fsck_loc *loc, int fd, const uint8_t *p,
		    size_t len, uint64_t off)
{
	ssize_t n;

	while (len) {
		n = pwrite(fd, p, len, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int err = n < 0 ? errno : ENOSPC;

			x_report_out(x, rep, loc, true, "write", err);
			return -err;
		}
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	xfile_written(x, fd, off);
	return 0;
}

/*
 * --sparse: write all but the aligned blocks of zeros (fsck/sparse.h),
 * which the file, new and empty, already reads as. Only what is written
 * counts as its end: ftruncate gives it its size at the commit.
 */
static int x_write_sparse(struct extractor *x, struct report *rep,
			  const struct fsck_loc *loc, int fd,
			  const uint8_t *buf, size_t len, uint64_t off)
{
	size_t data = 0, hole;
	int ret;

	while (data < len) {
		hole = sparse_next_hole(buf, len, off, data);
		if (hole > data) {
			ret = x_pwrite(x, rep, loc, fd, buf + data, hole - data,
				       off + data);
			if (ret)
				return ret;
		}
		data = hole + SPARSE_BLOCK;
	}
	return 0;
}

int extract_file_write(struct extractor *x, struct report *rep,
		       const struct fsck_loc *loc, int fd, const void *buf,
		       size_t len, uint64_t off)
{
	if (x->o.sparse && len)
		return x_write_sparse(x, rep, loc, fd, buf, len, off);
	return x_pwrite(x, rep, loc, fd, buf, len, off);
}

int extract_file_copy(struct extractor *x, struct report *rep,
		      const struct fsck_loc *loc, int fd,
		      struct erofs_ctx *ctx, const struct erofs_inode *inode,
		      const struct erofs_map *map, uint64_t skip, uint64_t len)
{
	uint64_t off = map->la + skip, n;
	int ret;

	/* copied bytes are data: zeros are only found reading them */
	if (x->o.sparse || __atomic_load_n(&x->no_copy, __ATOMIC_RELAXED))
		return 1;
	for (; len; skip += n, off += n, len -= n) {
		if (interrupted())
			return -EINTR;
		n = len < X_COPY_CHUNK ? len : X_COPY_CHUNK;
		ret = erofs_extent_copy(ctx, inode, map, skip, n, fd, off);
		if (ret == EROFS_COPY_REFUSED) {
			__atomic_store_n(&x->no_copy, 1, __ATOMIC_RELAXED);
			return 1;
		}
		if (ret < 0 && ctx->err.output) {
			x_report_out(x, rep, loc, true, "write", -ret);
			erofs_err_drop(&ctx->err);
		}
		if (ret < 0)
			return ret;
		xfile_written(x, fd, off + n);
	}
	return 0;
}

/* Link the unnamed file fd as name. Returns 0 or a negative errno. */
static int x_link_unnamed(struct extractor *x, int fd, int dfd,
			  const char *name)
{
	char proc[32];
	int ret = -ENOENT;

	/* needs CAP_DAC_READ_SEARCH; else the kernel says ENOENT */
	if (!__atomic_load_n(&x->no_empty_path, __ATOMIC_RELAXED)) {
		ret = x_link_replacing(x, fd, "", AT_EMPTY_PATH, dfd, name);
		if (ret != -ENOENT || !x->have_proc)
			return ret;
		__atomic_store_n(&x->no_empty_path, 1, __ATOMIC_RELAXED);
	}
	if (!x->have_proc)
		return ret;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	return x_link_replacing(x, AT_FDCWD, proc, AT_SYMLINK_FOLLOW, dfd,
				name);
}

/* Move a file written under a hidden name to name. */
static int x_rename_tmp(struct extractor *x, int dfd, const char *tmp,
			const char *name)
{
	int err;

	if (x_replaces(x))
		err = x_rename_over(dfd, tmp, name);
	else if (!renameat2(dfd, tmp, dfd, name, RENAME_NOREPLACE))
		err = 0;
	else if (errno != EINVAL)
		err = -errno;
	/* no RENAME_NOREPLACE here: a link does not replace either */
	else if (linkat(dfd, tmp, dfd, name, 0))
		err = -errno;
	else
		err = unlinkat(dfd, tmp, 0) ? -errno : 0;
	if (err)
		unlinkat(dfd, tmp, 0);
	return err;
}

/*
 * The file is complete: give it its name. Returns 0, 1 when it could not
 * be (reported), or a negative errno that stops the run.
 */
static int x_place(struct extractor *x, struct report *rep,
		   const struct fsck_loc *loc, int dfd, const char *name,
		   int fd, struct xfile *f)
{
	uint64_t tmp_id = __atomic_load_n(&f->tmp_id, __ATOMIC_RELAXED);
	char tmp[X_TMP_LEN + 1];
	int err;

	if (tmp_id) {
		x_tmp_format(tmp_id, tmp);
		err = -x_rename_tmp(x, dfd, tmp, name);
	} else {
		err = -x_link_unnamed(x, fd, dfd, name);
	}
	if (!err)
		return 0;
	if (err == EEXIST) {
		x_report_exists(rep, loc, "create");
		return 1;
	}
	return x_create_failed(x, rep, loc, "create", err) ?: 1;
}

/* Does the file need chown to get the image's owner? */
static bool x_chown_needed(const struct extractor *x, const struct xdir *dir,
			   const struct erofs_inode *inode)
{
	return x->o.owner &&
	       (inode->uid != x->euid || inode->gid != dir->new_gid);
}

int extract_file_commit(struct extractor *x, struct report *rep,
			const struct fsck_loc *loc, struct xdir *dir,
			const char *name, int fd,
			const struct erofs_inode *inode,
			const struct xa_list *xl)
{
	struct x_obj o = { .fd = fd, .kind = XKIND_REG };
	struct xfile *f = xfile_of(x, fd, false);
	mode_t m = x_mode(x, inode->mode);
	int ret, placed, err;

	if (!name)
		name = x->start_name;
	if (__atomic_load_n(&f->end, __ATOMIC_RELAXED) != inode->size &&
	    ftruncate(fd, (off_t)inode->size)) {
		err = errno;
		x_report_out(x, rep, loc, true, "write", err);
		extract_file_abort(x, dir, name, fd);
		return -err;
	}
	o.strip_acls = x->o.xattrs && dir->inherits_acl;
	o.chown = x_chown_needed(x, dir, inode);
	ret = x_apply(x, rep, loc, &o, inode, inode->mode, xl,
		      (m & 07000) || o.strip_acls);
	placed = x_place(x, rep, loc, dir->fd, name, fd, f);
	if (placed) {
		close(fd);
		return placed;
	}
	if (close(fd)) {
		err = errno;
		x_report_out(x, rep, loc, true, "write", err);
		unlinkat(dir->fd, name, 0);
		return -err;
	}
	atomic_inc(&x->nfiles);
	return ret;
}

/* The data failed: the name, if any, is as it was. */
void extract_file_abort(struct extractor *x, struct xdir *dir,
			const char *name, int fd)
{
	struct xfile *f = xfile_of(x, fd, false);
	uint64_t tmp_id = f ? __atomic_load_n(&f->tmp_id, __ATOMIC_RELAXED) : 0;
	char tmp[X_TMP_LEN + 1];

	(void)name;
	if (tmp_id) {
		x_tmp_format(tmp_id, tmp);
		unlinkat(dir->fd, tmp, 0);
	}
	close(fd);
}

void extract_file_end(struct extractor *x, struct xdir *dir)
{
	if (dir)
		xdir_unref(x, dir);
}

/* After the walk */

static void x_link_one(struct extractor *x, const struct xlink *l)
{
	struct fsck_loc loc = {
		.path = l->path, .pathlen = l->pathlen,
		.nid = l->nid, .offset = EROFS_NO_OFFSET,
	};
	struct xprimary *p = nidmap_find(&x->primaries, l->nid);
	int pfd, dfd, err;

	if (!p || p->state < 1)
		return;		/* the first name failed, and said so */
	x_trim(x);
	pfd = xdir_fd(x, p->dir);
	dfd = pfd < 0 ? pfd : xdir_fd(x, l->dir);
	if (dfd < 0) {
		x_report_errno(x->rep, &loc, "reopen a directory", -dfd);
		return;
	}
	if (x_kept(x, l->dir, l->name, p->mode, p->size, 0, NULL)) {
		atomic_inc(&x->nkept);
		return;
	}
	err = -x_link_replacing(x, pfd, p->name, 0, dfd, l->name);
	if (!err) {
		atomic_inc(&x->nlinked);
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
		.path = d->path, .pathlen = d->pathlen,
		.nid = d->nid, .offset = EROFS_NO_OFFSET,
	};
	struct x_obj o = { .kind = XKIND_REG, .chown = x->o.owner };
	struct erofs_inode inode;

	x_trim(x);
	o.fd = xdir_fd(x, d);
	if (o.fd < 0) {
		x_report_errno(x->rep, &loc, "reopen the directory", -o.fd);
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

static void x_summary_refused(struct extractor *x, int ns, int kind)
{
	static const char *const kinds[XKIND_MAX] = {
		[XKIND_REG] = "files or directories",
		[XKIND_OTHER] = "symlinks or special files",
	};

	report_warning(x->rep, NULL, "%s xattrs not set on %lu %s: %s",
		       xns_names[ns], x->refused[ns][kind], kinds[kind],
		       strerror(x->refused_err[ns][kind]));
}

/* The warnings that would have repeated for every entry, once each. */
static void x_summary(struct extractor *x)
{
	int ns, kind;

	for (ns = 0; ns < XNS_MAX; ns++)
		for (kind = 0; kind < XKIND_MAX; kind++)
			if (x->refused[ns][kind])
				x_summary_refused(x, ns, kind);
	if (x->bad_xattr_names)
		report_warning(x->rep, NULL,
			       "%lu xattrs with a NUL byte in their name not set",
			       x->bad_xattr_names);
	if (x->owner_refused)
		report_failure(x->rep, NULL,
			       "owners not set on %lu entries: %s",
			       x->owner_refused, strerror(x->owner_err));
}

int extract_finish(struct extractor *x, bool stopped)
{
	size_t i;

	x->nstack = 0;
	for (i = 0; !stopped && i < x->nlinks; i++)
		x_link_one(x, &x->links[i]);
	/* interrupted: directories stay 0700, as made, and writable */
	for (i = 0; !interrupted() && i < x->npost; i++)
		if (x->post[i]->fixup && !x->post[i]->failed)
			x_fix_dir(x, x->post[i]);
	x_summary(x);
	return 0;
}

void extract_get_stats(const struct extractor *x, struct extract_stats *st)
{
	st->dirs = x->ndirs;
	st->files = x->nfiles;
	st->symlinks = x->nsymlinks;
	st->nodes = x->nnodes;
	st->links = x->nlinked;
}
