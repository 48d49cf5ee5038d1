// SPDX-License-Identifier: GPL-2.0
/* ftpeer: run a shell command on the other test node over the control link. */

/*
 * Tests run on node A and often need a command on node B (start an
 * ib_write_bw server, read B's counters, capture B's wire).  ssh would need
 * keys, a daemon and a PTY layer; this is the part of it the tests use:
 *
 *   ftpeer serve [-a ADDR] [-p PORT]        agent, one forked handler per
 *                                           connection (runs on both nodes)
 *   ftpeer [-h HOST] [-p PORT] [-t SECS] [-w SECS] CMD [ARGS...]
 *                                           run "CMD ARGS..." with sh -c on
 *                                           HOST, stream its stdout/stderr
 *                                           here, exit with its status
 *   ftpeer [-h HOST] [-p PORT] [-w SECS] --shutdown
 *                                           make the agent on HOST exit
 *
 * Exit status of the client: the command's own, 128+N if a signal N killed
 * it, 124 if -t expired (like timeout(1)), 255 if ftpeer itself failed (no
 * agent, connection lost, bad usage) -- the same conventions as ssh.
 *
 * Lifetime rule: a remote command never outlives the client that started it.
 * When the client goes away (killed, ^C, connection lost) the agent sends
 * SIGTERM to everything the command started and SIGKILL after a grace period,
 * so `peer ib_write_bw ... &` followed by `kill $!` stops the server on B
 * and leaves nothing behind (the client also takes its parent's death as a
 * SIGTERM, for when $! is the subshell running it).  SIGTERM/SIGINT/SIGHUP sent to the client are
 * forwarded to the remote command first, so a remote tcpdump can still
 * flush its capture file.  When the command exits, anything it left behind
 * (background jobs, even daemons that called setsid()) is killed too: the
 * handler is a child subreaper and reaps its whole tree before reporting.
 *
 * There is no authentication: the agent binds to the control link, a
 * point-to-point wire between two throwaway test VMs.
 */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FTPEER_PORT	7474
#define FTPEER_MAGIC	0x66747031u	/* "ftp1": protocol version 1 */
#define GRACE_MS	2000		/* SIGTERM -> SIGKILL */
#define MAX_FRAME	(1u << 20)
#define CHUNK		65536
#define EXIT_TIMEOUT	124
#define EXIT_FTPEER	255

/* Every message is a frame: an 8-byte header, then len bytes of payload. */
enum frame_type {
	/* client -> agent */
	F_RUN = 1,	/* u32 magic, u32 timeout_s, cwd '\0', cmd '\0' */
	F_SIGNAL,	/* u32 signo: forward to the remote command */
	F_SHUTDOWN,	/* u32 magic: agent exits */
	/* agent -> client */
	F_STDOUT = 16,	/* raw bytes */
	F_STDERR,	/* raw bytes */
	F_EXIT,		/* u32 exit status, already mapped (128+sig, 124) */
};

struct frame_hdr {
	uint32_t type;
	uint32_t len;
};

static const char *prog = "ftpeer";

static void msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Milliseconds until deadline for poll(): -1 means "no deadline". */
static int poll_ms(int64_t deadline)
{
	int64_t left;

	if (deadline < 0)
		return -1;
	left = deadline - now_ms();
	if (left < 0)
		return 0;
	return left > INT_MAX ? INT_MAX : (int)left;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= n;
	}
	return 0;
}

