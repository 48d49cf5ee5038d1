// SPDX-License-Identifier: GPL-2.0
/* fabtrace qp: list QPs with their counters, and reset counters. */

#include <errno.h>
#include <linux/genetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "ft.h"
#include "objects.h"
#include "parse.h"
#include "print.h"
#include "qpset.h"
#include "util.h"

static void qp_usage(FILE *fp)
{
	fprintf(fp,
		"Usage: fabtrace qp [ show ] [ dev DEV ] [ qpn LIST ] [ pid PID ] [ type TYPE ]\n"
		"                            [ state STATE ] [ congested ] [ destroyed ]\n"
		"                            [ misconfigured ] [ cgroup PATH ]\n"
		"                            [ slow [ rtt-above US ] ]\n"
		"                            [ sort KEY ] [ limit N ]\n"
		"       fabtrace qp reset [ dev DEV [ qpn QPN ] ]\n"
		"       fabtrace qp help\n"
		"where  LIST  := { QPN | QPN-QPN }[,LIST]     QPN: decimal, 0..16777215\n"
		"       TYPE  := { rc | uc | ud | gsi | smi | xrc_ini | xrc_tgt | raw_packet |\n"
		"                  raw_ipv6 | raw_ethertype | driver }\n"
		"       STATE := { reset | init | rtr | rts | sqd | sqe | err }\n"
		"       KEY   := { qpn | tx-bytes | rx-bytes | tx-pkts | rx-pkts | ce | cnp |\n"
		"                  nak | retrans | timeouts | rtt }\n"
		"\n"
		"show lists QPs that match every filter given; congested, destroyed and\n"
		"misconfigured keep QPs with that flag (misconfigured: the QP's traffic\n"
		"class maps to a priority without PFC while its port's policy has PFC\n"
		"priorities, or to an ECN priority with Not-ECT nothing marks).  cgroup\n"
		"keeps the QPs created by a process of the cgroup (v2) PATH or of one\n"
		"below it, as the path goes (\"/a/b\" holds /a/b and /a/b/c, not /a/bc;\n"
		"kernel QPs and QPs whose cgroup is gone have none); PATH is as\n"
		"/proc/PID/cgroup names it, below this reader's cgroup namespace.  A device\n"
		"and a single QP number ask for that QP\n"
		"alone (an error if it does not exist); anything else is a dump.  slow\n"
		"keeps the QPs whose smoothed round trip (RTT) is above US microseconds\n"
		"(default 1000); sort rtt puts the slowest first.  Each\n"
		"range of LIST is its own kernel-filtered dump, in ascending order.\n"
		"Without sort or limit, QPs stream in kernel order: by device, then by QP\n"
		"number, live QPs before destroyed ones.  sort qpn orders by device and QP\n"
		"number; the counter keys sort descending (cnp and nak: sent + received);\n"
		"limit N keeps the first N after sorting.  -s prints every counter of each\n"
		"QP, -j a JSON array with every counter, -n exact numbers in the table;\n"
		"both add the QP's cgroup (cgroup, and cgroup_id: the cgroup's inode\n"
		"number, which outlives its path).\n"
		"\n"
		"RTT is a QP's smoothed round trip as requester, timed from its own\n"
		"packets on a tapped device (RC and XRC): from a request that asks to be\n"
		"answered at once to the first answer covering it, never a request sent\n"
		"again.  -s adds its samples, last, min, variance, histogram and, as\n"
		"responder, its ack delay.  \"-\": not timed (a hardware NIC, UD, UC), or\n"
		"no sample yet.\n"
		"\n"
		"SOURCE says where a QP's numbers come from: tap (soft-RoCE's data path,\n"
		"every packet), set (a hardware NIC's counter set of its own), set-shared(N)\n"
		"(a set N QPs share: its counters are theirs together), psn (its PSNs'\n"
		"progress: new request packets, no retransmissions, no bytes) or none.  A\n"
		"hardware NIC counts no packets or bytes per QP: what it does not count\n"
		"prints \"-\" and is absent from JSON, never 0.  For a QP in a set, -s and\n"
		"-j add every counter of the set by its driver's name; those that mean\n"
		"one of fabtrace's fill it: out_of_sequence rx_oos, duplicate_request\n"
		"rx_dup, packet_seq_err rx_nak psn_seq, local_ack_timeout_err timeouts,\n"
		"roce_adp_retrans retransmits, req_*_retries_exceeded retry_exhausted.\n"
		"\n"
		"reset zeroes the counters of one QP, of every QP of a device, or of every\n"
		"QP (no argument); it needs CAP_NET_ADMIN.\n"
		"\n"
		"Examples:\n"
		"  fabtrace qp\n"
		"  fabtrace qp show dev rxe0 qpn 17\n"
		"  fabtrace qp show qpn 1,3,10-20 congested\n"
		"  fabtrace qp show type rc state rts sort tx-bytes limit 10\n"
		"  fabtrace -s qp show dev rxe0 sort retrans limit 5\n"
		"  fabtrace qp show slow rtt-above 500 sort rtt\n"
		"  fabtrace -j -p qp show pid 4242\n"
		"  fabtrace -s qp show cgroup /system.slice/slurmstepd.scope\n"
		"  fabtrace qp reset dev rxe0 qpn 17\n");
}

