// SPDX-License-Identifier: MIT
/*
 * fsck's main.c for the fuzz target, compiled with -Dmain=fsck_main; the
 * object stays in tests/fuzz/, apart from the objects of fsck/ that the
 * target links as they are.
 */
#include "main.c"
