// SPDX-License-Identifier: GPL-2.0
/* PFC frames received on RDMA ports' links: counters, pause time, storms. */

#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/hashtable.h>
#include <linux/if_arp.h>
#include <linux/netdevice.h>
#include <linux/pid_namespace.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <rdma/ib_verbs.h>
#include <uapi/linux/fabtrace.h>

#include "compat.h"
#include "dev.h"
#include "events.h"
#include "pfc.h"
#include "pfc-drv.h"
#include "policy.h"
#include "qp.h"

/*
 * A NIC that implements PFC consumes the frames in its MAC, and only its
 * driver's counters tell: read them this often (each read is commands to
 * the NIC's firmware on mlx5), and look for such counters on the others
 * every FT_PFC_RELOOK_MS (mlx5 lists a priority's once PFC is on for it).
 */
static unsigned int pfc_poll_ms = 200;
module_param(pfc_poll_ms, uint, 0644);
MODULE_PARM_DESC(pfc_poll_ms, "NICs that count PFC in hardware: how often their pause counters are read, ms (default 200, at least 50)");
#define FT_PFC_POLL_MIN_MS	50U
#define FT_PFC_RELOOK_MS	10000

/* 802.1Qbb frames go to this address; a NIC's filter must let them in. */
static const u8 pfc_addr[ETH_ALEN] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 };

/*
 * Every link of every port, by netdev: the frame handler's way in, one
 * bucket whatever the devices, ports and QPs.  A netdev below two ports
 * (rxe on a macvlan and on the device under it) is a link of each.
 * Written under the RTNL, read under RCU.
 */
static DEFINE_HASHTABLE(pfc_links, 6);
/* a netdev between its NETDEV_UNREGISTER and its REGISTER in a new netns; RTNL */
static const struct net_device *pfc_moving;
/* The attached devices' PFC state, for the netdev notifier.  RTNL. */
static LIST_HEAD(pfc_all);

/* Context: RTNL.  The netdev's speed in Mb/s; 0 if unknown. */
static u32 netdev_mbps(struct net_device *ndev)
{
	struct ethtool_link_ksettings ks;

	if (__ethtool_get_link_ksettings(ndev, &ks) ||
	    ks.base.speed == SPEED_UNKNOWN)
		return 0;
	return ks.base.speed;
}

/* One frame arrived on @link; @pause is NULL if it is none we trust. */
static void link_frame(struct ft_pfc_link *link, const struct ft_pause *pause)
{
	struct ft_pfc_port *pp = link->port;
	struct ft_pfc *pfc = pp->pfc;
	const struct ft_port_policy *pol;
	u64 now, detect_ns = 0;
	unsigned long flags;
	unsigned int i;
	bool ev = false;
	u8 pfc_on = 0;

	pol = ft_policy_port(pfc->dev, pp->num);
	if (pol) {
		pfc_on = pol->pfc;
		detect_ns = (u64)pol->wd_detect_ms * NSEC_PER_MSEC;
	}
	spin_lock_irqsave(&pp->lock, flags);
	/*
	 * Dropped meanwhile: its figures are in the port's sums already.  Or
	 * its NIC counts: a frame that reached the host was counted there.
	 */
	if (!link->live || link->driver)
		goto unlock;
	if (!pause) {
		link->malformed++;
		goto unlock;
	}
	link->pause += pause->global;
	/* under the lock: a link's frames are accounted in time order */
	now = ktime_get_ns();
	for (i = 0; i < FT_PAUSE_PRIOS; i++)
		if (pause->enable & BIT(i) &&
		    ft_pfc_frame(&link->prio[i], now, pause->quanta[i], link->mbps,
				 pfc_on & BIT(i), detect_ns) & FT_PFC_STORM_START) {
			link->storm_new |= BIT(i);
			ev = true;
		}
unlock:
	spin_unlock_irqrestore(&pp->lock, flags);
	if (ev)
		mod_delayed_work(system_wq, &pfc->wd, 0);
}

