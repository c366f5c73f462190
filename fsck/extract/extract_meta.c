// SPDX-License-Identifier: MIT
/*
 * The metadata of what is extracted: owner, mode, xattrs (ACLs among
 * them) and times. What the target refuses for lack of privilege or
 * support (an xattr namespace, chown as a user) would repeat for every
 * entry: it is counted, and x_summary() says it once per kind.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "erofs/inode.h"
#include "extract/extract_state.h"
#include "util/strbuf.h"

#define ACL_ACCESS "system.posix_acl_access"
#define ACL_DEFAULT "system.posix_acl_default"

static const char *const xns_names[XNS_MAX] = {
	"user.*", "trusted.*", "security.*", "system.*", "other",
};

/* The mode an entry gets: the image's, or with the umask, no set-ids. */
mode_t x_mode(const struct extractor *x, uint16_t mode)
{
	mode_t m = mode & 07777;

	if (!x->o.perms)
		m &= ~x->o.umask;
	if (!x->o.owner)
		m &= ~(mode_t)(S_ISUID | S_ISGID);
	return m;
}

bool has_default_acl(int dfd)
{
	return fgetxattr(dfd, ACL_DEFAULT, NULL, 0) > 0;
}

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

/* 0 or an errno. */
static int obj_setxattr(const struct x_obj *o, const struct xattr_item *it)
{
	int ret;

	if (o->opath)
		ret = setxattr(o->proc, it->name, it->value, it->len, 0);
	else
		ret = fsetxattr(o->fd, it->name, it->value, it->len, 0);
	return ret ? errno : 0;
}

/* 0 (also when there was none) or an errno. */
static int obj_removexattr(const struct x_obj *o, const char *name)
{
	int ret;

	if (o->opath)
		ret = removexattr(o->proc, name);
	else
		ret = fremovexattr(o->fd, name);
	return ret && errno != ENODATA ? errno : 0;
}

/* Set one xattr; false when it was not (reported, or counted). */
static bool x_set_xattr(struct extractor *x, struct report *rep,
			const struct fsck_loc *loc, const struct x_obj *o,
			const struct xattr_item *it)
{
	struct strbuf sb = STRBUF_INIT;
	int err;

	if (strlen(it->name) != it->namelen) {
		__atomic_add_fetch(&x->bad_xattr_names, 1, __ATOMIC_RELAXED);
		return false;
	}
	err = obj_setxattr(o, it);
	if (!err)
		return true;
	if (refusal(err)) {
		x_refused(x, xattr_ns(it->name), o->kind, err);
		return true;
	}
	sb_escape(&sb, it->name, it->namelen, NULL);
	report_failure(rep, loc, "cannot set xattr %s: %s", sb.s ? sb.s : "",
		       strerror(err));
	sb_release(&sb);
	return false;
}

/*
 * xattrs of the image; inherited ACLs the image does not have removed.
 * False when one was not set.
 */
static bool x_set_xattrs(struct extractor *x, struct report *rep,
			 const struct fsck_loc *loc, const struct x_obj *o,
			 const struct xattr_list *xl, bool dir)
{
	bool ok = true;
	size_t i;
	int err;

	if (!x->o.xattrs)
		return true;
	for (i = 0; xl && i < xl->n; i++)
		ok &= x_set_xattr(x, rep, loc, o, &xl->items[i]);
	if (!o->strip_acls)
		return ok;
	err = xattr_list_has(xl, ACL_ACCESS) ? 0 :
					       obj_removexattr(o, ACL_ACCESS);
	if (!err && dir && !xattr_list_has(xl, ACL_DEFAULT))
		err = obj_removexattr(o, ACL_DEFAULT);
	if (err) {
		x_report_errno(rep, loc, "remove an inherited ACL", err);
		return false;
	}
	return ok;
}

/*
 * chown; false when it failed other than by a refusal (counted). *owned:
 * whether the entry has the image's owner now.
 */
