/* SPDX-License-Identifier: MIT */
/*
 * The checks that the visitor (visit.c) and the scheduler (sched/) run:
 * they call these, never the other way round. A
 * check of a file's data takes its extents from a struct extent_source
 * (the pieces of a split file hand over the maps they were planned with,
 * and stop early when their outcome no longer counts) and hands the bytes
 * it decodes to the outputs and to a struct hash_sink (the pieces of a
 * split file hash through an ordered window).
 *
 * Results are enum fsck_result (result.h). The walker's visitor and the
 * pool's tasks return 0 or a negative errno instead: check_errno() is
 * the one place a result leaves for them, fsck_result_of() the one place
 * such an errno (and those of fsck's other parts) comes back.
 */
#ifndef FSCK_CHECK_INTERNAL_H
#define FSCK_CHECK_INTERNAL_H

#include <errno.h>

#include "check/check.h"
#include "output/output.h"
#include "result.h"
#include "util/xattr_list.h"

/* Where the extents of a range come from, besides mapping them. */
struct extent_source {
	/* Before each extent: false stops the range, its outcome dropped. */
	bool (*go_on)(void *arg);
	/* The extent at pos, if it is already mapped. */
	bool (*next_map)(void *arg, uint64_t pos, struct erofs_map *map);
	void *arg;
};

/* Where the bytes to hash go instead of data_sum.sha, in file order. */
struct hash_sink {
	enum fsck_result (*add)(void *arg, const uint8_t *buf, size_t len);
	enum fsck_result (*zeros)(void *arg, uint64_t len);
	void *arg;
};

/* What walking one inode's data gave. */
struct data_sum {
	uint64_t physical; /* stored: no holes, no fragments */
	bool hash;
	const struct hash_sink *sink; /* to hash later, or NULL: into sha */
	struct erofs_sha256 sha;
	uint8_t digest[EROFS_SHA256_LEN];
	bool have_digest;
	bool target_ok; /* symlink target in w->buf */
	bool salvaged; /* a range read as zeros (--ignore-errors) */
	/* a regular file's: its outputs, and what they are told of it */
	struct out_files *files;
	const struct out_file *of;
};

struct xattr_scan {
	struct fsck_worker *w;
	bool list; /* collect what listxattr shows */
	struct xattr_list listed;
	bool has_digest;
	bool bad_digest;
	uint8_t digest[EROFS_SHA256_LEN];
};

/* For the walker and the pool: 0 goes on, a negative errno stops. */
static inline int check_errno(enum fsck_result r)
{
	if (fsck_result_goes_on(r))
		return 0;
	return r == FSCK_NOMEM ? -ENOMEM : -ECANCELED;
}

/*
 * What the outputs are told of an entry the walker met, before its checks
 * say more (target, digest, xattrs).
 */
void check_out_entry(struct out_entry *oe, struct checker *ck,
		     const struct walk_entry *e, const struct fsck_loc *loc);

void check_loc(struct fsck_loc *loc, const char *path, size_t pathlen,
	       const struct erofs_inode *inode);

/* FSCK_REPORTED when no xattrs are kept. */
enum fsck_result check_xattrs(struct fsck_worker *w,
			      const struct erofs_inode *inode,
			      const struct fsck_loc *loc,
			      struct xattr_scan *xs);

/*
 * Is there a digest xattr to verify (--xattr-inode-digest)? Reports one
 * that is malformed.
 */
bool check_wants_digest(struct report *rep, const struct checker *ck,
			const struct fsck_loc *loc,
			const struct xattr_scan *xs);

/*
 * The whole content was hashed into sha: its digest, checked against
 * expected if not NULL. false (reported) when it differs.
 */
bool check_digest(struct report *rep, const struct fsck_loc *loc,
		  struct erofs_sha256 *sha, uint8_t *digest,
		  const uint8_t *expected);

/*
 * Hash len zero bytes: FSCK_OK, or FSCK_STOP when a signal came first
 * (the hash is then incomplete). A hole can be a file's whole size, up to
 * 2^64 bytes in a small image: the run still stops at once.
 */
enum fsck_result check_sha_zeros(struct erofs_sha256 *sha, uint64_t len);

/* Check every record of a compressed index (mapping reads only some). */
enum fsck_result check_index(struct fsck_worker *w,
			     const struct erofs_inode *inode,
			     const struct fsck_loc *loc);

/*
 * Map every extent from pos to stop (an extent boundary, or i_size), and
 * with decode read them. src: extents already mapped, and when to stop
 * early, or NULL.
 */
enum fsck_result check_range(struct fsck_worker *w,
			     const struct erofs_inode *inode,
			     const struct fsck_loc *loc, bool decode,
			     struct data_sum *ds, uint64_t pos, uint64_t stop,
			     const struct extent_source *src);

/* A regular file, whole: its index and every extent, hashed into ds. */
enum fsck_result check_file(struct fsck_worker *w,
			    const struct erofs_inode *inode,
			    const struct fsck_loc *loc, struct data_sum *ds);

/* An extent of the packed inode, decoded (check_packed_rest()). */
enum fsck_result check_packed_extent(struct fsck_worker *w,
				     const struct erofs_map *map);

/* A directory's or a symlink's data, on the walker (target: w->buf). */
enum fsck_result check_inline_data(struct checker *ck,
				   const struct erofs_inode *inode,
				   const struct fsck_loc *loc,
				   struct data_sum *ds);

/* -p: count the first name of an inode. */
enum fsck_result check_count_blocks(struct checker *ck,
				    const struct erofs_inode *inode,
				    uint64_t physical);

/* -p: count a further name of an inode. */
void check_count_name(struct checker *ck, const struct erofs_inode *inode);

/* Is the content of files hashed (an output takes digests)? */
bool check_hashes(const struct checker *ck);

#endif
