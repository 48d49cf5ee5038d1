// SPDX-License-Identifier: GPL-2.0
/* Netlink fuzzer for the fabtrace family: random and mutated requests. */
/*
 *   nl_fuzz [--seed S] [--count N] [--uid U] [--time-limit SECS] [-v]
 *
 * Sends N datagrams to the fabtrace generic netlink family (id resolved with
 * CTRL_CMD_GETFAMILY), each built from a valid request of one of its
 * commands (dev-get, qp-get, qp-reset, stats-get, policy-get, policy-set,
 * pfc-get; do and dump) or of an invalid command number (0, qp-event,
 * 9..255), then
 * mutated: bits and bytes flipped, bytes inserted and deleted, nla_len and nla_type changed
 * (0, beyond the policy's max, NLA_F_NESTED), attributes duplicated,
 * truncated, oversized, of the wrong width, nested garbage, nlmsg flags,
 * genl version and reserved byte, nlmsg_len shorter or longer than the
 * datagram, several messages per datagram, datagrams cut mid-header.  Some
 * episodes start dumps on several sockets at once (4 KiB reads: the kernel
 * then fills ~4 KiB parts), read them interleaved, and abandon some by
 * closing the socket after one or more parts.
 *
 * Every datagram is walked the way netlink_rcv_skb() walks it, which says
 * what the kernel will process, and every processed message is predicted
 * by a model of genetlink and of the family's (strict) policies:
 *   not a request at all   nlmsg_len < 16, or larger than what is left of
 *                          the datagram: dropped silently, no answer (the
 *                          only case where no answer is right); flags
 *                          without NLM_F_REQUEST or a control type (< 16):
 *                          an ack only if NLM_F_ACK was set
 *   genl core              genl header cut (EINVAL, genetlink gives no
 *                          extack: the one EINVAL exempt from the rule),
 *                          reserved byte or flags outside REQUEST|ACK|ECHO
 *                          (|DUMP) (EINVAL + extack), unknown command or no
 *                          do/dump (EOPNOTSUPP), qp-reset without
 *                          CAP_NET_ADMIN (EPERM), an unused family id
 *                          (ENOENT)
 *   policy                 strict validation of the command's policy:
 *                          unknown type (incl. 0), no policy for it, wrong
 *                          length, NLA_F_NESTED, string rules, max/mask,
 *                          trailing bytes: EINVAL or ERANGE, with extack
 *   handler                anything; but an EINVAL/ERANGE must carry an
 *                          extack message
 * Each message's answer is read (everything the kernel answers is queued
 * before sendmsg() returns; a dump's next part within each recvmsg()) and
 * classified: ok, error with extack, error without extack (per errno), no
 * answer.  Failures: a processed request without answer, an answer to
 * nothing, an answer other than the model predicts, an EINVAL/ERANGE
 * without extack (except the cut genl header), a dump without its end, a
 * qp-reset that did not fail with EPERM as an unprivileged user, a root
 * qp-reset that succeeded (see below), a truncated read.
 *
 * stats-get has no request policy.  Linux 6.1 (fabtrace merges its ops
 * into genl_ops there) gives such an op genetlink's reject-all policy:
 * any attribute is EINVAL with extack.  6.12 looks split ops up without
 * filling that policy in (only the policy dump does), so garbage is
 * accepted.  Either is counted (policy_reject, unvalidated_accepted), not
 * failed: the shell test reports the second as a finding.
 *
 * Root and the counters of live traffic: qp-reset is fuzzed as root too,
 * but any qp-reset the model cannot prove will fail (no attribute, or a
 * real device without a QP number or with one below 2^23: rxe numbers its
 * QPs below 2^17, checked at start) is replaced by one that must fail in
 * the handler (no such device, index and name of two devices, QP number
 * beyond 24 bits, a QP number without device, QP 2^23 or above), drawn
 * from a second random stream so the main stream stays that of the
 * unprivileged run.  A root qp-reset answered 0 is a failure.
 *
 * --uid U drops to U (gid U, no groups, no capabilities) before opening
 * any socket: the same messages, as that user.
 *
 * Output: one JSON line on stdout (counts by class, errnos, dumps, rate);
 * details of the first failures on stderr.  Exit 0 if no failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <linux/fabtrace.h>

#define MAXMSG		16384
#define MAXSUB		8
#define RCVLEN_SMALL	4096
#define RCVLEN_BIG	(128 * 1024)
#define NO_QPN_BELOW	0x800000u	/* QP numbers no rxe QP can have */

/* ---- randomness ----------------------------------------------------------- */

struct rng {
	uint64_t s;
};

static uint64_t rnd64(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint32_t rnd(struct rng *r, uint32_t n)	/* [0, n) */
{
	return n ? (uint32_t)(rnd64(r) % n) : 0;
}

static bool chance(struct rng *r, unsigned int pct)
{
	return rnd(r, 100) < pct;
}

static struct rng R, R2;	/* messages; root's reset rewrites */

/* ---- what the kernel has --------------------------------------------------- */

struct dev {
	uint32_t index;
	char name[64];
};

static struct dev devs[16];
static unsigned int ndevs;
static uint32_t qpns[512];	/* some QP numbers of devs[0] */
static unsigned int nqpns;
static uint16_t family;
static uint16_t unused_ids[4];	/* genl ids nobody has */
static uint32_t max_dev_index;
static bool privileged;		/* has CAP_NET_ADMIN: the reset filter applies */
static int verbose;

/* ---- counters ---------------------------------------------------------------- */

static const char *const cmd_names[] = {
	"invalid", "dev-get", "qp-get", "qp-reset", "stats-get", "policy-get",
	"policy-set", "pfc-get",
};
#define NCMD	(sizeof(cmd_names) / sizeof(cmd_names[0]))

static struct {
	uint64_t datagrams, bytes, processed;
	uint64_t ok, err_extack, err_noext, no_answer, dropped, silent;
	uint64_t errno_all[256], errno_noext[256];
	uint64_t per_cmd[NCMD][2][3];	/* cmd, do/dump, ok/err/none */
	uint64_t policy_reject, handler_einval_noext;
	uint64_t unvalidated_accepted;
	uint64_t reset_eperm, reset_not_eperm, reset_ok_root, reset_rewritten;
	uint64_t genl_short;
	uint64_t dumps_requested, dumps_started, dumps_done, dumps_abandoned, dumps_interleaved;
	uint64_t dump_parts, dump_intr;
	uint64_t stray, mismatch, truncated_read, sock_err, undone;
	uint64_t failures;
	uint64_t multi_datagrams, regenerated, busy;
} C;

static char einval_where[8][96];
static unsigned int n_einval_where;

static void note_where(const char *what)
{
	unsigned int i;

	for (i = 0; i < n_einval_where; i++)
		if (!strcmp(einval_where[i], what))
			return;
	if (n_einval_where < 8)
		snprintf(einval_where[n_einval_where++], sizeof(einval_where[0]), "%s", what);
}

static void hexdump(FILE *f, const void *p, size_t n)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < n && i < 512; i++)
		fprintf(f, "%02x", b[i]);
	if (n > 512)
		fprintf(f, "...(%zu bytes)", n);
	fputc('\n', f);
}

static const void *cur_dgram;
static size_t cur_dgram_len;
static unsigned int reported;

static void failure(const char *fmt, ...)
{
	va_list ap;

	C.failures++;
	if (reported++ >= 25)
		return;
	fprintf(stderr, "nl_fuzz: FAIL #%llu (datagram %llu): ",
		(unsigned long long)C.failures, (unsigned long long)C.datagrams);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (cur_dgram) {
		fprintf(stderr, "nl_fuzz:   datagram (%zu bytes): ", cur_dgram_len);
		hexdump(stderr, cur_dgram, cur_dgram_len);
	}
}

/* ---- sockets ------------------------------------------------------------------- */

struct sock {
	struct mnl_socket *nl;
	int fd;
	unsigned int rcvlen;
	bool cap_ack;
};

static int sock_open(struct sock *s, unsigned int rcvlen, bool cap_ack)
{
	int one = 1, zero = 0, big = 1 << 20;

	s->nl = mnl_socket_open(NETLINK_GENERIC);
	if (!s->nl)
		return -1;
	if (mnl_socket_bind(s->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		mnl_socket_close(s->nl);
		s->nl = NULL;
		return -1;
	}
	s->fd = mnl_socket_get_fd(s->nl);
	s->rcvlen = rcvlen;
	s->cap_ack = cap_ack;
	setsockopt(s->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(s->fd, SOL_NETLINK, NETLINK_CAP_ACK, cap_ack ? &one : &zero,
		   sizeof(one));
	/* root may exceed rmem_max; nobody gets what it gets */
	if (setsockopt(s->fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big)))
		setsockopt(s->fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	return 0;
}

static void sock_close(struct sock *s)
{
	if (s->nl)
		mnl_socket_close(s->nl);
	s->nl = NULL;
}

/* ---- plain requests (setup) ------------------------------------------------------ */

static uint32_t seqno = 1000;

static struct nlmsghdr *put_req(void *buf, uint16_t type, uint8_t cmd,
				uint16_t flags, uint8_t version)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = ++seqno;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = version;
	return nlh;
}

typedef void (*data_cb)(const struct nlmsghdr *nlh, void *arg);

/* Send one request and read its answer; 0 or an errno. */
static int simple_xfer(struct sock *s, struct nlmsghdr *nlh, data_cb cb, void *arg)
{
	static char rbuf[RCVLEN_BIG];
	uint32_t seq = nlh->nlmsg_seq;
	int n;

	if (send(s->fd, nlh, nlh->nlmsg_len, 0) < 0)
		return errno;
	for (;;) {
		struct pollfd p = { .fd = s->fd, .events = POLLIN };
		const struct nlmsghdr *h;

		if (poll(&p, 1, 5000) != 1)
			return ETIMEDOUT;
		n = recv(s->fd, rbuf, sizeof(rbuf), 0);
		if (n < 0)
			return errno;
		for (h = (void *)rbuf; mnl_nlmsg_ok(h, n); h = mnl_nlmsg_next(h, &n)) {
			if (h->nlmsg_seq != seq)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = mnl_nlmsg_get_payload(h);

				return -e->error;
			}
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (cb)
				cb(h, arg);
			if (!(h->nlmsg_flags & NLM_F_MULTI) &&
			    !(nlh->nlmsg_flags & NLM_F_ACK))
				return 0;
		}
	}
}

