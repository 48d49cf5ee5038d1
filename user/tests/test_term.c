// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: top's terminal, on a pseudo-terminal.  A child does what top
 * does on a screen (term_catch_signals, term_enter, term_wait until asked to
 * quit, term_leave) and the test checks the pty's modes from outside: the
 * saved ones back after q, SIGINT, SIGTERM, SIGHUP and SIGQUIT; after
 * SIGTSTP while stopped, and single-key mode again after SIGCONT; after a
 * SIGSTOP the modes saved before top, not top's own.
 */

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <termios.h>

#include "harness.h"

#include "term.h"
#include "util.h"

struct pty {
	int master, slave;
	struct termios orig;	/* the modes before "top" */
	char seen[65536];	/* what "top" wrote */
	size_t len;
};

static bool pty_open(struct pty *p)
{
	memset(p, 0, sizeof(*p));
	p->master = posix_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK);
	if (p->master < 0 || grantpt(p->master) || unlockpt(p->master))
		return false;
	p->slave = open(ptsname(p->master), O_RDWR | O_NOCTTY);
	return p->slave >= 0 && !tcgetattr(p->slave, &p->orig);
}

/* Keep what the child wrote (and the pty from filling up). */
static void drain(struct pty *p)
{
	ssize_t n;

	while (p->len < sizeof(p->seen) - 1 &&
	       (n = read(p->master, p->seen + p->len, sizeof(p->seen) - 1 - p->len)) > 0)
		p->len += n;
	p->seen[p->len] = '\0';
}

static bool same_modes(const struct termios *a, const struct termios *b)
{
	return a->c_iflag == b->c_iflag && a->c_oflag == b->c_oflag &&
	       a->c_cflag == b->c_cflag && a->c_lflag == b->c_lflag &&
	       !memcmp(a->c_cc, b->c_cc, sizeof(a->c_cc));
}

static bool is_orig(struct pty *p)
{
	struct termios t;

	return !tcgetattr(p->slave, &t) && same_modes(&t, &p->orig);
}

/* top's single-key mode: no line editing, no echo */
static bool is_keys(struct pty *p)
{
	struct termios t;

	return !tcgetattr(p->slave, &t) && !(t.c_lflag & (ICANON | ECHO));
}

/* Up to 5 s for @cond, draining the pty meanwhile. */
static bool until(bool (*cond)(struct pty *), struct pty *p)
{
	int i;

	for (i = 0; i < 500; i++) {
		drain(p);
		if (cond(p))
			return true;
		usleep(10000);
	}
	return false;
}

/* The cursor was hidden, and the last word on it was "show". */
static bool cursor_back(struct pty *p)
{
	char *on = NULL, *off = NULL, *s;

	drain(p);
	for (s = p->seen; (s = strstr(s, "\033[?25h")); s++)
		on = s;
	for (s = p->seen; (s = strstr(s, "\033[?25l")); s++)
		off = s;
	return off && on > off;
}

/* What top does on a screen, drawing a dot per interval; never returns. */
static void fake_top(struct pty *p)
{
	struct term t;
	sigset_t mask;
	FILE *out;

	/* no orphan if the test dies; SIGKILL ends it even stopped */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/*
	 * A process group of its own, its parent in another one of the same
	 * session: not orphaned, so the kernel does not discard its SIGTSTP
	 * (as under a job-control shell).
	 */
	setpgid(0, 0);
	/*
	 * top keeps a signal its starter ignored (nohup's SIGHUP): the test
	 * starts it with the defaults, whatever ran the test.
	 */
	signal(SIGHUP, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGTSTP, SIG_DFL);
	out = fdopen(p->slave, "w");
	if (!out || term_catch_signals(&mask))
		_exit(2);
	term_enter(&t, out, p->slave);
	while (!term_wait(&t, 50 * 1000000ull, &mask)) {
		fputc('.', out);
		fflush(out);
	}
	term_leave(&t);
	_exit(0);
}

static pid_t start(struct pty *p)
{
	pid_t pid;

	alarm(30);		/* a hang fails the test instead of make check */
	if (!pty_open(p))
		return -1;
	pid = fork();
	if (pid == 0)
		fake_top(p);
	if (pid > 0 && !until(is_keys, p)) {
		kill(pid, SIGKILL);
		return -1;
	}
	return pid;
}