/* Whether @skb holds a pause fabtrace trusts, parsed into @pause. */
static bool frame_parse(const struct sk_buff *skb, struct ft_pause *pause)
{
	u8 buf[FT_PAUSE_FRAME_LEN];
	unsigned int len;

	/* the Ethernet header, then as much of the frame as a PFC frame has */
	len = min_t(unsigned int, skb->len, FT_PAUSE_FRAME_LEN - ETH_HLEN);
	if (!skb_mac_header_was_set(skb) ||
	    skb->data - skb_mac_header(skb) != ETH_HLEN)
		return false;
	memcpy(buf, skb_mac_header(skb), ETH_HLEN);
	if (skb_copy_bits(skb, 0, buf + ETH_HLEN, len))
		return false;
	return ft_pause_parse(buf, ETH_HLEN + len, pause) == FT_PAUSE_OK;
}

/*
 * Every MAC Control frame of every netdev comes here.  It counts on the
 * device that received it, @orig: a bond's or team's slave (@ndev is the
 * bond for a frame of its active slave), the real device under a VLAN (a
 * PFC frame is untagged).  No allocation, no QP touched: a QP's paused
 * time is derived when it is read.
 */
static int pfc_rcv(struct sk_buff *skb, struct net_device *ndev,
		   struct packet_type *pt, struct net_device *orig)
{
	struct ft_pfc_link *link;
	struct ft_pause pause;
	int ok = -1;

