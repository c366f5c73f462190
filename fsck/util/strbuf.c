// SPDX-License-Identifier: MIT
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"

static const char hexdigits[] = "0123456789abcdef";

void sb_release(struct strbuf *sb)
{
	free(sb->s);
	sb->s = NULL;
	sb->len = 0;
	sb->cap = 0;
	sb->failed = false;
}

void sb_reset(struct strbuf *sb)
{
	sb->len = 0;
	sb->failed = false;
	if (sb->s)
		sb->s[0] = '\0';
}

char *sb_detach(struct strbuf *sb)
{
	char *s = sb->s;

	if (sb->failed) {
		sb_release(sb);
		return NULL;
	}
	if (!s)
		s = strdup("");
	sb->s = NULL;
	sb->len = 0;
	sb->cap = 0;
	return s;
}

/* Make room for len more bytes plus the terminating NUL. */
static bool sb_grow(struct strbuf *sb, size_t len)
{
	size_t need, cap;
	char *s;

	if (sb->failed)
		return false;
	if (len > SIZE_MAX - sb->len - 1)
		goto fail;
	need = sb->len + len + 1;
	if (need <= sb->cap)
		return true;
	cap = sb->cap ? sb->cap : 64;
	while (cap < need)
		cap = cap > SIZE_MAX / 2 ? need : cap * 2;
	s = realloc(sb->s, cap);
	if (!s)
		goto fail;
	sb->s = s;
	sb->cap = cap;
	return true;
fail:
	sb->failed = true;
	return false;
}

void sb_add(struct strbuf *sb, const void *data, size_t len)
{
	if (!sb_grow(sb, len))
		return;
	memcpy(sb->s + sb->len, data, len);
	sb->len += len;
	sb->s[sb->len] = '\0';
}

/* Room past the string that formatting tries first, in one pass. */
#define SB_FORMAT_SLACK 64

void sb_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	size_t room;
	int n;

	if (!sb_grow(sb, SB_FORMAT_SLACK))
		return;
	room = sb->cap - sb->len;
	va_start(ap, fmt);
	n = vsnprintf(sb->s + sb->len, room, fmt, ap);
	va_end(ap);
	if (n < 0) {
		sb->s[sb->len] = '\0';
		sb->failed = true;
		return;
	}
	if ((size_t)n >= room) {
		/* cut short: make room for it all, and format it again */
		sb->s[sb->len] = '\0';
		if (!sb_grow(sb, (size_t)n))
			return;
		va_start(ap, fmt);
		vsnprintf(sb->s + sb->len, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	sb->len += (size_t)n;
}

void sb_add_num(struct strbuf *sb, uint64_t v, unsigned int base,
		unsigned int width)
{
	char digits[64];
	size_t n = 0;

	do {
		digits[sizeof(digits) - ++n] = hexdigits[v % base];
		v /= base;
	} while (v);
	while (n < width && n < sizeof(digits))
		digits[sizeof(digits) - ++n] = '0';
	sb_add(sb, digits + sizeof(digits) - n, n);
}

void sb_add_int(struct strbuf *sb, int64_t v)
{
	if (v < 0) {
		sb_addc(sb, '-');
		/* the magnitude of INT64_MIN too */
		sb_add_num(sb, -(uint64_t)v, 10, 0);
		return;
	}
	sb_add_num(sb, (uint64_t)v, 10, 0);
}

void sb_adds(struct strbuf *sb, const char *s)
{
	sb_add(sb, s, strlen(s));
}

bool esc_needed(unsigned char c, const char *extra)
{
	if (c < 0x21 || c > 0x7e || c == '\\')
		return true;
	return extra && strchr(extra, c);
}

void sb_escape(struct strbuf *sb, const void *data, size_t len,
	       const char *extra)
{
	const unsigned char *p = data;
	size_t i = 0, run;

	while (i < len) {
		for (run = i; run < len && !esc_needed(p[run], extra); run++)
			;
		sb_add(sb, p + i, run - i);
		if (run == len || !sb_grow(sb, 4))
			return;
		sb->s[sb->len++] = '\\';
		sb->s[sb->len++] = 'x';
		sb->s[sb->len++] = hexdigits[p[run] >> 4];
		sb->s[sb->len++] = hexdigits[p[run] & 15];
		sb->s[sb->len] = '\0';
		i = run + 1;
	}
}

void sb_hex(struct strbuf *sb, const void *data, size_t len)
{
	const unsigned char *p = data;
	size_t i;

	if (len > SIZE_MAX / 2 || !sb_grow(sb, len * 2))
		return;
	for (i = 0; i < len; i++) {
		sb->s[sb->len++] = hexdigits[p[i] >> 4];
		sb->s[sb->len++] = hexdigits[p[i] & 15];
	}
	sb->s[sb->len] = '\0';
}

/*
 * The length of the UTF-8 sequence of a printable character at p (of n
 * bytes left), or 0: invalid, overlong, a surrogate, past U+10FFFF, or a
 * C1 control character.
 */
static size_t utf8_printable(const unsigned char *p, size_t n)
{
	size_t len, i;
	uint32_t c;

	if (p[0] >= 0xf5)
		return 0;
	if (p[0] >= 0xf0)
		len = 4, c = p[0] & 0x07;
	else if (p[0] >= 0xe0)
		len = 3, c = p[0] & 0x0f;
	else if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2, c = p[0] & 0x1f;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	if ((len == 3 && c < 0x800) || (len == 4 && c < 0x10000) ||
	    (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff ||
	    (c >= 0x80 && c < 0xa0))
		return 0;
	return len;
}

/*
 * A name as GNU tar's default quoting shows it in a UTF-8 locale: spaces
 * and printable characters as they are; the backslash and control bytes
 * as C escapes, other bytes that are no printable character in octal.
 */
void sb_quote(struct strbuf *sb, const char *s, size_t len)
{
	static const char c_escapes[] = "\\a\\b\\t\\n\\v\\f\\r";
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n;

	while (i < len) {
		if (p[i] == '\\') {
			sb_add(sb, "\\\\", 2);
			i++;
		} else if (p[i] >= 0x07 && p[i] <= 0x0d) {
			sb_add(sb, c_escapes + 2 * (p[i] - 0x07), 2);
			i++;
		} else if (p[i] < 0x20 || p[i] == 0x7f) {
			sb_addf(sb, "\\%03o", p[i++]);
		} else if (p[i] < 0x80) {
			sb_addc(sb, (char)p[i++]);
		} else if ((n = utf8_printable(p + i, len - i))) {
			sb_add(sb, s + i, n);
			i += n;
		} else {
			sb_addf(sb, "\\%03o", p[i++]);
		}
	}
}

const char *size_text(char *buf, uint64_t bytes)
{
	static const char *const units[] = { "KiB", "MiB", "GiB",
					     "TiB", "PiB", "EiB" };
	double v = (double)bytes / 1024;
	unsigned int u = 0;

	if (bytes < 1024) {
		snprintf(buf, SIZE_TEXT_MAX, "%u bytes", (unsigned int)bytes);
		return buf;
	}
	while (v >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024;
		u++;
	}
	snprintf(buf, SIZE_TEXT_MAX, "%.1f %s", v, units[u]);
	return buf;
}
