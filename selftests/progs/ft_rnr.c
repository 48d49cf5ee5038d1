// SPDX-License-Identifier: GPL-2.0
/* ft_rnr: makes a receiver answer RNR NAKs, so fabtrace's RNR counters have an oracle. */

/*
 * One RC QP pair across the nodes.  The server (responder) posts no
 * receives, or fewer than the client sends, so rxe answers the client's
 * SENDs with RNR NAKs; the client retries --rnr-retry times (7 = forever)
 * and then fails with IBV_WC_RNR_RETRY_EXC_ERR.  With --post-recv-after the
 * server posts the missing receives late and the SENDs then succeed.
 *
 * Which side sets what, as in the InfiniBand spec: the responder advertises
 * its min_rnr_timer (server: --min-rnr-timer), the requester counts retries
 * (client: --rnr-retry).
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

#define DEFAULT_PORT 18517

static const char *const param_names[FT_NPARAMS] = { "--sends", "--size" };

static struct {
	struct ft_pair_opts o;
	int rnr_retry, min_rnr_timer;
	long sends, size, recvs, window, post_after_ms;
} c = {
	.o = FT_PAIR_OPTS(DEFAULT_PORT),
	.rnr_retry = -1, .min_rnr_timer = -1, .sends = 10, .size = 64, .recvs = -1,
	.window = 0, .post_after_ms = -1,
};

static void usage(void)
{
	printf("Usage: %s --server [server options] [common options]\n"
"       %s --peer IP [client options] [common options]\n"
"Common:\n"
"  -d, --device NAME        RDMA device (default rxe0)\n"
"  -i, --ib-port N          (default 1)\n"
"  -g, --gid-index N        (default 1: rxe's IPv4-mapped GID)\n"
"  -p, --port N             TCP port of the exchange (default %d)\n"
"      --sends K            SENDs the client posts (default 10; same on both)\n"
"      --size BYTES         bytes per SEND (default 64; same on both)\n"
"      --tclass T           traffic class (IP TOS)\n"
"      --timeout-s S        overall deadline (default 60; 0 = none)\n"
"Server (the responder, which answers RNR NAKs):\n"
"      --bind IP            listen address (default all)\n"
"      --recvs N            receives posted up front (default 0)\n"
"      --post-recv-after MS then post receives for every SEND (default: never)\n"
"      --min-rnr-timer N    RNR delay code it advertises, 1..31 (default 1 =\n"
"                           0.01 ms; 0 = 655 ms)\n"
"Client (the requester):\n"
"      --rnr-retry N        RNR retries, 0..7, 7 = forever (default 0)\n"
"      --window W           SENDs in flight at once (default: all K)\n"
"Prints one JSON object on stdout.  Exit: 0 the run completed (error\n"
"completions are results, see \"statuses\"), 1 failure, 2 usage, 3 deadline.\n",
	       ft_prog, ft_prog, DEFAULT_PORT);
}

enum { O_SENDS = FT_O_PROG, O_SIZE, O_RECVS, O_POST, O_MINRNR, O_RNRRETRY, O_WINDOW };

static void option(int o, const char *arg)
{
	switch (o) {
	case O_SENDS: c.sends = ft_parse_int("--sends", arg, 1, 4096); break;
	case O_SIZE: c.size = ft_parse_int("--size", arg, 0, 1 << 24); break;
	case O_RECVS: c.recvs = ft_parse_int("--recvs", arg, 0, 4096); break;
	case O_POST: c.post_after_ms = ft_parse_int("--post-recv-after", arg, 0, 3600000); break;
	case O_MINRNR: c.min_rnr_timer = ft_parse_int("--min-rnr-timer", arg, 0, 31); break;
	case O_RNRRETRY: c.rnr_retry = ft_parse_int("--rnr-retry", arg, 0, 7); break;
	case O_WINDOW: c.window = ft_parse_int("--window", arg, 1, 4096); break;
	}
}

static void parse(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "sends", required_argument, NULL, O_SENDS },
		{ "size", required_argument, NULL, O_SIZE },
		{ "recvs", required_argument, NULL, O_RECVS },
		{ "post-recv-after", required_argument, NULL, O_POST },
		{ "min-rnr-timer", required_argument, NULL, O_MINRNR },
		{ "rnr-retry", required_argument, NULL, O_RNRRETRY },
		{ "window", required_argument, NULL, O_WINDOW },
		{ }
	};

	ft_pair_parse(&c.o, argc, argv, opts, option, usage);
	if (c.o.server) {
		if (c.rnr_retry >= 0 || c.window)
			ft_usage_error("--rnr-retry and --window are client options");
		if (c.recvs > c.sends)
			ft_usage_error("--recvs %ld > --sends %ld", c.recvs, c.sends);
	} else {
		if (c.o.bind || c.recvs >= 0 || c.post_after_ms >= 0 || c.min_rnr_timer >= 0)
			ft_usage_error("--bind, --recvs, --post-recv-after and --min-rnr-timer "
				       "are server options");
	}
	if (c.rnr_retry < 0)
		c.rnr_retry = 0;
	if (c.min_rnr_timer < 0)
		c.min_rnr_timer = 1;
	if (c.recvs < 0)
		c.recvs = 0;
	if (!c.window || c.window > c.sends)
		c.window = c.sends;
}

static struct ft_pair p;
static unsigned long status_count[IBV_WC_TM_RNDV_INCOMPLETE + 2];
static long posted, completed, ok_count, recvs_posted;
static double t0, first_err_s = -1, last_ok_s = -1, posted_late_s = -1;
static enum ibv_wc_status first_err;

static void count(const struct ibv_wc *wc)
{
	unsigned int st = wc->status;

	if (st >= sizeof(status_count) / sizeof(status_count[0]))
		st = sizeof(status_count) / sizeof(status_count[0]) - 1;
	status_count[st]++;
	completed++;
	if (wc->status == IBV_WC_SUCCESS) {
		ok_count++;
		last_ok_s = ft_now() - t0;
	} else if (first_err_s < 0) {
		first_err = wc->status;
		first_err_s = ft_now() - t0;
		ft_info("first error completion after %.3f s: %s", first_err_s,
			ibv_wc_status_str(wc->status));
	}
}

static int drain(void)
{
	struct ibv_wc wc[16];
	int n, k;

	while ((n = ibv_poll_cq(p.cq, 16, wc)) > 0)
		for (k = 0; k < n; k++)
			count(&wc[k]);
	if (n < 0) {
		ft_err("ibv_poll_cq failed");
		return -1;
	}
	return 0;
}

static int post_sends(long n)
{
	struct ibv_sge sge = { (uintptr_t)p.buf, c.size, p.mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = c.size ? 1 : 0, .opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	int ret;

	while (n--) {
		wr.wr_id = posted;
		ret = ibv_post_send(p.qp, &wr, &bad);
		if (ret) {
			ft_err("ibv_post_send: %s", strerror(ret));
			return -1;
		}
		posted++;
	}
	return 0;
}

static int post_recvs(long n)
{
	struct ibv_sge sge = { (uintptr_t)p.buf, p.buflen, p.mr->lkey };
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;
	int ret;

	while (n--) {
		ret = ibv_post_recv(p.qp, &wr, &bad);
		if (ret) {
			ft_err("ibv_post_recv: %s", strerror(ret));
			return -1;
		}
		recvs_posted++;
	}
	return 0;
}

/* Post up to the window; once a SEND failed the QP is in error and
 * anything more would only be flushed, so stop there. */
