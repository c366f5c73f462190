/* SPDX-License-Identifier: MIT */
/*
 * --json: the report of a run as one JSON object on stdout, written at the
 * end. Paths are escaped as in the manifest (every byte outside 0x21..0x7e
 * and the backslash as \xHH), so that any name fits in a JSON string:
 *
 *   {
 *     "program": "fsck.erofs", "version": "...",
 *     "image": "...", "block_size": 4096, "blocks": 338,
 *     "features": ["lz4_0padding", ...],
 *     "extract_dir": "..." or null, "jobs": 2,
 *     "inodes": 3193, "directories": 120, "files": 2900,
 *     "symlinks": 100, "specials": 8, "entries": 3200,
 *     "bytes": 6494083, "compressed_bytes": 1200000, "ratio": 0.1848,
 *     "extracted": {"directories": ..., "files": ..., "symlinks": ...,
 *                   "specials": ..., "hard_links": ...} (with a DIR),
 *     "elapsed_seconds": 0.123,
 *     "errors": 0, "warnings": 0, "exit_status": 0, "completed": true,
 *     "integrity": {"root_hash_from": "none", "anchored": false,
 *                   "tree_failed": false, "verified_bytes": 0,
 *                   "unverified_bytes": 1310720,
 *                   "devices": [{"path": "...", "bytes": 1310720,
 *                                "verified_bytes": 0}],
 *                   "digests_checked": 0} (once the tree was walked),
 *     "problems": [ {"severity": "error", "path": "/a/b", "nid": 12,
 *                    "offset": 4096, "message": "..."}, ... ],
 *     "problems_omitted": 0
 *   }
 *
 * "path" is null for problems of no entry, with "where" naming the part
 * of the image ("superblock", "packed inode"); "nid" and "offset" are
 * null when unknown. Severities: error (the image), warning, unsupported
 * (a feature this build cannot check), failure (the system refused an
 * operation), fatal (the run stopped).
 */
#ifndef FSCK_JSON_H
#define FSCK_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct cpu_share;
struct erofs_image;
struct integrity;
struct extract_stats;
struct fsck_stats;
struct report;
struct strbuf;

/* A JSON string of str into sb; bytes that are not UTF-8 become U+FFFD. */
void json_str(struct strbuf *sb, const char *str);

struct json_summary {
	const char *image;
	const struct erofs_image *img;		/* NULL if it did not open */
	const char *extract_dir;
	unsigned int jobs;
	double elapsed;
	const struct fsck_stats *stats;		/* NULL if no walk */
	uint64_t entries;
	const struct extract_stats *extracted;	/* NULL unless a DIR */
	const struct cpu_share *cpu; /* NULL if no walk */
	/* what was verified (check/integrity.h); root NULL if not known */
	const struct integrity *integrity;
	int status;				/* the exit status */
};

/* Write the report; 0 or -errno. */
int json_write(FILE *out, const struct json_summary *s,
	       const struct report *rep);

#endif
