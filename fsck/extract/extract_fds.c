// SPDX-License-Identifier: MIT
/*
 * The budget of directory descriptors (extract.h, "Descriptors"): a walk
 * can be deeper than RLIMIT_NOFILE allows descriptors, so directories up
 * the walk are closed when the budget is spent and reopened from their
 * parent by name when needed again, checked to be the same directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "extract/extract_state.h"
#include "util/grow.h"

#define FD_RESERVE 32		/* image, devices, stdio, progress */
#define FD_BUDGET_MIN 8

/* Raise the soft limit to the hard one: how many directories may be open. */
int x_fd_budget(unsigned int threads)
{
	struct rlimit rl;
	rlim_t lim;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return FD_BUDGET_MIN;
	if (rl.rlim_cur < rl.rlim_max) {
		rlim_t old = rl.rlim_cur;

		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			rl.rlim_cur = old;
	}
	lim = rl.rlim_cur;
	if (lim == RLIM_INFINITY || lim > (1 << 20))
		lim = 1 << 20;
	if (lim < FD_RESERVE + 2 * (rlim_t)threads + FD_BUDGET_MIN)
		return FD_BUDGET_MIN;
	return (int)(lim - FD_RESERVE - 2 * threads);
}

void x_fd_opened(struct extractor *x, struct xdir *d, int fd)
{
	d->fd = fd;
	__atomic_add_fetch(&x->open_dirs, 1, __ATOMIC_RELAXED);
}

void x_fd_close(struct extractor *x, struct xdir *d)
{
	if (d->fd < 0 || d == x->root)
		return;
	close(d->fd);
	d->fd = -1;
	__atomic_sub_fetch(&x->open_dirs, 1, __ATOMIC_RELAXED);
}

static bool x_fd_room(const struct extractor *x)
{
	return __atomic_load_n(&x->open_dirs, __ATOMIC_RELAXED) < x->budget;
}

/*
 * Open d from its parent's descriptor; it must still be the same dir.
 * -1 with errno set when it cannot be (ESTALE: it is another).
 */
static int xdir_reopen(struct xdir *d, int pfd)
{
	struct stat st;
	int fd = openat(pfd, d->name, DIR_OPEN_FLAGS);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || st.st_dev != d->dev || st.st_ino != d->ino) {
		close(fd);
		errno = ESTALE;
		return -1;
	}
	return fd;
}

/*
 * A descriptor of d, reopened from the nearest open ancestor if needed
 * (DIR's stays open), or -1 with errno set. Levels opened on the way are
 * kept while there is room. Only for directories no task can close: on
 * the walk's stack, or after every task has finished.
 */
int xdir_fd(struct extractor *x, struct xdir *d)
{
	struct xdir *a;
	size_t n = 0;
	int pfd, fd, err, spare = -1;

	for (a = d; a->fd < 0; a = a->parent) {
		if (ARRAY_GROW(x->chain, x->capchain, n + 1, 16)) {
			errno = ENOMEM;
			return -1;
		}
		x->chain[n++] = a;
	}
	pfd = a->fd;
	while (n--) {
		a = x->chain[n];
		fd = xdir_reopen(a, pfd);
		err = errno;
		if (spare >= 0)
			close(spare);
		spare = -1;
		if (fd < 0) {
			errno = err;
			return -1;
		}
		if (a == d || x_fd_room(x))
			x_fd_opened(x, a, fd);
		else
			spare = fd;
		pfd = fd;
	}
	return d->fd;
}

void x_evict(struct extractor *x)
{
	size_t i;

	for (i = 1; i + 1 < x->nstack && !x_fd_room(x); i++) {
		struct xdir *d = x->stack[i];

		if (d->fd >= 0 &&
		    __atomic_load_n(&d->refs, __ATOMIC_ACQUIRE) == 1)
			x_fd_close(x, d);
	}
}

bool extract_has_room(struct extractor *x)
{
	x_evict(x);
	return x_fd_room(x);
}

/* After the walk: drop cached descriptors if the budget is spent. */
void x_trim(struct extractor *x)
{
	size_t i;

	if (x_fd_room(x))
		return;
	for (i = 0; i < x->nall; i++)
		x_fd_close(x, x->all[i]);
}

/* The walk or a task is done with d: the last one out closes it. */
void xdir_unref(struct extractor *x, struct xdir *d)
{
	if (!__atomic_sub_fetch(&d->refs, 1, __ATOMIC_ACQ_REL))
		x_fd_close(x, d);
}
