// SPDX-License-Identifier: GPL-2.0
/* Shared code of the fabtrace traffic programs: options, deadline, verbs, TCP, JSON. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

const char *ft_prog = "ft";
volatile sig_atomic_t ft_signal;
static double deadline;		/* ft_now() value, 0 = none */
static double deadline_len;
static bool stop_reported;

static void vmsg(const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", ft_prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void ft_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

void ft_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

void ft_usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try '%s --help'.\n", ft_prog);
	exit(FT_EXIT_USAGE);
}

long long ft_parse_int(const char *opt, const char *s, long long min, long long max)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 0);
	if (errno || end == s || *end)
		ft_usage_error("%s: '%s' is not an integer", opt, s);
	if (v < min || v > max)
		ft_usage_error("%s: %lld is out of range [%lld, %lld]", opt, v, min, max);
	return v;
}

double ft_parse_double(const char *opt, const char *s, double min, double max)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || isnan(v))
		ft_usage_error("%s: '%s' is not a number", opt, s);
	if (v < min || v > max)
		ft_usage_error("%s: %g is out of range [%g, %g]", opt, v, min, max);
	return v;
}

void ft_check_ipv4(const char *opt, const char *s)
{
	struct in_addr a;

	if (inet_pton(AF_INET, s, &a) != 1)
		ft_usage_error("%s: '%s' is not an IPv4 address", opt, s);
}

int ft_parse_choice(const char *opt, const char *s, const char *const words[])
{
	char all[256] = "";
	int i;

	for (i = 0; words[i]; i++) {
		if (!strcmp(s, words[i]))
			return i;
		snprintf(all + strlen(all), sizeof(all) - strlen(all), "%s%s",
			 i ? "|" : "", words[i]);
	}
	ft_usage_error("%s: '%s' is not one of %s", opt, s, all);
}

/* ---- time, signals, the overall deadline ---- */

double ft_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void ft_sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	/* A signal cuts the sleep short: callers re-check ft_should_stop(). */
	nanosleep(&ts, NULL);
}

static void on_signal(int sig)
{
	ft_signal = sig;
}

void ft_signals_init(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

void ft_deadline_init(double seconds)
{
	deadline_len = seconds;
	deadline = seconds > 0 ? ft_now() + seconds : 0;
}

double ft_deadline_left(void)
{
	return deadline ? deadline - ft_now() : 1e9;
}

int ft_should_stop(void)
{
	if (ft_signal) {
		if (!stop_reported)
			ft_err("interrupted by %s", strsignal(ft_signal));
		stop_reported = true;
		return FT_EXIT_FAIL;
	}
	if (deadline && ft_now() >= deadline) {
		if (!stop_reported)
			ft_err("timed out: --timeout-s %g passed", deadline_len);
		stop_reported = true;
		return FT_EXIT_TIMEOUT;
	}
	return 0;
}

/* ---- verbs ---- */

static const char *port_state_str(enum ibv_port_state s)
{
	return ibv_port_state_str(s);
}

int ft_dev_open(struct ft_dev *d, const char *name, int port, int gid_index)
{
	struct ibv_device **list;
	char names[512] = "";
	int i, n, ret;

	memset(d, 0, sizeof(*d));
	list = ibv_get_device_list(&n);
	if (!list) {
		ft_err("RDMA device '%s': no RDMA support here (%s; ib_uverbs loaded?)",
		       name, strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (!strcmp(ibv_get_device_name(list[i]), name))
			break;
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
			 i ? ", " : "", ibv_get_device_name(list[i]));
	}
	if (i == n) {
		if (n)
			ft_err("RDMA device '%s' not found (have: %s)", name, names);
		else
			ft_err("RDMA device '%s' not found: no RDMA devices at all "
			       "(rdma_rxe loaded? 'rdma link add rxe0 type rxe netdev IF'?)",
			       name);
		ibv_free_device_list(list);
		return -1;
	}
	d->ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!d->ctx) {
		ft_err("ibv_open_device(%s): %s", name, strerror(errno));
		return -1;
	}
	snprintf(d->name, sizeof(d->name), "%s", name);
	d->port = port;
	d->gid_index = gid_index;
	if ((ret = ibv_query_device(d->ctx, &d->attr))) {
		ft_err("ibv_query_device(%s): %s", name, strerror(ret));
		goto fail;
	}
	if (port < 1 || port > d->attr.phys_port_cnt) {
		ft_err("%s has ports 1..%d, not %d", name, d->attr.phys_port_cnt, port);
		goto fail;
	}
	if ((ret = ibv_query_port(d->ctx, port, &d->port_attr))) {
		ft_err("ibv_query_port(%s, %d): %s", name, port, strerror(ret));
		goto fail;
	}
	if (d->port_attr.state != IBV_PORT_ACTIVE) {
		ft_err("%s port %d is %s, not ACTIVE", name, port,
		       port_state_str(d->port_attr.state));
		goto fail;
	}
	if (gid_index >= d->port_attr.gid_tbl_len) {
		ft_err("%s port %d has GID indexes 0..%d, not %d", name, port,
		       d->port_attr.gid_tbl_len - 1, gid_index);
		goto fail;
	}
	if ((ret = ibv_query_gid(d->ctx, port, gid_index, &d->gid))) {
		ft_err("ibv_query_gid(%s, %d, %d): %s", name, port, gid_index,
		       strerror(ret ? ret : errno));
		goto fail;
	}
	if (!d->gid.global.subnet_prefix && !d->gid.global.interface_id) {
		/* rxe fills index 1 with the IPv4-mapped GID a moment after the
		 * address appears: an empty slot usually means "too early". */
		ft_err("%s port %d GID index %d is empty (no IP address on the netdev yet?)",
		       name, port, gid_index);
		goto fail;
	}
	d->pd = ibv_alloc_pd(d->ctx);
	if (!d->pd) {
		ft_err("ibv_alloc_pd(%s): %s", name, strerror(errno));
		goto fail;
	}
	return 0;
fail:
	ibv_close_device(d->ctx);
	d->ctx = NULL;
	return -1;
}

