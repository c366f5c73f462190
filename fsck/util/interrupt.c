// SPDX-License-Identifier: MIT
#include <signal.h>
#include <stddef.h>

#include "util/interrupt.h"

static const int caught[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
#define NCAUGHT (sizeof(caught) / sizeof(caught[0]))

static int received;
static struct sigaction saved[NCAUGHT];
static bool installed[NCAUGHT];

static void on_signal(int sig)
{
	int none = 0;

	/* lock-free on every target we build for: async-signal-safe */
	if (__atomic_compare_exchange_n(&received, &none, sig, false,
					__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		return;
	/* each write to a closed pipe raises one: not a user's second try */
	if (sig == SIGPIPE)
		return;
	/* the second one: the default action, once this handler returns */
	signal(sig, SIG_DFL);
	raise(sig);
}

void interrupt_install(bool catch_pipe)
{
	struct sigaction sa = { .sa_handler = on_signal };
	size_t i;

	__atomic_store_n(&received, 0, __ATOMIC_SEQ_CST);
	/*
	 * SA_RESTART: the calls in progress (reads of the image, writes of
	 * files, waits of the pool) end normally; the flag is looked at
	 * between pieces of work, often enough.
	 */
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < NCAUGHT; i++)
		sigaddset(&sa.sa_mask, caught[i]);
	for (i = 0; i < NCAUGHT; i++) {
		if (caught[i] == SIGPIPE && !catch_pipe)
			continue;
		/* ignored on entry (nohup, "cmd &"): left ignored */
		if (sigaction(caught[i], NULL, &saved[i]) ||
		    saved[i].sa_handler == SIG_IGN)
			continue;
		installed[i] = !sigaction(caught[i], &sa, NULL);
	}
}

void interrupt_restore(void)
{
	size_t i;

	for (i = 0; i < NCAUGHT; i++) {
		if (installed[i])
			sigaction(caught[i], &saved[i], NULL);
		installed[i] = false;
	}
}

int interrupt_signal(void)
{
	return __atomic_load_n(&received, __ATOMIC_RELAXED);
}

const char *interrupt_signal_name(int sig)
{
	switch (sig) {
	case SIGINT:
		return "SIGINT";
	case SIGTERM:
		return "SIGTERM";
	case SIGHUP:
		return "SIGHUP";
	case SIGPIPE:
		return "SIGPIPE";
	default:
		return "a signal";
	}
}