	hash_for_each_possible_rcu(pfc_links, link, hnode, (unsigned long)orig) {
		if (link->ndev != orig)
			continue;
		if (ok < 0)
			ok = frame_parse(skb, &pause);
		link_frame(link, ok ? &pause : NULL);
	}
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
 * frame handler, as @dev's first link received them, in softirq context
 * as a NIC's would come; their time in *@ns.  They count as received.
 */
int ft_pfc_bench(struct ft_dev *dev, u64 n, u64 *ns)
{
	struct net_device *ndev = NULL;
	struct ft_pfc_link *link;
	struct ethhdr *eth;
	struct sk_buff *skb;
	__be16 *pl;
	u64 i = 0, t0;
	u32 p;

	rtnl_lock();
	for (p = 0; p < dev->pfc->nports && !ndev; p++) {
		link = list_first_entry_or_null(&dev->pfc->port[p].links,
						struct ft_pfc_link, node);
		if (link) {
			ndev = link->ndev;
			dev_hold(ndev);
		}
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

/*
 * A priority's total: the sum of its links' paused time, those the port
 * has and those it had (link-time: two slaves of a bond paused for the
 * same millisecond count two).  A link comes in from 0 and leaves its
 * figures behind, so the total never goes back.
 */
static u64 paused_ns(const struct ft_dev *dev, u32 port, u8 prio, u64 now)
{
	struct ft_pfc *pfc = dev->pfc;
	struct ft_pfc_link *link;
	struct ft_pfc_port *pp;
	unsigned long flags;
	u64 ns;

	if (port >= pfc->nports)
		return 0;
	pp = &pfc->port[port];
	spin_lock_irqsave(&pp->lock, flags);
	ns = pp->gone[prio].paused_ns;
	list_for_each_entry(link, &pp->links, node)
		ns += ft_pfc_paused(&link->prio[prio], now);
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

/* Add @s to the figures of @ps at @now: its sums, and the worst state. */
static void prio_snap_add(struct ft_pfc_prio_snap *ps, const struct ft_pfc_prio *s,
			  u64 now, bool polled)
{
	ft_pfc_fold(&ps->sum, s, now);
	if (s->storm_start)
		ps->state = FABTRACE_PFC_STATE_STORM;
	else if ((polled ? ft_pfc_poll_paused(s, now) : ft_pfc_is_paused(s, now)) &&
		 ps->state != FABTRACE_PFC_STATE_STORM)
		ps->state = FABTRACE_PFC_STATE_PAUSED;
}

/**
 * ft_pfc_snap() - copy the PFC state of one port and of each of its links
 * @dev: the device
 * @port: its port
 * @net: the reader's network namespace: links elsewhere are not named
 *
 * Context: process.
 * Return: the copy (kfree() it), NULL if @port has no PFC state, or
 * ERR_PTR(-ENOMEM).
 */
struct ft_pfc_snap *ft_pfc_snap(const struct ft_dev *dev, u32 port,
				const struct net *net)
{
	struct ft_pfc_link_snap *ls;
	struct ft_pfc_link *link;
	struct ft_pfc_port *pp;
	struct ft_pfc_snap *s;
	unsigned long flags;
	unsigned int i;
	u32 n;
	u64 now;

	if (port >= dev->pfc->nports)
		return NULL;
	pp = &dev->pfc->port[port];
	n = READ_ONCE(pp->nlinks);
	for (;;) {
		s = kvzalloc(struct_size(s, link, n), GFP_KERNEL);
		if (!s)
			return ERR_PTR(-ENOMEM);
		spin_lock_irqsave(&pp->lock, flags);
		if (pp->nlinks <= n)
			break;
		/* a link came meanwhile: room for it */
		n = pp->nlinks;
		spin_unlock_irqrestore(&pp->lock, flags);
		kvfree(s);
	}
	now = ktime_get_ns();
	s->mbps = pp->mbps;
	s->malformed = pp->malformed;
	s->pause = pp->pause;
	for (i = 0; i < FT_PAUSE_PRIOS; i++)
		prio_snap_add(&s->prio[i], &pp->gone[i], now, false);
	list_for_each_entry(link, &pp->links, node) {
		ls = &s->link[s->nlinks++];
		/* a link's netdev keeps its namespace: it is dropped before a move */
		ls->visible = net_eq(dev_net(link->ndev), net);
		if (ls->visible) {
			strscpy(ls->name, link->ndev->name, sizeof(ls->name));
			ls->ifindex = link->ndev->ifindex;
		}
		ls->mbps = link->mbps;
		ls->driver = link->driver ? link->driver->family : NULL;
		/* XOFF and XON apart: ice's and i40e's, not mlx5's nor bnxt's */
		ls->split = !link->driver || link->driver->affix[FT_PFC_STAT_XOFF][0];
		s->ndriver += !!link->driver;
		s->nosplit += !ls->split;
		ls->malformed = link->malformed;
		ls->pause = link->pause;
		s->malformed += link->malformed;
		s->pause += link->pause;
		for (i = 0; i < FT_PAUSE_PRIOS; i++) {
			prio_snap_add(&ls->prio[i], &link->prio[i], now, !!link->driver);
			prio_snap_add(&s->prio[i], &link->prio[i], now, !!link->driver);
		}
	}
	spin_unlock_irqrestore(&pp->lock, flags);
	return s;
}

/* How many links of @dev's ports are counted from their driver's counters. */
u32 ft_pfc_nic_links(const struct ft_dev *dev)
{
	struct ft_pfc_link *link;
	unsigned long flags;
	u32 p, n = 0;

	for (p = 0; p < dev->pfc->nports; p++) {
		struct ft_pfc_port *pp = &dev->pfc->port[p];

		spin_lock_irqsave(&pp->lock, flags);
		list_for_each_entry(link, &pp->links, node)
			n += !!link->driver;
		spin_unlock_irqrestore(&pp->lock, flags);
	}
	return n;
}

/* --- the storm watchdog ----------------------------------------------------- */

struct storm_ev {
	u32 kind, prio;
	u64 duration;
};

/*
 * Context: the port's lock.  How events name @link: the events group is
 * in the initial network namespace, where another's names mean nothing.
 */
static u32 link_ident(const struct ft_pfc_link *link, char *name)
{
	name[0] = '\0';
	if (!net_eq(dev_net(link->ndev), &init_net))
		return 0;
	strscpy(name, link->ndev->name, IFNAMSIZ);
	return link->ndev->ifindex;
}

/* Send @n storm events of a link of @pp, named by @ifindex and @name. */
static void storm_send(struct ft_pfc_port *pp, const struct storm_ev *ev,
		       unsigned int n, u32 ifindex, const char *name)
{
	u32 qps[FT_PAUSE_PRIOS];
	unsigned int i;

	if (!n)
		return;
	/* the events group is for CAP_NET_ADMIN: every QP counts */
	ft_pfc_qps(pp->pfc->dev, pp->num, &init_pid_ns, qps);
	for (i = 0; i < n; i++)
		ft_event_storm(pp->pfc->dev, ev[i].kind, pp->num, ev[i].prio,
			       ev[i].duration, qps[ev[i].prio], ifindex, name);
}

/*
 * Storms start in the frame handler, which cannot send events; they end
 * when no frame comes, which no frame can tell.  This sends the first and
 * finds the second, sleeping until the next storm could end.  Each link
 * storms on its own: a storm on one slave of a bond is a storm.
 */
static void wd_fn(struct work_struct *work)
{
	struct ft_pfc *pfc = container_of(to_delayed_work(work), struct ft_pfc, wd);
	struct storm_ev ev[FT_PAUSE_PRIOS * 2];
	u64 now = ktime_get_ns(), next = U64_MAX;
	char name[IFNAMSIZ];
	unsigned int i, n;
	u32 port, ifindex;

	rcu_read_lock();
	for (port = 0; port < pfc->nports; port++) {
		struct ft_pfc_port *pp = &pfc->port[port];
		const struct ft_port_policy *pol;
		struct ft_pfc_link *link;
		u64 restore_ns = 0, end;
		unsigned long flags;

		pol = ft_policy_port(pfc->dev, port);
		if (pol && pol->wd_detect_ms)
			restore_ns = (u64)pol->wd_restore_ms * NSEC_PER_MSEC;

		list_for_each_entry_rcu(link, &pp->links, node) {
			n = 0;
			spin_lock_irqsave(&pp->lock, flags);
			/* a dropped link's storms ended with it (link_drop()) */
			for (i = 0; link->live && i < FT_PAUSE_PRIOS; i++) {
				struct ft_pfc_prio *s = &link->prio[i];

				if (link->storm_new & BIT(i))
					ev[n++] = (struct storm_ev){
						FABTRACE_EVENT_KIND_STORM_START, i,
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
					FABTRACE_EVENT_KIND_STORM_END, i,
					s->until - s->storm_start };
				s->storm_start = 0;
				/*
				 * A pause read late from a driver's counters
				 * starts another storm, not this one again
				 */
				s->since = 0;
			}
			link->storm_new = 0;
			ifindex = n ? link_ident(link, name) : 0;
			spin_unlock_irqrestore(&pp->lock, flags);
			storm_send(pp, ev, n, ifindex, name);
		}
	}
	rcu_read_unlock();
	if (next != U64_MAX)
		schedule_delayed_work(&pfc->wd, nsecs_to_jiffies(next - now) + 1);
}

/* --- NICs that count PFC themselves ---------------------------------------- */

/*
 * Context: RTNL.  Whether @link's driver counts its PFC (ft_pfc_drv_look()
 * says when it looks again).  From a change on, the link counts the other
 * way, what it counted kept.
 */
static void link_look(struct ft_pfc_port *pp, struct ft_pfc_link *link)
{
	const struct ft_pfc_names *names;
	unsigned long flags;
	unsigned int i;
	int ret;
	u64 now;

	ret = ft_pfc_drv_look(&link->drv, link->ndev);
	names = ret > 0 ? ft_pfc_drv_names(link->drv) : NULL;
	/*
	 * A look that failed (no memory, a list changing under it) changes
	 * nothing: the next one may do.  mlx5's list grows as PFC is turned
	 * on: look now and then.  A link read from its driver is looked at
	 * by its reads.
	 */
	if ((ret < 0 || (link->drv && !names)) && !link->driver)
		queue_delayed_work(system_long_wq, &pp->pfc->poll,
				   msecs_to_jiffies(FT_PFC_RELOOK_MS));
	if (ret < 0)
		return;
	if (names == link->driver) {
		/* its counters moved: counted from this look */
		if (ret == 2) {
			link->polled = ktime_get_ns();
			link->half = 0;
		}
		return;
	}
	spin_lock_irqsave(&pp->lock, flags);
	now = ktime_get_ns();
	for (i = 0; i < FT_PAUSE_PRIOS; i++)
		ft_pfc_switch(&link->prio[i], now);
	link->driver = names;
	spin_unlock_irqrestore(&pp->lock, flags);
	link->polled = now;
	link->half = 0;
	link->due = jiffies;
	if (names)
		mod_delayed_work(system_long_wq, &pp->pfc->poll, 0);
}

/*
 * Context: RTNL.  Account what @link's driver counted since the last
 * read; the next read is due @next_ms later.
 * Return: whether the watchdog has to look (a storm started, a pause ended).
 */
static bool link_poll(struct ft_pfc_port *pp, struct ft_pfc_link *link,
		      unsigned int next_ms)
{
	struct ft_pfc_read r[FT_PAUSE_PRIOS];
	const struct ft_port_policy *pol;
	u64 t0, now, half, detect_ns = 0;
	unsigned int i, ret;
	unsigned long flags;
	bool ev = false;
	u8 pfc_on = 0;
	int err;

	t0 = ktime_get_ns();
	err = ft_pfc_drv_read(link->drv, link->ndev, r);
	/* a read is commands to the NIC's firmware: it was taken halfway */
	half = (ktime_get_ns() - t0) / 2;
	now = t0 + half;
	/*
	 * The list changed (its names may be another's, or none), or it is
	 * time to read its names again.  Counts not read wait for the next.
	 */
	if (err == -EAGAIN)
		link_look(pp, link);
	if (err)
		return false;
	if (link->driver->min_poll_ms) {
		/*
		 * Counters a driver refreshes now and then: a read that found
		 * none moved may come before the refresh, and is no read.
		 */
		for (i = 0; i < FT_PAUSE_PRIOS; i++)
			if (r[i].frames || r[i].xoff || r[i].xon ||
			    (r[i].paused_ns && r[i].paused_ns != FT_PFC_NO_TIME))
				break;
		if (i == FT_PAUSE_PRIOS)
			return false;
		for (i = 0; i < FT_PAUSE_PRIOS; i++)
			r[i].window_ns = (u64)link->driver->min_poll_ms * NSEC_PER_MSEC;
	}
	/* where inside this read and the last the values were taken */
	for (i = 0; i < FT_PAUSE_PRIOS; i++)
		r[i].slack_ns = half + link->half;
	link->half = half;
	rcu_read_lock();
	pol = ft_policy_port(pp->pfc->dev, pp->num);
	if (pol) {
		pfc_on = pol->pfc;
		detect_ns = (u64)pol->wd_detect_ms * NSEC_PER_MSEC;
	}
	rcu_read_unlock();
	spin_lock_irqsave(&pp->lock, flags);
	for (i = 0; i < FT_PAUSE_PRIOS; i++) {
		ret = ft_pfc_poll(&link->prio[i], link->polled, now, &r[i], pfc_on & BIT(i),
				  detect_ns, (u64)next_ms * NSEC_PER_MSEC);
		if (ret & FT_PFC_STORM_START)
			link->storm_new |= BIT(i);
		/* the watchdog: a storm starts, or may end sooner than it thought */
		ev |= !!ret;
	}
	spin_unlock_irqrestore(&pp->lock, flags);
	link->polled = now;
	return ev;
}

/*
 * Read the counters of every link whose driver counts PFC, when due, and
 * look again at those whose driver has statistics but none of PFC.
 * Under the RTNL, as ethtool calls drivers; a port at a time.
 */
static void poll_fn(struct work_struct *work)
{
	struct ft_pfc *pfc = container_of(to_delayed_work(work), struct ft_pfc, poll);
	unsigned int ms = max(READ_ONCE(pfc_poll_ms), FT_PFC_POLL_MIN_MS), next;
	struct ft_pfc_link *link;
	bool any = false, ev = false;
	u32 p;

	for (p = 0; p < pfc->nports; p++) {
		struct ft_pfc_port *pp = &pfc->port[p];

		rtnl_lock();
		list_for_each_entry(link, &pp->links, node) {
			if (!link->driver) {
				link_look(pp, link);
				continue;
			}
			any = true;
			if (time_before(jiffies, link->due))
				continue;
			/* a driver that refreshes its counters less often is read as often */
			next = max(ms, link->driver->min_poll_ms);
			link->due = jiffies + msecs_to_jiffies(next);
			ev |= link_poll(pp, link, next);
		}
		rtnl_unlock();
	}
	if (ev)
		mod_delayed_work(system_wq, &pfc->wd, 0);
	if (any)
		mod_delayed_work(system_long_wq, &pfc->poll, msecs_to_jiffies(ms));
}

/* --- ports and their links -------------------------------------------------- */

/*
 * Context: RTNL.  Stop counting on @link: what it counted stays in the
 * port's sums, its pauses cut here, and a storm on it ends here (with its
 * events, unless @quiet: the device is going away).  Freed once no frame
 * handler can be looking at it.
 */
static void link_drop(struct ft_pfc_port *pp, struct ft_pfc_link *link, bool quiet)
{
	struct storm_ev ev[FT_PAUSE_PRIOS * 2];
	char name[IFNAMSIZ];
	unsigned long flags;
	unsigned int i, n = 0;
	u32 ifindex;
	u64 now;

	ASSERT_RTNL();
	hash_del_rcu(&link->hnode);
	spin_lock_irqsave(&pp->lock, flags);
	now = ktime_get_ns();
	link->live = false;
	list_del_rcu(&link->node);
	pp->nlinks--;
	pp->malformed += link->malformed;
	pp->pause += link->pause;
	for (i = 0; i < FT_PAUSE_PRIOS; i++) {
		struct ft_pfc_prio *s = &link->prio[i];

		ft_pfc_fold(&pp->gone[i], s, now);
		if (link->storm_new & BIT(i))
			ev[n++] = (struct storm_ev){ FABTRACE_EVENT_KIND_STORM_START, i,
						     now - s->storm_start };
		if (s->storm_start)
			ev[n++] = (struct storm_ev){ FABTRACE_EVENT_KIND_STORM_END, i,
						     min(s->until, now) - s->storm_start };
	}
	ifindex = link_ident(link, name);
	spin_unlock_irqrestore(&pp->lock, flags);
	if (!quiet)
		storm_send(pp, ev, n, ifindex, name);
	dev_mc_del(link->ndev, pfc_addr);
	/* RTNL's, as is the poll that reads it */
	ft_pfc_drv_free(link->drv);
	dev_put(link->ndev);
	kfree_rcu(link, rcu);
}

/*
 * Context: RTNL.  @ndev, a real device below @pp's netdev, is one of its
 * links: it was, or it is from now on, with a state of its own.
 */
static void link_want(struct ft_pfc_port *pp, struct net_device *ndev)
{
	struct ft_pfc_link *link;
	unsigned long flags;
	int err;

	/* PFC is Ethernet's, and its address is 6 bytes long (an IPoIB slave's 20) */
	if (ndev->type != ARPHRD_ETHER || ndev->addr_len != ETH_ALEN)
		return;
	list_for_each_entry(link, &pp->links, node)
		if (link->ndev == ndev) {
			link->seen = true;
			/* one whose driver had no statistics then: it may have now */
			if (!link->drv)
				link_look(pp, link);
			return;
		}
	/* a failure is the allocator's to report: the link is not counted */
	link = kzalloc(sizeof(*link), GFP_KERNEL);
	if (!link)
		return;
	/* in the NIC's filter before anything can count */
	err = dev_mc_add(ndev, pfc_addr);
	if (err) {
		pr_warn_ratelimited("%s: port %u: %s refused the PFC address (%d): its PFC frames are not counted\n",
				    pp->pfc->dev->name, pp->num, ndev->name, err);
		kfree(link);
		return;
	}
	dev_hold(ndev);
	link->ndev = ndev;
	link->port = pp;
	link->mbps = netdev_mbps(ndev);
	link->live = true;
	link->seen = true;
	spin_lock_irqsave(&pp->lock, flags);
	list_add_tail_rcu(&link->node, &pp->links);
	pp->nlinks++;
	spin_unlock_irqrestore(&pp->lock, flags);
	link_look(pp, link);
	/* last: the frame handler finds it whole */
	hash_add_rcu(pfc_links, &link->hnode, (unsigned long)ndev);
}

/*
 * Context: RTNL.  Make the real devices below @ndev (@ndev itself, if
 * nothing is below it) links of @pp.  A device going away (@gone, whose
 * NETDEV_UNREGISTER this is, or one already unregistering) takes what is
 * below it along: its uppers let go of it only after the notifier chain.
 */
static void lower_walk(struct ft_pfc_port *pp, struct net_device *ndev,
		       const struct net_device *gone, unsigned int depth)
{
	struct net_device *lower;
	struct list_head *iter;
	bool real = true;

	/* the core refuses deeper stacks; a bound all the same */
	if (ndev == gone || ndev == pfc_moving ||
	    ndev->reg_state != NETREG_REGISTERED || depth > MAX_NEST_DEV)
		return;
	/*
	 * A bridge (or Open vSwitch) consumes 802.1Q link-local frames in its
	 * rx handler, before any packet handler sees them: its ports' PFC
	 * frames cannot be counted, and each port would be a link.
	 */
	if (netif_is_bridge_master(ndev) || netif_is_ovs_master(ndev))
		return;
	netdev_for_each_lower_dev(ndev, lower, iter) {
		real = false;
		lower_walk(pp, lower, gone, depth + 1);
	}
	if (real)
		link_want(pp, ndev);
}

/*
 * Context: RTNL.  Find @pp's netdev and links again: links still below it
 * keep their state, new ones start from 0, the others are dropped.
 * @gone: a netdev being unregistered, to leave out (NULL: none).
 */
static void port_rebuild(struct ft_pfc_port *pp, const struct net_device *gone)
{
	struct ft_pfc_link *link, *tmp;
	struct net_device *ndev, *old;
	unsigned long flags;
	u32 mbps;

	ASSERT_RTNL();
	ndev = ft_port_netdev(pp->pfc->dev->ibdev, pp->num);
	if (ndev && (ndev == gone || ndev == pfc_moving ||
		     ndev->reg_state != NETREG_REGISTERED)) {
		dev_put(ndev);
		ndev = NULL;
	}
	old = pp->netdev;
	if (ndev == old) {
		dev_put(ndev);
	} else {
		mbps = ndev ? netdev_mbps(ndev) : 0;
		/* with ft_port_netdev()'s reference */
		WRITE_ONCE(pp->netdev, ndev);
		spin_lock_irqsave(&pp->lock, flags);
		pp->mbps = mbps;
		spin_unlock_irqrestore(&pp->lock, flags);
		dev_put(old);
	}

	list_for_each_entry(link, &pp->links, node)
		link->seen = false;
	if (ndev)
		lower_walk(pp, ndev, gone, 0);
	list_for_each_entry_safe(link, tmp, &pp->links, node)
		if (!link->seen)
			link_drop(pp, link, false);
}

static int pfc_dev_add(struct ft_dev *dev)
{
	u32 p, nports = rdma_end_port(dev->ibdev) + 1;
	struct ft_pfc *pfc;

	pfc = kvzalloc(struct_size(pfc, port, nports), GFP_KERNEL);
	if (!pfc)
		return -ENOMEM;
	pfc->dev = dev;
	pfc->nports = nports;
	INIT_LIST_HEAD(&pfc->node);
	INIT_DELAYED_WORK(&pfc->wd, wd_fn);
	INIT_DELAYED_WORK(&pfc->poll, poll_fn);
	for (p = 0; p < nports; p++) {
		spin_lock_init(&pfc->port[p].lock);
		pfc->port[p].pfc = pfc;
		pfc->port[p].num = p;
		INIT_LIST_HEAD(&pfc->port[p].links);
	}
	dev->pfc = pfc;
	return 0;
}

/*
 * Start receiving the device's ports' PFC frames.  Context: the device is
 * published; process.  From here on the netdev notifier keeps its ports'
 * links.
 */
static void pfc_dev_attach(struct ft_dev *dev)
{
	struct ft_pfc *pfc = dev->pfc;
	u32 p;

	rtnl_lock();
	list_add_tail(&pfc->node, &pfc_all);
	for (p = rdma_start_port(dev->ibdev); p < pfc->nports; p++)
		port_rebuild(&pfc->port[p], NULL);
	rtnl_unlock();
}

/*
 * Stop, in the reverse order: the notifier forgets the device, the frame
 * handler and the poll its links, then the watchdog stops.  Context: process; frames
 * may still arrive.
 */
static void pfc_dev_detach(struct ft_dev *dev)
{
	struct ft_pfc *pfc = dev->pfc;
	struct ft_pfc_link *link, *tmp;
	struct net_device *old;
	u32 p;

	rtnl_lock();
	list_del(&pfc->node);
	for (p = 0; p < pfc->nports; p++) {
		struct ft_pfc_port *pp = &pfc->port[p];

		list_for_each_entry_safe(link, tmp, &pp->links, node)
			link_drop(pp, link, true);
		old = pp->netdev;
		WRITE_ONCE(pp->netdev, NULL);
		dev_put(old);
	}
	rtnl_unlock();
	/* the poll finds no link to read, nor to queue the watchdog for */
	cancel_delayed_work_sync(&pfc->poll);
	/* a frame handler that found a link before it was dropped is done */
	synchronize_rcu();
	/* and none can queue it again */
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

/* Context: RTNL.  Every port's links again; @gone: one being unregistered. */
static void rebuild_all(const struct net_device *gone)
{
	struct ft_pfc *pfc;
	u32 p;

	list_for_each_entry(pfc, &pfc_all, node)
		for (p = rdma_start_port(pfc->dev->ibdev); p < pfc->nports; p++)
			port_rebuild(&pfc->port[p], gone);
}

/* Context: RTNL.  @ndev's speed may have changed: read it again where it counts. */
static void speed_changed(struct net_device *ndev)
{
	struct ft_pfc_link *link;
	struct ft_pfc *pfc;
	unsigned long flags;
	bool known = false;
	u32 p, mbps = 0;

	list_for_each_entry(pfc, &pfc_all, node) {
		for (p = 0; p < pfc->nports; p++) {
			struct ft_pfc_port *pp = &pfc->port[p];
			bool mine = pp->netdev == ndev;

			list_for_each_entry(link, &pp->links, node)
				mine |= link->ndev == ndev;
			if (!mine)
				continue;
			/* it may sleep: out of every lock but the RTNL */
			if (!known) {
				mbps = netdev_mbps(ndev);
				known = true;
			}
			spin_lock_irqsave(&pp->lock, flags);
			if (pp->netdev == ndev)
				pp->mbps = mbps;
			list_for_each_entry(link, &pp->links, node)
				if (link->ndev == ndev)
					link->mbps = mbps;
			spin_unlock_irqrestore(&pp->lock, flags);
		}
	}
}

/*
 * Ports follow their netdevs.  A port's links change when a device is
 * linked below it or unlinked (NETDEV_CHANGEUPPER, sent for the lower
 * device: a slave enslaved or released, a VLAN added), when its netdev
 * registers (again: a move to another namespace unregisters it first),
 * and when one of them unregisters: it goes at once, as rxe removes its
 * RDMA device only later, from a work item.  Neither a slave's state
 * (NETDEV_CHANGELOWERSTATE: an inactive slave still receives PFC frames,
 * link-local ones pass the bond) nor anything else changes which devices
 * are below.  Speeds are read again when a link comes up or changes.
 * Context: RTNL.
 */
static int pfc_netdev_event(struct notifier_block *nb, unsigned long event,
			    void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);

	switch (event) {
	case NETDEV_REGISTER:
		if (ndev == pfc_moving)
			pfc_moving = NULL;
		rebuild_all(NULL);
		break;
	case NETDEV_CHANGEUPPER:
		rebuild_all(NULL);
		break;
	case NETDEV_UNREGISTER:
		/*
		 * Still registered: a move to another namespace, which flushes
		 * the device's multicast list after the notifier chain.  Until
		 * it registers there, a nested event (a bond releasing it) must
		 * not make it a link again.
		 */
		if (ndev->reg_state == NETREG_REGISTERED)
			pfc_moving = ndev;
		rebuild_all(ndev);
		break;
	case NETDEV_UP:
		/* a port whose driver named its netdev after our REGISTER */
		rebuild_all(NULL);
		speed_changed(ndev);
		break;
	case NETDEV_CHANGE:
		speed_changed(ndev);
		break;
	}
	return NOTIFY_DONE;
}

/*
 * After the drivers' own blocks (priority 0): some set a port's netdev from
 * theirs (mlx5 on 6.1, vmw_pvrdma), at the REGISTER this one reads it at.
 */
static struct notifier_block pfc_nb = {
	.notifier_call = pfc_netdev_event,
	.priority = -1,
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
