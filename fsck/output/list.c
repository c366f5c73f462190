// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "erofs/inode.h"
#include "output/list.h"
#include "util/interrupt.h"
#include "util/mode_letter.h"
#include "util/nidmap.h"
#include "util/strbuf.h"
#include "walk/walk.h"

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
	    strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm)) {
		sb_adds(sb, buf);
	} else {
		sb_addc(sb, '@');
		sb_add_int(sb, sec);
	}
	sb_addc(sb, '.');
	sb_add_num(sb, nsec, 10, 9);
}

/* The output (output.h): a line per name, on the walker. */
struct list_out {
	FILE *out;
	struct report *rep;
	struct nidmap first_names; /* nid -> first path of a linked inode */
	struct strbuf line; /* the line being built, kept for the next */
};

/*
 * Print the line of e. target is a symlink's target (NUL-terminated),
 * first the path of the first name of a hard-linked inode when e is not
 * it. Returns 0 or -errno if writing failed.
 */
static int list_entry(struct list_out *lo, const struct walk_entry *e,
		      const char *target, const char *first)
{
	const struct erofs_inode *inode = e->inode;
	struct strbuf *sb = &lo->line;
	char perms[10];

	sb_reset(sb);
	list_perms(perms, inode->mode);
	sb_addc(sb, list_type(inode->mode, first != NULL));
	sb_adds(sb, perms);
	sb_addc(sb, ' ');
	sb_add_num(sb, inode->uid, 10, 0);
	sb_addc(sb, '/');
	sb_add_num(sb, inode->gid, 10, 0);
	sb_addc(sb, ' ');
	if (S_ISCHR(inode->mode) || S_ISBLK(inode->mode)) {
		sb_add_num(sb, erofs_rdev_major(inode->rdev), 10, 0);
		sb_addc(sb, ',');
		sb_add_num(sb, erofs_rdev_minor(inode->rdev), 10, 0);
	} else if (S_ISFIFO(inode->mode) || S_ISSOCK(inode->mode) ||
		   S_ISDIR(inode->mode)) {
		sb_addc(sb, '0');
	} else {
		sb_add_num(sb, inode->size, 10, 0);
	}
	sb_addc(sb, ' ');
	list_time(sb, inode->mtime, inode->mtime_nsec);
	sb_addc(sb, ' ');
	if (e->rellen)
		sb_quote(sb, e->rel, e->rellen);
	else
		sb_addc(sb, '.');
	if (first) {
		sb_adds(sb, " link to ");
		if (*first)
			sb_quote(sb, first, strlen(first));
		else
			sb_addc(sb, '.');
	} else if (target) {
		sb_adds(sb, " -> ");
		sb_quote(sb, target, strlen(target));
	}
	sb_addc(sb, '\n');
	if (sb->failed)
		return -ENOMEM;
	if (fwrite(sb->s, 1, sb->len, lo->out) != sb->len)
		return -errno;
	return 0;
}

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
	ret = list_entry(lo, e, oe->target, first);
	if (ret < 0 && ret != -ENOMEM && !lo->rep->fatal && !interrupted())
		report_fatal(lo->rep, "cannot write the listing to standard output: %s",
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
	sb_release(&lo->line);
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
	lo->line = (struct strbuf)STRBUF_INIT;
	outputs_add(l, &list_output, lo, 0);
	return 0;
}
