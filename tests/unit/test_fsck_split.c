// SPDX-License-Identifier: MIT
/* Splitting large files into pieces: the cost arithmetic and the planner. */
#include <stdint.h>
#include <stdlib.h>

#include "sched/split.h"
#include "unit.h"

START_TEST(test_data_cost)
{
	ck_assert_uint_eq(split_data_cost(0, 3500), 0);
	ck_assert_uint_eq(split_data_cost(1024, 3500), 3500);
	ck_assert_uint_eq(split_data_cost(1536, 1000), 1500);
	ck_assert_uint_eq(split_data_cost(64 << 20, 3500), 65536ULL * 3500);
	ck_assert_uint_eq(split_data_cost(100, 0), 0);
	/* saturates instead of wrapping */
	ck_assert_uint_eq(split_data_cost(UINT64_MAX, 19000), UINT64_MAX / 2);
	ck_assert_uint_ge(split_data_cost(UINT64_MAX / 1024, 19000),
			  split_data_cost(UINT64_MAX / 2048, 19000));
}
END_TEST

START_TEST(test_worth)
{
	ck_assert(!split_worth(10000000, 0));
	ck_assert(!split_worth(0, 1));
	ck_assert(split_worth(2, 1));
	ck_assert(!split_worth(2 * SPLIT_PIECE_NS - 1, SPLIT_PIECE_NS));
	ck_assert(split_worth(2 * SPLIT_PIECE_NS, SPLIT_PIECE_NS));
	ck_assert(split_worth(UINT64_MAX / 2, SPLIT_PIECE_NS));
}
END_TEST

START_TEST(test_piece_ns_env)
{
	unsetenv("EROFS_FSCK_SPLIT");
	ck_assert_uint_eq(split_piece_ns(), SPLIT_PIECE_NS);
	setenv("EROFS_FSCK_SPLIT", "", 1);
	ck_assert_uint_eq(split_piece_ns(), SPLIT_PIECE_NS);
	setenv("EROFS_FSCK_SPLIT", "0", 1);
	ck_assert_uint_eq(split_piece_ns(), 0);
	setenv("EROFS_FSCK_SPLIT", "1", 1);
	ck_assert_uint_eq(split_piece_ns(), 1);
	setenv("EROFS_FSCK_SPLIT", "250000", 1);
	ck_assert_uint_eq(split_piece_ns(), 250000);
	setenv("EROFS_FSCK_SPLIT", "12ms", 1);
	ck_assert_uint_eq(split_piece_ns(), SPLIT_PIECE_NS);
	unsetenv("EROFS_FSCK_SPLIT");
}
END_TEST

#define MAX_EXTENTS 400

struct extent {
	uint64_t end, cost, stored;
};

/* xorshift64*, fixed seeds: the same extents every run */
static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

static unsigned int make_extents(struct extent *e, uint64_t seed)
{
	unsigned int i, n = 1 + next_rand(&seed) % MAX_EXTENTS;
	uint64_t pos = 0;

	for (i = 0; i < n; i++) {
		pos += 1 + next_rand(&seed) % (256 << 10);
		e[i].end = pos;
		e[i].cost = next_rand(&seed) % 3000000;
		e[i].stored = next_rand(&seed) % 70000;
	}
	return n;
}

/*
 * Feed random extents through the planner; the pieces must cover the file
 * from 0 to i_size without gap or overlap, cut at extent ends only, each
 * but the last worth the target and no more than one extent beyond it,
 * with the stored bytes ahead of each and its cost exact.
 */
static void plan_and_verify(const struct extent *e, unsigned int n,
			    uint64_t piece_ns)
{
	uint64_t size = e[n - 1].end, before = 0, cost = 0, pos = 0;
	struct split_piece pieces[MAX_EXTENTS + 1], p;
	unsigned int i, np = 0, first = 0, k;
	struct split_plan plan;

	split_plan_init(&plan, size, piece_ns);
	for (i = 0; i < n; i++)
		if (split_plan_add(&plan, e[i].end, e[i].cost, e[i].stored,
				   &p))
			pieces[np++] = p;
	split_plan_last(&plan, &pieces[np++]);

	for (k = 0; k < np; k++) {
		ck_assert_uint_eq(pieces[k].start, pos);
		ck_assert_uint_gt(pieces[k].end, pieces[k].start);
		ck_assert_uint_eq(pieces[k].before, before);
		cost = 0;
		for (i = first; i < n && e[i].end <= pieces[k].end; i++) {
			if (i > first && k + 1 < np)
				ck_assert_uint_lt(cost, piece_ns);
			cost += e[i].cost;
			before += e[i].stored;
		}
		ck_assert_uint_eq(e[i - 1].end, pieces[k].end);
		ck_assert_uint_eq(pieces[k].cost, cost);
		if (k + 1 < np)
			ck_assert_uint_ge(cost, piece_ns);
		first = i;
		pos = pieces[k].end;
	}
	ck_assert_uint_eq(pos, size);
	ck_assert_uint_eq(first, n);
}

START_TEST(test_plan_random)
{
	static const uint64_t targets[] = { 1, 1500000, 5000000, UINT64_MAX };
	struct extent e[MAX_EXTENTS];
	unsigned int t, n;

	for (t = 0; t < sizeof(targets) / sizeof(targets[0]); t++) {
		n = make_extents(e, 0x9e3779b97f4a7c15ULL + _i);
		plan_and_verify(e, n, targets[t]);
	}
}
END_TEST

START_TEST(test_plan_one_extent_per_piece)
{
	struct extent e[4] = {
		{ 4096, 10, 100 }, { 8192, 10, 0 },
		{ 100000, 10, 200 }, { 100001, 10, 1 },
	};
	struct split_plan plan;
	struct split_piece p;
	unsigned int i;

	split_plan_init(&plan, 100001, 1);
	for (i = 0; i < 3; i++) {
		ck_assert(split_plan_add(&plan, e[i].end, e[i].cost,
					 e[i].stored, &p));
		ck_assert_uint_eq(p.start, i ? e[i - 1].end : 0);
		ck_assert_uint_eq(p.end, e[i].end);
	}
	ck_assert_uint_eq(p.before, 100);
	/* the extent that ends at i_size is the last piece, never a cut */
	ck_assert(!split_plan_add(&plan, e[3].end, e[3].cost, e[3].stored,
				  &p));
	split_plan_last(&plan, &p);
	ck_assert_uint_eq(p.start, 100000);
	ck_assert_uint_eq(p.end, 100001);
	ck_assert_uint_eq(p.before, 300);
	ck_assert_uint_eq(p.cost, 10);
}
END_TEST

START_TEST(test_plan_mapping_stops)
{
	struct split_plan plan;
	struct split_piece p;

	/* mapping failed after two extents: the rest is one last piece */
	split_plan_init(&plan, 1 << 20, 100);
	ck_assert(split_plan_add(&plan, 65536, 150, 4096, &p));
	ck_assert(!split_plan_add(&plan, 131072, 50, 4096, &p));
	split_plan_last(&plan, &p);
	ck_assert_uint_eq(p.start, 65536);
	ck_assert_uint_eq(p.end, 1 << 20);
	ck_assert_uint_eq(p.before, 4096);
	ck_assert_uint_eq(p.cost, 50);
}
END_TEST

UNIT_MAIN("fsck_split", NULL,
	  { "split",
	    .tests = UNIT_TESTS(test_data_cost, test_worth, test_piece_ns_env,
				test_plan_one_extent_per_piece,
				test_plan_mapping_stops),
	    .loops = UNIT_LOOPS({ test_plan_random, 64 }) })
