/* SPDX-License-Identifier: MIT */
/*
 * What the parts of the extractor share. extract.h is the interface to
 * the rest of fsck and says which rule is kept how; each part is a file:
 *
 *   extract.c         the extractor: open (DIR, the start), close
 *   extract_state.c   counting and growing the state the parts share
 *   extract_dir.c     directories: creation, the walk's stack
 *   extract_node.c    symlinks, devices, fifos and sockets
 *   extract_file.c    regular files: create, write, copy, name, abort
 *   extract_links.c   further names, directory fix-ups, the summary
 *   extract_names.c   name rules, hidden names, replacing entries
 *   extract_fds.c     the directory descriptor budget
 *   extract_meta.c    owner, mode, xattrs and ACLs, times
 *   extract_report.c  how a failure is reported, and whether it stops
 */
#ifndef FSCK_EXTRACT_STATE_H
#define FSCK_EXTRACT_STATE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "extract/extract.h"
#include "util/nidmap.h"
#include "util/xattr_list.h"

#define DIR_OPEN_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
/*
 * Hidden names of files being written: the prefix and 16 hex digits. A
 * rerun with --overwrite or --keep-existing removes such names left by a
 * killed run from the directories it finds.
 */
#define X_TMP_PREFIX ".fsck.erofs-"
#define X_TMP_LEN (sizeof(X_TMP_PREFIX) - 1 + 16)
#define X_TMP_TRIES 16
/* An entry in the way is an input of the run (inputs.h): never replaced. */
#define X_ERR_INPUT 4096

/* A directory of the extraction. */
struct xdir {
	struct xdir *parent;
	char *path;		/* in the image, for messages */
	size_t pathlen;
	int fd;			/* -1 while closed */
	int refs;		/* atomic: the walk while on its stack, tasks */
	dev_t dev;
	ino_t ino;
	bool failed;		/* not created: nothing is created inside */
	bool inherits_acl;	/* passes a default ACL to what is created */
	bool strip_acls;	/* may hold ACLs the image does not have */
	bool fixup;		/* apply its metadata at the end */
	bool fresh;		/* made by this run: holds only what it made */
	gid_t new_gid;		/* the group of what is created in it */
	uint64_t nid;
	uint16_t mode;
	uint32_t uid, gid;
	int64_t mtime;
	uint32_t mtime_nsec;
	struct xattr_list xl;
	char name[];		/* NUL-terminated, "" for DIR */
};

/* A further name of an inode, linked at the end. */
struct xlink {
	struct xdir *dir;
	char *name;
	char *path;
	size_t pathlen;
	uint64_t nid;
};

/* What became of the first name of an inode with several. */
enum xprimary_state {
	XPRIMARY_FAILED = -1,
	XPRIMARY_PENDING,	/* its task has not finished */
	XPRIMARY_CREATED,
	XPRIMARY_KEPT,		/* --keep-existing found it complete */
};

/* The first name of an inode with several. */
struct xprimary {
	struct xdir *dir;
	char *name;
	enum xprimary_state state;
	uint16_t mode;
	uint64_t size;
};

/*
 * A regular file being written, found by its descriptor: how far its data
 * reaches (a trailing hole is left to ftruncate), and its hidden name when
 * it is not an unnamed (O_TMPFILE) file. Both are atomic: pieces write
 * from any worker, and a descriptor number closed by one thread is reused
 * by another.
 */
struct xfile {
	uint64_t end;
	uint64_t tmp_id;	/* the hidden name's digits, 0: unnamed */
};

/* Namespaces and kinds of the once-only xattr warnings. */
enum { XNS_USER, XNS_TRUSTED, XNS_SECURITY, XNS_SYSTEM, XNS_OTHER, XNS_MAX };
enum { XKIND_REG, XKIND_OTHER, XKIND_MAX };

struct extractor {
	struct extract_opts o;
	struct report *rep;
	struct xdir *root;
	bool root_made;		/* DIR did not exist: this run made it */
	char *start_name;	/* a non-directory start: the file in root */
	size_t start_pathlen;	/* the start's path in the image */
	bool have_proc;		/* /proc/self/fd/N reaches O_PATH objects */
	int no_copy;		/* atomic: copy_file_range does not work */
	int no_tmpfile;		/* atomic: write files under hidden names */
	int no_empty_path;	/* atomic: linkat(AT_EMPTY_PATH) refused */
	uid_t euid;
	gid_t egid;
	uint64_t tmp_seed;
	uint64_t tmp_count;	/* atomic */
	struct xfile **files;	/* pages of XFILE_PAGE, by descriptor */
	size_t nfilepages;
	pthread_mutex_t files_lock;

