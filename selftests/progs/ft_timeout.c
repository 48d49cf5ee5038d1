// SPDX-License-Identifier: GPL-2.0
/* ft_timeout: RDMA writes until the wire is cut, to see the ACK timeout and retry exhaustion. */

/*
 * One RC QP pair across the nodes.  The client keeps --depth RDMA WRITEs in
 * flight for --seconds, or until a write completes in error.  A test cuts
 * the data wire (netem loss 100%) meanwhile: the client's QP then times out
 * (--timeout: 4.096 us * 2^T per try), retransmits --retry-cnt times and
 * fails with IBV_WC_RETRY_EXC_ERR, leaving the QP in ERR.  The TCP exchange
 * must use the control link (--peer = the peer's control address) so the
 * two ends can still agree to finish once the data wire is gone.
 *
 * --drain posts one write and at once moves the QP to SQD (send queue
 * drain): the rest of that write is then sent by a QP whose send queue is
 * draining, which 6.1's rxe refuses to put on the wire (its QP is "not in
 * ready state") and 6.12's sends.  A second later the QP goes back to RTS
 * (retried while rxe still drains) and a second write is posted: 6.1's
 * rxe does not restart a QP's sender on SQD -> RTS, a post does.  Both
 * writes then complete, the first by retransmission on 6.1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

#define DEFAULT_PORT 18518

static const char *const param_names[FT_NPARAMS] = { "--size" };

static struct {
	struct ft_pair_opts o;
	int timeout, retry_cnt;
	long size, depth;
	double seconds;
	bool drain;
} c = {
	.o = FT_PAIR_OPTS(DEFAULT_PORT),
	.timeout = -1, .retry_cnt = -1, .size = 4096, .depth = 0, .seconds = -1,
};

static void usage(void)
{
	printf("Usage: %s --server [--bind IP] [common options]\n"
"       %s --peer IP [client options] [common options]\n"
"Common:\n"
"  -d, --device NAME      RDMA device (default rxe0)\n"
"  -i, --ib-port N        (default 1)\n"
"  -g, --gid-index N      (default 1: rxe's IPv4-mapped GID)\n"
"  -p, --port N           TCP port of the exchange (default %d)\n"
"      --size BYTES       bytes per write (default 4096; same on both)\n"
"      --tclass T         traffic class (IP TOS)\n"
"      --timeout-s S      overall deadline (default 60; 0 = none)\n"
"Client:\n"
"      --timeout T        local ACK timeout code, 0..31 (default 14 = 67 ms)\n"
"      --retry-cnt N      transport retries, 0..7 (default 7)\n"
"      --seconds S        keep writing this long (default 10, or half of a\n"
"                         shorter --timeout-s)\n"
"      --depth N          writes in flight (default 4)\n"
"      --drain            one write, then the QP to SQD at once; a second\n"
"                         later back to RTS and a second write; ends when\n"
"                         both have completed, well or not\n"
"Prints one JSON object on stdout.  Exit: 0 the run completed (an error\n"
"completion is a result: \"first_error\"), 1 failure, 2 usage, 3 deadline.\n",
	       ft_prog, ft_prog, DEFAULT_PORT);
}

enum { O_SIZE = FT_O_PROG, O_TIMEOUT, O_RETRY, O_SECONDS, O_DEPTH, O_DRAIN };

static void option(int o, const char *arg)
{
	switch (o) {
	case O_SIZE: c.size = ft_parse_int("--size", arg, 0, 1 << 24); break;
	case O_TIMEOUT: c.timeout = ft_parse_int("--timeout", arg, 0, 31); break;
	case O_RETRY: c.retry_cnt = ft_parse_int("--retry-cnt", arg, 0, 7); break;
	case O_SECONDS: c.seconds = ft_parse_double("--seconds", arg, 0, 1e6); break;
	case O_DEPTH: c.depth = ft_parse_int("--depth", arg, 1, 1024); break;
	case O_DRAIN: c.drain = true; break;
	}
}

static void parse(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "size", required_argument, NULL, O_SIZE },
		{ "timeout", required_argument, NULL, O_TIMEOUT },
		{ "retry-cnt", required_argument, NULL, O_RETRY },
		{ "seconds", required_argument, NULL, O_SECONDS },
		{ "depth", required_argument, NULL, O_DEPTH },
		{ "drain", no_argument, NULL, O_DRAIN },
		{ }
	};

	ft_pair_parse(&c.o, argc, argv, opts, option, usage);
	if (c.o.server && (c.timeout >= 0 || c.retry_cnt >= 0 || c.seconds >= 0 || c.depth ||
			 c.drain))
		ft_usage_error("--timeout, --retry-cnt, --seconds, --depth and --drain are client options");
	if (c.drain && (c.seconds >= 0 || c.depth))
		ft_usage_error("--drain posts one write: no --seconds or --depth");
	if (!c.o.server && c.o.bind)
		ft_usage_error("--bind is a server option");
	if (c.timeout < 0)
		c.timeout = 14;
	if (c.retry_cnt < 0)
		c.retry_cnt = 7;
	if (c.seconds < 0) {
		/* Default: 10 s, but always inside the deadline. */
		c.seconds = 10;
		if (c.o.timeout_s && c.seconds >= c.o.timeout_s)
			c.seconds = c.o.timeout_s / 2;
	}
	if (!c.depth)
		c.depth = 4;
	if (!c.o.server && c.o.timeout_s && c.seconds >= c.o.timeout_s)
		ft_usage_error("--seconds %g must be shorter than --timeout-s %g",
			       c.seconds, c.o.timeout_s);
}

