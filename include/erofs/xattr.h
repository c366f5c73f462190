/* SPDX-License-Identifier: MIT */
/*
 * Extended attributes: inline and shared entries, short and long name
 * prefixes, the name filter.
 *
 * Thread safety: erofs_xattr_iterate() reads through its ctx, one thread
 * per context, and calls its callback on the calling thread; what it hands
 * the callback is valid only during the call. erofs_xattr_prefix_name()
 * and erofs_xxh32() read constant tables only: any thread may call them.
 */
#ifndef EROFS_XATTR_H
#define EROFS_XATTR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct erofs_ctx;
struct erofs_inode;
struct erofs_image;

/* The longest full name: a long prefix (short prefix + 256) + 255 bytes. */
#define EROFS_XATTR_NAME_MAX 600

struct erofs_xattr {
	const char *name;	/* full name, NUL-terminated */
	size_t namelen;
	const void *value;
	size_t value_len;
	uint8_t base_index;	/* short prefix index (0: hidden) */
	bool shared;
	bool long_prefix;
	int prefix_id;		/* long prefix number, -1 if none */
};

/* Returning non-zero from the callback stops the iteration. */
typedef int (*erofs_xattr_fn)(void *arg, const struct erofs_xattr *xa);

#define EROFS_XATTR_HIDDEN 0x1	/* also report names with no short prefix */

/*
 * Validate and enumerate an inode's xattrs (format.md, "Extended attributes"):
 * region bounds, h_shared_count, entry bounds, name indexes, long prefix
 * numbers, shared entries inside their space, and the name filter when it is
 * active. Inline entries come first, then shared ones. Entries with an unknown
 * or unsupported short index are corruption.
 */
int erofs_xattr_iterate(struct erofs_ctx *ctx, const struct erofs_inode *inode,
			unsigned int flags, erofs_xattr_fn fn, void *arg);

/* The short prefix string of an index ("user.", ...), NULL if none. */
const char *erofs_xattr_prefix_name(unsigned int index);

/* XXH32 as used by the name filter. */
uint32_t erofs_xxh32(const void *data, size_t len, uint32_t seed);

#endif
