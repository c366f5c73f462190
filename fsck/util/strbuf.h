/* SPDX-License-Identifier: MIT */
/*
 * A growable string for building output lines, with the escaping rules of
 * the manifest format (fixtures README, "Manifest format"): every byte
 * outside 0x21..0x7e, the backslash, and any byte of an extra set is written
 * as \xHH. Allocation failure is sticky: check sb->failed once at the end.
 */
#ifndef FSCK_STRBUF_H
#define FSCK_STRBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct strbuf {
	char *s;		/* NUL-terminated once anything was added */
	size_t len;
	size_t cap;
	bool failed;		/* an allocation failed; content is truncated */
};

#define STRBUF_INIT { NULL, 0, 0, false }

void sb_release(struct strbuf *sb);
void sb_reset(struct strbuf *sb);
/* Take ownership of the string (never NULL unless failed); sb is reset. */
char *sb_detach(struct strbuf *sb);

void sb_add(struct strbuf *sb, const void *data, size_t len);

/* A byte at a time is how lines are built: the common case inline. */
static inline void sb_addc(struct strbuf *sb, char c)
{
	if (sb->len + 2 <= sb->cap && !sb->failed) {
		sb->s[sb->len++] = c;
		sb->s[sb->len] = '\0';
		return;
	}
	sb_add(sb, &c, 1);
}

void sb_adds(struct strbuf *sb, const char *s);
void sb_addf(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * Append v in base 2 to 16, zero-padded to width digits (at most 64):
 * what lines written per entry use instead of sb_addf(), whose parsing
 * of the format cost more than the rest of such a line.
 */
void sb_add_num(struct strbuf *sb, uint64_t v, unsigned int base,
		unsigned int width);
/* Append v in decimal. */
void sb_add_int(struct strbuf *sb, int64_t v);

/* Append data escaped; extra lists more bytes to escape (may be NULL). */
void sb_escape(struct strbuf *sb, const void *data, size_t len,
	       const char *extra);
/*
 * Append a name as GNU tar's default quoting shows it in a UTF-8 locale
 * (what --list prints): printable characters as they are, the backslash
 * and control bytes as C escapes, other bytes in octal.
 */
void sb_quote(struct strbuf *sb, const char *s, size_t len);
/* Append data as lowercase hex, two digits per byte. */
void sb_hex(struct strbuf *sb, const void *data, size_t len);

/* Does the escaped form of byte c differ from c itself? */
bool esc_needed(unsigned char c, const char *extra);

/*
 * bytes for a reader, in the binary unit that keeps it under 1024 with
 * one decimal ("5.7 MiB", "16.0 TiB"), in buf of SIZE_TEXT_MAX bytes.
 */
#define SIZE_TEXT_MAX 24
const char *size_text(char *buf, uint64_t bytes);

#endif
