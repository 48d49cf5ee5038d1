// SPDX-License-Identifier: GPL-2.0
/* fabtrace top: QPs ranked by their traffic or congestion rates, refreshed. */

#include <errno.h>
#include <linux/genetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cmd.h"
#include "ft.h"
#include "objects.h"
#include "parse.h"
#include "print.h"
#include "rate.h"
#include "term.h"
#include "units.h"
#include "util.h"

#define TOP_CTX		"top"
#define TOP_HELP	"fabtrace top help"

/*
 * ANSI sequence: home + clear.  No alternate screen: the last snapshot, and
 * any error after it, stay readable on exit.
 */
#define TERM_HOME	"\033[H\033[2J"

static int top_help(void)
{
	printf("Usage: fabtrace top [ dev DEV ] [ sort KEY ] [ interval MS ] [ batch ]\n"
	       "                    [ iterations N ] [ limit N ]\n"
	       "       fabtrace top help\n"
	       "where  KEY := { bytes | pkts | ce | cnp | nak | retrans }\n"
	       "\n"
	       "Samples every QP each interval (default 1000 ms) and ranks them by the\n"
	       "rate of KEY per second, highest first (default bytes: sent + received\n"
	       "payload bytes; pkts: sent + received packets; cnp and nak: sent +\n"
	       "received).  The first screen comes after one interval: rates need two\n"
	       "samples.  On a terminal the screen is redrawn in place: q, Ctrl-C,\n"
	       "SIGTERM, SIGHUP or SIGQUIT quit and Ctrl-Z suspends, each with the\n"
	       "terminal restored.  batch (or -b after top), or output that is not a\n"
	       "terminal, prints plain\n"
	       "snapshots with a header line each, for scripts.  iterations N stops\n"
	       "after N snapshots; limit N shows the first N QPs (on a terminal: what\n"
	       "fits).\n"
	       "-j prints one JSON object per snapshot and line:\n"
	       "  {\"time\", \"interval_ms\", \"elapsed_ms\", \"qps\": [{\"dev\", \"dev_index\",\n"
	       "   \"qpn\", \"pid\", \"comm\", \"peer\", \"remote_qpn\", \"tx_pps\", \"rx_pps\",\n"
	       "   \"tx_bps\", \"rx_bps\", \"ce_ps\", \"cnp_ps\", \"nak_ps\", \"retrans_ps\",\n"
	       "   \"source\"}], \"ports\": [...]}\n"
	       "where *_bps are payload bytes (not bits) per second.\n"
	       "\n"
	       "On a hardware RDMA NIC a QP's rates are those its source counts, the\n"
	       "others \"-\" (absent in JSON, and sorted last): a counter set's NAKs and\n"
	       "retransmits; with source psn, TX-PPS and RX-PPS are new request packets\n"
	       "from its PSNs' progress (no retransmits, no bytes).  No NIC counts ECN\n"
	       "or CNPs per QP: a line per port gives its ECN-marked packets and CNPs\n"
	       "sent, handled and ignored per second, and the QPs on it whose counters\n"
	       "moved in the interval (the QPs of a shared set move together; JSON\n"
	       "\"ports\": {\"dev\", \"port\", \"congested\",\n"
	       "\"ecn_marked_ps\", ..., \"active_qps\": [{\"qpn\", \"pid\", \"comm\",\n"
	       "\"prio\", \"cgroup\"}]}).\n"
	       "\n"
	       "Examples:\n"
	       "  fabtrace top\n"
	       "  fabtrace top dev rxe0 sort retrans interval 500\n"
	       "  fabtrace top batch iterations 5 limit 10\n"
	       "  fabtrace -j top sort ce iterations 3\n");
	return 0;
}

struct top {
	struct ft *ft;
	const char *dev;
	enum top_sort sort;
	uint32_t interval_ms;
	uint32_t iterations;		/* 0: until interrupted */
	uint32_t limit;			/* 0: all (or what fits) */
	bool batch, screen;
	struct term term;		/* when screen */
	struct qpset sets[2];
	struct qpset *cur;		/* being filled by the dump */
	struct ft_recs devs[2];		/* with each set: the devices' ports */
	struct qp_rate *rates;
	size_t cap;
	struct port_rate *ports;
	size_t pcap;
};

