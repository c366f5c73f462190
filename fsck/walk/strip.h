/* SPDX-License-Identifier: MIT */
/*
 * --strip-components=N: the walk as its outputs see it with the first N
 * components of every path below the start left out, as GNU tar and
 * bsdtar strip them. Entries of N or fewer components (the start
 * included) are left out, and with them their checks, as an --exclude
 * leaves an entry out; the others are handed on with their shortened
 * path, their depth less N, and as children of the start when their
 * parent was left out. Messages still name the path in the image.
 *
 * A hard-linked file whose first name was left out is handed on at its
 * next name as a file of its own, with its data (tar makes such a link a
 * copy), and said so once a name.
 */
#ifndef FSCK_STRIP_H
#define FSCK_STRIP_H

#include "walk/nidset.h"
#include "walk/walk.h"

struct report;

struct stripper {
	unsigned int n;
	struct walk_visitor inner;
	struct report *rep;
	struct nidset handed; /* non-directories handed on */
	struct nidset left; /* hard-linked ones left out at a name */
};

/* Make v, the visitor to give walk_tree(), stripping what goes to inner. */
void strip_start(struct stripper *s, unsigned int n, struct report *rep,
		 const struct walk_visitor *inner, struct walk_visitor *v);
void strip_fini(struct stripper *s);

#endif
