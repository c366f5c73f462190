/* SPDX-License-Identifier: MIT */
/* The letter of a file type, as ls -l shows it ('-': a regular file). */
#ifndef FSCK_MODE_LETTER_H
#define FSCK_MODE_LETTER_H

#include <sys/stat.h>

static inline char mode_letter(unsigned int mode)
{
	switch (mode & S_IFMT) {
	case S_IFDIR:
		return 'd';
	case S_IFLNK:
		return 'l';
	case S_IFCHR:
		return 'c';
	case S_IFBLK:
		return 'b';
	case S_IFIFO:
		return 'p';
	case S_IFSOCK:
		return 's';
	default:
		return '-';
	}
}

#endif