/* Reads exactly len bytes; 0 on success, -1 on error or early EOF. */
static int read_all(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

static int send_frame(int fd, uint32_t type, const void *data, uint32_t len)
{
	struct frame_hdr h = { htonl(type), htonl(len) };

	if (write_all(fd, &h, sizeof(h)))
		return -1;
	return len ? write_all(fd, data, len) : 0;
}

static int send_u32(int fd, uint32_t type, uint32_t v)
{
	v = htonl(v);
	return send_frame(fd, type, &v, sizeof(v));
}

/* Reads one frame; *data is malloc'ed (NUL-terminated for convenience). */
static int recv_frame(int fd, uint32_t *type, char **data, uint32_t *len)
{
	struct frame_hdr h;

	if (read_all(fd, &h, sizeof(h)))
		return -1;
	*type = ntohl(h.type);
	*len = ntohl(h.len);
	if (*len > MAX_FRAME)
		return -1;
	*data = malloc(*len + 1);
	if (!*data)
		return -1;
	if (read_all(fd, *data, *len)) {
		free(*data);
		return -1;
	}
	(*data)[*len] = '\0';
	return 0;
}

static uint32_t get_u32(const char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return ntohl(v);
}

/*
 * A dead peer (kernel panic on the other node) must not hang a test forever:
 * keepalive notices within ~40 s on the otherwise idle control link, which
 * is also long enough for a TCG guest starved of host CPU to answer.
 */
static void tune_socket(int fd)
{
	int one = 1, idle = 10, intvl = 5, cnt = 6;

	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static int status_to_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return EXIT_FTPEER;
}

/* ---------------------------------------------------------------- agent */

/*
 * Kills every process below this handler.  As a child subreaper the handler
 * inherits orphans (a background job whose shell exited, a daemon that
 * forked twice), so its direct children are the whole remaining tree, level
 * by level, as each killed parent's children get reparented to us.
 */
static void signal_children(int sig)
{
	char path[64], buf[4096];
	ssize_t n;
	char *p, *end;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/children", getpid());
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	for (p = buf; *p; p = end) {
		long pid = strtol(p, &end, 10);

		if (end == p)
			break;
		if (pid > 0)
			kill((pid_t)pid, sig);
	}
}

struct job {
	pid_t pid;		/* sh -c, leader of its own session */
	int out, err;		/* read ends, -1 once at EOF */
	int sock;		/* -1 once the client is gone */
	int have_status;
	int status;
	int timed_out;
	int64_t deadline;	/* -t expiry, -1 if none */
	int64_t kill_at;	/* SIGKILL escalation, -1 if not terminating */
	int terminating;
};

/* Starts the SIGTERM -> SIGKILL sequence for the command and its tree. */
static void job_terminate(struct job *j)
{
	if (j->terminating)
		return;
	j->terminating = 1;
	kill(-j->pid, SIGTERM);
	signal_children(SIGTERM);
	j->kill_at = now_ms() + GRACE_MS;
}

static void job_pump(struct job *j, int *fdp, uint32_t type)
{
	char buf[CHUNK];
	ssize_t n = read(*fdp, buf, sizeof(buf));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		close(*fdp);
		*fdp = -1;
		return;
	}
	if (j->sock >= 0 && send_frame(j->sock, type, buf, n)) {
		/* Client gone mid-stream: the command must not outlive it. */
		close(j->sock);
		j->sock = -1;
		job_terminate(j);
	}
}

static void job_client(struct job *j)
{
	uint32_t type, len;
	char *data;

	if (recv_frame(j->sock, &type, &data, &len)) {
		close(j->sock);
		j->sock = -1;
		job_terminate(j);
		return;
	}
	if (type == F_SIGNAL && len == 4 && !j->have_status) {
		int sig = (int)get_u32(data);

		kill(-j->pid, sig);
		/* A ^C or kill on the client side: escalate if ignored. */
		if (sig == SIGTERM || sig == SIGINT || sig == SIGHUP) {
			j->terminating = 1;
			j->kill_at = now_ms() + GRACE_MS;
		}
	}
	free(data);
}

static void job_reap(struct job *j)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		if (pid == j->pid) {
			j->have_status = 1;
			j->status = status;
			/* Leftovers (cmd &) die with the command. */
			kill(-j->pid, SIGTERM);
			signal_children(SIGTERM);
			if (j->kill_at < 0)
				j->kill_at = now_ms() + GRACE_MS;
		}
	}
}

/* True while any process of the job's tree is still ours to reap. */
static int has_children(void)
{
	siginfo_t si;

	return !waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT);
}

