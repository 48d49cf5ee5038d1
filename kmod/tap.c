// SPDX-License-Identifier: GPL-2.0
/* Soft-RoCE data path taps: every packet rxe sends or receives. */

#include <linux/jump_label.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/skbuff.h>
#include <rdma/ib_verbs.h>

#include "cnp.h"
#include "compat.h"
#include "dev.h"
#include "events.h"
#include "qp.h"
#include "roce.h"
#include "tap.h"

/*
 * A packet that carried a congestion signal: an event, perhaps, and a CNP
 * for a CE mark received.  Out of line: most packets carry none.
 */
static noinline notrace void tap_rare(struct ft_dev *dev, struct ft_qp *qp,
				      unsigned int ev, unsigned int dir,
				      const u8 *h, unsigned int avail)
{
	ft_event_note(dev, qp, ev);
	if (dir == FT_RX && (ev & FT_EV_CE))
		ft_cnp_answer(dev, qp, h, avail);
}

/*
 * Round-trip timing (rtt.h): on unless loaded with rtt=0, which takes
 * its branch out of the taps.  Fixed at load: a sample begun before a
 * switch off would end, on again, with the time between.
 */
static bool rtt_on = true;
module_param_named(rtt, rtt_on, bool, 0444);
MODULE_PARM_DESC(rtt, "time each QP's requests to their answers (default on)");
static DEFINE_STATIC_KEY_TRUE(rtt_key);

void ft_tap_init(void)
{
	if (!rtt_on)
		static_branch_disable(&rtt_key);
}

bool ft_tap_rtt(void)
{
	return rtt_on;
}

/*
 * A sample starts or ends: the clock is read, once.  Out of line: one
 * packet a round trip comes here.
 */
static noinline notrace void tap_rtt(struct ft_dev *dev, struct ft_qp *qp,
				     u32 psn, unsigned int t, u32 v)
{
	struct ft_dev_pcpu __percpu *pc = dev->pcpu;
	u32 ns = ft_rtt_clocked(&qp->rtt, psn, t, v, ktime_get_ns());

	if (t == FT_RTT_END) {
		this_cpu_inc(pc->rtt[ft_rtt_dev_bucket(ns)]);
		this_cpu_add(pc->rtt_ns, ns);
	} else if (t == FT_RTT_AD_END) {
		this_cpu_inc(pc->ad_samples);
		this_cpu_add(pc->ad_ns, ns);
	}
}

/*
 * The hot path: parse, find, account.  No lock, no allocation, no printk;
 * per-CPU device totals and atomic per-QP counters.  @h holds the
 * packet's first @avail bytes, from its IP header on; @ibqp is the QP that
 * sends or receives it.
 */
static __always_inline void tap_hdrs(struct ft_dev *dev,
				     const struct ib_qp *ibqp, const u8 *h,
				     unsigned int avail, unsigned int len,
				     unsigned int dir)
{
	struct ft_dev_pcpu __percpu *pc = dev->pcpu;
	/* every field is written before the accounting reads it */
	struct ft_pkt pkt __uninitialized;
	struct ft_qp *qp;
	unsigned int ev, t;
	u32 v;

	if (unlikely(ft_parse(h, avail, len, &pkt) != FT_PARSE_OK)) {
		this_cpu_inc(pc->malformed);
		return;
	}
	this_cpu_add(pc->bytes[dir], pkt.payload);
	this_cpu_inc(pc->pkts[dir][(unsigned long)pkt.slot]);

	qp = ft_qp_of(dev, ibqp);
	if (unlikely(!qp)) {
		this_cpu_inc(pc->unknown[dir]);
		return;
	}
	ev = dir == FT_TX ? ft_acct_tx(qp, &pkt) : ft_acct_rx(qp, &pkt);
	if (static_branch_likely(&rtt_key)) {
		t = dir == FT_TX ? ft_rtt_tx(&qp->rtt, &pkt, ev & FT_EV_RETRANS, &v) :
				   ft_rtt_rx(&qp->rtt, &pkt, &qp->tx_req_psn, &qp->rx_req_psn, &v);
		if (unlikely(t))
			tap_rtt(dev, qp, pkt.psn, t, v);
	}
	if (unlikely(ev))
		tap_rare(dev, qp, ev, dir, h, avail);
}

