// SPDX-License-Identifier: MIT
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "util/progress.h"

#define PROG "fsck.erofs"
#define PROGRESS_TICK_MS 250
#define PROGRESS_DELAY_MS 500	/* nothing for runs shorter than this */

struct progress {
	const struct progress_counters *c;
	uint64_t total_stored;
	uint64_t total_inodes;
	struct timespec start;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop;
	bool shown;		/* a line is on the screen */
};

static double elapsed(const struct progress *p)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - p->start.tv_sec) +
	       (double)(now.tv_nsec - p->start.tv_nsec) / 1e9;
}

static void human_bytes(char *buf, size_t len, double v)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	unsigned int u = 0;

	while (v >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", v, units[u]);
}

/* Fraction done: the further of stored bytes and inodes. */
static double fraction(const struct progress *p, uint64_t entries,
		       uint64_t stored)
{
	double f = 0, g = 0;

	if (p->total_stored)
		f = (double)stored / (double)p->total_stored;
	if (p->total_inodes)
		g = (double)entries / (double)p->total_inodes;
	f = f > g ? f : g;
	return f > 1 ? 1 : f;
}

static void draw(struct progress *p)
{
	uint64_t entries = __atomic_load_n(&p->c->entries, __ATOMIC_RELAXED);
	uint64_t bytes = __atomic_load_n(&p->c->bytes, __ATOMIC_RELAXED);
	uint64_t stored = __atomic_load_n(&p->c->stored, __ATOMIC_RELAXED);
	double t = elapsed(p), f = fraction(p, entries, stored);
	char done[32], rate[32], eta[64] = "";

	human_bytes(done, sizeof(done), (double)bytes);
	human_bytes(rate, sizeof(rate), t > 0 ? (double)bytes / t : 0);
	if (f > 0.01 && f < 1) {
		unsigned long left = (unsigned long)(t * (1 - f) / f + 0.5);

		snprintf(eta, sizeof(eta), ", %2.0f%%, ETA %lu:%02lu",
			 f * 100, left / 60, left % 60);
	}
	fprintf(stderr, "\r" PROG ": %llu entries, %s, %s/s%s\033[K",
		(unsigned long long)entries, done, rate, eta);
	fflush(stderr);
	p->shown = true;
}

static void *progress_main(void *arg)
{
	struct progress *p = arg;
	struct timespec until;

	pthread_mutex_lock(&p->lock);
	while (!p->stop) {
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_nsec += PROGRESS_TICK_MS * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		if (pthread_cond_timedwait(&p->cond, &p->lock, &until) !=
		    ETIMEDOUT)
			continue;
		if (elapsed(p) * 1000 >= PROGRESS_DELAY_MS)
			draw(p);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

struct progress *progress_start(const struct progress_counters *c,
				uint64_t total_stored, uint64_t total_inodes)
{
	struct progress *p = calloc(1, sizeof(*p));
	pthread_condattr_t attr;

	if (!p)
		return NULL;
	p->c = c;
	p->total_stored = total_stored;
	p->total_inodes = total_inodes;
	clock_gettime(CLOCK_MONOTONIC, &p->start);
	pthread_mutex_init(&p->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&p->cond, &attr);
	pthread_condattr_destroy(&attr);
	if (pthread_create(&p->thread, NULL, progress_main, p)) {
		pthread_cond_destroy(&p->cond);
		pthread_mutex_destroy(&p->lock);
		free(p);
		return NULL;
	}
	return p;
}

void progress_stop(struct progress *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_signal(&p->cond);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	if (p->shown)
		fputs("\r\033[K", stderr);
	pthread_cond_destroy(&p->cond);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

void progress_hide(struct progress *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	if (p->shown) {
		fputs("\r\033[K", stderr);
		p->shown = false;
	}
}

void progress_show(struct progress *p)
{
	if (p)
		pthread_mutex_unlock(&p->lock);
}
