/* SPDX-License-Identifier: MIT */
/*
 * The task of a regular file on the worker pool, from its first name met
 * by the walker to its results taken in walk order.
 *
 * The walker lists the file, reads its fragment ahead (readahead.h), adds
 * it to the manifest as pending, pins its directory for extraction and
 * opens its archive entry, then queues the task, or with threads the
 * pieces of a file worth splitting (pieces.h). A worker checks its
 * xattrs, index and data, decodes, hashes and writes it with its own
 * reading context, into a report of its own; what the walker needs from
 * it (digest, xattrs for the manifest, stored size) is taken when its
 * report slot is printed, in walk order. The walker waits for the oldest
 * task when too many are pending, which bounds the memory of finished
 * ones.
 */
#ifndef FSCK_TASK_H
#define FSCK_TASK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "erofs/hash.h"
#include "erofs/inode.h"
#include "extract.h"
#include "report.h"
#include "result.h"
#include "xattr_list.h"

struct checker;
struct fsck_loc;
struct tar_file;
struct walk_entry;

/* A regular file, checked (and written) by a worker. */
struct file_task {
	struct checker *ck;
	struct report rep;
	struct report_slot slot;
	struct erofs_inode inode;
	struct xdir *dir; /* where to create it, or NULL */
	struct tar_file *tf; /* --tar: its entry, or NULL */
	bool start; /* the start of the walk */
	bool started; /* the task ran (or was skipped) */
	bool skipped; /* the run had stopped */
	/* results */
	bool data_ok;
	bool xattrs_ok;
	bool created;
	bool have_digest;
	uint8_t digest[EROFS_SHA256_LEN];
	struct xattr_list xl;
	uint64_t physical;
	bool digest_checked;
	size_t mf_handle;
	size_t pathlen, rellen, namelen;
	char path[]; /* in the image, NUL-terminated */
};

/* The name to create the file under; NULL for the start of the walk. */
const char *task_name(const struct file_task *t);

/* The first name of a regular file: queue its task. */
enum fsck_result task_submit_file(struct checker *ck,
				  const struct walk_entry *e,
				  const struct fsck_loc *loc);

/*
 * Wait for the oldest pending task and print what is ready; false when
 * none is pending (arg is the checker).
 */
bool task_throttle(void *arg);

#endif
