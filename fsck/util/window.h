/* SPDX-License-Identifier: MIT */
/*
 * The ordered window: work done in any order, delivered in order.
 *
 * A producer numbers items 0, 1, 2, ... and reserves each one's bytes
 * before it hands the item's work out; workers complete items in any
 * order. The thread whose completion makes the next item in sequence
 * available delivers it, and every completed item after it, in sequence,
 * outside the lock, while the other threads go on with their work: one
 * thread at a time delivers, so a consumer that must see its input in
 * order (a hash, an archive writer) needs no lock of its own.
 *
 * The bytes reserved and not yet delivered are at most the window's
 * limit, except that the item due may always go in (or grow), whatever
 * its size: the producer waits for room. Before it reserves, it asks
 * ord_window_has_room() and, when there is none, hands out the work of
 * every item before (a batch being filled, work held back), so that what
 * it would wait for is on its way: the window calls nobody.
 *
 * A worker whose item would take too much memory to keep can instead wait
 * until its item is due and consume its output itself, as it comes, then
 * complete the item: nothing else is delivered meanwhile. Items are handed
 * out in sequence order, so the ones it waits for are all being worked on
 * or done.
 */
#ifndef FSCK_WINDOW_H
#define FSCK_WINDOW_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The links are the window's while the item is complete and not yet due. */
struct ord_item {
	uint64_t seq;
	size_t bytes;			/* reserved for it */
	struct ord_item *child, *sibling;
};

/* Consume item (in sequence order); it is the callee's from then on. */
typedef void (*ord_deliver_fn)(void *arg, struct ord_item *item);

struct ord_window {
	pthread_mutex_t lock;
	pthread_cond_t room;
	size_t limit;
	size_t held;			/* reserved, not yet delivered */
	size_t peak;
	uint64_t next;			/* the sequence number due */
	bool delivering;
	struct ord_item *waiting; /* completed early: a heap by seq */
	ord_deliver_fn deliver;
	void *arg;
};

int ord_window_init(struct ord_window *w, size_t limit, ord_deliver_fn deliver,
		    void *arg);

/* After every item was delivered. */
void ord_window_fini(struct ord_window *w);

/*
 * Producer: wait for room for item's bytes (item numbered in sequence
 * order), then hold them.
 */
void ord_window_reserve(struct ord_window *w, struct ord_item *item);

/*
 * Producer: item, reserved and not complete yet, is to hold bytes more:
 * wait for room as ord_window_reserve() does. The item due never waits;
 * so a producer that hands items out of sequence order never waits for
 * ever if, when ord_window_has_room() says an item would wait, it first
 * hands out every item before that one.
 */
void ord_window_grow(struct ord_window *w, struct ord_item *item, size_t bytes);

/* Would ord_window_grow(w, item, bytes) go on without waiting? */
bool ord_window_has_room(struct ord_window *w, const struct ord_item *item,
			 size_t bytes);

/*
 * Worker: item (seq and bytes as reserved) is done. Delivers it and the
 * completed items after it if it is due and nobody is delivering.
 */
void ord_window_complete(struct ord_window *w, struct ord_item *item);

/*
 * Worker: wait until the item of sequence seq is due and nobody delivers;
 * until it completes that item, the caller alone consumes.
 */
void ord_window_wait_due(struct ord_window *w, uint64_t seq);

#endif