static int attrs_cb(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;
	uint16_t t = mnl_attr_get_type(a);

	if (t < 32)
		tb[t] = a;
	return MNL_CB_OK;
}

static void family_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct nlattr *tb[32] = {};
	uint16_t *id = arg;

	mnl_attr_parse(nlh, sizeof(struct genlmsghdr), attrs_cb, tb);
	if (tb[CTRL_ATTR_FAMILY_ID])
		*id = mnl_attr_get_u16(tb[CTRL_ATTR_FAMILY_ID]);
}

static uint16_t used_ids[256];
static unsigned int n_used;

static void families_cb(const struct nlmsghdr *nlh, void *arg)
{
	uint16_t id = 0;

	(void)arg;
	family_cb(nlh, &id);
	if (id && n_used < 256)
		used_ids[n_used++] = id;
}

static void dev_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct nlattr *tb[32] = {};

	(void)arg;
	mnl_attr_parse(nlh, sizeof(struct genlmsghdr), attrs_cb, tb);
	if (!tb[FABTRACE_A_DEV_INDEX] || !tb[FABTRACE_A_DEV_NAME] || ndevs == 16)
		return;
	devs[ndevs].index = mnl_attr_get_u32(tb[FABTRACE_A_DEV_INDEX]);
	snprintf(devs[ndevs].name, sizeof(devs[0].name), "%s",
		 mnl_attr_get_str(tb[FABTRACE_A_DEV_NAME]));
	if (devs[ndevs].index > max_dev_index)
		max_dev_index = devs[ndevs].index;
	ndevs++;
}

static uint32_t max_qpn_seen;

static void qp_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct nlattr *tb[32] = {};
	uint32_t q;

	(void)arg;
	mnl_attr_parse(nlh, sizeof(struct genlmsghdr), attrs_cb, tb);
	if (!tb[FABTRACE_A_QP_QPN])
		return;
	q = mnl_attr_get_u32(tb[FABTRACE_A_QP_QPN]);
	if (q > max_qpn_seen)
		max_qpn_seen = q;
	if (ndevs && tb[FABTRACE_A_QP_DEV_INDEX] &&
	    mnl_attr_get_u32(tb[FABTRACE_A_QP_DEV_INDEX]) == devs[0].index &&
	    nqpns < 512)
		qpns[nqpns++] = q;
}

static int setup(struct sock *s)
{
	static char buf[MAXMSG];
	struct nlmsghdr *nlh;
	unsigned int i;
	uint16_t id;
	int err;

	nlh = put_req(buf, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, NLM_F_ACK, 1);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, FABTRACE_FAMILY_NAME);
	err = simple_xfer(s, nlh, family_cb, &family);
	if (err || !family) {
		fprintf(stderr, "nl_fuzz: family %s not found: %s\n",
			FABTRACE_FAMILY_NAME, strerror(err ?: ENOENT));
		return -1;
	}
	nlh = put_req(buf, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, NLM_F_DUMP, 1);
	if (simple_xfer(s, nlh, families_cb, NULL))
		return -1;
	/* ids no family has: a request to them is answered ENOENT */
	for (id = 0xfff0, i = 0; i < 4 && id > 0x100; id--) {
		unsigned int j;

		for (j = 0; j < n_used && used_ids[j] != id; j++)
			;
		if (j == n_used)
			unused_ids[i++] = id;
	}
	nlh = put_req(buf, family, FABTRACE_CMD_DEV_GET, NLM_F_DUMP, 1);
	if (simple_xfer(s, nlh, dev_cb, NULL) || !ndevs) {
		fprintf(stderr, "nl_fuzz: no device in fabtrace's dev dump\n");
		return -1;
	}
	nlh = put_req(buf, family, FABTRACE_CMD_QP_GET, NLM_F_DUMP, 1);
	if (simple_xfer(s, nlh, qp_cb, NULL))
		return -1;
	if (max_qpn_seen >= NO_QPN_BELOW) {
		fprintf(stderr, "nl_fuzz: QP %u exists: the reset filter assumes none above %#x\n",
			max_qpn_seen, NO_QPN_BELOW);
		return -1;
	}
	if (verbose)
		fprintf(stderr, "nl_fuzz: family %u, %u devices (%s #%u), %u QPs of it, %u families\n",
			family, ndevs, devs[0].name, devs[0].index, nqpns, n_used);
	return 0;
}

/* ---- building requests ------------------------------------------------------------ */

struct msgbuf {
	uint8_t b[MAXMSG];
	size_t len;
};

static uint32_t any_u32(void)
{
	static const uint32_t v[] = {
		0, 1, 2, 3, 6, 7, 15, 16, 17, 0xff, 0x100, 0xffff, 0xfffff,
		0xffffff, 0x1000000, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff,
	};

	if (chance(&R, 50))
		return v[rnd(&R, sizeof(v) / sizeof(v[0]))];
	return (uint32_t)rnd64(&R);
}

static uint32_t a_qpn(void)
{
	if (nqpns && chance(&R, 60))
		return qpns[rnd(&R, nqpns)];
	if (chance(&R, 50))
		return rnd(&R, 0x100);
	return any_u32();
}

static uint32_t a_index(void)
{
	if (chance(&R, 70))
		return devs[rnd(&R, ndevs)].index;
	return any_u32();
}

static void a_name(char *name, size_t *len)
{
	unsigned int i, n;

	switch (rnd(&R, 8)) {
	case 0: case 1: case 2: case 3:
		*len = (size_t)snprintf(name, 80, "%s", devs[rnd(&R, ndevs)].name) + 1;
		break;
	case 4:
		*len = (size_t)snprintf(name, 80, "nosuchdev%u", rnd(&R, 100)) + 1;
		break;
	case 5:		/* 63 or 64 characters, NUL or not */
		n = 62 + rnd(&R, 4);
		memset(name, 'x', n);
		name[n] = 0;
		*len = n + rnd(&R, 2);
		break;
	case 6:		/* an empty one, or only the NUL missing */
		*len = rnd(&R, 2);
		name[0] = 0;
		if (*len)
			break;
		*len = (size_t)snprintf(name, 80, "%s", devs[0].name);
		break;
	default:	/* random bytes, a NUL somewhere or nowhere */
		n = 1 + rnd(&R, 70);
		for (i = 0; i < n; i++)
			name[i] = (char)rnd(&R, 256);
		*len = n;
		break;
	}
}

static void put_name(struct nlmsghdr *nlh, uint16_t type)
{
	char name[80];
	size_t len;

	a_name(name, &len);
	mnl_attr_put(nlh, type, len, name);
}

/* A config nest: values in and around their ranges, a map of any length. */
static void put_policy_cfg(struct nlmsghdr *nlh)
{
	static const uint32_t near[] = {
		0, 1, 2, 7, 8, 48, 63, 64, 99, 100, 255, 256, 5000, 5001,
		60000, 60001, 1000000, 1000001,
	};
	struct nlattr *nest = mnl_attr_nest_start(nlh, FABTRACE_A_POLICY_CONFIG);
	uint8_t map[70];
	unsigned int i, n;

	for (i = FABTRACE_A_POLICY_CFG_TRUST; i <= FABTRACE_A_POLICY_CFG_MAX; i++) {
		if (!chance(&R, 25))
			continue;
		if (i == FABTRACE_A_POLICY_CFG_DSCP_MAP) {
			n = chance(&R, 80) ? 64 : rnd(&R, sizeof(map) + 1);
			for (unsigned int d = 0; d < n; d++)
				map[d] = chance(&R, 95) ? rnd(&R, 8) : (uint8_t)rnd(&R, 256);
			mnl_attr_put(nlh, i, n, map);
			continue;
		}
		mnl_attr_put_u32(nlh, i, chance(&R, 80) ? near[rnd(&R, sizeof(near) / 4)]
							: any_u32());
	}
	mnl_attr_nest_end(nlh, nest);
}

/* A valid (or nearly) request of some command; @dump_only for the dump
 * sockets.  The first byte of what follows the genl header is attributes. */