static int parse_args(int argc, char **argv, struct top *t)
{
	uint32_t sort = t->sort;
	const struct arg args[] = {
		{ .key = "help", .kind = ARG_HELP },
		{ .key = "batch", .kind = ARG_FLAG, .dst = &t->batch, .repeat = true },
		/* top's own -b, from before -b FILE was the global batch file */
		{ .key = "-b", .kind = ARG_FLAG, .dst = &t->batch, .repeat = true },
		ARG_DEV(&t->dev),
		{ .key = "sort", .kind = ARG_KW, .kw = ft_kw_top_sort, .dst = &sort },
		/* below 10 ms the dump itself is most of the interval */
		{ .key = "interval", .kind = ARG_U32, .min = 10, .max = 3600 * 1000,
		  .dst = &t->interval_ms, .why = "milliseconds from 10 to 3600000" },
		{ .key = "iterations", .kind = ARG_U32, .min = 1, .dst = &t->iterations,
		  .why = "not a number from 1" },
		{ .key = "limit", .kind = ARG_U32, .min = 1, .dst = &t->limit,
		  .why = "not a number from 1" },
		{ .key = NULL }
	};
	int ret;

	ret = args_parse(TOP_CTX, TOP_HELP, args, argc, argv);
	t->sort = sort;
	return ret;
}

/* --- sampling ------------------------------------------------------------------ */

static int sample_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);
	struct top *t = data;
	struct ft_qp_rec *r;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*g) ||
	    g->cmd != FABTRACE_CMD_QP_GET)
		return MNL_CB_OK;
	r = qpset_add(t->cur);
	if (ft_parse_qp(nlh, r)) {
		t->cur->n--;
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	return MNL_CB_OK;
}

static void sample_restart(void *data)
{
	qpset_clear(((struct top *)data)->cur);
}

static struct nlmsghdr *sample_build(struct nl *nl, void *data)
{
	struct top *t = data;
	struct nlmsghdr *nlh = nl_req(nl, FABTRACE_CMD_QP_GET, true);

	if (t->dev)
		mnl_attr_put_strz(nlh, FABTRACE_A_QP_DEV_NAME, t->dev);
	return nlh;
}

/* The QPs into set @i, and the devices (a hardware port's counters) beside them. */
static int sample(struct top *t, int i)
{
	struct ft_recs *d = &t->devs[i];
	struct ft_dev_rec *v;
	size_t k, n = 0;

	qpset_clear(&t->sets[i]);
	t->cur = &t->sets[i];
	if (nl_dump(&t->ft->nl, sample_build, sample_cb, sample_restart, t, "top"))
		return -1;
	if (ft_recs_dump(&t->ft->nl, d, "top"))
		return -1;
	v = d->v;
	for (k = 0; k < d->n; k++)
		if (!t->dev || !strcmp(v[k].name, t->dev))
			v[n++] = v[k];
	d->n = n;
	return 0;
}

/* --- the terminal ---------------------------------------------------------------- */

static unsigned int screen_rows(void)
{
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) || ws.ws_row < 4)
		return 24;
	return ws.ws_row;
}

/*
 * Wait one interval; true when asked to quit (signal, or "q" on the screen).
 * Back from Ctrl-Z it returns early: a fresh screen at once, and rates over
 * the time that really passed.
 */
static bool wait_interval(struct top *t, const sigset_t *mask)
{
	if (!t->screen)
		return ft_sleep_ms(t->interval_ms, mask) || ft_stop;
	return term_wait(&t->term, (uint64_t)t->interval_ms * 1000000ull, mask);
}

/* --- output ------------------------------------------------------------------------ */

#define TOP_ROW_FMT "%-8s %8s %7s %-15s %-21s %8s %8s %9s %9s %7s %7s %7s %7s %s\n"
#define TOP_PORT_FMT "%-12s %13s %11s %14s %14s %s\n"
#define TOP_PORT_QPS 8		/* active QPs a port's text line names */

/* A rate, or "-" where the QP's (or port's) source does not count it (!@have). */
static const char *rate_txt(const struct top *t, char *buf, size_t len, double v,
			    bool bytes, bool have)
{
	if (!have)
		snprintf(buf, len, "-");
	else if (t->ft->numeric)
		snprintf(buf, len, "%.1f", v);
	else if (bytes)
		fmt_byte_rate(buf, len, v);
	else
		fmt_rate(buf, len, v);
	return buf;
}

