// SPDX-License-Identifier: MIT
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "erofs/format.h"
#include "erofs/inode.h"
#include "output/compare.h"
#include "util/grow.h"
#include "util/nidmap.h"
#include "util/strbuf.h"
#include "util/xattr_list.h"
#include "walk/select.h"
#include "walk/walk.h"

/* Bytes of DIR's file read per comparison. */
#define CMP_CHUNK 65536u
/* The longest symlink target and xattr list read from DIR. */
#define CMP_TARGET_MAX 4096u
#define CMP_XATTRS_MAX (1u << 20)

struct compare {
	int root; /* DIR, or its parent when base is its name */
	const char *base; /* the start's name under root, or "" */
	bool xattrs;
	const struct select_rules *rules; /* NULL: no selection */
	int64_t modify_window; /* seconds, or -1: the inode's precision */
	struct report *rep;
	struct nidmap ino_of_nid; /* linked nid -> its ino in DIR */
	struct nidmap nid_of_ino; /* linked ino of DIR -> struct cmp_ino */
};

struct cmp_ino {
	uint64_t nid;
	dev_t dev;
};

/* A directory of the image and the names DIR holds in it. */
struct cmp_dir {
	bool present; /* DIR holds it as a directory */
	char *path; /* in the image, for names only in DIR */
	size_t pathlen, rellen; /* rellen: of the path below the start */
	char **names; /* sorted */
	bool *seen;
	size_t n;
};

/* A regular file whose content is compared. */
struct cmp_file {
	dev_t dev;
	ino_t ino;
	bool content; /* same type and size: compare bytes */
	int fd; /* DIR's file, while the data is read */
	uint64_t differs_at; /* atomic: lowest offset found, or max */
};

static int cmp_openat2(int dirfd, const char *path, int flags)
{
	struct open_how how = {
		.flags = (uint64_t)(flags | O_NOFOLLOW | O_CLOEXEC),
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
			   RESOLVE_NO_MAGICLINKS,
	};

	return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
}

/* Open what DIR holds at rel (relative to the start); -1 and errno. */
static int cmp_open(const struct compare *c, const char *rel, size_t rellen,
		    int flags)
{
	struct strbuf sb = STRBUF_INIT;
	int fd, err;

	sb_adds(&sb, c->base);
	if (rellen)
		sb_add(&sb, rel, rellen);
	if (!sb.len)
		sb_addc(&sb, '.');
	if (sb.failed) {
		sb_release(&sb);
		errno = ENOMEM;
		return -1;
	}
	fd = cmp_openat2(c->root, sb.s, flags);
	err = errno;
	sb_release(&sb);
	errno = err;
	return fd;
}

static const char *type_name(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG:
		return "a regular file";
	case S_IFDIR:
		return "a directory";
	case S_IFLNK:
		return "a symlink";
	case S_IFCHR:
		return "a character device";
	case S_IFBLK:
		return "a block device";
	case S_IFIFO:
		return "a fifo";
	default:
		return "a socket";
	}
}

/*
 * An mtime compared at the precision the inode holds: a compact inode
 * has whole seconds of its own and the superblock's nanoseconds
 * (docs/format.md, "Times"), an extended one nanoseconds; with
 * --modify-window=N, seconds that differ by at most N are the same.
 */
static bool same_mtime(const struct compare *c,
		       const struct erofs_inode *inode, const struct stat *st)
{
	int64_t d;

	/* times a whole 64-bit range apart are not the same */
	if (__builtin_sub_overflow((int64_t)st->st_mtim.tv_sec, inode->mtime,
				   &d))
		return false;
	if (c->modify_window >= 0)
		return d >= -c->modify_window && d <= c->modify_window;
	if (inode->inode_size == EROFS_INODE_COMPACT_SIZE)
		return !d;
	return !d && st->st_mtim.tv_nsec == (long)inode->mtime_nsec;
}

