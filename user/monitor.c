// SPDX-License-Identifier: GPL-2.0
/* fabtrace monitor: QP lifecycle and congestion events, as they happen. */

#include <errno.h>
#include <linux/genetlink.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "cmd.h"
#include "ft.h"
#include "objects.h"
#include "parse.h"
#include "print.h"
#include "util.h"

#define MON_CTX		"monitor"
#define MON_HELP	"fabtrace monitor help"

static int monitor_help(void)
{
	printf("Usage: fabtrace monitor [ dev DEV ] [ events LIST ] [ { count | --count } N ]\n"
	       "       fabtrace monitor help\n"
	       "where  LIST := KIND[,LIST]\n"
	       "       KIND := { qp-create | qp-destroy | qp-error | ce | cnp | nak |\n"
	       "                 retransmit | timeout | rnr-timeout | retry-exhausted |\n"
	       "                 dropped | policy-change | misconfigured | storm-start |\n"
	       "                 storm-end | policy-drift }\n"
	       "\n"
	       "Prints one line per event until interrupted (SIGINT or SIGTERM: exit 0),\n"
	       "or until N events were printed (count N, or the --count N option).\n"
	       "ce, cnp, nak and retransmit report the onset of congestion on a QP, not\n"
	       "every packet; qp-destroy carries the QP's final counters; policy-change\n"
	       "names the fields a \"policy set\" changed (-j: the whole policy before\n"
	       "and after, as \"old\" and \"new\"); storm-start and storm-end name the\n"
	       "port and priority of a PFC storm, how long it has lasted (ms; -j: ns)\n"
	       "and how many live QPs have that priority; policy-drift names what a\n"
	       "port's DCBNL hardware reports where it differs from the policy fabtrace\n"
	       "pushed (someone else changed it), and says when it matches again;\n"
	       "misconfigured names a QP whose traffic class became against its port's\n"
	       "policy (see \"qp help\").  dev and events filter here, not in the kernel,\n"
	       "and DEV need not exist yet;\n"
	       "\"dropped\" (events the kernel rate-limited or could not queue) is\n"
	       "always shown.  Events this listener missed are detected from the\n"
	       "sequence numbers and reported on stderr.  -j prints one JSON object\n"
	       "per line.\n"
	       "\n"
	       "Line format:\n"
	       "  TIME dev DEV qpn N KIND [count N] [peer ADDR] [rqpn N] [pid N] [comm NAME]\n"
	       "       [suppressed N] [tx packets N bytes N rx packets N bytes N]\n"
	       "  TIME dev DEV port N policy-change [FIELD OLD->NEW]...\n"
	       "  TIME dev DEV port N { storm-start | storm-end } prio P duration MS ms qps N\n"
	       "  TIME dev DEV port N policy-drift [FIELD POLICY (hw HARDWARE)]...\n"
	       "\n"
	       "Examples:\n"
	       "  fabtrace monitor\n"
	       "  fabtrace monitor dev rxe0 events qp-create,qp-destroy\n"
	       "  fabtrace -j monitor events ce,cnp,nak,retransmit count 100\n");
	return 0;
}

static void lost(struct monitor *m, uint64_t n)
{
	if (n)
		ft_err("monitor fell behind, %llu events lost", (unsigned long long)n);
	else
		ft_err("monitor fell behind, an unknown number of events lost");
	m->overrun = false;
}

