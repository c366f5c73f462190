// SPDX-License-Identifier: MIT
/*
 * The rules of names and of entries in the way (extract.h): which names
 * are created, the hidden names files are written under, and how an entry
 * already in DIR is kept, or replaced without ever being followed. The
 * calls here that act on DIR return 0 or an errno, and report nothing.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "erofs/format.h"
#include "erofs/inode.h"
#include "extract/extract_state.h"
#include "util/inputs.h"
#include "walk/walk.h"

bool name_ok(const char *name, size_t len)
{
	if (!len || len > EROFS_NAME_LEN)
		return false;
	if (len == 1 && name[0] == '.')
		return false;
	if (len == 2 && name[0] == '.' && name[1] == '.')
		return false;
	return !memchr(name, '/', len) && !memchr(name, '\0', len);
}

bool plain_file_name(const char *name)
{
	const unsigned char *p = (const unsigned char *)name;

	if (!name_ok(name, strlen(name)))
		return false;
	for (; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return false;
	return true;
}

/*
 * The name to create for entry e, or NULL (reported) when it must not be
 * created. The start of the walk is DIR itself, or start_name.
 */
const char *x_entry_name(struct extractor *x, const struct walk_entry *e,
			 const struct fsck_loc *loc)
{
	if (!e->depth) {
		x->start_pathlen = e->pathlen;
		return x->start_name ? x->start_name : "";
	}
	if (name_ok(e->name, e->namelen))
		return e->name;
	report_problem(x->rep, loc, "unsafe name, not extracted");
	return NULL;
}

/* Entries in the way are replaced: --overwrite, or --keep-existing. */
bool x_replaces(const struct extractor *x)
{
	return x->o.overwrite || x->o.keep_existing;
}

/* Is there an entry of this name (never followed)? */
bool x_exists(int dfd, const char *name)
{
	struct stat st;

	return !fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW);
}

/* --overwrite: take an entry out of the way, never following it. */
int x_remove(int dfd, const char *name)
{
	if (inputs_hold_at(dfd, name))
		return X_ERR_INPUT;
	if (!unlinkat(dfd, name, 0))
		return 0;
	if (errno == EISDIR && !unlinkat(dfd, name, AT_REMOVEDIR))
		return 0;
	return errno;
}

void x_tmp_format(uint64_t id, char *buf)
{
	snprintf(buf, X_TMP_LEN + 1, X_TMP_PREFIX "%016llx",
		 (unsigned long long)id);
}

/* A hidden name no other run or thread of this run uses; its digits. */
uint64_t x_tmp_name(struct extractor *x, char *buf)
{
	uint64_t v = x->tmp_seed + 0x9e3779b97f4a7c15ull *
		     __atomic_add_fetch(&x->tmp_count, 1, __ATOMIC_RELAXED);

	/* splitmix64: neighbouring counts give unrelated names */
	v = (v ^ (v >> 30)) * 0xbf58476d1ce4e5b9ull;
	v = (v ^ (v >> 27)) * 0x94d049bb133111ebull;
	v ^= v >> 31;
	v += !v;	/* 0 means unnamed */
	x_tmp_format(v, buf);
	return v;
}

static bool x_is_tmp_name(const char *name)
{
	size_t plen = sizeof(X_TMP_PREFIX) - 1;

	return strlen(name) == X_TMP_LEN &&
	       !strncmp(name, X_TMP_PREFIX, plen) &&
	       strspn(name + plen, "0123456789abcdef") == X_TMP_LEN - plen;
}

/*
 * Move tmp over name. No call replaces a directory by a file: an empty
 * directory in the way is removed first.
 */
int x_rename_over(int dfd, const char *tmp, const char *name)
{
	if (inputs_hold_at(dfd, name))
		return X_ERR_INPUT;
	if (!renameat(dfd, tmp, dfd, name))
		return 0;
	if (errno != EISDIR || unlinkat(dfd, name, AT_REMOVEDIR) ||
	    renameat(dfd, tmp, dfd, name))
		return errno;
	return 0;
}

/*
 * linkat(sdfd, spath, dfd, name, flags). An entry in the way is replaced
 * when allowed, atomically: the link is made under a hidden name, which is
 * then renamed over it.
 */
int x_link_replacing(struct extractor *x, int sdfd, const char *spath,
		     int flags, int dfd, const char *name)
{
	char tmp[X_TMP_LEN + 1];
	int i, err;

	if (!linkat(sdfd, spath, dfd, name, flags))
		return 0;
	if (errno != EEXIST || !x_replaces(x))
		return errno;
	for (i = 0; i < X_TMP_TRIES; i++) {
		x_tmp_name(x, tmp);
		if (!linkat(sdfd, spath, dfd, tmp, flags))
			break;
		if (errno != EEXIST)
			return errno;
	}
	if (i == X_TMP_TRIES)
		return EEXIST;
	err = x_rename_over(dfd, tmp, name);
	if (err)
		unlinkat(dfd, tmp, 0);
	return err;
}

/* A rerun: remove the hidden names a killed run left in directory fd. */
void x_clean_tmp(int fd)
{
	int dfd = dup(fd);
	struct dirent *de;
	DIR *d;

	if (dfd < 0)
		return;
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return;
	}
	while ((de = readdir(d)))
		if (x_is_tmp_name(de->d_name))
			unlinkat(fd, de->d_name, 0);
	closedir(d);
}

/*
 * --keep-existing: is the entry there, complete? A regular file under its
 * name is complete (this extraction names a file only once it is), unless
 * its size or mtime say otherwise (a salvaged file keeps the time it was
 * written; another version of the file has another mtime, as rsync's
 * quick check takes it); the type must be the image's, and so must a
 * symlink's length and a device's number. A symlink or node is made by
 * name, then given its metadata, times last: with with_mtime (its inode),
 * it is complete only if it has the image's mtime.
 */
bool x_kept(struct extractor *x, const struct xdir *dir, const char *name,
	    uint16_t mode, uint64_t size, uint32_t raw_rdev,
	    const struct erofs_inode *with_mtime)
{
	dev_t rdev =
		makedev(erofs_rdev_major(raw_rdev), erofs_rdev_minor(raw_rdev));
	struct stat st;

	if (!x->o.keep_existing || dir->fresh ||
	    fstatat(dir->fd, name, &st, AT_SYMLINK_NOFOLLOW) ||
	    (st.st_mode & S_IFMT) != (mode & S_IFMT))
		return false;
	if (with_mtime && (st.st_mtim.tv_sec != with_mtime->mtime ||
			   st.st_mtim.tv_nsec != with_mtime->mtime_nsec))
		return false;
	if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))
		return (uint64_t)st.st_size == size;
	if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
		return st.st_rdev == rdev;
	return true;
}