static int qp_help(struct ft *ft, int argc, char **argv)
{
	(void)ft;
	(void)argc;
	(void)argv;
	qp_usage(stdout);
	return 0;
}

/* --- show: arguments -------------------------------------------------------- */

#define SHOW_CTX	"qp show"
#define QP_HELP		"fabtrace qp help"

const char *parse_cgroup_path(const char *s, char *buf)
{
	size_t n = strlen(s);

	if (s[0] != '/')
		return "not an absolute path (from /)";
	if (n >= FT_CGROUP_LEN)
		return "longer than a cgroup path can be";
	if (strstr(s, "//"))
		return "an empty path component";
	while (n > 1 && s[n - 1] == '/')
		n--;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return NULL;
}

static int cgroup_arg(struct arg_val *v, void *dst)
{
	struct qp_query *q = dst;

	v->why = parse_cgroup_path(v->argv[0], q->cgroup);
	if (v->why)
		return ARG_INVALID;
	q->has_cgroup = true;
	return 1;
}

static int qpn_arg(struct arg_val *v, void *dst)
{
	struct qp_query *q = dst;

	v->why = parse_qpn_list(v->argv[0], &q->ranges, &q->nranges);
	return v->why ? ARG_INVALID : 1;
}

int qp_parse_show(int argc, char **argv, struct qp_query *q)
{
	bool congested = false, destroyed = false, misconf = false, has_above = false;
	uint32_t sort = 0;
	const struct arg args[] = {
		{ .key = "help", .kind = ARG_HELP },
		ARG_DEV(&q->dev),
		{ .key = "qpn", .kind = ARG_FN, .fn = qpn_arg, .dst = q },
		{ .key = "pid", .kind = ARG_U32, .dst = &q->pid, .seen = &q->has_pid,
		  .why = "not a decimal process id" },
		{ .key = "type", .kind = ARG_KW, .kw = ft_kw_qp_type, .dst = &q->type,
		  .seen = &q->has_type },
		{ .key = "state", .kind = ARG_KW, .kw = ft_kw_qp_state, .dst = &q->state,
		  .seen = &q->has_state },
		{ .key = "congested", .kind = ARG_FLAG, .dst = &congested },
		{ .key = "destroyed", .kind = ARG_FLAG, .dst = &destroyed },
		{ .key = "misconfigured", .kind = ARG_FLAG, .dst = &misconf },
		{ .key = "cgroup", .kind = ARG_FN, .fn = cgroup_arg, .dst = q },
		{ .key = "slow", .kind = ARG_FLAG, .dst = &q->slow },
		{ .key = "rtt-above", .kind = ARG_U32, .dst = &q->rtt_above_us,
		  .seen = &has_above, .why = "not a number of microseconds" },
		{ .key = "sort", .kind = ARG_KW, .kw = ft_kw_qp_sort, .dst = &sort,
		  .seen = &q->has_sort },
		{ .key = "limit", .kind = ARG_U32, .min = 1, .dst = &q->limit,
		  .seen = &q->has_limit, .why = "not a number from 1" },
		{ .key = NULL }
	};
	int ret;

	memset(q, 0, sizeof(*q));
	ret = args_parse(SHOW_CTX, QP_HELP, args, argc, argv);
	if (ret) {
		qp_query_free(q);
		return ret;
	}
	if (has_above && !q->slow) {
		ft_err("%s: \"rtt-above\" goes with \"slow\"", SHOW_CTX);
		qp_query_free(q);
		return -1;
	}
	if (!has_above)
		q->rtt_above_us = QP_SLOW_US;
	q->sort = sort;
	q->match_flags = (congested ? FABTRACE_QP_FLAGS_CONGESTED : 0) |
			 (destroyed ? FABTRACE_QP_FLAGS_DESTROYED : 0) |
			 (misconf ? FABTRACE_QP_FLAGS_MISCONFIGURED : 0);
	return 0;
}

