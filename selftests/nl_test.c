// SPDX-License-Identifier: GPL-2.0
/* The fabtrace netlink protocol, raw: policies, extack, dumps, permissions. */
/*
 * Talks libmnl directly, not through the CLI, so it can send what the CLI
 * never would.  Needs fabtrace loaded and an rxe device (it makes rxe0 on
 * FT_NETDEV if there is none).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <infiniband/verbs.h>

#include "kselftest_harness.h"

#include <linux/fabtrace.h>

struct nl {
	struct mnl_socket *sk;
	uint16_t family;
	uint32_t seq;
	char buf[1 << 16];
	unsigned int rcvlen;		/* what each recvmsg() asks for */
	/* the last reply */
	int err;
	char extack[256];
	uint32_t bad_attr_off;
};

static int ctrl_attr_cb(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;

	if (mnl_attr_type_valid(a, CTRL_ATTR_MAX) > 0)
		tb[mnl_attr_get_type(a)] = a;
	return MNL_CB_OK;
}

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[CTRL_ATTR_MAX + 1] = {};

	mnl_attr_parse(nlh, sizeof(struct genlmsghdr), ctrl_attr_cb, tb);
	if (!tb[CTRL_ATTR_FAMILY_ID] || !tb[CTRL_ATTR_VERSION])
		return MNL_CB_ERROR;
	if (mnl_attr_get_u32(tb[CTRL_ATTR_VERSION]) != FABTRACE_FAMILY_VERSION)
		return MNL_CB_ERROR;
	*(uint16_t *)data = mnl_attr_get_u16(tb[CTRL_ATTR_FAMILY_ID]);
	return MNL_CB_OK;
}

static struct nlmsghdr *msg(struct nl *nl, uint16_t type, uint8_t cmd,
			    uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(nl->buf);
	struct genlmsghdr *g;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	nlh->nlmsg_seq = ++nl->seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = type == GENL_ID_CTRL ? 1 : FABTRACE_FAMILY_VERSION;
	return nlh;
}

/* Parse NLMSG_ERROR's extended ack. */
static void note_error(struct nl *nl, const struct nlmsghdr *nlh)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a;
	unsigned int off = sizeof(*e);

	nl->err = -e->error;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += mnl_nlmsg_get_payload_len(&e->msg);
	mnl_attr_for_each(a, nlh, off) {
		if (mnl_attr_get_type(a) == NLMSGERR_ATTR_MSG)
			snprintf(nl->extack, sizeof(nl->extack), "%s",
				 mnl_attr_get_str(a));
		if (mnl_attr_get_type(a) == NLMSGERR_ATTR_OFFS)
			nl->bad_attr_off = mnl_attr_get_u32(a);
	}
}

typedef int (*msg_cb)(const struct nlmsghdr *nlh, void *data);

/*
 * Send @nlh and read until the ack or the dump's end; call @cb for data
 * messages.  With @between, call it after each datagram (to change the
 * kernel's state in the middle of a dump).  Return 0 or an errno.
 */
static int xfer(struct nl *nl, struct nlmsghdr *nlh, msg_cb cb, void *data,
		void (*between)(void *), void *bdata, int *intr)
{
	static char rbuf[1 << 16];
	uint32_t seq = nlh->nlmsg_seq;
	int n;

	nl->err = 0;
	nl->extack[0] = 0;
	nl->bad_attr_off = 0;
	if (mnl_socket_sendto(nl->sk, nlh, nlh->nlmsg_len) < 0)
		return errno;
	for (;;) {
		const struct nlmsghdr *h;

		n = mnl_socket_recvfrom(nl->sk, rbuf, nl->rcvlen);
		if (n < 0)
			return errno;
		for (h = (void *)rbuf; mnl_nlmsg_ok(h, n); h = mnl_nlmsg_next(h, &n)) {
			if (h->nlmsg_seq != seq)
				continue;
			if (intr && (h->nlmsg_flags & NLM_F_DUMP_INTR))
				*intr = 1;
			if (h->nlmsg_type == NLMSG_ERROR) {
				note_error(nl, h);
				return nl->err;
			}
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (cb && cb(h, data) != MNL_CB_OK)
				return EPROTO;
		}
		if (between)
			between(bdata);
	}
}

