// SPDX-License-Identifier: MIT
/*
 * The helpers every part of the extractor uses on the state they share
 * (extract_state.h): statistics counted from any thread, arrays that grow.
 */
#include <stdlib.h>

#include "extract/extract_state.h"

void x_count(uint64_t *v)
{
	__atomic_add_fetch(v, 1, __ATOMIC_RELAXED);
}


