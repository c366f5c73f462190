/* SPDX-License-Identifier: MIT */
/*
 * Extraction to a directory (--extract=DIR): the one place that creates
 * anything on disk (extract.c and the parts extract_state.h lists), and
 * that enforces the rules of docs/ARCHITECTURE.md, "Extraction rules":
 *
 * - everything is created and changed relative to directory file
 *   descriptors, with O_NOFOLLOW / AT_SYMLINK_NOFOLLOW, or through a
 *   descriptor of the object itself: nothing is ever created or changed
 *   through a symlink, whether it came from the image or was in DIR;
 * - a name that is empty, "." or "..", or holds '/' or NUL is corruption,
 *   and is never created;
 * - an existing entry is only replaced with --overwrite (or, when it is
 *   not complete, --keep-existing); a symlink in the way is then removed,
 *   never followed; anything but a directory is replaced atomically, by a
 *   rename over it once the new entry is complete;
 * - a regular file gets its name only once it is complete: it is written
 *   unnamed (O_TMPFILE) and linked into place, or, where there is no
 *   O_TMPFILE, written under a hidden name (created with O_EXCL and
 *   O_NOFOLLOW) and renamed. A file whose data fails, or a run killed by
 *   SIGKILL, leaves nothing under its name looking complete. The unnamed
 *   way is the cheaper, on ext4 and tmpfs, by one thread or two sharing
 *   a directory (bench/create-floor, bench/README.md): a hidden name
 *   takes the directory's lock twice (created, then renamed), an unnamed
 *   file once (linked).
 *
 * Threads. The walker thread creates directories (mkdirat, then opens
 * them), symlinks, device nodes, fifos and sockets, and queues regular
 * files as tasks. A task creates its file in its parent's descriptor,
 * which stays open while any task in it runs (a reference count: the last
 * one out closes it), and names it in extract_file_commit(): for a split
 * file, the worker that completes the last piece. Directory metadata
 * (owner, mode, xattrs including default ACLs, times) and further names of
 * hard-linked inodes are applied after every task has finished
 * (extract_finish): links first, then directories children before
 * parents, so that a read-only directory still receives its entries and
 * keeps its mtime. Directories are created 0700 and get their mode then.
 *
 * Interruption (interrupt.h). The file being written never gets its name,
 * like a file whose data failed, further names are not linked, and
 * directory metadata is not applied: directories stay 0700, owned by the
 * user, with the time of extraction, so that what remains can be removed.
 * Every regular file left is complete.
 *
 * Descriptors. The soft RLIMIT_NOFILE is raised to the hard limit; when
 * the open directories would still exceed it (a walk can be 4096 levels
 * deep), descriptors of directories higher up the walk are closed and
 * later reopened from their parent by name, with O_NOFOLLOW, checking
 * that the device and inode number are unchanged.
 */
#ifndef FSCK_EXTRACT_H
#define FSCK_EXTRACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "output/output.h"
#include "result.h"
#include "util/report.h"

struct erofs_ctx;
struct erofs_inode;
struct erofs_map;
struct extractor;
struct walk_entry;
struct xattr_list;
struct xdir;

struct extract_opts {
	const char *dir;
	bool force;		/* DIR may exist and hold entries, or be / */
	bool overwrite;		/* replace existing entries */
	bool keep_existing;	/* keep complete ones, replace the others */
	bool owner;		/* set owners */
	bool perms;		/* modes exactly, else with the umask */
	bool xattrs;		/* set xattrs */
	bool sparse;		/* zero blocks become holes */
	mode_t umask;		/* the user's umask */
	unsigned int threads;	/* worker threads, for the descriptor budget */
};

/*
 * Prepare DIR (create it if missing). start_is_dir tells whether the start
 * of the walk is a directory; if it is not, DIR names the file to create.
 * FSCK_STOP when it cannot be (reported: a usage error, such as extracting
 * to / without --force, or a failure).
 */
enum fsck_result extract_open(struct extractor **out,
			      const struct extract_opts *o, struct report *rep,
			      bool start_is_dir);
void extract_close(struct extractor *x);

/*
 * Walker: is there a descriptor to spare for one more entry, once the
 * directories no task uses are closed? When not, tasks hold the budget:
 * the caller takes finished ones before it adds the entry, or the entry
 * goes over the budget when none is pending.
 */
bool extract_has_room(struct extractor *x);

/*
 * Walker side. loc locates the entry for messages. FSCK_REPORTED: the
 * entry is not extracted, for a reason reported (here or, for an entry in
 * a directory that was not created, there); FSCK_STOP: the output cannot
 * be written to (reported).
 */