/* Whether QP @q is on port @p and moved this interval. */
static bool active_on(const struct qp_rate *q, const struct port_rate *p)
{
	return q->active && q->r->dev_index == p->d->index &&
	       (q->r->have & FT_QP_HAVE_PORT) && q->r->port == p->port;
}

static void print_ports_text(struct top *t, size_t nports, size_t total)
{
	char name[OUT_ESC_SIZE(FT_NAME_LEN) + 16], v[HW_NTERMS][FT_FMT_LEN];
	char qps[TOP_PORT_QPS * 12 + 32];
	size_t i, j, k, len;
	unsigned int m;

	if (!nports)
		return;
	printf(TOP_PORT_FMT, "PORT", "ECN-MARKED/S", "CNP-SENT/S", "CNP-HANDLED/S",
	       "CNP-IGNORED/S", "ACTIVE-QPS");
	for (i = 0; i < nports; i++) {
		const struct port_rate *p = &t->ports[i];

		out_esc(name, sizeof(name) - 16, p->d->name);
		snprintf(name + strlen(name), 16, "/%u", p->port);
		for (m = 0; m < HW_NTERMS; m++)
			rate_txt(t, v[m], FT_FMT_LEN, p->ps[m], false, p->have & (1u << m));
		for (j = k = len = 0; j < total; j++) {
			if (!active_on(&t->rates[j], p))
				continue;
			if (k++ < TOP_PORT_QPS)
				len += snprintf(qps + len, sizeof(qps) - len, " %u",
						t->rates[j].r->qpn);
		}
		if (k > TOP_PORT_QPS)
			snprintf(qps + len, sizeof(qps) - len, " ...");
		else if (!k)
			snprintf(qps, sizeof(qps), " -");
		printf(TOP_PORT_FMT, name, v[HW_ECN_MARKED], v[HW_CNP_SENT], v[HW_CNP_HANDLED],
		       v[HW_CNP_IGNORED], qps + 1);
	}
	putchar('\n');
}

static void print_text(struct top *t, size_t n, size_t total, size_t nports,
		       uint64_t real, uint64_t elapsed_ns)
{
	char ts[FT_FMT_LEN], v[8][FT_FMT_LEN], src[32];
	struct qp_cells c;
	size_t i;

	if (t->screen)
		fputs(TERM_HOME, stdout);
	printf("fabtrace top  %s  interval %u ms (%.0f ms)  sort %s  qps %zu\n",
	       fmt_time(ts, sizeof(ts), real, 0), t->interval_ms,
	       (double)elapsed_ns / 1e6, kw_name(ft_kw_top_sort, t->sort), total);
	print_ports_text(t, nports, total);
	printf(TOP_ROW_FMT, "DEV", "QPN", "PID", "COMM", "PEER", "TX-PPS", "RX-PPS",
	       "TX-B/S", "RX-B/S", "CE/S", "CNP/S", "NAK/S", "RETX/S", "SOURCE");
	for (i = 0; i < n; i++) {
		const struct qp_rate *q = &t->rates[i];
		const struct ft_qp_rec *r = q->r;

		fmt_qp_cells(&c, r);
		printf(TOP_ROW_FMT, c.dev, c.qpn, c.pid, c.comm, c.peer,
		       rate_txt(t, v[0], FT_FMT_LEN, q->tx_pps, false, q->have & RATE_HAVE_PKTS),
		       rate_txt(t, v[1], FT_FMT_LEN, q->rx_pps, false, q->have & RATE_HAVE_PKTS),
		       rate_txt(t, v[2], FT_FMT_LEN, q->tx_bps, true, q->have & RATE_HAVE_BYTES),
		       rate_txt(t, v[3], FT_FMT_LEN, q->rx_bps, true, q->have & RATE_HAVE_BYTES),
		       rate_txt(t, v[4], FT_FMT_LEN, q->ce_ps, false, q->have & RATE_HAVE_CE),
		       rate_txt(t, v[5], FT_FMT_LEN, q->cnp_ps, false, q->have & RATE_HAVE_CNP),
		       rate_txt(t, v[6], FT_FMT_LEN, q->nak_ps, false, q->have & RATE_HAVE_NAK),
		       rate_txt(t, v[7], FT_FMT_LEN, q->retrans_ps, false,
				q->have & RATE_HAVE_RETRANS),
		       fmt_source(src, sizeof(src), r));
	}
	if (!t->screen)
		putchar('\n');
	fflush(stdout);
}