/* Type, mode, owner, size, mtime, rdev: false when the types differ. */
static bool cmp_meta(const struct compare *c, struct report *rep,
		     const struct fsck_loc *loc,
		     const struct erofs_inode *inode, const struct stat *st)
{
	mode_t type = inode->mode & S_IFMT;

	if ((st->st_mode & S_IFMT) != type) {
		report_difference(rep, loc, "%s in the image, %s in DIR",
				  type_name(type), type_name(st->st_mode));
		return false;
	}
	if (type != S_IFLNK && (st->st_mode & 07777) != (inode->mode & 07777))
		report_difference(rep, loc,
				  "mode %04o in the image, %04o in DIR",
				  inode->mode & 07777,
				  (unsigned int)(st->st_mode & 07777));
	if (st->st_uid != inode->uid || st->st_gid != inode->gid)
		report_difference(rep, loc,
				  "owner %u:%u in the image, %u:%u in DIR",
				  inode->uid, inode->gid,
				  (unsigned int)st->st_uid,
				  (unsigned int)st->st_gid);
	if ((type == S_IFREG || type == S_IFLNK) &&
	    (uint64_t)st->st_size != inode->size)
		report_difference(rep, loc,
				  "size %llu in the image, %lld in DIR",
				  (unsigned long long)inode->size,
				  (long long)st->st_size);
	if (!same_mtime(c, inode, st))
		report_difference(
			rep, loc,
			"mtime %lld.%09u in the image, %lld.%09ld in DIR",
			(long long)inode->mtime, inode->mtime_nsec,
			(long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec);
	if ((type == S_IFCHR || type == S_IFBLK) &&
	    (major(st->st_rdev) != erofs_rdev_major(inode->rdev) ||
	     minor(st->st_rdev) != erofs_rdev_minor(inode->rdev)))
		report_difference(rep, loc,
				  "device %u,%u in the image, %u,%u in DIR",
				  erofs_rdev_major(inode->rdev),
				  erofs_rdev_minor(inode->rdev),
				  major(st->st_rdev), minor(st->st_rdev));
	return true;
}

/* Both targets, escaped as paths are (a target may hold any byte). */
static void report_symlink_difference(struct report *rep,
				      const struct fsck_loc *loc,
				      const char *image, const char *dir)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;

	sb_escape(&a, image, strlen(image), NULL);
	sb_escape(&b, dir, strlen(dir), NULL);
	if (a.failed || b.failed)
		report_difference(rep, loc, "symlink target differs");
	else
		report_difference(rep, loc,
				  "symlink target '%s' in the image, '%s' in DIR",
				  a.s, b.s);
	sb_release(&a);
	sb_release(&b);
}

static enum fsck_result cmp_target(struct report *rep,
				   const struct fsck_loc *loc, int fd,
				   const char *target)
{
	char buf[CMP_TARGET_MAX + 1];
	ssize_t n;

	if (!target)
		return FSCK_OK;
	n = readlinkat(fd, "", buf, sizeof(buf) - 1);
	if (n < 0) {
		report_failure(rep, loc, "cannot read the symlink in DIR: %s",
			       strerror(errno));
		return FSCK_REPORTED;
	}
	buf[n] = '\0';
	if (strcmp(buf, target))
		report_symlink_difference(rep, loc, target, buf);
	return FSCK_OK;
}

/*
 * Which names are hard links of one another: the names of a linked inode
 * of the image must be one inode in DIR, and one inode in DIR must not be
 * two inodes of the image.
 */
static enum fsck_result cmp_links(struct compare *c, const struct walk_entry *e,
				  const struct fsck_loc *loc,
				  const struct stat *st)
{
	struct cmp_ino *ci;
	uint64_t *ino;
	int added;

	if (S_ISDIR(st->st_mode))
		return FSCK_OK;
	if (!e->first) {
		ino = nidmap_find(&c->ino_of_nid, e->nid);
		if (ino && *ino != (uint64_t)st->st_ino)
			report_difference(
				c->rep, loc,
				"in DIR, not a hard link of the image's other names of it");
		return FSCK_OK;
	}
	if (e->inode->nlink > 1) {
		ino = nidmap_get(&c->ino_of_nid, e->nid, &added);
		if (!ino)
			return FSCK_NOMEM;
		*ino = st->st_ino;
	}
	if (st->st_nlink < 2)
		return FSCK_OK;
	ci = nidmap_get(&c->nid_of_ino, st->st_ino, &added);
	if (!ci)
		return FSCK_NOMEM;
	if (added) {
		ci->nid = e->nid;
		ci->dev = st->st_dev;
	} else if (ci->dev == st->st_dev && ci->nid != e->nid) {
		report_difference(
			c->rep, loc,
			"in DIR, a hard link of an entry the image holds apart");
	}
	return FSCK_OK;
}

