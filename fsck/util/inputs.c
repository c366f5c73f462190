// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/inputs.h"

struct input {
	dev_t dev;
	ino_t ino;
	const char *name;
};

static struct input *inputs;
static unsigned int ninputs;

int inputs_add(const char *path)
{
	struct input *more;
	struct stat st;
	int ret;

	ret = strcmp(path, "-") ? stat(path, &st) : fstat(STDIN_FILENO, &st);
	/* an input that is not there fails to open, and says so then */
	if (ret)
		return 0;
	more = realloc(inputs, (ninputs + 1) * sizeof(*inputs));
	if (!more)
		return -ENOMEM;
	inputs = more;
	inputs[ninputs++] = (struct input){ st.st_dev, st.st_ino, path };
	return 0;
}

const char *inputs_name(const struct stat *st)
{
	unsigned int i;

	for (i = 0; i < ninputs; i++)
		if (inputs[i].dev == st->st_dev && inputs[i].ino == st->st_ino)
			return inputs[i].name;
	return NULL;
}

static bool inputs_hold(const struct stat *st)
{
	return inputs_name(st) != NULL;
}

const char *inputs_named_by(const char *path)
{
	struct stat st;

	return stat(path, &st) ? NULL : inputs_name(&st);
}

bool inputs_hold_at(int dfd, const char *name)
{
	struct stat st;

	return !fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) &&
	       inputs_hold(&st);
}

void inputs_fini(void)
{
	free(inputs);
	inputs = NULL;
	ninputs = 0;
}
