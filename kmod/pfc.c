// SPDX-License-Identifier: GPL-2.0
/* PFC frames received on RDMA ports' netdevs: counters, pause time, storms. */

#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <linux/pid_namespace.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <uapi/linux/fabtrace.h>

#include "compat.h"
#include "dev.h"
#include "events.h"
#include "pfc.h"
#include "policy.h"
#include "qp.h"

/* 802.1Qbb frames go to this address; a NIC's filter must let them in. */
static const u8 pfc_addr[ETH_ALEN] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 };

/* Context: RTNL.  The netdev's speed in Mb/s; 0 if unknown. */
static u32 netdev_mbps(struct net_device *ndev)
{
	struct ethtool_link_ksettings ks;

	if (__ethtool_get_link_ksettings(ndev, &ks) ||
	    ks.base.speed == SPEED_UNKNOWN)
		return 0;
	return ks.base.speed;
}

/* Context: RTNL.  Stop receiving for @pp. */
static void port_detach(struct ft_pfc_port *pp)
{
	struct net_device *ndev = pp->netdev;

	if (!ndev)
		return;
	WRITE_ONCE(pp->netdev, NULL);
	dev_mc_del(ndev, pfc_addr);
	dev_put(ndev);
}

/*
 * The frame handler sees every MAC Control frame of every netdev; this
 * finds the port whose netdev received it, among few devices and ports:
 * its cost does not depend on the number of QPs.  Context: RCU read side.
 */
static struct ft_pfc_port *port_of(const struct net_device *ndev,
				   struct ft_dev **devp, u32 *portp)
{
	struct ft_dev *dev;
	u32 p;

	list_for_each_entry_rcu(dev, &ft_devs, list) {
		struct ft_pfc *pfc = dev->pfc;

		for (p = 0; p < pfc->nports; p++)
			if (READ_ONCE(pfc->port[p].netdev) == ndev) {
				*devp = dev;
				*portp = p;
				return &pfc->port[p];
			}
	}
	return NULL;
}

static int pfc_rcv(struct sk_buff *skb, struct net_device *ndev,
		   struct packet_type *pt, struct net_device *orig)
{
	const struct ft_port_policy *pol;
	u8 buf[FT_PAUSE_FRAME_LEN];
	struct ft_pfc_port *pp;
	u64 now, detect_ns = 0;
	struct ft_pause pause;
	unsigned int i, len, ev = 0;
	struct ft_dev *dev;
	unsigned long flags;
	u8 pfc_on = 0;
	u32 port;

	pp = port_of(ndev, &dev, &port);
	if (!pp)
		goto out;
	pol = ft_policy_port(dev, port);
	if (pol) {
		pfc_on = pol->pfc;
		detect_ns = (u64)pol->wd_detect_ms * NSEC_PER_MSEC;
	}
	/* the Ethernet header, then as much of the frame as a PFC frame has */
	len = min_t(unsigned int, skb->len, FT_PAUSE_FRAME_LEN - ETH_HLEN);
	if (!skb_mac_header_was_set(skb) ||
	    skb->data - skb_mac_header(skb) != ETH_HLEN) {
		len = 0;
	} else {
		memcpy(buf, skb_mac_header(skb), ETH_HLEN);
		if (skb_copy_bits(skb, 0, buf + ETH_HLEN, len))
			len = 0;
	}

	spin_lock_irqsave(&pp->lock, flags);
	if (!len || ft_pause_parse(buf, ETH_HLEN + len, &pause) != FT_PAUSE_OK) {
		pp->malformed++;
		goto unlock;
	}
	pp->pause += pause.global;
	now = ktime_get_ns();
	for (i = 0; i < FT_PAUSE_PRIOS; i++)
		if (pause.enable & BIT(i) &&
		    ft_pfc_frame(&pp->prio[i], now, pause.quanta[i], pp->mbps,
				 pfc_on & BIT(i), detect_ns) & FT_PFC_STORM_START) {
			pp->storm_new |= BIT(i);
			ev = 1;
		}
unlock:
	spin_unlock_irqrestore(&pp->lock, flags);
	if (ev)
		mod_delayed_work(system_wq, &dev->pfc->wd, 0);
out:
	consume_skb(skb);
	return NET_RX_SUCCESS;
}

static struct packet_type pfc_pt = {
	.type = cpu_to_be16(ETH_P_PAUSE),
	.func = pfc_rcv,
};