/*
 * A directory, before its children: *state becomes its struct xdir, which
 * takes the xattrs of xl (then empty), even if it was not created.
 */
enum fsck_result extract_dir(struct extractor *x, const struct walk_entry *e,
			     const struct fsck_loc *loc, struct xattr_list *xl,
			     void **state);
/* After its children. */
void extract_dir_done(struct extractor *x, void *state);

/* First name of a symlink (target, tlen), device, fifo or socket. */
enum fsck_result extract_node(struct extractor *x, const struct walk_entry *e,
			      const struct fsck_loc *loc, const char *target,
			      size_t tlen, const struct xattr_list *xl);

/* Another name of an inode met before: linked at the end. */
enum fsck_result extract_link(struct extractor *x, const struct walk_entry *e,
			      const struct fsck_loc *loc);

/*
 * A regular file, first name: checks the name and pins the parent
 * directory for a task. *dir is NULL when the file is not to be created
 * (bad name, or its directory could not be created).
 */
enum fsck_result extract_file_begin(struct extractor *x,
				    const struct walk_entry *e,
				    const struct fsck_loc *loc,
				    struct xdir **dir);
/* After the task: the outcome, for the further names of the file. */
void extract_file_status(struct extractor *x, uint64_t nid, bool ok);

/*
 * Task side, reporting into rep; name is the last component of the path,
 * NULL for the start of the walk. Create the file: *fd is its descriptor,
 * or -1 when it was not created: FSCK_REPORTED (the data is still
 * checked) or FSCK_STOP.
 */
enum fsck_result extract_file_create(struct extractor *x, struct report *rep,
				     const struct fsck_loc *loc,
				     struct xdir *dir, const char *name,
				     const struct erofs_inode *inode, int *fd);
/* Write len bytes at off; a failure is reported and stops the run. */
enum fsck_result extract_file_write(struct extractor *x, struct report *rep,
				    const struct fsck_loc *loc, int fd,
				    const void *buf, size_t len, uint64_t off);
/*
 * Copy bytes [skip, skip + len) of a copyable extent of inode (see
 * erofs_extent_copy()) to the file, in the kernel. *copied is false when
 * the copy was not made: the kernel cannot copy between these files, or
 * the image failed, which reading the extent then reports; read and write
 * them instead. A failure of the output is reported and stops the run, as
 * does an interrupt (not reported).
 */
enum fsck_result extract_file_copy(struct extractor *x, struct report *rep,
				   const struct fsck_loc *loc, int fd,
				   struct erofs_ctx *ctx,
				   const struct erofs_inode *inode,
				   const struct erofs_map *map, uint64_t skip,
				   uint64_t len, bool *copied);
/*
 * The data is complete: set the size (a trailing hole), owner, mode,
 * xattrs and times (not the times of a salvaged file: out_file), give
 * the file its name, close. FSCK_REPORTED if something could not be set
 * or the name could not be given, FSCK_STOP when the run must stop (the
 * file then has no name).
 */
enum fsck_result extract_file_commit(struct extractor *x, struct report *rep,
				     const struct fsck_loc *loc,
				     struct xdir *dir, const char *name, int fd,
				     const struct erofs_inode *inode,
				     const struct xattr_list *xl, bool salvaged);
/* The data failed: close; the file never gets its name. */
void extract_file_abort(struct extractor *x, struct xdir *dir,
			const char *name, int fd);
/* The task is over: unpin the directory. */
void extract_file_end(struct extractor *x, struct xdir *dir);

/*
 * After the walk and every task: further names of hard-linked inodes
 * (unless the run was stopped), then directory metadata, children first.
 * Prints the once-per-kind warnings (an xattr namespace the target
 * refused...). What fails is reported, and the rest is still done.
 */
void extract_finish(struct extractor *x, bool stopped);

/* Statistics for the report. */
struct extract_stats {
	uint64_t dirs, files, symlinks, nodes, links;
};
void extract_get_stats(const struct extractor *x, struct extract_stats *st);

/*
 * The output (output.h) of an extract_open(): OUT_CREATES, OUT_OPENS and
 * OUT_DATA,
 * OUT_XATTRS with xattrs. Last of the outputs that read xattrs: it keeps
 * a directory's for the end, taking the items of its list.
 */
extern const struct output_ops extract_output;

/*
 * Is name, from the image or its container (a partition's name or label),
 * fit to be a file's name in a directory the command writes: the rule of
 * names above, and no control character (a name that moves the terminal
 * or breaks a line of a script's listing)?
 */
bool plain_file_name(const char *name);

#endif