static void json_rate(struct out *o, const char *key, double v, bool have)
{
	if (have)
		out_double(o, PRINT_JSON, key, NULL, v);
}

static void print_ports_json(struct top *t, size_t nports, size_t total)
{
	struct out *o = t->ft->out;
	unsigned int m;
	size_t i, j;

	out_arr_begin(o, "ports");
	for (i = 0; i < nports; i++) {
		const struct port_rate *p = &t->ports[i];

		out_obj_begin(o, NULL);
		out_str(o, PRINT_JSON, "dev", NULL, p->d->name);
		out_u64(o, PRINT_JSON, "port", NULL, p->port);
		out_bool(o, PRINT_JSON, "congested", NULL, p->congested);
		for (m = 0; m < HW_NTERMS; m++)
			json_rate(o, hw_terms[m].rate_key, p->ps[m], p->have & (1u << m));
		/* the attribution a NIC allows: who was moving while it was marked */
		out_arr_begin(o, "active_qps");
		for (j = 0; j < total; j++) {
			const struct ft_qp_rec *r = t->rates[j].r;

			if (!active_on(&t->rates[j], p))
				continue;
			out_obj_begin(o, NULL);
			out_u64(o, PRINT_JSON, "qpn", NULL, r->qpn);
			out_u64(o, PRINT_JSON, "pid", NULL, r->pid);
			out_str(o, PRINT_JSON, "comm", NULL, r->comm);
			if (r->have & FT_QP_HAVE_PFC)
				out_u64(o, PRINT_JSON, "prio", NULL, r->prio);
			if (r->have & FT_QP_HAVE_CGROUP)
				out_str(o, PRINT_JSON, "cgroup", NULL, r->cgroup);
			out_obj_end(o);
		}
		out_arr_end(o);
		out_obj_end(o);
	}
	out_arr_end(o);
}

static void print_json(struct top *t, size_t n, size_t total, size_t nports, uint64_t real,
		       uint64_t elapsed_ns)
{
	struct out *o = t->ft->out;
	char buf[FT_FMT_LEN];
	size_t i;

	out_obj_begin(o, NULL);
	out_u64(o, PRINT_JSON, "time", NULL, real);
	out_u64(o, PRINT_JSON, "interval_ms", NULL, t->interval_ms);
	out_u64(o, PRINT_JSON, "elapsed_ms", NULL, (elapsed_ns + 500000) / 1000000);
	out_str(o, PRINT_JSON, "sort", NULL, kw_name(ft_kw_top_sort, t->sort));
	out_arr_begin(o, "qps");
	for (i = 0; i < n; i++) {
		const struct qp_rate *q = &t->rates[i];
		const struct ft_qp_rec *r = q->r;

		out_obj_begin(o, NULL);
		out_str(o, PRINT_JSON, "dev", NULL, r->dev);
		out_u64(o, PRINT_JSON, "dev_index", NULL, r->dev_index);
		out_u64(o, PRINT_JSON, "qpn", NULL, r->qpn);
		out_u64(o, PRINT_JSON, "pid", NULL, r->pid);
		out_str(o, PRINT_JSON, "comm", NULL, r->comm);
		if (r->have & FT_QP_HAVE_PEER)
			out_str(o, PRINT_JSON, "peer", NULL,
				fmt_gid(buf, sizeof(buf), r->peer));
		if (r->have & FT_QP_HAVE_RQPN)
			out_u64(o, PRINT_JSON, "remote_qpn", NULL, r->remote_qpn);
		json_rate(o, "tx_pps", q->tx_pps, q->have & RATE_HAVE_PKTS);
		json_rate(o, "rx_pps", q->rx_pps, q->have & RATE_HAVE_PKTS);
		json_rate(o, "tx_bps", q->tx_bps, q->have & RATE_HAVE_BYTES);
		json_rate(o, "rx_bps", q->rx_bps, q->have & RATE_HAVE_BYTES);
		json_rate(o, "ce_ps", q->ce_ps, q->have & RATE_HAVE_CE);
		json_rate(o, "cnp_ps", q->cnp_ps, q->have & RATE_HAVE_CNP);
		json_rate(o, "nak_ps", q->nak_ps, q->have & RATE_HAVE_NAK);
		json_rate(o, "retrans_ps", q->retrans_ps, q->have & RATE_HAVE_RETRANS);
		out_str(o, PRINT_JSON, "source", NULL, kw_text(ft_kw_source, ft_qp_source(r),
							       buf, sizeof(buf)));
		out_obj_end(o);
	}
	out_arr_end(o);
	print_ports_json(t, nports, total);
	out_obj_end(o);
}

