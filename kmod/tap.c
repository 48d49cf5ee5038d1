// SPDX-License-Identifier: GPL-2.0
/* Soft-RoCE data path taps: every packet rxe sends or receives. */

#include <linux/percpu.h>
#include <linux/skbuff.h>
#include <rdma/ib_verbs.h>

#include "dev.h"
#include "events.h"
#include "hook.h"
#include "qp.h"
#include "roce.h"
#include "tap.h"

/*
 * The hot path: parse, find, account.  No lock, no allocation, no printk;
 * per-CPU device totals and atomic per-QP counters.
 */
static __always_inline void tap(const struct ib_device *ibdev,
				const struct ib_qp *ibqp,
				const struct sk_buff *skb, int off,
				unsigned int dir)
{
	/*
	 * Not cleared on every packet (CONFIG_INIT_STACK_ALL_ZERO): only
	 * headers outside the linear part, which rxe never sends, land here.
	 */
	u8 buf[FT_HDR_MAX] __uninitialized;
	struct ft_pkt pkt;
	struct ft_dev *dev;
	struct ft_qp *qp;
	unsigned int len, avail, ev;
	const u8 *h;

	rcu_read_lock();
	dev = ft_dev_of(ibdev);
	if (unlikely(!dev))
		goto out;

	len = skb->len - off;
	avail = min_t(unsigned int, len, FT_HDR_MAX);
	h = skb_header_pointer(skb, off, avail, buf);
	if (unlikely(!h || ft_parse(h, avail, len, &pkt) != FT_PARSE_OK)) {
		this_cpu_inc(dev->pcpu->malformed);
		goto out;
	}
	this_cpu_add(dev->pcpu->bytes[dir], pkt.payload);
	this_cpu_inc(dev->pcpu->cls[dir][pkt.cls]);

	if (dir == FT_TX)
		qp = ft_qp_of(dev, ibqp);
	else
		qp = ft_qpidx_find(dev->idx, pkt.qpn);
	if (unlikely(!qp)) {
		this_cpu_inc(dev->pcpu->unknown[dir]);
		goto out;
	}

	ev = dir == FT_TX ? ft_acct_tx(qp, &pkt) : ft_acct_rx(qp, &pkt);
	if (unlikely(ev))
		ft_event_note(dev, qp, ev);
out:
	rcu_read_unlock();
}

/* rxe_xmit_packet(qp, pkt, skb): skb->data is the IP header. */
void notrace ft_tap_tx(unsigned long ip, unsigned long parent_ip,
		       struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	/* struct rxe_qp begins with its struct ib_qp */
	const struct ib_qp *ibqp = (const struct ib_qp *)ft_arg(fregs, 0);
	const struct sk_buff *skb = (const struct sk_buff *)ft_arg(fregs, 2);

	tap(ibqp->device, ibqp, skb, 0, FT_TX);
}

/*
 * rxe_rcv(skb), from the UDP tunnel or from rxe's loopback: skb->data is
 * the BTH, the IP header is still in the buffer in front of it, and
 * skb->cb holds rxe's packet info, whose first member points to the
 * receiving rxe device, whose first member is its struct ib_device.
 */
void notrace ft_tap_rx(unsigned long ip, unsigned long parent_ip,
		       struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	const struct sk_buff *skb = (const struct sk_buff *)ft_arg(fregs, 0);
	const struct ib_device *ibdev = *(struct ib_device * const *)skb->cb;

	tap(ibdev, NULL, skb, skb_network_offset(skb), FT_RX);
}
