/* SPDX-License-Identifier: MIT */
/* Hexadecimal digests, as users type them and JSON carries them. */
#ifndef FSCK_HEX_H
#define FSCK_HEX_H

#include <stddef.h>
#include <stdint.h>

/*
 * The n characters of hex (all of it when n is (size_t)-1) into bytes:
 * their count, or 0 when it is not an even run of hex of at most room
 * bytes.
 */
size_t hex_decode(const char *hex, size_t n, uint8_t *out, size_t room);

#endif
