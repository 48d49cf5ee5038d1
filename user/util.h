/* SPDX-License-Identifier: GPL-2.0 */
/* Small helpers every part of the CLI uses: errors, memory, clocks, signals. */
#ifndef _FABTRACE_UTIL_H
#define _FABTRACE_UTIL_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Exit status: everything that is not success is 1, usage errors included. */
#define FT_EXIT_OK	0
#define FT_EXIT_ERR	1
/*
 * Done, with a warning from the kernel: a policy set stands in software,
 * and the port's driver refused it (a command returns a positive value).
 */
#define FT_EXIT_WARN	2

/* "fabtrace: <message>" on stderr, one line. */
void ft_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t n);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);

/* Nanoseconds of CLOCK_REALTIME / CLOCK_MONOTONIC. */
uint64_t ft_now_real(void);
uint64_t ft_now_mono(void);

/*
 * Set by SIGINT/SIGTERM once ft_catch_signals() ran.  Long-running commands
 * (monitor, top) poll it so that they exit cleanly, with status 0.
 */
extern volatile sig_atomic_t ft_stop;

/*
 * Install SIGINT/SIGTERM handlers and block both signals; @oldmask gets the
 * mask to hand to ppoll(), which is where they are delivered.  Blocking
 * outside ppoll() closes the race between checking ft_stop and sleeping.
 */
int ft_catch_signals(sigset_t *oldmask);

/*
 * Write @len bytes to @path as a whole or not at all: a temporary file in
 * its directory (".NAME.XXXXXX": node_exporter reads *.prom only), written,
 * synced, given @mode, renamed over @path, the directory synced.  Nothing
 * is left behind on failure, and a file @path had stays as it was; SIGINT,
 * SIGTERM, SIGHUP and SIGQUIT wait until it is done.  0, or -1 after
 * "fabtrace: <ctx>: cannot ...: <why>".
 */
int ft_write_whole(const char *path, const char *data, size_t len, unsigned int mode,
		   const char *ctx);

/* Sleep @ms, or until a signal; returns early (0) when ft_stop is set. */
int ft_sleep_ms(unsigned int ms, const sigset_t *mask);

#endif /* _FABTRACE_UTIL_H */