static int client_run(void)
{
	long room;
	int ret;

	for (;;) {
		room = c.window - (posted - completed);
		if (room > c.sends - posted)
			room = c.sends - posted;
		if (first_err_s < 0 && room > 0 && post_sends(room))
			return FT_EXIT_FAIL;
		if (drain())
			return FT_EXIT_FAIL;
		if (completed == posted && (posted == c.sends || first_err_s >= 0))
			return 0;
		if ((ret = ft_should_stop()))
			return ret;
		if (ft_pair_wait(&p, 100, false) < 0)
			return FT_EXIT_FAIL;
	}
}

static int server_run(void)
{
	double post_at = c.post_after_ms >= 0 ? ft_now() + c.post_after_ms / 1e3 : 0;
	int ret, w, ms;
	char tag;

	for (;;) {
		if (post_at && ft_now() >= post_at) {
			if (post_recvs(c.sends - recvs_posted))
				return FT_EXIT_FAIL;
			posted_late_s = ft_now() - t0;
			ft_info("posted receives for all %ld SENDs after %.3f s", c.sends,
				posted_late_s);
			post_at = 0;
		}
		if (drain())
			return FT_EXIT_FAIL;
		if ((ret = ft_should_stop()))
			return ret;
		ms = 100;
		if (post_at) {
			double left = (post_at - ft_now()) * 1e3;

			ms = left < 0 ? 0 : left < 100 ? (int)left + 1 : 100;
		}
		if ((w = ft_pair_wait(&p, ms, true)) < 0)
			return FT_EXIT_FAIL;
		if (w & FT_WAIT_TCP) {
			/* The client is done; every receive it caused is in
			 * our CQ, since it saw the ACKs. */
			if (ft_recv_all(p.tcp, &tag, 1) || tag != 'D') {
				ft_err("client went away before finishing");
				return FT_EXIT_FAIL;
			}
			if (drain() || ft_send_all(p.tcp, "D", 1))
				return FT_EXIT_FAIL;
			return 0;
		}
	}
}

