// SPDX-License-Identifier: MIT
/*
 * What the archive is (tar_internal.h): its libarchive format and the
 * options that go with it, the user's --options, and its compression.
 */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "output/tar/tar.h"
#include "output/tar/tar_internal.h"
#include "output/tar/tarentry.h"

bool tar_format_known(const char *name)
{
	struct archive *a = archive_write_new();
	bool known = a && archive_write_set_format_by_name(a, name) ==
				  ARCHIVE_OK;

	archive_write_free(a);
	return known;
}

/*
 * FILE's suffix and its compression, as GNU tar's and bsdtar's -a pick
 * them, whatever the letters' case but for compress's ".Z"
 */
static const struct {
	const char *suffix, *filter;
} tar_suffixes[] = {
	{ ".gz", "gzip" },     { ".tgz", "gzip" },   { ".taz", "gzip" },
	{ ".xz", "xz" },       { ".txz", "xz" },     { ".zst", "zstd" },
	{ ".tzst", "zstd" },   { ".bz2", "bzip2" },  { ".tbz", "bzip2" },
	{ ".tbz2", "bzip2" },  { ".tb2", "bzip2" },  { ".lz4", "lz4" },
	{ ".lzma", "lzma" },   { ".tlz", "lzma" },   { ".lz", "lzip" },
	{ ".lzo", "lzop" },    { ".Z", "compress" }, { ".taZ", "compress" },
};

/* FILE's suffix before its compression's, and the format it names */
static const struct {
	const char *suffix, *format;
} format_suffixes[] = {
	{ ".zip", "zip" },     { ".jar", "zip" },     { ".cpio", "cpio" },
	{ ".7z", "7zip" },     { ".iso", "iso9660" }, { ".mtree", "mtree" },
	{ ".warc", "warc" },   { ".shar", "shar" },   { ".ar", "arbsd" },
};

/* Does file (len bytes) end with suffix (".Z" exactly, others in any case)? */
static bool ends_with(const char *file, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	if (len <= n)
		return false;
	if (!strcmp(suffix, ".Z"))
		return !strncmp(file + len - n, suffix, n);
	return !strncasecmp(file + len - n, suffix, n);
}

/* The compression suffix file ends with (its table index), or -1. */
static int compression_suffix(const char *file, size_t len)
{
	unsigned int i;

	for (i = 0; i < sizeof(tar_suffixes) / sizeof(tar_suffixes[0]); i++)
		if (ends_with(file, len, tar_suffixes[i].suffix))
			return (int)i;
	return -1;
}

const char *tar_compression(const char *file, const char *compress)
{
	int i;

	if (compress)
		return strcmp(compress, "none") ? compress : NULL;
	i = compression_suffix(file, strlen(file));
	return i < 0 ? NULL : tar_suffixes[i].filter;
}

const char *tar_format_of(const char *file, const char *format)
{
	size_t len = strlen(file);
	unsigned int k;
	int i;

	if (format)
		return format;
	i = compression_suffix(file, len);
	/* a.cpio.gz: the format's suffix before the compression's */
	if (i >= 0 && tar_suffixes[i].suffix[1] != 't')
		len -= strlen(tar_suffixes[i].suffix);
	for (k = 0; k < sizeof(format_suffixes) / sizeof(format_suffixes[0]);
	     k++)
		if (ends_with(file, len, format_suffixes[k].suffix))
			return format_suffixes[k].format;
	return "pax";
}

bool tar_compression_known(const char *name)
{
	struct archive *a = archive_write_new();
	int ret = a ? archive_write_add_filter_by_name(a, name) : ARCHIVE_FATAL;

	archive_write_free(a);
	/* a warning: libarchive runs the compressor as a program */
	return ret == ARCHIVE_OK || ret == ARCHIVE_WARN;
}

/*
 * The compression of the archive, with the threads of -j where the
 * filter has them (xz, zstd): compressing on one core would make the
 * run that much slower.
 */
int tar_set_filter(struct tar_writer *tw, struct report *rep)
{
	const char *filter = tar_compression(tw->file, tw->compress);
	char threads[16];

	if (!filter)
		return 0;
	if (archive_write_add_filter_by_name(tw->a, filter) < ARCHIVE_WARN) {
		report_fatal(rep, "--compress=%s: %s", filter,
			     archive_error_string(tw->a));
		return -EINVAL;
	}
	/* the compressor's stream ends where it ends: no zeros after it */
	archive_write_set_bytes_in_last_block(tw->a, 1);
	snprintf(threads, sizeof(threads), "%u", tw->threads);
	if (tw->threads > 1 && (!strcmp(filter, "xz") || !strcmp(filter, "zstd")))
		/* an older libarchive has no such option: one thread, then */
		archive_write_set_filter_option(tw->a, filter, "threads",
						threads);
	return 0;
}

