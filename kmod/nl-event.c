// SPDX-License-Identifier: GPL-2.0
/* Netlink: events on the "events" multicast group. */

#include <linux/mutex.h>
#include <net/genetlink.h>

#include "events.h"
#include "fabtrace-nl-gen.h"
#include "netlink.h"
#include "nl.h"

/* --- events -------------------------------------------------------------- */

/*
 * Sequence numbers count sends, in the order listeners receive them: QP
 * events (the event worker) and policy changes (policy-set) are numbered
 * and multicast under one lock, so a listener sees a gap only for what it
 * missed.
 */
static DEFINE_MUTEX(send_lock);
static u64 ev_seq;

/**
 * ft_nl_event_new() - start an event for the events group
 * @kind: enum fabtrace_event_kind
 * @mono_ns: when it happened, CLOCK_MONOTONIC
 *
 * Context: process.
 * Return: the message to add attributes to and pass to ft_nl_event_send()
 * (or nlmsg_free()), NULL if nobody listens, or an ERR_PTR.
 */
struct sk_buff *ft_nl_event_new(u32 kind, u64 mono_ns)
{
	struct sk_buff *skb;
	void *hdr;

	if (!genl_has_listeners(&fabtrace_nl_family, &init_net,
				FABTRACE_NLGRP_EVENTS))
		return NULL;
	skb = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!skb)
		return ERR_PTR(-ENOMEM);
	hdr = genlmsg_put(skb, 0, 0, &fabtrace_nl_family, 0,
			  FABTRACE_CMD_QP_EVENT);
	/* the number is written when it is sent */
	if (!hdr ||
	    !nla_reserve_64bit(skb, FABTRACE_A_EVENT_SEQ, sizeof(u64),
			       FABTRACE_A_EVENT_PAD) ||
	    nla_put_u32(skb, FABTRACE_A_EVENT_KIND, kind) ||
	    ft_nl_put_u64(skb, FABTRACE_A_EVENT_TIME, ft_nl_realtime(mono_ns),
			  FABTRACE_A_EVENT_PAD)) {
		nlmsg_free(skb);
		return ERR_PTR(-EMSGSIZE);
	}
	return skb;
}

/**
 * ft_nl_event_send() - number an event and send it to the events group
 * @skb: from ft_nl_event_new(), consumed
 *
 * Context: process.
 * Return: 1 if sent, 0 if nobody listens, or a negative error.
 */
int ft_nl_event_send(struct sk_buff *skb)
{
	struct nlmsghdr *nlh = nlmsg_hdr(skb);
	struct nlattr *seq;
	int err;

	nlmsg_end(skb, nlh);
	seq = nla_find(genlmsg_data(nlmsg_data(nlh)), genlmsg_len(nlmsg_data(nlh)),
		       FABTRACE_A_EVENT_SEQ);
	if (WARN_ON_ONCE(!seq)) {
		nlmsg_free(skb);
		return -EINVAL;
	}
	mutex_lock(&send_lock);
	ev_seq++;
	memcpy(nla_data(seq), &ev_seq, sizeof(ev_seq));
	err = genlmsg_multicast(&fabtrace_nl_family, skb, 0,
				FABTRACE_NLGRP_EVENTS, GFP_KERNEL);
	mutex_unlock(&send_lock);
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

/* Count what became of an event: ft_nl_event_send()'s return value. */
void ft_nl_count_event(int err)
{
	if (err > 0)
		atomic64_inc(&ft_ev_stats.sent);
	else if (err < 0)
		atomic64_inc(&ft_ev_stats.lost);
}

/**
 * ft_nl_notify() - send one QP event to the events group
 * @e: the event
 *
 * Context: process.
 * Return: 1 if sent, 0 if nobody listens, or a negative error.
 */
int ft_nl_notify(const struct ft_event *e)
{
	static const u8 zero[16];
	struct sk_buff *skb;

	skb = ft_nl_event_new(e->kind, e->time);
	if (IS_ERR_OR_NULL(skb))
		return PTR_ERR_OR_ZERO(skb);
	if (ft_nl_put_u64(skb, FABTRACE_A_EVENT_COUNT, e->count, FABTRACE_A_EVENT_PAD))
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
	return ft_nl_event_send(skb);

err_free:
	nlmsg_free(skb);
	return -EMSGSIZE;
}
