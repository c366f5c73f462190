// SPDX-License-Identifier: MIT
/*
 * How far read-ahead of the packed inode reaches past a file's data: the
 * extents the file reads, the next one, whole extents within the window
 * after it, and for a file an output has no room for yet, the extent that
 * begins within the window too.
 */
#include <stdint.h>

#include "sched/readahead.h"
#include "unit.h"

#define MIB (1ULL << 20)

START_TEST(test_extents_read)
{
	/* the file reads from them, whatever their length */
	ck_assert(readahead_reaches(0, 0, 64 * MIB, 1, true, false));
	ck_assert(readahead_reaches(12 * MIB, 5 * MIB, 64 * MIB, 6 * MIB, true,
				    false));
	ck_assert(readahead_reaches(0, 5 * MIB, 1, 5 * MIB + 1, true, true));
}
END_TEST

START_TEST(test_whole_extents_in_window)
{
	uint64_t end = 10 * MIB, window = 12 * MIB;

	ck_assert(readahead_reaches(window, end, 12 * MIB, end, true, false));
	ck_assert(!readahead_reaches(window, end, 12 * MIB + 1, end, true,
				     false));
	ck_assert(readahead_reaches(window, end + 4 * MIB, 8 * MIB, end, true,
				    false));
	ck_assert(!readahead_reaches(window, end + 4 * MIB, 8 * MIB + 1, end,
				     true, false));
	/* no window: nothing past the file */
	ck_assert(!readahead_reaches(0, end, 1, end, true, false));
}
END_TEST

/*
 * Stalled, the extent that begins within the window is read ahead too:
 * on a Debian root filesystem packed as live media, a file that ends at
 * 32486713 in the packed inode, with a window of 12 MiB, and the next
 * extent at 43854076, 3831225 bytes long, which only the walker's wait
 * left undecoded.
 */
START_TEST(test_stalled_takes_the_extent_it_begins)
{
	uint64_t window = 12 * MIB, end = 32486713;

	ck_assert(!readahead_reaches(window, 43854076, 3831225, end, true,
				     false));
	ck_assert(
		readahead_reaches(window, 43854076, 3831225, end, true, true));
	ck_assert(readahead_reaches(window, end + window, 64 * MIB, end, true,
				    true));
	ck_assert(!readahead_reaches(window, end + window + 1, 1, end, true,
				     true));
	ck_assert(!readahead_reaches(0, end + 1, 1, end, true, true));
}
END_TEST

/*
 * The first extent past the file is read ahead whatever its length, so
 * that a second worker decodes it while the first decodes the file's: on
 * bench/mktree.sh's tree packed as live media, the first extents are
 * 8192000 bytes long, and a file at the start of the packed inode left
 * the next one out of a 12 MiB window, so one worker waited 80 ms for the
 * other's decode.
 */
START_TEST(test_next_extent_whatever_its_length)
{
	uint64_t window = 12 * MIB, end = 3040;

	ck_assert(
		readahead_reaches(window, 8192000, 8192000, end, false, false));
	ck_assert(
		!readahead_reaches(window, 8192000, 8192000, end, true, false));
	/* no window: nothing past the file, the next extent neither */
	ck_assert(!readahead_reaches(0, 8192000, 8192000, end, false, false));
}
END_TEST

UNIT_MAIN("fsck_readahead", NULL,
	  { "reach",
	    .tests = UNIT_TESTS(test_extents_read, test_whole_extents_in_window,
				test_next_extent_whatever_its_length,
				test_stalled_takes_the_extent_it_begins) })