/* Room in t->ports for every hardware port of @d. */
static void ports_room(struct top *t, const struct ft_recs *d)
{
	const struct ft_dev_rec *v = d->v;
	size_t i, n = 0;

	for (i = 0; i < d->n; i++)
		n += v[i].hw.present ? v[i].hw.nports : 0;
	if (t->pcap < n) {
		t->pcap = n;
		t->ports = xrealloc(t->ports, n * sizeof(*t->ports));
	}
}

static int run(struct top *t, const sigset_t *mask)
{
	uint64_t prev_real, prev_mono, cur_real, cur_mono, it;
	size_t n, total, limit, nports, head, rows;
	int prev = 0, cur = 1;

	prev_real = ft_now_real();
	prev_mono = ft_now_mono();
	if (sample(t, prev))
		return ft_stop ? 0 : -1;
	for (it = 0; !t->iterations || it < t->iterations; it++) {
		if (wait_interval(t, mask))
			break;
		cur_real = ft_now_real();
		cur_mono = ft_now_mono();
		if (sample(t, cur))
			return ft_stop ? 0 : -1;
		if (t->cap < t->sets[cur].n) {
			t->cap = t->sets[cur].n;
			t->rates = xrealloc(t->rates, t->cap * sizeof(*t->rates));
		}
		total = rates_compute(&t->sets[prev], &t->sets[cur], prev_real,
				      cur_mono - prev_mono, t->rates);
		ports_room(t, &t->devs[cur]);
		nports = port_rates_compute(t->devs[prev].v, t->devs[prev].n, t->devs[cur].v,
					    t->devs[cur].n, cur_mono - prev_mono, t->ports);
		limit = t->limit;
		/* on a screen: what fits below the title, the ports and the header */
		head = 3 + (nports ? nports + 2 : 0);
		rows = t->screen ? screen_rows() : 0;
		if (t->screen && (!limit || limit + head > rows))
			limit = rows > head ? rows - head : 1;
		/* all sorted: a port names its active QPs beyond the limit too */
		n = rates_sort(t->rates, total, t->sort, limit);
		if (t->ft->json)
			print_json(t, n, total, nports, cur_real, cur_mono - prev_mono);
		else
			print_text(t, n, total, nports, cur_real, cur_mono - prev_mono);
		if (ferror(stdout))
			return -1;
		prev = cur;
		cur = !cur;
		prev_real = cur_real;
		prev_mono = cur_mono;
	}
	return 0;
}

int do_top(struct ft *ft, int argc, char **argv)
{
	struct top t = { .ft = ft, .interval_ms = 1000,
			 .devs = { { .kind = &ft_dev_recs }, { .kind = &ft_dev_recs } } };
	sigset_t mask;
	int ret;

	ret = parse_args(argc, argv, &t);
	if (ret == ARGS_HELP)
		return top_help();
	if (ret)
		return -1;
	if (!ft_nl(ft))
		return -1;
	if (t.dev && ft_check_dev(ft, t.dev))
		return -1;
	/* redraw in place only for a person watching a terminal */
	t.screen = !ft->json && !t.batch && isatty(STDOUT_FILENO);
	/* on a screen every way out must give the terminal back as it was */
	if (t.screen ? term_catch_signals(&mask) : ft_catch_signals(&mask)) {
		ft_err("cannot install signal handlers: %s", strerror(errno));
		return -1;
	}
	if (ft->json)
		out_lines(ft->out);
	if (t.screen)
		term_enter(&t.term, stdout, STDIN_FILENO);
	ret = run(&t, &mask);
	if (t.screen)
		term_leave(&t.term);
	qpset_free(&t.sets[0]);
	qpset_free(&t.sets[1]);
	free(t.devs[0].v);
	free(t.devs[1].v);
	free(t.rates);
	free(t.ports);
	return ret;
}