static void build_template(struct msgbuf *m, bool dump_only)
{
	uint16_t flags = 0;
	struct nlmsghdr *nlh;
	uint8_t cmd;
	bool dump;
	unsigned int pick = dump_only ? (chance(&R, 40) ? 20 : 40) : rnd(&R, 100);

	if (pick < 15) {
		cmd = FABTRACE_CMD_DEV_GET; dump = false;
	} else if (pick < 25) {
		cmd = FABTRACE_CMD_DEV_GET; dump = true;
	} else if (pick < 38) {
		cmd = FABTRACE_CMD_QP_GET; dump = false;
	} else if (pick < 50) {
		cmd = FABTRACE_CMD_QP_GET; dump = true;
	} else if (pick < 68) {
		cmd = FABTRACE_CMD_QP_RESET; dump = chance(&R, 10);
	} else if (pick < 76) {
		cmd = FABTRACE_CMD_STATS_GET; dump = chance(&R, 10);
	} else if (pick < 80) {
		cmd = FABTRACE_CMD_POLICY_GET; dump = chance(&R, 50);
	} else if (pick < 86) {
		cmd = FABTRACE_CMD_POLICY_SET; dump = chance(&R, 10);
	} else if (pick < 90) {
		cmd = FABTRACE_CMD_PFC_GET; dump = chance(&R, 50);
	} else {
		static const uint8_t bad[] = {
			0, FABTRACE_CMD_QP_EVENT, FABTRACE_CMD_MAX + 1, FABTRACE_CMD_MAX + 2
		};

		cmd = chance(&R, 60) ? bad[rnd(&R, 4)] :
		      (uint8_t)(FABTRACE_CMD_MAX + 1 + rnd(&R, 255 - FABTRACE_CMD_MAX));
		dump = chance(&R, 40);
	}
	if (dump)
		flags |= NLM_F_DUMP;
	if (dump_only || chance(&R, 85))
		flags |= NLM_F_ACK;
	if (chance(&R, 3))
		flags |= NLM_F_ECHO;
	nlh = put_req(m->b, family, cmd, flags, chance(&R, 92) ? 1 : (uint8_t)rnd(&R, 256));

	switch (cmd) {
	case FABTRACE_CMD_DEV_GET:
		if (chance(&R, dump ? 30 : 70))
			mnl_attr_put_u32(nlh, FABTRACE_A_DEV_INDEX, a_index());
		if (chance(&R, dump ? 30 : 60))
			put_name(nlh, FABTRACE_A_DEV_NAME);
		break;
	case FABTRACE_CMD_QP_GET:
		if (chance(&R, dump ? 40 : 60))
			mnl_attr_put_u32(nlh, FABTRACE_A_QP_DEV_INDEX, a_index());
		if (chance(&R, dump ? 30 : 60))
			put_name(nlh, FABTRACE_A_QP_DEV_NAME);
		if (chance(&R, dump ? 20 : 90))
			mnl_attr_put_u32(nlh, FABTRACE_A_QP_QPN, a_qpn());
		if (!dump && !chance(&R, 10))
			break;
		if (chance(&R, 30))
			mnl_attr_put_u32(nlh, FABTRACE_A_QP_QPN_MIN, a_qpn());
		if (chance(&R, 30))
			mnl_attr_put_u32(nlh, FABTRACE_A_QP_QPN_MAX, a_qpn());
		if (chance(&R, 15))
			mnl_attr_put_u32(nlh, FABTRACE_A_QP_PID, chance(&R, 50) ? 0 : any_u32());
		if (chance(&R, 20))
			mnl_attr_put_u32(nlh, FABTRACE_A_QP_TYPE,
					 chance(&R, 70) ? rnd(&R, 12) : any_u32());
		if (chance(&R, 20))
			mnl_attr_put_u32(nlh, FABTRACE_A_QP_STATE,
					 chance(&R, 70) ? rnd(&R, 8) : any_u32());
		if (chance(&R, 20))
			mnl_attr_put_u32(nlh, FABTRACE_A_QP_MATCH_FLAGS,
					 chance(&R, 70) ? rnd(&R, 16) : any_u32());
		break;
	case FABTRACE_CMD_QP_RESET:
		if (chance(&R, 60))
			mnl_attr_put_u32(nlh, FABTRACE_A_QP_DEV_INDEX, a_index());
		if (chance(&R, 50))
			put_name(nlh, FABTRACE_A_QP_DEV_NAME);
		if (chance(&R, 70))
			mnl_attr_put_u32(nlh, FABTRACE_A_QP_QPN, a_qpn());
		break;
	case FABTRACE_CMD_STATS_GET:
		if (chance(&R, 10))
			mnl_attr_put_u32(nlh, 1 + rnd(&R, 20), any_u32());
		break;
	case FABTRACE_CMD_POLICY_GET:
	case FABTRACE_CMD_POLICY_SET:
		if (chance(&R, 50))
			mnl_attr_put_u32(nlh, FABTRACE_A_POLICY_DEV_INDEX, a_index());
		if (chance(&R, 60))
			put_name(nlh, FABTRACE_A_POLICY_DEV_NAME);
		if (chance(&R, 40))
			mnl_attr_put_u32(nlh, FABTRACE_A_POLICY_PORT,
					 chance(&R, 70) ? rnd(&R, 3) : any_u32());
		if (cmd == FABTRACE_CMD_POLICY_SET && chance(&R, 90))
			put_policy_cfg(nlh);
		break;
	case FABTRACE_CMD_PFC_GET:
		if (chance(&R, 50))
			mnl_attr_put_u32(nlh, FABTRACE_A_PFC_DEV_INDEX, a_index());
		if (chance(&R, 60))
			put_name(nlh, FABTRACE_A_PFC_DEV_NAME);
		if (chance(&R, 40))
			mnl_attr_put_u32(nlh, FABTRACE_A_PFC_PORT,
					 chance(&R, 70) ? rnd(&R, 3) : any_u32());
		break;
	default:
		while (chance(&R, 40))
			mnl_attr_put_u32(nlh, rnd(&R, 30), any_u32());
		break;
	}
	m->len = nlh->nlmsg_len;
}

/* ---- mutations ---------------------------------------------------------------------- */

#define HDRS (NLMSG_HDRLEN + GENL_HDRLEN)

static void set_len(struct msgbuf *m)
{
	((struct nlmsghdr *)m->b)->nlmsg_len = (uint32_t)m->len;
}

/* Offsets of the attributes of the message at @m->b (walked loosely). */
static unsigned int attr_offsets(const struct msgbuf *m, uint32_t *off, unsigned int max)
{
	size_t o = HDRS;
	unsigned int n = 0;

	while (o + 4 <= m->len && n < max) {
		const struct nlattr *a = (const void *)(m->b + o);

		if (a->nla_len < 4)
			break;
		off[n++] = (uint32_t)o;
		o += NLA_ALIGN(a->nla_len);
	}
	return n;
}

static void insert_bytes(struct msgbuf *m, size_t at, const void *p, size_t n)
{
	if (m->len + n > MAXMSG)
		return;
	if (at > m->len)
		at = m->len;
	memmove(m->b + at + n, m->b + at, m->len - at);
	memcpy(m->b + at, p, n);
	m->len += n;
}

/* An attribute of random type and contents, possibly nested garbage. */
static size_t garbage_attr(uint8_t *p, size_t room, unsigned int depth)
{
	struct nlattr *a = (void *)p;
	size_t len, o;

	if (room < 4)
		return 0;
	switch (rnd(&R, 4)) {
	case 0: len = rnd(&R, 9); break;
	case 1: len = rnd(&R, 80); break;
	case 2: len = 256 + rnd(&R, 4096); break;	/* oversized */
	default: len = 4; break;
	}
	if (len + 4 > room)
		len = room - 4;
	a->nla_len = (uint16_t)(4 + len);
	a->nla_type = (uint16_t)(chance(&R, 50) ? rnd(&R, 24) : rnd64(&R));
	if (depth < 3 && len >= 8 && chance(&R, 40)) {	/* nested garbage */
		a->nla_type |= NLA_F_NESTED;
		o = 4;
		while (o + 4 <= 4 + len) {
			size_t n = garbage_attr(p + o, 4 + len - o, depth + 1);

			if (!n)
				break;
			o += NLA_ALIGN(n);
		}
		for (; o < 4 + len; o++)
			p[o] = (uint8_t)rnd(&R, 256);
	} else {
		for (o = 4; o < 4 + len; o++)
			p[o] = (uint8_t)rnd(&R, 256);
	}
	return 4 + len;
}