static int nl_open(struct nl *nl, int rcvbuf)
{
	struct nlmsghdr *nlh;
	int one = 1;

	memset(nl, 0, sizeof(*nl));
	/*
	 * The kernel sizes dump messages by the largest recvmsg() buffer it
	 * has seen: a small one makes a dump span many messages.
	 */
	nl->rcvlen = rcvbuf ? rcvbuf : 1 << 16;
	nl->sk = mnl_socket_open(NETLINK_GENERIC);
	if (!nl->sk || mnl_socket_bind(nl->sk, 0, MNL_SOCKET_AUTOPID))
		return -1;
	mnl_socket_setsockopt(nl->sk, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl->sk, NETLINK_CAP_ACK, &one, sizeof(one));
	nlh = msg(nl, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 0);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, FABTRACE_FAMILY_NAME);
	return xfer(nl, nlh, family_cb, &nl->family, NULL, NULL, NULL) ? -1 : 0;
}

/* --- what the kernel says about QPs -------------------------------------- */

struct qp_rec {
	uint32_t qpn;
	uint64_t tx_pkts;
};

struct qp_list {
	struct qp_rec q[8192];
	unsigned int n;
	unsigned int msgs;
};

static int qp_attr_cb(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;

	if (mnl_attr_type_valid(a, FABTRACE_A_QP_MAX) > 0)
		tb[mnl_attr_get_type(a)] = a;
	return MNL_CB_OK;
}

static int traffic_cb(const struct nlattr *a, void *data)
{
	if (mnl_attr_get_type(a) == FABTRACE_A_TRAFFIC_PACKETS)
		*(uint64_t *)data = mnl_attr_get_u64(a);
	return MNL_CB_OK;
}

static int qp_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[FABTRACE_A_QP_MAX + 1] = {};
	struct qp_list *l = data;
	struct qp_rec *r;

	mnl_attr_parse(nlh, sizeof(struct genlmsghdr), qp_attr_cb, tb);
	if (!tb[FABTRACE_A_QP_QPN] || l->n == 8192)
		return MNL_CB_ERROR;
	r = &l->q[l->n++];
	r->qpn = mnl_attr_get_u32(tb[FABTRACE_A_QP_QPN]);
	r->tx_pkts = 0;
	if (tb[FABTRACE_A_QP_TX])
		mnl_attr_parse_nested(tb[FABTRACE_A_QP_TX], traffic_cb, &r->tx_pkts);
	l->msgs++;
	return MNL_CB_OK;
}

/* --- verbs, to change the table in the middle of a dump ------------------ */

struct verbs {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp[4096];
	unsigned int n;
};

static int verbs_open(struct verbs *v)
{
	struct ibv_device **list = ibv_get_device_list(NULL);

	memset(v, 0, sizeof(*v));
	if (!list || !list[0])
		return -1;
	v->ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	if (!v->ctx)
		return -1;
	v->pd = ibv_alloc_pd(v->ctx);
	v->cq = ibv_create_cq(v->ctx, 16, NULL, NULL, 0);
	return v->pd && v->cq ? 0 : -1;
}

