// SPDX-License-Identifier: GPL-2.0
/* ft_qps: a swarm of verbs QPs moving a known amount of traffic, as an oracle for fabtrace. */

/*
 * Two processes (--server on one node, client on the other) each create N
 * QPs, pair QP i with the peer's QP i over a plain TCP exchange, and the
 * client runs ITERS operations of SIZE bytes on every QP.  What each side
 * saw complete is printed as one JSON object: the numbers fabtrace's per-QP
 * counters must match.  --loopback pairs the QPs of one process with each
 * other; --no-connect only creates them (scale tests).
 *
 * Everything is shared where the verbs allow it (one PD, one MR, CQs shared
 * by many QPs, one completion channel) so that 1,000 QPs moving traffic and
 * 100,000 idle QPs both fit in a small test VM.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"

#define DEFAULT_PORT	18516
#define UD_GRH		40	/* UD receives start with the GRH */
#define QKEY		0x11111111
#define BATCH		64

enum { OP_WRITE, OP_SEND, OP_READ };
static const char *const op_names[] = { "write", "send", "read", NULL };
static const char *const type_names[] = { "rc", "uc", "ud", NULL };
static const enum ibv_qp_type qp_types[] = { IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD };
static const char *const state_names[] = { "init", "reset", NULL };
static const char *const param_names[FT_NPARAMS] = { "--op", "--qp-type", "--iters", "--size" };

enum role { R_CLIENT, R_SERVER, R_LOOPBACK, R_NOCONNECT };
static const char *const role_names[] = { "client", "server", "loopback", "no-connect" };

/* What a QP does in this process. */
enum kind { K_PASSIVE, K_INITIATOR, K_RECEIVER };

static struct {
	const char *dev, *peer, *bind, *comm;
	int ib_port, gid_index, tcp_port;
	enum role role;
	long nqps, iters, size, depth, rx_depth, ack_timeout;
	int op, type_idx, tclass, mtu, leave_reset;
	long long psn;			/* -1 = random per QP */
	bool hold, srq, summary, iters_given;
	long destroy_after_ms;		/* -1 = not asked */
	long reconnect_ms;		/* -1 = not asked */
	double timeout_s;
} c = {
	.dev = "rxe0", .ib_port = 1, .gid_index = 1, .tcp_port = DEFAULT_PORT,
	.role = R_CLIENT, .nqps = 1, .iters = 100, .size = 4096, .depth = 16,
	.rx_depth = 512, .op = OP_WRITE, .tclass = 0, .mtu = 0, .psn = -1,
	.destroy_after_ms = -1, .reconnect_ms = -1, .timeout_s = 60, .ack_timeout = 14,
};

struct cqinfo {
	struct ibv_cq *cq;
	bool recv;
};

struct qpent {
	struct ibv_qp *qp;		/* NULL once destroyed */
	uint32_t qpn, sq_psn, rq_psn, remote_qpn;
	uint32_t posted, done;		/* initiator: work requests */
	uint32_t rx_posted, rx_done;	/* receiver: receives */
	uint64_t bytes;
	uint8_t kind;
};

static struct {
	struct ft_dev dev;
	bool dev_open;
	enum ibv_qp_type type;
	enum ibv_mtu mtu;
	void *buf;
	size_t buflen;
	struct ibv_mr *mr;
	struct ibv_comp_channel *ch;
	struct cqinfo *scq, *rcq;
	long nscq, nrcq, per_scq, per_rcq;
	struct ibv_srq *srq;
	uint64_t srq_posted, srq_target;
	struct ibv_ah *ah;
	struct qpent *q;
	long nq;			/* created so far */
	uint64_t raddr;
	uint32_t rkey;
	union ibv_gid rgid;
	struct ft_ep remote;
	uint32_t *sorted_qpn;		/* for SRQ receives: qpn -> index */
	long *sorted_idx;
	uint64_t init_target, init_done, rx_target, rx_done;
	int tcp;
	double t_start, create_s, init_s, connect_s, traffic_s, destroy_s;
	char error[256];
	const char *state_str;
} s = { .tcp = -1, .destroy_s = -1 };

static void usage(void)
{
	printf("Usage: %s [options]\n"
"  One of:\n"
"    --server              wait for a client on --port, serve its traffic\n"
"    --peer IP             client: connect to the server at IP (control link)\n"
"    --loopback            one process: QP 2k talks to QP 2k+1 on the same device\n"
"    --no-connect          only create the QPs (left in INIT, or --qp-state reset)\n"
"  -d, --device NAME       RDMA device (default rxe0)\n"
"  -i, --ib-port N         device port (default 1)\n"
"  -g, --gid-index N       GID index (default 1: rxe's IPv4-mapped GID)\n"
"  -p, --port N            TCP port of the exchange (default %d)\n"
"      --bind IP           server: listen on IP only (default all)\n"
"  -n, --nqps N            QPs per side (default 1)\n"
"      --iters N           operations per QP (default 100; 0 = none)\n"
"      --size BYTES        bytes per operation (default 4096)\n"
"      --op write|send|read  (default write; client writes to / reads from the\n"
"                          server's memory, or sends to its pre-posted receives)\n"
"      --qp-type rc|uc|ud  (default rc; uc: write|send, ud: send <= MTU)\n"
"      --depth N           outstanding work requests per QP (default 16)\n"
"      --rx-depth N        receives kept posted per QP (default 512; send op)\n"
"      --srq               receivers share one SRQ (halves per-QP queues)\n"
"      --tclass T          traffic class = IP TOS byte (e.g. 2 = ECT(0))\n"
"      --mtu N             256..4096 (default: the port's active MTU)\n"
"      --psn P             start PSN of every QP (default: random per QP)\n"
"      --qp-state init|reset  with --no-connect (default init)\n"
"      --reconnect MS      RC writes, both sides: MS milliseconds after the run,\n"
"                          every QP goes back through RESET, INIT, RTR and RTS\n"
"                          with its PSNs moved by 2^22 (its peer's too), and the\n"
"                          writes run again (--iters more; the JSON counts both)\n"
"      --hold              after the run, print the JSON, keep everything until\n"
"                          SIGTERM/SIGINT, EOF on a pipe/tty stdin, or the deadline\n"
"      --destroy-after MS  like --hold, ending MS milliseconds after the JSON\n"
"      --summary           leave the per-QP list out of the JSON\n"
"      --timeout-s S       overall deadline (default 60; 0 = none)\n"
"      --ack-timeout N     RC local ACK timeout, 4.096 us x 2^N (default 14:\n"
"                          67 ms; 20: 4.3 s, so a CPU-starved node does not\n"
"                          retransmit and the bytes oracle stays exact)\n"
"      --comm NAME         set this process's name (prctl PR_SET_NAME, at most\n"
"                          15 bytes, any but NUL) before creating the QPs: the\n"
"                          comm fabtrace reports for them\n"
"  -h, --help\n"
"Prints one JSON object on stdout.  Exit: 0 ok, 1 failure, 2 usage, 3 deadline.\n",
	       ft_prog, DEFAULT_PORT);
}