/* One name in the list of xattrs that differ: "NAME (why)". */
static void xattr_named(struct strbuf *sb, const char *name, size_t len,
			const char *why)
{
	sb_adds(sb, sb->len ? ", " : "");
	sb_escape(sb, name, len, NULL);
	sb_addf(sb, " (%s)", why);
}

/* Does DIR's entry at path hold the xattr it, with its value? */
static const char *xattr_in_dir(const struct xattr_item *it, const char *path)
{
	ssize_t vlen;
	bool same;
	char *v;

	/* a name holding a NUL cannot be one of DIR's */
	if (strlen(it->name) != it->namelen)
		return "only in the image";
	vlen = getxattr(path, it->name, NULL, 0);
	if (vlen < 0)
		return "only in the image";
	if ((size_t)vlen != it->len)
		return "value differs";
	v = malloc(vlen ? (size_t)vlen : 1);
	if (!v)
		return "cannot be read: out of memory";
	same = getxattr(path, it->name, v, vlen) == vlen &&
	       !memcmp(v, it->value, it->len);
	free(v);
	return same ? NULL : "value differs";
}

/*
 * The xattrs that differ between xl and DIR's list names (len bytes) of
 * the entry at path, into sb: "NAME (only in the image)", "NAME (only in
 * DIR)", "NAME (value differs)".
 */
static void xattr_diffs(const struct xattr_list *xl, const char *path,
			const char *names, ssize_t len, struct strbuf *sb)
{
	const char *p, *why;
	size_t i;

	for (i = 0; xl && i < xl->n; i++) {
		why = xattr_in_dir(&xl->items[i], path);
		if (why)
			xattr_named(sb, xl->items[i].name,
				    xl->items[i].namelen, why);
	}
	for (p = names; p < names + len; p += strlen(p) + 1)
		if (!xattr_list_has(xl, p))
			xattr_named(sb, p, strlen(p), "only in DIR");
}

/*
 * The xattrs listxattr shows of DIR's entry (fd: O_PATH), through the
 * descriptor's /proc link, which names the entry itself even when it is
 * a symlink.
 */
static enum fsck_result cmp_xattrs(struct compare *c, struct report *rep,
				   const struct fsck_loc *loc, int fd,
				   const struct xattr_list *xl)
{
	struct strbuf sb = STRBUF_INIT;
	char path[64], *names;
	ssize_t len;

	if (!c->xattrs)
		return FSCK_OK;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	len = listxattr(path, NULL, 0);
	if (len < 0 && (errno == ENOTSUP || errno == EPERM))
		len = 0;
	if (len < 0 || len > CMP_XATTRS_MAX) {
		report_failure(rep, loc, "cannot list the xattrs in DIR: %s",
			       len < 0 ? strerror(errno) : "too long");
		return FSCK_REPORTED;
	}
	names = malloc(len ? (size_t)len : 1);
	if (!names)
		return FSCK_NOMEM;
	if (len)
		len = listxattr(path, names, len);
	if (len < 0) {
		report_failure(rep, loc, "cannot list the xattrs in DIR: %s",
			       strerror(errno));
		free(names);
		return FSCK_REPORTED;
	}
	xattr_diffs(xl, path, names, len, &sb);
	free(names);
	if (sb.failed)
		report_difference(rep, loc, "xattrs differ");
	else if (sb.len)
		report_difference(rep, loc, "xattrs differ: %s", sb.s);
	sb_release(&sb);
	return FSCK_OK;
}

