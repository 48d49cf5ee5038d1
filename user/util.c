// SPDX-License-Identifier: GPL-2.0
/* Small helpers every part of the CLI uses: errors, memory, clocks, signals. */

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xmalloc(n), s, n);
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

int ft_write_whole(const char *path, const char *data, size_t len, unsigned int mode,
		   const char *ctx)
{
	char tmp[4096 + 16], dirbuf[4096], base[4096];
	sigset_t stop, old;
	const char *dir;
	size_t off = 0;
	ssize_t n;
	int fd, dfd, err;

	snprintf(dirbuf, sizeof(dirbuf), "%s", path);
	snprintf(base, sizeof(base), "%s", path);
	dir = dirname(dirbuf);
	snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", dir, basename(base));
	/* a stop (systemd's SIGTERM) waits until the file is whole or gone */
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	sigaddset(&stop, SIGQUIT);
	sigprocmask(SIG_BLOCK, &stop, &old);
	fd = mkstemp(tmp);
	if (fd < 0) {
		ft_err("%s: cannot create a file in %s: %s", ctx, dir, strerror(errno));
		sigprocmask(SIG_SETMASK, &old, NULL);
		return -1;
	}
	while (off < len) {
		n = write(fd, data + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? errno : EIO;
			goto fail;
		}
		off += n;
	}
	if (fchmod(fd, mode) || fsync(fd)) {
		err = errno;
		goto fail;
	}
	err = close(fd) ? errno : 0;
	fd = -1;
	if (err || rename(tmp, path)) {
		err = err ? err : errno;
		goto fail;
	}
	/* the rename itself, on disk */
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	ft_err("%s: cannot write %s: %s", ctx, path, strerror(err));
	sigprocmask(SIG_SETMASK, &old, NULL);
	return -1;
}