#ifdef CONFIG_FABTRACE_BENCH
/*
 * make bench: @n PFC frames (XOFF for priority 0, 1 quantum) through the
 * frame handler of @dev's first port with a netdev, in softirq context as
 * a NIC's would come; their time in *@ns.  They count as received.
 */
int ft_pfc_bench(struct ft_dev *dev, u64 n, u64 *ns)
{
	struct net_device *ndev = NULL;
	struct ethhdr *eth;
	struct sk_buff *skb;
	__be16 *pl;
	u64 i = 0, t0;
	u32 p;

	rtnl_lock();
	for (p = 0; p < dev->pfc->nports && !ndev; p++) {
		ndev = dev->pfc->port[p].netdev;
		if (ndev)
			dev_hold(ndev);
	}
	rtnl_unlock();
	if (!ndev)
		return -ENODEV;
	skb = alloc_skb(FT_PAUSE_FRAME_LEN, GFP_KERNEL);
	if (!skb) {
		dev_put(ndev);
		return -ENOMEM;
	}
	eth = skb_put_zero(skb, FT_PAUSE_FRAME_LEN);
	ether_addr_copy(eth->h_dest, pfc_addr);
	eth->h_proto = htons(ETH_P_PAUSE);
	pl = (__be16 *)(eth + 1);
	pl[0] = htons(FT_PFC_OPC);
	pl[1] = htons(1);		/* class-enable vector: priority 0 */
	pl[2] = htons(1);		/* its quanta */
	skb_reset_mac_header(skb);
	skb_pull(skb, ETH_HLEN);
	skb->dev = ndev;
	skb->protocol = htons(ETH_P_PAUSE);

	t0 = ktime_get_ns();
	while (i < n) {
		u64 end = min(n, i + 4096);

		local_bh_disable();
		rcu_read_lock();
		for (; i < end; i++)
			pfc_rcv(skb_get(skb), ndev, &pfc_pt, ndev);
		rcu_read_unlock();
		local_bh_enable();
		cond_resched();
	}
	*ns = ktime_get_ns() - t0;
	kfree_skb(skb);
	dev_put(ndev);
	return 0;
}
#endif /* CONFIG_FABTRACE_BENCH */

/* --- QPs' share of the pauses --------------------------------------------- */

/*
 * A QP's paused time is its priority's, from when it took that priority:
 * the QP keeps the priority's total then (qp->pfc_base, in ns: 64 bits do
 * not wrap in a QP's life) and which priority that was (in the SL byte's
 * high bits), so a
 * pause frame costs the same for one QP or a million.  Every writer of
 * the two, and every reader, holds dev->lock: the pair is always read as
 * it was written, and a destroyed QP's frozen share stays frozen.
 */
#define SL_MASK		0x0f
#define PRIO_SHIFT	4

static u64 paused_ns(const struct ft_dev *dev, u32 port, u8 prio, u64 now)
{
	struct ft_pfc *pfc = dev->pfc;
	struct ft_pfc_port *pp;
	unsigned long flags;
	u64 ns;

	if (port >= pfc->nports)
		return 0;
	pp = &pfc->port[port];
	spin_lock_irqsave(&pp->lock, flags);
	ns = ft_pfc_paused(&pp->prio[prio], now);
	spin_unlock_irqrestore(&pp->lock, flags);
	return ns;
}

/* The priority of @qp's traffic class through its port's policy. */
u8 ft_qp_prio(const struct ft_dev *dev, const struct ft_qp *qp)
{
	u8 prio;

	rcu_read_lock();
	prio = ft_policy_prio(ft_policy_port(dev, READ_ONCE(qp->port)),
			      READ_ONCE(qp->tclass));
	rcu_read_unlock();
	return prio;
}

/* Caller holds dev->lock.  The priority @qp's pfc_base counts. */
static u8 counted_prio(const struct ft_qp *qp)
{
	return READ_ONCE(qp->sl) >> PRIO_SHIFT;
}

static void set_counted(struct ft_qp *qp, u8 prio, u64 base)
{
	WRITE_ONCE(qp->sl, (READ_ONCE(qp->sl) & SL_MASK) | prio << PRIO_SHIFT);
	WRITE_ONCE(qp->pfc_base, base);
}

/* Caller holds dev->lock; @qp is being published: its share starts now. */
static void pfc_qp_start(const struct ft_dev *dev, struct ft_qp *qp)
{
	u8 prio = ft_qp_prio(dev, qp);

	lockdep_assert_held(&dev->lock);
	set_counted(qp, prio, paused_ns(dev, qp->port, prio, ktime_get_ns()));
}

