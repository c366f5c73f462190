// SPDX-License-Identifier: MIT
#include <stdlib.h>

#include "sched/order.h"

void order_init(struct order_queue *q, struct report *rep)
{
	*q = (struct order_queue){
		.rep = rep,
		.walker = pthread_self(),
		.lock = PTHREAD_MUTEX_INITIALIZER,
		.cond = PTHREAD_COND_INITIALIZER,
	};
}

void order_fini(struct order_queue *q)
{
	pthread_cond_destroy(&q->cond);
	pthread_mutex_destroy(&q->lock);
}

void order_set_threaded(struct order_queue *q, bool threaded)
{
	q->threaded = threaded;
}

void order_add(struct order_queue *q, struct order_slot *s,
	       enum order_kind kind)
{
	s->next = NULL;
	s->kind = kind;
	s->done = 0;
	report_held_init(q->rep, &s->rep, &s->msgs);
	report_slot_init(&s->after);
	if (q->tail)
		q->tail->next = s;
	else
		q->head = s;
	q->tail = s;
	q->pending++;
	/* what the walker reports from now on waits behind the unit */
	report_hold(q->rep, &s->after);
}

void order_done(struct order_queue *q, struct order_slot *s)
{
	if (!q->threaded) {
		__atomic_store_n(&s->done, 1, __ATOMIC_RELEASE);
		q->ended++;
		return;
	}
	pthread_mutex_lock(&q->lock);
	__atomic_store_n(&s->done, 1, __ATOMIC_RELEASE);
	q->ended++;
	/* only the walker waits: a unit it ends itself wakes nobody */
	if (!pthread_equal(pthread_self(), q->walker))
		pthread_cond_broadcast(&q->cond);
	pthread_mutex_unlock(&q->lock);
}

/* Unlink the head, which has ended, and print what it holds. */
static struct order_slot *order_pop(struct order_queue *q)
{
	struct order_slot *s = q->head;

	q->head = s->next;
	if (!q->head)
		q->tail = NULL;
	q->pending--;
	report_hold(q->rep, NULL);
	report_take(q->rep, &s->rep);
	report_release(q->rep, &s->after);
	report_hold(q->rep, q->tail ? &q->tail->after : NULL);
	return s;
}

struct order_slot *order_take(struct order_queue *q)
{
	struct order_slot *s;

	while ((s = q->head) && __atomic_load_n(&s->done, __ATOMIC_ACQUIRE)) {
		order_pop(q);
		if (s->kind != ORDER_FREE)
			return s;
		free(s);
	}
	return NULL;
}

void order_wait_head(struct order_queue *q)
{
	struct order_slot *s = q->head;

	if (!s || !q->threaded)
		return;
	pthread_mutex_lock(&q->lock);
	while (!__atomic_load_n(&s->done, __ATOMIC_ACQUIRE))
		pthread_cond_wait(&q->cond, &q->lock);
	pthread_mutex_unlock(&q->lock);
}

uint64_t order_ended(struct order_queue *q)
{
	uint64_t n;

	if (!q->threaded)
		return q->ended;
	pthread_mutex_lock(&q->lock);
	n = q->ended;
	pthread_mutex_unlock(&q->lock);
	return n;
}

void order_wait_ended(struct order_queue *q, uint64_t seen)
{
	if (!q->threaded)
		return;
	pthread_mutex_lock(&q->lock);
	while (q->ended == seen)
		pthread_cond_wait(&q->cond, &q->lock);
	pthread_mutex_unlock(&q->lock);
}
