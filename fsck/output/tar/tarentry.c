// SPDX-License-Identifier: MIT
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <string.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

#include "erofs/inode.h"
#include "output/tar/tar_named.h"
#include "output/tar/tarentry.h"
#include "util/xattr_list.h"

/* The POSIX ACL xattr value: a version 2 header, then 8-byte entries. */
#define ACL_XATTR_VERSION 2
#define ACL_HEADER_SIZE 4
#define ACL_ENTRY_SIZE 8

#define ACL_ACCESS_NAME "system.posix_acl_access"
#define ACL_DEFAULT_NAME "system.posix_acl_default"

static const char *const lost_text[TAR_LOST_KINDS] = {
	[TAR_LOST_XATTRS] = "extended attributes are left out",
	[TAR_LOST_ACLS] = "ACLs are left out",
	[TAR_LOST_NSEC] = "mtimes lose their nanoseconds",
	[TAR_LOST_SPARSE] = "holes are stored as zeros",
	[TAR_LOST_SOCKETS] = "sockets are left out",
	[TAR_LOST_XATTR_NAMES] =
		"xattr names with '=', '%' or bytes outside printable ASCII are URL-encoded in SCHILY.xattr records (GNU tar and bsdtar restore them under the encoded names; --options=xattrheader=ALL adds records bsdtar restores exactly)",
	[TAR_LOST_DATELESS] =
		"mtimes too far from 1970 for a calendar date are set to the nearest 32-bit time",
	[TAR_LOST_TIME_RANGE] =
		"mtimes outside the range its time fields hold are set to the nearest end of it",
};

const char *tarentry_lost_text(enum tar_lost kind)
{
	return lost_text[kind];
}

/* 1980-01-01, the first time of a DOS date (zip) */
#define TAR_DOS_EPOCH 315532800LL
/* iso9660's dates count years from 1900 in a byte: 1900 to 2155 */
#define TAR_ISO_FIRST (-2208988800LL)
#define TAR_ISO_LAST 5869583999LL

/*
 * The mtimes a format's fields hold, as libarchive writes them: outside,
 * a writer wraps or clamps without a word (measured with bsdtar -tv).
 */
static void tarentry_time_range(int fmt, struct tar_caps *caps)
{
	caps->time_min = INT64_MIN;
	caps->time_max = INT64_MAX;
	switch (fmt) {
	case ARCHIVE_FORMAT_CPIO_POSIX: /* 11 octal digits */
		caps->time_min = 0;
		caps->time_max = 077777777777LL;
		break;
	case ARCHIVE_FORMAT_CPIO_SVR4_NOCRC: /* 8 hex digits */
	case ARCHIVE_FORMAT_CPIO_SVR4_CRC:
	case ARCHIVE_FORMAT_CPIO_BIN_LE: /* two 16-bit words */
	case ARCHIVE_FORMAT_CPIO_BIN_BE:
		caps->time_min = 0;
		caps->time_max = UINT32_MAX;
		break;
	case ARCHIVE_FORMAT_TAR_GNUTAR: /* negative times become 0 */
	case ARCHIVE_FORMAT_7ZIP:
		caps->time_min = 0;
		break;
	case ARCHIVE_FORMAT_ZIP: /* a DOS date, and a 32-bit Unix time */
		caps->time_min = TAR_DOS_EPOCH;
		caps->time_max = INT32_MAX;
		break;
	case ARCHIVE_FORMAT_ISO9660:
	case ARCHIVE_FORMAT_ISO9660_ROCKRIDGE:
		caps->time_min = TAR_ISO_FIRST;
		caps->time_max = TAR_ISO_LAST;
		break;
	}
}