void ft_dev_close(struct ft_dev *d)
{
	int ret;

	if (d->pd && (ret = ibv_dealloc_pd(d->pd)))
		ft_err("ibv_dealloc_pd: %s", strerror(ret));
	if (d->ctx)
		ibv_close_device(d->ctx);
	d->pd = NULL;
	d->ctx = NULL;
}

void ft_gid_str(const union ibv_gid *gid, char *buf, size_t len)
{
	if (!inet_ntop(AF_INET6, gid->raw, buf, len))
		snprintf(buf, len, "?");
}

int ft_qp_to_init(struct ibv_qp *qp, const struct ft_dev *d, const struct ft_qp_opts *o)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = d->port,
	};
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
	int ret;

	switch (qp->qp_type) {
	case IBV_QPT_RC:
		a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_READ;
		mask |= IBV_QP_ACCESS_FLAGS;
		break;
	case IBV_QPT_UC:
		a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
		mask |= IBV_QP_ACCESS_FLAGS;
		break;
	default:
		a.qkey = o->qkey;
		mask |= IBV_QP_QKEY;
		break;
	}
	ret = ibv_modify_qp(qp, &a, mask);
	if (ret)
		ft_err("QP %#x -> INIT: %s", qp->qp_num, strerror(ret));
	return ret ? -1 : 0;
}

int ft_qp_to_rtr(struct ibv_qp *qp, const struct ft_dev *d, const struct ft_path *p,
		 const struct ft_qp_opts *o)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = p->mtu,
		.dest_qp_num = p->remote_qpn,
		.rq_psn = p->rq_psn,
		.max_dest_rd_atomic = o->max_dest_rd_atomic,
		.min_rnr_timer = p->min_rnr_timer,
		.ah_attr = {
			/* RoCE needs the GRH: it becomes the IP header. */
			.is_global = 1,
			.grh = {
				.dgid = p->dgid,
				.sgid_index = d->gid_index,
				/* rxe copies it into the IP TTL. */
				.hop_limit = 64,
				.traffic_class = p->tclass,
			},
			.dlid = p->dlid,
			.port_num = d->port,
		},
	};
	int mask = IBV_QP_STATE;
	int ret;

	if (qp->qp_type == IBV_QPT_RC)
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	else if (qp->qp_type == IBV_QPT_UC)
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
	ret = ibv_modify_qp(qp, &a, mask);
	if (ret)
		ft_err("QP %#x -> RTR (remote QP %#x): %s", qp->qp_num, p->remote_qpn,
		       strerror(ret));
	return ret ? -1 : 0;
}

