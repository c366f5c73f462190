// SPDX-License-Identifier: MIT
#include <errno.h>
#include <string.h>

#include "check/check.h"
#include "check/integrity.h"
#include "erofs/image.h"
#include "extract/extract.h"
#include "output/json.h"
#include "util/cpu_share.h"
#include "util/report.h"
#include "util/strbuf.h"

/* Length of the valid UTF-8 sequence at s, 0 if there is none. */
static size_t utf8_len(const unsigned char *s, size_t left)
{
	size_t n, i;

	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	n = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	if (n > left)
		return 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xf0 && s[1] < 0x90) ||
	    (s[0] == 0xf4 && s[1] > 0x8f) || (s[0] == 0xed && s[1] > 0x9f))
		return 0;
	return n;
}

void json_str(struct strbuf *sb, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t len = strlen(str), i = 0, n;

	sb_addc(sb, '"');
	while (i < len) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\') {
			sb_addc(sb, '\\');
			sb_addc(sb, (char)c);
		} else if (c < 0x20 || c == 0x7f) {
			sb_addf(sb, "\\u%04x", c);
		} else if (c < 0x80) {
			sb_addc(sb, (char)c);
		} else if ((n = utf8_len(s + i, len - i))) {
			sb_add(sb, s + i, n);
			i += n;
			continue;
		} else {
			sb_addf(sb, "\\ufffd");
		}
		i++;
	}
	sb_addc(sb, '"');
}

static void json_key(struct strbuf *sb, const char *key, bool *first)
{
	sb_addf(sb, "%s\n  \"%s\": ", *first ? "" : ",", key);
	*first = false;
}

static void json_u64(struct strbuf *sb, const char *key, uint64_t v,
		     bool *first)
{
	json_key(sb, key, first);
	sb_add_num(sb, v, 10, 0);
}

static void json_id(struct strbuf *sb, const char *key, uint64_t v)
{
	if (v == UINT64_MAX)
		sb_addf(sb, ", \"%s\": null", key);
	else
		sb_addf(sb, ", \"%s\": %llu", key, (unsigned long long)v);
}

static void json_features(struct strbuf *sb, const struct erofs_image *img)
{
	char names[512], *p, *save = NULL;
	bool any = false;

	sb_addc(sb, '[');
	if (erofs_feature_names(img, names, sizeof(names)) < 0)
		names[0] = '\0';
	for (p = strtok_r(names, " ", &save); p;
	     p = strtok_r(NULL, " ", &save)) {
		sb_adds(sb, any ? ", " : "");
		json_str(sb, p);
		any = true;
	}
	sb_addc(sb, ']');
}

static void json_image(struct strbuf *sb, const struct erofs_image *img,
		       bool *first)
{
	if (!img)
		return;
	json_u64(sb, "block_size", img->blksz, first);
	json_u64(sb, "blocks", img->blocks, first);
	json_key(sb, "features", first);
	json_features(sb, img);
}

static void json_counts(struct strbuf *sb, const struct json_summary *s,
			bool *first)
{
	const struct fsck_stats *st = s->stats;
	uint64_t stored;

	if (!st)
		return;
	stored = st->stored + st->packed_stored;
	json_u64(sb, "inodes", st->dirs + st->files + st->symlinks +
		 st->specials, first);
	json_u64(sb, "directories", st->dirs, first);
	json_u64(sb, "files", st->files, first);
	json_u64(sb, "symlinks", st->symlinks, first);
	json_u64(sb, "specials", st->specials, first);
	json_u64(sb, "entries", s->entries, first);
	json_u64(sb, "bytes", st->bytes, first);
	json_u64(sb, "compressed_bytes", stored, first);
	json_key(sb, "ratio", first);
	sb_addf(sb, "%.4f", st->bytes ? (double)stored / (double)st->bytes : 0);
	if (!st->packed_encoded)
		return;
	json_u64(sb, "packed_encoded_bytes", st->packed_encoded, first);
	json_u64(sb, "packed_decoded_bytes", st->packed_decoded, first);
}

static void json_extracted(struct strbuf *sb, const struct extract_stats *x,
			   bool *first)
{
	if (!x)
		return;
	json_key(sb, "extracted", first);
	sb_addf(sb, "{\"directories\": %llu, \"files\": %llu, \"symlinks\": %llu, \"specials\": %llu, \"hard_links\": %llu}",
		(unsigned long long)x->dirs, (unsigned long long)x->files,
		(unsigned long long)x->symlinks,
		(unsigned long long)x->nodes, (unsigned long long)x->links);
}

/* The CPU time of each role, and the walker's share of it. */
/*
 * "integrity": where the root hash came from ("option", "gpt-uuids",
 * "gpt-signature", "vbmeta", "none"), whether it is the user's, the bytes
 * of the filesystem a tree verified and not, on each device, and the
 * files whose digest was checked.
 */
