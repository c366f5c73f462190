/* SPDX-License-Identifier: MIT */
/*
 * The raw xattrs of one inode, as listxattr shows them (check.c decides
 * which: xattr_listed()), in the order the image stores them. One list
 * serves every output: extraction sets them (extract.h), an archive
 * carries them (tar.h), the manifest prints them (manifest.h), sorted on
 * its own index.
 */
#ifndef FSCK_XATTR_LIST_H
#define FSCK_XATTR_LIST_H

#include <stdbool.h>
#include <stddef.h>

struct xattr_item {
	char *name;		/* full name; NUL after its namelen bytes */
	size_t namelen;	/* a name may hold a NUL: strlen() differs */
	void *value;
	size_t len;
};

struct xattr_list {
	struct xattr_item *items;
	size_t n, cap;
};

/* Add a copy of one xattr; false when out of memory (l unchanged). */
bool xattr_list_add(struct xattr_list *l, const char *name, size_t namelen,
		    const void *value, size_t len);
/* Is there an xattr of this (NUL-terminated) name? l may be NULL. */
bool xattr_list_has(const struct xattr_list *l, const char *name);
/* Free the items; l is then empty. */
void xattr_list_release(struct xattr_list *l);

#endif
