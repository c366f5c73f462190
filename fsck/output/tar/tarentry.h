/* SPDX-License-Identifier: MIT */
/*
 * Archive entries of --tar from inodes: type, full mode, numeric owners,
 * mtime with nanoseconds, device numbers, symlink targets, xattrs, and
 * POSIX ACLs decoded from system.posix_acl_access and _default. What the
 * chosen format cannot hold is counted by kind, never silently dropped.
 *
 * Thread safety: tarentry_new() may run on any thread at once; the
 * counters it bumps are atomic.
 */
#ifndef FSCK_TARENTRY_H
#define FSCK_TARENTRY_H

#include <stdbool.h>
#include <stdint.h>

struct archive;
struct archive_entry;
struct erofs_inode;
struct xattr_list;
struct tar_losses;

/* Kinds of what a format cannot hold, counted per entry. */
enum tar_lost {
	TAR_LOST_XATTRS,
	TAR_LOST_ACLS,
	TAR_LOST_NSEC,
	TAR_LOST_SPARSE,
	TAR_LOST_SOCKETS,
	TAR_LOST_XATTR_NAMES, /* pax: names SCHILY.xattr holds encoded */
	TAR_LOST_DATELESS, /* mtimes that have no calendar date */
	TAR_LOST_TIME_RANGE, /* mtimes outside what the fields hold */
	TAR_LOST_KINDS
};

/* How a format holds the later names of a hard-linked file. */
enum tar_links {
	TAR_LINKS_COPY,		/* each name holds the data, as bsdtar stores
				   them: zip, 7zip, mtree, and xar and
				   iso9660, whose links bsdtar unpacks empty */
	TAR_LINKS_ENTRY,	/* tar, shar: hardlink entries naming the
				   first */
	TAR_LINKS_INODE,	/* cpio: entries of the first's inode number,
				   with no data (the first carries it) */
};

/* What the writer's format holds. */
struct tar_caps {
	bool xattrs, acls, nsec, sparse;
	/* pax: xattrs also in SCHILY.xattr records, names URL-encoded */
	bool schily;
	enum tar_links links;
	/* inode numbers and link counts: cpio's links, mtree's nlink */
	bool inodes;
	/* the writer turns times into calendar dates (zip, iso9660, xar) */
	bool dates;
	/* the mtimes its fields hold; others are set to the nearest */
	int64_t time_min, time_max;
};

void tarentry_caps(struct archive *a, struct tar_caps *caps);

/* "xattrs are left out", for the report. */
const char *tarentry_lost_text(enum tar_lost kind);

/*
 * A new entry named name for inode (target: a symlink's), with the xattrs
 * and ACLs of xl; lost counts what caps cannot hold, with name. Every entry
 * has a size (cpio requires one): a regular file's, a symlink target's
 * length where the format stores targets as data, else 0. NULL when
 * memory runs out.
 */
struct archive_entry *tarentry_new(const struct tar_caps *caps,
				   const char *name,
				   const struct erofs_inode *inode,
				   const char *target,
				   const struct xattr_list *xl,
				   struct tar_losses *lost);

#endif