/*
 * An skb with paged data, which rxe never sends: its headers are copied
 * out of line, so the straight path keeps no buffer on its stack.
 */
static noinline notrace void tap_copy(struct ft_dev *dev,
				      const struct ib_qp *ibqp,
				      const struct sk_buff *skb, int off,
				      unsigned int avail, unsigned int len,
				      unsigned int dir)
{
	u8 buf[FT_HDR_MAX];

	if (skb_copy_bits(skb, off, buf, avail)) {
		this_cpu_inc(dev->pcpu->malformed);
		return;
	}
	tap_hdrs(dev, ibqp, buf, avail, len, dir);
}

/*
 * IPv6, IPv4 with options or not IP at all, which rxe does not send: out
 * of line, so the straight path need not save the registers they take.
 */
static noinline notrace void tap_other(struct ft_dev *dev,
				       const struct ib_qp *ibqp, const u8 *h,
				       unsigned int len, unsigned int dir)
{
	tap_hdrs(dev, ibqp, h, len, len, dir);
}

/*
 * ECN on soft-RoCE: a packet whose DSCP is in @ect (the policy's
 * ECN-capable DSCPs) and is Not-ECT leaves ECT(0)-marked.  Nothing else
 * changes: rxe leaves the IPv4 checksum to __ip_local_out(), which runs
 * after this, and the ICRC covers the DS field as ones.  Only packets rxe
 * built itself come here, before it sends them: the skb is its own, not a
 * clone, and linear; @ip is its data.  Out of line: off the path of the
 * packets it does not mark.
 */
static noinline notrace void mark_ect(u8 *ip, unsigned int len, u64 ect)
{
	ft_mark_ect(ip, len, ect);
}

/*
 * Both taps run as RCU-sched readers (see ft_deref()): rxe calls its
 * packet functions from softirqs and, on 6.12, from a workqueue.  @ibdev
 * is looked up first: @ibqp is read only once the device is one of ours.
 */
static __always_inline void tap(const struct ib_device *ibdev,
				const struct ib_qp *ibqp,
				const struct sk_buff *skb, int off,
				unsigned int dir)
{
	struct ft_dev *dev;
	unsigned int len;
	const u8 *h;
	u64 ect;

	rcu_read_lock_sched_notrace();
	if (unlikely(!ft_devmap_get(&ft_devmap, ibdev, &dev)))
		goto out;

	len = skb->len - off;
	/* rxe's skbs are linear: then all @len bytes from @off are at hand */
	if (likely(!skb->data_len)) {
		h = skb->data + off;
		/*
		 * Marked first, so the counters see the packet that leaves.
		 * The transmit tap writes to it: the skb is rxe's own, never
		 * a clone today; one would share its data, and is left as is.
		 */
		if (dir == FT_TX) {
			ect = READ_ONCE(dev->ect_dscp);
			if (unlikely(ect) && !skb_cloned(skb))
				mark_ect((u8 *)h, len, ect);
		}
		if (likely(ft_ip_plain(h, len)))
			tap_hdrs(dev, ibqp, h, len, len, dir);
		else
			tap_other(dev, ibqp, h, len, dir);
	} else {
		tap_copy(dev, ibqp, skb, off,
			 min_t(unsigned int, len, FT_HDR_MAX), len, dir);
	}
out:
	rcu_read_unlock_sched_notrace();
}

/*
 * rxe_icrc_generate(skb, pkt), which rxe_xmit_packet() calls, and nothing
 * else does, once its QP-state check has passed: a packet of a QP not
 * ready to send is dropped before it and never counted.  skb->data is the
 * IP header; @pkt is rxe's packet info, whose first two members point to
 * the rxe device, which begins with its struct ib_device, and to the QP,
 * which begins with its struct ib_qp.  The device is looked up first: the
 * QP is read only once the device is one of ours.  The packet's DS field
 * may be changed (mark_ect()); nothing else of it.
 */
void notrace ft_tap_icrc(const struct sk_buff *skb, const void *pkt)
{
	const void * const *p = pkt;

	tap(p[0], p[1], skb, 0, FT_TX);
}

