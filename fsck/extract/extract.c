// SPDX-License-Identifier: MIT
/*
 * The extractor (extract.h): DIR opened or created as the root of the
 * run, or the parent of the file DIR names; how complete files get their
 * names on this system; what every part shares, and its release. The
 * parts are listed in extract_state.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/magic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "extract/extract_state.h"
#include "util/knobs.h"

static enum fsck_result x_open_nomem(struct report *rep, const char *dir)
{
	report_fatal(rep, "--extract=%s: out of memory while preparing it",
		     dir);
	return FSCK_STOP;
}

static enum fsck_result x_open_failed(struct report *rep, const char *dir,
				      int err)
{
	report_fatal(rep, "--extract=%s: %s", dir, strerror(err));
	return FSCK_STOP;
}

/* Whether directory fd holds no entries; 0 or an errno. */
static int x_dir_empty(int fd, bool *empty)
{
	int dfd = dup(fd);
	struct dirent *de;
	DIR *d;

	if (dfd < 0)
		return errno;
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return errno;
	}
	*empty = true;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			*empty = false;
	closedir(d);
	return 0;
}

/* DIR, or the parent of the file DIR names, as the root of the run. */
static void x_root_set(struct extractor *x, int fd, const struct stat *st,
		       bool fresh)
{
	x->root->fd = fd;
	x->root->dev = st->st_dev;
	x->root->ino = st->st_ino;
	x->root->fresh = fresh;
	x->root->new_gid = st->st_mode & S_ISGID ? st->st_gid : x->egid;
}

/*
 * DIR was there: it must be empty, unless --overwrite or --keep-existing
 * say what to do with the entries in it, or --force.
 */
static enum fsck_result x_accept_dir(struct extractor *x, int fd, bool *empty)
{
	int err;

	if (x->o.force || x_replaces(x))
		return FSCK_OK;
	err = x_dir_empty(fd, empty);
	if (err)
		return x_open_failed(x->rep, x->o.dir, err);
	if (*empty)
		return FSCK_OK;
	report_fatal(x->rep, "--extract=%s: directory exists and is not empty (--overwrite replaces what is in the way, --keep-existing keeps it)",
		     x->o.dir);
	return FSCK_STOP;
}

/* DIR as the start directory: create it, or accept it if allowed. */
static enum fsck_result x_open_dir(struct extractor *x)
{
	const char *dir = x->o.dir;
	bool created = false, empty = false;
	struct stat st;
	int fd;

	if (!mkdir(dir, 0700))
		created = true;
	else if (errno != EEXIST)
		return x_open_failed(x->rep, dir, errno);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return x_open_failed(x->rep, dir, errno);
	if (!created && x_accept_dir(x, fd, &empty) != FSCK_OK) {
		close(fd);
		return FSCK_STOP;
	}
	if (fstat(fd, &st)) {
		int err = errno;

		close(fd);
		return x_open_failed(x->rep, dir, err);
	}
	x_root_set(x, fd, &st, created || empty);
	x->root->fixup = true;
	x->root_made = created;
	if (!created && x_replaces(x))
		x_clean_tmp(fd);
	return FSCK_OK;
}

/* DIR as the file to create: open its parent. */
static enum fsck_result x_open_parent(struct extractor *x)
{
	const char *dir = x->o.dir, *slash;
	char *parent;
	size_t len = strlen(dir);
	struct stat st;
	int fd, err;

	while (len > 1 && dir[len - 1] == '/')
		len--;
	slash = memrchr(dir, '/', len);
	x->start_name = strndup(slash ? slash + 1 : dir,
				len - (slash ? (size_t)(slash + 1 - dir) : 0));
	parent = slash ? strndup(dir, slash == dir ? 1 : slash - dir) :
			 strdup(".");
	if (!x->start_name || !parent) {
		free(parent);
		return x_open_nomem(x->rep, dir);
	}
	if (!name_ok(x->start_name, strlen(x->start_name))) {
		report_fatal(x->rep, "--extract=%s: not a file name", dir);
		free(parent);
		return FSCK_STOP;
	}
	fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	err = errno;
	free(parent);
	if (fd >= 0 && fstat(fd, &st)) {
		err = errno;
		close(fd);
		fd = -1;
	}
	if (fd < 0)
		return x_open_failed(x->rep, dir, err);
	x_root_set(x, fd, &st, false);
	return FSCK_OK;
}

static bool has_dac_read_search(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data))
		return false;
	return data[CAP_TO_INDEX(CAP_DAC_READ_SEARCH)].effective &
	       CAP_TO_MASK(CAP_DAC_READ_SEARCH);
}

/*
 * How an unnamed file gets its name: linkat(AT_EMPTY_PATH) with
 * CAP_DAC_READ_SEARCH, else through its /proc/self/fd link (a real /proc
 * only); without either, files are written under hidden names, as they
 * are with EROFS_FSCK_TMPFILE=0.
 */
static void x_how_to_link(struct extractor *x)
{
	struct statfs sfs;
	uint64_t tmpfile;

	x->have_proc = !statfs("/proc/self/fd", &sfs) &&
		       sfs.f_type == PROC_SUPER_MAGIC;
	x->no_empty_path = !has_dac_read_search();
	x->no_tmpfile =
		(knob_value("EROFS_FSCK_TMPFILE", &tmpfile) && !tmpfile) ||
		(x->no_empty_path && !x->have_proc);
}

/* The extractor with its root, before DIR is opened. */
static struct extractor *x_new(const struct extract_opts *o, struct report *rep)
{
	struct extractor *x = calloc(1, sizeof(*x));

	if (!x)
		return NULL;
	x->o = *o;
	x->rep = rep;
	nidmap_init(&x->primaries, sizeof(struct xprimary));
	/* raises RLIMIT_NOFILE, which sizes the table of files */
	x->budget = x_fd_budget(o->threads);
	x->root = xdir_new(x, NULL, "", 0, "", 0);
	if (!x_files_init(x) || !x->root) {
		extract_close(x);
		return NULL;
	}
	x->root->refs = 2;	/* the walk never closes it */
	x->euid = geteuid();
	x->egid = getegid();
	return x;
}

enum fsck_result extract_open(struct extractor **out,
			      const struct extract_opts *o, struct report *rep,
			      bool start_is_dir)
{
	struct extractor *x = x_new(o, rep);
	enum fsck_result res;

	*out = NULL;
	if (!x)
		return x_open_nomem(rep, o->dir);
	res = start_is_dir ? x_open_dir(x) : x_open_parent(x);
	if (res != FSCK_OK) {
		extract_close(x);
		return res;
	}
	/* modes are given exactly; the user's umask is applied by hand */
	umask(0);
	x_how_to_link(x);
	x->root->inherits_acl = has_default_acl(x->root->fd);
	x->root->strip_acls = x->root->fixup;
	*out = x;
	return FSCK_OK;
}

void extract_close(struct extractor *x)
{
	size_t i;

	if (!x)
		return;
	for (i = 0; i < x->nall; i++) {
		struct xdir *d = x->all[i];

		if (d->fd >= 0)
			close(d->fd);
		xattr_list_release(&d->xl);
		free(d->path);
		free(d);
	}
	x_links_fini(x);
	x_files_fini(x);
	free(x->all);
	free(x->post);
	free(x->stack);
	free(x->chain);
	free(x->start_name);
	free(x);
}

void extract_get_stats(const struct extractor *x, struct extract_stats *st)
{
	st->dirs = x->ndirs;
	st->files = x->nfiles;
	st->symlinks = x->nsymlinks;
	st->nodes = x->nnodes;
	st->links = x->nlinked;
}
