/* SPDX-License-Identifier: MIT */
/*
 * What the checks (check.c) and the scheduling of regular files share:
 * the life cycle of a file's task (task.h) and the pieces of a split file
 * (pieces.h) run the checks declared here, and the checks hand a piece's
 * bytes on through pieces.h.
 *
 * Results are enum fsck_result (result.h). The walker's visitor and the
 * pool's tasks return 0 or a negative errno instead: check_errno() is
 * the one place a result leaves for them, check_result_of() the one place
 * such an errno (and those of fsck's other parts) comes back.
 */
#ifndef FSCK_CHECK_INTERNAL_H
#define FSCK_CHECK_INTERNAL_H

#include <errno.h>

#include "check.h"
#include "extract.h"
#include "result.h"
#include "xattr_list.h"

struct file_piece;
struct piece_out;
struct tar_file;

/* What walking one inode's data gave. */
struct data_sum {
	uint64_t physical; /* stored: no holes, no fragments */
	bool hash;
	struct piece_out *out; /* to hash later, or NULL */
	struct erofs_sha256 sha;
	uint8_t digest[EROFS_SHA256_LEN];
	bool have_digest;
	bool target_ok; /* symlink target in w->buf */
	int fd; /* extraction: the file, or -1 */
	struct tar_file *tf; /* --tar: the file's entry, or NULL */
};

struct xattr_scan {
	struct fsck_worker *w;
	bool list; /* collect what listxattr shows */
	struct xattr_list listed;
	bool has_digest;
	bool bad_digest;
	uint8_t digest[EROFS_SHA256_LEN];
};

/*
 * 0, a positive count (a problem reported) or a negative errno, as the
 * pool and fsck's other parts return them: already reported, but for
 * -ENOMEM, which the caller that knows the entry reports.
 */
static inline enum fsck_result check_result_of(int ret)
{
	if (ret > 0)
		return FSCK_REPORTED;
	if (!ret)
		return FSCK_OK;
	return ret == -ENOMEM ? FSCK_NOMEM : FSCK_STOP;
}

/*
 * What an output step (extract.h) came to, for the entry being checked: a
 * problem with one output file is reported there and the check goes on.
 */
static inline enum fsck_result check_output(enum fsck_result r)
{
	return r == FSCK_REPORTED ? FSCK_OK : r;
}

/* For the walker and the pool: 0 goes on, a negative errno stops. */
static inline int check_errno(enum fsck_result r)
{
	if (fsck_result_goes_on(r))
		return 0;
	return r == FSCK_NOMEM ? -ENOMEM : -ECANCELED;
}

void check_loc(struct fsck_loc *loc, const char *path, size_t pathlen,
	       const struct erofs_inode *inode);

/* FSCK_REPORTED when no xattrs are kept. */
enum fsck_result check_xattrs(struct fsck_worker *w,
			      const struct erofs_inode *inode,
			      const struct fsck_loc *loc,
			      struct xattr_scan *xs);
bool check_wants_xattrs(const struct checker *ck);

/* Is there a digest xattr to verify? Reports one that is malformed. */
bool check_wants_digest(struct report *rep, const struct checker *ck,
			const struct fsck_loc *loc,
			const struct xattr_scan *xs);

/* The whole content was hashed into sha: its digest, checked if wanted. */
void check_digest(struct report *rep, const struct fsck_loc *loc,
		  struct erofs_sha256 *sha, uint8_t *digest,
		  const uint8_t *expected);

void check_sha_zeros(struct erofs_sha256 *sha, uint64_t len);

/* Check every record of a compressed index (mapping reads only some). */
enum fsck_result check_index(struct fsck_worker *w,
			     const struct erofs_inode *inode,
			     const struct fsck_loc *loc);

/*
 * Map every extent from pos to stop (an extent boundary, or i_size), and
 * with decode read them. piece: the piece of a split file being checked,
 * which may be cut short between extents (pieces.h), or NULL.
 */
enum fsck_result check_range(struct fsck_worker *w,
			     const struct erofs_inode *inode,
			     const struct fsck_loc *loc, bool decode,
			     struct data_sum *ds, uint64_t pos, uint64_t stop,
			     struct file_piece *piece);

/* A regular file's xattrs scanned: its index and data, and digest. */
enum fsck_result check_file(struct fsck_worker *w,
			    const struct erofs_inode *inode,
			    const struct fsck_loc *loc,
			    const struct xattr_scan *xs, struct data_sum *ds,
			    bool *digest_checked);

/* --list: the line of e. */
enum fsck_result check_list(struct checker *ck, const struct walk_entry *e,
			    const char *target);

/* -p: count the first name of an inode. */
enum fsck_result check_count_blocks(struct checker *ck,
				    const struct erofs_inode *inode,
				    uint64_t physical);

#endif
