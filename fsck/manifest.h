/* SPDX-License-Identifier: MIT */
/*
 * The manifest of an image: one line per entry in the format of the fixtures
 * README ("Manifest format"), sorted by raw path bytes with the start of the
 * walk first as ".". Lines are collected during the walk and printed at the
 * end, when the hard-link groups are known.
 */
#ifndef FSCK_MANIFEST_H
#define FSCK_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct manifest;

struct manifest *manifest_new(void);
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

/* Another name of nid, already added: same fields. */
int manifest_add_name(struct manifest *m, const char *rel, size_t rellen,
		      uint64_t nid);

/* Print every line, sorted. Returns 0, or -errno if writing failed. */
int manifest_print(struct manifest *m, FILE *out);

#endif