/* The JSON's fields of this program (ft_pair_main prints the rest). */
static void json_fields(struct ft_json *j)
{
	unsigned int i;

	fj_i64(j, "sends", c.sends);
	fj_i64(j, "size", c.size);
	if (c.o.server) {
		fj_i64(j, "min_rnr_timer", c.min_rnr_timer);
		fj_i64(j, "recvs_posted", recvs_posted);
		fj_i64(j, "recv_completed_ok", ok_count);
		fj_dbl(j, "posted_late_s", posted_late_s);
	} else {
		fj_i64(j, "rnr_retry", c.rnr_retry);
		fj_i64(j, "window", c.window);
		fj_i64(j, "posted", posted);
		fj_i64(j, "completed_ok", ok_count);
		fj_u64(j, "rnr_retry_exceeded", status_count[IBV_WC_RNR_RETRY_EXC_ERR]);
		fj_u64(j, "flushed", status_count[IBV_WC_WR_FLUSH_ERR]);
	}
	fj_i64(j, "completions", completed);
	fj_obj(j, "statuses");
	for (i = 0; i < sizeof(status_count) / sizeof(status_count[0]); i++)
		if (status_count[i])
			fj_u64(j, ft_wc_status_name(i), status_count[i]);
	fj_close_obj(j);
	if (first_err_s >= 0)
		fj_str(j, "first_error", ft_wc_status_name(first_err));
	else
		fj_null(j, "first_error");
	fj_dbl(j, "first_error_s", first_err_s);
	fj_dbl(j, "last_ok_s", last_ok_s);
}

/* The server's first receives: posted before the client may send. */
static int ready(void)
{
	return c.o.server ? post_recvs(c.recvs) : 0;
}

int main(int argc, char **argv)
{
	struct ft_pair_cfg cfg;

	ft_prog = "ft_rnr";
	parse(argc, argv);
	ft_signals_init();
	ft_deadline_init(c.o.timeout_s);
	t0 = ft_now();

	cfg = (struct ft_pair_cfg){
		.o = c.o, .prog = FT_PROG_RNR,
		.params = { c.sends, c.size }, .param_names = param_names,
		.max_send_wr = c.sends, .max_recv_wr = c.sends, .buflen = c.size,
		.min_rnr_timer = c.min_rnr_timer,
		.qp = {
			.timeout = 14, .retry_cnt = 7, .rnr_retry = c.rnr_retry,
			.max_rd_atomic = 1, .max_dest_rd_atomic = 1,
		},
	};
	return ft_pair_main(&p, &cfg, &t0, ready, server_run, client_run, json_fields);
}
