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
	       "   \"tx_bps\", \"rx_bps\", \"ce_ps\", \"cnp_ps\", \"nak_ps\", \"retrans_ps\"}]}\n"
	       "where *_bps are payload bytes (not bits) per second.\n"
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
	struct qp_rate *rates;
	size_t cap;
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

static int sample(struct top *t, struct qpset *set)
{
	qpset_clear(set);
	t->cur = set;
	return nl_dump(&t->ft->nl, sample_build, sample_cb, sample_restart, t,
		       "top");
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

#define TOP_ROW_FMT "%-8s %8s %7s %-15s %-21s %8s %8s %9s %9s %7s %7s %7s %7s\n"

static const char *rate_txt(const struct top *t, char *buf, size_t len, double v,
			    bool bytes)
{
	if (t->ft->numeric)
		snprintf(buf, len, "%.1f", v);
	else if (bytes)
		fmt_byte_rate(buf, len, v);
	else
		fmt_rate(buf, len, v);
	return buf;
}

static void print_text(struct top *t, size_t n, size_t total, uint64_t real,
		       uint64_t elapsed_ns)
{
	char ts[FT_FMT_LEN], v[8][FT_FMT_LEN];
	struct qp_cells c;
	size_t i;

	if (t->screen)
		fputs(TERM_HOME, stdout);
	printf("fabtrace top  %s  interval %u ms (%.0f ms)  sort %s  qps %zu\n",
	       fmt_time(ts, sizeof(ts), real, 0), t->interval_ms,
	       (double)elapsed_ns / 1e6, kw_name(ft_kw_top_sort, t->sort), total);
	printf(TOP_ROW_FMT, "DEV", "QPN", "PID", "COMM", "PEER", "TX-PPS", "RX-PPS",
	       "TX-B/S", "RX-B/S", "CE/S", "CNP/S", "NAK/S", "RETX/S");
	for (i = 0; i < n; i++) {
		const struct qp_rate *q = &t->rates[i];
		const struct ft_qp_rec *r = q->r;

		fmt_qp_cells(&c, r);
		printf(TOP_ROW_FMT, c.dev, c.qpn, c.pid, c.comm, c.peer,
		       rate_txt(t, v[0], FT_FMT_LEN, q->tx_pps, false),
		       rate_txt(t, v[1], FT_FMT_LEN, q->rx_pps, false),
		       rate_txt(t, v[2], FT_FMT_LEN, q->tx_bps, true),
		       rate_txt(t, v[3], FT_FMT_LEN, q->rx_bps, true),
		       rate_txt(t, v[4], FT_FMT_LEN, q->ce_ps, false),
		       rate_txt(t, v[5], FT_FMT_LEN, q->cnp_ps, false),
		       rate_txt(t, v[6], FT_FMT_LEN, q->nak_ps, false),
		       rate_txt(t, v[7], FT_FMT_LEN, q->retrans_ps, false));
	}
	if (!t->screen)
		putchar('\n');
	fflush(stdout);
}

static void print_json(struct top *t, size_t n, uint64_t real, uint64_t elapsed_ns)
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
		out_double(o, PRINT_JSON, "tx_pps", NULL, q->tx_pps);
		out_double(o, PRINT_JSON, "rx_pps", NULL, q->rx_pps);
		out_double(o, PRINT_JSON, "tx_bps", NULL, q->tx_bps);
		out_double(o, PRINT_JSON, "rx_bps", NULL, q->rx_bps);
		out_double(o, PRINT_JSON, "ce_ps", NULL, q->ce_ps);
		out_double(o, PRINT_JSON, "cnp_ps", NULL, q->cnp_ps);
		out_double(o, PRINT_JSON, "nak_ps", NULL, q->nak_ps);
		out_double(o, PRINT_JSON, "retrans_ps", NULL, q->retrans_ps);
		out_obj_end(o);
	}
	out_arr_end(o);
	out_obj_end(o);
}

static int run(struct top *t, const sigset_t *mask)
{
	struct qpset *prev = &t->sets[0], *cur = &t->sets[1], *tmp;
	uint64_t prev_real, prev_mono, cur_real, cur_mono, it;
	size_t n, total, limit;

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
		if (t->cap < cur->n) {
			t->cap = cur->n;
			t->rates = xrealloc(t->rates, t->cap * sizeof(*t->rates));
		}
		total = rates_compute(prev, cur, prev_real, cur_mono - prev_mono,
				      t->rates);
		limit = t->limit;
		if (t->screen && (!limit || limit > screen_rows() - 3))
			limit = screen_rows() - 3;
		n = rates_sort(t->rates, total, t->sort, limit);
		if (t->ft->json)
			print_json(t, n, cur_real, cur_mono - prev_mono);
		else
			print_text(t, n, total, cur_real, cur_mono - prev_mono);
		if (ferror(stdout))
			return -1;
		tmp = prev;
		prev = cur;
		cur = tmp;
		prev_real = cur_real;
		prev_mono = cur_mono;
	}
	return 0;
}

int do_top(struct ft *ft, int argc, char **argv)
{
	struct top t = { .ft = ft, .interval_ms = 1000 };
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
	free(t.rates);
	return ret;
}
