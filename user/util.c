// SPDX-License-Identifier: GPL-2.0
/* Small helpers every part of the CLI uses: errors, memory, clocks, signals. */

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util.h"

volatile sig_atomic_t ft_stop;

void ft_err(const char *fmt, ...)
{
	va_list ap;

	/* stdout may hold half a table: keep the two streams in order */
	fflush(stdout);
	fputs("fabtrace: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void *oom(void)
{
	ft_err("out of memory");
	exit(FT_EXIT_ERR);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	return p ? p : oom();
}

void *xcalloc(size_t nmemb, size_t n)
{
	void *p = calloc(nmemb ? nmemb : 1, n ? n : 1);

	return p ? p : oom();
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	return p ? p : oom();
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t ft_now_real(void)
{
	return clock_ns(CLOCK_REALTIME);
}

uint64_t ft_now_mono(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

static void on_signal(int sig)
{
	(void)sig;
	ft_stop = 1;
}

int ft_catch_signals(sigset_t *oldmask)
{
	struct sigaction sa;
	sigset_t set;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* no SA_RESTART: a blocking call must return EINTR and notice ft_stop */
	if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL))
		return -1;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	return sigprocmask(SIG_BLOCK, &set, oldmask);
}

int ft_sleep_ms(unsigned int ms, const sigset_t *mask)
{
	uint64_t end = ft_now_mono() + (uint64_t)ms * 1000000ull;

	while (!ft_stop) {
		uint64_t now = ft_now_mono();
		struct timespec ts;

		if (now >= end)
			break;
		ts.tv_sec = (end - now) / 1000000000ull;
		ts.tv_nsec = (end - now) % 1000000000ull;
		if (ppoll(NULL, 0, &ts, mask) < 0 && errno != EINTR)
			return -1;
	}
	return 0;
}
