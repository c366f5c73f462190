/* SPDX-License-Identifier: MIT */
/*
 * The archive writer's state (tar.c) and that of one entry waiting for its
 * turn, shared with the store of a regular file's data (tar_data.c).
 */
#ifndef FSCK_TAR_INTERNAL_H
#define FSCK_TAR_INTERNAL_H

#include <archive.h>
#include <archive_entry.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "erofs/inode.h"
#include "output/tar/tar.h"
#include "output/tar/tar_named.h"
#include "output/tar/tarentry.h"
#include "util/nidmap.h"
#include "util/outfile.h"
#include "util/window.h"

/* Distinct libarchive messages kept for the report; more are counted. */
#define TAR_MAX_MSGS 32

struct tar_msg {
	char *text; /* the first message of its kind */
	size_t kindlen; /* the kind: up to the first quote */
	struct tar_named entries;
	bool failed; /* the entries were left out */
};

struct tar_writer {
	struct archive *a;
	int fd; /* the archive's: out's, or standard output */
	struct outfile out; /* FILE of --tar=FILE */
	const char *file;
	const char *format;
	const char *options; /* --options, or NULL */
	const char *compress; /* --compress, or NULL: FILE's suffix */
	unsigned int threads; /* for the compressor */
	struct tar_caps caps;
	bool sparse;
	struct ord_window window;
	bool window_ready;
	uint64_t seq; /* walker: the next entry's */
	struct tar_losses losses;
	bool all_names; /* -d3: every entry named in the report */
	uint64_t check_failed; /* atomic: left out, their check failed */
	bool failed; /* atomic: the archive is broken */
	bool discard; /* drop what libarchive writes from now on */
	bool dropped; /* and fail its writes: the archive is given up */
	/* the deliverer's (one thread at a time, in order) */
	uint8_t *io, *zeros; /* TAR_IO_BYTES each */
	/* zeros fed for a hole the sparse map skips: mapped, never touched */
	const uint8_t *hole_zeros;
	size_t hole_zeros_len;
	bool room_known; /* the output says how much it takes: */
	uint64_t room; /* what it took at the start */
	uint64_t written; /* what libarchive has written since */
	struct nidmap first; /* nid -> struct tar_first */
	struct tar_msg msgs[TAR_MAX_MSGS];
	unsigned int nmsgs;
	uint64_t more_msgs;
	uint64_t orphans; /* later names of a left-out file */
	struct tar_named binary_names; /* not UTF-8: stored as bytes */
	/* read correctly, but their data could not be kept */
	uint64_t spool_failed;
	int spool_err; /* the errno of one of them */
	struct tar_named left_out;
	int err; /* why the archive broke */
	char *errtext;
};

enum tar_kind { TAR_NODE, TAR_FILE, TAR_LINK };

struct tar_hole {
	uint64_t off, len;
	/* an end found in the data by --sparse, not a hole of the image */
	bool zeros_start, zeros_end;
};

/* The first name written of a hard-linked inode. */
/* A range of the data of a file: its bytes, or zeros for a hole. */
struct tar_data {
	const uint8_t *mem; /* the bytes, or NULL: */
	int spool; /* in this file, at their offsets */
	const struct tar_hole *holes; /* sorted */
	size_t nholes;
	uint64_t size;
};

struct tar_first {
	char *name;
	uint64_t ino; /* its entry's, with TAR_LINKS_INODE */
	char *target; /* a symlink's, but with TAR_LINKS_ENTRY */
	/* TAR_LINKS_COPY: a regular file's data, for its later names */
	int keep; /* a spool file, or -1 */
	struct tar_hole *holes;
	size_t nholes;
	uint64_t size;
};

/* An entry waiting for its turn: a regular file's, or any other. */
struct tar_file {
	struct ord_item item; /* first: the window's */
	struct tar_writer *tw;
	enum tar_kind kind;
	bool ok; /* to be written */
	bool linked; /* later names follow */
	uint64_t nid;
	struct archive_entry *entry;
	/* TAR_FILE */
	struct erofs_inode inode;
	uint8_t *mem; /* the data, or NULL */
	int spool; /* or the data's spool, or -1 */
	int err; /* atomic: a write failed */
	int left_out; /* read correctly, not archived: why (an errno) */
	pthread_mutex_t lock; /* holes */
	struct tar_hole *holes;
	size_t nholes, holecap;
	char name[];
};

/*
 * Before the file's entry is written: sort and merge the holes its pieces
 * punched and make them the entry's sparse map (tar_data.c).
 */
void tar_sparse_map(struct tar_file *tf);

/* tar_format.c: the writer's format and options, then its compression */
int tar_set_format(struct tar_writer *tw, struct report *rep);
int tar_set_filter(struct tar_writer *tw, struct report *rep);

/*
 * tar_report.c: count what libarchive said of entry name (failed: it was
 * left out); at the end, report every kind, with the names.
 */
void tar_note(struct tar_writer *tw, bool failed, const char *name);
void tar_report(struct tar_writer *tw, struct report *rep);

#endif