static int cmp_name_order(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names DIR holds in the directory fd (closed here). */
static enum fsck_result cmp_dir_read(struct cmp_dir *d, int fd)
{
	DIR *dir = fdopendir(fd);
	struct dirent *de;
	size_t cap = 0;

	if (!dir) {
		close(fd);
		return FSCK_REPORTED;
	}
	while ((de = readdir(dir))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (ARRAY_GROW(d->names, cap, d->n + 1, 16))
			break;
		d->names[d->n] = strdup(de->d_name);
		if (!d->names[d->n])
			break;
		d->n++;
	}
	closedir(dir);
	if (de)
		return FSCK_NOMEM;
	if (d->n)
		qsort(d->names, d->n, sizeof(*d->names), cmp_name_order);
	d->seen = calloc(d->n ? d->n : 1, sizeof(*d->seen));
	return d->seen ? FSCK_OK : FSCK_NOMEM;
}

static void cmp_dir_free(struct cmp_dir *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		free(d->names[i]);
	free(d->names);
	free(d->seen);
	free(d->path);
	free(d);
}

/* The directory's state; its names in DIR when it is one there. */
static enum fsck_result cmp_dir_new(struct compare *c,
				    const struct walk_entry *e, bool present,
				    void **state)
{
	struct cmp_dir *d = calloc(1, sizeof(*d));
	int fd;

	if (!d)
		return FSCK_NOMEM;
	*state = d;
	d->present = present;
	/* under a selection, only where everything is selected */
	if (!present || (c->rules && !e->all_below))
		return FSCK_OK;
	d->path = strndup(e->path, e->pathlen);
	if (!d->path)
		return FSCK_NOMEM;
	d->pathlen = e->pathlen;
	d->rellen = e->rellen;
	fd = cmp_open(c, e->rel, e->rellen, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return FSCK_REPORTED;
	return cmp_dir_read(d, fd);
}

static void cmp_dir_saw(struct cmp_dir *d, const char *name, size_t len)
{
	size_t lo = 0, hi = d->n, mid;
	int r;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		r = strncmp(d->names[mid], name, len);
		if (!r && d->names[mid][len])
			r = 1;
		if (!r) {
			d->seen[mid] = true;
			return;
		}
		if (r < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
}

/* DIR's entry of e, already opened (O_PATH): compare it. */
static enum fsck_result cmp_entry_at(struct compare *c,
				     const struct out_entry *oe, int fd,
				     void **state)
{
	const struct walk_entry *e = oe->e;
	const bool reg = S_ISREG(e->inode->mode);
	struct cmp_file *f;
	enum fsck_result r;
	struct stat st;
	bool same_type;

	if (fstat(fd, &st)) {
		report_failure(oe->rep, oe->loc, "cannot stat in DIR: %s",
			       strerror(errno));
		return S_ISDIR(e->inode->mode) && e->first
			       ? cmp_dir_new(c, e, false, state)
			       : FSCK_REPORTED;
	}
	same_type = cmp_meta(c, oe->rep, oe->loc, e->inode, &st);
	r = cmp_links(c, e, oe->loc, &st);
	if (r != FSCK_OK || !e->first)
		return r;
	if (S_ISDIR(e->inode->mode))
		r = cmp_dir_new(c, e, same_type, state);
	if (!same_type || r != FSCK_OK)
		return r;
	if (S_ISLNK(e->inode->mode))
		r = cmp_target(oe->rep, oe->loc, fd, oe->target);
	/* a regular file's xattrs are known once its task has read them */
	if (r == FSCK_OK && !reg)
		r = cmp_xattrs(c, oe->rep, oe->loc, fd, oe->xl);
	if (!reg || r != FSCK_OK)
		return r;
	f = calloc(1, sizeof(*f));
	if (!f)
		return FSCK_NOMEM;
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	f->fd = -1;
	f->content = (uint64_t)st.st_size == e->inode->size;
	f->differs_at = UINT64_MAX;
	*state = f;
	return FSCK_OK;
}

static enum fsck_result cmp_entry(void *priv, const struct out_entry *oe,
				  void **state)
{
	struct compare *c = priv;
	const struct walk_entry *e = oe->e;
	struct cmp_dir *parent = e->parent;
	enum fsck_result r;
	int fd;

	/* below what DIR lacks: reported there */
	if (e->depth && (!parent || !parent->present))
		return S_ISDIR(e->inode->mode) && e->first
			       ? cmp_dir_new(c, e, false, state)
			       : FSCK_OK;
	if (parent && parent->seen)
		cmp_dir_saw(parent, e->name, e->namelen);
	fd = cmp_open(c, e->rel, e->rellen, O_PATH);
	if (fd < 0 && (errno == ENOENT || errno == ELOOP || errno == ENOTDIR ||
		       errno == EXDEV)) {
		report_difference(oe->rep, oe->loc, "only in the image");
		r = FSCK_OK;
	} else if (fd < 0) {
		report_failure(oe->rep, oe->loc, "cannot open in DIR: %s",
			       strerror(errno));
		r = FSCK_REPORTED;
	}
	if (fd < 0)
		return S_ISDIR(e->inode->mode) && e->first
			       ? cmp_dir_new(c, e, false, state)
			       : r;
	r = cmp_entry_at(c, oe, fd, state);
	close(fd);
	return r;
}

/* Would the selection leave out DIR's entry name of directory d? */
static bool cmp_left_out(const struct compare *c, const struct cmp_dir *d,
			 const char *name)
{
	struct strbuf rel = STRBUF_INIT;
	struct stat st;
	bool dir = false, out;
	int fd;

	if (!c->rules)
		return false;
	if (d->rellen) {
		sb_add(&rel, d->path + d->pathlen - d->rellen, d->rellen);
		sb_addc(&rel, '/');
	}
	sb_adds(&rel, name);
	if (rel.failed) {
		sb_release(&rel);
		return false;
	}
	fd = cmp_open(c, rel.s, rel.len, O_PATH);
	if (fd >= 0) {
		dir = !fstat(fd, &st) && S_ISDIR(st.st_mode);
		close(fd);
	}
	out = select_excluded(c->rules, rel.s, name, dir);
	sb_release(&rel);
	return out;
}

/* After a directory's children: the names only DIR holds. */
static void cmp_dir_end(void *priv, void *state)
{
	struct compare *c = priv;
	struct cmp_dir *d = state;
	struct strbuf sb = STRBUF_INIT;
	struct fsck_loc loc = { .nid = EROFS_NO_NID,
				.offset = EROFS_NO_OFFSET };
	size_t i;

	for (i = 0; i < d->n; i++) {
		if (d->seen[i] || cmp_left_out(c, d, d->names[i]))
			continue;
		sb.len = 0;
		if (d->pathlen) {
			sb_add(&sb, d->path, d->pathlen);
			sb_addc(&sb, '/');
		}
		sb_adds(&sb, d->names[i]);
		loc.path = sb.failed ? d->names[i] : sb.s;
		loc.pathlen = strlen(loc.path);
		report_difference(c->rep, &loc, "only in DIR");
	}
	sb_release(&sb);
	cmp_dir_free(d);
}

static enum fsck_result cmp_file_open(void *priv, void **file,
				      const struct out_file *of)
{
	struct cmp_file *f = *file;
	struct stat st;

	if (!f || !f->content)
		return FSCK_OK;
	/* O_NONBLOCK: what replaced the file may be a fifo */
	f->fd = cmp_open(priv, of->rel, of->rellen, O_RDONLY | O_NONBLOCK);
	if (f->fd >= 0 && !fstat(f->fd, &st) && st.st_dev == f->dev &&
	    st.st_ino == f->ino)
		return FSCK_OK;
	report_failure(of->rep, of->loc, "cannot read the file in DIR: %s",
		       f->fd < 0 ? strerror(errno) : "it was replaced");
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	f->content = false;
	return FSCK_REPORTED;
}

static void cmp_differs_at(struct cmp_file *f, uint64_t off)
{
	uint64_t cur = __atomic_load_n(&f->differs_at, __ATOMIC_RELAXED);

	while (off < cur &&
	       !__atomic_compare_exchange_n(&f->differs_at, &cur, off, true,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

/* The first of n bytes where a and b (NULL: zeros) differ. */
static size_t first_difference(const uint8_t *a, const uint8_t *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (a[i] != (b ? b[i] : 0))
			break;
	return i;
}

/* The file's bytes at off against buf (NULL: zeros). */
static enum fsck_result cmp_range(struct cmp_file *f, const uint8_t *buf,
				  uint64_t len, uint64_t off)
{
	static const uint8_t zeros[CMP_CHUNK];
	uint8_t chunk[CMP_CHUNK];
	size_t n, at;
	ssize_t got;

	if (f->fd < 0)
		return FSCK_OK;
	while (len) {
		n = len < CMP_CHUNK ? (size_t)len : CMP_CHUNK;
		got = pread(f->fd, chunk, n, (off_t)off);
		if (got < 0)
			got = 0;
		if ((size_t)got != n || memcmp(chunk, buf ? buf : zeros, n)) {
			/* a file that ends early differs where it ends */
			at = first_difference(chunk, buf, (size_t)got);
			cmp_differs_at(f, off + at);
			return FSCK_OK;
		}
		if (buf)
			buf += n;
		off += n;
		len -= n;
	}
	return FSCK_OK;
}

static enum fsck_result cmp_data(void *priv, void *file,
				 const struct out_file *of, const void *buf,
				 size_t len, uint64_t off)
{
	(void)priv;
	(void)of;
	return cmp_range(file, buf, len, off);
}

static enum fsck_result cmp_hole(void *priv, void *file, uint64_t off,
				 uint64_t len)
{
	(void)priv;
	return cmp_range(file, NULL, len, off);
}

static enum fsck_result cmp_file_end(void *priv, void *file,
				     const struct out_file *of,
				     enum fsck_result r)
{
	struct cmp_file *f = file;

	(void)priv;
	if (!f || f->fd < 0)
		return FSCK_OK;
	close(f->fd);
	f->fd = -1;
	/* content the image could not give is the check's to report */
	if (r == FSCK_OK && f->differs_at != UINT64_MAX)
		report_difference(
			of->rep, of->loc,
			"content differs from offset %llu (byte %llu, as cmp counts)",
			(unsigned long long)f->differs_at,
			(unsigned long long)f->differs_at + 1);
	return FSCK_OK;
}

static enum fsck_result cmp_file_done(void *priv, void *file,
				      const struct out_file *of)
{
	struct compare *c = priv;
	enum fsck_result r = FSCK_OK;
	int fd;

	if (file && c->xattrs && !of->skipped && of->xattrs_ok) {
		fd = cmp_open(c, of->rel, of->rellen, O_PATH);
		if (fd >= 0) {
			r = cmp_xattrs(c, of->rep, of->loc, fd, of->xl);
			close(fd);
		}
	}
	free(file);
	return r;
}

static void cmp_close(void *priv)
{
	struct compare *c = priv;

	close(c->root);
	nidmap_fini(&c->ino_of_nid);
	nidmap_fini(&c->nid_of_ino);
	free((char *)c->base);
	free(c);
}

static void cmp_dir_drop(void *priv, void *state)
{
	(void)priv;
	cmp_dir_free(state);
}

static const struct output_ops compare_output = {
	.entry = cmp_entry,
	.dir_end = cmp_dir_end,
	.dir_drop = cmp_dir_drop,
	.file_open = cmp_file_open,
	.data = cmp_data,
	.hole = cmp_hole,
	.file_end = cmp_file_end,
	.file_done = cmp_file_done,
	.close = cmp_close,
};

/* DIR, or for a start that is not a directory, its parent and name. */
static int cmp_open_root(struct compare *c, const struct compare_opts *o)
{
	const char *slash;
	char *parent;

	if (o->start_is_dir) {
		c->base = strdup("");
		c->root = open(o->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		return c->base && c->root >= 0 ? 0 : -1;
	}
	slash = strrchr(o->dir, '/');
	c->base = strdup(slash ? slash + 1 : o->dir);
	parent = slash ? strndup(o->dir, slash == o->dir ? 1 : slash - o->dir)
		       : strdup(".");
	if (!c->base || !parent) {
		free(parent);
		errno = ENOMEM;
		return -1;
	}
	c->root = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(parent);
	return c->root >= 0 ? 0 : -1;
}

int compare_add_output(struct outputs *l, const struct compare_opts *o,
		       struct report *rep)
{
	struct compare *c = calloc(1, sizeof(*c));
	int err;

	if (!c) {
		report_nomem(rep, NULL);
		return -ENOMEM;
	}
	c->root = -1;
	c->xattrs = o->xattrs;
	c->rules = o->rules;
	c->modify_window = o->modify_window;
	c->rep = rep;
	nidmap_init(&c->ino_of_nid, sizeof(uint64_t));
	nidmap_init(&c->nid_of_ino, sizeof(struct cmp_ino));
	if (cmp_open_root(c, o)) {
		err = errno;
		report_fatal(rep, "--compare=%s: %s", o->dir, strerror(err));
		if (c->root >= 0)
			close(c->root);
		c->root = -1;
		cmp_close(c);
		return -err;
	}
	outputs_add(l, &compare_output, c,
		    OUT_OPENS | OUT_DATA | (o->xattrs ? OUT_XATTRS : 0));
	return 0;
}