/*
 * Caller holds dev->lock.  @qp's port was @old_port, and its priority may
 * have changed with its traffic class or the policy: it keeps what it
 * accrued and goes on with the priority it has now.
 */
static void pfc_qp_move(const struct ft_dev *dev, struct ft_qp *qp, u32 old_port)
{
	u32 port = READ_ONCE(qp->port);
	u8 prio = ft_qp_prio(dev, qp), old = counted_prio(qp);
	u64 now, had;

	lockdep_assert_held(&dev->lock);
	if ((READ_ONCE(qp->flags) & FT_QP_PFC_FROZEN) ||
	    (port == old_port && prio == old))
		return;
	now = ktime_get_ns();
	had = ft_pfc_share(READ_ONCE(qp->pfc_base), paused_ns(dev, old_port, old, now),
			   false);
	set_counted(qp, prio, ft_pfc_share_base(had, paused_ns(dev, port, prio, now)));
}

/* Caller holds dev->lock; @qp is destroyed: its share stops growing. */
static void pfc_qp_freeze(const struct ft_dev *dev, struct ft_qp *qp)
{
	lockdep_assert_held(&dev->lock);
	if (READ_ONCE(qp->flags) & FT_QP_PFC_FROZEN)
		return;
	WRITE_ONCE(qp->pfc_base,
		   ft_pfc_share(READ_ONCE(qp->pfc_base),
				paused_ns(dev, READ_ONCE(qp->port), counted_prio(qp),
					  ktime_get_ns()), false));
	WRITE_ONCE(qp->flags, qp->flags | FT_QP_PFC_FROZEN);
}

/* Caller holds dev->lock; qp-reset: the share starts again from 0. */
void ft_pfc_qp_reset(const struct ft_dev *dev, struct ft_qp *qp)
{
	lockdep_assert_held(&dev->lock);
	if (READ_ONCE(qp->flags) & FT_QP_PFC_FROZEN)
		WRITE_ONCE(qp->pfc_base, 0);
	else
		WRITE_ONCE(qp->pfc_base,
			   paused_ns(dev, READ_ONCE(qp->port), counted_prio(qp),
				     ktime_get_ns()));
}

/* The microseconds @qp's priority was paused.  Context: not under dev->lock. */
u64 ft_pfc_qp_paused_us(struct ft_dev *dev, const struct ft_qp *qp)
{
	bool frozen;
	u64 ns;

	spin_lock(&dev->lock);
	frozen = READ_ONCE(qp->flags) & FT_QP_PFC_FROZEN;
	ns = ft_pfc_share(READ_ONCE(qp->pfc_base),
			  frozen ? 0 : paused_ns(dev, READ_ONCE(qp->port),
						 counted_prio(qp), ktime_get_ns()),
			  frozen);
	spin_unlock(&dev->lock);
	return div_u64(ns, NSEC_PER_USEC);
}

struct policy_move {
	u32 port;
	const struct ft_port_policy *old, *new;
};

static void policy_move_one(const struct ft_dev *cdev, struct ft_qp *qp, void *arg)
{
	struct ft_dev *dev = (struct ft_dev *)cdev;
	const struct policy_move *m = arg;
	bool here;

	/* under the lock: path_changed() may be moving the QP to another port */
	spin_lock(&dev->lock);
	here = READ_ONCE(qp->port) == m->port;
	if (here)
		pfc_qp_move(dev, qp, m->port);
	spin_unlock(&dev->lock);
	if (here && ft_qp_misconfigured(dev, qp, m->new) &&
	    !ft_qp_misconfigured(dev, qp, m->old))
		ft_event_qp(dev, qp, FABTRACE_EVENT_KIND_MISCONFIGURED);
}

/*
 * A new policy may give QPs of @port other priorities, and make some
 * misconfigured.  Context: the policy lock, process; @new is published.
 * A QP published meanwhile took its priority under @new already.
 */
/* A port's policy changed: its QPs may have another priority now. */
static void pfc_policy_changed(const struct ft_dev *dev, u32 port,
			       const struct ft_port_policy *old,
			       const struct ft_port_policy *new)
{
	struct policy_move m = { .port = port, .old = old, .new = new };

	ft_qp_walk(dev, policy_move_one, &m);
}

struct prio_count {
	u32 port;
	struct pid_namespace *ns;
	u32 n[FT_PAUSE_PRIOS];
};

