/* SPDX-License-Identifier: MIT */
/*
 * The outputs of a run, behind one interface: extraction (extract.h), the
 * archive (tar.h), the manifest (manifest.h), the listing (list.h),
 * Android metadata (android.h) and the comparison with a directory
 * (compare.h). The options open the outputs they ask for and add them to
 * a list (struct outputs); the checker and the scheduler hand entries and
 * bytes to the list and never name an output.
 *
 * The life of an entry, as the outputs see it:
 *
 * - entry: on the walker, in walk order, for every name. The first name of
 *   an inode that is not a regular file comes once its checks are done
 *   (struct out_entry says what they gave); a further name of an inode met
 *   before comes as it is met; the first name of a regular file comes
 *   before its data is read, and *file becomes the output's state of it.
 * - file_queue: on the walker, when the file's work is handed to the
 *   workers: at once after entry, or later for a file the scheduler holds
 *   to follow the order of its data (sched/task.c), so not in walk order.
 *   The output takes what the file's data will need there, and may wait
 *   for room; file_room tells whether it would not wait.
 * - file_open, data, hole, file_end: on the thread that works on the file
 *   (for a split file, file_open on the walker and data and hole from the
 *   workers of its pieces, concurrently, in distinct ranges; file_end on
 *   whichever thread finishes the file). An output gets data and hole
 *   only while its state of the file is not NULL.
 *   file_end comes once per file, with its result, even when the file was
 *   never opened (the run stopped before its task ran).
 * - file_done: on the walker, in walk order: the file's results (digest,
 *   xattrs); the output lets go of its state.
 * - dir_end: on the walker, after the children of a directory whose entry
 *   set a state; when the walk stops first, dir_drop at close instead.
 * - finish: after the walk and every task; complete tells whether the
 *   whole run went through.
 *
 * Outputs that need walk order (the archive, the manifest, the listing)
 * get it from entry and file_done, which the walker calls in walk order,
 * whatever thread decoded the file. Every call returns an enum fsck_result
 * (result.h): a problem with one entry's output is reported by the output
 * (FSCK_REPORTED, the run goes on), one that stops the run is FSCK_STOP.
 *
 * Outputs are called in the order they were added: the list is ordered
 * by what they take from each other's work (the archive's entry for a
 * directory is made before extraction keeps the directory's xattrs for
 * the end).
 */
#ifndef FSCK_OUTPUT_H
#define FSCK_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "result.h"
#include "util/report.h"

struct erofs_ctx;
struct erofs_inode;
struct erofs_map;
struct erofs_pool;
struct walk_entry;
struct xattr_list;

#define OUTPUTS_MAX 8

/* What an output needs the checks to give it (outputs_add()). */
enum out_wants {
	OUT_XATTRS = 1 << 0, /* the xattrs listxattr would show */
	OUT_DIGEST = 1 << 1, /* the SHA-256 of file contents and targets */
	OUT_DATA = 1 << 2, /* the decoded bytes of regular files */
	OUT_CREATES = 1 << 3, /* it creates files (for the cost model) */
	OUT_OPENS = 1 << 4, /* it opens a file on disk for each file */
};

/* An entry met by the walker. */
struct out_entry {
	/* e->parent is this output's state of the parent directory */
	const struct walk_entry *e;
	const struct fsck_loc *loc;
	struct report *rep;
	struct erofs_ctx *ctx; /* the walker's */
	const char *target; /* a symlink's, read: NUL-terminated */
	const uint8_t *digest; /* of a symlink's target, or NULL */
	/* with OUT_XATTRS; an output may take the items (then empty) */
	struct xattr_list *xl;
	bool xattrs_ok; /* read whole */
};

/* A regular file, as the thread working on it sees it. */
struct out_file {
	struct report *rep; /* the file's report */
	const struct fsck_loc *loc;
	const struct erofs_inode *inode;
	const char *name; /* last component; NULL for the start */
	const char *rel; /* path from the start, "" for it */
	size_t rellen;
	const struct xattr_list *xl; /* with OUT_XATTRS */
	bool xattrs_ok;
	bool data_ok; /* file_end: every byte checked */
	/*
	 * file_end: complete in size, not in content: ranges the image
	 * damaged read as zeros, or content its digest does not match
	 * (--ignore-errors)
	 */
	bool salvaged;
	bool skipped; /* file_end: never opened, run stopped */
	/* file_done: the content's SHA-256 (OUT_DIGEST), or NULL */
	const uint8_t *digest;
};

/*
 * Copy bytes [skip, skip + len) of a stored extent into the output in
 * the kernel; *copied false: it was not made, hand the bytes over as data.
 */
struct out_copy {
	struct erofs_ctx *ctx;
	const struct erofs_inode *inode;
	const struct erofs_map *map;
	uint64_t skip, len;
};

