// SPDX-License-Identifier: GPL-2.0
/* CNPs fabtrace sends on soft-RoCE: DCQCN's notification point. */

#include <linux/ip.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <net/ip.h>
#include <net/route.h>

#include "cnp.h"
#include "dev.h"
#include "events.h"
#include "pfc.h"
#include "policy.h"
#include "roce.h"

struct ft_cnp_stats ft_cnp_stats;

/*
 * Send @len bytes at @cnp, from an IPv4 header on, out of @ndev (NULL:
 * wherever the route goes), at @prio.  Context: no sleeping.
 */
static int cnp_send(const u8 *cnp, unsigned int len, struct net_device *ndev,
		    u8 prio)
{
	const struct iphdr *iph = (const struct iphdr *)cnp;
	/* rxe works only in the initial namespace; its netdev says */
	struct net *net = ndev ? dev_net(ndev) : &init_net;
	struct flowi4 fl4 = {
		.daddr = iph->daddr,
		.saddr = iph->saddr,
		.flowi4_oif = ndev ? ndev->ifindex : 0,
		.flowi4_proto = IPPROTO_UDP,
	};
	struct sk_buff *skb;
	struct rtable *rt;
	int err;

	/* a source that is not ours fails here */
	rt = ip_route_output_key(net, &fl4);
	if (IS_ERR(rt))
		return PTR_ERR(rt);
	skb = alloc_skb(LL_RESERVED_SPACE(rt->dst.dev) + len, GFP_ATOMIC);
	if (!skb) {
		ip_rt_put(rt);
		return -ENOMEM;
	}
	skb_reserve(skb, LL_RESERVED_SPACE(rt->dst.dev));
	skb_reset_network_header(skb);
	skb_set_transport_header(skb, sizeof(*iph));
	skb_put_data(skb, cnp, len);
	skb->protocol = htons(ETH_P_IP);
	skb->priority = prio;
	skb_dst_set(skb, &rt->dst);
	/* __ip_local_out() computes the header checksum again: the same */
	err = ip_local_out(net, NULL, skb);
	return net_xmit_eval(err);
}

/*
 * Whether the CE-marked packet at @ip came from @qp's peer over IPv4: only
 * then is it answered, and to the peer the QP knows (rxe checks the
 * addresses of connected QPs only; a UD QP's packet may come from anyone).
 */
static bool from_peer(const struct ft_qp *qp, const u8 *ip, unsigned int avail)
{
	static const u8 v4mapped[12] = { [10] = 0xff, [11] = 0xff };

	return avail >= 20 && ip[0] >> 4 == 4 &&
	       !memcmp(qp->peer, v4mapped, sizeof(v4mapped)) &&
	       !memcmp(qp->peer + 12, ip + 12, 4);
}

/**
 * ft_cnp_answer() - a CE-marked packet arrived for @qp: answer it with a CNP
 * @dev: the device
 * @qp: the receiving QP
 * @ip: the packet, from its IP header on
 * @avail: bytes at @ip
 *
 * Only if the QP's priority is ECN-capable and CNPs are on in its port's
 * policy, the packet came from the QP's peer over IPv4, and no CNP of the
 * QP went out within cnp-interval.  The packet passed rxe's checks (its
 * ICRC, P_Key, QP and addresses): the receive tap runs after them, so a
 * CE mark on a corrupted packet, or on a careless forger's, is never
 * answered.  They are no authentication: one who knows the QP numbers and
 * computes the ICRC passes them, as against rxe itself.  rxe, which has no rate
 * limiter, is not told: fabtrace is the notification point only.  The CNP
 * goes out of the port's netdev, to the peer and QP the QP knows; a local
 * peer gets it through the stack's backlog, and rxe's receive tap sees it
 * there as an ordinary CNP (never CE-marked: it starts no other).
 *
 * Context: the receive tap; no sleeping.
 */
void ft_cnp_answer(struct ft_dev *dev, struct ft_qp *qp, const u8 *ip,
		   unsigned int avail)
{
	u32 rqpn = READ_ONCE(qp->rqpn), port = READ_ONCE(qp->port);
	const struct ft_port_policy *pol;
	struct net_device *ndev = NULL;
	u64 now, prev, interval = 0;
	u8 cnp[FT_CNP_LEN];
	u8 dscp = 0, prio = 0;
	bool on;

	if (!rqpn)			/* not connected: no one to tell */
		return;
	rcu_read_lock();
	pol = ft_policy_port(dev, port);
	on = pol && pol->cnp &&
	     (pol->ecn & BIT(ft_policy_prio(pol, READ_ONCE(qp->tclass))));
	if (on) {
		interval = (u64)pol->cnp_interval_us * NSEC_PER_USEC;
		dscp = pol->cnp_dscp;
		prio = ft_policy_prio(pol, dscp << 2);
	}
	rcu_read_unlock();
	if (!on)
		return;
	if (!from_peer(qp, ip, avail)) {
		atomic64_inc(&ft_cnp_stats.skipped);
		return;
	}

	/*
	 * At most one CNP per interval per QP, whatever the QP receives
	 * (its peer's CNPs, or forged ones, have their own stamp) and on how
	 * many CPUs: the interval is claimed before the CNP is built.
	 */
	now = ktime_get_ns();
	prev = READ_ONCE(qp->cnp_sent);
	do {
		/* signed: another CPU may have claimed a later instant */
		if (prev && (s64)(now - prev) < (s64)interval) {
			atomic64_inc(&ft_cnp_stats.limited);
			return;
		}
	} while (!try_cmpxchg64(&qp->cnp_sent, &prev, now));
	/* the netdev is held while it is cached; freed after a grace period */
	rcu_read_lock();
	if (port < dev->pfc->nports)
		ndev = READ_ONCE(dev->pfc->port[port].netdev);
	if (!ft_cnp_build(cnp, ip, avail, rqpn, dscp) ||
	    cnp_send(cnp, sizeof(cnp), ndev, prio)) {
		rcu_read_unlock();
		atomic64_inc(&ft_cnp_stats.failed);
		return;
	}
	rcu_read_unlock();
	atomic64_inc(&ft_cnp_stats.sent);
	atomic64_inc(&qp->dir_tx.pkts[FT_CLS_CNP]);
	this_cpu_inc(dev->pcpu->pkts[FT_TX][FT_CLS_CNP]);
	ft_event_note(dev, qp, FT_EV_CNP);
}