static void prio_count_one(const struct ft_dev *dev, struct ft_qp *qp, void *arg)
{
	struct prio_count *c = arg;

	if (READ_ONCE(qp->port) == c->port && ft_qp_visible(qp, c->ns))
		c->n[ft_qp_prio(dev, qp)]++;
}

/* The live QPs of @port per priority that a reader in @ns sees, into @n. */
void ft_pfc_qps(const struct ft_dev *dev, u32 port, struct pid_namespace *ns,
		u32 *n)
{
	struct prio_count c = { .port = port, .ns = ns };

	ft_qp_walk(dev, prio_count_one, &c);
	memcpy(n, c.n, sizeof(c.n));
}

/**
 * ft_pfc_snap() - copy the PFC state of one port
 * @dev: the device
 * @port: its port
 * @s: the copy
 *
 * Return: false if @port has no PFC state.
 */
bool ft_pfc_snap(const struct ft_dev *dev, u32 port, struct ft_pfc_snap *s)
{
	struct ft_pfc_port *pp;
	unsigned long flags;

	if (port >= dev->pfc->nports)
		return false;
	pp = &dev->pfc->port[port];
	spin_lock_irqsave(&pp->lock, flags);
	s->now = ktime_get_ns();
	s->mbps = pp->mbps;
	s->malformed = pp->malformed;
	s->pause = pp->pause;
	memcpy(s->prio, pp->prio, sizeof(s->prio));
	spin_unlock_irqrestore(&pp->lock, flags);
	return true;
}

/* --- the storm watchdog ----------------------------------------------------- */

struct storm_ev {
	u32 kind, port, prio;
	u64 duration;
};

/*
 * Storms start in the frame handler, which cannot send events; they end
 * when no frame comes, which no frame can tell.  This sends the first and
 * finds the second, sleeping until the next storm could end.
 */
static void wd_fn(struct work_struct *work)
{
	struct ft_pfc *pfc = container_of(to_delayed_work(work), struct ft_pfc, wd);
	struct storm_ev ev[FT_PAUSE_PRIOS * 2];
	u64 now = ktime_get_ns(), next = U64_MAX;
	u32 port, qps[FT_PAUSE_PRIOS];
	unsigned int i, n;

	for (port = 0; port < pfc->nports; port++) {
		struct ft_pfc_port *pp = &pfc->port[port];
		const struct ft_port_policy *pol;
		u64 restore_ns = 0, end;
		unsigned long flags;

		rcu_read_lock();
		pol = ft_policy_port(pfc->dev, port);
		if (pol && pol->wd_detect_ms)
			restore_ns = (u64)pol->wd_restore_ms * NSEC_PER_MSEC;
		rcu_read_unlock();

		n = 0;
		spin_lock_irqsave(&pp->lock, flags);
		for (i = 0; i < FT_PAUSE_PRIOS; i++) {
			struct ft_pfc_prio *s = &pp->prio[i];

			if (pp->storm_new & BIT(i))
				ev[n++] = (struct storm_ev){
					FABTRACE_EVENT_KIND_STORM_START, port, i,
					now - s->storm_start };
			if (!s->storm_start)
				continue;
			/* the watchdog turned off ends a storm at once */
			end = restore_ns ? ft_pfc_storm_ends(s, restore_ns) : now;
			if (end > now) {
				next = min(next, end);
				continue;
			}
			ev[n++] = (struct storm_ev){
				FABTRACE_EVENT_KIND_STORM_END, port, i,
				s->until - s->storm_start };
			s->storm_start = 0;
		}
		pp->storm_new = 0;
		spin_unlock_irqrestore(&pp->lock, flags);

		if (!n)
			continue;
		/* the events group is for CAP_NET_ADMIN: every QP counts */
		ft_pfc_qps(pfc->dev, port, &init_pid_ns, qps);
		for (i = 0; i < n; i++)
			ft_event_storm(pfc->dev, ev[i].kind, ev[i].port, ev[i].prio,
				       ev[i].duration, qps[ev[i].prio]);
	}
	if (next != U64_MAX)
		schedule_delayed_work(&pfc->wd, nsecs_to_jiffies(next - now) + 1);
}

/* --- ports and their netdevs ------------------------------------------------ */