void tarentry_caps(struct archive *a, struct tar_caps *caps)
{
	int fmt = archive_format(a);

	memset(caps, 0, sizeof(*caps));
	tarentry_time_range(fmt, caps);
	if (fmt == ARCHIVE_FORMAT_TAR_PAX_INTERCHANGE ||
	    fmt == ARCHIVE_FORMAT_TAR_PAX_RESTRICTED) {
		caps->xattrs = caps->acls = caps->nsec = caps->sparse = true;
		caps->schily = true;
	} else if ((fmt & ARCHIVE_FORMAT_BASE_MASK) == ARCHIVE_FORMAT_XAR) {
		caps->xattrs = caps->nsec = true;
	}
	switch (fmt & ARCHIVE_FORMAT_BASE_MASK) {
	case ARCHIVE_FORMAT_TAR:
	case ARCHIVE_FORMAT_SHAR:
		caps->links = TAR_LINKS_ENTRY;
		break;
	case ARCHIVE_FORMAT_CPIO:
		caps->links = TAR_LINKS_INODE;
		caps->inodes = true;
		break;
	case ARCHIVE_FORMAT_MTREE:
		/* time=SECONDS.NANOSECONDS, and nlink of each name */
		caps->inodes = caps->nsec = true;
		break;
	default:
		/* the tar, cpio and mtree writers store seconds as numbers */
		caps->dates = true;
		break;
	}
}


static uint32_t get_le(const uint8_t *p, unsigned int bytes)
{
	uint32_t v = 0;

	while (bytes--)
		v = v << 8 | p[bytes];
	return v;
}

static int acl_tag(unsigned int tag)
{
	switch (tag) {
	case 0x01:
		return ARCHIVE_ENTRY_ACL_USER_OBJ;
	case 0x02:
		return ARCHIVE_ENTRY_ACL_USER;
	case 0x04:
		return ARCHIVE_ENTRY_ACL_GROUP_OBJ;
	case 0x08:
		return ARCHIVE_ENTRY_ACL_GROUP;
	case 0x10:
		return ARCHIVE_ENTRY_ACL_MASK;
	case 0x20:
		return ARCHIVE_ENTRY_ACL_OTHER;
	default:
		return -1;
	}
}

static bool acl_valid(const uint8_t *v, size_t len)
{
	size_t off;

	if (len < ACL_HEADER_SIZE || (len - ACL_HEADER_SIZE) % ACL_ENTRY_SIZE ||
	    get_le(v, 4) != ACL_XATTR_VERSION)
		return false;
	for (off = ACL_HEADER_SIZE; off < len; off += ACL_ENTRY_SIZE)
		if (acl_tag(get_le(v + off, 2)) < 0 ||
		    get_le(v + off + 2, 2) > 7)
			return false;
	return true;
}

/* The ACL entries of a valid value; 0 or -ENOMEM. */
static int acl_add(struct archive_entry *ae, int type, const uint8_t *v,
		   size_t len)
{
	const uint8_t *p;
	int tag, id;
	size_t off;

	for (off = ACL_HEADER_SIZE; off < len; off += ACL_ENTRY_SIZE) {
		p = v + off;
		tag = acl_tag(get_le(p, 2));
		id = tag == ARCHIVE_ENTRY_ACL_USER ||
				     tag == ARCHIVE_ENTRY_ACL_GROUP
			     ? (int)get_le(p + 4, 4)
			     : -1;
		if (archive_entry_acl_add_entry(ae, type, (int)get_le(p + 2, 2),
						tag, id, NULL) != ARCHIVE_OK)
			return -ENOMEM;
	}
	return 0;
}

/*
 * An ACL xattr becomes ACL entries; 1 when it is not one (kept as is).
 * libarchive takes the group bits of the mode from the group entry, not
 * from the mask: the header's mode then has the group entry's bits, and
 * extraction, setting the ACL, gives the inode's mode back.
 */
static int add_acl(const struct tar_caps *caps, struct archive_entry *ae,
		   const struct xattr_item *it, struct tar_losses *lost,
		   const char *name)
{
	int type;

	if (!strcmp(it->name, ACL_ACCESS_NAME))
		type = ARCHIVE_ENTRY_ACL_TYPE_ACCESS;
	else if (!strcmp(it->name, ACL_DEFAULT_NAME))
		type = ARCHIVE_ENTRY_ACL_TYPE_DEFAULT;
	else
		return 1;
	if (!acl_valid(it->value, it->len))
		return 1;
	if (!caps->acls) {
		tar_losses_add(lost, TAR_LOST_ACLS, name);
		return 0;
	}
	return acl_add(ae, type, it->value, it->len);
}

/*
 * Does libarchive URL-encode this name in its pax records? SCHILY.xattr
 * records, which it writes the same way, then hold another name.
 */
