// SPDX-License-Identifier: MIT
#include <errno.h>

#include "util/window.h"

int ord_window_init(struct ord_window *w, size_t limit, ord_deliver_fn deliver,
		    void *arg)
{
	w->limit = limit;
	w->held = 0;
	w->peak = 0;
	w->next = 0;
	w->delivering = false;
	w->waiting = NULL;
	w->deliver = deliver;
	w->arg = arg;
	if (pthread_mutex_init(&w->lock, NULL))
		return -ENOMEM;
	if (pthread_cond_init(&w->room, NULL)) {
		pthread_mutex_destroy(&w->lock);
		return -ENOMEM;
	}
	return 0;
}

void ord_window_fini(struct ord_window *w)
{
	pthread_cond_destroy(&w->room);
	pthread_mutex_destroy(&w->lock);
}

/*
 * Under the lock: may item hold bytes more now? An item that is due
 * always may: nothing before it is left to make room, and it makes room
 * for all once delivered. (While a delivery runs, the item after it is
 * due but the bytes delivered are still held.)
 */
static bool window_takes(const struct ord_window *w,
			 const struct ord_item *item, size_t bytes)
{
	if ((item->seq == w->next && !w->delivering) || !w->held)
		return true;
	return w->held <= w->limit && bytes <= w->limit - w->held;
}

static void window_take(struct ord_window *w, struct ord_item *item,
			size_t bytes)
{
	pthread_mutex_lock(&w->lock);
	while (!window_takes(w, item, bytes))
		pthread_cond_wait(&w->room, &w->lock);
	w->held += bytes;
	if (w->held > w->peak)
		w->peak = w->held;
	pthread_mutex_unlock(&w->lock);
}

void ord_window_reserve(struct ord_window *w, struct ord_item *item)
{
	window_take(w, item, item->bytes);
}

void ord_window_grow(struct ord_window *w, struct ord_item *item, size_t bytes)
{
	window_take(w, item, bytes);
	item->bytes += bytes;
}

bool ord_window_has_room(struct ord_window *w, const struct ord_item *item,
			 size_t bytes)
{
	bool room;

	pthread_mutex_lock(&w->lock);
	room = window_takes(w, item, bytes);
	pthread_mutex_unlock(&w->lock);
	return room;
}

/*
 * The items completed before their turn form a pairing heap, the lowest
 * sequence number at its root: they complete in the order workers take
 * them, which is the order of the data in the image, not the walk's, so
 * an item may fall anywhere among thousands that wait. Inserting is
 * constant time and taking the root logarithmic (amortised), with no
 * memory but the items' own links.
 */
static struct ord_item *heap_meld(struct ord_item *a, struct ord_item *b)
{
	struct ord_item *t;

	if (!a || !b)
		return a ? a : b;
	if (b->seq < a->seq) {
		t = a;
		a = b;
		b = t;
	}
	b->sibling = a->child;
	a->child = b;
	return a;
}

/* The root's children melded into one heap: pairs left to right, then all. */
static struct ord_item *heap_merge_children(struct ord_item *root)
{
	struct ord_item *a = root->child, *b, *next, *pairs = NULL,
			*heap = NULL;

	while (a) {
		b = a->sibling;
		next = b ? b->sibling : NULL;
		a->sibling = NULL;
		if (b)
			b->sibling = NULL;
		a = heap_meld(a, b);
		a->sibling = pairs;
		pairs = a;
		a = next;
	}
	while (pairs) {
		next = pairs->sibling;
		pairs->sibling = NULL;
		heap = heap_meld(heap, pairs);
		pairs = next;
	}
	return heap;
}

/* Under the lock: keep item among the early ones. */
static void window_park(struct ord_window *w, struct ord_item *item)
{
	item->child = item->sibling = NULL;
	w->waiting = heap_meld(w->waiting, item);
}

/*
 * Under the lock: up to WINDOW_RUN items due now, taken in order and
 * linked by sibling; their bytes in *bytes. Delivering a run per lock
 * round-trip, not an item, keeps the lock free for the producer and the
 * other workers when items are many and small (an archive of small
 * files), while the room a run frees still comes back soon.
 */
#define WINDOW_RUN 64

static struct ord_item *window_take_due(struct ord_window *w, size_t *bytes)
{
	struct ord_item *run = NULL, **tail = &run, *item;
	unsigned int n;

	*bytes = 0;
	for (n = 0; n < WINDOW_RUN && w->waiting && w->waiting->seq == w->next;
	     n++) {
		item = w->waiting;
		w->waiting = heap_merge_children(item);
		w->next++;
		*bytes += item->bytes;
		item->sibling = NULL;
		*tail = item;
		tail = &item->sibling;
	}
	return run;
}

void ord_window_complete(struct ord_window *w, struct ord_item *item)
{
	struct ord_item *next;
	size_t bytes;

	pthread_mutex_lock(&w->lock);
	window_park(w, item);
	if (w->delivering) {
		pthread_mutex_unlock(&w->lock);
		return;
	}
	w->delivering = true;
	while ((item = window_take_due(w, &bytes))) {
		pthread_mutex_unlock(&w->lock);
		for (; item; item = next) {
			next = item->sibling;
			w->deliver(w->arg, item);
		}
		pthread_mutex_lock(&w->lock);
		w->held -= bytes;
		pthread_cond_broadcast(&w->room);
	}
	w->delivering = false;
	pthread_cond_broadcast(&w->room);
	pthread_mutex_unlock(&w->lock);
}

void ord_window_wait_due(struct ord_window *w, uint64_t seq)
{
	pthread_mutex_lock(&w->lock);
	while (w->next != seq || w->delivering)
		pthread_cond_wait(&w->room, &w->lock);
	pthread_mutex_unlock(&w->lock);
}
