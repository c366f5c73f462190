/* SPDX-License-Identifier: MIT */
/*
 * The archive writer of --tar: the tree as a pax archive (or another
 * libarchive writer format), entries in walk order while workers decode
 * ahead.
 *
 * Every entry is an item of one ordered window (window.h), numbered on the
 * walker in walk order. Directories, symlinks, devices and fifos are built
 * and completed on the walker; a regular file is completed by the task
 * that checked it (or by the last piece of a split file) once its data
 * has been read and verified whole. Whichever thread completes the item
 * that is due writes it, and the completed ones after it, to the archive:
 * one thread at a time, in walk order. A file whose data failed is left
 * out; later entries still follow.
 *
 * File data waits for its turn in memory when the file is at most
 * TAR_MEM_FILE bytes, else in an unnamed spool file in $TMPDIR (or /tmp),
 * written at its offsets by the pieces in any order. The window holds
 * TAR_WINDOW_BYTES: every entry TAR_ENTRY_BYTES from when it is numbered,
 * and a file's data from when its task is queued (tar_file_queue()), its
 * size in memory or TAR_MEM_FILE spooled; so at most TAR_WINDOW_BYTES of
 * data wait in memory and a few files in spools (the entry due may take
 * more: it is written next). Files the scheduler holds to follow the
 * order of their data take no room until they are queued.
 *
 * Holes of the image, and with --sparse aligned blocks of zeros, are
 * never stored: they become the entry's sparse map where the format has
 * one (pax). Later names of a hard-linked inode are hardlink entries
 * naming the first name written; when that one was left out, so are they.
 *
 * What the format cannot hold (xattrs, ACLs, nanoseconds, sparse maps,
 * hard links, sockets, what libarchive refuses or warns about) is counted
 * by kind and reported once per kind by tar_finish().
 *
 * Thread safety: tar_open, tar_has_room, tar_node, tar_link,
 * tar_file_begin, tar_file_has_room, tar_file_queue, tar_finish and
 * tar_close on the walker only;
 * tar_file_write, tar_file_hole and tar_file_done on the thread working
 * on the file (pieces of one file may write and punch holes concurrently,
 * in distinct ranges); tar_failed anywhere.
 */
#ifndef FSCK_TAR_H
#define FSCK_TAR_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "output/output.h"
#include "util/report.h"
#include "walk/walk.h"

struct erofs_pool;
struct xattr_list;
struct tar_writer;
struct tar_file;

/*
 * Files of the packed inode are decoded in the order of their fragments
 * (sched/task.c), so the window fills: 16 MiB keeps a live-media
 * archive within the memory budget, and is no slower (bench/README.md,
 * "Figures behind the code's constants").
 */
#define TAR_WINDOW_BYTES (16u << 20)
#define TAR_MEM_FILE (4u << 20)
#define TAR_ENTRY_BYTES 1024u

struct tar_opts {
	const char *file; /* "-": standard output */
	const char *format; /* libarchive writer name; NULL: pax */
	const char *options; /* archive_write_set_options()'s, or NULL */
	const char *compress; /* a libarchive filter, "none", or NULL */
	unsigned int threads; /* -j: a compressor's threads */
	bool sparse; /* --sparse: zero blocks are holes */
};

#ifdef HAVE_LIBARCHIVE

/* Is name a format libarchive writes (for the options, before any work)? */
bool tar_format_known(const char *name);

/*
 * The libarchive filter that compresses the archive: compress unless NULL
 * (NULL for "none"), else the one FILE's suffix names as GNU tar's -a
 * picks it (.gz, .tgz, .xz, .zst, .bz2, .lz4, .lzma, .lz, .lzo, .Z ...,
 * in any case but .Z's), or NULL.
 */
const char *tar_compression(const char *file, const char *compress);

