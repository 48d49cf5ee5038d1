// SPDX-License-Identifier: GPL-2.0
/* The terminal top draws on: single keys, a hidden cursor, undone on every way out. */

#include <poll.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "term.h"
#include "util.h"

/* ANSI sequences: cursor off and back on. */
#define TERM_CURSOR_OFF	"\033[?25l"
#define TERM_CURSOR_ON	"\033[?25h"

static volatile sig_atomic_t got_tstp, got_cont;

static void on_quit(int sig)
{
	(void)sig;
	ft_stop = 1;
}

static void on_tstp(int sig)
{
	(void)sig;
	got_tstp = 1;
}

static void on_cont(int sig)
{
	(void)sig;
	got_cont = 1;
}

static const struct {
	int sig;
	void (*fn)(int);
} term_sigs[] = {
	{ SIGHUP, on_quit },
	{ SIGQUIT, on_quit },
	{ SIGTSTP, on_tstp },
	{ SIGCONT, on_cont },
};

static int handle(int sig, void (*fn)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sigemptyset(&sa.sa_mask);
	return sigaction(sig, &sa, NULL);
}

int term_catch_signals(sigset_t *oldmask)
{
	struct sigaction old;
	sigset_t set;
	size_t i;

	if (ft_catch_signals(oldmask))
		return -1;
	sigemptyset(&set);
	for (i = 0; i < ARRAY_SIZE(term_sigs); i++) {
		if (sigaction(term_sigs[i].sig, NULL, &old))
			return -1;
		if (old.sa_handler == SIG_IGN)
			continue;
		if (handle(term_sigs[i].sig, term_sigs[i].fn))
			return -1;
		sigaddset(&set, term_sigs[i].sig);
	}
	return sigprocmask(SIG_BLOCK, &set, NULL);
}

/* Single keys without echo, so "q" quits; Ctrl-C still signals. */
static int keys_on(const struct term *t)
{
	struct termios raw = t->saved;

	raw.c_lflag &= ~(ICANON | ECHO);
	raw.c_cc[VMIN] = 1;
	raw.c_cc[VTIME] = 0;
	return tcsetattr(t->fd, TCSANOW, &raw);
}

void term_enter(struct term *t, FILE *out, int fd)
{
	t->out = out;
	t->fd = fd;
	t->on = true;
	t->keys = false;
	fputs(TERM_CURSOR_OFF, out);
	fflush(out);
	if (isatty(fd) && !tcgetattr(fd, &t->saved))
		t->keys = !keys_on(t);
}

void term_leave(struct term *t)
{
	if (!t->on)
		return;
	if (t->keys)
		tcsetattr(t->fd, TCSANOW, &t->saved);
	t->keys = false;
	t->on = false;
	fputs(TERM_CURSOR_ON, t->out);
	fflush(t->out);
}

/*
 * SIGTSTP (Ctrl-Z): the shell gets the terminal back as it was, then the
 * default action stops us.  It is raised while blocked and taken when
 * unblocked, with SIGCONT, whose handler has then run by the time
 * sigprocmask() returns: this stop needs no second redraw.  In an orphaned
 * process group the kernel discards the stop (no shell could continue us)
 * and we carry on at once.  The modes are saved again on the way back: the
 * shell may have changed them meanwhile.
 */
static void term_stop(struct term *t)
{
	FILE *out = t->out;
	int fd = t->fd;
	sigset_t set;

	term_leave(t);
	sigemptyset(&set);
	sigaddset(&set, SIGTSTP);
	sigaddset(&set, SIGCONT);
	handle(SIGTSTP, SIG_DFL);
	raise(SIGTSTP);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	sigprocmask(SIG_BLOCK, &set, NULL);
	handle(SIGTSTP, on_tstp);
	got_tstp = got_cont = 0;
	term_enter(t, out, fd);
}

/*
 * SIGCONT after a stop term_stop() did not make (SIGSTOP): whatever
 * happened to the terminal meanwhile, our modes again.  @saved stays: it
 * holds the modes from before us, and now they would read as ours.
 */
static void term_cont(struct term *t)
{
	if (!t->on)
		return;
	fputs(TERM_CURSOR_OFF, t->out);
	fflush(t->out);
	if (t->keys)
		keys_on(t);
}

bool term_wait(struct term *t, uint64_t ns, const sigset_t *mask)
{
	uint64_t end = ft_now_mono() + ns;

	while (!ft_stop) {
		struct pollfd pfd = { .fd = t->fd, .events = POLLIN };
		uint64_t now = ft_now_mono();
		struct timespec ts;
		char c;

		if (got_tstp) {
			got_tstp = 0;
			term_stop(t);
			return false;
		}
		if (got_cont) {
			got_cont = 0;
			term_cont(t);
			return false;
		}
		if (now >= end)
			return false;
		ts.tv_sec = (end - now) / 1000000000ull;
		ts.tv_nsec = (end - now) % 1000000000ull;
		if (ppoll(&pfd, t->keys ? 1 : 0, &ts, mask) <= 0)
			continue;
		/* the terminal hung up: nobody is watching any more */
		if (pfd.revents & (POLLHUP | POLLERR | POLLNVAL))
			return true;
		if (read(t->fd, &c, 1) == 1 && (c == 'q' || c == 'Q'))
			return true;
	}
	return true;
}
