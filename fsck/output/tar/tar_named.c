// SPDX-License-Identifier: MIT
#include <string.h>

#include "output/tar/tar_named.h"

void tar_named_add(struct tar_named *n, const char *name, bool all)
{
	if (all || n->kept < TAR_NAMES_SHOWN) {
		if (n->kept++)
			sb_add(&n->names, ", ", 2);
		sb_escape(&n->names, name, strlen(name), ",");
	}
	n->count++;
}

void tar_named_text(const struct tar_named *n, struct strbuf *sb)
{
	if (!n->names.len || n->names.failed)
		return;
	sb_addf(sb, ": %s", n->names.s);
	if (n->count > n->kept)
		sb_addf(sb, " and %llu more",
			(unsigned long long)(n->count - n->kept));
}

void tar_named_fini(struct tar_named *n)
{
	sb_release(&n->names);
	n->count = n->kept = 0;
}

void tar_losses_init(struct tar_losses *l, bool all)
{
	memset(l, 0, sizeof(*l));
	pthread_mutex_init(&l->lock, NULL);
	l->all = all;
}

void tar_losses_fini(struct tar_losses *l)
{
	unsigned int k;

	for (k = 0; k < TAR_LOST_KINDS; k++)
		tar_named_fini(&l->kind[k]);
	pthread_mutex_destroy(&l->lock);
}

void tar_losses_add(struct tar_losses *l, enum tar_lost kind, const char *name)
{
	pthread_mutex_lock(&l->lock);
	tar_named_add(&l->kind[kind], name, l->all);
	pthread_mutex_unlock(&l->lock);
}
