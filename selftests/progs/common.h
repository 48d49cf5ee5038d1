/* SPDX-License-Identifier: GPL-2.0 */
/* Shared code of the fabtrace traffic programs: options, deadline, verbs, TCP, JSON. */
#ifndef FT_COMMON_H
#define FT_COMMON_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <getopt.h>

#include <infiniband/verbs.h>

/* Exit statuses shared by every program: tests tell them apart. */
#define FT_EXIT_OK	0
#define FT_EXIT_FAIL	1	/* setup error, error completion, lost peer */
#define FT_EXIT_USAGE	2	/* bad option */
#define FT_EXIT_TIMEOUT	3	/* the --timeout-s deadline passed */

extern const char *ft_prog;

void ft_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ft_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ft_usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

/* Whole-string integer in [min, max] (decimal, 0x hex, 0 octal), else exit 2. */
long long ft_parse_int(const char *opt, const char *s, long long min, long long max);
double ft_parse_double(const char *opt, const char *s, double min, double max);
/* Exits 2 unless S is a dotted-quad IPv4 address. */
void ft_check_ipv4(const char *opt, const char *s);
/* Picks one of words[] (NULL terminated); returns its index, else exit 2. */
int ft_parse_choice(const char *opt, const char *s, const char *const words[]);

/* ---- time, signals, the overall deadline ---- */

double ft_now(void);			/* CLOCK_MONOTONIC seconds */
void ft_sleep_us(long us);
/* SIGINT/SIGTERM set ft_signal (no SA_RESTART, so blocking calls return);
 * SIGPIPE is ignored so a dead peer is an EPIPE, not a silent death. */
void ft_signals_init(void);
extern volatile sig_atomic_t ft_signal;
/* 0 = no deadline.  Set once, at start: every wait checks it. */
void ft_deadline_init(double seconds);
double ft_deadline_left(void);		/* seconds; huge when none */
/* Why a wait loop must stop: 0 = keep going, else FT_EXIT_TIMEOUT or
 * FT_EXIT_FAIL (signal).  Prints the reason once. */
int ft_should_stop(void);

/* ---- verbs ---- */

struct ft_dev {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_device_attr attr;
	struct ibv_port_attr port_attr;
	union ibv_gid gid;
	int port;
	int gid_index;
	char name[IBV_SYSFS_NAME_MAX];
};

/* Opens device NAME, checks PORT is active and GID_INDEX holds a GID. */
int ft_dev_open(struct ft_dev *d, const char *name, int port, int gid_index);
void ft_dev_close(struct ft_dev *d);
void ft_gid_str(const union ibv_gid *gid, char *buf, size_t len);

/* Where the remote end of a QP is. */
struct ft_path {
	union ibv_gid dgid;
	uint16_t dlid;
	uint32_t remote_qpn;
	uint32_t rq_psn;		/* the remote's start PSN */
	enum ibv_mtu mtu;
	uint8_t tclass;
	uint8_t min_rnr_timer;		/* RC responder: advertised in RNR NAKs */
};

struct ft_qp_opts {
	uint8_t timeout;		/* RC: local ACK timeout, 4.096 us * 2^t */
	uint8_t retry_cnt;
	uint8_t rnr_retry;		/* 7 = infinite */
	uint8_t max_rd_atomic;
	uint8_t max_dest_rd_atomic;
	uint32_t qkey;			/* UD */
};

int ft_qp_to_init(struct ibv_qp *qp, const struct ft_dev *d, const struct ft_qp_opts *o);
int ft_qp_to_rtr(struct ibv_qp *qp, const struct ft_dev *d, const struct ft_path *p,
		 const struct ft_qp_opts *o);
int ft_qp_to_rts(struct ibv_qp *qp, uint32_t sq_psn, const struct ft_qp_opts *o);
enum ibv_qp_state ft_qp_state(struct ibv_qp *qp);
const char *ft_qp_state_str(enum ibv_qp_state s);
const char *ft_qp_type_str(enum ibv_qp_type t);
uint32_t ft_rand_psn(void);
/* Seconds the RC local ACK timeout attribute T stands for. */
double ft_ack_timeout_s(int t);

/* ---- the out-of-band TCP exchange ---- */

/*
 * What each side tells the other before the QPs can be connected.  params[]
 * are the program's run parameters: both sides must have been started with
 * the same ones, and a mismatch is reported rather than run.
 */
#define FT_NPARAMS 6
struct ft_ep {
	uint32_t prog;			/* FT_PROG_* */
	uint32_t params[FT_NPARAMS];
	union ibv_gid gid;
	uint16_t lid;
	uint64_t addr;			/* MR the peer may read/write */
	uint32_t rkey;
	uint32_t nqps;
	uint32_t *qpn;			/* nqps entries each */
	uint32_t *psn;
};
enum { FT_PROG_QPS = 1, FT_PROG_RNR, FT_PROG_TIMEOUT };