int ft_qp_to_rts(struct ibv_qp *qp, uint32_t sq_psn, const struct ft_qp_opts *o)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTS,
		.sq_psn = sq_psn,
		.timeout = o->timeout,
		.retry_cnt = o->retry_cnt,
		.rnr_retry = o->rnr_retry,
		.max_rd_atomic = o->max_rd_atomic,
	};
	int mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	int ret;

	if (qp->qp_type == IBV_QPT_RC)
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	ret = ibv_modify_qp(qp, &a, mask);
	if (ret)
		ft_err("QP %#x -> RTS: %s", qp->qp_num, strerror(ret));
	return ret ? -1 : 0;
}

enum ibv_qp_state ft_qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		return IBV_QPS_UNKNOWN;
	return a.qp_state;
}

const char *ft_qp_state_str(enum ibv_qp_state s)
{
	static const char *const names[] = {
		[IBV_QPS_RESET] = "RESET", [IBV_QPS_INIT] = "INIT",
		[IBV_QPS_RTR] = "RTR", [IBV_QPS_RTS] = "RTS", [IBV_QPS_SQD] = "SQD",
		[IBV_QPS_SQE] = "SQE", [IBV_QPS_ERR] = "ERR",
	};

	if ((unsigned int)s < sizeof(names) / sizeof(names[0]) && names[s])
		return names[s];
	return "UNKNOWN";
}

const char *ft_qp_type_str(enum ibv_qp_type t)
{
	switch (t) {
	case IBV_QPT_RC: return "rc";
	case IBV_QPT_UC: return "uc";
	case IBV_QPT_UD: return "ud";
	default: return "?";
	}
}

uint32_t ft_rand_psn(void)
{
	uint32_t v;

	if (getrandom(&v, sizeof(v), 0) != sizeof(v))
		v = (uint32_t)random();
	return v & 0xffffff;
}

double ft_ack_timeout_s(int t)
{
	return t ? 4.096e-6 * ldexp(1.0, t) : 0;
}

/* ---- the out-of-band TCP exchange ---- */

int ft_tcp_listen(const char *bind_ip, int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd, one = 1;

	if (bind_ip && inet_pton(AF_INET, bind_ip, &sa.sin_addr) != 1) {
		ft_err("bad bind address '%s'", bind_ip);
		return -1;
	}
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		ft_err("socket: %s", strerror(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 1)) {
		ft_err("listen on TCP port %d: %s", port, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static void tcp_tune(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

int ft_tcp_accept(int lfd)
{
	struct pollfd p = { .fd = lfd, .events = POLLIN };
	int fd;

	for (;;) {
		if (ft_should_stop())
			goto fail;
		if (poll(&p, 1, 100) <= 0)
			continue;
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd >= 0)
			break;
		if (errno != EINTR && errno != EAGAIN && errno != ECONNABORTED) {
			ft_err("accept: %s", strerror(errno));
			goto fail;
		}
	}
	close(lfd);
	tcp_tune(fd);
	return fd;
fail:
	close(lfd);
	return -1;
}

int ft_tcp_connect(const char *ip, int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	int last_err = 0, fd, err;
	socklen_t len;

	if (inet_pton(AF_INET, ip, &sa.sin_addr) != 1) {
		ft_err("bad peer address '%s'", ip);
		return -1;
	}
	for (;;) {
		struct pollfd p;

		if (ft_should_stop())
			return -1;
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0) {
			ft_err("socket: %s", strerror(errno));
			return -1;
		}
		err = 0;
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
			err = errno;
			if (err == EINPROGRESS) {
				p = (struct pollfd){ .fd = fd, .events = POLLOUT };
				if (poll(&p, 1, 1000) == 1) {
					len = sizeof(err);
					getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
				} else {
					err = ETIMEDOUT;
				}
			}
		}
		if (!err) {
			tcp_tune(fd);
			return fd;
		}
		close(fd);
		/* The server may not be listening yet: say so once, retry. */
		if (err != last_err)
			ft_info("waiting for %s:%d (%s)", ip, port, strerror(err));
		last_err = err;
		ft_sleep_us(100000);
	}
}

static int wait_fd(int fd, short ev)
{
	struct pollfd p = { .fd = fd, .events = ev };
	int ret;

	while (!(ret = ft_should_stop())) {
		if (poll(&p, 1, 100) > 0)
			return 0;
	}
	return -1;
}

int ft_send_all(int fd, const void *buf, size_t len)
{
	const char *b = buf;
	ssize_t n;

	while (len) {
		n = send(fd, b, len, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR) {
				if (wait_fd(fd, POLLOUT))
					return -1;
				continue;
			}
			ft_err("peer connection: send: %s", strerror(errno));
			return -1;
		}
		b += n;
		len -= n;
	}
	return 0;
}