static bool xattr_name_encoded(const struct xattr_item *it)
{
	size_t i;

	for (i = 0; i < it->namelen; i++) {
		unsigned char c = (unsigned char)it->name[i];

		if (c < 33 || c > 126 || c == '%' || c == '=')
			return true;
	}
	return false;
}

static int add_xattrs(const struct tar_caps *caps, struct archive_entry *ae,
		      const struct xattr_list *xl, struct tar_losses *lost,
		      const char *name)
{
	bool dropped = false, encoded = false;
	size_t i;
	int ret;

	for (i = 0; xl && i < xl->n; i++) {
		ret = add_acl(caps, ae, &xl->items[i], lost, name);
		if (ret <= 0) {
			if (ret < 0)
				return ret;
			continue;
		}
		if (!caps->xattrs) {
			dropped = true;
			continue;
		}
		archive_entry_xattr_add_entry(ae, xl->items[i].name,
					      xl->items[i].value,
					      xl->items[i].len);
		encoded = encoded || (caps->schily &&
				      xattr_name_encoded(&xl->items[i]));
	}
	if (dropped)
		tar_losses_add(lost, TAR_LOST_XATTRS, name);
	if (encoded)
		tar_losses_add(lost, TAR_LOST_XATTR_NAMES, name);
	return 0;
}

/*
 * A time whose year overflows an int has no calendar date. The writers
 * that turn times into dates take the conversion's failure for a date
 * and crash (libarchive's zip writer reads the year through the NULL it
 * got), so they get the nearest 32-bit time instead. Within a billion
 * years of 1970 every time has a date: only those beyond are converted
 * to find out.
 */
#define TAR_DATED_SECONDS (1LL << 55)

static int64_t tarentry_mtime(const struct tar_caps *caps, int64_t mtime,
			      struct tar_losses *lost, const char *name)
{
	time_t t = (time_t)mtime;
	struct tm tm;

	if (mtime < caps->time_min || mtime > caps->time_max) {
		tar_losses_add(lost, TAR_LOST_TIME_RANGE, name);
		mtime = mtime < caps->time_min ? caps->time_min :
						 caps->time_max;
	}
	t = (time_t)mtime;
	if (!caps->dates ||
	    (mtime > -TAR_DATED_SECONDS && mtime < TAR_DATED_SECONDS) ||
	    (t == mtime && localtime_r(&t, &tm) && gmtime_r(&t, &tm)))
		return mtime;
	tar_losses_add(lost, TAR_LOST_DATELESS, name);
	return mtime < 0 ? INT32_MIN : INT32_MAX;
}

struct archive_entry *tarentry_new(const struct tar_caps *caps,
				   const char *name,
				   const struct erofs_inode *inode,
				   const char *target,
				   const struct xattr_list *xl,
				   struct tar_losses *lost)
{
	struct archive_entry *ae = archive_entry_new();

	if (!ae)
		return NULL;
	archive_entry_copy_pathname(ae, name);
	archive_entry_set_mode(ae, inode->mode);
	archive_entry_set_uid(ae, inode->uid);
	archive_entry_set_gid(ae, inode->gid);
	archive_entry_set_mtime(ae, tarentry_mtime(caps, inode->mtime, lost, name),
				inode->mtime_nsec);
	if (inode->mtime_nsec && !caps->nsec)
		tar_losses_add(lost, TAR_LOST_NSEC, name);
	if (S_ISREG(inode->mode))
		archive_entry_set_size(ae, (la_int64_t)inode->size);
	else if (target && caps->links == TAR_LINKS_INODE)
		archive_entry_set_size(ae, (la_int64_t)strlen(target));
	else
		archive_entry_set_size(ae, 0);
	if (caps->inodes)
		archive_entry_set_nlink(ae, inode->nlink);
	if (S_ISCHR(inode->mode) || S_ISBLK(inode->mode)) {
		archive_entry_set_rdevmajor(ae, erofs_rdev_major(inode->rdev));
		archive_entry_set_rdevminor(ae, erofs_rdev_minor(inode->rdev));
	}
	if (target)
		archive_entry_copy_symlink(ae, target);
	if (add_xattrs(caps, ae, xl, lost, name)) {
		archive_entry_free(ae);
		return NULL;
	}
	return ae;
}