static void parse(int argc, char **argv)
{
	enum { O_SERVER = 256, O_PEER, O_LOOPBACK, O_NOCONN, O_BIND, O_ITERS, O_SIZE,
	       O_OP, O_TYPE, O_DEPTH, O_RXDEPTH, O_SRQ, O_TCLASS, O_MTU, O_PSN,
	       O_STATE, O_HOLD, O_DESTROY, O_SUMMARY, O_TIMEOUT, O_COMM, O_ACKTO,
	       O_RECONNECT };
	static const struct option opts[] = {
		{ "server", no_argument, NULL, O_SERVER },
		{ "peer", required_argument, NULL, O_PEER },
		{ "loopback", no_argument, NULL, O_LOOPBACK },
		{ "no-connect", no_argument, NULL, O_NOCONN },
		{ "device", required_argument, NULL, 'd' },
		{ "ib-port", required_argument, NULL, 'i' },
		{ "gid-index", required_argument, NULL, 'g' },
		{ "port", required_argument, NULL, 'p' },
		{ "bind", required_argument, NULL, O_BIND },
		{ "nqps", required_argument, NULL, 'n' },
		{ "iters", required_argument, NULL, O_ITERS },
		{ "size", required_argument, NULL, O_SIZE },
		{ "op", required_argument, NULL, O_OP },
		{ "qp-type", required_argument, NULL, O_TYPE },
		{ "depth", required_argument, NULL, O_DEPTH },
		{ "rx-depth", required_argument, NULL, O_RXDEPTH },
		{ "srq", no_argument, NULL, O_SRQ },
		{ "tclass", required_argument, NULL, O_TCLASS },
		{ "mtu", required_argument, NULL, O_MTU },
		{ "psn", required_argument, NULL, O_PSN },
		{ "qp-state", required_argument, NULL, O_STATE },
		{ "reconnect", required_argument, NULL, O_RECONNECT },
		{ "hold", no_argument, NULL, O_HOLD },
		{ "destroy-after", required_argument, NULL, O_DESTROY },
		{ "summary", no_argument, NULL, O_SUMMARY },
		{ "timeout-s", required_argument, NULL, O_TIMEOUT },
		{ "comm", required_argument, NULL, O_COMM },
		{ "ack-timeout", required_argument, NULL, O_ACKTO },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	int modes = 0, o;
	bool state_given = false;

	while ((o = getopt_long(argc, argv, "d:i:g:p:n:h", opts, NULL)) != -1) {
		switch (o) {
		case O_SERVER: c.role = R_SERVER; modes++; break;
		case O_PEER: ft_check_ipv4("--peer", optarg); c.peer = optarg; break;
		case O_LOOPBACK: c.role = R_LOOPBACK; modes++; break;
		case O_NOCONN: c.role = R_NOCONNECT; modes++; break;
		case 'd': c.dev = optarg; break;
		case 'i': c.ib_port = ft_parse_int("--ib-port", optarg, 1, 255); break;
		case 'g': c.gid_index = ft_parse_int("--gid-index", optarg, 0, 255); break;
		case 'p': c.tcp_port = ft_parse_int("--port", optarg, 1, 65535); break;
		case O_BIND: ft_check_ipv4("--bind", optarg); c.bind = optarg; break;
		case 'n': c.nqps = ft_parse_int("--nqps", optarg, 1, 1 << 20); break;
		case O_ITERS:
			c.iters = ft_parse_int("--iters", optarg, 0, 1 << 30);
			c.iters_given = true;
			break;
		case O_SIZE: c.size = ft_parse_int("--size", optarg, 0, 1 << 30); break;
		case O_OP: c.op = ft_parse_choice("--op", optarg, op_names); break;
		case O_TYPE: c.type_idx = ft_parse_choice("--qp-type", optarg, type_names); break;
		case O_DEPTH: c.depth = ft_parse_int("--depth", optarg, 1, 1024); break;
		case O_RXDEPTH: c.rx_depth = ft_parse_int("--rx-depth", optarg, 1, 16384); break;
		case O_SRQ: c.srq = true; break;
		case O_TCLASS: c.tclass = ft_parse_int("--tclass", optarg, 0, 255); break;
		case O_MTU:
			c.mtu = ft_parse_int("--mtu", optarg, 256, 4096);
			if (c.mtu & (c.mtu - 1))
				ft_usage_error("--mtu: %d is not 256, 512, 1024, 2048 or 4096", c.mtu);
			break;
		case O_PSN: c.psn = ft_parse_int("--psn", optarg, 0, 0xffffff); break;
		case O_STATE:
			c.leave_reset = ft_parse_choice("--qp-state", optarg, state_names);
			state_given = true;
			break;
		case O_RECONNECT:
			c.reconnect_ms = ft_parse_int("--reconnect", optarg, 0, 600000);
			break;
		case O_HOLD: c.hold = true; break;
		case O_DESTROY:
			c.destroy_after_ms = ft_parse_int("--destroy-after", optarg, 0, 86400000);
			break;
		case O_SUMMARY: c.summary = true; break;
		case O_TIMEOUT: c.timeout_s = ft_parse_double("--timeout-s", optarg, 0, 1e6); break;
		case O_COMM: c.comm = optarg; break;
		case O_ACKTO: c.ack_timeout = ft_parse_int("--ack-timeout", optarg, 1, 31); break;
		case 'h': usage(); exit(0);
		default: fprintf(stderr, "Try '%s --help'.\n", ft_prog); exit(FT_EXIT_USAGE);
		}
	}
	if (optind < argc)
		ft_usage_error("unexpected argument '%s'", argv[optind]);
	if (modes > 1)
		ft_usage_error("--server, --loopback and --no-connect exclude each other");
	if (c.role == R_CLIENT && !c.peer)
		ft_usage_error("a client needs --peer IP (or give --server, --loopback, --no-connect)");
	if (c.role != R_CLIENT && c.peer)
		ft_usage_error("--peer is for the client only");
	if (c.bind && c.role != R_SERVER)
		ft_usage_error("--bind is for the server only");
	if (state_given && c.role != R_NOCONNECT)
		ft_usage_error("--qp-state needs --no-connect");
	if (c.role == R_NOCONNECT) {
		if (c.iters_given && c.iters)
			ft_usage_error("--no-connect QPs cannot move traffic: use --iters 0");
		c.iters = 0;
	}
	if (c.role == R_LOOPBACK && c.nqps % 2)
		ft_usage_error("--loopback pairs QPs: -n must be even");
	if (qp_types[c.type_idx] == IBV_QPT_UD && c.op != OP_SEND)
		ft_usage_error("UD QPs only send: use --op send");
	if (qp_types[c.type_idx] == IBV_QPT_UC && c.op == OP_READ)
		ft_usage_error("UC QPs cannot read: use --op write or send");
	if (c.hold && c.destroy_after_ms >= 0)
		ft_usage_error("--hold and --destroy-after exclude each other");
	if (c.reconnect_ms >= 0 && c.role != R_SERVER && c.role != R_CLIENT)
		ft_usage_error("--reconnect needs a peer: --server or --peer");
	if (c.reconnect_ms >= 0 &&
	    (qp_types[c.type_idx] != IBV_QPT_RC || c.op != OP_WRITE || c.srq))
		ft_usage_error("--reconnect is for RC writes (no --srq)");
}

static enum ibv_mtu mtu_enum(int bytes)
{
	switch (bytes) {
	case 256: return IBV_MTU_256;
	case 512: return IBV_MTU_512;
	case 1024: return IBV_MTU_1024;
	case 2048: return IBV_MTU_2048;
	default: return IBV_MTU_4096;
	}
}

static int mtu_bytes(enum ibv_mtu m)
{
	return 128 << m;
}

static void set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void set_error(const char *fmt, ...)
{
	va_list ap;

	if (s.error[0])
		return;
	va_start(ap, fmt);
	vsnprintf(s.error, sizeof(s.error), fmt, ap);
	va_end(ap);
	ft_err("%s", s.error);
}

/*
 * rxe maps every queue (each QP's SQ and RQ, each CQ, the SRQ) into the
 * process as its own VMA; 100,000 QPs exceed the default vm.max_map_count
 * (65530) and ibv_create_qp fails with a bare ENOMEM.  Raise it (we run as
 * root in a throwaway test node) or say exactly what is missing.
 */
static int ensure_map_count(long need)
{
	const char *path = "/proc/sys/vm/max_map_count";
	long have = 0;
	FILE *f = fopen(path, "r");

	if (!f || fscanf(f, "%ld", &have) != 1)
		have = 0;
	if (f)
		fclose(f);
	if (!have || have >= need)
		return 0;
	f = fopen(path, "w");
	if (f && fprintf(f, "%ld\n", need) > 0 && !fclose(f)) {
		ft_info("raised vm.max_map_count from %ld to %ld (rxe maps each queue)",
			have, need);
		return 0;
	}
	if (f)
		fclose(f);
	ft_err("%ld QPs need vm.max_map_count >= %ld (have %ld): "
	       "sysctl -w vm.max_map_count=%ld", c.nqps, need, have, need);
	return -1;
}

static bool is_initiator(long i)
{
	if (!c.iters)
		return false;
	return c.role == R_CLIENT || (c.role == R_LOOPBACK && !(i & 1));
}

static bool is_receiver(long i)
{
	if (!c.iters || c.op != OP_SEND)
		return false;
	return c.role == R_SERVER || (c.role == R_LOOPBACK && (i & 1));
}

static long rx_depth_per_qp(void)
{
	long d = c.rx_depth < c.iters ? c.rx_depth : c.iters;

	if (d > (long)s.dev.attr.max_qp_wr)
		d = s.dev.attr.max_qp_wr;
	return d < 1 ? 1 : d;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int build_index(void)
{
	uint64_t *tmp = malloc(s.nq * sizeof(*tmp) + 1);
	long i;

	s.sorted_qpn = malloc(s.nq * sizeof(*s.sorted_qpn) + 1);
	s.sorted_idx = malloc(s.nq * sizeof(*s.sorted_idx) + 1);
	if (!tmp || !s.sorted_qpn || !s.sorted_idx) {
		free(tmp);
		ft_err("out of memory");
		return -1;
	}
	for (i = 0; i < s.nq; i++)
		tmp[i] = (uint64_t)s.q[i].qpn << 32 | (uint64_t)i;
	qsort(tmp, s.nq, sizeof(*tmp), cmp_u64);
	for (i = 0; i < s.nq; i++) {
		s.sorted_qpn[i] = tmp[i] >> 32;
		s.sorted_idx[i] = (long)(tmp[i] & 0xffffffff);
	}
	free(tmp);
	return 0;
}

/* SRQ receives say which QP they belong to only by qp_num. */
static long index_of_qpn(uint32_t qpn)
{
	long lo = 0, hi = s.nq - 1, mid;

	while (lo <= hi) {
		mid = lo + (hi - lo) / 2;
		if (s.sorted_qpn[mid] == qpn)
			return s.sorted_idx[mid];
		if (s.sorted_qpn[mid] < qpn)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

/*
 * CQs are shared by as many QPs as their worst case fits in: a QP can have
 * at most PER_QP completions pending (its depth), so a CQ of max_cqe serves
 * max_cqe / PER_QP QPs and can never overflow.  PER_QP 0: nothing will
 * complete, one tiny CQ for everyone.
 */
static int create_cqs(struct cqinfo **arr, long *n, long *per, long per_qp, long cqe_fixed,
		      bool recv)
{
	long max = s.dev.attr.max_cqe, qps_per, cqe, k;

	qps_per = per_qp && !cqe_fixed ? max / per_qp : c.nqps;
	if (qps_per < 1)
		qps_per = 1;
	if (qps_per > c.nqps)
		qps_per = c.nqps;
	*n = (c.nqps + qps_per - 1) / qps_per;
	*per = qps_per;
	cqe = cqe_fixed ? cqe_fixed : per_qp ? qps_per * per_qp : 1;
	*arr = calloc(*n, sizeof(**arr));
	if (!*arr) {
		ft_err("out of memory");
		return -1;
	}
	for (k = 0; k < *n; k++) {
		(*arr)[k].recv = recv;
		(*arr)[k].cq = ibv_create_cq(s.dev.ctx, cqe, &(*arr)[k], s.ch, 0);
		if (!(*arr)[k].cq) {
			ft_err("ibv_create_cq(%ld entries): %s", cqe, strerror(errno));
			return -1;
		}
	}
	return 0;
}

static long srq_depth(void)
{
	uint64_t d = s.srq_target;

	if (d > (uint64_t)s.dev.attr.max_srq_wr)
		d = s.dev.attr.max_srq_wr;
	if (d > (uint64_t)s.dev.attr.max_cqe)
		d = s.dev.attr.max_cqe;
	return d ? d : 1;
}

static int post_sends(long i, int n)
{
	struct ibv_sge sge[BATCH];
	struct ibv_send_wr wr[BATCH], *bad;
	static const enum ibv_wr_opcode opc[] = {
		[OP_WRITE] = IBV_WR_RDMA_WRITE, [OP_SEND] = IBV_WR_SEND,
		[OP_READ] = IBV_WR_RDMA_READ,
	};
	struct qpent *q = &s.q[i];
	int k, ret;

	memset(wr, 0, sizeof(wr[0]) * n);
	for (k = 0; k < n; k++) {
		sge[k] = (struct ibv_sge){ (uintptr_t)s.buf, c.size, s.mr->lkey };
		wr[k].wr_id = i;
		wr[k].sg_list = &sge[k];
		wr[k].num_sge = c.size ? 1 : 0;
		wr[k].opcode = opc[c.op];
		wr[k].send_flags = IBV_SEND_SIGNALED;
		wr[k].next = k + 1 < n ? &wr[k + 1] : NULL;
		if (s.type == IBV_QPT_UD) {
			wr[k].wr.ud.ah = s.ah;
			wr[k].wr.ud.remote_qpn = q->remote_qpn;
			wr[k].wr.ud.remote_qkey = QKEY;
		} else if (c.op != OP_SEND) {
			wr[k].wr.rdma.remote_addr = s.raddr;
			wr[k].wr.rdma.rkey = s.rkey;
		}
	}
	ret = ibv_post_send(q->qp, wr, &bad);
	if (ret) {
		set_error("QP %#x: ibv_post_send: %s", q->qp->qp_num, strerror(ret));
		return -1;
	}
	q->posted += n;
	return 0;
}

/* Keep DEPTH work requests in flight on initiator I until ITERS are posted. */
static int topup_sends(long i)
{
	struct qpent *q = &s.q[i];
	long n;

	while (q->posted < c.iters && q->posted - q->done < c.depth) {
		n = c.depth - (q->posted - q->done);
		if (n > c.iters - q->posted)
			n = c.iters - q->posted;
		if (n > BATCH)
			n = BATCH;
		if (post_sends(i, n))
			return -1;
	}
	return 0;
}

static int post_recvs(long i, int n)
{
	struct ibv_sge sge = { (uintptr_t)s.buf, s.buflen, s.mr->lkey };
	struct ibv_recv_wr wr[BATCH], *bad;
	int k, ret;

	for (k = 0; k < n; k++)
		wr[k] = (struct ibv_recv_wr){
			.wr_id = i, .sg_list = &sge, .num_sge = 1,
			.next = k + 1 < n ? &wr[k + 1] : NULL,
		};
	if (s.srq)
		ret = ibv_post_srq_recv(s.srq, wr, &bad);
	else
		ret = ibv_post_recv(s.q[i].qp, wr, &bad);
	if (ret) {
		set_error("ibv_post_%srecv: %s", s.srq ? "srq_" : "", strerror(ret));
		return -1;
	}
	return 0;
}

/* Keep receives posted (on QP I, or on the SRQ when I < 0) until every
 * expected message has one. */
static int topup_recvs(long i)
{
	long n, depth;

	if (s.srq) {
		depth = srq_depth();
		while (s.srq_posted < s.srq_target && (long)(s.srq_posted - s.rx_done) < depth) {
			n = depth - (s.srq_posted - s.rx_done);
			if ((uint64_t)n > s.srq_target - s.srq_posted)
				n = s.srq_target - s.srq_posted;
			if (n > BATCH)
				n = BATCH;
			if (post_recvs(-1, n))
				return -1;
			s.srq_posted += n;
		}
		return 0;
	}
	struct qpent *q = &s.q[i];

	depth = rx_depth_per_qp();
	while (q->rx_posted < c.iters && q->rx_posted - q->rx_done < depth) {
		n = depth - (q->rx_posted - q->rx_done);
		if (n > c.iters - q->rx_posted)
			n = c.iters - q->rx_posted;
		if (n > BATCH)
			n = BATCH;
		if (post_recvs(i, n))
			return -1;
		q->rx_posted += n;
	}
	return 0;
}

/*
 * At most DRAIN_ROUNDS batches per call: with traffic looping back, every
 * completion re-posts and an unbounded drain never returns, which leaves
 * signals and the deadline unnoticed.  What is left sets `backlog` and the
 * loop drains again without sleeping.
 */
#define DRAIN_ROUNDS 16
static bool backlog;

static int drain(struct cqinfo *ci)
{
	struct ibv_wc wc[BATCH];
	long touched[BATCH], i;
	int n, k, rounds = 0;

	while ((n = ibv_poll_cq(ci->cq, BATCH, wc)) > 0) {
		for (k = 0; k < n; k++) {
			if (wc[k].status != IBV_WC_SUCCESS) {
				set_error("QP %#x: %s completion failed: %s (status %d, vendor_err %#x)",
					  wc[k].qp_num, ci->recv ? "receive" : op_names[c.op],
					  ibv_wc_status_str(wc[k].status), wc[k].status,
					  wc[k].vendor_err);
				return -1;
			}
			i = ci->recv && s.srq ? index_of_qpn(wc[k].qp_num) : (long)wc[k].wr_id;
			if (i < 0 || i >= s.nq) {
				set_error("completion for unknown QP %#x", wc[k].qp_num);
				return -1;
			}
			touched[k] = i;
			if (ci->recv) {
				s.q[i].rx_done++;
				s.q[i].bytes += wc[k].byte_len -
					(s.type == IBV_QPT_UD ? UD_GRH : 0);
				s.rx_done++;
			} else {
				s.q[i].done++;
				s.q[i].bytes += c.size;
				s.init_done++;
			}
		}
		for (k = 0; k < n; k++) {
			if (ci->recv ? topup_recvs(touched[k]) : topup_sends(touched[k]))
				return -1;
			if (ci->recv && s.srq)
				break;
		}
		if (++rounds == DRAIN_ROUNDS || ft_signal) {
			backlog = true;
			return 0;
		}
	}
	if (n < 0) {
		set_error("ibv_poll_cq failed");
		return -1;
	}
	return 0;
}

static int drain_all(void)
{
	long k;

	for (k = 0; k < s.nscq; k++)
		if (drain(&s.scq[k]))
			return -1;
	for (k = 0; k < s.nrcq; k++)
		if (drain(&s.rcq[k]))
			return -1;
	return 0;
}

static int arm_all(void)
{
	long k;

	for (k = 0; k < s.nscq + s.nrcq; k++) {
		struct cqinfo *ci = k < s.nscq ? &s.scq[k] : &s.rcq[k - s.nscq];

		if (ibv_req_notify_cq(ci->cq, 0)) {
			set_error("ibv_req_notify_cq failed");
			return -1;
		}
	}
	return 0;
}

/*
 * Move the traffic: sleep in poll() on the completion channel (and, on the
 * server, the TCP link for the client's "done"), never busy-poll: the test
 * nodes have two emulated CPUs and rxe's own work runs on them too.
 */
static int traffic(void)
{
	bool unreliable = s.type != IBV_QPT_RC;
	bool peer_done = c.role != R_SERVER;
	double grace_end = 0, t0 = ft_now();
	struct pollfd p[2];
	int np, ret = 0;
	long i;

	if (s.ch) {
		if (arm_all())
			goto fail;
		for (i = 0; i < s.nq; i++)
			if (s.q[i].kind == K_INITIATOR && topup_sends(i))
				goto fail;
		if (drain_all())
			goto fail;
	}
	for (;;) {
		bool sent_all = s.init_done == s.init_target;
		bool got_all = s.rx_done == s.rx_target;

		if (sent_all && !grace_end && c.role == R_LOOPBACK)
			grace_end = ft_now() + 0.5;
		if (sent_all && got_all && peer_done)
			break;
		/* UD and UC may lose messages: what arrived is the result. */
		if (sent_all && peer_done && grace_end && ft_now() >= grace_end) {
			if (!unreliable) {
				set_error("only %llu of %llu receives completed",
					  (unsigned long long)s.rx_done,
					  (unsigned long long)s.rx_target);
				goto fail;
			}
			break;
		}
		if ((ret = ft_should_stop())) {
			/* ft_should_stop() said why on stderr already. */
			snprintf(s.error, sizeof(s.error), "%s",
				 ret == FT_EXIT_TIMEOUT ? "timed out" : "interrupted");
			s.traffic_s = ft_now() - t0;
			return ret;
		}
		np = 0;
		if (s.ch)
			p[np++] = (struct pollfd){ .fd = s.ch->fd, .events = POLLIN };
		if (!peer_done)
			p[np++] = (struct pollfd){ .fd = s.tcp, .events = POLLIN };
		if (backlog) {
			backlog = false;
			if (drain_all())
				goto fail;
		}
		if (poll(p, np, backlog ? 0 : 100) <= 0)
			continue;
		if (s.ch && p[0].revents) {
			struct ibv_cq *cq;
			void *ctx;
			int k;

			/* Bounded, like drain(): back to the checks above. */
			for (k = 0; k < 8 && !ft_signal && !ibv_get_cq_event(s.ch, &cq, &ctx); k++) {
				ibv_ack_cq_events(cq, 1);
				/* Re-arm before draining: nothing slips between. */
				if (ibv_req_notify_cq(cq, 0)) {
					set_error("ibv_req_notify_cq failed");
					goto fail;
				}
				if (drain(ctx))
					goto fail;
			}
		}
		if (!peer_done && p[np - 1].revents) {
			char tag;

			if (ft_recv_all(s.tcp, &tag, 1) || tag != 'D') {
				set_error("client went away before finishing");
				goto fail;
			}
			peer_done = true;
			/* RC: the client saw every ACK, so every receive
			 * completion is already in our CQs. */
			grace_end = ft_now() + (unreliable ? 0.5 : 2.0);
			if (s.ch && drain_all())
				goto fail;
		}
	}
	s.traffic_s = ft_now() - t0;
	return 0;
fail:
	s.traffic_s = ft_now() - t0;
	return FT_EXIT_FAIL;
}

static int connect_qps(void)
{
	struct ft_qp_opts o = {
		.timeout = c.ack_timeout, .retry_cnt = 7, .rnr_retry = 7, .qkey = QKEY,
		.max_rd_atomic = c.depth < (long)s.dev.attr.max_qp_init_rd_atom ?
				 c.depth : s.dev.attr.max_qp_init_rd_atom,
		.max_dest_rd_atomic = s.dev.attr.max_qp_rd_atom,
	};
	struct ft_path p = {
		.dgid = s.rgid, .mtu = s.mtu, .tclass = c.tclass, .min_rnr_timer = 12,
	};
	double t0 = ft_now();
	long i;

	if (s.type == IBV_QPT_UD) {
		struct ibv_ah_attr ah = {
			.is_global = 1,
			.grh = { .dgid = s.rgid, .sgid_index = c.gid_index, .hop_limit = 64,
				 .traffic_class = c.tclass },
			.port_num = c.ib_port,
		};

		s.ah = ibv_create_ah(s.dev.pd, &ah);
		if (!s.ah) {
			ft_err("ibv_create_ah: %s", strerror(errno));
			return -1;
		}
	}
	for (i = 0; i < s.nq; i++) {
		struct qpent *q = &s.q[i];

		if (!(i & 1023) && ft_should_stop())
			return -1;
		p.remote_qpn = q->remote_qpn;
		p.rq_psn = q->rq_psn;
		if (ft_qp_to_rtr(q->qp, &s.dev, &p, &o) || ft_qp_to_rts(q->qp, q->sq_psn, &o))
			return -1;
	}
	s.connect_s = ft_now() - t0;
	s.state_str = "RTS";
	return 0;
}

static int setup(void)
{
	long i, need_maps;
	bool any_recv = false;
	double t0;
	int lfd = -1;

	s.type = qp_types[c.type_idx];
	s.mtu = c.mtu ? mtu_enum(c.mtu) : s.dev.port_attr.active_mtu;
	if (s.type == IBV_QPT_UD && c.size > mtu_bytes(s.mtu)) {
		ft_err("UD messages must fit the MTU: --size %ld > %d", c.size, mtu_bytes(s.mtu));
		return -1;
	}
	if (c.nqps > s.dev.attr.max_qp) {
		ft_err("%s allows %d QPs, not %ld", c.dev, s.dev.attr.max_qp, c.nqps);
		return -1;
	}
	if (c.depth > s.dev.attr.max_qp_wr) {
		ft_err("%s allows %d work requests per QP, not --depth %ld", c.dev,
		       s.dev.attr.max_qp_wr, c.depth);
		return -1;
	}
	need_maps = c.nqps * (c.srq ? 1 : 2) + 4096;
	if (ensure_map_count(need_maps))
		return -1;

	/* One buffer and one MR for every QP: traffic, not data, is the point. */
	s.buflen = (c.size ? c.size : 1) + (s.type == IBV_QPT_UD ? UD_GRH : 0);
	if (posix_memalign(&s.buf, 4096, (s.buflen + 4095) & ~4095UL)) {
		ft_err("out of memory for a %zu-byte buffer", s.buflen);
		return -1;
	}
	memset(s.buf, 0x5a, s.buflen);
	s.mr = ibv_reg_mr(s.dev.pd, s.buf, s.buflen, IBV_ACCESS_LOCAL_WRITE |
			  IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!s.mr) {
		ft_err("ibv_reg_mr(%zu bytes): %s", s.buflen, strerror(errno));
		return -1;
	}

	s.q = calloc(c.nqps, sizeof(*s.q));
	if (!s.q) {
		ft_err("out of memory for %ld QPs", c.nqps);
		return -1;
	}
	for (i = 0; i < c.nqps; i++) {
		s.q[i].kind = is_initiator(i) ? K_INITIATOR : is_receiver(i) ? K_RECEIVER :
			      K_PASSIVE;
		if (s.q[i].kind == K_INITIATOR)
			s.init_target += c.iters;
		if (s.q[i].kind == K_RECEIVER) {
			s.rx_target += c.iters;
			any_recv = true;
		}
	}
	s.srq_target = c.srq ? s.rx_target : 0;

	if (c.iters) {
		s.ch = ibv_create_comp_channel(s.dev.ctx);
		if (!s.ch) {
			ft_err("ibv_create_comp_channel: %s", strerror(errno));
			return -1;
		}
		fcntl(s.ch->fd, F_SETFL, fcntl(s.ch->fd, F_GETFL) | O_NONBLOCK);
	}
	if (create_cqs(&s.scq, &s.nscq, &s.per_scq,
		       s.init_target ? c.depth : 0, 0, false) ||
	    create_cqs(&s.rcq, &s.nrcq, &s.per_rcq,
		       any_recv && !c.srq ? rx_depth_per_qp() : 0,
		       any_recv && c.srq ? srq_depth() : 0, true))
		return -1;
	if (c.srq) {
		struct ibv_srq_init_attr sa = {
			.attr = { .max_wr = any_recv ? srq_depth() : 1, .max_sge = 1 },
		};

		s.srq = ibv_create_srq(s.dev.pd, &sa);
		if (!s.srq) {
			ft_err("ibv_create_srq: %s", strerror(errno));
			return -1;
		}
	}

	/* Listen before the slow part, so a busy port fails at once. */
	if (c.role == R_SERVER) {
		lfd = ft_tcp_listen(c.bind, c.tcp_port);
		if (lfd < 0)
			return -1;
	}

	t0 = ft_now();
	for (i = 0; i < c.nqps; i++) {
		struct ibv_qp_init_attr ia = {
			.send_cq = s.scq[i / s.per_scq].cq,
			.recv_cq = s.rcq[i / s.per_rcq].cq,
			.srq = s.srq,
			.cap = {
				/* Idle QPs get the smallest queues: 100k of them
				 * must fit in the test node's memory. */
				.max_send_wr = s.q[i].kind == K_INITIATOR ? c.depth : 1,
				.max_recv_wr = s.q[i].kind == K_RECEIVER ? rx_depth_per_qp() : 1,
				.max_send_sge = 1,
				.max_recv_sge = 1,
			},
			.qp_type = s.type,
		};

		if (!(i & 255) && ft_should_stop())
			goto fail;
		s.q[i].qp = ibv_create_qp(s.dev.pd, &ia);
		if (!s.q[i].qp) {
			ft_err("ibv_create_qp #%ld of %ld: %s", i + 1, c.nqps, strerror(errno));
			goto fail;
		}
		s.nq++;
		s.q[i].qpn = s.q[i].qp->qp_num;
		s.q[i].sq_psn = c.psn >= 0 ? (uint32_t)c.psn : ft_rand_psn();
	}
	s.create_s = ft_now() - t0;
	s.state_str = "RESET";

	if (!c.leave_reset) {
		struct ft_qp_opts o = { .qkey = QKEY };

		t0 = ft_now();
		for (i = 0; i < s.nq; i++) {
			if (!(i & 1023) && ft_should_stop())
				goto fail;
			if (ft_qp_to_init(s.q[i].qp, &s.dev, &o))
				goto fail;
		}
		s.init_s = ft_now() - t0;
		s.state_str = "INIT";
	}
	if (c.srq && build_index())
		goto fail;
	if (c.role == R_NOCONNECT)
		return 0;

	if (c.role == R_LOOPBACK) {
		s.rgid = s.dev.gid;
		s.raddr = (uintptr_t)s.buf;
		s.rkey = s.mr->rkey;
		for (i = 0; i < s.nq; i++) {
			s.q[i].remote_qpn = s.q[i ^ 1].qpn;
			s.q[i].rq_psn = s.q[i ^ 1].sq_psn;
		}
	} else {
		struct ft_ep local = {
			.prog = FT_PROG_QPS,
			.params = { c.op, c.type_idx, c.iters, c.size },
			.gid = s.dev.gid,
			.lid = s.dev.port_attr.lid,
			.addr = (uintptr_t)s.buf,
			.rkey = s.mr->rkey,
			.nqps = s.nq,
		};
		int ret;

		local.qpn = malloc(s.nq * sizeof(uint32_t) + 1);
		local.psn = malloc(s.nq * sizeof(uint32_t) + 1);
		if (!local.qpn || !local.psn) {
			ft_ep_free(&local);
			ft_err("out of memory");
			goto fail;
		}
		for (i = 0; i < s.nq; i++) {
			local.qpn[i] = s.q[i].qpn;
			local.psn[i] = s.q[i].sq_psn;
		}
		if (c.role == R_SERVER) {
			ft_info("listening on TCP port %d", c.tcp_port);
			s.tcp = ft_tcp_accept(lfd);
			lfd = -1;
		} else {
			s.tcp = ft_tcp_connect(c.peer, c.tcp_port);
		}
		ret = s.tcp < 0 ? -1 : ft_exchange(s.tcp, c.role == R_SERVER, &local, &s.remote,
						   param_names);
		ft_ep_free(&local);
		if (ret)
			goto fail;
		s.rgid = s.remote.gid;
		s.raddr = s.remote.addr;
		s.rkey = s.remote.rkey;
		for (i = 0; i < s.nq; i++) {
			s.q[i].remote_qpn = s.remote.qpn[i];
			s.q[i].rq_psn = s.remote.psn[i];
		}
	}
	if (connect_qps())
		goto fail;
	/* Receives first: the peer starts sending when we say ready. */
	if (s.srq) {
		if (topup_recvs(-1))
			goto fail;
	} else {
		for (i = 0; i < s.nq; i++)
			if (s.q[i].kind == K_RECEIVER && topup_recvs(i))
				goto fail;
	}
	if (s.tcp >= 0 && ft_sync(s.tcp, 'R'))
		goto fail;
	return 0;
fail:
	if (lfd >= 0)
		close(lfd);
	return -1;
}

static void teardown(void)
{
	double t0 = ft_now();
	long i, k, failed = 0;
	int ret;

	for (i = 0; i < s.nq; i++) {
		if (!s.q[i].qp)
			continue;
		ret = ibv_destroy_qp(s.q[i].qp);
		if (ret && !failed++)
			ft_err("ibv_destroy_qp(%#x): %s", s.q[i].qpn, strerror(ret));
		s.q[i].qp = NULL;
	}
	if (failed)
		ft_err("%ld of %ld QPs failed to destroy", failed, s.nq);
	if (s.ah)
		ibv_destroy_ah(s.ah);
	if (s.srq)
		ibv_destroy_srq(s.srq);
	for (k = 0; s.scq && k < s.nscq; k++)
		if (s.scq[k].cq)
			ibv_destroy_cq(s.scq[k].cq);
	for (k = 0; s.rcq && k < s.nrcq; k++)
		if (s.rcq[k].cq)
			ibv_destroy_cq(s.rcq[k].cq);
	if (s.ch)
		ibv_destroy_comp_channel(s.ch);
	if (s.mr)
		ibv_dereg_mr(s.mr);
	if (s.dev_open)
		ft_dev_close(&s.dev);
	if (s.tcp >= 0)
		close(s.tcp);
	s.tcp = -1;
	free(s.buf);
	free(s.scq);
	free(s.rcq);
	free(s.sorted_qpn);
	free(s.sorted_idx);
	ft_ep_free(&s.remote);
	s.buf = s.scq = s.rcq = NULL;
	s.sorted_qpn = NULL;
	s.sorted_idx = NULL;
	s.destroy_s = ft_now() - t0;
}

static void print_json(void)
{
	static const char *const kinds[] = { "passive", "initiator", "receiver" };
	bool connected = c.role != R_NOCONNECT;
	uint64_t ops = 0, bytes = 0;
	struct ft_json j;
	char gid[64];
	long i;

	for (i = 0; i < s.nq; i++) {
		ops += s.q[i].kind == K_RECEIVER ? s.q[i].rx_done : s.q[i].done;
		bytes += s.q[i].bytes;
	}
	fj_begin(&j, stdout);
	fj_str(&j, "prog", "ft_qps");
	fj_str(&j, "role", role_names[c.role]);
	fj_i64(&j, "pid", getpid());
	fj_str(&j, "device", c.dev);
	fj_i64(&j, "ib_port", c.ib_port);
	fj_i64(&j, "gid_index", c.gid_index);
	ft_gid_str(&s.dev.gid, gid, sizeof(gid));
	fj_str(&j, "gid", gid);
	if (connected) {
		ft_gid_str(&s.rgid, gid, sizeof(gid));
		fj_str(&j, "remote_gid", gid);
	}
	fj_str(&j, "qp_type", type_names[c.type_idx]);
	fj_str(&j, "op", op_names[c.op]);
	fj_i64(&j, "nqps", s.nq);
	fj_i64(&j, "iters", c.iters);
	fj_i64(&j, "size", c.size);
	fj_i64(&j, "depth", c.depth);
	fj_bool(&j, "srq", c.srq);
	fj_i64(&j, "tclass", c.tclass);
	fj_i64(&j, "mtu", mtu_bytes(s.mtu));
	fj_str(&j, "qp_state", s.state_str ? s.state_str : "NONE");
	fj_dbl(&j, "create_s", s.create_s);
	fj_dbl(&j, "init_s", s.init_s);
	fj_dbl(&j, "connect_s", s.connect_s);
	fj_dbl(&j, "traffic_s", s.traffic_s);
	if (s.destroy_s >= 0)
		fj_dbl(&j, "destroy_s", s.destroy_s);
	fj_dbl(&j, "elapsed_s", ft_now() - s.t_start);
	fj_u64(&j, "total_ops", ops);
	fj_u64(&j, "total_bytes", bytes);
	if (s.error[0])
		fj_str(&j, "error", s.error);
	else
		fj_null(&j, "error");
	if (!c.summary) {
		fj_arr(&j, "qps");
		for (i = 0; i < s.nq; i++) {
			struct qpent *q = &s.q[i];

			fj_obj(&j, NULL);
			fj_u64(&j, "qpn", q->qpn);
			fj_str(&j, "kind", kinds[q->kind]);
			if (connected) {
				fj_u64(&j, "remote_qpn", q->remote_qpn);
				fj_u64(&j, "sq_psn", q->sq_psn);
				fj_u64(&j, "rq_psn", q->rq_psn);
			}
			fj_u64(&j, "ops", q->kind == K_RECEIVER ? q->rx_done : q->done);
			fj_u64(&j, "bytes", q->bytes);
			fj_close_obj(&j);
		}
		fj_close_arr(&j);
	}
	fj_end(&j);
}

/* One run of the traffic, and each side's "done" to the other. */
static int run(void)
{
	int rc = traffic();

	if (!rc && s.tcp >= 0 && c.role == R_CLIENT && ft_sync(s.tcp, 'D'))
		rc = ft_should_stop() ? ft_should_stop() : FT_EXIT_FAIL;
	if (!rc && s.tcp >= 0 && c.role == R_SERVER && ft_send_all(s.tcp, "D", 1))
		rc = FT_EXIT_FAIL;
	return rc;
}

/*
 * --reconnect: every QP back through RESET to new PSNs, as a ULP that
 * reuses its QPs does, after a pause in RTS where a reader (fabtrace's
 * poll) sees the old ones.  Both sides move theirs and their peer's by
 * the same amount: nothing to exchange.  Writes leave no receive to post
 * again; the second run writes --iters more.
 */
#define PSN_MOVE 0x400000
static int reconnect(void)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };
	struct ft_qp_opts o = { .qkey = QKEY };
	long i;
	int ret;

	ft_sleep_us(c.reconnect_ms * 1000);
	if ((ret = ft_should_stop()))
		return ret;
	for (i = 0; i < s.nq; i++) {
		struct qpent *q = &s.q[i];

		ret = ibv_modify_qp(q->qp, &a, IBV_QP_STATE);
		if (ret) {
			set_error("QP %#x -> RESET: %s", q->qpn, strerror(ret));
			return FT_EXIT_FAIL;
		}
		if (ft_qp_to_init(q->qp, &s.dev, &o)) {
			set_error("QP %#x: RESET -> INIT failed", q->qpn);
			return FT_EXIT_FAIL;
		}
		q->sq_psn = (q->sq_psn + PSN_MOVE) & 0xffffff;
		q->rq_psn = (q->rq_psn + PSN_MOVE) & 0xffffff;
	}
	c.iters *= 2;
	s.init_target *= 2;
	if (connect_qps())
		return FT_EXIT_FAIL;
	/* the peer writes once this side is in RTR */
	if (ft_sync(s.tcp, 'R')) {
		set_error("lost the peer");
		return FT_EXIT_FAIL;
	}
	return 0;
}

/* --hold / --destroy-after: keep the QPs until told to let go. */
static void hold(void)
{
	struct stat st;
	bool watch_stdin = !fstat(0, &st) &&
		(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) || isatty(0));
	double end = c.destroy_after_ms >= 0 ? ft_now() + c.destroy_after_ms / 1e3 : 0;
	struct pollfd p = { .fd = 0, .events = POLLIN };
	char buf[256];

	for (;;) {
		if (ft_signal) {
			ft_info("%s: releasing the QPs", strsignal(ft_signal));
			return;
		}
		if (end && ft_now() >= end)
			return;
		if (ft_deadline_left() <= 0) {
			ft_info("--timeout-s passed while holding: releasing the QPs");
			return;
		}
		if (!watch_stdin) {
			ft_sleep_us(100000);
			continue;
		}
		if (poll(&p, 1, 100) > 0) {
			ssize_t n = read(0, buf, sizeof(buf));

			if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
				ft_info("stdin closed: releasing the QPs");
				return;
			}
		}
	}
}