static void verbs_qp(void *data)
{
	struct verbs *v = data;
	struct ibv_qp_init_attr a = {
		.send_cq = v->cq, .recv_cq = v->cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	if (v->n < 4096)
		v->qp[v->n] = ibv_create_qp(v->pd, &a);
	if (v->qp[v->n])
		v->n++;
}

static void verbs_close(struct verbs *v)
{
	while (v->n)
		ibv_destroy_qp(v->qp[--v->n]);
	if (v->cq)
		ibv_destroy_cq(v->cq);
	if (v->pd)
		ibv_dealloc_pd(v->pd);
	if (v->ctx)
		ibv_close_device(v->ctx);
}

static char dev_name[64];

static void ensure_rxe(void)
{
	char cmd[256];
	const char *nic = getenv("FT_NETDEV");

	if (!system("rdma -j link show | grep -q '\"ifname\"'"))
		goto name;
	if (!nic)
		return;
	snprintf(cmd, sizeof(cmd),
		 "modprobe -a rdma_rxe ib_uverbs && rdma link add rxe0 type rxe netdev %s",
		 nic);
	if (system(cmd))
		return;
name:
	{
		FILE *f = popen("rdma -j link show | python3 -c "
				"'import json,sys; print(json.load(sys.stdin)[0][\"ifname\"])'", "r");

		if (f && fgets(dev_name, sizeof(dev_name), f))
			dev_name[strcspn(dev_name, "\n")] = 0;
		if (f)
			pclose(f);
	}
}

/* ------------------------------------------------------------------------- */

FIXTURE(nl) {
	struct nl nl;
};

FIXTURE_SETUP(nl)
{
	if (nl_open(&self->nl, 0) && (system("modprobe fabtrace") ||
				      nl_open(&self->nl, 0)))
		SKIP(return, "fabtrace family not found and modprobe failed");
	if (!dev_name[0])
		ensure_rxe();
	if (!dev_name[0])
		SKIP(return, "no RDMA device and FT_NETDEV unset");
}

FIXTURE_TEARDOWN(nl)
{
	if (self->nl.sk)
		mnl_socket_close(self->nl.sk);
}

TEST_F(nl, unknown_attribute_is_rejected_with_extack)
{
	struct nlmsghdr *nlh = msg(&self->nl, self->nl.family,
				   FABTRACE_CMD_DEV_GET, 0);

	mnl_attr_put_strz(nlh, FABTRACE_A_DEV_NAME, dev_name);
	mnl_attr_put_u32(nlh, FABTRACE_A_DEV_MAX + 1, 1);
	EXPECT_EQ(EINVAL, xfer(&self->nl, nlh, NULL, NULL, NULL, NULL, NULL));
	EXPECT_NE(0, self->nl.extack[0]);
	TH_LOG("extack: %s", self->nl.extack);
	EXPECT_NE(0, self->nl.bad_attr_off);
}

/* No request attributes: 6.12's split ops parse none, so the doit checks. */
TEST_F(nl, stats_get_rejects_any_attribute_with_extack)
{
	struct nlmsghdr *nlh = msg(&self->nl, self->nl.family,
				   FABTRACE_CMD_STATS_GET, 0);

	mnl_attr_put_u32(nlh, 1, 0);
	EXPECT_EQ(EINVAL, xfer(&self->nl, nlh, NULL, NULL, NULL, NULL, NULL));
	EXPECT_NE(0, self->nl.extack[0]);
	TH_LOG("extack: %s", self->nl.extack);
	nlh = msg(&self->nl, self->nl.family, FABTRACE_CMD_STATS_GET, 0);
	EXPECT_EQ(0, xfer(&self->nl, nlh, NULL, NULL, NULL, NULL, NULL));
}

TEST_F(nl, attribute_of_the_wrong_type_is_rejected)
{
	struct nlmsghdr *nlh = msg(&self->nl, self->nl.family,
				   FABTRACE_CMD_DEV_GET, 0);

	mnl_attr_put_u8(nlh, FABTRACE_A_DEV_INDEX, 1);	/* a u32 */
	EXPECT_EQ(EINVAL, xfer(&self->nl, nlh, NULL, NULL, NULL, NULL, NULL));
	EXPECT_NE(0, self->nl.bad_attr_off);
}

TEST_F(nl, qpn_beyond_24_bits_is_out_of_range)
{
	struct nlmsghdr *nlh = msg(&self->nl, self->nl.family,
				   FABTRACE_CMD_QP_GET, 0);

	mnl_attr_put_strz(nlh, FABTRACE_A_QP_DEV_NAME, dev_name);
	mnl_attr_put_u32(nlh, FABTRACE_A_QP_QPN, 0x1000000);
	EXPECT_EQ(EINVAL, xfer(&self->nl, nlh, NULL, NULL, NULL, NULL, NULL));
	EXPECT_NE(0, self->nl.extack[0]);
	TH_LOG("extack: %s", self->nl.extack);
}

TEST_F(nl, reset_checks_the_qpn)
{
	struct nlmsghdr *nlh = msg(&self->nl, self->nl.family,
				   FABTRACE_CMD_QP_RESET, 0);

	mnl_attr_put_strz(nlh, FABTRACE_A_QP_DEV_NAME, dev_name);
	mnl_attr_put_u32(nlh, FABTRACE_A_QP_QPN, 0x1000000);
	EXPECT_EQ(EINVAL, xfer(&self->nl, nlh, NULL, NULL, NULL, NULL, NULL));
	EXPECT_STREQ("QP numbers are 24 bits", self->nl.extack);

	/* a filter of qp-get is no attribute of qp-reset */
	nlh = msg(&self->nl, self->nl.family, FABTRACE_CMD_QP_RESET, 0);
	mnl_attr_put_strz(nlh, FABTRACE_A_QP_DEV_NAME, dev_name);
	mnl_attr_put_u32(nlh, FABTRACE_A_QP_QPN_MIN, 1);
	EXPECT_EQ(EINVAL, xfer(&self->nl, nlh, NULL, NULL, NULL, NULL, NULL));
	EXPECT_NE(0, self->nl.bad_attr_off);

	/* one QP that exists: QP 1, the GSI QP */
	nlh = msg(&self->nl, self->nl.family, FABTRACE_CMD_QP_RESET, 0);
	mnl_attr_put_strz(nlh, FABTRACE_A_QP_DEV_NAME, dev_name);
	mnl_attr_put_u32(nlh, FABTRACE_A_QP_QPN, 1);
	EXPECT_EQ(0, xfer(&self->nl, nlh, NULL, NULL, NULL, NULL, NULL));
}

TEST_F(nl, unknown_match_flags_are_rejected)
{
	struct nlmsghdr *nlh = msg(&self->nl, self->nl.family,
				   FABTRACE_CMD_QP_GET, NLM_F_DUMP);

	mnl_attr_put_u32(nlh, FABTRACE_A_QP_MATCH_FLAGS, 0x100);
	EXPECT_EQ(EINVAL, xfer(&self->nl, nlh, NULL, NULL, NULL, NULL, NULL));
	TH_LOG("extack: %s", self->nl.extack);
}

TEST_F(nl, dump_filter_in_a_do_request_is_rejected)
{
	struct nlmsghdr *nlh = msg(&self->nl, self->nl.family,
				   FABTRACE_CMD_QP_GET, 0);

	mnl_attr_put_strz(nlh, FABTRACE_A_QP_DEV_NAME, dev_name);
	mnl_attr_put_u32(nlh, FABTRACE_A_QP_QPN, 1);
	mnl_attr_put_u32(nlh, FABTRACE_A_QP_PID, 1);
	EXPECT_EQ(EINVAL, xfer(&self->nl, nlh, NULL, NULL, NULL, NULL, NULL));
	EXPECT_STREQ("filter valid only in a dump", self->nl.extack);
}

TEST_F(nl, missing_qpn_names_the_attribute)
{
	struct nlmsghdr *nlh = msg(&self->nl, self->nl.family,
				   FABTRACE_CMD_QP_GET, 0);

	mnl_attr_put_strz(nlh, FABTRACE_A_QP_DEV_NAME, dev_name);
	EXPECT_EQ(EINVAL, xfer(&self->nl, nlh, NULL, NULL, NULL, NULL, NULL));
	EXPECT_STREQ("missing QP number", self->nl.extack);
}

TEST_F(nl, missing_device_has_an_extack)
{
	struct nlmsghdr *nlh = msg(&self->nl, self->nl.family,
				   FABTRACE_CMD_DEV_GET, 0);

	mnl_attr_put_strz(nlh, FABTRACE_A_DEV_NAME, "nosuchdev9");
	EXPECT_EQ(ENODEV, xfer(&self->nl, nlh, NULL, NULL, NULL, NULL, NULL));
	EXPECT_STREQ("no such RDMA device", self->nl.extack);
}

TEST_F(nl, overlong_device_name_is_rejected)
{
	struct nlmsghdr *nlh = msg(&self->nl, self->nl.family,
				   FABTRACE_CMD_DEV_GET, 0);
	char name[200];

	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = 0;
	mnl_attr_put_strz(nlh, FABTRACE_A_DEV_NAME, name);
	EXPECT_EQ(EINVAL, xfer(&self->nl, nlh, NULL, NULL, NULL, NULL, NULL));
}

TEST_F(nl, reset_needs_cap_net_admin)
{
	pid_t pid = fork();
	int status;

	ASSERT_GE(pid, 0);
	if (!pid) {
		struct nl nl;
		struct nlmsghdr *nlh;
		int err;

		/* nobody: no capability at all */
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(2);
		if (nl_open(&nl, 0))
			_exit(3);
		nlh = msg(&nl, nl.family, FABTRACE_CMD_QP_RESET, 0);
		err = xfer(&nl, nlh, NULL, NULL, NULL, NULL, NULL);
		if (err != EPERM)
			_exit(4);
		/* reading stays open to everyone */
		nlh = msg(&nl, nl.family, FABTRACE_CMD_DEV_GET, NLM_F_DUMP);
		_exit(xfer(&nl, nlh, NULL, NULL, NULL, NULL, NULL) ? 5 : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/* --- the policy ---------------------------------------------------------- */

struct cfg_blob {
	unsigned char b[1024];
	unsigned int len;
	uint32_t cnp_interval, ecn;
};

static int cfg_attr_cb(const struct nlattr *a, void *data)
{
	struct cfg_blob *c = data;

	if (mnl_attr_get_type(a) == FABTRACE_A_POLICY_CFG_CNP_INTERVAL)
		c->cnp_interval = mnl_attr_get_u32(a);
	if (mnl_attr_get_type(a) == FABTRACE_A_POLICY_CFG_ECN)
		c->ecn = mnl_attr_get_u32(a);
	return MNL_CB_OK;
}

/* The config nest of a policy-get reply, kept whole to compare. */
static int cfg_cb(const struct nlmsghdr *nlh, void *data)
{
	struct cfg_blob *c = data;
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		if (mnl_attr_get_type(a) != FABTRACE_A_POLICY_CONFIG ||
		    mnl_attr_get_payload_len(a) > sizeof(c->b))
			continue;
		c->len = mnl_attr_get_payload_len(a);
		memcpy(c->b, mnl_attr_get_payload(a), c->len);
		mnl_attr_parse_nested(a, cfg_attr_cb, c);
	}
	return MNL_CB_OK;
}

static int get_cfg(struct nl *nl, struct cfg_blob *c)
{
	struct nlmsghdr *nlh = msg(nl, nl->family, FABTRACE_CMD_POLICY_GET, 0);

	memset(c, 0, sizeof(*c));
	mnl_attr_put_strz(nlh, FABTRACE_A_POLICY_DEV_NAME, dev_name);
	return xfer(nl, nlh, cfg_cb, c, NULL, NULL, NULL) ?: (c->len ? 0 : ENODATA);
}

/* A policy-set of @dev_name whose config holds one u32 (or @len bytes). */
static struct nlmsghdr *set_one(struct nl *nl, uint16_t type, const void *val,
				unsigned int len)
{
	struct nlmsghdr *nlh = msg(nl, nl->family, FABTRACE_CMD_POLICY_SET, 0);
	struct nlattr *nest;

	mnl_attr_put_strz(nlh, FABTRACE_A_POLICY_DEV_NAME, dev_name);
	nest = mnl_attr_nest_start(nlh, FABTRACE_A_POLICY_CONFIG);
	mnl_attr_put(nlh, type, len, val);
	mnl_attr_nest_end(nlh, nest);
	return nlh;
}

TEST_F(nl, policy_set_rejects_bad_values_and_names_them)
{
	static const struct {
		uint16_t type;
		uint32_t val;
		const char *extack;
	} bad[] = {
		{ FABTRACE_A_POLICY_CFG_TRUST, 2, "trust: must be 0 (pcp) or 1 (dscp)" },
		{ FABTRACE_A_POLICY_CFG_PFC, 0x100, "pfc: a set of priorities 0-7 (bits 0-7)" },
		{ FABTRACE_A_POLICY_CFG_ECN, 1u << 8, "ecn: a set of priorities 0-7 (bits 0-7)" },
		{ FABTRACE_A_POLICY_CFG_CNP, 2, "cnp: must be 0 (off) or 1 (on)" },
		{ FABTRACE_A_POLICY_CFG_CNP_INTERVAL, 0, "cnp-interval: must be 1-1000000 us" },
		{ FABTRACE_A_POLICY_CFG_CNP_INTERVAL, 1000001, "cnp-interval: must be 1-1000000 us" },
		{ FABTRACE_A_POLICY_CFG_CNP_DSCP, 64, "cnp-dscp: must be 0-63" },
		{ FABTRACE_A_POLICY_CFG_WD_DETECT, 50, "wd-detect: must be 0 (off) or 100-5000 ms" },
		{ FABTRACE_A_POLICY_CFG_WD_DETECT, 5001, "wd-detect: must be 0 (off) or 100-5000 ms" },
		{ FABTRACE_A_POLICY_CFG_WD_RESTORE, 99, "wd-restore: must be 100-60000 ms" },
		{ FABTRACE_A_POLICY_CFG_WD_RESTORE, 60001, "wd-restore: must be 100-60000 ms" },
		{ FABTRACE_A_POLICY_CFG_WD_ACTION, 1, "wd-action: only 0 (alert) exists" },
	};
	unsigned char map[65];
	struct cfg_blob before, after;
	struct nlmsghdr *nlh;
	unsigned int i;

	ASSERT_EQ(0, get_cfg(&self->nl, &before));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		nlh = set_one(&self->nl, bad[i].type, &bad[i].val, sizeof(bad[i].val));
		EXPECT_EQ(EINVAL, xfer(&self->nl, nlh, NULL, NULL, NULL, NULL, NULL));
		EXPECT_STREQ(bad[i].extack, self->nl.extack);
		EXPECT_NE(0, self->nl.bad_attr_off);
	}
	/* a map of 65 entries, and one with priority 8 */
	memset(map, 1, sizeof(map));
	nlh = set_one(&self->nl, FABTRACE_A_POLICY_CFG_DSCP_MAP, map, 65);
	EXPECT_EQ(EINVAL, xfer(&self->nl, nlh, NULL, NULL, NULL, NULL, NULL));
	EXPECT_STREQ("dscp-map: must hold 64 priorities, one byte per DSCP 0-63",
		     self->nl.extack);
	map[63] = 8;
	nlh = set_one(&self->nl, FABTRACE_A_POLICY_CFG_DSCP_MAP, map, 64);
	EXPECT_EQ(EINVAL, xfer(&self->nl, nlh, NULL, NULL, NULL, NULL, NULL));
	EXPECT_STREQ("dscp-map: priorities are 0-7", self->nl.extack);
	/* a u8 where a u32 belongs, and an attribute the nest has not */
	nlh = set_one(&self->nl, FABTRACE_A_POLICY_CFG_CNP_INTERVAL, map, 1);
	EXPECT_EQ(EINVAL, xfer(&self->nl, nlh, NULL, NULL, NULL, NULL, NULL));
	EXPECT_NE(0, self->nl.bad_attr_off);
	i = 1;
	nlh = set_one(&self->nl, FABTRACE_A_POLICY_CFG_MAX + 1, &i, sizeof(i));
	EXPECT_EQ(EINVAL, xfer(&self->nl, nlh, NULL, NULL, NULL, NULL, NULL));
	EXPECT_NE(0, self->nl.bad_attr_off);
	TH_LOG("unknown attribute: %s", self->nl.extack);
	/* nothing to set; no such port */
	nlh = msg(&self->nl, self->nl.family, FABTRACE_CMD_POLICY_SET, 0);
	mnl_attr_put_strz(nlh, FABTRACE_A_POLICY_DEV_NAME, dev_name);
	EXPECT_EQ(EINVAL, xfer(&self->nl, nlh, NULL, NULL, NULL, NULL, NULL));
	EXPECT_STREQ("missing config: nothing to set", self->nl.extack);
	nlh = msg(&self->nl, self->nl.family, FABTRACE_CMD_POLICY_SET, 0);
	mnl_attr_put_strz(nlh, FABTRACE_A_POLICY_DEV_NAME, dev_name);
	mnl_attr_nest_end(nlh, mnl_attr_nest_start(nlh, FABTRACE_A_POLICY_CONFIG));
	EXPECT_EQ(EINVAL, xfer(&self->nl, nlh, NULL, NULL, NULL, NULL, NULL));
	EXPECT_STREQ("config: nothing to set", self->nl.extack);
	/* a restoration time for a watchdog that is off */
	{
		struct nlattr *nest;

		nlh = msg(&self->nl, self->nl.family, FABTRACE_CMD_POLICY_SET, 0);
		mnl_attr_put_strz(nlh, FABTRACE_A_POLICY_DEV_NAME, dev_name);
		nest = mnl_attr_nest_start(nlh, FABTRACE_A_POLICY_CONFIG);
		mnl_attr_put_u32(nlh, FABTRACE_A_POLICY_CFG_WD_DETECT, 0);
		mnl_attr_put_u32(nlh, FABTRACE_A_POLICY_CFG_WD_RESTORE, 500);
		mnl_attr_nest_end(nlh, nest);
		EXPECT_EQ(EINVAL, xfer(&self->nl, nlh, NULL, NULL, NULL, NULL, NULL));
		EXPECT_STREQ("wd-restore: the watchdog is off (wd-detect 0)", self->nl.extack);
	}
	nlh = msg(&self->nl, self->nl.family, FABTRACE_CMD_POLICY_GET, 0);
	mnl_attr_put_strz(nlh, FABTRACE_A_POLICY_DEV_NAME, dev_name);
	mnl_attr_put_u32(nlh, FABTRACE_A_POLICY_PORT, 2);
	EXPECT_EQ(EINVAL, xfer(&self->nl, nlh, NULL, NULL, NULL, NULL, NULL));
	EXPECT_STREQ("port: no such port on this device", self->nl.extack);

	/* and none of it changed anything */
	ASSERT_EQ(0, get_cfg(&self->nl, &after));
	EXPECT_EQ(before.len, after.len);
	EXPECT_EQ(0, memcmp(before.b, after.b, before.len));
}

TEST_F(nl, policy_set_changes_only_what_it_names)
{
	struct cfg_blob orig, want, after;
	uint32_t v;
	unsigned int i;

	ASSERT_EQ(0, get_cfg(&self->nl, &orig));
	v = orig.cnp_interval == 777 ? 778 : 777;
	EXPECT_EQ(0, xfer(&self->nl, set_one(&self->nl, FABTRACE_A_POLICY_CFG_CNP_INTERVAL,
					     &v, sizeof(v)), NULL, NULL, NULL, NULL, NULL));
	ASSERT_EQ(0, get_cfg(&self->nl, &after));
	EXPECT_EQ(v, after.cnp_interval);
	/* every other field is the same: the old nest, the interval patched */
	want = orig;
	for (i = 0; i + sizeof(struct nlattr) <= want.len;) {
		struct nlattr *a = (void *)&want.b[i];

		if (a->nla_len < sizeof(*a))
			break;
		if (a->nla_type == FABTRACE_A_POLICY_CFG_CNP_INTERVAL)
			memcpy(a + 1, &v, sizeof(v));
		i += MNL_ALIGN(a->nla_len);
	}
	EXPECT_EQ(want.len, after.len);
	EXPECT_EQ(0, memcmp(want.b, after.b, want.len));

	/* and back */
	v = orig.cnp_interval;
	EXPECT_EQ(0, xfer(&self->nl, set_one(&self->nl, FABTRACE_A_POLICY_CFG_CNP_INTERVAL,
					     &v, sizeof(v)), NULL, NULL, NULL, NULL, NULL));
	ASSERT_EQ(0, get_cfg(&self->nl, &after));
	EXPECT_EQ(0, memcmp(orig.b, after.b, orig.len));
}

TEST_F(nl, policy_set_needs_cap_net_admin)
{
	pid_t pid = fork();
	int status;

	ASSERT_GE(pid, 0);
	if (!pid) {
		struct cfg_blob c;
		struct nl nl;
		uint32_t v = 3;
		int err;

		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(2);
		if (nl_open(&nl, 0))
			_exit(3);
		err = xfer(&nl, set_one(&nl, FABTRACE_A_POLICY_CFG_ECN, &v, sizeof(v)),
			   NULL, NULL, NULL, NULL, NULL);
		if (err != EPERM)
			_exit(4);
		/* reading the policy stays open to everyone */
		_exit(get_cfg(&nl, &c) ? 5 : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/*
 * A dump that spans many messages returns every QP exactly once and agrees
 * with one get per QP; a dump during which QPs come and go is flagged.
 */
TEST_F(nl, dump_resumes_and_flags_changes)
{
	static struct qp_list all, one;
	struct verbs v;
	struct nl small;
	struct nlmsghdr *nlh;
	unsigned int i, j;
	int intr = 0;

	if (verbs_open(&v))
		SKIP(return, "cannot open the RDMA device with verbs");
	for (i = 0; i < 600; i++)
		verbs_qp(&v);
	ASSERT_EQ(600, v.n);

	/* small reads make the kernel fill small messages: ~10 QPs each */
	ASSERT_EQ(0, nl_open(&small, 8192));
	all.n = 0;
	nlh = msg(&small, small.family, FABTRACE_CMD_QP_GET, NLM_F_DUMP);
	mnl_attr_put_strz(nlh, FABTRACE_A_QP_DEV_NAME, dev_name);
	all.msgs = 0;
	ASSERT_EQ(0, xfer(&small, nlh, qp_cb, &all, NULL, NULL, &intr));
	EXPECT_EQ(0, intr);
	EXPECT_GE(all.n, 600);
	for (i = 1; i < all.n; i++)
		for (j = 0; j < i; j++)
			ASSERT_NE(all.q[i].qpn, all.q[j].qpn);
	for (i = 0; i < v.n; i++) {
		for (j = 0; j < all.n; j++)
			if (all.q[j].qpn == v.qp[i]->qp_num)
				break;
		ASSERT_LT(j, all.n) TH_LOG("QP %u missing from the dump", v.qp[i]->qp_num);
	}
	for (i = 0; i < all.n; i++) {
		one.n = 0;
		nlh = msg(&self->nl, self->nl.family, FABTRACE_CMD_QP_GET, 0);
		mnl_attr_put_strz(nlh, FABTRACE_A_QP_DEV_NAME, dev_name);
		mnl_attr_put_u32(nlh, FABTRACE_A_QP_QPN, all.q[i].qpn);
		ASSERT_EQ(0, xfer(&self->nl, nlh, qp_cb, &one, NULL, NULL, NULL));
		ASSERT_EQ(1, one.n);
		EXPECT_EQ(all.q[i].qpn, one.q[0].qpn);
	}

	/* the same dump, with a QP created after every message */
	all.n = 0;
	nlh = msg(&small, small.family, FABTRACE_CMD_QP_GET, NLM_F_DUMP);
	mnl_attr_put_strz(nlh, FABTRACE_A_QP_DEV_NAME, dev_name);
	ASSERT_EQ(0, xfer(&small, nlh, qp_cb, &all, verbs_qp, &v, &intr));
	EXPECT_EQ(1, intr);

	mnl_socket_close(small.sk);
	verbs_close(&v);
}

TEST_HARNESS_MAIN