void qp_query_free(struct qp_query *q)
{
	free(q->ranges);
	q->ranges = NULL;
	q->nranges = 0;
}

bool qp_query_is_do(const struct qp_query *q)
{
	return q->dev && q->nranges == 1 && q->ranges[0].min == q->ranges[0].max &&
	       !q->has_pid && !q->has_type && !q->has_state && !q->match_flags &&
	       !q->has_cgroup;
}

/* --- show: the dump ----------------------------------------------------------- */

struct qp_show {
	struct ft *ft;
	const struct qp_query *q;
	const struct qpn_range *range;	/* of the running dump, NULL: all */
	bool collect;			/* sort or limit: print at the end */
	struct qpset set;
	struct ft_qp_rec one;
	bool header;
	/*
	 * Streamed QPs cannot be taken back when a dump turns out interrupted:
	 * an entry is printed once, whichever run of the dump brings it, and
	 * however often (an interrupted run can bring one entry live and then
	 * destroyed: the live one is printed, and the retry is clean).
	 */
	struct qp_keyset printed;
};

/* Is @r's smoothed round trip above @us? */
static bool qp_slow(const struct ft_qp_rec *r, uint32_t us)
{
	return (r->rtt.have & FT_RTT_HAVE_STATS) && r->rtt.srtt_ns > (uint64_t)us * 1000;
}

static void show_restart(void *data)
{
	struct qp_show *s = data;

	if (s->collect)
		qpset_clear(&s->set);
}

static void show_one(struct qp_show *s, const struct ft_qp_rec *r)
{
	struct out *o = s->ft->out;

	if (s->ft->json || s->ft->stats) {
		print_qp_full(o, r);
		return;
	}
	if (!s->header) {
		print_qp_header(o);
		s->header = true;
	}
	print_qp_row(o, r);
}

static bool is_cmd(const struct nlmsghdr *nlh, uint8_t cmd)
{
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);

	return mnl_nlmsg_get_payload_len(nlh) >= sizeof(*g) && g->cmd == cmd;
}

