// SPDX-License-Identifier: MIT
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/progress.h"
#include "util/report.h"
#include "util/strbuf.h"

#define PROG "fsck.erofs"

enum rec_kind {
	REC_PROBLEM,
	REC_WARNING,
	REC_UNSUPPORTED,	/* "cannot check: ..." */
	REC_FAILURE,
	REC_FATAL,
	REC_MSG,		/* information, debugging: never logged */
	REC_DIFF,		/* --compare: on standard output */
};

struct report_rec {
	struct report_rec *next;
	uint8_t kind;
	uint8_t level;		/* REC_MSG */
	bool is_path;
	uint64_t nid, offset;
	char *where;		/* escaped path or label, NULL if none */
	char *msg;
};

static const char *const kind_prefix[] = {
	[REC_PROBLEM] = "",
	[REC_WARNING] = "warning: ",
	[REC_UNSUPPORTED] = "cannot check: ",
	[REC_FAILURE] = "",
	[REC_FATAL] = "",
	[REC_MSG] = "",
	[REC_DIFF] = "",
};

static const char *const kind_severity[] = {
	[REC_PROBLEM] = "error",
	[REC_WARNING] = "warning",
	[REC_UNSUPPORTED] = "unsupported",
	[REC_FAILURE] = "failure",
	[REC_FATAL] = "fatal",
	[REC_MSG] = "message",
	[REC_DIFF] = "difference",
};

void report_init(struct report *r, const char *image, int level)
{
	memset(r, 0, sizeof(*r));
	r->image = image;
	r->job = "check";
	r->level = level;
}

static void rec_free(struct report_rec *rec)
{
	free(rec->where);
	free(rec->msg);
	free(rec);
}

static void rec_list_free(struct report_rec *rec)
{
	while (rec) {
		struct report_rec *next = rec->next;

		rec_free(rec);
		rec = next;
	}
}

void report_fini(struct report *r)
{
	if (r->log) {
		rec_list_free(r->log->head);
		free(r->log);
		r->log = NULL;
	}
}

int report_keep_log(struct report *r)
{
	r->log = calloc(1, sizeof(*r->log));
	if (!r->log)
		return -ENOMEM;
	r->log->tail = &r->log->head;
	return 0;
}

/* "<where>: nid <n>, offset <o>" into sb. */
static void rec_where(struct strbuf *sb, const struct report_rec *rec)
{
	bool any = false;

	if (rec->where) {
		sb_adds(sb, rec->where);
		any = true;
	}
	if (rec->nid != EROFS_NO_NID) {
		sb_addf(sb, "%snid %llu", any ? ": " : "",
			(unsigned long long)rec->nid);
		any = true;
	}
	if (rec->offset != EROFS_NO_OFFSET)
		sb_addf(sb, "%soffset %llu", rec->nid != EROFS_NO_NID ? ", " :
			any ? ": " : "", (unsigned long long)rec->offset);
}

static bool rec_printed(const struct report *r, const struct report_rec *rec)
{
	if (rec->kind == REC_WARNING)
		return r->level >= FSCK_LVL_WARN;
	if (rec->kind == REC_MSG)
		return r->level >= rec->level;
	return true;
}

static void rec_print(struct report *r, const struct report_rec *rec)
{
	struct strbuf sb = STRBUF_INIT;

	if (!rec_printed(r, rec))
		return;
	rec_where(&sb, rec);
	progress_hide(r->progress);
	if (rec->kind == REC_DIFF) {
		printf("%s%s%s\n", sb.len ? sb.s : "", sb.len ? ": " : "",
		       rec->msg ? rec->msg : "out of memory");
		progress_show(r->progress);
		sb_release(&sb);
		return;
	}
	fflush(stdout);
	fprintf(stderr, PROG ": %s%s%s%s\n", sb.len ? sb.s : "",
		sb.len ? ": " : "", kind_prefix[rec->kind],
		rec->msg ? rec->msg : "out of memory");
	progress_show(r->progress);
	sb_release(&sb);
}

