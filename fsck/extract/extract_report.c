// SPDX-License-Identifier: MIT
/*
 * How the extractor reports what it could not do: at the entry, naming
 * the output path, and whether the run goes on. A failure with one output
 * file is reported and the run goes on; an error after which nothing more
 * can be written stops it.
 */
#include <errno.h>
#include <string.h>

#include "extract/extract_state.h"
#include "util/strbuf.h"

/* strerror(), and what the extractor's own codes mean. */
const char *x_strerror(int err)
{
	if (err == X_ERR_INPUT)
		return "the entry in the way is the image (or a --device) being read, never replaced";
	return strerror(err);
}

void x_report_errno(struct report *rep, const struct fsck_loc *loc,
		    const char *what, int err)
{
	report_failure(rep, loc, "cannot %s: %s", what, x_strerror(err));
}

/* Where the entry at loc goes: DIR, then its path below the start. */
static void x_out_path(const struct extractor *x, const struct fsck_loc *loc,
		       struct strbuf *sb)
{
	size_t skip = x->start_pathlen + !!x->start_pathlen;

	sb_escape(sb, x->o.dir, strlen(x->o.dir), NULL);
	if (loc->path && loc->pathlen > skip) {
		sb_addc(sb, '/');
		sb_escape(sb, loc->path + skip, loc->pathlen - skip, NULL);
	}
}

/*
 * "cannot <what> <output path>: <error>", a failure or, with fatal, an
 * error that stops the run.
 */
void x_report_out(struct extractor *x, struct report *rep,
		  const struct fsck_loc *loc, bool fatal, const char *what,
		  int err)
{
	struct strbuf sb = STRBUF_INIT;
	const char *out;

	x_out_path(x, loc, &sb);
	out = sb.failed ? "(out of memory)" : sb.s;
	if (fatal)
		report_fatal_at(rep, loc, -err, "cannot %s %s: %s", what, out,
				x_strerror(err));
	else
		report_failure(rep, loc, "cannot %s %s: %s", what, out,
			       x_strerror(err));
	sb_release(&sb);
}

void x_report_exists(struct report *rep, const struct fsck_loc *loc,
		     const char *what)
{
	report_failure(rep, loc,
		       "cannot %s: an entry of that name exists (--overwrite replaces it)",
		       what);
}

/* Errors after which nothing more can be written: stop the run. */
static bool errno_stops(int err)
{
	return err == ENOSPC || err == EDQUOT || err == EIO || err == EFBIG ||
	       err == EROFS || err == ENOMEM;
}

/* Creation failed with errno err: report it, and whether the run stops. */
enum fsck_result x_create_failed(struct extractor *x, struct report *rep,
				 const struct fsck_loc *loc, const char *what,
				 int err)
{
	bool stops = errno_stops(err);

	x_report_out(x, rep, loc, stops, what, err);
	return stops ? FSCK_STOP : FSCK_REPORTED;
}