static struct ft_pair p;
static long posted, completed, ok_count, flushed;
static double t0, first_err_s = -1, last_ok_s = -1;
static enum ibv_wc_status first_err;

static int drain(void)
{
	struct ibv_wc wc[16];
	int n, k;

	while ((n = ibv_poll_cq(p.cq, 16, wc)) > 0) {
		for (k = 0; k < n; k++) {
			completed++;
			if (wc[k].status == IBV_WC_SUCCESS) {
				if (!ok_count++)
					ft_info("first write completed: traffic is flowing");
				last_ok_s = ft_now() - t0;
			} else if (wc[k].status == IBV_WC_WR_FLUSH_ERR && first_err_s >= 0) {
				flushed++;
			} else if (first_err_s < 0) {
				first_err = wc[k].status;
				first_err_s = ft_now() - t0;
				ft_info("first error completion after %.3f s (%.3f s after the "
					"last good one): %s", first_err_s,
					first_err_s - (last_ok_s < 0 ? 0 : last_ok_s),
					ibv_wc_status_str(wc[k].status));
			}
		}
	}
	if (n < 0) {
		ft_err("ibv_poll_cq failed");
		return -1;
	}
	return 0;
}

static int post_write(void)
{
	struct ibv_sge sge = { (uintptr_t)p.buf, c.size, p.mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = posted, .sg_list = &sge, .num_sge = c.size ? 1 : 0,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = p.remote.addr, .rkey = p.remote.rkey },
	}, *bad;
	int ret = ibv_post_send(p.qp, &wr, &bad);

	if (ret) {
		ft_err("ibv_post_send: %s", strerror(ret));
		return -1;
	}
	posted++;
	return 0;
}

/* --drain: SQD right after the post; RTS once RESUME_AT has passed. */
static double resume_at;

