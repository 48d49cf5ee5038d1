// SPDX-License-Identifier: GPL-2.0
/* The PFC/ECN policy of each RDMA port: defaults, reads and copy-on-write updates. */

#include <linux/mutex.h>
#include <linux/slab.h>
#include <uapi/linux/fabtrace.h>

#include "dev.h"
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
	/* under the lock: listeners learn of changes in the order they were made */
	e->commit(&old, new, e->arg);
out_unlock:
	mutex_unlock(&policy_lock);
	if (stale == next)
		kvfree(next);
	else if (stale)
		kvfree_rcu(stale, rcu);
	return err;
}

void ft_policy_free(struct ft_dev *dev)
{
	kvfree(rcu_dereference_protected(dev->policy, true));
}
