// SPDX-License-Identifier: GPL-2.0
/* Netlink: the events group, where events.c's worker sends every event. */

#include <net/genetlink.h>

#include "events.h"
#include "fabtrace-nl-gen.h"
#include "netlink.h"
#include "nl.h"

/*
 * Sequence numbers count sends, in the order listeners receive them.  Only
 * events.c's worker sends, one event at a time.
 */
static u64 ev_seq;

static int put_qp(struct sk_buff *skb, const struct ft_event *e)
{
	static const u8 zero[16];

	if (nla_put_u32(skb, FABTRACE_A_EVENT_QPN, e->qpn) ||
	    nla_put_u32(skb, FABTRACE_A_EVENT_PID, e->pid) ||
	    nla_put_string(skb, FABTRACE_A_EVENT_COMM, e->comm) ||
	    ft_nl_put_u64(skb, FABTRACE_A_EVENT_SUPPRESSED, e->suppressed,
			  FABTRACE_A_EVENT_PAD))
		return -EMSGSIZE;
	if (e->rqpn && nla_put_u32(skb, FABTRACE_A_EVENT_REMOTE_QPN, e->rqpn))
		return -EMSGSIZE;
	if (memcmp(e->peer, zero, sizeof(zero)) &&
	    nla_put(skb, FABTRACE_A_EVENT_PEER_ADDR, sizeof(e->peer), e->peer))
		return -EMSGSIZE;
	if (e->has_snap &&
	    ft_nl_put_counters(skb, &e->snap, FABTRACE_A_EVENT_TX, FABTRACE_A_EVENT_RX,
			       FABTRACE_A_EVENT_CONG))
		return -EMSGSIZE;
	return 0;
}

/* What an event of a port's, not of a QP's, carries. */
static int put_port_kind(struct sk_buff *skb, const struct ft_event *e)
{
	switch (e->kind) {
	case FABTRACE_EVENT_KIND_STORM_START:
	case FABTRACE_EVENT_KIND_STORM_END:
		return nla_put_u32(skb, FABTRACE_A_EVENT_PORT, e->storm.port) ||
		       nla_put_u32(skb, FABTRACE_A_EVENT_PRIO, e->storm.prio) ||
		       ft_nl_put_u64(skb, FABTRACE_A_EVENT_DURATION, e->storm.duration,
				     FABTRACE_A_EVENT_PAD) ||
		       nla_put_u32(skb, FABTRACE_A_EVENT_QPS, e->storm.qps) ||
		       (e->storm.link_ifindex &&
			(nla_put_string(skb, FABTRACE_A_EVENT_LINK_NAME, e->storm.link) ||
			 nla_put_u32(skb, FABTRACE_A_EVENT_LINK_IFINDEX, e->storm.link_ifindex))) ?
		       -EMSGSIZE : 0;
	case FABTRACE_EVENT_KIND_POLICY_CHANGE:
		return nla_put_u32(skb, FABTRACE_A_EVENT_PORT, e->policy.port) ||
		       ft_nl_put_policy(skb, FABTRACE_A_EVENT_POLICY_OLD, &e->policy.old) ||
		       ft_nl_put_policy(skb, FABTRACE_A_EVENT_POLICY_NEW, &e->policy.new) ?
		       -EMSGSIZE : 0;
	case FABTRACE_EVENT_KIND_POLICY_DRIFT:
		return nla_put_u32(skb, FABTRACE_A_EVENT_PORT, e->drift.port) ||
		       ft_nl_put_policy(skb, FABTRACE_A_EVENT_POLICY_NEW, &e->drift.p) ||
		       ft_nl_put_policy_hw(skb, FABTRACE_A_EVENT_HW, &e->drift.hw, 0, NULL) ?
		       -EMSGSIZE : 0;
	}
	return 0;
}

static int event_fill(struct sk_buff *skb, const struct ft_event *e)
{
	if (ft_nl_put_u64(skb, FABTRACE_A_EVENT_SEQ, ++ev_seq, FABTRACE_A_EVENT_PAD) ||
	    nla_put_u32(skb, FABTRACE_A_EVENT_KIND, e->kind) ||
	    ft_nl_put_u64(skb, FABTRACE_A_EVENT_TIME, ft_nl_realtime(e->time),
			  FABTRACE_A_EVENT_PAD))
		return -EMSGSIZE;
	/* a count: of what the QP saw of the kind, or of the events dropped */
	if ((e->has_qp || e->kind == FABTRACE_EVENT_KIND_DROPPED) &&
	    ft_nl_put_u64(skb, FABTRACE_A_EVENT_COUNT, e->count, FABTRACE_A_EVENT_PAD))
		return -EMSGSIZE;
	if (e->kind == FABTRACE_EVENT_KIND_DROPPED)
		return 0;
	if (nla_put_u32(skb, FABTRACE_A_EVENT_DEV_INDEX, e->dev_index) ||
	    nla_put_string(skb, FABTRACE_A_EVENT_DEV_NAME, e->dev_name))
		return -EMSGSIZE;
	if (e->has_qp)
		return put_qp(skb, e);
	return put_port_kind(skb, e);
}

/**
 * ft_nl_event_send() - send one event to the events group
 * @e: the event
 *
 * Context: process; events.c's worker, the only sender.
 * Return: 1 if sent, 0 if nobody listens, or a negative error.
 */
int ft_nl_event_send(const struct ft_event *e)
{
	struct sk_buff *skb;
	void *hdr;
	int err;

	if (!genl_has_listeners(&fabtrace_nl_family, &init_net,
				FABTRACE_NLGRP_EVENTS))
		return 0;
	skb = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!skb)
		return -ENOMEM;
	hdr = genlmsg_put(skb, 0, 0, &fabtrace_nl_family, 0, FABTRACE_CMD_QP_EVENT);
	err = hdr ? event_fill(skb, e) : -EMSGSIZE;
	if (err) {
		/* its number is not used: the next event takes it */
		if (hdr)
			ev_seq--;
		nlmsg_free(skb);
		return err;
	}
	genlmsg_end(skb, hdr);
	err = genlmsg_multicast(&fabtrace_nl_family, skb, 0,
				FABTRACE_NLGRP_EVENTS, GFP_KERNEL);
	if (err == -ESRCH)
		return 0;
	/*
	 * A listener whose socket is full misses this one, and only that
	 * listener: it gets ENOBUFS and sees the gap in the sequence numbers.
	 * The event was sent; counting it lost would tell every other
	 * listener that it missed something it received.
	 */
	if (err == -ENOBUFS)
		err = 0;
	return err ? err : 1;
}