static void mutate_once(struct msgbuf *m)
{
	uint32_t off[64];
	unsigned int na = attr_offsets(m, off, 64), k = rnd(&R, 20);
	struct nlmsghdr *nlh = (void *)m->b;
	struct genlmsghdr *g = (void *)(m->b + NLMSG_HDRLEN);
	uint8_t tmp[MAXMSG];
	size_t at, n, i;

	if (m->len < HDRS)
		k = rnd(&R, 3);
	switch (k) {
	case 0:		/* flip a bit */
		if (m->len)
			m->b[rnd(&R, (uint32_t)m->len)] ^= (uint8_t)(1u << rnd(&R, 8));
		break;
	case 1:		/* set a byte, mostly past the headers */
		if (m->len > HDRS && chance(&R, 70))
			m->b[HDRS + rnd(&R, (uint32_t)(m->len - HDRS))] = (uint8_t)rnd(&R, 256);
		else if (m->len)
			m->b[rnd(&R, (uint32_t)m->len)] = (uint8_t)rnd(&R, 256);
		break;
	case 2:		/* cut the datagram (nlmsg_len kept: it may claim more) */
		if (m->len)
			m->len = rnd(&R, (uint32_t)m->len);
		break;
	case 3:		/* insert bytes */
		n = 1 + rnd(&R, 16);
		for (i = 0; i < n; i++)
			tmp[i] = (uint8_t)rnd(&R, 256);
		insert_bytes(m, HDRS + rnd(&R, (uint32_t)(m->len - HDRS + 1)), tmp, n);
		break;
	case 4:		/* delete bytes */
		at = HDRS + rnd(&R, (uint32_t)(m->len - HDRS + 1));
		n = 1 + rnd(&R, 8);
		if (at + n > m->len)
			n = m->len - at;
		memmove(m->b + at, m->b + at + n, m->len - at - n);
		m->len -= n;
		break;
	case 5:		/* nla_len */
		if (na) {
			struct nlattr *a = (void *)(m->b + off[rnd(&R, na)]);
			static const int d[] = { -4, -3, -2, -1, 1, 2, 3, 4, 8 };

			if (chance(&R, 70))
				a->nla_len = (uint16_t)(a->nla_len + d[rnd(&R, 9)]);
			else
				a->nla_len = (uint16_t)(chance(&R, 50) ? rnd(&R, 4) : rnd64(&R));
		}
		break;
	case 6:		/* nla_type: 0, max + 1, random, flags */
		if (na) {
			struct nlattr *a = (void *)(m->b + off[rnd(&R, na)]);

			switch (rnd(&R, 5)) {
			case 0: a->nla_type = 0; break;
			case 1: a->nla_type = (uint16_t)(FABTRACE_A_QP_MAX + 1 + rnd(&R, 3)); break;
			case 2: a->nla_type ^= NLA_F_NESTED; break;
			case 3: a->nla_type ^= NLA_F_NET_BYTEORDER; break;
			default: a->nla_type = (uint16_t)rnd(&R, 32); break;
			}
		}
		break;
	case 7:		/* duplicate an attribute */
		if (na) {
			uint32_t o = off[rnd(&R, na)];
			const struct nlattr *a = (void *)(m->b + o);

			n = NLA_ALIGN(a->nla_len);
			if (o + n <= m->len && n <= sizeof(tmp)) {
				memcpy(tmp, a, n);
				insert_bytes(m, chance(&R, 50) ? m->len : o, tmp, n);
			}
		}
		break;
	case 8:		/* an attribute of the wrong width */
		if (na) {
			uint32_t o = off[rnd(&R, na)];
			struct nlattr *a = (void *)(m->b + o);
			static const size_t w[] = { 0, 1, 2, 3, 5, 8, 16 };
			uint8_t data[16] = {};
			uint16_t type = a->nla_type;
			size_t old = NLA_ALIGN(a->nla_len);

			if (o + old > m->len)
				break;
			n = w[rnd(&R, 7)];
			for (i = 0; i < n; i++)
				data[i] = (uint8_t)rnd(&R, 256);
			memmove(m->b + o, m->b + o + old, m->len - o - old);
			m->len -= old;
			((struct nlattr *)tmp)->nla_len = (uint16_t)(4 + n);
			((struct nlattr *)tmp)->nla_type = type;
			memcpy(tmp + 4, data, n);
			memset(tmp + 4 + n, 0, NLA_ALIGN(4 + n) - 4 - n);
			insert_bytes(m, o, tmp, NLA_ALIGN(4 + n));
		}
		break;
	case 9:		/* a garbage (unknown, oversized, nested) attribute */
	case 10:
		n = garbage_attr(tmp, sizeof(tmp) - m->len, 0);
		while (n % 4 && chance(&R, 50))
			tmp[n++] = 0;
		insert_bytes(m, chance(&R, 60) ? m->len : HDRS, tmp, n);
		break;
	case 11:	/* truncate the last attribute (claims more than it has) */
		if (na) {
			uint32_t o = off[na - 1];
			const struct nlattr *a = (void *)(m->b + o);

			if (a->nla_len > 4 && o + a->nla_len <= m->len)
				m->len = o + 4 + rnd(&R, a->nla_len - 4);
		}
		break;
	case 12:	/* nlmsg_flags */
		switch (rnd(&R, 5)) {
		case 0: nlh->nlmsg_flags ^= NLM_F_REQUEST; break;
		case 1: nlh->nlmsg_flags ^= NLM_F_ACK; break;
		case 2: nlh->nlmsg_flags ^= (uint16_t)(1u << rnd(&R, 16)); break;
		case 3: nlh->nlmsg_flags ^= chance(&R, 50) ? NLM_F_ROOT : NLM_F_DUMP; break;
		default: nlh->nlmsg_flags = (uint16_t)rnd64(&R); break;
		}
		break;
	case 13:	/* genl version, reserved */
		if (chance(&R, 70))
			g->version = (uint8_t)rnd(&R, 256);
		else
			g->reserved = (uint16_t)(1u << rnd(&R, 16));
		break;
	case 14:	/* command */
		g->cmd = chance(&R, 60) ? (uint8_t)rnd(&R, 8) : (uint8_t)rnd(&R, 256);
		break;
	case 15:	/* nlmsg_type: control types, no such family */
		if (chance(&R, 60))
			nlh->nlmsg_type = (uint16_t)rnd(&R, 16);
		else
			nlh->nlmsg_type = unused_ids[rnd(&R, 4)];
		break;
	case 16:	/* nlmsg_len wrong */
		switch (rnd(&R, 4)) {
		case 0: nlh->nlmsg_len = rnd(&R, 24); break;
		case 1: nlh->nlmsg_len = (uint32_t)m->len + 1 + rnd(&R, 64); break;
		case 2: nlh->nlmsg_len = (uint32_t)rnd64(&R); break;
		default: nlh->nlmsg_len = rnd(&R, (uint32_t)m->len + 1); break;
		}
		return;
	case 17:	/* cut mid-header */
		m->len = rnd(&R, HDRS);
		return;
	case 18:	/* zero-length or overlong attribute */
		if (na) {
			struct nlattr *a = (void *)(m->b + off[rnd(&R, na)]);

			a->nla_len = chance(&R, 50) ? 4 : 0xffff;
		}
		break;
	default:	/* a random byte of the headers */
		m->b[rnd(&R, HDRS)] = (uint8_t)rnd(&R, 256);
		break;
	}
	if (m->len >= 4 && k != 2 && k != 11 && chance(&R, 75))
		set_len(m);
}

/* ---- the kernel's walk and the model ---------------------------------------------------- */

enum pred {
	P_NONE,		/* no answer */
	P_ACK,		/* an ack (0) if NLM_F_ACK, else nothing */
	P_ERR,		/* errno e1 (or e2), extack if ext */
	P_HANDLER,	/* the handler decides */
	P_UNVALIDATED,	/* no policy: accepted whatever the attributes */
};

struct sub {
	uint32_t off, len;
	uint16_t type, flags;
	uint32_t seq;
	uint8_t cmd;	/* index into cmd_names; genl cmd in gcmd */
	uint8_t gcmd;
	bool family, dump, has_genl, reset_do;
	bool quiet_ok;	/* the handler's success has no reply: silent without ACK */
	bool busy_ok;	/* an earlier dump of the datagram may still run */
	enum pred pred;
	int e1, e2;
	bool ext;
	char why[64];
	/* what came back */
	bool final, data, multi, ack_seen, done_seen;
	int err;
	bool extack;
	char extmsg[128];
	unsigned int parts;
};

struct dgram {
	struct sub sub[MAXSUB + 1];
	unsigned int n;
	bool truncated_tail;	/* the walk stopped at a message it drops */
};

enum ptype { T_U32, T_STR, T_UNSPEC, T_BIN, T_NEST };

struct pol {
	enum ptype t;
	uint32_t max, mask;	/* 0: none */
	const struct pol *nest;	/* T_NEST: the policy inside */
	unsigned int nest_max;
};

static const struct pol dev_pol[] = {
	[FABTRACE_A_DEV_INDEX] = { T_U32, 0, 0 },
	[FABTRACE_A_DEV_NAME] = { T_STR, 0, 0 },
};

static const struct pol qp_get_pol[FABTRACE_A_QP_MATCH_FLAGS + 1] = {
	[FABTRACE_A_QP_DEV_INDEX] = { T_U32, 0, 0 },
	[FABTRACE_A_QP_DEV_NAME] = { T_STR, 0, 0 },
	[FABTRACE_A_QP_QPN] = { T_U32, 0, 0 },
	[FABTRACE_A_QP_TYPE] = { T_U32, 255, 0 },
	[FABTRACE_A_QP_STATE] = { T_U32, 6, 0 },
	[FABTRACE_A_QP_PORT] = { T_UNSPEC, 0, 0 },
	[FABTRACE_A_QP_REMOTE_QPN] = { T_UNSPEC, 0, 0 },
	[FABTRACE_A_QP_PEER_ADDR] = { T_UNSPEC, 0, 0 },
	[FABTRACE_A_QP_TCLASS] = { T_UNSPEC, 0, 0 },
	[FABTRACE_A_QP_SL] = { T_UNSPEC, 0, 0 },
	[FABTRACE_A_QP_PID] = { T_U32, 0, 0 },
	[FABTRACE_A_QP_COMM] = { T_UNSPEC, 0, 0 },
	[FABTRACE_A_QP_CREATE_TIME] = { T_UNSPEC, 0, 0 },
	[FABTRACE_A_QP_DESTROY_TIME] = { T_UNSPEC, 0, 0 },
	[FABTRACE_A_QP_FLAGS] = { T_UNSPEC, 0, 0 },
	[FABTRACE_A_QP_TX] = { T_UNSPEC, 0, 0 },
	[FABTRACE_A_QP_RX] = { T_UNSPEC, 0, 0 },
	[FABTRACE_A_QP_CONG] = { T_UNSPEC, 0, 0 },
	[FABTRACE_A_QP_QPN_MIN] = { T_U32, 0, 0 },
	[FABTRACE_A_QP_QPN_MAX] = { T_U32, 0, 0 },
	[FABTRACE_A_QP_MATCH_FLAGS] = { T_U32, 0, 0x1f },
};

static const struct pol policy_get_pol[] = {
	[FABTRACE_A_POLICY_DEV_INDEX] = { T_U32, 0, 0 },
	[FABTRACE_A_POLICY_DEV_NAME] = { T_STR, 0, 0 },
	[FABTRACE_A_POLICY_PORT] = { T_U32, 0, 0 },
};

static const struct pol pfc_get_pol[] = {
	[FABTRACE_A_PFC_DEV_INDEX] = { T_U32, 0, 0 },
	[FABTRACE_A_PFC_DEV_NAME] = { T_STR, 0, 0 },
	[FABTRACE_A_PFC_PORT] = { T_U32, 0, 0 },
};