static int pfc_dev_add(struct ft_dev *dev)
{
	u32 p, nports = rdma_end_port(dev->ibdev) + 1;
	struct ft_pfc *pfc;

	pfc = kvzalloc(struct_size(pfc, port, nports), GFP_KERNEL);
	if (!pfc)
		return -ENOMEM;
	pfc->dev = dev;
	pfc->nports = nports;
	INIT_DELAYED_WORK(&pfc->wd, wd_fn);
	for (p = 0; p < nports; p++)
		spin_lock_init(&pfc->port[p].lock);
	dev->pfc = pfc;
	return 0;
}

/*
 * Start receiving the device's ports' PFC frames.  Context: the device is
 * published (the netdev notifier may detach a port from here on); process.
 */
static void pfc_dev_attach(struct ft_dev *dev)
{
	struct ft_pfc *pfc = dev->pfc;
	struct net_device *ndev;
	u32 p;

	rtnl_lock();
	for (p = rdma_start_port(dev->ibdev); p < pfc->nports; p++) {
		struct ft_pfc_port *pp = &pfc->port[p];

		ndev = ft_port_netdev(dev->ibdev, p);
		if (!ndev)
			continue;
		if (ndev->reg_state != NETREG_REGISTERED || dev_mc_add(ndev, pfc_addr)) {
			dev_put(ndev);
			continue;
		}
		pp->mbps = netdev_mbps(ndev);
		WRITE_ONCE(pp->netdev, ndev);
	}
	rtnl_unlock();
}

/*
 * Stop.  Context: the frame handler can no longer find the device (it is
 * off the list, and a grace period passed); process.
 */
static void pfc_dev_detach(struct ft_dev *dev)
{
	struct ft_pfc *pfc = dev->pfc;
	u32 p;

	rtnl_lock();
	for (p = 0; p < pfc->nports; p++)
		port_detach(&pfc->port[p]);
	rtnl_unlock();
	/* no frame handler runs to queue it again */
	cancel_delayed_work_sync(&pfc->wd);
}

static void pfc_dev_free(struct ft_dev *dev)
{
	kvfree(dev->pfc);
}

/* A device's ports' PFC state, and the storm watchdog of them. */
const struct ft_dev_part ft_pfc_part = {
	.name = "pfc",
	.add = pfc_dev_add,
	.attach = pfc_dev_attach,
	.detach = pfc_dev_detach,
	.free = pfc_dev_free,
	.policy_changed = pfc_policy_changed,
	.qp_added = pfc_qp_start,
	.qp_moved = pfc_qp_move,
	.qp_retired = pfc_qp_freeze,
};

/*
 * The netdevs of ports: one going away is let go at once (rxe removes its
 * RDMA device only later, from a work item), and a speed is read again
 * when the link changes.  Context: RTNL.
 */
static int pfc_netdev_event(struct notifier_block *nb, unsigned long event,
			    void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	bool found = false;
	struct ft_dev *dev;
	u32 p, mbps = 0;
	int pass;

	if (event != NETDEV_UNREGISTER && event != NETDEV_UP &&
	    event != NETDEV_CHANGE)
		return NOTIFY_DONE;
	/* the speed is read only for a port's netdev, outside RCU: it may sleep */
	for (pass = 0; pass < 2; pass++) {
		if (pass && (!found || event == NETDEV_UNREGISTER))
			break;
		if (pass)
			mbps = netdev_mbps(ndev);
		rcu_read_lock();
		list_for_each_entry_rcu(dev, &ft_devs, list) {
			struct ft_pfc *pfc = dev->pfc;

			for (p = 0; p < pfc->nports; p++) {
				struct ft_pfc_port *pp = &pfc->port[p];
				unsigned long flags;

				if (pp->netdev != ndev)
					continue;
				found = true;
				if (event == NETDEV_UNREGISTER) {
					port_detach(pp);
				} else if (pass) {
					spin_lock_irqsave(&pp->lock, flags);
					pp->mbps = mbps;
					spin_unlock_irqrestore(&pp->lock, flags);
				}
			}
		}
		rcu_read_unlock();
	}
	return NOTIFY_DONE;
}

static struct notifier_block pfc_nb = {
	.notifier_call = pfc_netdev_event,
};

int ft_pfc_init(void)
{
	int err;

	err = register_netdevice_notifier(&pfc_nb);
	if (err)
		return err;
	dev_add_pack(&pfc_pt);
	return 0;
}

/* Context: every device is gone. */
void ft_pfc_exit(void)
{
	dev_remove_pack(&pfc_pt);
	unregister_netdevice_notifier(&pfc_nb);
}
