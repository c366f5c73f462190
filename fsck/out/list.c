// SPDX-License-Identifier: MIT
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "erofs/inode.h"
#include "list.h"
#include "strbuf.h"
#include "walk.h"

static char list_type(uint16_t mode, bool further)
{
	if (further)
		return 'h';
	switch (mode & S_IFMT) {
	case S_IFDIR:
		return 'd';
	case S_IFLNK:
		return 'l';
	case S_IFCHR:
		return 'c';
	case S_IFBLK:
		return 'b';
	case S_IFIFO:
		return 'p';
	case S_IFSOCK:
		return 's';
	default:
		return '-';
	}
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