int ft_recv_all(int fd, void *buf, size_t len)
{
	char *b = buf;
	ssize_t n;

	while (len) {
		n = recv(fd, b, len, 0);
		if (n == 0) {
			ft_err("peer closed the connection");
			return -1;
		}
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR) {
				if (wait_fd(fd, POLLIN))
					return -1;
				continue;
			}
			ft_err("peer connection: recv: %s", strerror(errno));
			return -1;
		}
		b += n;
		len -= n;
	}
	return 0;
}

#define FT_MAGIC	0x46545831	/* "FTX1" */
#define FT_HDR_LEN	(4 * 4 + FT_NPARAMS * 4 + 16 + 4 + 8 + 4)

static uint8_t *put32(uint8_t *p, uint32_t v)
{
	v = htobe32(v);
	memcpy(p, &v, 4);
	return p + 4;
}

static const uint8_t *get32(const uint8_t *p, uint32_t *v)
{
	memcpy(v, p, 4);
	*v = be32toh(*v);
	return p + 4;
}

static int send_ep(int fd, const struct ft_ep *e)
{
	uint8_t hdr[FT_HDR_LEN], *p = hdr, *list;
	uint32_t i;
	int ret;

	p = put32(p, FT_MAGIC);
	p = put32(p, e->prog);
	p = put32(p, e->nqps);
	p = put32(p, e->lid);
	for (i = 0; i < FT_NPARAMS; i++)
		p = put32(p, e->params[i]);
	memcpy(p, e->gid.raw, 16);
	p += 16;
	p = put32(p, e->addr >> 32);
	p = put32(p, (uint32_t)e->addr);
	put32(p, e->rkey);
	if (ft_send_all(fd, hdr, sizeof(hdr)))
		return -1;
	list = malloc((size_t)e->nqps * 8 + 1);
	if (!list) {
		ft_err("out of memory");
		return -1;
	}
	for (p = list, i = 0; i < e->nqps; i++) {
		p = put32(p, e->qpn[i]);
		p = put32(p, e->psn[i]);
	}
	ret = ft_send_all(fd, list, (size_t)e->nqps * 8);
	free(list);
	return ret;
}

static int recv_ep(int fd, const struct ft_ep *local, struct ft_ep *e,
		   const char *const names[FT_NPARAMS])
{
	uint8_t hdr[FT_HDR_LEN], *list;
	const uint8_t *p = hdr;
	uint32_t magic, hi, lo, lid, i;

	memset(e, 0, sizeof(*e));
	if (ft_recv_all(fd, hdr, sizeof(hdr)))
		return -1;
	p = get32(p, &magic);
	p = get32(p, &e->prog);
	p = get32(p, &e->nqps);
	p = get32(p, &lid);
	e->lid = lid;
	for (i = 0; i < FT_NPARAMS; i++)
		p = get32(p, &e->params[i]);
	memcpy(e->gid.raw, p, 16);
	p += 16;
	p = get32(p, &hi);
	p = get32(p, &lo);
	e->addr = (uint64_t)hi << 32 | lo;
	get32(p, &e->rkey);
	if (magic != FT_MAGIC) {
		ft_err("peer is not a fabtrace test program (bad magic %#x)", magic);
		return -1;
	}
	if (e->prog != local->prog) {
		ft_err("peer runs a different fabtrace program (id %u, we are %u)",
		       e->prog, local->prog);
		return -1;
	}
	/* Both ends must agree on the run, or the counts mean nothing. */
	if (e->nqps != local->nqps) {
		ft_err("peer has %u QPs, we have %u: give both the same -n",
		       e->nqps, local->nqps);
		return -1;
	}
	for (i = 0; i < FT_NPARAMS; i++) {
		if (e->params[i] != local->params[i]) {
			ft_err("peer has %s %u, we have %u: start both with the same options",
			       names[i] ? names[i] : "param", e->params[i], local->params[i]);
			return -1;
		}
	}
	list = malloc((size_t)e->nqps * 8 + 1);
	e->qpn = calloc(e->nqps + 1, sizeof(*e->qpn));
	e->psn = calloc(e->nqps + 1, sizeof(*e->psn));
	if (!list || !e->qpn || !e->psn) {
		ft_err("out of memory");
		free(list);
		ft_ep_free(e);
		return -1;
	}
	if (ft_recv_all(fd, list, (size_t)e->nqps * 8)) {
		free(list);
		ft_ep_free(e);
		return -1;
	}
	for (p = list, i = 0; i < e->nqps; i++) {
		p = get32(p, &e->qpn[i]);
		p = get32(p, &e->psn[i]);
	}
	free(list);
	return 0;
}