/*
 * rxe_resp_queue_pkt(qp, skb) and rxe_comp_queue_pkt(qp, skb): rxe_rcv()
 * hands them each packet it accepted (after its checks of addresses, QP,
 * P_Key and ICRC, and counting it in rcvd_pkts), a request to the QP's
 * responder, anything else to its requester; a multicast packet once for
 * each QP of its group.  skb->data is the BTH, the IP header in the buffer
 * in front of it; struct rxe_qp begins with its struct ib_qp.  Packets rxe
 * drops never come here: ft_tap_drop() counts them.
 */
void notrace ft_tap_queue(const void *rxe_qp, const struct sk_buff *skb)
{
	const struct ib_qp *ibqp = rxe_qp;

	tap(ibqp->device, ibqp, skb, skb_network_offset(skb), FT_RX);
}

/*
 * A CNP rxe dropped (it knows no CNP opcode) that its checks would have
 * let in: received by its QP, as rxe would count a packet it accepted.
 */
static noinline notrace void drop_cnp(struct ft_dev *dev, struct ft_qp *qp,
				      const struct ft_pkt *pkt)
{
	struct ft_dev_pcpu __percpu *pc = dev->pcpu;

	this_cpu_add(pc->bytes[FT_RX], pkt->payload);
	this_cpu_inc(pc->pkts[FT_RX][(unsigned long)pkt->slot]);
	ft_event_note(dev, qp, ft_acct_rx(qp, pkt));
}

/*
 * rxe_rcv() dropped @skb (the kfree_skb tracepoint, hook.c): count why on
 * its device, never on a QP, and a CNP its QP would have taken on the QP.
 * skb->data is the BTH, the IP header in front of it; skb->cb is rxe's
 * packet info, which begins with the receiving rxe device, which begins
 * with its struct ib_device.  Drops are rare; this may read the packet
 * whole (its ICRC).
 */
void notrace ft_tap_drop(const struct sk_buff *skb)
{
	const struct ib_device *ibdev = *(struct ib_device * const *)skb->cb;
	struct ft_drop_qp dq = { .err_refuses = FT_RXE_ERR_REFUSES };
	struct ft_pkt pkt, *pp = &pkt;
	unsigned int len, avail;
	struct ft_dev *dev;
	struct ft_qp *qp = NULL;
	const u8 *h;
	int off;

	rcu_read_lock_sched_notrace();
	/* the map's empty slots have a NULL key: rxe always sets its device */
	if (!ibdev || !ft_devmap_get(&ft_devmap, ibdev, &dev))
		goto out;
	off = skb_network_offset(skb);
	len = skb->len - off;
	/* rxe's skbs are linear; the classifier wants the whole packet */
	avail = skb_headlen(skb) - off;
	h = skb->data + off;
	if (off > 0 || ft_parse(h, avail, len, &pkt) != FT_PARSE_OK)
		pp = NULL;
	if (pp) {
		qp = ft_qpidx_find(dev->idx, pkt.qpn) ?: ft_qp_special_rx(dev, pkt.qpn);
		if (qp) {
			dq.found = 1;
			dq.type = qp->type;
			dq.state = READ_ONCE(qp->state);
			dq.peer = qp->peer;
		}
		if (pkt.opcode == FT_OPCODE_CNP && ft_rxe_takes(h, avail, len, &pkt, &dq)) {
			drop_cnp(dev, qp, &pkt);
			goto out;
		}
	}
	this_cpu_inc(dev->pcpu->drops[ft_drop_reason(h, avail, len, pp, &dq)]);
out:
	rcu_read_unlock_sched_notrace();
}

/* The same taps as ftrace callbacks, where they cannot be direct calls. */
void notrace ft_tap_tx(unsigned long ip, unsigned long parent_ip,
		       struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	ft_tap_icrc((const struct sk_buff *)ft_arg(fregs, 0),
		    (const void *)ft_arg(fregs, 1));
}

void notrace ft_tap_rx(unsigned long ip, unsigned long parent_ip,
		       struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	ft_tap_queue((const void *)ft_arg(fregs, 0),
		     (const struct sk_buff *)ft_arg(fregs, 1));
}
