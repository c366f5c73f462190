// SPDX-License-Identifier: MIT
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "report.h"
#include "strbuf.h"

#define PROG "fsck.erofs"

void report_init(struct report *r, const char *image, int level)
{
	memset(r, 0, sizeof(*r));
	r->image = image;
	r->level = level;
}

/* "<where>: nid <n>, offset <o>" into sb; nothing for a NULL loc. */
static void report_where(struct strbuf *sb, const struct fsck_loc *loc,
			 uint64_t nid, uint64_t offset)
{
	bool any = false;

	if (loc && loc->path) {
		sb_addc(sb, '/');
		sb_escape(sb, loc->path, loc->pathlen, NULL);
		any = true;
	} else if (loc && loc->label) {
		sb_addf(sb, "%s", loc->label);
		any = true;
	}
	if (nid != EROFS_NO_NID) {
		sb_addf(sb, "%snid %llu", any ? ": " : "",
			(unsigned long long)nid);
		any = true;
	}
	if (offset != EROFS_NO_OFFSET)
		sb_addf(sb, "%soffset %llu", nid != EROFS_NO_NID ? ", " :
			any ? ": " : "", (unsigned long long)offset);
}

static void report_vline(const struct fsck_loc *loc, uint64_t nid,
			 uint64_t offset, const char *kind, const char *fmt,
			 va_list ap)
{
	struct strbuf sb = STRBUF_INIT;

	report_where(&sb, loc, nid, offset);
	fflush(stdout);
	fprintf(stderr, PROG ": %s%s%s", sb.s && sb.len ? sb.s : "",
		sb.len ? ": " : "", kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	sb_release(&sb);
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
	report_vline(loc, nid, offset, "", fmt, ap);
	va_end(ap);
}

void report_warning(struct report *r, const struct fsck_loc *loc,
		    const char *fmt, ...)
{
	uint64_t nid, offset;
	va_list ap;

	r->warnings++;
	if (r->level < FSCK_LVL_WARN)
		return;
	loc_ids(loc, &nid, &offset);
	va_start(ap, fmt);
	report_vline(loc, nid, offset, "warning: ", fmt, ap);
	va_end(ap);
}

static void report_line(const struct fsck_loc *loc, uint64_t nid,
			uint64_t offset, const char *kind, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report_vline(loc, nid, offset, kind, fmt, ap);
	va_end(ap);
}

int report_lib_error(struct report *r, const struct fsck_loc *loc,
		     const struct erofs_err *err, int code)
{
	uint64_t nid, offset;
	const char *msg;

	if (err && err->code)
		code = err->code;
	loc_ids(loc, &nid, &offset);
	if (err && err->nid != EROFS_NO_NID)
		nid = err->nid;
	if (err && err->offset != EROFS_NO_OFFSET)
		offset = err->offset;
	msg = err && err->msg[0] ? err->msg : strerror(-code);

	if (erofs_err_is_corruption(code)) {
		r->errors++;
		r->status |= FSCK_EXIT_UNCORRECTED;
		report_line(loc, nid, offset, "", "%s", msg);
		return 0;
	}
	r->status |= FSCK_EXIT_OPERATIONAL;
	if (code == -EOPNOTSUPP) {
		report_line(loc, nid, offset, "cannot check: ", "%s", msg);
		return 0;
	}
	r->fatal = code;
	if (code == -ENOMEM)
		report_line(loc, nid, offset, "", "out of memory");
	else
		report_line(loc, nid, offset, "", "%s", msg);
	return code;
}

void report_fatal(struct report *r, const char *fmt, ...)
{
	va_list ap;

	r->status |= FSCK_EXIT_OPERATIONAL;
	if (!r->fatal)
		r->fatal = -EIO;
	fflush(stdout);
	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void report_msg(struct report *r, int level, const char *fmt, ...)
{
	va_list ap;

	if (r->level < level)
		return;
	fflush(stdout);
	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int report_finish(struct report *r)
{
	bool incomplete = r->status & FSCK_EXIT_OPERATIONAL;

	if (r->errors)
		fprintf(stderr, PROG ": %lu error%s found in %s%s\n", r->errors,
			r->errors == 1 ? "" : "s", r->image,
			incomplete ? "; check not completed" : "");
	else if (incomplete)
		fprintf(stderr, PROG ": %s: check not completed\n", r->image);
	else
		report_msg(r, FSCK_LVL_INFO, "no errors found in %s", r->image);
	return r->status;
}