int ft_exchange(int fd, bool server, const struct ft_ep *local, struct ft_ep *remote,
		const char *const names[FT_NPARAMS])
{
	if (server)
		return send_ep(fd, local) || recv_ep(fd, local, remote, names) ? -1 : 0;
	return recv_ep(fd, local, remote, names) || send_ep(fd, local) ? -1 : 0;
}

void ft_ep_free(struct ft_ep *ep)
{
	free(ep->qpn);
	free(ep->psn);
	ep->qpn = ep->psn = NULL;
}

int ft_sync(int fd, char tag)
{
	char got;

	if (ft_send_all(fd, &tag, 1) || ft_recv_all(fd, &got, 1))
		return -1;
	if (got != tag) {
		ft_err("peer out of step: expected '%c', got '%c'", tag, got);
		return -1;
	}
	return 0;
}

/* ---- one RC QP talking to its twin on the peer ---- */

int ft_pair_setup(struct ft_pair *p, const struct ft_pair_cfg *cfg)
{
	struct ibv_qp_init_attr ia = {
		.cap = {
			.max_send_wr = cfg->max_send_wr, .max_recv_wr = cfg->max_recv_wr,
			.max_send_sge = 1, .max_recv_sge = 1,
		},
		.qp_type = IBV_QPT_RC,
	};
	struct ft_ep local = { .prog = cfg->prog, .nqps = 1 };
	struct ft_path path = { .tclass = cfg->o.tclass, .min_rnr_timer = cfg->min_rnr_timer };
	bool server = !cfg->o.peer;
	int lfd = -1, ret;

	memset(p, 0, sizeof(*p));
	p->tcp = -1;
	if (ft_dev_open(&p->dev, cfg->o.dev, cfg->o.ib_port, cfg->o.gid_index))
		return -1;
	p->dev_open = true;
	if (server && (lfd = ft_tcp_listen(cfg->o.bind, cfg->o.tcp_port)) < 0)
		return -1;
	p->buflen = cfg->buflen ? cfg->buflen : 1;
	if (posix_memalign(&p->buf, 4096, (p->buflen + 4095) & ~4095UL)) {
		p->buf = NULL;
		ft_err("out of memory");
		goto fail;
	}
	memset(p->buf, 0x5a, p->buflen);
	p->mr = ibv_reg_mr(p->dev.pd, p->buf, p->buflen, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!p->mr) {
		ft_err("ibv_reg_mr: %s", strerror(errno));
		goto fail;
	}
	p->ch = ibv_create_comp_channel(p->dev.ctx);
	if (!p->ch) {
		ft_err("ibv_create_comp_channel: %s", strerror(errno));
		goto fail;
	}
	fcntl(p->ch->fd, F_SETFL, fcntl(p->ch->fd, F_GETFL) | O_NONBLOCK);
	/* Room for every send and receive the QP can hold: no overflow. */
	p->cq = ibv_create_cq(p->dev.ctx, cfg->max_send_wr + cfg->max_recv_wr, NULL, p->ch, 0);
	if (!p->cq) {
		ft_err("ibv_create_cq: %s", strerror(errno));
		goto fail;
	}
	if (ibv_req_notify_cq(p->cq, 0)) {
		ft_err("ibv_req_notify_cq failed");
		goto fail;
	}
	ia.send_cq = ia.recv_cq = p->cq;
	p->qp = ibv_create_qp(p->dev.pd, &ia);
	if (!p->qp) {
		ft_err("ibv_create_qp: %s", strerror(errno));
		goto fail;
	}
	p->qpn = p->qp->qp_num;
	p->sq_psn = ft_rand_psn();
	if (ft_qp_to_init(p->qp, &p->dev, &cfg->qp))
		goto fail;

	memcpy(local.params, cfg->params, sizeof(local.params));
	local.gid = p->dev.gid;
	local.lid = p->dev.port_attr.lid;
	local.addr = (uintptr_t)p->buf;
	local.rkey = p->mr->rkey;
	local.qpn = &p->qpn;
	local.psn = &p->sq_psn;
	if (server) {
		ft_info("listening on TCP port %d", cfg->o.tcp_port);
		p->tcp = ft_tcp_accept(lfd);
		lfd = -1;
	} else {
		p->tcp = ft_tcp_connect(cfg->o.peer, cfg->o.tcp_port);
	}
	if (p->tcp < 0)
		goto fail;
	ret = ft_exchange(p->tcp, server, &local, &p->remote, cfg->param_names);
	if (ret)
		goto fail;

	path.dgid = p->remote.gid;
	path.dlid = p->remote.lid;
	path.remote_qpn = p->remote.qpn[0];
	path.rq_psn = p->remote.psn[0];
	path.mtu = p->dev.port_attr.active_mtu;
	if (ft_qp_to_rtr(p->qp, &p->dev, &path, &cfg->qp) ||
	    ft_qp_to_rts(p->qp, p->sq_psn, &cfg->qp))
		goto fail;
	return 0;
fail:
	if (lfd >= 0)
		close(lfd);
	return -1;
}

