/* SPDX-License-Identifier: GPL-2.0 */
/* Test helpers: messages shaped like the ones kmod/netlink.c sends. */
#ifndef _FABTRACE_NLBUILD_H
#define _FABTRACE_NLBUILD_H

#include <endian.h>
#include <libmnl/libmnl.h>
#include <linux/fabtrace.h>
#include <linux/genetlink.h>
#include <string.h>

#define NLB_FAMILY	0x20	/* any id: parsers never look at it */

static inline struct nlmsghdr *nlb_msg(void *buf, uint8_t cmd, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g;

	nlh->nlmsg_type = NLB_FAMILY;
	nlh->nlmsg_flags = flags;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = FABTRACE_FAMILY_VERSION;
	return nlh;
}

/* nla_put_u64_64bit() puts a pad attribute first when the u64 is misaligned. */
static inline void nlb_u64(struct nlmsghdr *nlh, uint16_t type, uint64_t v,
			   uint16_t pad)
{
	if ((nlh->nlmsg_len + MNL_ATTR_HDRLEN) % 8)
		mnl_attr_put(nlh, pad, 0, NULL);
	mnl_attr_put_u64(nlh, type, v);
}

/* A traffic nest whose counters are base, base + 1, ... (packets first). */
static inline void nlb_traffic(struct nlmsghdr *nlh, uint16_t type, uint64_t base)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, type);
	uint16_t i;

	for (i = FABTRACE_A_TRAFFIC_PACKETS; i <= FABTRACE_A_TRAFFIC_OTHER; i++)
		nlb_u64(nlh, i, base + i - 1, FABTRACE_A_TRAFFIC_PAD);
	/* what a newer kernel might add: must be skipped */
	mnl_attr_put_u32(nlh, FABTRACE_A_TRAFFIC_MAX + 7, 0xdead);
	mnl_attr_nest_end(nlh, nest);
}

static inline void nlb_naks(struct nlmsghdr *nlh, uint16_t type, uint64_t base)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, type);
	uint16_t i;

	for (i = FABTRACE_A_NAK_PSN_SEQ; i <= FABTRACE_A_NAK_OTHER; i++)
		nlb_u64(nlh, i, base + i - 1, FABTRACE_A_NAK_PAD);
	mnl_attr_nest_end(nlh, nest);
}

/* Congestion counters base + 1 ...; last_ce and last_nak set, others never. */
static inline void nlb_cong(struct nlmsghdr *nlh, uint16_t type, uint64_t base,
			    uint64_t last)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, type);
	uint16_t i;

	nlb_u64(nlh, FABTRACE_A_CONG_RX_ECT, base + 1, FABTRACE_A_CONG_PAD);
	nlb_u64(nlh, FABTRACE_A_CONG_RX_CE, base + 2, FABTRACE_A_CONG_PAD);
	nlb_naks(nlh, FABTRACE_A_CONG_TX_NAK, base + 100);
	nlb_naks(nlh, FABTRACE_A_CONG_RX_NAK, base + 200);
	for (i = FABTRACE_A_CONG_RETRANSMITS; i <= FABTRACE_A_CONG_ERRORS; i++)
		nlb_u64(nlh, i, base + i, FABTRACE_A_CONG_PAD);
	if (last) {
		nlb_u64(nlh, FABTRACE_A_CONG_LAST_CE, last, FABTRACE_A_CONG_PAD);
		nlb_u64(nlh, FABTRACE_A_CONG_LAST_NAK, last + 1, FABTRACE_A_CONG_PAD);
	}
	mnl_attr_nest_end(nlh, nest);
}

struct nlb_qp {
	uint32_t dev_index, qpn, type, state, pid, flags, rqpn;
	const char *dev, *comm;
	const uint8_t *peer;		/* NULL: not connected */
	uint64_t ctime, dtime, base, last;
	uint64_t cgroup_id;		/* 0: none (a kernel QP) */
	const char *cgroup;		/* NULL: none (gone) */
	uint32_t rtt;			/* its srtt, ns; 0: not timed */
};

