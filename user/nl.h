/* SPDX-License-Identifier: GPL-2.0 */
/* The fabtrace generic netlink socket: family lookup, requests, dumps, errors. */
#ifndef _FABTRACE_NL_H
#define _FABTRACE_NL_H

#include <libmnl/libmnl.h>
#include <linux/fabtrace.h>
#include <stdbool.h>
#include <stdint.h>

/*
 * The kernel sends dump messages of up to 32 KiB; libmnl >= 1.0.5 names
 * that size, Debian 12's 1.0.4 does not yet.
 */
#ifndef MNL_SOCKET_DUMP_SIZE
#define MNL_SOCKET_DUMP_SIZE	32768
#endif

struct nl {
	struct mnl_socket *sk;
	unsigned int portid;
	unsigned int seq;
	uint16_t family;
	uint32_t version;		/* of the kernel's family */
	uint32_t events_grp;		/* multicast group id, 0 if none */
	uint32_t op_flags[FABTRACE_CMD_MAX + 1];	/* GENL_CMD_CAP_* */
	bool ops_known;
	char *rbuf;			/* MNL_SOCKET_DUMP_SIZE */
	char sbuf[8192];		/* requests are small */

	/* Outcome of the last request. */
	bool intr;			/* NLM_F_DUMP_INTR or ENOBUFS: inconsistent */
	bool kernel_err;		/* the error came from the kernel */
	char extack[256];		/* the kernel's message, or "" */
};

/*
 * Open the one socket of this invocation (extended and capped acks, a
 * receive buffer of @rcvbuf bytes) and resolve the family.  Prints why on
 * failure, e.g. "fabtrace: kernel module not loaded (run: modprobe fabtrace)".
 */
int nl_open(struct nl *nl, int rcvbuf, bool quiet);
void nl_close(struct nl *nl);

/* Whether the kernel offers @cmd as a do (GENL_CMD_CAP_DO) or dump request. */
bool nl_supports(const struct nl *nl, uint8_t cmd, uint32_t cap);

/* Start a request in the send buffer: a dump with NLM_F_DUMP, else acked. */
struct nlmsghdr *nl_req(struct nl *nl, uint8_t cmd, bool dump);

/*
 * Send @nlh and feed every reply to @cb until the ack or the end of the
 * dump.  EINTR is retried unless ft_stop is set; ENOBUFS marks the result
 * inconsistent (nl->intr) and reading goes on.  Returns 0 or -errno; a
 * kernel error leaves its extack message in nl->extack.
 */
int nl_talk(struct nl *nl, struct nlmsghdr *nlh, mnl_cb_t cb, void *data);

/*
 * Feed one received buffer to @cb (data messages) and to the handlers of
 * acks, errors and the end of a dump; NLM_F_DUMP_INTR sets nl->intr.
 * Returns MNL_CB_OK (more to come), MNL_CB_STOP (done) or -errno, with a
 * kernel error's extack in nl->extack.  nl_talk()'s inner step, apart for
 * the unit tests.
 */
int nl_process(struct nl *nl, void *buf, size_t len, unsigned int seq,
	       mnl_cb_t cb, void *data);

/*
 * A dump that must be consistent.  @build writes the request; @cb gets each
 * message; @restart (may be NULL) forgets what @cb collected.  When the
 * kernel flags the dump interrupted (entries changed meanwhile) it is run
 * again, up to 3 more times, then accepted with a warning.  Errors are
 * printed (@what names the command); returns 0 or -1.
 */
int nl_dump(struct nl *nl, struct nlmsghdr *(*build)(struct nl *nl, void *data),
	    mnl_cb_t cb, void (*restart)(void *data), void *data, const char *what);

/*
 * A do request: send, feed the reply to @cb; errors printed.  0, -1, or 1
 * when the kernel acked with a warning (printed), as policy-set does when
 * the software policy stands and the port's driver refused it.
 */
int nl_do(struct nl *nl, struct nlmsghdr *nlh, mnl_cb_t cb, void *data,
	  const char *what);

/*
 * "fabtrace: <extack>: <strerror>" for kernel errors that carry a message,
 * else "fabtrace: <what>: <strerror>", with a hint for EPERM.
 */
void nl_perror(const struct nl *nl, int err, const char *what);

/* Join the events multicast group. */
int nl_join_events(struct nl *nl);

#endif /* _FABTRACE_NL_H */