int monitor_msg(const struct nlmsghdr *nlh, void *data)
{
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);
	struct monitor *m = data;
	struct ft_event_rec e;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*g) ||
	    g->cmd != FABTRACE_CMD_QP_EVENT || ft_parse_event(nlh, &e))
		return MNL_CB_OK;

	if (e.have & FT_EV_HAVE_SEQ) {
		/*
		 * A gap is what this socket missed; a smaller seq: module
		 * reloaded.  ENOBUFS may come before the messages still queued
		 * ahead of the gap, so it waits for the gap to say how many.
		 */
		if (m->last_seq && e.seq > m->last_seq + 1)
			lost(m, e.seq - m->last_seq - 1);
		m->last_seq = e.seq;
	} else if (m->overrun) {
		lost(m, 0);
	}

	if (e.kind != FABTRACE_EVENT_KIND_DROPPED) {
		if (m->kinds && (e.kind >= 32 || !(m->kinds & (1u << e.kind))))
			return MNL_CB_OK;
		if (m->dev && strcmp(m->dev, e.dev))
			return MNL_CB_OK;
	}
	print_event(m->ft->out, &e);
	if (m->count && ++m->shown >= m->count)
		return MNL_CB_STOP;
	return MNL_CB_OK;
}

static int events_arg(struct arg_val *v, void *dst)
{
	char list[256];
	const char *why = parse_event_list(v->argv[0], dst);

	if (!why)
		return 1;
	snprintf(v->buf, sizeof(v->buf), "%s (kinds: %s)", why,
		 kw_list(ft_kw_event, list, sizeof(list)));
	v->why = v->buf;
	return ARG_INVALID;
}

static int parse_args(int argc, char **argv, struct monitor *m)
{
	bool has_count = false;
	uint32_t count = 0;
	const struct arg args[] = {
		{ .key = "help", .kind = ARG_HELP },
		ARG_DEV(&m->dev),
		{ .key = "events", .kind = ARG_FN, .fn = events_arg, .dst = &m->kinds },
		{ .key = "count", .kind = ARG_U32, .min = 1, .dst = &count,
		  .seen = &has_count, .why = "not a number from 1" },
		/* --count is also a global option; here it reads naturally too */
		{ .key = "--count", .kind = ARG_U32, .min = 1, .dst = &count,
		  .seen = &has_count, .why = "not a number from 1" },
		{ .key = NULL }
	};
	int ret;

	ret = args_parse(MON_CTX, MON_HELP, args, argc, argv);
	if (!ret && has_count)
		m->count = count;
	return ret;
}

int do_monitor(struct ft *ft, int argc, char **argv)
{
	struct monitor m = { .ft = ft, .count = ft->count };
	sigset_t oldmask;
	struct nl *nl;
	int ret, fd;

	ret = parse_args(argc, argv, &m);
	if (ret == ARGS_HELP)
		return monitor_help();
	if (ret)
		return -1;

	if (!ft->rcvbuf)
		ft->rcvbuf = FT_RCVBUF_MONITOR;
	nl = ft_nl(ft);
	if (!nl || nl_join_events(nl))
		return -1;
	if (ft_catch_signals(&oldmask)) {
		ft_err("cannot install signal handlers: %s", strerror(errno));
		return -1;
	}
	if (ft->json)
		out_lines(ft->out);
	fd = mnl_socket_get_fd(nl->sk);

	while (!ft_stop) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t len;

		/* signals are blocked but here: no lost wakeup between check and wait */
		if (ppoll(&pfd, 1, NULL, &oldmask) < 0) {
			if (errno == EINTR)
				continue;
			ft_err("monitor: %s", strerror(errno));
			return -1;
		}
		len = recv(fd, nl->rbuf, MNL_SOCKET_DUMP_SIZE, MSG_DONTWAIT);
		if (len < 0) {
			if (errno == ENOBUFS) {
				/* the next seq says how many; until then it is unknown */
				m.overrun = true;
				continue;
			}
			if (errno == EINTR || errno == EAGAIN)
				continue;
			ft_err("monitor: %s", strerror(errno));
			return -1;
		}
		ret = mnl_cb_run(nl->rbuf, len, 0, 0, monitor_msg, &m);
		if (ret == MNL_CB_STOP)
			break;		/* count reached */
		if (ret < 0) {
			ft_err("monitor: %s", strerror(errno));
			return -1;
		}
	}
	if (m.overrun)
		lost(&m, 0);
	return 0;
}