int main(int argc, char **argv)
{
	int rc = FT_EXIT_OK, ret;

	ft_prog = "ft_qps";
	parse(argc, argv);
	ft_signals_init();
	ft_deadline_init(c.timeout_s);
	s.t_start = ft_now();
	/* the kernel reads the creator's comm when the QPs are made: name it first */
	if (c.comm && prctl(PR_SET_NAME, c.comm)) {
		ft_err("--comm: prctl(PR_SET_NAME): %s", strerror(errno));
		return FT_EXIT_FAIL;
	}

	if (ft_dev_open(&s.dev, c.dev, c.ib_port, c.gid_index))
		return FT_EXIT_FAIL;
	s.dev_open = true;
	if (setup()) {
		/* Setup failures print their reason; no JSON for a run that
		 * never started. */
		ret = ft_should_stop();
		teardown();
		return ret ? ret : FT_EXIT_FAIL;
	}
	if (c.role != R_NOCONNECT) {
		rc = run();
		if (!rc && c.reconnect_ms >= 0) {
			rc = reconnect();
			if (!rc)
				rc = run();
		}
		if (rc && !s.error[0])
			set_error("lost the peer");
	}
	if (s.tcp >= 0) {
		close(s.tcp);
		s.tcp = -1;
	}
	if (!rc && (c.hold || c.destroy_after_ms >= 0)) {
		print_json();
		hold();
		teardown();
		ft_info("destroyed %ld QPs in %.3f s", c.nqps, s.destroy_s);
		return FT_EXIT_OK;
	}
	teardown();
	print_json();
	return rc;
}
