/* SPDX-License-Identifier: MIT */
/*
 * The manifest of an image: one line per entry in the format of the fixtures
 * README ("Manifest format"), sorted by raw path bytes with the start of the
 * walk first as ".". Lines are printed as they come, in the order they are
 * added: the walk's, which is that order (walk.h). A line waits only for
 * the lines before it whose fields a task has still to fill in, so what is
 * held is the tasks in flight, plus the first name and fields of each
 * hard-linked inode: the first name met is the smallest, its group leader.
 */
#ifndef FSCK_MANIFEST_H
#define FSCK_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "output/output.h"

struct erofs_inode;
struct manifest;
struct xattr_list;

/* Lines go to out. */
struct manifest *manifest_new(FILE *out);
void manifest_free(struct manifest *m);

/*
 * Add an entry: rel is its raw path relative to the start ("" for the
 * start itself). body holds fields 2 to 10 (type ... nlink), xattrs field
 * 12; linkgroup (field 11) is filled at print time for entries marked
 * linked (non-directories with a link count above 1). Returns 0 or -ENOMEM.
 */
int manifest_add(struct manifest *m, const char *rel, size_t rellen,
		 uint64_t nid, bool linked, const char *body,
		 const char *xattrs);

/*
 * Add the first name of an inode, formatting its fields: digest is the
 * SHA-256 of a regular file's content or a symlink's target (NULL when it
 * could not be read: "-"); xl gives field 12, sorted there by name, and
 * is left in its order.
 */
int manifest_add_inode(struct manifest *m, const char *rel, size_t rellen,
		       const struct erofs_inode *inode, const uint8_t *digest,
		       const struct xattr_list *xl);

/*
 * The first name of a regular file whose digest and xattrs are known only
 * later (its data is read by a task): added like manifest_add_inode()
 * with no digest and no xattrs; *handle is for manifest_complete().
 */
int manifest_add_pending(struct manifest *m, const char *rel, size_t rellen,
			 const struct erofs_inode *inode, size_t *handle);

/* Fill in the fields of a pending entry. 0 or -ENOMEM. */
int manifest_complete(struct manifest *m, size_t handle,
		      const struct erofs_inode *inode, const uint8_t *digest,
		      const struct xattr_list *xl);

/*
 * Another name of an inode already added: the same fields. A one-link
 * inode named twice (a problem of the image) gets those its inode gives,
 * without digest or xattrs.
 */
int manifest_add_name(struct manifest *m, const char *rel, size_t rellen,
		      const struct erofs_inode *inode);

/*
 * After the walk: print what is left and flush. Returns 0, or -errno if
 * writing failed (then or before).
 */
int manifest_print(struct manifest *m);

/* The output (output.h), of a manifest_new(); wants OUT_XATTRS, OUT_DIGEST. */
extern const struct output_ops manifest_output;

#endif
