// SPDX-License-Identifier: MIT
/*
 * What the archive's format could not hold or refused, counted by kind
 * while entries are written and reported once per kind at the end, with
 * the entries' names (tar_internal.h).
 */
#include <archive.h>
#include <string.h>

#include "output/tar/tar.h"
#include "output/tar/tar_internal.h"
#include "output/tar/tarentry.h"
#include "util/outfile.h"

/*
 * Count libarchive's message about entry name by kind: its text up to a
 * quoted name.
 */
void tar_note(struct tar_writer *tw, bool failed, const char *name)
{
	const char *s = archive_error_string(tw->a);
	struct tar_msg *m;
	size_t kind;
	unsigned int i;

	if (!s)
		s = "unknown libarchive error";
	kind = strcspn(s, "'");
	for (i = 0; i < tw->nmsgs; i++) {
		m = &tw->msgs[i];
		if (m->failed == failed && m->kindlen == kind &&
		    !strncmp(m->text, s, kind)) {
			tar_named_add(&m->entries, name, tw->all_names);
			return;
		}
	}
	if (tw->nmsgs == TAR_MAX_MSGS || !(tw->msgs[i].text = strdup(s))) {
		tw->more_msgs++;
		return;
	}
	m = &tw->msgs[tw->nmsgs++];
	m->kindlen = kind;
	m->failed = failed;
	tar_named_add(&m->entries, name, tw->all_names);
}

/*
 * The names a report line of n ends with: none when the one entry is
 * named by libarchive's own text already.
 */
static void tar_names_of(const struct tar_named *n, const char *text,
			 struct strbuf *sb)
{
	size_t len = n->names.s ? strlen(n->names.s) : 0;

	sb_reset(sb);
	/* libarchive's "NAME: what" */
	if (n->count == 1 && len && text && !strncmp(text, n->names.s, len) &&
	    text[len] == ':')
		return;
	tar_named_text(n, sb);
}

static void tar_report_lost(struct tar_writer *tw, struct report *rep)
{
	struct strbuf names = STRBUF_INIT;
	const struct tar_named *n;
	unsigned int k;

	for (k = 0; k < TAR_LOST_KINDS; k++) {
		n = &tw->losses.kind[k];
		if (!n->count)
			continue;
		tar_names_of(n, NULL, &names);
		if (k == TAR_LOST_SOCKETS)
			report_warning(rep, NULL, "--tar: %s (%llu%s)",
				       tarentry_lost_text(k),
				       (unsigned long long)n->count,
				       names.len ? names.s : "");
		else
			report_warning(rep, NULL,
				       "--format=%s: %s (%llu %s%s)",
				       tw->format, tarentry_lost_text(k),
				       (unsigned long long)n->count,
				       report_noun(n->count, "entry", "entries"),
				       names.len ? names.s : "");
	}
	sb_release(&names);
}

static void tar_report_msgs(struct tar_writer *tw, struct report *rep)
{
	struct strbuf names = STRBUF_INIT;
	const struct tar_msg *m;
	unsigned int i;

	for (i = 0; i < tw->nmsgs; i++) {
		m = &tw->msgs[i];
		tar_names_of(&m->entries, m->text, &names);
		if (m->failed)
			report_failure(
				rep, NULL,
				"--format=%s: %llu %s left out, as: %s%s",
				tw->format,
				(unsigned long long)m->entries.count,
				report_noun(m->entries.count, "entry",
					    "entries"),
				m->text, names.len ? names.s : "");
		else
			report_warning(
				rep, NULL, "--format=%s: %llu %s, as: %s%s",
				tw->format,
				(unsigned long long)m->entries.count,
				report_noun(m->entries.count, "entry",
					    "entries"),
				m->text, names.len ? names.s : "");
	}
	if (tw->more_msgs)
		report_failure(
			rep, NULL,
			"--format=%s: %llu more %s with other libarchive messages",
			tw->format, (unsigned long long)tw->more_msgs,
			report_noun(tw->more_msgs, "entry", "entries"));
	if (tw->binary_names.count) {
		tar_names_of(&tw->binary_names, NULL, &names);
		report_warning(
			rep, NULL,
			"--tar: %llu %s not valid UTF-8, stored as %s bytes%s%s",
			(unsigned long long)tw->binary_names.count,
			report_noun(tw->binary_names.count, "name", "names"),
			report_noun(tw->binary_names.count, "its", "their"),
			tw->caps.sparse ?
				" with hdrcharset=BINARY (GNU tar warns of the keyword, and restores the bytes)" :
				"",
			names.len ? names.s : "");
	}
	if (tw->orphans)
		report_msg(rep, FSCK_LVL_INFO,
			   "--tar: %llu later %s left out with their file",
			   (unsigned long long)tw->orphans,
			   report_noun(tw->orphans, "name", "names"));
	if (tw->check_failed)
		report_warning(
			rep, NULL,
			"--tar: %llu %s left out, whose data or xattrs failed the check",
			(unsigned long long)tw->check_failed,
			report_noun(tw->check_failed, "file", "files"));
	if (tw->spool_failed) {
		tar_names_of(&tw->left_out, NULL, &names);
		report_failure(
			rep, NULL,
			"--tar: %llu %s left out: cannot keep their data in %s (TMPDIR): %s%s",
			(unsigned long long)tw->spool_failed,
			report_noun(tw->spool_failed, "file", "files"),
			outfile_spool_dir(), strerror(tw->spool_err),
			names.len ? names.s : "");
	}
	sb_release(&names);
}

void tar_report(struct tar_writer *tw, struct report *rep)
{
	tar_report_lost(tw, rep);
	tar_report_msgs(tw, rep);
}