const char *tar_options_refused(const char *format, const char *options)
{
	static char why[256];
	struct archive *a = archive_write_new();
	const char *refused = "out of memory";

	if (a && archive_write_set_format_by_name(a, format ? format : "pax") ==
			 ARCHIVE_OK) {
		refused = NULL;
		if (archive_write_set_options(a, options) != ARCHIVE_OK) {
			snprintf(why, sizeof(why), "%s",
				 archive_error_string(a));
			refused = why;
		}
	}
	archive_write_free(a);
	return refused;
}

/*
 * The writer's (module's) conversion of names to UTF-8, made while this
 * thread's locale reads text as UTF-8: libarchive keeps the charset it
 * finds then for the life of the archive. Without such a locale, the
 * caller's.
 */
static int tar_names_utf8(struct archive *a, const char *module)
{
	locale_t utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
	locale_t saved = (locale_t)0;
	int ret;

	if (utf8)
		saved = uselocale(utf8);
	ret = archive_write_set_format_option(a, module, "hdrcharset",
					      "UTF-8");
	if (utf8) {
		uselocale(saved);
		freelocale(utf8);
	}
	return ret;
}

/*
 * pax: xattrs in SCHILY.xattr records alone, as GNU tar writes them: GNU
 * tar warns of every LIBARCHIVE.xattr record (libarchive's default writes
 * both), and GNU tar and bsdtar both restore SCHILY ones
 * (--options=xattrheader=ALL brings libarchive's back). Names are written
 * as UTF-8, converted from UTF-8 whatever the caller's locale, so that
 * only a name that is not valid UTF-8 takes hdrcharset=BINARY (with a
 * warning of libarchive's).
 */
static int tar_pax_options(struct archive *a)
{
	int ret = archive_write_set_format_option(a, "pax", "xattrheader",
						  "SCHILY");

	return ret == ARCHIVE_OK ? tar_names_utf8(a, "pax") : ret;
}

int tar_set_format(struct tar_writer *tw, struct report *rep)
{
	struct archive *a = tw->a;

	if (archive_write_set_format_by_name(a, tw->format) != ARCHIVE_OK) {
		report_fatal(rep, "--format=%s: %s", tw->format,
			     archive_error_string(a));
		return -EINVAL;
	}
	tarentry_caps(a, &tw->caps);
	/* mtree is for verifying: the digest of every regular file */
	if ((archive_format(a) & ARCHIVE_FORMAT_BASE_MASK) ==
		    ARCHIVE_FORMAT_MTREE &&
	    archive_write_set_format_option(a, "mtree", "sha256", "1") !=
		    ARCHIVE_OK) {
		report_fatal(rep, "--format=%s: %s", tw->format,
			     archive_error_string(a));
		return -EINVAL;
	}
	/*
	 * Only tar and cpio readers expect the archive padded to a whole
	 * block (10 KiB): others, warc's among them, read the padding as a
	 * record and fail.
	 */
	if ((archive_format(a) & ARCHIVE_FORMAT_BASE_MASK) !=
		    ARCHIVE_FORMAT_TAR &&
	    (archive_format(a) & ARCHIVE_FORMAT_BASE_MASK) !=
		    ARCHIVE_FORMAT_CPIO)
		archive_write_set_bytes_in_last_block(a, 1);
	/* unbuffered, so that tar_header_refused() can drop what it must */
	if ((archive_format(a) & ARCHIVE_FORMAT_BASE_MASK) ==
	    ARCHIVE_FORMAT_WARC)
		archive_write_set_bytes_per_block(a, 0);
	/* zip: UTF-8 names, with the flag that says so (0x0800) */
	if ((archive_format(a) & ARCHIVE_FORMAT_BASE_MASK) ==
		    ARCHIVE_FORMAT_ZIP &&
	    tar_names_utf8(a, "zip") != ARCHIVE_OK) {
		report_fatal(rep, "--format=%s: %s", tw->format,
			     archive_error_string(a));
		return -EINVAL;
	}
	if (tw->caps.sparse && tar_pax_options(a) != ARCHIVE_OK) {
		report_fatal(rep, "--format=%s: %s", tw->format,
			     archive_error_string(a));
		return -EINVAL;
	}
	/* --options: the user's, after the defaults, so that they win */
	if (tw->options &&
	    archive_write_set_options(a, tw->options) != ARCHIVE_OK) {
		report_fatal(rep, "--options=%s: %s", tw->options,
			     archive_error_string(a));
		return -EINVAL;
	}
	return 0;
}