static const struct pol policy_cfg_pol[FABTRACE_A_POLICY_CFG_MAX + 1] = {
	[FABTRACE_A_POLICY_CFG_TRUST] = { T_U32, 0, 0 },
	[FABTRACE_A_POLICY_CFG_DSCP_MAP] = { T_BIN, 0, 0 },
	[FABTRACE_A_POLICY_CFG_PFC] = { T_U32, 0, 0 },
	[FABTRACE_A_POLICY_CFG_ECN] = { T_U32, 0, 0 },
	[FABTRACE_A_POLICY_CFG_CNP] = { T_U32, 0, 0 },
	[FABTRACE_A_POLICY_CFG_CNP_INTERVAL] = { T_U32, 0, 0 },
	[FABTRACE_A_POLICY_CFG_CNP_DSCP] = { T_U32, 0, 0 },
	[FABTRACE_A_POLICY_CFG_WD_DETECT] = { T_U32, 0, 0 },
	[FABTRACE_A_POLICY_CFG_WD_RESTORE] = { T_U32, 0, 0 },
	[FABTRACE_A_POLICY_CFG_WD_ACTION] = { T_U32, 0, 0 },
};

static const struct pol policy_set_pol[] = {
	[FABTRACE_A_POLICY_DEV_INDEX] = { T_U32, 0, 0 },
	[FABTRACE_A_POLICY_DEV_NAME] = { T_STR, 0, 0 },
	[FABTRACE_A_POLICY_PORT] = { T_U32, 0, 0 },
	[FABTRACE_A_POLICY_CONFIG] = { T_NEST, 0, 0, policy_cfg_pol,
				       FABTRACE_A_POLICY_CFG_MAX },
};

static const struct pol qp_reset_pol[] = {
	[FABTRACE_A_QP_DEV_INDEX] = { T_U32, 0, 0 },
	[FABTRACE_A_QP_DEV_NAME] = { T_STR, 0, 0 },
	[FABTRACE_A_QP_QPN] = { T_U32, 0, 0 },
};

/*
 * lib/nlattr.c's __nla_validate_parse() with NL_VALIDATE_STRICT over the
 * attributes of one message: 0, -EINVAL or -ERANGE.  @tb gets the last
 * attribute of each type, as the kernel's does.
 */
static int model_policy(const uint8_t *p, int len, const struct pol *pol,
			unsigned int maxtype, const struct nlattr **tb, char *why)
{
	int rem = len;
	const struct nlattr *a = (const void *)p;

	while (rem >= 4 && a->nla_len >= 4 && a->nla_len <= rem) {
		unsigned int type = a->nla_type & NLA_TYPE_MASK;
		int alen = a->nla_len - 4;
		const struct pol *pt;

		if (type == 0 || type > maxtype) {
			sprintf(why, "unknown attribute type %u", type);
			return -EINVAL;
		}
		pt = &pol[type];
		if (pt->t == T_U32) {
			uint32_t v;

			if (alen != 4) {
				sprintf(why, "attr %u: length %d", type, alen);
				return -EINVAL;
			}
			if (a->nla_type & NLA_F_NESTED) {
				sprintf(why, "attr %u: NLA_F_NESTED", type);
				return -EINVAL;
			}
			memcpy(&v, (const uint8_t *)a + 4, 4);
			if (pt->max && v > pt->max) {
				sprintf(why, "attr %u: %u > max %u", type, v, pt->max);
				return -ERANGE;
			}
			if (pt->mask && (v & ~pt->mask)) {
				sprintf(why, "attr %u: reserved bits %#x", type, v);
				return -EINVAL;
			}
		} else if (pt->t == T_STR) {
			const char *s = (const char *)a + 4;
			int minlen = alen < 64 ? alen : 64;

			if (a->nla_type & NLA_F_NESTED) {
				sprintf(why, "attr %u: NLA_F_NESTED", type);
				return -EINVAL;
			}
			if (!minlen || !memchr(s, 0, minlen)) {
				sprintf(why, "attr %u: no NUL in %d bytes", type, minlen);
				return -EINVAL;
			}
			if (s[alen - 1] == 0)
				alen--;
			if (alen > 63) {
				sprintf(why, "attr %u: string of %d", type, alen);
				return -ERANGE;
			}
		} else if (pt->t == T_BIN) {
			if (a->nla_type & NLA_F_NESTED) {
				sprintf(why, "attr %u: NLA_F_NESTED", type);
				return -EINVAL;
			}
		} else if (pt->t == T_NEST) {
			const struct nlattr *ntb[64] = { NULL };
			int err;

			if (!(a->nla_type & NLA_F_NESTED)) {
				sprintf(why, "attr %u: NLA_F_NESTED missing", type);
				return -EINVAL;
			}
			/* an empty nest is valid; one shorter than a header is
			 * not: validate_nla()'s default error, ERANGE */
			if (alen && alen < 4) {
				sprintf(why, "attr %u: nest of %d bytes", type, alen);
				return -ERANGE;
			}
			err = alen ? model_policy((const uint8_t *)a + 4, alen, pt->nest,
						  pt->nest_max, ntb, why) : 0;
			if (err)
				return err;
		} else {
			sprintf(why, "attr %u: not in the policy", type);
			return -EINVAL;
		}
		tb[type] = a;
		rem -= NLA_ALIGN(a->nla_len);
		a = (const void *)((const uint8_t *)a + NLA_ALIGN(a->nla_len));
	}
	if (rem > 0) {
		sprintf(why, "%d bytes left over", rem);
		return -EINVAL;
	}
	return 0;
}

static uint32_t get_u32(const struct nlattr *a)
{
	uint32_t v;

	memcpy(&v, (const uint8_t *)a + 4, 4);
	return v;
}

/* Could this root qp-reset reach ft_qp_reset()?  (tb: policy-valid.) */
static bool reset_unsafe(const struct nlattr **tb)
{
	const struct dev *d = NULL;
	unsigned int i;
	const struct nlattr *qpn = tb[FABTRACE_A_QP_QPN];
	const struct nlattr *name = tb[FABTRACE_A_QP_DEV_NAME];
	const struct nlattr *index = tb[FABTRACE_A_QP_DEV_INDEX];

	if (qpn && get_u32(qpn) > 0xffffff)
		return false;
	if (!name && !index)
		return !qpn;			/* reset everything */
	for (i = 0; i < ndevs; i++) {
		if (name ? !strcmp(devs[i].name, (const char *)name + 4)
			 : devs[i].index == get_u32(index)) {
			d = &devs[i];
			break;
		}
	}
	if (!d)
		return false;			/* ENODEV */
	if (name && index && d->index != get_u32(index))
		return false;			/* EINVAL */
	return !qpn || get_u32(qpn) < NO_QPN_BELOW;
}

static bool unused_id(uint16_t t)
{
	unsigned int i;

	for (i = 0; i < 4; i++)
		if (unused_ids[i] == t)
			return true;
	return false;
}

/*
 * netlink_rcv_skb() over the datagram, and the model of each message it
 * processes.  Returns false if the datagram would reach a family other
 * than fabtrace (or a root reset that might succeed): not to be sent.
 */
