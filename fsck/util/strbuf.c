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
