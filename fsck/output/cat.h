/* SPDX-License-Identifier: MIT */
/*
 * --cat=PATH: the bytes of regular files on standard output, one after
 * the other in walk order (as tar -xO), each written only once all of it
 * was read and verified, so that no wrong byte reaches the reader. A
 * file waits for its turn in memory when it is at most CAT_MEM_FILE
 * bytes, else in an unnamed spool file in $TMPDIR; at most
 * CAT_WINDOW_BYTES wait in memory (the scheduler holds the files that
 * would take more until earlier ones are written). A named PATH that is
 * a directory or not a regular file is an operational error naming it;
 * one that is not in the image the selection reports (select.h).
 */
#ifndef FSCK_CAT_H
#define FSCK_CAT_H

#include <stdio.h>

#include "output/output.h"
#include "util/report.h"

#define CAT_MEM_FILE (4u << 20)
#define CAT_WINDOW_BYTES (16u << 20)

struct cat_opts {
	const char *const *paths; /* as given, for messages */
	const char *const *rels; /* normalized: relative to the start */
	unsigned int n;
	FILE *out;
};

/* Add the output to l. 0, or a negative errno after reporting. */
int cat_add_output(struct outputs *l, const struct cat_opts *o,
		   struct report *rep);

#endif