static bool walk(const struct msgbuf *m, struct dgram *d)
{
	size_t o = 0;
	bool dumping = false;

	memset(d, 0, sizeof(*d));
	while (m->len - o >= NLMSG_HDRLEN) {
		const struct nlmsghdr *h = (const void *)(m->b + o);
		struct sub *s = &d->sub[d->n];
		size_t msglen;

		if (h->nlmsg_len < NLMSG_HDRLEN || m->len - o < h->nlmsg_len) {
			d->truncated_tail = true;
			break;
		}
		if (d->n == MAXSUB)
			return false;
		d->n++;
		s->off = (uint32_t)o;
		s->len = h->nlmsg_len;
		s->type = h->nlmsg_type;
		s->flags = h->nlmsg_flags;
		s->seq = h->nlmsg_seq;
		s->e1 = s->e2 = 0;
		if (!(h->nlmsg_flags & NLM_F_REQUEST) || h->nlmsg_type < NLMSG_MIN_TYPE) {
			s->pred = P_ACK;
			strcpy(s->why, h->nlmsg_flags & NLM_F_REQUEST ? "control type" : "not a request");
		} else if (h->nlmsg_type != family) {
			if (!unused_id(h->nlmsg_type))
				return false;
			s->pred = P_ERR;
			s->e1 = ENOENT;
			strcpy(s->why, "no such family");
		} else {
			const struct genlmsghdr *g = (const void *)(h + 1);
			uint16_t fl = h->nlmsg_flags;
			const struct nlattr *tb[32] = {};
			const struct pol *pol = NULL;
			unsigned int maxattr = 0;
			int perr;

			s->family = true;
			if (h->nlmsg_len < HDRS) {
				s->pred = P_ERR;
				s->e1 = EINVAL;
				strcpy(s->why, "genl header cut");
				goto next;
			}
			s->has_genl = true;
			s->gcmd = g->cmd;
			s->cmd = g->cmd >= FABTRACE_CMD_DEV_GET && g->cmd <= FABTRACE_CMD_STATS_GET ?
				 g->cmd : g->cmd == FABTRACE_CMD_POLICY_GET ? 5 :
				 g->cmd == FABTRACE_CMD_POLICY_SET ? 6 :
				 g->cmd == FABTRACE_CMD_PFC_GET ? 7 : 0;
			s->dump = (fl & NLM_F_DUMP) == NLM_F_DUMP;
			if (s->dump)
				fl &= ~NLM_F_DUMP;
			if (g->reserved || (fl & ~(NLM_F_REQUEST | NLM_F_ACK | NLM_F_ECHO))) {
				s->pred = P_ERR;
				s->e1 = EINVAL;
				s->ext = true;
				strcpy(s->why, g->reserved ? "genl reserved" : "nlmsg_flags");
				goto next;
			}
			switch (g->cmd) {
			case FABTRACE_CMD_DEV_GET:
				pol = dev_pol;
				maxattr = FABTRACE_A_DEV_NAME;
				break;
			case FABTRACE_CMD_QP_GET:
				pol = qp_get_pol;
				maxattr = FABTRACE_A_QP_MATCH_FLAGS;
				break;
			case FABTRACE_CMD_QP_RESET:
				if (s->dump) {
					/* 6.12: no dump op; 6.1 checks the
					 * permission before it looks */
					s->pred = P_ERR;
					s->e1 = EOPNOTSUPP;
					s->e2 = privileged ? 0 : EPERM;
					strcpy(s->why, "qp-reset has no dump");
					goto next;
				}
				if (!privileged) {
					s->pred = P_ERR;
					s->e1 = EPERM;
					s->reset_do = true;
					strcpy(s->why, "needs CAP_NET_ADMIN");
					goto next;
				}
				s->reset_do = true;
				pol = qp_reset_pol;
				maxattr = FABTRACE_A_QP_QPN;
				break;
			case FABTRACE_CMD_POLICY_GET:
				pol = policy_get_pol;
				maxattr = FABTRACE_A_POLICY_PORT;
				break;
			case FABTRACE_CMD_PFC_GET:
				pol = pfc_get_pol;
				maxattr = FABTRACE_A_PFC_PORT;
				break;
			case FABTRACE_CMD_POLICY_SET:
				/* as qp-reset: no dump; 6.1 checks the permission first */
				if (s->dump) {
					s->pred = P_ERR;
					s->e1 = EOPNOTSUPP;
					s->e2 = privileged ? 0 : EPERM;
					strcpy(s->why, "policy-set has no dump");
					goto next;
				}
				if (!privileged) {
					s->pred = P_ERR;
					s->e1 = EPERM;
					strcpy(s->why, "needs CAP_NET_ADMIN");
					goto next;
				}
				pol = policy_set_pol;
				maxattr = FABTRACE_A_POLICY_CONFIG;
				s->quiet_ok = true;
				break;
			case FABTRACE_CMD_STATS_GET:
				if (s->dump) {
					s->pred = P_ERR;
					s->e1 = EOPNOTSUPP;
					strcpy(s->why, "stats-get has no dump");
				} else {
					s->pred = h->nlmsg_len > HDRS ? P_UNVALIDATED : P_HANDLER;
					strcpy(s->why, "no policy");
				}
				goto next;
			default:
				s->pred = P_ERR;
				s->e1 = EOPNOTSUPP;
				strcpy(s->why, "no such command");
				goto next;
			}
			/*
			 * A dump still running on the socket (an earlier one of
			 * this datagram, unless it fit in one part) makes
			 * __netlink_dump_start() refuse this one with EBUSY
			 * before the policy is looked at.
			 */
			s->busy_ok = s->dump && dumping;
			perr = model_policy(m->b + o + HDRS, (int)h->nlmsg_len - HDRS,
					    pol, maxattr, tb, s->why);
			if (perr) {
				s->pred = P_ERR;
				s->e1 = -perr;
				s->ext = true;
			} else {
				s->pred = P_HANDLER;
				snprintf(s->why, sizeof(s->why), "handler");
				dumping |= s->dump;
				if (s->reset_do && reset_unsafe(tb))
					return false;
			}
		}
next:
		msglen = NLMSG_ALIGN(h->nlmsg_len);
		if (msglen > m->len - o)
			msglen = m->len - o;
		o += msglen;
	}
	if (o < m->len)
		d->truncated_tail = true;
	return true;
}

/* A root qp-reset that must fail in the handler, from the second stream. */
static void safe_reset(struct msgbuf *m)
{
	struct nlmsghdr *nlh = put_req(m->b, family, FABTRACE_CMD_QP_RESET,
				       rnd(&R2, 2) ? NLM_F_ACK : 0, 1);
	const struct dev *d = &devs[rnd(&R2, ndevs)];
	char name[32];

	switch (rnd(&R2, 6)) {
	case 0:
		snprintf(name, sizeof(name), "nodev%u", rnd(&R2, 1000));
		mnl_attr_put_strz(nlh, FABTRACE_A_QP_DEV_NAME, name);
		if (rnd(&R2, 2))
			mnl_attr_put_u32(nlh, FABTRACE_A_QP_QPN, (uint32_t)rnd64(&R2) & 0xffffff);
		break;
	case 1:
		mnl_attr_put_u32(nlh, FABTRACE_A_QP_DEV_INDEX, max_dev_index + 1 + rnd(&R2, 1000));
		break;
	case 2:
		mnl_attr_put_strz(nlh, FABTRACE_A_QP_DEV_NAME, d->name);
		mnl_attr_put_u32(nlh, FABTRACE_A_QP_QPN, NO_QPN_BELOW + rnd(&R2, 0x800000));
		break;
	case 3:
		mnl_attr_put_u32(nlh, FABTRACE_A_QP_DEV_INDEX, d->index);
		mnl_attr_put_strz(nlh, FABTRACE_A_QP_DEV_NAME, d->name);
		mnl_attr_put_u32(nlh, FABTRACE_A_QP_QPN, 0x1000000 + rnd(&R2, 0xff000000u));
		break;
	case 4:
		mnl_attr_put_u32(nlh, FABTRACE_A_QP_QPN, rnd(&R2, 0x1000));
		break;
	default:
		mnl_attr_put_u32(nlh, FABTRACE_A_QP_DEV_INDEX, d->index + 1000);
		mnl_attr_put_strz(nlh, FABTRACE_A_QP_DEV_NAME, d->name);
		break;
	}
	m->len = nlh->nlmsg_len;
}

/* One datagram: a template, mutated, sometimes several messages. */
static void generate(struct msgbuf *m, struct dgram *d)
{
	unsigned int tries;

	for (tries = 0; tries < 50; tries++) {
		unsigned int k;

		build_template(m, false);
		if (!chance(&R, 25)) {
			k = 1 + rnd(&R, 4);
			while (k--)
				mutate_once(m);
		}
		if (m->len >= NLMSG_HDRLEN && chance(&R, 5)) {	/* more messages */
			struct msgbuf *m2 = malloc(sizeof(*m2));

			k = 1 + rnd(&R, 3);
			while (m2 && k--) {
				build_template(m2, false);
				if (chance(&R, 60))
					mutate_once(m2);
				if (m->len % 4 && chance(&R, 80))
					m->len += 4 - m->len % 4;	/* NLMSG_ALIGN */
				if (m->len + m2->len <= MAXMSG) {
					memcpy(m->b + m->len, m2->b, m2->len);
					m->len += m2->len;
				}
			}
			free(m2);
		}
		if (walk(m, d))
			return;
		/* a root reset that might succeed: from the second stream */
		if (privileged) {
			bool reset = false;
			unsigned int i;

			/* walk() stopped early: find whether a reset was why */
			for (i = 0; i < d->n; i++)
				reset |= d->sub[i].reset_do;
			if (reset) {
				safe_reset(m);
				C.reset_rewritten++;
				if (walk(m, d))
					return;
			}
		}
		C.regenerated++;
	}
	/* cannot happen in practice: a plain stats-get */
	m->len = put_req(m->b, family, FABTRACE_CMD_STATS_GET, NLM_F_ACK, 1)->nlmsg_len;
	walk(m, d);
}

/* ---- answers ------------------------------------------------------------------------------- */

static void parse_tlvs(struct sub *s, const struct nlattr *a, const uint8_t *end)
{
	while ((const uint8_t *)a + 4 <= end && a->nla_len >= 4 &&
	       (const uint8_t *)a + a->nla_len <= end) {
		if ((a->nla_type & NLA_TYPE_MASK) == NLMSGERR_ATTR_MSG && a->nla_len > 4) {
			s->extack = true;
			snprintf(s->extmsg, sizeof(s->extmsg), "%.*s",
				 (int)a->nla_len - 4, (const char *)a + 4);
		}
		a = (const void *)((const uint8_t *)a + NLA_ALIGN(a->nla_len));
	}
}

/* The first unanswered processed message with that seq. */
/*
 * The sub-message an answer belongs to.  Mutations duplicate messages, so
 * a sequence number can recur in a datagram: one that expects an answer
 * comes first (a control message without NLM_F_ACK expects none), then
 * any, so an answer to a message that needed none is still caught.
 */
static bool expects_answer(const struct sub *s)
{
	return s->pred != P_NONE && (s->pred != P_ACK || (s->flags & NLM_F_ACK));
}

static struct sub *match(struct dgram *d, uint32_t seq)
{
	unsigned int i, pass;

	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < d->n; i++)
			if (d->sub[i].seq == seq && !d->sub[i].final &&
			    (pass || expects_answer(&d->sub[i])))
				return &d->sub[i];
	return NULL;
}