struct output_ops {
	/*
	 * Optional, on the walker: false when the output cannot take one
	 * more entry without waiting for work handed out before it to end
	 * (the archive's window, the extractor's descriptors). The scheduler
	 * then hands out what it holds and takes finished work until it is
	 * true or nothing is pending; an output asked when nothing is pending
	 * takes the entry all the same.
	 */
	bool (*room)(void *priv);
	/* before each entry: true when the output failed (stop the run) */
	bool (*failed)(void *priv);
	enum fsck_result (*entry)(void *priv, const struct out_entry *oe,
				  void **state);
	void (*dir_end)(void *priv, void *state);
	/* optional: a directory's state the walk stopped before its end */
	void (*dir_drop)(void *priv, void *state);
	/* optional, both or neither */
	bool (*file_room)(void *priv, void *file);
	enum fsck_result (*file_queue)(void *priv, void *file,
				       const struct out_file *of);
	enum fsck_result (*file_open)(void *priv, void **file,
				      const struct out_file *of);
	enum fsck_result (*data)(void *priv, void *file,
				 const struct out_file *of, const void *buf,
				 size_t len, uint64_t off);
	enum fsck_result (*hole)(void *priv, void *file, uint64_t off,
				 uint64_t len);
	/* optional, with data: a copy in the kernel when nothing hashes */
	enum fsck_result (*copy)(void *priv, void *file,
				 const struct out_file *of,
				 const struct out_copy *c, bool *copied);
	enum fsck_result (*file_end)(void *priv, void *file,
				     const struct out_file *of,
				     enum fsck_result r);
	enum fsck_result (*file_done)(void *priv, void *file,
				      const struct out_file *of);
	enum fsck_result (*finish)(void *priv, struct report *rep,
				   bool complete);
	void (*close)(void *priv);
};

struct output {
	const struct output_ops *ops;
	void *priv;
};

struct out_dirs;

struct outputs {
	struct output o[OUTPUTS_MAX];
	struct out_dirs *dirs;		/* directories not ended yet */
	unsigned int n;
	unsigned int wants; /* of all of them */
	unsigned int dir_states; /* how many keep a directory state */
};

/* Each output's state of one regular file. */
struct out_files {
	void *state[OUTPUTS_MAX];
};

/*
 * Add an output (its ops are static) wanting what wants says (enum
 * out_wants); the list then owns priv.
 */
void outputs_add(struct outputs *l, const struct output_ops *ops, void *priv,
		 unsigned int wants);
bool outputs_want(const struct outputs *l, unsigned int wants);

/* Walker side. */
bool outputs_room(const struct outputs *l);
bool outputs_failed(const struct outputs *l);
/*
 * Every output's entry. For a directory, *dir_state becomes the outputs'
 * states of it (allocated when some output keeps one), which
 * outputs_dir_end() frees; e->parent is that of the parent directory.
 */
enum fsck_result outputs_entry(struct outputs *l, const struct out_entry *oe,
			       void **dir_state);
/* The first name of a regular file: files takes the outputs' states. */
enum fsck_result outputs_file_begin(struct outputs *l,
				    const struct out_entry *oe,
				    struct out_files *files);
void outputs_dir_end(struct outputs *l, void *dir_state);

/*
 * The file's work is handed out now: may every output take it without
 * waiting? Then each output's file_queue.
 */
bool outputs_file_room(const struct outputs *l, const struct out_files *files);
enum fsck_result outputs_file_queue(struct outputs *l, struct out_files *files,
				    const struct out_file *of);

/* On the thread working on the file. */
enum fsck_result outputs_file_open(struct outputs *l, struct out_files *files,
				   const struct out_file *of);
/* Does any output take the file's bytes? */
bool outputs_take_data(const struct outputs *l, const struct out_files *files);
enum fsck_result outputs_data(struct outputs *l, struct out_files *files,
			      const struct out_file *of, const void *buf,
			      size_t len, uint64_t off);
enum fsck_result outputs_hole(struct outputs *l, struct out_files *files,
			      uint64_t off, uint64_t len);
/* The one output taking data copies the extent, if it can. */
enum fsck_result outputs_copy(struct outputs *l, struct out_files *files,
			      const struct out_file *of,
			      const struct out_copy *c, bool *copied);
/* The file's result, to every output; the first that stops wins. */
enum fsck_result outputs_file_end(struct outputs *l, struct out_files *files,
				  const struct out_file *of,
				  enum fsck_result r);
enum fsck_result outputs_file_done(struct outputs *l, struct out_files *files,
				   const struct out_file *of);

/*
 * After the walk and every task, each output's finish in order; FSCK_STOP
 * when one of them could not be completed (reported).
 */
enum fsck_result outputs_finish(struct outputs *l, struct report *rep,
				bool complete);
void outputs_close(struct outputs *l);

#endif
