// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "erofs/inode.h"
#include "interrupt.h"
#include "list.h"
#include "mode_letter.h"
#include "nidmap.h"
#include "strbuf.h"
#include "walk.h"

static char list_type(uint16_t mode, bool further)
{
	return further ? 'h' : mode_letter(mode);
}

/* rwx triplets with the set-id and sticky letters of ls -l. */
static void list_perms(char *out, uint16_t mode)
{
	static const char rwx[] = "rwxrwxrwx";
	unsigned int i;

	for (i = 0; i < 9; i++)
		out[i] = mode & (0400 >> i) ? rwx[i] : '-';
	if (mode & S_ISUID)
		out[2] = mode & 0100 ? 's' : 'S';
	if (mode & S_ISGID)
		out[5] = mode & 0010 ? 's' : 'S';
	if (mode & S_ISVTX)
		out[8] = mode & 0001 ? 't' : 'T';
	out[9] = '\0';
}

static void list_time(struct strbuf *sb, int64_t sec, uint32_t nsec)
{
	time_t t = (time_t)sec;
	char buf[64];
	struct tm tm;

	if (gmtime_r(&t, &tm) &&
	    strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm))
		sb_addf(sb, "%s.%09u", buf, nsec);
	else
		sb_addf(sb, "@%lld.%09u", (long long)sec, nsec);
}

int list_entry(FILE *out, const struct walk_entry *e, const char *target,
	       const char *first)
{
	const struct erofs_inode *inode = e->inode;
	struct strbuf sb = STRBUF_INIT;
	char perms[10];
	int ret = 0;

	list_perms(perms, inode->mode);
	sb_addf(&sb, "%c%s %u/%u ", list_type(inode->mode, first != NULL),
		perms, inode->uid, inode->gid);
	if (S_ISCHR(inode->mode) || S_ISBLK(inode->mode))
		sb_addf(&sb, "%u,%u", erofs_rdev_major(inode->rdev),
			erofs_rdev_minor(inode->rdev));
	else if (S_ISFIFO(inode->mode) || S_ISSOCK(inode->mode))
		sb_addc(&sb, '0');
	else
		sb_addf(&sb, "%llu", (unsigned long long)inode->size);
	sb_addc(&sb, ' ');
	list_time(&sb, inode->mtime, inode->mtime_nsec);
	sb_addc(&sb, ' ');
	if (e->rellen)
		sb_escape(&sb, e->rel, e->rellen, NULL);
	else
		sb_addc(&sb, '.');
	if (first) {
		sb_addf(&sb, " link to ");
		if (*first)
			sb_escape(&sb, first, strlen(first), NULL);
		else
			sb_addc(&sb, '.');
	} else if (target) {
		sb_addf(&sb, " -> ");
		sb_escape(&sb, target, strlen(target), NULL);
	}
	sb_addc(&sb, '\n');
	if (sb.failed)
		ret = -ENOMEM;
	else if (fwrite(sb.s, 1, sb.len, out) != sb.len)
		ret = -errno;
	sb_release(&sb);
	return ret;
}

/* The output (output.h): a line per name, on the walker. */
struct list_out {
	FILE *out;
	struct report *rep;
	struct nidmap first_names; /* nid -> first path of a linked inode */
};

/* A linked inode's first name, for the lines of its further names. */
static enum fsck_result list_keep_first(struct list_out *lo,
					const struct walk_entry *e)
{
	char **p;
	int added;

	if (e->inode->nlink < 2 || S_ISDIR(e->inode->mode))
		return FSCK_OK;
	p = nidmap_get(&lo->first_names, e->nid, &added);
	if (!p)
		return FSCK_NOMEM;
	*p = strndup(e->rel, e->rellen);
	return *p ? FSCK_OK : FSCK_NOMEM;
}

static enum fsck_result list_out_entry(void *priv, const struct out_entry *oe,
				       void **state)
{
	struct list_out *lo = priv;
	const struct walk_entry *e = oe->e;
	const char *first = NULL;
	enum fsck_result r;
	char **p;
	int ret;

	(void)state;
	if (!e->first) {
		p = nidmap_find(&lo->first_names, e->nid);
		first = p ? *p : NULL;
	} else if ((r = list_keep_first(lo, e)) != FSCK_OK) {
		return r;
	}
	ret = list_entry(lo->out, e, oe->target, first);
	if (ret < 0 && ret != -ENOMEM && !lo->rep->fatal && !interrupted())
		report_fatal(lo->rep, "cannot write the listing: %s",
			     strerror(-ret));
	return fsck_result_of(ret);
}

static void list_out_close(void *priv)
{
	struct list_out *lo = priv;
	size_t i;

	nidmap_for_each(&lo->first_names, i)
		free(*(char **)nidmap_val(&lo->first_names, i));
	nidmap_fini(&lo->first_names);
	free(lo);
}

static const struct output_ops list_output = {
	.entry = list_out_entry,
	.close = list_out_close,
};

int list_add_output(struct outputs *l, FILE *out, struct report *rep)
{
	struct list_out *lo = calloc(1, sizeof(*lo));

	if (!lo)
		return -ENOMEM;
	lo->out = out;
	lo->rep = rep;
	nidmap_init(&lo->first_names, sizeof(char *));
	outputs_add(l, &list_output, lo, 0);
	return 0;
}