static void run_job(int sock, uint32_t timeout_s, const char *cwd, const char *cmd)
{
	struct job j = { .sock = sock, .deadline = -1, .kill_at = -1 };
	int pout[2], perr[2], sfd;
	sigset_t mask;

	/* Orphans of the command become ours, so we can reap and kill them. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	if (pipe2(pout, O_CLOEXEC) || pipe2(perr, O_CLOEXEC)) {
		dprintf(2, "ftpeer: pipe: %m\n");
		send_u32(sock, F_EXIT, EXIT_FTPEER);
		return;
	}
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGTERM);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);

	j.pid = fork();
	if (j.pid < 0) {
		send_u32(sock, F_EXIT, EXIT_FTPEER);
		return;
	}
	if (j.pid == 0) {
		int null = open("/dev/null", O_RDONLY);
		sigset_t none;

		/* Own session: one kill(-pid) reaches the whole job. */
		setsid();
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		dup2(null, 0);
		dup2(pout[1], 1);
		dup2(perr[1], 2);
		if (!cwd[0] || chdir(cwd))
			if (chdir("/"))
				_exit(127);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		dprintf(2, "ftpeer: exec /bin/sh: %m\n");
		_exit(127);
	}
	close(pout[1]);
	close(perr[1]);
	j.out = pout[0];
	j.err = perr[0];
	if (timeout_s)
		j.deadline = now_ms() + (int64_t)timeout_s * 1000;

	/*
	 * Done when the command has exited, both pipes hit EOF and no process
	 * of its tree is left.  Output is forwarded in arrival order per pipe.
	 */
	while (!j.have_status || j.out >= 0 || j.err >= 0 || has_children()) {
		struct pollfd p[4] = {
			{ .fd = j.out, .events = POLLIN },
			{ .fd = j.err, .events = POLLIN },
			{ .fd = j.sock, .events = POLLIN },
			{ .fd = sfd, .events = POLLIN },
		};
		int64_t next = j.deadline;
		int n;

		if (j.kill_at >= 0 && (next < 0 || j.kill_at < next))
			next = j.kill_at;
		n = poll(p, 4, poll_ms(next));
		if (n < 0 && errno != EINTR)
			break;
		if (p[3].revents & POLLIN) {
			struct signalfd_siginfo si;

			while (read(sfd, &si, sizeof(si)) == sizeof(si))
				if (si.ssi_signo == SIGTERM)
					/* The agent is shutting down. */
					job_terminate(&j);
		}
		job_reap(&j);
		if (p[0].revents)
			job_pump(&j, &j.out, F_STDOUT);
		if (p[1].revents)
			job_pump(&j, &j.err, F_STDERR);
		if (j.sock >= 0 && p[2].revents)
			job_client(&j);
		if (j.deadline >= 0 && now_ms() >= j.deadline && !j.have_status) {
			j.timed_out = 1;
			j.deadline = -1;
			job_terminate(&j);
		}
		if (j.kill_at >= 0 && now_ms() >= j.kill_at) {
			/* The session id cannot be reused while it has members. */
			kill(-j.pid, SIGKILL);
			signal_children(SIGKILL);
			/*
			 * Whatever still holds the pipes now is dead or about
			 * to be; re-arm so reparented grandchildren get it too.
			 */
			j.kill_at = now_ms() + 100;
		}
	}
	if (j.sock >= 0) {
		int code = j.timed_out ? EXIT_TIMEOUT : status_to_code(j.status);

		if (j.timed_out) {
			char note[96];
			int len = snprintf(note, sizeof(note),
					   "ftpeer: timed out after %us, killed\n", timeout_s);

			send_frame(j.sock, F_STDERR, note, len);
		}
		send_u32(j.sock, F_EXIT, code);
	}
}

static void handle_conn(int sock)
{
	uint32_t type, len;
	char *data;

	struct timeval tv = { .tv_sec = 10 };

	tune_socket(sock);
	/* A client that connects and says nothing must not pin a handler. */
	setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (recv_frame(sock, &type, &data, &len))
		_exit(1);
	tv.tv_sec = 0;
	setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (type == F_SHUTDOWN && len == 4 && get_u32(data) == FTPEER_MAGIC) {
		send_u32(sock, F_EXIT, 0);
		kill(getppid(), SIGTERM);
		_exit(0);
	}
	if (type == F_RUN && len >= 10 && get_u32(data) == FTPEER_MAGIC &&
	    data[len - 1] == '\0') {
		const char *cwd = data + 8;
		const char *cmd = cwd + strlen(cwd) + 1;

		if (cmd < data + len) {
			run_job(sock, get_u32(data + 4), cwd, cmd);
			_exit(0);
		}
	}
	send_frame(sock, F_STDERR, "ftpeer: bad request\n", 20);
	send_u32(sock, F_EXIT, EXIT_FTPEER);
	_exit(1);
}

#define MAX_CONNS 256