int ft_tcp_listen(const char *bind_ip, int port);
/* Accepts one connection; closes the listener. */
int ft_tcp_accept(int lfd);
/* Connects, retrying (the server may start later) until the deadline. */
int ft_tcp_connect(const char *ip, int port);
int ft_send_all(int fd, const void *buf, size_t len);
int ft_recv_all(int fd, void *buf, size_t len);
/* The server sends first, then the client: no deadlock for big QP lists.
 * names[] label params in a mismatch message.  Allocates remote->qpn/psn. */
int ft_exchange(int fd, bool server, const struct ft_ep *local, struct ft_ep *remote,
		const char *const names[FT_NPARAMS]);
void ft_ep_free(struct ft_ep *ep);
/* Both sides send TAG and wait for the other's: a barrier. */
int ft_sync(int fd, char tag);

/* ---- one RC QP talking to its twin on the peer (ft_rnr, ft_timeout) ---- */

struct ft_json;

/* The options every pair program takes: its device, its peer, the exchange. */
struct ft_pair_opts {
	const char *dev, *peer, *bind;	/* peer NULL = server */
	int ib_port, gid_index, tcp_port, tclass;
	double timeout_s;
	bool server;
};

struct ft_pair_cfg {
	struct ft_pair_opts o;
	uint32_t prog;
	uint32_t params[FT_NPARAMS];	/* must match the peer's */
	const char *const *param_names;
	uint32_t max_send_wr, max_recv_wr;
	size_t buflen;
	uint8_t min_rnr_timer;
	struct ft_qp_opts qp;
};

struct ft_pair {
	struct ft_dev dev;
	bool dev_open;
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	uint32_t qpn;
	struct ibv_mr *mr;
	void *buf;
	size_t buflen;
	uint32_t sq_psn;
	struct ft_ep remote;
	int tcp;
};

/* Device, CQ (armed), QP, TCP exchange, INIT -> RTR -> RTS; then the
 * 'R' barrier is the caller's, once its receives are posted. */
int ft_pair_setup(struct ft_pair *p, const struct ft_pair_cfg *cfg);
void ft_pair_destroy(struct ft_pair *p);
/* Sleeps up to MS for a completion event (re-arming the CQ) or, with
 * WATCH_TCP, data from the peer.  Returns FT_WAIT_* bits, or -1 on error. */
#define FT_WAIT_CQ	1
#define FT_WAIT_TCP	2
int ft_pair_wait(struct ft_pair *p, int ms, bool watch_tcp);
/* "IBV_WC_RNR_RETRY_EXC_ERR": the enum's own name, as JSON keys. */
const char *ft_wc_status_name(enum ibv_wc_status st);

/*
 * A pair program's life: ft_pair_setup(), READY (NULL, or what must be in
 * place before the peer may send: 0 when it is), the 'R' barrier, *T0 set,
 * then SERVER or CLIENT (no cfg->o.peer: the server), the client's end
 * the 'D' barrier; then its JSON, and ft_pair_destroy().  The JSON: prog,
 * role, pid, the QP (qpn, remote_qpn, sq_psn, rq_psn), what FIELDS adds,
 * then qp_state, elapsed_s (since *T0) and the error, if any.  Returns the
 * program's exit status.
 */
int ft_pair_main(struct ft_pair *p, const struct ft_pair_cfg *cfg, double *t0,
		 int (*ready)(void), int (*server)(void), int (*client)(void),
		 void (*fields)(struct ft_json *j));

/* ---- a pair program's command line ---- */

#define FT_PAIR_OPTS(port) { .dev = "rxe0", .ib_port = 1, .gid_index = 1, \
			     .tcp_port = (port), .timeout_s = 60 }
/* The program's own options are numbered from here on. */
#define FT_O_PROG 512

/*
 * The command line of a pair program: what every one takes into P (-d,
 * --device; -i, --ib-port; -g, --gid-index; -p, --port; --server, --peer,
 * --bind, --tclass, --timeout-s), the program's own options (OPTS, ended
 * by an empty entry) to OPTION; then no stray argument, and exactly one of
 * --server and --peer.  --help is USAGE and exit 0; an unknown option is
 * exit 2.
 */
void ft_pair_parse(struct ft_pair_opts *p, int argc, char **argv, const struct option *opts,
		   void (*option)(int o, const char *arg), void (*usage)(void));

/* ---- JSON on stdout: one object, one line ---- */

struct ft_json {
	FILE *f;
	int depth;
	bool first[16];
};

void fj_begin(struct ft_json *j, FILE *f);
void fj_end(struct ft_json *j);		/* closes the root, newline, flush */
void fj_obj(struct ft_json *j, const char *key);	/* key NULL in arrays */
void fj_arr(struct ft_json *j, const char *key);
void fj_close_obj(struct ft_json *j);
void fj_close_arr(struct ft_json *j);
void fj_u64(struct ft_json *j, const char *key, uint64_t v);
void fj_i64(struct ft_json *j, const char *key, int64_t v);
void fj_dbl(struct ft_json *j, const char *key, double v);
void fj_str(struct ft_json *j, const char *key, const char *s);
void fj_bool(struct ft_json *j, const char *key, bool v);
void fj_null(struct ft_json *j, const char *key);

#endif
