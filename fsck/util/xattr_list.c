// SPDX-License-Identifier: MIT
/*
 * The xattr list of one inode (xattr_list.h): copies of what the image
 * holds, so that it outlives the library's buffers and the walk.
 */
#include <stdlib.h>
#include <string.h>

#include "util/grow.h"
#include "util/xattr_list.h"

bool xattr_list_add(struct xattr_list *l, const char *name, size_t namelen,
		    const void *value, size_t len)
{
	struct xattr_item *it;

	if (ARRAY_GROW(l->items, l->cap, l->n + 1, 8))
		return false;
	it = &l->items[l->n];
	it->name = malloc(namelen + 1);
	it->value = malloc(len ? len : 1);
	if (!it->name || !it->value) {
		free(it->name);
		free(it->value);
		return false;
	}
	memcpy(it->name, name, namelen);
	it->name[namelen] = '\0';
	it->namelen = namelen;
	memcpy(it->value, value, len);
	it->len = len;
	l->n++;
	return true;
}

bool xattr_list_has(const struct xattr_list *l, const char *name)
{
	size_t i;

	for (i = 0; l && i < l->n; i++)
		if (!strcmp(l->items[i].name, name))
			return true;
	return false;
}

void xattr_list_release(struct xattr_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->items[i].name);
		free(l->items[i].value);
	}
	free(l->items);
	memset(l, 0, sizeof(*l));
}