static void answer(struct dgram *d, const struct nlmsghdr *h, bool cap_ack)
{
	struct sub *s = match(d, h->nlmsg_seq);
	const uint8_t *end = (const uint8_t *)h + h->nlmsg_len;

	if (!s) {
		C.stray++;
		failure("answer to nothing: type %u flags %#x seq %u len %u",
			h->nlmsg_type, h->nlmsg_flags, h->nlmsg_seq, h->nlmsg_len);
		return;
	}
	if (h->nlmsg_type == NLMSG_ERROR) {
		const struct nlmsgerr *e = mnl_nlmsg_get_payload(h);
		size_t off = NLMSG_HDRLEN + sizeof(*e);

		if (h->nlmsg_len < off) {
			failure("short NLMSG_ERROR (%u bytes)", h->nlmsg_len);
			s->final = true;
			return;
		}
		/* errors echo the request unless NETLINK_CAP_ACK; acks never */
		if (!(h->nlmsg_flags & NLM_F_CAPPED))
			off += e->msg.nlmsg_len >= NLMSG_HDRLEN ?
			       NLMSG_ALIGN(e->msg.nlmsg_len) - NLMSG_HDRLEN : 0;
		else if (!cap_ack && e->error)
			failure("error capped on a socket without NETLINK_CAP_ACK");
		if (e->msg.nlmsg_seq != s->seq || e->msg.nlmsg_type != s->type)
			failure("error echoes type %u seq %u, sent type %u seq %u",
				e->msg.nlmsg_type, e->msg.nlmsg_seq, s->type, s->seq);
		s->err = -e->error;
		if (h->nlmsg_flags & NLM_F_ACK_TLVS)
			parse_tlvs(s, (const void *)((const uint8_t *)h + off), end);
		s->final = true;
		s->ack_seen = true;
		return;
	}
	if (h->nlmsg_type == NLMSG_DONE) {
		int err = 0;

		if (h->nlmsg_len >= NLMSG_HDRLEN + 4)
			memcpy(&err, mnl_nlmsg_get_payload(h), 4);
		s->err = -err;
		if (h->nlmsg_flags & NLM_F_DUMP_INTR)
			C.dump_intr++;
		if (h->nlmsg_flags & NLM_F_ACK_TLVS)
			parse_tlvs(s, (const void *)((const uint8_t *)h + NLMSG_HDRLEN + 4), end);
		s->final = true;
		s->done_seen = true;
		return;
	}
	if (h->nlmsg_type != family)
		failure("reply of type %u to seq %u", h->nlmsg_type, h->nlmsg_seq);
	s->data = true;
	if (h->nlmsg_flags & NLM_F_MULTI) {
		s->multi = true;
		if (h->nlmsg_flags & NLM_F_DUMP_INTR)
			C.dump_intr++;
	} else if (!(s->flags & NLM_F_ACK)) {
		s->final = true;	/* a do's reply, no ack asked for */
	}
}

static unsigned int errslot(int e)
{
	return e > 0 && e < 255 ? (unsigned int)e : 255;
}

/* Read everything the datagram got; 0, or -1 on a socket error. */
static int read_answers(struct sock *s, struct dgram *d)
{
	static uint8_t rbuf[RCVLEN_BIG];
	bool waited = false;

	for (;;) {
		const struct nlmsghdr *h;
		unsigned int i;
		bool pending = false;
		int n = (int)recv(s->fd, rbuf, s->rcvlen, MSG_DONTWAIT | MSG_TRUNC);

		if (n < 0 && errno == EAGAIN) {
			for (i = 0; i < d->n; i++) {
				const struct sub *x = &d->sub[i];

				if (!x->final && (x->pred != P_ACK || (x->flags & NLM_F_ACK)) &&
				    !(x->pred == P_HANDLER && x->data && !x->multi))
					pending = true;
			}
			/* everything is queued by now; one look later, to be sure */
			if (!pending || waited)
				return 0;
			waited = true;
			poll(&(struct pollfd){ .fd = s->fd, .events = POLLIN }, 1, 200);
			continue;
		}
		if (n < 0) {
			C.sock_err++;
			failure("recv: %s", strerror(errno));
			return -1;
		}
		if ((unsigned int)n > s->rcvlen) {
			C.truncated_read++;
			failure("answer of %d bytes truncated to %u", n, s->rcvlen);
			n = (int)s->rcvlen;
		}
		for (h = (void *)rbuf; mnl_nlmsg_ok(h, n); h = mnl_nlmsg_next(h, &n))
			answer(d, h, s->cap_ack);
		for (i = 0; i < d->n; i++)
			if (d->sub[i].multi)
				d->sub[i].parts++;
	}
}

static void judge(struct dgram *d)
{
	unsigned int i;

	for (i = 0; i < d->n; i++) {
		struct sub *s = &d->sub[i];
		unsigned int dd = s->dump ? 1 : 0, cls;
		char where[96];

		C.processed++;
		if (s->dump && s->family && s->has_genl) {
			C.dumps_requested++;
			if (s->multi || s->done_seen)
				C.dumps_started++;
		}
		if (s->multi)
			C.dump_parts += s->parts;
		if (!s->final) {
			if (s->pred == P_ACK && !(s->flags & NLM_F_ACK)) {
				C.silent++;		/* not a request: nothing due */
				continue;
			}
			if (s->quiet_ok && s->pred == P_HANDLER && !(s->flags & NLM_F_ACK)) {
				C.silent++;		/* a set that succeeded */
				continue;
			}
			if (s->data && s->multi) {
				C.undone++;
				failure("dump (cmd %u) ended without NLMSG_DONE", s->gcmd);
			} else {
				C.no_answer++;
				failure("no answer to type %u flags %#x cmd %u seq %u (%s)",
					s->type, s->flags, s->gcmd, s->seq, s->why);
			}
			if (s->family)
				C.per_cmd[s->cmd][dd][2]++;
			continue;
		}
		if (s->pred == P_ACK && !(s->flags & NLM_F_ACK)) {
			failure("answer to a non-request without NLM_F_ACK");
			continue;
		}
		if (s->dump && s->done_seen && !s->err)
			C.dumps_done++;
		if (!s->err) {
			C.ok++;
			cls = 0;
		} else {
			C.errno_all[errslot(s->err)]++;
			if (s->extack) {
				C.err_extack++;
			} else {
				C.err_noext++;
				C.errno_noext[errslot(s->err)]++;
			}
			cls = 1;
		}
		if (s->family)
			C.per_cmd[s->cmd][dd][cls]++;

		switch (s->pred) {
		case P_NONE:
			break;
		case P_ACK:
			if (s->err)
				failure("error %d to a %s", s->err, s->why);
			break;
		case P_ERR:
			if (s->busy_ok && s->err == EBUSY) {
				C.busy++;
			} else if (s->err != s->e1 && (!s->e2 || s->err != s->e2)) {
				C.mismatch++;
				failure("cmd %u%s: answer %d (%s), expected %d%s (%s)", s->gcmd,
					s->dump ? " dump" : "", s->err, s->extmsg, s->e1,
					s->e2 ? " or EPERM" : "", s->why);
			} else if (s->err == EBUSY) {
				C.busy++;
			} else if (s->ext && !s->extack) {
				C.mismatch++;
				failure("cmd %u: %d without extack (%s)", s->gcmd, s->err, s->why);
			}
			if (s->ext && s->err == s->e1 && s->extack)
				C.policy_reject++;
			if (!strcmp(s->why, "genl header cut"))
				C.genl_short++;
			break;
		case P_UNVALIDATED:
			/* 6.12: accepted; 6.1: genetlink's reject-all policy */
			if (!s->err) {
				C.unvalidated_accepted++;
			} else if (s->err == EINVAL && s->extack) {
				C.policy_reject++;
			} else {
				C.mismatch++;
				failure("stats-get with attributes: %d%s", s->err,
					s->extack ? "" : " without extack");
			}
			break;
		case P_HANDLER:
			if ((s->err == EINVAL || s->err == ERANGE) && !s->extack) {
				C.handler_einval_noext++;
				snprintf(where, sizeof(where), "%s%s errno %d",
					 cmd_names[s->cmd], s->dump ? " dump" : "", s->err);
				note_where(where);
				failure("%s: %d without extack", where, s->err);
			}
			break;
		}
		if (s->reset_do) {
			if (!privileged) {
				if (s->err == EPERM)
					C.reset_eperm++;
				else if (s->pred == P_ERR && s->e1 == EPERM)
					C.reset_not_eperm++;
			} else if (!s->err) {
				C.reset_ok_root++;
				failure("root qp-reset succeeded: the filter let one through");
			}
		}
	}
}

static int fuzz_one(struct sock *s)
{
	static struct msgbuf m;
	static struct dgram d;

	generate(&m, &d);
	cur_dgram = m.b;
	cur_dgram_len = m.len;
	C.datagrams++;
	C.bytes += m.len;
	if (d.n > 1)
		C.multi_datagrams++;
	if (d.truncated_tail && !d.n)
		C.dropped++;
	if (send(s->fd, m.b, m.len, 0) < 0 && m.len) {
		/* netlink refuses nothing it can copy; an empty one is fine */
		failure("send(%zu): %s", m.len, strerror(errno));
		return -1;
	}
	if (read_answers(s, &d))
		return -1;
	judge(&d);
	cur_dgram = NULL;
	return 0;
}

/* ---- interleaved and abandoned dumps -------------------------------------------------------- */

