/* SPDX-License-Identifier: MIT */
/*
 * Tuning knobs read from the environment (EROFS_FSCK_*): tests and
 * benchmarks set them to make a bound small enough to reach with a small
 * image, or to force threads on. Each is a decimal number of bytes or
 * nanoseconds; a knob that is unset, empty or not such a number is
 * ignored. Where each applies is said where it is read.
 */
#ifndef FSCK_KNOBS_H
#define FSCK_KNOBS_H

#include <stdbool.h>
#include <stdint.h>

/* The knob name's value in *v; false when it is to be ignored. */
bool knob_value(const char *name, uint64_t *v);

#endif
