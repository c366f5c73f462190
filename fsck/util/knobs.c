// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>

#include "util/knobs.h"

bool knob_value(const char *name, uint64_t *v)
{
	const char *env = getenv(name);
	unsigned long long n;
	char *end;

	if (!env || *env < '0' || *env > '9')
		return false;
	errno = 0;
	n = strtoull(env, &end, 10);
	if (*end || errno)
		return false;
	*v = n;
	return true;
}