static int dump_episode(void)
{
	struct {
		struct sock s;
		struct msgbuf m;
		struct dgram d;
		unsigned int abandon_after;	/* parts; 0 = read to the end */
		bool live;
	} *x;
	unsigned int n = 2 + rnd(&R, 3), i, live;
	int rc = 0;

	x = calloc(n, sizeof(*x));
	if (!x)
		return -1;
	for (i = 0; i < n; i++) {
		if (sock_open(&x[i].s, RCVLEN_SMALL, true)) {
			failure("socket: %s", strerror(errno));
			rc = -1;
			goto out;
		}
		if (chance(&R, 50)) {	/* everything: many parts */
			struct nlmsghdr *nlh = put_req(x[i].m.b, family,
				chance(&R, 80) ? FABTRACE_CMD_QP_GET : FABTRACE_CMD_DEV_GET,
				NLM_F_DUMP | (chance(&R, 50) ? NLM_F_ACK : 0), 1);

			x[i].m.len = nlh->nlmsg_len;
		} else {
			build_template(&x[i].m, true);
			if (chance(&R, 20))
				mutate_once(&x[i].m);
		}
		if (!walk(&x[i].m, &x[i].d)) {
			/* a dump never resets; but the walk may refuse others */
			x[i].m.len = put_req(x[i].m.b, family, FABTRACE_CMD_QP_GET,
					     NLM_F_DUMP | NLM_F_ACK, 1)->nlmsg_len;
			walk(&x[i].m, &x[i].d);
		}
		x[i].abandon_after = chance(&R, 50) ? 1 + rnd(&R, 3) : 0;
	}
	/* start them all, then read one part of each in turn */
	for (i = 0; i < n; i++) {
		C.datagrams++;
		C.bytes += x[i].m.len;
		if (send(x[i].s.fd, x[i].m.b, x[i].m.len, 0) < 0 && x[i].m.len) {
			failure("send: %s", strerror(errno));
			rc = -1;
			goto out;
		}
		x[i].live = true;
	}
	C.dumps_interleaved++;
	do {
		live = 0;
		for (i = 0; i < n; i++) {
			static uint8_t rbuf[RCVLEN_SMALL];
			const struct nlmsghdr *h;
			struct dgram *d = &x[i].d;
			unsigned int j;
			bool open = false;
			int len;

			if (!x[i].live)
				continue;
			cur_dgram = x[i].m.b;
			cur_dgram_len = x[i].m.len;
			len = (int)recv(x[i].s.fd, rbuf, sizeof(rbuf), MSG_DONTWAIT | MSG_TRUNC);
			if (len < 0 && errno == EAGAIN) {
				x[i].live = false;
				judge(d);
				continue;
			}
			if (len < 0) {
				failure("recv: %s", strerror(errno));
				x[i].live = false;
				continue;
			}
			if ((unsigned int)len > sizeof(rbuf)) {
				C.truncated_read++;
				failure("dump part of %d bytes", len);
				len = sizeof(rbuf);
			}
			for (h = (void *)rbuf; mnl_nlmsg_ok(h, len); h = mnl_nlmsg_next(h, &len))
				answer(d, h, true);
			for (j = 0; j < d->n; j++) {
				if (d->sub[j].multi)
					d->sub[j].parts++;
				if (d->sub[j].multi && !d->sub[j].final)
					open = true;
			}
			if (open && x[i].abandon_after &&
			    d->sub[0].parts >= x[i].abandon_after) {
				/* close it in the middle of the dump */
				C.dumps_abandoned++;
				C.dumps_requested++;
				C.dumps_started++;
				C.processed++;
				C.dump_parts += d->sub[0].parts;
				sock_close(&x[i].s);
				x[i].live = false;
				continue;
			}
			live++;
		}
	} while (live);
out:
	cur_dgram = NULL;
	for (i = 0; i < n; i++)
		sock_close(&x[i].s);
	free(x);
	return rc;
}

/* ---- main ------------------------------------------------------------------------------------- */

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static void print_hist(const char *key, const uint64_t *h)
{
	unsigned int e;
	bool first = true;

	printf("\"%s\":{", key);
	for (e = 1; e < 256; e++) {
		if (!h[e])
			continue;
		printf("%s\"%s\":%llu", first ? "" : ",",
		       e == 255 ? "other" : strerrorname_np((int)e) ?: "?",
		       (unsigned long long)h[e]);
		first = false;
	}
	printf("}");
}

static void summary(const char *kver, uint64_t seed, uid_t uid, double el)
{
	unsigned int c, i;

	printf("{\"prog\":\"nl_fuzz\",\"kernel\":\"%s\",\"uid\":%u,\"privileged\":%s,"
	       "\"seed\":%llu,\"sent\":%llu,\"bytes\":%llu,\"processed\":%llu,"
	       "\"multi_datagrams\":%llu,",
	       kver, (unsigned int)uid, privileged ? "true" : "false",
	       (unsigned long long)seed, (unsigned long long)C.datagrams,
	       (unsigned long long)C.bytes, (unsigned long long)C.processed,
	       (unsigned long long)C.multi_datagrams);
	printf("\"replies\":{\"ok\":%llu,\"err_extack\":%llu,\"err_noext\":%llu,"
	       "\"no_answer\":%llu,\"not_a_request\":%llu,\"dropped_truncated\":%llu},",
	       (unsigned long long)C.ok, (unsigned long long)C.err_extack,
	       (unsigned long long)C.err_noext, (unsigned long long)C.no_answer,
	       (unsigned long long)C.silent, (unsigned long long)C.dropped);
	print_hist("errno", C.errno_all);
	printf(",");
	print_hist("errno_noext", C.errno_noext);
	printf(",\"per_cmd\":{");
	for (c = 0; c < NCMD; c++)
		printf("%s\"%s\":{\"do\":[%llu,%llu,%llu],\"dump\":[%llu,%llu,%llu]}",
		       c ? "," : "", cmd_names[c],
		       (unsigned long long)C.per_cmd[c][0][0], (unsigned long long)C.per_cmd[c][0][1],
		       (unsigned long long)C.per_cmd[c][0][2], (unsigned long long)C.per_cmd[c][1][0],
		       (unsigned long long)C.per_cmd[c][1][1], (unsigned long long)C.per_cmd[c][1][2]);
	printf("},\"policy_reject\":%llu,\"genl_short_einval_noext\":%llu,"
	       "\"einval_noext\":%llu,\"einval_noext_where\":[",
	       (unsigned long long)C.policy_reject, (unsigned long long)C.genl_short,
	       (unsigned long long)C.handler_einval_noext);
	for (i = 0; i < n_einval_where; i++)
		printf("%s\"%s\"", i ? "," : "", einval_where[i]);
	printf("],\"unvalidated_accepted\":{\"stats-get\":%llu},",
	       (unsigned long long)C.unvalidated_accepted);
	printf("\"reset\":{\"eperm\":%llu,\"not_eperm\":%llu,\"ok_as_root\":%llu,"
	       "\"rewritten\":%llu},",
	       (unsigned long long)C.reset_eperm, (unsigned long long)C.reset_not_eperm,
	       (unsigned long long)C.reset_ok_root, (unsigned long long)C.reset_rewritten);
	printf("\"dumps\":{\"requested\":%llu,\"started\":%llu,\"completed\":%llu,\"abandoned\":%llu,"
	       "\"interleaved_episodes\":%llu,\"parts\":%llu,\"intr\":%llu,\"unterminated\":%llu,\"ebusy\":%llu},",
	       (unsigned long long)C.dumps_requested,
	       (unsigned long long)C.dumps_started, (unsigned long long)C.dumps_done,
	       (unsigned long long)C.dumps_abandoned, (unsigned long long)C.dumps_interleaved,
	       (unsigned long long)C.dump_parts, (unsigned long long)C.dump_intr,
	       (unsigned long long)C.undone, (unsigned long long)C.busy);
	printf("\"stray\":%llu,\"mismatch\":%llu,\"truncated_reads\":%llu,\"socket_errors\":%llu,"
	       "\"regenerated\":%llu,\"failures\":%llu,\"elapsed_s\":%.2f,\"msgs_per_s\":%.0f}\n",
	       (unsigned long long)C.stray, (unsigned long long)C.mismatch,
	       (unsigned long long)C.truncated_read, (unsigned long long)C.sock_err,
	       (unsigned long long)C.regenerated, (unsigned long long)C.failures, el,
	       el > 0 ? C.datagrams / el : 0.0);
	fflush(stdout);
}

static void usage(void)
{
	fprintf(stderr, "usage: nl_fuzz [--seed S] [--count N] [--uid U] [--time-limit SECS] [-v]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "count", required_argument, NULL, 'n' },
		{ "uid", required_argument, NULL, 'u' },
		{ "time-limit", required_argument, NULL, 't' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	uint64_t seed = 1, count = 10000, i;
	double t0, limit = 0;
	long uid = -1;
	struct sock s0, s1, setup_sk;
	struct utsname u;
	int c;

	while ((c = getopt_long(argc, argv, "s:n:u:t:vh", opts, NULL)) != -1) {
		switch (c) {
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'n': count = strtoull(optarg, NULL, 0); break;
		case 'u': uid = strtol(optarg, NULL, 0); break;
		case 't': limit = strtod(optarg, NULL); break;
		case 'v': verbose++; break;
		default: usage();
		}
	}
	if (optind != argc)
		usage();
	if (uid >= 0) {
		gid_t g = (gid_t)uid;

		/* before any socket: everything is opened as that user */
		if (setgroups(0, NULL) || setresgid(g, g, g) ||
		    setresuid((uid_t)uid, (uid_t)uid, (uid_t)uid)) {
			fprintf(stderr, "nl_fuzz: cannot become uid %ld: %s\n", uid, strerror(errno));
			return 1;
		}
	}
	/* what the kernel's netlink_capable() will say: uid 0 with its caps */
	privileged = geteuid() == 0;
	R.s = seed;
	R2.s = seed ^ 0x5eed5eed5eed5eedull;
	uname(&u);

	if (sock_open(&s0, RCVLEN_SMALL, true) || sock_open(&s1, RCVLEN_BIG, false)) {
		fprintf(stderr, "nl_fuzz: socket: %s\n", strerror(errno));
		return 1;
	}
	/* its own socket: big reads would make s0's dump parts big */
	if (sock_open(&setup_sk, RCVLEN_BIG, true) || setup(&setup_sk))
		return 1;
	sock_close(&setup_sk);
	t0 = now();
	for (i = 0; i < count; i++) {
		int rc;

		if (limit > 0 && (i & 63) == 0 && now() - t0 > limit)
			break;
		if (chance(&R, 2))
			rc = dump_episode();	/* its datagrams count themselves */
		else
			rc = fuzz_one(chance(&R, 10) ? &s1 : &s0);
		if (rc)
			break;
		if (C.datagrams >= count)
			break;
	}
	summary(u.release, seed, geteuid(), now() - t0);
	sock_close(&s0);
	sock_close(&s1);
	return C.failures ? 1 : 0;
}