	struct xdir **all;	/* every directory, to free */
	size_t nall, capall;
	struct xdir **post;	/* post-order: the order of fix-ups */
	size_t npost, cappost;
	struct xdir **stack;	/* the walk's current path */
	size_t nstack, capstack;
	struct xdir **chain;	/* scratch for reopening */
	size_t capchain;
	struct xlink *links;
	size_t nlinks, caplinks;
	struct nidmap primaries;	/* struct xprimary */

	int open_dirs;		/* atomic: directory descriptors open */
	int budget; /* how many may be */

	/* atomic: once-only warnings, counted */
	unsigned long refused[XNS_MAX][XKIND_MAX];
	int refused_err[XNS_MAX][XKIND_MAX];
	unsigned long owner_refused;
	int owner_err;
	unsigned long bad_xattr_names;

	/* atomic: statistics */
	uint64_t ndirs, nfiles, nsymlinks, nnodes, nlinked, nkept;
};

/* How to reach an object: a real descriptor, or an O_PATH one. */
struct x_obj {
	int fd;
	bool opath;
	char proc[32];		/* /proc/self/fd/N for an O_PATH fd */
	int kind;		/* XKIND_* */
	bool strip_acls;	/* it inherited ACLs the image may not have */
	bool chown;		/* its owner is not yet the image's */
	bool salvaged;		/* not the image's content: not its times */
};

/* extract_state.c */
/* One more of a statistic, from any thread. */
void x_count(uint64_t *v);

/* extract_dir.c */
struct xdir *xdir_new(struct extractor *x, struct xdir *parent,
		      const char *name, size_t namelen, const char *path,
		      size_t pathlen);
/* The parent directory an entry is created in. */
struct xdir *x_parent_of(struct extractor *x, const struct walk_entry *e);

/* extract_names.c: the calls that act on DIR return 0 or an errno */
bool name_ok(const char *name, size_t len);
const char *x_entry_name(struct extractor *x, const struct walk_entry *e,
			 const struct fsck_loc *loc);
bool x_replaces(const struct extractor *x);
bool x_exists(int dfd, const char *name);
int x_remove(int dfd, const char *name);
void x_tmp_format(uint64_t id, char *buf);
uint64_t x_tmp_name(struct extractor *x, char *buf);
int x_rename_over(int dfd, const char *tmp, const char *name);
int x_link_replacing(struct extractor *x, int sdfd, const char *spath,
		     int flags, int dfd, const char *name);
void x_clean_tmp(int fd);
bool x_kept(struct extractor *x, const struct xdir *dir, const char *name,
	    uint16_t mode, uint64_t size, uint32_t raw_rdev,
	    const struct erofs_inode *with_mtime);

/* extract_fds.c */
int x_fd_budget(unsigned int threads);
void x_fd_opened(struct extractor *x, struct xdir *d, int fd);
void x_fd_close(struct extractor *x, struct xdir *d);
/* A descriptor of d, reopened if need be; -1 with errno set. */
int xdir_fd(struct extractor *x, struct xdir *d);
/* Close descriptors of directories no task uses while over the budget. */
void x_evict(struct extractor *x);
void x_trim(struct extractor *x);
void xdir_unref(struct extractor *x, struct xdir *d);

/* extract_meta.c */
mode_t x_mode(const struct extractor *x, uint16_t mode);
bool has_default_acl(int dfd);
/* Owner, mode, xattrs, times; false when something was not set. */
bool x_apply(struct extractor *x, struct report *rep,
	     const struct fsck_loc *loc, const struct x_obj *o,
	     const struct erofs_inode *inode, uint16_t mode,
	     const struct xattr_list *xl, bool chmod_needed);
void x_summary(struct extractor *x);

/* extract_file.c */
bool x_files_init(struct extractor *x);
void x_files_fini(struct extractor *x);

/* extract_links.c */
/* Record the first name of an inode with several; false: out of memory. */
bool x_add_primary(struct extractor *x, const struct walk_entry *e,
		   struct xdir *dir, const char *name,
		   enum xprimary_state state);
void x_links_fini(struct extractor *x);

/* extract_report.c */
const char *x_strerror(int err);
void x_report_errno(struct report *rep, const struct fsck_loc *loc,
		    const char *what, int err);
void x_report_out(struct extractor *x, struct report *rep,
		  const struct fsck_loc *loc, bool fatal, const char *what,
		  int err);
void x_report_exists(struct report *rep, const struct fsck_loc *loc,
		     const char *what);
/* Report errno err; FSCK_STOP when nothing more can be written. */
enum fsck_result x_create_failed(struct extractor *x, struct report *rep,
				 const struct fsck_loc *loc, const char *what,
				 int err);

#endif