static int serve(const char *addr, int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	pid_t conns[MAX_CONNS] = { 0 };
	int one = 1, lfd, sfd, i;
	sigset_t mask;

	if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1) {
		msg("bad listen address %s", addr);
		return EXIT_FTPEER;
	}
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 64)) {
		msg("cannot listen on %s:%d: %m", addr, port);
		return EXIT_FTPEER;
	}
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	signal(SIGPIPE, SIG_IGN);
	/* Whoever waits for the agent (guest-init) can rely on this line. */
	printf("ftpeer: listening on %s:%d\n", addr, port);
	fflush(stdout);

	for (;;) {
		struct pollfd p[2] = { { .fd = lfd, .events = POLLIN },
				       { .fd = sfd, .events = POLLIN } };
		struct signalfd_siginfo si;
		int stop = 0;

		if (poll(p, 2, -1) < 0 && errno != EINTR)
			break;
		while (read(sfd, &si, sizeof(si)) == sizeof(si))
			if (si.ssi_signo != SIGCHLD)
				stop = 1;
		while ((i = waitpid(-1, NULL, WNOHANG)) > 0)
			for (int k = 0; k < MAX_CONNS; k++)
				if (conns[k] == i)
					conns[k] = 0;
		if (stop)
			break;
		if (p[0].revents & POLLIN) {
			int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
			pid_t pid;

			if (c < 0)
				continue;
			pid = fork();
			if (pid == 0) {
				close(lfd);
				close(sfd);
				handle_conn(c);
			}
			close(c);
			for (i = 0; pid > 0 && i < MAX_CONNS; i++)
				if (!conns[i]) {
					conns[i] = pid;
					break;
				}
		}
	}
	/* Shutdown: every handler kills its job tree before it exits. */
	close(lfd);
	for (i = 0; i < MAX_CONNS; i++)
		if (conns[i])
			kill(conns[i], SIGTERM);
	while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
		;
	return 0;
}

/* --------------------------------------------------------------- client */

static int connect_to(const char *host, int port, int wait_s)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	int64_t deadline = now_ms() + (int64_t)wait_s * 1000;
	struct addrinfo *res, *ai;
	char service[16];
	int err;

	snprintf(service, sizeof(service), "%d", port);
	err = getaddrinfo(host, service, &hints, &res);
	if (err) {
		msg("%s: %s", host, gai_strerror(err));
		return -1;
	}
	/*
	 * The agent may still be booting: retry refused/unreachable until
	 * the -w budget is spent.  This is the readiness wait, not a sleep.
	 */
	for (;;) {
		for (ai = res; ai; ai = ai->ai_next) {
			int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, 0);

			if (fd < 0)
				continue;
			if (!connect(fd, ai->ai_addr, ai->ai_addrlen)) {
				freeaddrinfo(res);
				tune_socket(fd);
				return fd;
			}
			err = errno;
			close(fd);
		}
		if (now_ms() >= deadline)
			break;
		poll(NULL, 0, 100);
	}
	freeaddrinfo(res);
	errno = err;
	msg("cannot reach the agent at %s:%d: %m", host, port);
	return -1;
}