/* It exited 0, the modes and the cursor as they were. */
static void expect_clean_exit(struct __test_metadata *_metadata, struct pty *p, pid_t pid)
{
	int status = -1;

	EXPECT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	EXPECT_TRUE(is_orig(p));
	EXPECT_TRUE(cursor_back(p));
}

static void quit_by(struct __test_metadata *_metadata, int sig)
{
	struct pty p;
	pid_t pid = start(&p);

	ASSERT_TRUE(pid > 0);
	EXPECT_TRUE(!is_orig(&p));
	kill(pid, sig);
	expect_clean_exit(_metadata, &p, pid);
}

TEST(sighup_restores)
{
	quit_by(_metadata, SIGHUP);
}

TEST(sigquit_restores)
{
	quit_by(_metadata, SIGQUIT);
}

TEST(sigterm_restores)
{
	quit_by(_metadata, SIGTERM);
}

TEST(sigint_restores)
{
	quit_by(_metadata, SIGINT);
}

TEST(q_restores)
{
	struct pty p;
	pid_t pid = start(&p);

	ASSERT_TRUE(pid > 0);
	ASSERT_TRUE(write(p.master, "q", 1) == 1);
	expect_clean_exit(_metadata, &p, pid);
}

TEST(sigtstp_restores_stops_and_resumes)
{
	struct pty p;
	pid_t pid = start(&p);
	int status = -1;

	ASSERT_TRUE(pid > 0);
	kill(pid, SIGTSTP);
	ASSERT_TRUE(waitpid(pid, &status, WUNTRACED) == pid);
	EXPECT_TRUE(WIFSTOPPED(status) && WSTOPSIG(status) == SIGTSTP);
	/* stopped: the shell has the terminal back as it was */
	EXPECT_TRUE(is_orig(&p));
	EXPECT_TRUE(cursor_back(&p));
	/* the shell may change the modes meanwhile: they are what top restores */
	p.orig.c_cc[VKILL] = 'K' & 0x1f;
	ASSERT_TRUE(tcsetattr(p.slave, TCSANOW, &p.orig) == 0);
	kill(pid, SIGCONT);
	EXPECT_TRUE(until(is_keys, &p));
	/* and the same once more: nothing is left over from the first stop */
	kill(pid, SIGTSTP);
	ASSERT_TRUE(waitpid(pid, &status, WUNTRACED) == pid);
	EXPECT_TRUE(WIFSTOPPED(status));
	EXPECT_TRUE(is_orig(&p));
	kill(pid, SIGCONT);
	EXPECT_TRUE(until(is_keys, &p));
	kill(pid, SIGHUP);
	expect_clean_exit(_metadata, &p, pid);
}

TEST(sigstop_keeps_the_saved_modes)
{
	struct pty p;
	pid_t pid = start(&p);
	int status = -1;

	ASSERT_TRUE(pid > 0);
	kill(pid, SIGSTOP);
	ASSERT_TRUE(waitpid(pid, &status, WUNTRACED) == pid);
	EXPECT_TRUE(WIFSTOPPED(status));
	/* a shell puts its own modes back while the job is stopped */
	ASSERT_TRUE(tcsetattr(p.slave, TCSANOW, &p.orig) == 0);
	kill(pid, SIGCONT);
	/* top's mode again, and on the way out the modes from before top */
	EXPECT_TRUE(until(is_keys, &p));
	kill(pid, SIGQUIT);
	expect_clean_exit(_metadata, &p, pid);
}

TEST(not_a_terminal)
{
	char *text = NULL;
	size_t len;
	FILE *out = open_memstream(&text, &len);
	struct term t;
	sigset_t mask;
	int fds[2];

	ASSERT_TRUE(pipe(fds) == 0);
	ASSERT_TRUE(term_catch_signals(&mask) == 0);
	term_enter(&t, out, fds[0]);
	EXPECT_FALSE(t.keys);
	/* no keys to read: the interval just passes */
	EXPECT_FALSE(term_wait(&t, 20 * 1000000ull, &mask));
	term_leave(&t);
	term_leave(&t);
	fclose(out);
	EXPECT_STREQ(text, "\033[?25l\033[?25h");
	free(text);
}

TEST_HARNESS_MAIN