/* Print a record on the main report; keep it for --json or free it. */
static void rec_deliver(struct report *r, struct report_rec *rec)
{
	rec_print(r, rec);
	rec->next = NULL;
	if (!r->log || rec->kind == REC_MSG) {
		rec_free(rec);
		return;
	}
	if (r->log->count >= REPORT_LOG_MAX) {
		r->log->dropped++;
		rec_free(rec);
		return;
	}
	*r->log->tail = rec;
	r->log->tail = &rec->next;
	r->log->count++;
}

static void slot_append(struct report_slot *s, struct report_rec *rec)
{
	rec->next = NULL;
	*s->tail = rec;
	s->tail = &rec->next;
}

/* Send a record: to the slot that holds the report's messages, or out. */
static void rec_emit(struct report *r, struct report_rec *rec)
{
	if (r->slot)
		slot_append(r->slot, rec);
	else
		rec_deliver(r, rec);
}

/*
 * Control bytes of s as \xHH, in place of s: a name the image carries (a
 * partition's label, a path in a message) reaches the terminal only as
 * text, never as an escape sequence or a line of its own. s is freed.
 */
static char *without_controls(char *s)
{
	struct strbuf sb = STRBUF_INIT;
	const unsigned char *p = (const unsigned char *)s;
	size_t i;

	/* NUL, below 0x20 too, ends the run */
	for (i = 0; p && p[i] >= 0x20 && p[i] != 0x7f; i++)
		;
	if (!p || !p[i])
		return s;
	sb_add(&sb, s, i);
	for (; p[i]; i++) {
		if (p[i] < 0x20 || p[i] == 0x7f)
			sb_addf(&sb, "\\x%02x", p[i]);
		else
			sb_addc(&sb, (char)p[i]);
	}
	free(s);
	if (!sb.failed)
		return sb_detach(&sb);
	sb_release(&sb);
	return NULL;
}

static void rec_make(struct report *r, enum rec_kind kind, int level,
		     const struct fsck_loc *loc, uint64_t nid,
		     uint64_t offset, const char *fmt, va_list ap)
{
	struct report_rec *rec = calloc(1, sizeof(*rec));
	struct strbuf sb = STRBUF_INIT;

	if (!rec) {
		/* the message, at least, without its place */
		progress_hide(r->progress);
		fputs(PROG ": out of memory; ", stderr);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
		progress_show(r->progress);
		return;
	}
	rec->kind = kind;
	rec->level = level;
	rec->nid = nid;
	rec->offset = offset;
	if (loc && loc->path) {
		sb_addc(&sb, '/');
		sb_escape(&sb, loc->path, loc->pathlen, NULL);
		rec->where = sb_detach(&sb);
		rec->is_path = true;
	} else if (loc && loc->label) {
		rec->where = without_controls(strdup(loc->label));
	}
	if (vasprintf(&rec->msg, fmt, ap) < 0)
		rec->msg = NULL;
	rec->msg = without_controls(rec->msg);
	rec_emit(r, rec);
}

static void rec_makef(struct report *r, enum rec_kind kind,
		      const struct fsck_loc *loc, uint64_t nid,
		      uint64_t offset, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rec_make(r, kind, 0, loc, nid, offset, fmt, ap);
	va_end(ap);
}

static void loc_ids(const struct fsck_loc *loc, uint64_t *nid,
		    uint64_t *offset)
{
	*nid = loc ? loc->nid : EROFS_NO_NID;
	*offset = loc ? loc->offset : EROFS_NO_OFFSET;
}

void report_problem(struct report *r, const struct fsck_loc *loc,
		    const char *fmt, ...)
{
	uint64_t nid, offset;
	va_list ap;

	r->errors++;
	r->status |= FSCK_EXIT_UNCORRECTED;
	loc_ids(loc, &nid, &offset);
	va_start(ap, fmt);
	rec_make(r, REC_PROBLEM, 0, loc, nid, offset, fmt, ap);
	va_end(ap);
}