static int drain_step(void)
{
	bool sqd = !resume_at;
	struct ibv_qp_attr a = { .qp_state = sqd ? IBV_QPS_SQD : IBV_QPS_RTS };
	int ret;

	if (!sqd && ft_now() < resume_at)
		return 0;
	ret = ibv_modify_qp(p.qp, &a, IBV_QP_STATE);
	if (ret == EINVAL && !sqd) {
		/* rxe refuses SQD -> RTS until the send queue has drained */
		resume_at = ft_now() + 0.1;
		return 0;
	}
	if (ret) {
		ft_err("ibv_modify_qp(%s): %s", sqd ? "SQD" : "RTS", strerror(ret));
		return -1;
	}
	ft_info("QP %u moved to %s", p.qpn, sqd ? "SQD right after the post" : "RTS");
	resume_at = sqd ? ft_now() + 1 : -1;
	return sqd ? 0 : post_write();
}

static int client_run(void)
{
	double end = ft_now() + c.seconds;
	int ret;

	if (c.drain) {
		if (post_write() || drain_step())
			return FT_EXIT_FAIL;
		end = 0;
	}

	for (;;) {
		bool writing = first_err_s < 0 && ft_now() < end;

		while (writing && posted - completed < c.depth)
			if (post_write())
				return FT_EXIT_FAIL;
		if (resume_at > 0 && drain_step())
			return FT_EXIT_FAIL;
		if (drain())
			return FT_EXIT_FAIL;
		if (!writing && completed == posted && resume_at <= 0)
			return 0;
		if ((ret = ft_should_stop()))
			return ret;
		if (ft_pair_wait(&p, 100, false) < 0)
			return FT_EXIT_FAIL;
	}
}

static int server_run(void)
{
	char tag;
	int w, ret;

	for (;;) {
		if ((ret = ft_should_stop()))
			return ret;
		if ((w = ft_pair_wait(&p, 100, true)) < 0)
			return FT_EXIT_FAIL;
		if (w & FT_WAIT_TCP) {
			if (ft_recv_all(p.tcp, &tag, 1) || tag != 'D') {
				ft_err("client went away before finishing");
				return FT_EXIT_FAIL;
			}
			return ft_send_all(p.tcp, "D", 1) ? FT_EXIT_FAIL : 0;
		}
	}
}

/* The JSON's fields of this program (ft_pair_main prints the rest). */
static void json_fields(struct ft_json *j)
{
	fj_i64(j, "size", c.size);
	if (!c.o.server) {
		fj_i64(j, "timeout", c.timeout);
		fj_dbl(j, "ack_timeout_s", ft_ack_timeout_s(c.timeout));
		fj_i64(j, "retry_cnt", c.retry_cnt);
		fj_i64(j, "depth", c.depth);
		fj_bool(j, "drain", c.drain);
		fj_i64(j, "posted", posted);
		fj_i64(j, "completed_ok", ok_count);
		fj_u64(j, "bytes", (uint64_t)ok_count * c.size);
		fj_i64(j, "flushed", flushed);
		if (first_err_s >= 0) {
			fj_str(j, "first_error", ft_wc_status_name(first_err));
			fj_i64(j, "first_error_code", first_err);
		} else {
			fj_null(j, "first_error");
			fj_null(j, "first_error_code");
		}
		fj_dbl(j, "first_error_s", first_err_s);
		fj_dbl(j, "last_ok_s", last_ok_s);
	}
}

int main(int argc, char **argv)
{
	struct ft_pair_cfg cfg;

	ft_prog = "ft_timeout";
	parse(argc, argv);
	ft_signals_init();
	ft_deadline_init(c.o.timeout_s);
	t0 = ft_now();

	cfg = (struct ft_pair_cfg){
		.o = c.o, .prog = FT_PROG_TIMEOUT,
		.params = { c.size }, .param_names = param_names,
		.max_send_wr = c.o.server ? 1 : c.depth, .max_recv_wr = 1, .buflen = c.size,
		.min_rnr_timer = 12,
		.qp = {
			.timeout = c.timeout, .retry_cnt = c.retry_cnt, .rnr_retry = 7,
			.max_rd_atomic = 1, .max_dest_rd_atomic = 1,
		},
	};
	return ft_pair_main(&p, &cfg, &t0, NULL, server_run, client_run, json_fields);
}