void ft_pair_destroy(struct ft_pair *p)
{
	int ret;

	if (p->qp && (ret = ibv_destroy_qp(p->qp)))
		ft_err("ibv_destroy_qp: %s", strerror(ret));
	if (p->cq)
		ibv_destroy_cq(p->cq);
	if (p->ch)
		ibv_destroy_comp_channel(p->ch);
	if (p->mr)
		ibv_dereg_mr(p->mr);
	if (p->dev_open)
		ft_dev_close(&p->dev);
	if (p->tcp >= 0)
		close(p->tcp);
	free(p->buf);
	ft_ep_free(&p->remote);
	p->qp = NULL;
	p->cq = NULL;
	p->ch = NULL;
	p->mr = NULL;
	p->buf = NULL;
	p->dev_open = false;
	p->tcp = -1;
}

int ft_pair_wait(struct ft_pair *p, int ms, bool watch_tcp)
{
	struct pollfd fds[2] = {
		{ .fd = p->ch->fd, .events = POLLIN },
		{ .fd = p->tcp, .events = POLLIN },
	};
	struct ibv_cq *cq;
	void *ctx;
	int ret = 0;

	if (poll(fds, watch_tcp ? 2 : 1, ms) <= 0)
		return 0;
	if (fds[0].revents) {
		while (!ibv_get_cq_event(p->ch, &cq, &ctx)) {
			ibv_ack_cq_events(cq, 1);
			ret |= FT_WAIT_CQ;
		}
		/* Re-arm before the caller drains: nothing slips between. */
		if ((ret & FT_WAIT_CQ) && ibv_req_notify_cq(p->cq, 0)) {
			ft_err("ibv_req_notify_cq failed");
			return -1;
		}
	}
	if (watch_tcp && fds[1].revents)
		ret |= FT_WAIT_TCP;
	return ret;
}

