// SPDX-License-Identifier: MIT
#include "sched/split.h"
#include "util/knobs.h"

uint64_t split_piece_ns(void)
{
	uint64_t v;

	return knob_value("EROFS_FSCK_SPLIT", &v) ? v : SPLIT_PIECE_NS;
}

uint64_t split_data_cost(uint64_t len, uint64_t cost_per_kib)
{
	uint64_t kib = len >> 10, rest = len & 1023;

	if (cost_per_kib && kib > UINT64_MAX / cost_per_kib / 2)
		return UINT64_MAX / 2;
	return kib * cost_per_kib + rest * cost_per_kib / 1024;
}

bool split_worth(uint64_t data_ns, uint64_t piece_ns)
{
	return piece_ns && data_ns / 2 >= piece_ns;
}

void split_plan_init(struct split_plan *p, uint64_t size, uint64_t piece_ns)
{
	p->piece_ns = piece_ns;
	p->size = size;
	p->start = 0;
	p->cost = 0;
	p->before = 0;
	p->stored = 0;
}

bool split_plan_add(struct split_plan *p, uint64_t end, uint64_t cost,
		    uint64_t stored, struct split_piece *out)
{
	p->cost += cost < UINT64_MAX - p->cost ? cost : UINT64_MAX - p->cost;
	p->stored += stored;
	if (p->cost < p->piece_ns || end >= p->size)
		return false;
	out->start = p->start;
	out->end = end;
	out->before = p->before;
	out->cost = p->cost;
	p->start = end;
	p->before = p->stored;
	p->cost = 0;
	return true;
}

void split_plan_last(const struct split_plan *p, struct split_piece *out)
{
	out->start = p->start;
	out->end = p->size;
	out->before = p->before;
	out->cost = p->cost;
}