void report_warning(struct report *r, const struct fsck_loc *loc,
		    const char *fmt, ...)
{
	uint64_t nid, offset;
	va_list ap;

	r->warnings++;
	loc_ids(loc, &nid, &offset);
	va_start(ap, fmt);
	rec_make(r, REC_WARNING, 0, loc, nid, offset, fmt, ap);
	va_end(ap);
}

void report_difference(struct report *r, const struct fsck_loc *loc,
		       const char *fmt, ...)
{
	va_list ap;

	r->status |= FSCK_EXIT_DIFFERS;
	va_start(ap, fmt);
	rec_make(r, REC_DIFF, 0, loc, EROFS_NO_NID, EROFS_NO_OFFSET, fmt, ap);
	va_end(ap);
}

void report_failure(struct report *r, const struct fsck_loc *loc,
		    const char *fmt, ...)
{
	uint64_t nid, offset;
	va_list ap;

	r->status |= FSCK_EXIT_OPERATIONAL;
	loc_ids(loc, &nid, &offset);
	va_start(ap, fmt);
	rec_make(r, REC_FAILURE, 0, loc, nid, offset, fmt, ap);
	va_end(ap);
}

/* The message of a library failure, as report_lib_error() prints it. */
static int lib_error_rec(struct report *r, const struct fsck_loc *loc,
			 const struct erofs_err *err, int code)
{
	uint64_t nid, offset;
	const char *msg;

	if (err->code)
		code = err->code;
	loc_ids(loc, &nid, &offset);
	if (err->nid != EROFS_NO_NID)
		nid = err->nid;
	if (err->offset != EROFS_NO_OFFSET)
		offset = err->offset;
	msg = err->msg[0] ? err->msg : strerror(-code);

	/* the library stopped as asked: main() reports the signal */
	if (code == -EINTR) {
		if (!r->fatal)
			r->fatal = code;
		return 0;
	}
	if (erofs_err_is_corruption(code)) {
		r->errors++;
		r->status |= FSCK_EXIT_UNCORRECTED;
		rec_makef(r, REC_PROBLEM, loc, nid, offset, "%s", msg);
		return 0;
	}
	r->status |= FSCK_EXIT_OPERATIONAL;
	if (code == -EOPNOTSUPP) {
		rec_makef(r, REC_UNSUPPORTED, loc, nid, offset, "%s", msg);
		return 0;
	}
	if (!r->fatal)
		r->fatal = code;
	if (code == -ENOMEM)
		rec_makef(r, REC_FATAL, loc, nid, offset,
			  "out of memory during the %s", r->job);
	else
		rec_makef(r, REC_FATAL, loc, nid, offset, "%s", msg);
	return code;
}

int report_lib_error(struct report *r, const struct fsck_loc *loc,
		     struct erofs_err *err, int code)
{
	int ret = lib_error_rec(r, loc, err, code);

	erofs_err_clear(err);
	return ret;
}

/* A record that stops the run, with its exit status and errno. */
static void rec_stop(struct report *r, int status, int code, const char *fmt,
		     va_list ap)
{
	r->status |= status;
	if (!r->fatal)
		r->fatal = code;
	rec_make(r, REC_FATAL, 0, NULL, EROFS_NO_NID, EROFS_NO_OFFSET, fmt,
		 ap);
}

void report_fatal(struct report *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rec_stop(r, FSCK_EXIT_OPERATIONAL, -EIO, fmt, ap);
	va_end(ap);
}

void report_fatal_at(struct report *r, const struct fsck_loc *loc, int code,
		     const char *fmt, ...)
{
	uint64_t nid, offset;
	va_list ap;

	r->status |= FSCK_EXIT_OPERATIONAL;
	if (!r->fatal)
		r->fatal = code < 0 ? code : -EIO;
	loc_ids(loc, &nid, &offset);
	va_start(ap, fmt);
	rec_make(r, REC_FATAL, 0, loc, nid, offset, fmt, ap);
	va_end(ap);
}

