/* SPDX-License-Identifier: MIT */
/*
 * What the archive's format could not hold, counted by kind with the
 * names of the entries it concerns: the first TAR_NAMES_SHOWN, or every
 * one when the message level shows information (-d3), so that a report
 * of a kind says which entries it is about.
 */
#ifndef FSCK_TAR_NAMED_H
#define FSCK_TAR_NAMED_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "output/tar/tarentry.h"
#include "util/strbuf.h"

#define TAR_NAMES_SHOWN 3

/* A count of entries, and their names as the report shows them. */
struct tar_named {
	uint64_t count;
	uint64_t kept; /* names in names */
	struct strbuf names; /* escaped, ", " between them */
};

/* Count name (not NULL) in n; every name with all, else the first few. */
void tar_named_add(struct tar_named *n, const char *name, bool all);

/* ": a, b, c and 5 more" into sb, for the end of a report line. */
void tar_named_text(const struct tar_named *n, struct strbuf *sb);

void tar_named_fini(struct tar_named *n);

/* Every kind of tarentry.h's enum tar_lost, from any thread. */
struct tar_losses {
	pthread_mutex_t lock;
	bool all;
	struct tar_named kind[TAR_LOST_KINDS];
};

void tar_losses_init(struct tar_losses *l, bool all);
void tar_losses_fini(struct tar_losses *l);

/* Entry name lost something of this kind. */
void tar_losses_add(struct tar_losses *l, enum tar_lost kind, const char *name);

#endif