/*
 * The libarchive format of the archive: format unless NULL, else the one
 * FILE's suffix names before its compression's, as bsdtar's -a picks it
 * (.zip, .cpio, .7z, .iso, .mtree, .warc, .shar, .ar), else pax.
 */
const char *tar_format_of(const char *file, const char *format);

/* Does libarchive compress with filter name (for the options)? */
bool tar_compression_known(const char *name);

/*
 * Does the writer of format (NULL: pax) take --options=options? NULL if
 * it does, else libarchive's reason (static storage, until the next call).
 */
const char *tar_options_refused(const char *format, const char *options);

/*
 * Open the archive and add it to l, as the output (output.h) that wants
 * xattrs and data; 0 or a negative errno (reported).
 */
int tar_add_output(struct outputs *l, const struct tar_opts *o,
		   struct report *rep);

/* Open the output and the writer; 0 or a negative errno (reported). */
int tar_open(struct tar_writer **tw, const struct tar_opts *o,
	     struct report *rep);

/*
 * Would one more entry go into the window without waiting for entries
 * before it to be written? The window waits for them otherwise: the
 * caller hands out their work before it adds an entry.
 */
bool tar_has_room(struct tar_writer *tw);

/*
 * The first name of an inode that is not a regular file; target is a
 * symlink's, NUL-terminated. Sockets are counted and left out. 0 or a
 * negative errno.
 */
int tar_node(struct tar_writer *tw, const struct walk_entry *e,
	     const char *target, const struct xattr_list *xl);

/* A later name of an inode met before. 0 or a negative errno. */
int tar_link(struct tar_writer *tw, const struct walk_entry *e);

/*
 * The first name of a regular file, in walk order, before its task is
 * queued: *tf is its entry until tar_file_done(). 0 or -ENOMEM.
 */
int tar_file_begin(struct tar_writer *tw, const struct walk_entry *e,
		   struct tar_file **tf);

/*
 * When the file's task is queued, which may be out of walk order: room
 * for its data in the window, then memory or a spool for it. 0 or a
 * negative errno (reported in rep, at loc, but for -ENOMEM).
 * tar_file_has_room(): would tar_file_queue() go on without waiting?
 */
bool tar_file_has_room(struct tar_writer *tw, const struct tar_file *tf);
int tar_file_queue(struct tar_writer *tw, struct tar_file *tf,
		   struct report *rep, const struct fsck_loc *loc);

/* Decoded bytes at file offset off. 0 or a negative errno. */
int tar_file_write(struct tar_file *tf, const void *buf, size_t len,
		   uint64_t off);

/* A hole of the image. 0 or -ENOMEM. */
int tar_file_hole(struct tar_file *tf, uint64_t off, uint64_t len);

/*
 * The file is done: ok if its data, xattrs (xl) and every write were
 * good; failed when it is not ok because its check failed (not because
 * the run stopped); tf is the writer's from here on.
 */
void tar_file_done(struct tar_file *tf, bool ok, bool failed,
		   const struct xattr_list *xl);

/* Has writing the archive failed (the run should stop)? */
bool tar_failed(const struct tar_writer *tw);

/*
 * After every task: report what the format could not hold, then end the
 * archive (complete: with its trailer). 0 or a negative errno.
 */
int tar_finish(struct tar_writer *tw, struct report *rep, bool complete);

void tar_close(struct tar_writer *tw);

#else

/*
 * Built without libarchive: main.c refuses --tar before anything is read,
 * so no writer is ever opened.
 */
static inline bool tar_format_known(const char *name)
{
	return true;
}

static inline const char *tar_options_refused(const char *format,
					      const char *options)
{
	return NULL;
}

static inline const char *tar_format_of(const char *file, const char *format)
{
	return format;
}

static inline bool tar_compression_known(const char *name)
{
	return true;
}

static inline int tar_add_output(struct outputs *l, const struct tar_opts *o,
				 struct report *rep)
{
	return -EOPNOTSUPP;
}

#endif

#endif