static void json_integrity(struct strbuf *sb, const struct integrity *in,
			   bool *first)
{
	unsigned int i;

	if (!in || !in->root)
		return;
	json_key(sb, "integrity", first);
	sb_adds(sb, "{\"root_hash_from\": ");
	json_str(sb, in->root);
	sb_adds(sb, ", \"anchored\": ");
	sb_adds(sb, in->anchored ? "true" : "false");
	sb_adds(sb, ", \"tree_failed\": ");
	sb_adds(sb, in->tree_failed ? "true" : "false");
	sb_addf(sb, ", \"verified_bytes\": %llu, \"unverified_bytes\": %llu",
		(unsigned long long)in->verified,
		(unsigned long long)in->unverified);
	sb_adds(sb, ", \"devices\": [");
	for (i = 0; i < in->ndevs; i++) {
		sb_adds(sb, i ? ", {\"path\": " : "{\"path\": ");
		json_str(sb, in->devs[i].path);
		sb_addf(sb, ", \"bytes\": %llu, \"verified_bytes\": %llu}",
			(unsigned long long)in->devs[i].bytes,
			(unsigned long long)in->devs[i].verified);
	}
	sb_addf(sb, "], \"digests_checked\": %llu}",
		(unsigned long long)in->digests_checked);
}

static void json_cpu(struct strbuf *sb, const struct cpu_share *cs, bool *first)
{
	unsigned int i;

	if (!cs)
		return;
	json_key(sb, "cpu_seconds", first);
	sb_addf(sb, "{\"walker\": %.3f, \"workers\": [",
		(double)cs->walker_ns / 1e9);
	for (i = 0; i < cs->workers; i++)
		sb_addf(sb, "%s%.3f", i ? ", " : "",
			(double)cs->worker_ns[i] / 1e9);
	sb_addf(sb, "]}");
	json_key(sb, "walker_cpu_share", first);
	sb_addf(sb, "%.4f", cpu_share_walker(cs));
}

static void json_problems(struct strbuf *sb, const struct report *rep,
			  bool *first)
{
	struct report_rec *rec = report_log_first(rep);
	struct report_rec_view v;
	bool any = false;

	json_key(sb, "problems", first);
	sb_addc(sb, '[');
	for (; rec; rec = report_log_next(rec)) {
		report_rec_view(rec, &v);
		sb_addf(sb, "%s\n    {\"severity\": ", any ? "," : "");
		json_str(sb, v.severity);
		sb_addf(sb, ", \"path\": ");
		if (v.where && v.is_path)
			json_str(sb, v.where);
		else
			sb_addf(sb, "null");
		if (v.where && !v.is_path) {
			sb_addf(sb, ", \"where\": ");
			json_str(sb, v.where);
		}
		json_id(sb, "nid", v.nid);
		json_id(sb, "offset", v.offset);
		sb_addf(sb, ", \"message\": ");
		json_str(sb, v.message);
		sb_addc(sb, '}');
		any = true;
	}
	sb_addf(sb, "%s]", any ? "\n  " : "");
	json_u64(sb, "problems_omitted", rep->log ? rep->log->dropped : 0,
		 first);
}

int json_write(FILE *out, const struct json_summary *s,
	       const struct report *rep)
{
	struct strbuf sb = STRBUF_INIT;
	bool first = true, incomplete;
	int ret = 0;

	sb_addc(&sb, '{');
	json_key(&sb, "program", &first);
	json_str(&sb, "fsck.erofs");
	json_key(&sb, "version", &first);
	json_str(&sb, PACKAGE_VERSION);
	json_key(&sb, "image", &first);
	json_str(&sb, s->image);
	json_image(&sb, s->img, &first);
	json_key(&sb, "extract_dir", &first);
	if (s->extract_dir)
		json_str(&sb, s->extract_dir);
	else
		sb_addf(&sb, "null");
	json_u64(&sb, "jobs", s->jobs, &first);
	json_counts(&sb, s, &first);
	json_extracted(&sb, s->extracted, &first);
	json_cpu(&sb, s->cpu, &first);
	json_key(&sb, "elapsed_seconds", &first);
	sb_addf(&sb, "%.3f", s->elapsed);
	json_u64(&sb, "errors", rep->errors, &first);
	json_u64(&sb, "warnings", rep->warnings, &first);
	json_u64(&sb, "exit_status", (uint64_t)s->status, &first);
	json_key(&sb, "completed", &first);
	incomplete = s->status & (FSCK_EXIT_OPERATIONAL | FSCK_EXIT_CANCELLED);
	sb_adds(&sb, incomplete ? "false" : "true");
	json_integrity(&sb, s->integrity, &first);
	json_problems(&sb, rep, &first);
	sb_addf(&sb, "\n}\n");
	if (sb.failed)
		ret = -ENOMEM;
	else if (fwrite(sb.s, 1, sb.len, out) != sb.len || fflush(out))
		ret = -EIO;
	sb_release(&sb);
	return ret;
}