void report_nomem(struct report *r, const struct fsck_loc *loc)
{
	struct fsck_loc whole = {
		.label = r->image,
		.nid = EROFS_NO_NID,
		.offset = EROFS_NO_OFFSET,
	};

	report_fatal_at(r, loc ? loc : &whole, -ENOMEM,
			"out of memory during the %s", r->job);
}

void report_cancelled(struct report *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rec_stop(r, FSCK_EXIT_CANCELLED, -EINTR, fmt, ap);
	va_end(ap);
}

void report_usage(struct report *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rec_stop(r, FSCK_EXIT_USAGE, -EINVAL, fmt, ap);
	va_end(ap);
}

void report_msg(struct report *r, int level, const char *fmt, ...)
{
	va_list ap;

	if (r->level < level)
		return;
	va_start(ap, fmt);
	rec_make(r, REC_MSG, level, NULL, EROFS_NO_NID, EROFS_NO_OFFSET, fmt,
		 ap);
	va_end(ap);
}

int report_finish(struct report *r)
{
	/*
	 * A run that stopped is not completed, and neither is one that
	 * failed with an entry (could not create it, a --files-from path not
	 * in the image, an entry a format refused), though it went through
	 * the rest: what was asked for was not all done.
	 */
	bool incomplete = r->fatal || (r->status & (FSCK_EXIT_CANCELLED |
						    FSCK_EXIT_OPERATIONAL));

	progress_hide(r->progress);
	if (r->errors)
		fprintf(stderr, PROG ": %lu error%s found in %s%s%s%s\n",
			r->errors, r->errors == 1 ? "" : "s", r->image,
			incomplete ? "; " : "", incomplete ? r->job : "",
			incomplete ? " not completed" : "");
	else if (incomplete)
		fprintf(stderr, PROG ": %s: %s not completed\n", r->image,
			r->job);
	else if (r->status & FSCK_EXIT_DIFFERS)
		fprintf(stderr, PROG ": %s differs from the directory\n",
			r->image);
	else if (r->level >= FSCK_LVL_INFO)
		fprintf(stderr, PROG ": no errors found in %s\n", r->image);
	progress_show(r->progress);
	return r->status;
}

void report_slot_init(struct report_slot *slot)
{
	slot->head = NULL;
	slot->tail = &slot->head;
}

void report_held_init(const struct report *main, struct report *r,
		      struct report_slot *slot)
{
	report_slot_init(slot);
	memset(r, 0, sizeof(*r));
	r->image = main->image;
	r->job = main->job;
	r->level = main->level;
	r->slot = slot;
}

void report_hold(struct report *r, struct report_slot *slot)
{
	r->slot = slot;
}

void report_release(struct report *r, struct report_slot *slot)
{
	struct report_rec *rec = slot->head, *next;

	for (; rec; rec = next) {
		next = rec->next;
		rec_emit(r, rec);
	}
	report_slot_init(slot);
}

void report_take(struct report *dst, struct report *src)
{
	report_release(dst, src->slot);
	dst->errors += src->errors;
	dst->warnings += src->warnings;
	dst->status |= src->status;
	if (src->fatal && !dst->fatal)
		dst->fatal = src->fatal;
}

void report_discard(struct report *r)
{
	rec_list_free(r->slot->head);
	report_slot_init(r->slot);
}

struct report_rec *report_log_first(const struct report *r)
{
	return r->log ? r->log->head : NULL;
}

struct report_rec *report_log_next(const struct report_rec *rec)
{
	return rec->next;
}

void report_rec_view(const struct report_rec *rec,
		     struct report_rec_view *view)
{
	view->severity = kind_severity[rec->kind];
	view->where = rec->where;
	view->is_path = rec->is_path;
	view->nid = rec->nid;
	view->offset = rec->offset;
	view->message = rec->msg ? rec->msg : "out of memory";
}
