// SPDX-License-Identifier: MIT
#include <string.h>

#include "util/hex.h"

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

size_t hex_decode(const char *hex, size_t n, uint8_t *out, size_t room)
{
	size_t i;

	if (n == (size_t)-1)
		n = strlen(hex);
	if (!n || n % 2 || n / 2 > room)
		return 0;
	for (i = 0; i < n; i++) {
		int d = hex_digit(hex[i]);

		if (d < 0)
			return 0;
		out[i / 2] = (uint8_t)(i % 2 ? out[i / 2] << 4 | d : d);
	}
	return n / 2;
}