static bool x_set_owner(struct extractor *x, struct report *rep,
			const struct fsck_loc *loc, const struct x_obj *o,
			const struct erofs_inode *inode, bool *owned)
{
	int none = 0, err;

	err = o->opath ? fchownat(o->fd, "", inode->uid, inode->gid,
				  AT_EMPTY_PATH) :
			 fchown(o->fd, inode->uid, inode->gid);
	*owned = !err;
	if (!err)
		return true;
	err = errno;
	if (err != EPERM) {
		x_report_errno(rep, loc, "set the owner", err);
		return false;
	}
	__atomic_add_fetch(&x->owner_refused, 1, __ATOMIC_RELAXED);
	__atomic_compare_exchange_n(&x->owner_err, &none, err, false,
				    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	return true;
}

static bool x_set_mode(struct report *rep, const struct fsck_loc *loc,
		       const struct x_obj *o, mode_t m)
{
	if (!(o->opath ? chmod(o->proc, m) : fchmod(o->fd, m)))
		return true;
	x_report_errno(rep, loc, "set the mode", errno);
	return false;
}

static bool x_set_times(struct report *rep, const struct fsck_loc *loc,
			const struct x_obj *o, const struct erofs_inode *inode)
{
	struct timespec ts[2];

	ts[0].tv_sec = inode->mtime;
	ts[0].tv_nsec = inode->mtime_nsec;
	ts[1] = ts[0];
	if (!(o->opath ? utimensat(o->fd, "", ts, AT_EMPTY_PATH) :
			 futimens(o->fd, ts)))
		return true;
	x_report_errno(rep, loc, "set the times", errno);
	return false;
}

/*
 * Owner, mode, xattrs, times, in this order: chown clears set-id bits and
 * file capabilities, so mode and xattrs come after it; xattrs do not
 * change the mtime. An entry whose owner could not be set keeps no
 * set-id bit (as bsdtar -p): they would grant the extracting user's
 * rights, not the image's owner's. False when something was not set.
 */
bool x_apply(struct extractor *x, struct report *rep,
	     const struct fsck_loc *loc, const struct x_obj *o,
	     const struct erofs_inode *inode, uint16_t mode,
	     const struct xattr_list *xl, bool chmod_needed)
{
	const mode_t setids = S_ISUID | S_ISGID;
	mode_t m = x_mode(x, mode);
	bool ok = true, owned = true;

	if (o->chown)
		ok &= x_set_owner(x, rep, loc, o, inode, &owned);
	if (!owned && (m & setids)) {
		m &= ~setids;
		chmod_needed = true;
	}
	if (chmod_needed && !S_ISLNK(mode))
		ok &= x_set_mode(rep, loc, o, m);
	ok &= x_set_xattrs(x, rep, loc, o, xl, S_ISDIR(mode));
	/*
	 * a salvaged file keeps the time it was written: with another
	 * mtime than the image's, --keep-existing does not take it for
	 * the image's file
	 */
	if (!o->salvaged)
		ok &= x_set_times(rep, loc, o, inode);
	return ok;
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
void x_summary(struct extractor *x)
{
	int ns, kind;

	for (ns = 0; ns < XNS_MAX; ns++)
		for (kind = 0; kind < XKIND_MAX; kind++)
			if (x->refused[ns][kind])
				x_summary_refused(x, ns, kind);
	if (x->bad_xattr_names)
		report_warning(x->rep, NULL,
			       "%lu %s with a NUL byte in their name not set",
			       x->bad_xattr_names,
			       report_noun(x->bad_xattr_names, "xattr",
					   "xattrs"));
	if (x->owner_refused)
		report_failure(x->rep, NULL,
			       "owners not set on %lu %s: %s",
			       x->owner_refused,
			       report_noun(x->owner_refused, "entry", "entries"),
			       strerror(x->owner_err));
}
