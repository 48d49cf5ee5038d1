// SPDX-License-Identifier: GPL-2.0
/* Netlink: events on the "events" multicast group. */

#include <net/genetlink.h>

#include "events.h"
#include "fabtrace-nl-gen.h"
#include "netlink.h"
#include "nl.h"

/* --- events -------------------------------------------------------------- */

static atomic64_t ev_seq;

/**
 * ft_nl_notify() - send one event to the events group
 * @e: the event
 *
 * Context: process.
 * Return: 1 if sent, 0 if nobody listens, or a negative error.
 */
int ft_nl_notify(const struct ft_event *e)
{
	static const u8 zero[16];
	struct sk_buff *skb;
	void *hdr;
	int err;

	if (!genl_has_listeners(&fabtrace_nl_family, &init_net,
				FABTRACE_NLGRP_EVENTS))
		return 0;
	skb = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!skb)
		return -ENOMEM;
	hdr = genlmsg_put(skb, 0, 0, &fabtrace_nl_family, 0,
			  FABTRACE_CMD_QP_EVENT);
	if (!hdr)
		goto err_free;
	if (ft_nl_put_u64(skb, FABTRACE_A_EVENT_SEQ, atomic64_inc_return(&ev_seq),
			  FABTRACE_A_EVENT_PAD) ||
	    nla_put_u32(skb, FABTRACE_A_EVENT_KIND, e->kind) ||
	    ft_nl_put_u64(skb, FABTRACE_A_EVENT_TIME, ft_nl_realtime(e->time),
			  FABTRACE_A_EVENT_PAD) ||
	    ft_nl_put_u64(skb, FABTRACE_A_EVENT_COUNT, e->count, FABTRACE_A_EVENT_PAD))
		goto err_free;
	if (e->kind != FABTRACE_EVENT_KIND_DROPPED &&
	    (nla_put_u32(skb, FABTRACE_A_EVENT_DEV_INDEX, e->dev_index) ||
	     nla_put_string(skb, FABTRACE_A_EVENT_DEV_NAME, e->dev_name) ||
	     nla_put_u32(skb, FABTRACE_A_EVENT_QPN, e->qpn) ||
	     nla_put_u32(skb, FABTRACE_A_EVENT_PID, e->pid) ||
	     nla_put_string(skb, FABTRACE_A_EVENT_COMM, e->comm) ||
	     ft_nl_put_u64(skb, FABTRACE_A_EVENT_SUPPRESSED, e->suppressed,
			   FABTRACE_A_EVENT_PAD)))
		goto err_free;
	if (e->rqpn && nla_put_u32(skb, FABTRACE_A_EVENT_REMOTE_QPN, e->rqpn))
		goto err_free;
	if (memcmp(e->peer, zero, sizeof(zero)) &&
	    nla_put(skb, FABTRACE_A_EVENT_PEER_ADDR, sizeof(e->peer), e->peer))
		goto err_free;
	if (e->has_snap &&
	    ft_nl_put_counters(skb, &e->snap, FABTRACE_A_EVENT_TX, FABTRACE_A_EVENT_RX,
			       FABTRACE_A_EVENT_CONG))
		goto err_free;
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

err_free:
	nlmsg_free(skb);
	return -EMSGSIZE;
}