const char *ft_wc_status_name(enum ibv_wc_status st)
{
	static const char *const names[] = {
#define N(x) [IBV_WC_##x] = "IBV_WC_" #x
		N(SUCCESS), N(LOC_LEN_ERR), N(LOC_QP_OP_ERR), N(LOC_EEC_OP_ERR),
		N(LOC_PROT_ERR), N(WR_FLUSH_ERR), N(MW_BIND_ERR), N(BAD_RESP_ERR),
		N(LOC_ACCESS_ERR), N(REM_INV_REQ_ERR), N(REM_ACCESS_ERR), N(REM_OP_ERR),
		N(RETRY_EXC_ERR), N(RNR_RETRY_EXC_ERR), N(LOC_RDD_VIOL_ERR),
		N(REM_INV_RD_REQ_ERR), N(REM_ABORT_ERR), N(INV_EECN_ERR),
		N(INV_EEC_STATE_ERR), N(FATAL_ERR), N(RESP_TIMEOUT_ERR), N(GENERAL_ERR),
		N(TM_ERR), N(TM_RNDV_INCOMPLETE),
#undef N
	};

	if ((unsigned int)st < sizeof(names) / sizeof(names[0]) && names[st])
		return names[st];
	return "IBV_WC_UNKNOWN";
}

static void pair_json(struct ft_pair *p, bool server, double t0,
		      void (*fields)(struct ft_json *j), const char *error)
{
	struct ft_json j;

	fj_begin(&j, stdout);
	fj_str(&j, "prog", ft_prog);
	fj_str(&j, "role", server ? "server" : "client");
	fj_i64(&j, "pid", getpid());
	fj_u64(&j, "qpn", p->qpn);
	fj_u64(&j, "remote_qpn", p->remote.qpn ? p->remote.qpn[0] : 0);
	fj_u64(&j, "sq_psn", p->sq_psn);
	fj_u64(&j, "rq_psn", p->remote.psn ? p->remote.psn[0] : 0);
	fields(&j);
	fj_str(&j, "qp_state", ft_qp_state_str(ft_qp_state(p->qp)));
	fj_dbl(&j, "elapsed_s", ft_now() - t0);
	if (error)
		fj_str(&j, "error", error);
	else
		fj_null(&j, "error");
	fj_end(&j);
}

int ft_pair_main(struct ft_pair *p, const struct ft_pair_cfg *cfg, double *t0,
		 int (*ready)(void), int (*server)(void), int (*client)(void),
		 void (*fields)(struct ft_json *j))
{
	int rc;

	if (ft_pair_setup(p, cfg))
		goto fail;
	if (ready && ready()) {
		ft_pair_destroy(p);
		return FT_EXIT_FAIL;
	}
	if (ft_sync(p->tcp, 'R'))
		goto fail;
	*t0 = ft_now();
	if (!cfg->o.peer) {
		rc = server();
	} else {
		rc = client();
		if (!rc && ft_sync(p->tcp, 'D'))
			rc = ft_should_stop() ? ft_should_stop() : FT_EXIT_FAIL;
	}
	pair_json(p, !cfg->o.peer, *t0, fields, rc == FT_EXIT_TIMEOUT ? "timed out" : !rc ? NULL :
		  ft_signal ? "interrupted" : "failed (see stderr)");
	ft_pair_destroy(p);
	return rc;
fail:
	rc = ft_should_stop();
	ft_pair_destroy(p);
	return rc ? rc : FT_EXIT_FAIL;
}

/* ---- a pair program's command line ---- */

enum { O_SERVER = 256, O_PEER, O_BIND, O_TCLASS, O_TIMEOUT_S };

/* Option O of the common ones into P; false when it is the program's own. */
static bool pair_option(struct ft_pair_opts *p, int o, const char *arg, void (*usage)(void))
{
	switch (o) {
	case O_SERVER: p->server = true; break;
	case O_PEER: ft_check_ipv4("--peer", arg); p->peer = arg; break;
	case O_BIND: ft_check_ipv4("--bind", arg); p->bind = arg; break;
	case 'd': p->dev = arg; break;
	case 'i': p->ib_port = ft_parse_int("--ib-port", arg, 1, 255); break;
	case 'g': p->gid_index = ft_parse_int("--gid-index", arg, 0, 255); break;
	case 'p': p->tcp_port = ft_parse_int("--port", arg, 1, 65535); break;
	case O_TCLASS: p->tclass = ft_parse_int("--tclass", arg, 0, 255); break;
	case O_TIMEOUT_S: p->timeout_s = ft_parse_double("--timeout-s", arg, 0, 1e6); break;
	case 'h': usage(); exit(0);
	case '?': fprintf(stderr, "Try '%s --help'.\n", ft_prog); exit(FT_EXIT_USAGE);
	default: return false;
	}
	return true;
}

