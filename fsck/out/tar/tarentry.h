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

/* Kinds of what a format cannot hold, counted per entry. */
enum tar_lost {
	TAR_LOST_XATTRS,
	TAR_LOST_ACLS,
	TAR_LOST_NSEC,
	TAR_LOST_SPARSE,
	TAR_LOST_LINKS,
	TAR_LOST_SOCKETS,
	TAR_LOST_KINDS
};

/* What the writer's format holds. */
struct tar_caps {
	bool xattrs, acls, nsec, sparse, links;
};

void tarentry_caps(struct archive *a, struct tar_caps *caps);

/* Count one entry that lost something of this kind (atomic). */
void tarentry_lose(uint64_t *lost, enum tar_lost kind);

/* "xattrs are left out", for the report. */
const char *tarentry_lost_text(enum tar_lost kind);

/*
 * A new entry named name for inode (target: a symlink's), with the xattrs
 * and ACLs of xl; lost[kind] counts what caps cannot hold. NULL when
 * memory runs out.
 */
struct archive_entry *tarentry_new(const struct tar_caps *caps,
				   const char *name,
				   const struct erofs_inode *inode,
				   const char *target,
				   const struct xattr_list *xl, uint64_t *lost);

#endif