static int show_cb(const struct nlmsghdr *nlh, void *data)
{
	struct qp_show *s = data;
	struct ft_qp_rec *r;
	struct qp_key k;

	if (!is_cmd(nlh, FABTRACE_CMD_QP_GET))
		return MNL_CB_OK;
	r = s->collect ? qpset_add(&s->set) : &s->one;
	if (ft_parse_qp(nlh, r)) {
		if (s->collect)
			s->set.n--;
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	if ((s->q->has_cgroup && !ft_qp_in_cgroup(r, s->q->cgroup)) ||
	    (s->q->slow && !qp_slow(r, s->q->rtt_above_us))) {
		if (s->collect)
			s->set.n--;
		return MNL_CB_OK;
	}
	k = qp_key_of(r);
	if (s->collect || !qp_keyset_add(&s->printed, &k))
		return MNL_CB_OK;
	show_one(s, r);
	return MNL_CB_OK;
}

static void put_filters(struct nlmsghdr *nlh, const struct qp_query *q,
			const struct qpn_range *range)
{
	if (q->dev)
		mnl_attr_put_strz(nlh, FABTRACE_A_QP_DEV_NAME, q->dev);
	if (range) {
		mnl_attr_put_u32(nlh, FABTRACE_A_QP_QPN_MIN, range->min);
		mnl_attr_put_u32(nlh, FABTRACE_A_QP_QPN_MAX, range->max);
	}
	if (q->has_pid)
		mnl_attr_put_u32(nlh, FABTRACE_A_QP_PID, q->pid);
	if (q->has_type)
		mnl_attr_put_u32(nlh, FABTRACE_A_QP_TYPE, q->type);
	if (q->has_state)
		mnl_attr_put_u32(nlh, FABTRACE_A_QP_STATE, q->state);
	if (q->match_flags)
		mnl_attr_put_u32(nlh, FABTRACE_A_QP_MATCH_FLAGS, q->match_flags);
}

static struct nlmsghdr *show_build(struct nl *nl, void *data)
{
	struct qp_show *s = data;
	struct nlmsghdr *nlh = nl_req(nl, FABTRACE_CMD_QP_GET, true);

	put_filters(nlh, s->q, s->range);
	return nlh;
}

static int show_print_all(struct qp_show *s)
{
	size_t i;

	qpset_sort(&s->set, s->q->has_sort ? s->q->sort : QP_SORT_QPN,
		   s->q->has_limit ? s->q->limit : 0);
	for (i = 0; i < s->set.n; i++)
		show_one(s, s->set.v[i]);
	return 0;
}

static int qp_show(struct ft *ft, int argc, char **argv)
{
	struct qp_show s = { .ft = ft };
	struct qp_query q;
	struct nl *nl;
	int ret = -1;
	size_t i;

	ret = qp_parse_show(argc, argv, &q);
	if (ret == ARGS_HELP)
		return qp_help(ft, 0, NULL);
	if (ret)
		return -1;
	ret = -1;
	s.q = &q;
	s.collect = q.has_sort || q.has_limit;
	nl = ft_nl(ft);
	if (!nl)
		goto out;
	if (ft->json)
		out_list_begin(ft->out);

	if (qp_query_is_do(&q)) {
		struct nlmsghdr *nlh = nl_req(nl, FABTRACE_CMD_QP_GET, false);

		mnl_attr_put_strz(nlh, FABTRACE_A_QP_DEV_NAME, q.dev);
		mnl_attr_put_u32(nlh, FABTRACE_A_QP_QPN, q.ranges[0].min);
		if (nl_do(nl, nlh, show_cb, &s, "qp show"))
			goto out;
	} else {
		if (!nl_supports(nl, FABTRACE_CMD_QP_GET, GENL_CMD_CAP_DUMP)) {
			ft_err("the loaded fabtrace module cannot list QPs");
			goto out;
		}
		if (q.dev && ft_check_dev(ft, q.dev))
			goto out;
		for (i = 0; i < (q.ranges ? q.nranges : 1); i++) {
			s.range = q.ranges ? &q.ranges[i] : NULL;
			if (nl_dump(nl, show_build, show_cb, show_restart, &s,
				    "qp show"))
				goto out;
		}
	}
	if (s.collect)
		show_print_all(&s);
	if (ft->json)
		out_list_end(ft->out);
	ret = 0;
out:
	qpset_free(&s.set);
	qp_keyset_free(&s.printed);
	qp_query_free(&q);
	return ret;
}

/* --- reset -------------------------------------------------------------------- */

#define RESET_CTX	"qp reset"

static int qp_reset(struct ft *ft, int argc, char **argv)
{
	const char *dev = NULL;
	bool has_qpn = false;
	uint32_t qpn = 0;
	const struct arg args[] = {
		{ .key = "help", .kind = ARG_HELP },
		ARG_DEV(&dev),
		{ .key = "qpn", .kind = ARG_U32, .max = FT_QPN_MAX, .dst = &qpn,
		  .seen = &has_qpn, .why = "not a decimal QP number (0..16777215)" },
		{ .key = NULL }
	};
	struct nlmsghdr *nlh;
	struct nl *nl;
	int ret;

	ret = args_parse(RESET_CTX, QP_HELP, args, argc, argv);
	if (ret == ARGS_HELP)
		return qp_help(ft, 0, NULL);
	if (ret)
		return -1;
	if (has_qpn && !dev) {
		ft_err("%s: \"qpn\" needs \"dev\"", RESET_CTX);
		return -1;
	}
	nl = ft_nl(ft);
	if (!nl)
		return -1;
	if (!nl_supports(nl, FABTRACE_CMD_QP_RESET, GENL_CMD_CAP_DO)) {
		ft_err("the loaded fabtrace module cannot reset counters");
		return -1;
	}
	nlh = nl_req(nl, FABTRACE_CMD_QP_RESET, false);
	if (dev)
		mnl_attr_put_strz(nlh, FABTRACE_A_QP_DEV_NAME, dev);
	if (has_qpn)
		mnl_attr_put_u32(nlh, FABTRACE_A_QP_QPN, qpn);
	return nl_do(nl, nlh, NULL, NULL, RESET_CTX);
}

static const struct cmd qp_cmds[] = {
	{ "show", qp_show },
	{ "reset", qp_reset },
	{ "help", qp_help },
	{ NULL, NULL }
};

int do_qp(struct ft *ft, int argc, char **argv)
{
	return cmd_dispatch(ft, qp_cmds, "qp command", QP_HELP, argc, argv);
}