void ft_pair_parse(struct ft_pair_opts *p, int argc, char **argv, const struct option *opts,
		   void (*option)(int o, const char *arg), void (*usage)(void))
{
	static const struct option common[] = {
		{ "server", no_argument, NULL, O_SERVER },
		{ "peer", required_argument, NULL, O_PEER },
		{ "bind", required_argument, NULL, O_BIND },
		{ "device", required_argument, NULL, 'd' },
		{ "ib-port", required_argument, NULL, 'i' },
		{ "gid-index", required_argument, NULL, 'g' },
		{ "port", required_argument, NULL, 'p' },
		{ "tclass", required_argument, NULL, O_TCLASS },
		{ "timeout-s", required_argument, NULL, O_TIMEOUT_S },
		{ "help", no_argument, NULL, 'h' },
	};
	const size_t ncommon = sizeof(common) / sizeof(common[0]);
	struct option all[64] = { { 0 } };
	size_t n;
	int o;

	memcpy(all, common, sizeof(common));
	for (n = 0; opts[n].name; n++) {
		if (ncommon + n + 1 >= sizeof(all) / sizeof(all[0])) {
			ft_err("internal error: too many options");
			exit(FT_EXIT_FAIL);
		}
		all[ncommon + n] = opts[n];
	}
	while ((o = getopt_long(argc, argv, "d:i:g:p:h", all, NULL)) != -1)
		if (!pair_option(p, o, optarg, usage))
			option(o, optarg);
	if (optind < argc)
		ft_usage_error("unexpected argument '%s'", argv[optind]);
	if (p->server == !!p->peer)
		ft_usage_error("give exactly one of --server and --peer IP");
}

/* ---- JSON ---- */

static void fj_key(struct ft_json *j, const char *key)
{
	if (!j->first[j->depth])
		fputc(',', j->f);
	j->first[j->depth] = false;
	if (key)
		fprintf(j->f, "\"%s\":", key);
}

static void fj_open(struct ft_json *j, char c)
{
	fputc(c, j->f);
	if (j->depth + 1 < (int)(sizeof(j->first) / sizeof(j->first[0])))
		j->depth++;
	j->first[j->depth] = true;
}

void fj_begin(struct ft_json *j, FILE *f)
{
	j->f = f;
	j->depth = -1;
	fj_open(j, '{');
}

void fj_end(struct ft_json *j)
{
	fputs("}\n", j->f);
	fflush(j->f);
}

void fj_obj(struct ft_json *j, const char *key)
{
	fj_key(j, key);
	fj_open(j, '{');
}

void fj_arr(struct ft_json *j, const char *key)
{
	fj_key(j, key);
	fj_open(j, '[');
}

void fj_close_obj(struct ft_json *j)
{
	fputc('}', j->f);
	j->depth--;
}

void fj_close_arr(struct ft_json *j)
{
	fputc(']', j->f);
	j->depth--;
}

void fj_u64(struct ft_json *j, const char *key, uint64_t v)
{
	fj_key(j, key);
	fprintf(j->f, "%llu", (unsigned long long)v);
}

void fj_i64(struct ft_json *j, const char *key, int64_t v)
{
	fj_key(j, key);
	fprintf(j->f, "%lld", (long long)v);
}

void fj_dbl(struct ft_json *j, const char *key, double v)
{
	fj_key(j, key);
	if (isfinite(v))
		fprintf(j->f, "%.6f", v);
	else
		fputs("null", j->f);
}

void fj_str(struct ft_json *j, const char *key, const char *s)
{
	fj_key(j, key);
	fputc('"', j->f);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(j->f, "\\%c", c);
		else if (c < 0x20)
			fprintf(j->f, "\\u%04x", c);
		else
			fputc(c, j->f);
	}
	fputc('"', j->f);
}

void fj_bool(struct ft_json *j, const char *key, bool v)
{
	fj_key(j, key);
	fputs(v ? "true" : "false", j->f);
}

void fj_null(struct ft_json *j, const char *key)
{
	fj_key(j, key);
	fputs("null", j->f);
}