static int client(const char *host, int port, int wait_s, uint32_t timeout_s,
		  int shutdown_req, int argc, char **argv)
{
	pid_t parent = getppid();
	int64_t give_up = -1;
	size_t clen = 0, off;
	char cwd[PATH_MAX], *req;
	int fd, sfd, i, pending_sig = 0, stdout_ok = 1;
	uint32_t be;
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	signal(SIGPIPE, SIG_IGN);
	/*
	 * `peer cmd &` in a test forks a subshell that runs us, so `kill $!`
	 * hits that shell, not us: treat its death like a SIGTERM to us.
	 */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		raise(SIGTERM);

	fd = connect_to(host, port, wait_s);
	if (fd < 0)
		return EXIT_FTPEER;
	if (shutdown_req) {
		if (send_u32(fd, F_SHUTDOWN, FTPEER_MAGIC))
			return EXIT_FTPEER;
	} else {
		/* ssh semantics: the words are joined and parsed by sh there. */
		for (i = 0; i < argc; i++)
			clen += strlen(argv[i]) + 1;
		if (!getcwd(cwd, sizeof(cwd)))
			cwd[0] = '\0';
		off = 8 + strlen(cwd) + 1;
		req = malloc(off + clen + 1);
		if (!req)
			return EXIT_FTPEER;
		be = htonl(FTPEER_MAGIC);
		memcpy(req, &be, 4);
		be = htonl(timeout_s);
		memcpy(req + 4, &be, 4);
		strcpy(req + 8, cwd);
		req[off] = '\0';
		for (i = 0; i < argc; i++) {
			if (i)
				strcat(req + off, " ");
			strcat(req + off, argv[i]);
		}
		if (send_frame(fd, F_RUN, req, off + strlen(req + off) + 1))
			return EXIT_FTPEER;
		free(req);
		/* Backstop in case the agent itself is wedged. */
		if (timeout_s)
			give_up = now_ms() + ((int64_t)timeout_s + 10) * 1000;
	}

	for (;;) {
		struct pollfd p[2] = { { .fd = fd, .events = POLLIN },
				       { .fd = sfd, .events = POLLIN } };
		uint32_t type, len;
		char *data;

		if (poll(p, 2, poll_ms(give_up)) < 0 && errno != EINTR)
			return EXIT_FTPEER;
		if (give_up >= 0 && now_ms() >= give_up) {
			if (pending_sig)
				return 128 + pending_sig;
			msg("no answer from %s, giving up", host);
			return timeout_s ? EXIT_TIMEOUT : EXIT_FTPEER;
		}
		if (p[1].revents & POLLIN) {
			struct signalfd_siginfo si;

			while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
				/* Second signal: stop waiting for the remote. */
				if (pending_sig)
					return 128 + (int)si.ssi_signo;
				pending_sig = (int)si.ssi_signo;
				send_u32(fd, F_SIGNAL, si.ssi_signo);
				give_up = now_ms() + GRACE_MS + 3000;
			}
		}
		if (!(p[0].revents))
			continue;
		if (recv_frame(fd, &type, &data, &len)) {
			if (pending_sig)
				return 128 + pending_sig;
			msg("connection to %s lost", host);
			return EXIT_FTPEER;
		}
		switch (type) {
		case F_STDOUT:
			if (stdout_ok && write_all(1, data, len)) {
				/* `peer cmd | head`: let the remote see EPIPE too. */
				stdout_ok = 0;
				send_u32(fd, F_SIGNAL, SIGPIPE);
			}
			break;
		case F_STDERR:
			write_all(2, data, len);
			break;
		case F_EXIT:
			i = len == 4 ? (int)get_u32(data) : EXIT_FTPEER;
			free(data);
			return i;
		}
		free(data);
	}
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ftpeer [-h HOST] [-p PORT] [-t SECS] [-w SECS] CMD [ARGS...]\n"
		"       ftpeer [-h HOST] [-p PORT] [-w SECS] --shutdown\n"
		"       ftpeer serve [-a ADDR] [-p PORT]\n"
		"  -h HOST  agent address (default $FT_PEER_CTL_IP)\n"
		"  -p PORT  agent port (default $FTPEER_PORT or %d)\n"
		"  -t SECS  kill the remote command after SECS, exit 124\n"
		"  -w SECS  keep retrying the connection for SECS (default 10)\n"
		"  -a ADDR  listen address (default $FT_CTL_IP or 0.0.0.0)\n"
		"Exit status: the remote command's; 128+N if killed by signal N;\n"
		"124 on timeout; 255 if ftpeer failed.\n", FTPEER_PORT);
}

static int parse_num(const char *s, const char *what)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == '\0' || *end || v < 0 || v > INT_MAX) {
		msg("bad %s: %s", what, s);
		exit(EXIT_FTPEER);
	}
	return (int)v;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "shutdown", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'H' },
		{ NULL, 0, NULL, 0 },
	};
	const char *host = getenv("FT_PEER_CTL_IP");
	const char *addr = getenv("FT_CTL_IP");
	const char *env_port = getenv("FTPEER_PORT");
	int port = env_port ? parse_num(env_port, "FTPEER_PORT") : FTPEER_PORT;
	int wait_s = 10, timeout_s = 0, shutdown_req = 0, serve_mode = 0, c;

	if (argc > 1 && !strcmp(argv[1], "serve")) {
		serve_mode = 1;
		prog = "ftpeer serve";
		argv++;
		argc--;
	}
	/* '+': stop at the first non-option, it belongs to the command. */
	while ((c = getopt_long(argc, argv, "+h:p:t:w:a:", lopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			host = optarg;
			break;
		case 'p':
			port = parse_num(optarg, "port");
			break;
		case 't':
			timeout_s = parse_num(optarg, "timeout");
			break;
		case 'w':
			wait_s = parse_num(optarg, "wait");
			break;
		case 'a':
			addr = optarg;
			break;
		case 'S':
			shutdown_req = 1;
			break;
		case 'H':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_FTPEER;
		}
	}
	if (serve_mode)
		return serve(addr && *addr ? addr : "0.0.0.0", port);
	if (!host || !*host) {
		msg("no peer: set FT_PEER_CTL_IP or pass -h HOST");
		return EXIT_FTPEER;
	}
	if (!shutdown_req && optind >= argc) {
		usage(stderr);
		return EXIT_FTPEER;
	}
	return client(host, port, wait_s, timeout_s, shutdown_req,
		      argc - optind, argv + optind);
}
