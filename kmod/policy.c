// SPDX-License-Identifier: GPL-2.0
/* The PFC/ECN policy of each RDMA port: defaults, reads and copy-on-write updates. */

#include <linux/mutex.h>
#include <linux/slab.h>
#include <uapi/linux/fabtrace.h>

#include "dev.h"
#include "events.h"
#include "policy.h"

/* Serialises policy writers against each other; readers use RCU. */
static DEFINE_MUTEX(policy_lock);

/* The defaults of RoCE NICs and of DCQCN's notification point. */
void ft_policy_default(struct ft_port_policy *p)
{
	unsigned int d;

	memset(p, 0, sizeof(*p));
	p->trust = FABTRACE_TRUST_PCP;
	for (d = 0; d < FT_DSCP_MAX; d++)
		p->dscp_prio[d] = d >> 3;
	p->cnp = 1;
	p->cnp_interval_us = 50;
	p->cnp_dscp = 48;
	p->wd_action = FABTRACE_WD_ACTION_ALERT;
}

/*
 * The DSCPs whose packets leave ECT(0)-marked: those whose priority is
 * ECN-capable.  Trusting the PCP, a packet's priority is its VLAN PCP.
 * rxe never sets skb->priority: its frames are untagged (priority 0), or
 * on a VLAN netdev tagged with egress-qos-map's entry for 0, which is 0
 * unless remapped (not followed here).  So priority 0 decides for every
 * DSCP.
 */
u64 ft_policy_ect_dscp(const struct ft_port_policy *p)
{
	unsigned int d;
	u64 m = 0;

	if (p->trust == FABTRACE_TRUST_PCP)
		return p->ecn & 1 ? ~0ULL : 0;
	for (d = 0; d < FT_DSCP_MAX; d++)
		if (p->ecn & (1u << p->dscp_prio[d]))
			m |= 1ULL << d;
	return m;
}

/* Copy the policy of @port of @dev into @p (the defaults if never set). */
void ft_policy_read(struct ft_dev *dev, u32 port, struct ft_port_policy *p)
{
	const struct ft_policy *pol;

	rcu_read_lock();
	pol = rcu_dereference(dev->policy);
	if (pol && port < pol->nports)
		*p = pol->port[port];
	else
		ft_policy_default(p);
	rcu_read_unlock();
}

/*
 * The policy of @port, or NULL for the defaults.  Context: RCU read side
 * (the frame handler's, in softirq, too).
 */
const struct ft_port_policy *ft_policy_port(const struct ft_dev *dev, u32 port)
{
	const struct ft_policy *pol = rcu_dereference(dev->policy);

	return pol && port < pol->nports ? &pol->port[port] : NULL;
}

/**
 * ft_qp_misconfigured() - whether @qp's traffic class goes against @p
 * @dev: its device
 * @qp: a QP entry
 * @p: its port's policy (NULL: the defaults)
 *
 * Lossless priorities configured, and the QP's is none of them; or an
 * ECN-capable priority for a QP that asks for Not-ECT, on a device whose
 * packets fabtrace does not see (rxe's, it marks).  Only connected QPs
 * have a traffic class of their own.
 */
bool ft_qp_misconfigured(const struct ft_dev *dev, const struct ft_qp *qp,
			 const struct ft_port_policy *p)
{
	u8 tclass = READ_ONCE(qp->tclass), prio;

	if (!p || !READ_ONCE(qp->rqpn))
		return false;
	prio = ft_policy_prio(p, tclass);
	if (p->pfc && !(p->pfc & BIT(prio)))
		return true;
	return (p->ecn & BIT(prio)) && !(tclass & 3) && !dev->hooked;
}

/* The same under the policy of the moment.  Context: any. */
bool ft_qp_misconfigured_now(const struct ft_dev *dev, const struct ft_qp *qp)
{
	bool ret;

	rcu_read_lock();
	ret = ft_qp_misconfigured(dev, qp, ft_policy_port(dev, READ_ONCE(qp->port)));
	rcu_read_unlock();
	return ret;
}

int ft_policy_edit(struct ft_dev *dev, u32 port, const struct ft_policy_edit *e)
{
	u32 nports = rdma_end_port(dev->ibdev) + 1;
	struct ft_port_policy old, *new;
	struct ft_policy *cur, *next, *stale;
	unsigned int i;
	int err;

	if (WARN_ON_ONCE(port >= nports))
		return -EINVAL;
	/* a switch's representors make many ports: not one kmalloc page */
	next = kvmalloc(struct_size(next, port, nports), GFP_KERNEL);
	if (!next)
		return -ENOMEM;

	mutex_lock(&policy_lock);
	cur = rcu_dereference_protected(dev->policy, lockdep_is_held(&policy_lock));
	next->nports = nports;
	for (i = 0; i < nports; i++) {
		if (cur && i < cur->nports)
			next->port[i] = cur->port[i];
		else
			ft_policy_default(&next->port[i]);
	}
	old = next->port[port];
	new = &next->port[port];
	stale = next;			/* unless it is published */
	err = e->edit(new, e->arg);
	if (err || !memcmp(&old, new, sizeof(old)))
		goto out_unlock;
	rcu_assign_pointer(dev->policy, next);
	if (port == rdma_start_port(dev->ibdev))
		WRITE_ONCE(dev->ect_dscp, ft_policy_ect_dscp(new));
	stale = cur;
	/* pairs with the barrier of a QP being published (qp_insert()) */
	smp_mb();
	ft_dev_policy_changed(dev, port, &old, new);
	/* under the lock: listeners learn of changes in the order they were made */
	ft_event_policy(dev, port, &old, new);
out_unlock:
	mutex_unlock(&policy_lock);
	if (stale == next)
		kvfree(next);
	else if (stale)
		kvfree_rcu(stale, rcu);
	return err;
}

/* Context: the device is unreachable for readers (after a grace period). */
static void policy_free(struct ft_dev *dev)
{
	kvfree(rcu_dereference_protected(dev->policy, true));
}

/* A device's policies: none until the first change (the defaults). */
const struct ft_dev_part ft_policy_part = {
	.name = "policy",
	.free = policy_free,
};
