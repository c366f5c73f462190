// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "erofs/dir.h"
#include "erofs/format.h"
#include "erofs/image.h"
#include "erofs/inode.h"
#include "util/grow.h"
#include "walk/nid_named.h"
#include "walk/nidset.h"

/* Directories still to read, each once (a loop in a damaged tree). */
struct nid_search {
	uint64_t want;
	uint64_t *queue;
	size_t n, cap;
	struct nidset seen;
	int err;
};

static int search_entry(void *arg, const struct erofs_dirent *de)
{
	struct nid_search *s = arg;
	int added;

	if (de->nid == s->want)
		return 1;
	if (de->file_type != EROFS_FT_DIR)
		return 0;
	added = nidset_add(&s->seen, de->nid);
	if (added > 0 && ARRAY_GROW(s->queue, s->cap, s->n + 1, 64))
		added = -ENOMEM;
	if (added < 0) {
		s->err = -ENOMEM;
		return -ENOMEM;
	}
	if (added)
		s->queue[s->n++] = de->nid;
	return 0;
}

int nid_named_in_tree(struct erofs_ctx *ctx, uint64_t nid)
{
	struct nid_search s = { .want = nid };
	struct erofs_inode dir;
	int ret = 0;

	nidset_init(&s.seen);
	if (nidset_add(&s.seen, erofs_ctx_image(ctx)->root_nid) < 0 ||
	    ARRAY_GROW(s.queue, s.cap, 1, 64)) {
		ret = -ENOMEM;
		goto out;
	}
	s.queue[s.n++] = erofs_ctx_image(ctx)->root_nid;
	while (s.n && ret != 1) {
		ret = erofs_read_inode(ctx, s.queue[--s.n], &dir);
		if (!ret && S_ISDIR(dir.mode))
			ret = erofs_dir_iterate(ctx, &dir, EROFS_NO_NID,
						search_entry, &s);
		if (s.err) {
			ret = s.err;
			break;
		}
		/* a directory that fails is the walk's to report */
		if (ret < 0)
			erofs_err_drop(erofs_ctx_err(ctx));
	}
out:
	free(s.queue);
	nidset_fini(&s.seen);
	return ret == 1 ? 1 : ret == -ENOMEM ? ret : 0;
}