/* A qp-rtt nest: ten samples around @srtt, nine in its bucket (1 ms's). */
static inline void nlb_rtt(struct nlmsghdr *nlh, uint32_t srtt)
{
	struct nlattr *n = mnl_attr_nest_start(nlh, FABTRACE_A_QP_RTT);
	unsigned int i;

	nlb_u64(nlh, FABTRACE_A_QP_RTT_SAMPLES, 10, FABTRACE_A_QP_RTT_PAD);
	mnl_attr_put_u32(nlh, FABTRACE_A_QP_RTT_ACK_DELAY_NS, 5000);
	mnl_attr_put_u32(nlh, FABTRACE_A_QP_RTT_LAST_NS, srtt + 1000);
	mnl_attr_put_u32(nlh, FABTRACE_A_QP_RTT_MIN_NS, srtt - 1000);
	mnl_attr_put_u32(nlh, FABTRACE_A_QP_RTT_SRTT_NS, srtt);
	mnl_attr_put_u32(nlh, FABTRACE_A_QP_RTT_RTTVAR_NS, srtt / 10);
	for (i = 0; i < 7; i++)
		mnl_attr_put_u32(nlh, FABTRACE_A_QP_RTT_BUCKET, i == 3 ? 9 : i == 2);
	mnl_attr_nest_end(nlh, n);
}

static inline struct nlmsghdr *nlb_qp(void *buf, const struct nlb_qp *q)
{
	struct nlmsghdr *nlh = nlb_msg(buf, FABTRACE_CMD_QP_GET, NLM_F_MULTI);

	mnl_attr_put_u32(nlh, FABTRACE_A_QP_DEV_INDEX, q->dev_index);
	mnl_attr_put_strz(nlh, FABTRACE_A_QP_DEV_NAME, q->dev);
	mnl_attr_put_u32(nlh, FABTRACE_A_QP_QPN, q->qpn);
	mnl_attr_put_u32(nlh, FABTRACE_A_QP_TYPE, q->type);
	mnl_attr_put_u32(nlh, FABTRACE_A_QP_STATE, q->state);
	mnl_attr_put_u32(nlh, FABTRACE_A_QP_PORT, 1);
	mnl_attr_put_u32(nlh, FABTRACE_A_QP_TCLASS, 106);
	mnl_attr_put_u32(nlh, FABTRACE_A_QP_SL, 3);
	mnl_attr_put_u32(nlh, FABTRACE_A_QP_PID, q->pid);
	mnl_attr_put_strz(nlh, FABTRACE_A_QP_COMM, q->comm);
	nlb_u64(nlh, FABTRACE_A_QP_CREATE_TIME, q->ctime, FABTRACE_A_QP_PAD);
	mnl_attr_put_u32(nlh, FABTRACE_A_QP_FLAGS, q->flags);
	if (q->rqpn)
		mnl_attr_put_u32(nlh, FABTRACE_A_QP_REMOTE_QPN, q->rqpn);
	if (q->peer)
		mnl_attr_put(nlh, FABTRACE_A_QP_PEER_ADDR, 16, q->peer);
	if (q->flags & FABTRACE_QP_FLAGS_DESTROYED)
		nlb_u64(nlh, FABTRACE_A_QP_DESTROY_TIME, q->dtime, FABTRACE_A_QP_PAD);
	if (q->cgroup_id)
		nlb_u64(nlh, FABTRACE_A_QP_CGROUP_ID, q->cgroup_id, FABTRACE_A_QP_PAD);
	if (q->cgroup)
		mnl_attr_put_strz(nlh, FABTRACE_A_QP_CGROUP, q->cgroup);
	nlb_traffic(nlh, FABTRACE_A_QP_TX, q->base);
	nlb_traffic(nlh, FABTRACE_A_QP_RX, q->base + 1000);
	nlb_cong(nlh, FABTRACE_A_QP_CONG, q->base, q->last);
	if (q->rtt)
		nlb_rtt(nlh, q->rtt);
	/* a newer kernel's attribute at the top level: must be skipped */
	mnl_attr_put_u32(nlh, FABTRACE_A_QP_MAX + 3, 7);
	return nlh;
}

static const uint8_t nlb_peer_v4[16] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 99, 0, 2
};

static const uint8_t nlb_peer_v6[16] = {
	0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1
};

#endif /* _FABTRACE_NLBUILD_H */
