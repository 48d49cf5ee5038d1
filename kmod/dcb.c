// SPDX-License-Identifier: GPL-2.0
/* The hardware part of a port's policy: pushed through DCBNL, read back, watched for drift. */

#include <linux/ftrace.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/dcbnl.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <uapi/linux/fabtrace.h>

#include "compat.h"
#include "dcb.h"
#include "dev.h"
#include "events.h"
#include "hook.h"

/*
 * One port's hardware part.  state is not-applied until a policy-set
 * pushes to the port, then applied, drift or failed.  hw is what the
 * netdev reported last: read when the device is attached, after each push
 * and after each DCB change anyone makes, so that a reader never takes the
 * RTNL or calls a driver (which may ask its firmware).  Written under the
 * RTNL and dcb_lock, read under dcb_lock.
 */
struct ft_dcb_port {
	u8 state;			/* enum fabtrace_dcb_state */
	bool have_hw;			/* hw holds what was read last */
	int err;
	const char *err_op;
	struct ft_dcb_hw hw;
};

struct ft_dcb {
	u32 nports;
	struct ft_dcb_port port[];
};

/* Orders changes of policy and their pushes against the drift checks. */
static DEFINE_MUTEX(dcb_mutex);
/* Guards the ports' cached state for readers; taken inside the RTNL. */
static DEFINE_SPINLOCK(dcb_lock);

/* What a push or read failed on. */
enum dcb_op {
	OP_GETPFC,
	OP_SETPFC,
	OP_SETAPP,
	OP_DELAPP,
	OP_GETAPPTRUST,
	OP_SETAPPTRUST,
	OP_READBACK,
};

static const char *const op_name[] = {
	[OP_GETPFC] = "ieee_getpfc",
	[OP_SETPFC] = "ieee_setpfc",
	[OP_SETAPP] = "ieee_setapp",
	[OP_DELAPP] = "ieee_delapp",
	[OP_GETAPPTRUST] = "dcbnl_getapptrust",
	[OP_SETAPPTRUST] = "dcbnl_setapptrust",
	[OP_READBACK] = "read-back",
};

/* ft_dcb_apply()'s caller returns success: this is a warning */
#define SOFT_STANDS	"; the software policy is set, not the hardware's (policy show: dcb failed)"

static void op_extack(struct netlink_ext_ack *extack, enum dcb_op op)
{
	switch (op) {
	case OP_GETPFC:
		NL_SET_ERR_MSG(extack, "DCBNL ieee_getpfc failed" SOFT_STANDS);
		break;
	case OP_SETPFC:
		NL_SET_ERR_MSG(extack, "DCBNL ieee_setpfc failed" SOFT_STANDS);
		break;
	case OP_SETAPP:
		NL_SET_ERR_MSG(extack, "DCBNL ieee_setapp failed" SOFT_STANDS);
		break;
	case OP_DELAPP:
		NL_SET_ERR_MSG(extack, "DCBNL ieee_delapp failed" SOFT_STANDS);
		break;
	case OP_GETAPPTRUST:
		NL_SET_ERR_MSG(extack, "DCBNL dcbnl_getapptrust failed" SOFT_STANDS);
		break;
	case OP_SETAPPTRUST:
		NL_SET_ERR_MSG(extack, "DCBNL dcbnl_setapptrust failed" SOFT_STANDS);
		break;
	case OP_READBACK:
		NL_SET_ERR_MSG(extack, "the driver accepted the push but reports other values"
			       SOFT_STANDS);
		break;
	}
}

static const struct dcbnl_rtnl_ops *dcb_ops(const struct net_device *ndev)
{
#if IS_ENABLED(CONFIG_DCB)
	return ndev->dcbnl_ops;
#else
	return NULL;
#endif
}

/*
 * The netdev of @port, held, if it has DCBNL operations and is registered:
 * between its unregistration and the RDMA device's, rxe and others still
 * name it, and its driver state is gone.  Context: RTNL.
 */
static struct net_device *dcb_netdev(struct ft_dev *dev, u32 port)
{
	struct net_device *ndev = ft_port_netdev(dev->ibdev, port);

	ASSERT_RTNL();
	if (ndev && (ndev->reg_state != NETREG_REGISTERED || !dcb_ops(ndev))) {
		dev_put(ndev);
		ndev = NULL;
	}
	return ndev;
}

static int dcb_dev_add(struct ft_dev *dev)
{
	u32 p, nports = rdma_end_port(dev->ibdev) + 1;
	struct ft_dcb *dcb;

	dcb = kvzalloc(struct_size(dcb, port, nports), GFP_KERNEL);
	if (!dcb)
		return -ENOMEM;
	dcb->nports = nports;
	for (p = 0; p < nports; p++)
		dcb->port[p].state = FABTRACE_DCB_STATE_NOT_APPLIED;
	dev->dcb = dcb;
	return 0;
}

static void dcb_dev_free(struct ft_dev *dev)
{
	kvfree(dev->dcb);
}

/* --- the hardware's view -------------------------------------------------- */

static int app_set(struct net_device *ndev, struct dcb_app *app)
{
	const struct dcbnl_rtnl_ops *ops = dcb_ops(ndev);

	/* as dcbnl does: a driver without the op keeps the kernel's table */
	return ops->ieee_setapp ? ops->ieee_setapp(ndev, app) : dcb_ieee_setapp(ndev, app);
}

static int app_del(struct net_device *ndev, struct dcb_app *app)
{
	const struct dcbnl_rtnl_ops *ops = dcb_ops(ndev);

	return ops->ieee_delapp ? ops->ieee_delapp(ndev, app) : dcb_ieee_delapp(ndev, app);
}

#ifdef FT_HAVE_APPTRUST
/* The selectors trusted for a policy's trust, most trusted first. */
static int trust_selectors(u8 trust, u8 *sel)
{
	if (trust == FABTRACE_TRUST_DSCP) {
		sel[0] = IEEE_8021QAZ_APP_SEL_DSCP;
		sel[1] = DCB_APP_SEL_PCP;
		return 2;
	}
	sel[0] = DCB_APP_SEL_PCP;
	return 1;
}
#endif

/*
 * Delete @ndev's entries for DSCP @d but those to the priorities in @keep.
 * The table is read now: a driver's setapp may have replaced one.
 * Context: RTNL.
 */
static int del_stale(struct net_device *ndev, u8 d, u8 keep, enum dcb_op *op)
{
	struct dcb_app app = { .selector = IEEE_8021QAZ_APP_SEL_DSCP, .protocol = d };
	struct dcb_ieee_app_dscp_map now;
	unsigned long stale;
	unsigned int prio;
	int err;

	dcb_ieee_getapp_dscp_prio_mask_map(ndev, &now);
	stale = now.map[d] & ~keep;
	*op = OP_DELAPP;
	for_each_set_bit(prio, &stale, FT_PRIO_MAX) {
		app.priority = prio;
		err = app_del(ndev, &app);
		if (err)
			return err;
	}
	return 0;
}

/* Read what @ndev reports.  Context: RTNL. */
static int read_hw(struct net_device *ndev, struct ft_dcb_hw *hw,
		   enum dcb_op *op)
{
	const struct dcbnl_rtnl_ops *ops = dcb_ops(ndev);
	struct dcb_ieee_app_dscp_map map;
	struct ieee_pfc pfc = {};
	int err;

	memset(hw, 0, sizeof(*hw));
	*op = OP_GETPFC;
	if (!ops->ieee_getpfc)
		return -EOPNOTSUPP;
	err = ops->ieee_getpfc(ndev, &pfc);
	if (err)
		return err;
	hw->pfc = pfc.pfc_en;
	hw->pfc_cap = pfc.pfc_cap;
	dcb_ieee_getapp_dscp_prio_mask_map(ndev, &map);
	BUILD_BUG_ON(sizeof(map.map) != sizeof(hw->dscp));
	memcpy(hw->dscp, map.map, sizeof(hw->dscp));
#ifdef FT_HAVE_APPTRUST
	if (ops->dcbnl_getapptrust) {
		u8 sel[IEEE_8021QAZ_APP_SEL_MAX + 1], want[2];
		int n = 0, w;

		*op = OP_GETAPPTRUST;
		err = ops->dcbnl_getapptrust(ndev, sel, &n);
		if (err)
			return err;
		hw->has_trust = 1;
		hw->trust = FT_DCB_TRUST_OTHER;
		for (w = FABTRACE_TRUST_PCP; w <= FABTRACE_TRUST_DSCP; w++)
			if (trust_selectors(w, want) == n && !memcmp(sel, want, n))
				hw->trust = w;
	}
#endif
	return 0;
}

static bool hw_matches(const struct ft_dcb_hw *hw, const struct ft_port_policy *p)
{
	unsigned int d;

	if (hw->pfc != p->pfc || (hw->has_trust && hw->trust != p->trust))
		return false;
	for (d = 0; d < FT_DSCP_MAX; d++)
		if (hw->dscp[d] != (p->trust == FABTRACE_TRUST_DSCP ? BIT(p->dscp_prio[d]) : 0))
			return false;
	return true;
}

/*
 * Make @ndev's PFC, DSCP app entries and trust those of @p, touching only
 * what differs: mlx5 bounces the link when the PFC set changes.  Under
 * trust pcp a DSCP entry would override the PCP (mlx5 trusts the DSCP as
 * long as one exists), so there are none.  A DSCP's new entry goes in
 * before its stale ones go: mlx5 replaces an entry on setapp, and falls
 * back to PCP trust when its last one is deleted.  *@changed says whether
 * anything was written.  Context: RTNL.
 */
static int push(struct net_device *ndev, const struct ft_port_policy *p,
		enum dcb_op *op, bool *changed)
{
	const struct dcbnl_rtnl_ops *ops = dcb_ops(ndev);
	struct dcb_app app = { .selector = IEEE_8021QAZ_APP_SEL_DSCP };
	struct dcb_ieee_app_dscp_map map;
	struct ieee_pfc pfc = {};
	unsigned int d;
	u8 want;
	int err;

	*changed = false;
	*op = OP_SETPFC;
	if (!ops->ieee_getpfc || !ops->ieee_setpfc)
		return -EOPNOTSUPP;
	*op = OP_GETPFC;
	err = ops->ieee_getpfc(ndev, &pfc);
	if (err)
		return err;
	if (pfc.pfc_en != p->pfc) {
		pfc.pfc_en = p->pfc;
		*op = OP_SETPFC;
		*changed = true;
		err = ops->ieee_setpfc(ndev, &pfc);
		if (err)
			return err;
	}

	dcb_ieee_getapp_dscp_prio_mask_map(ndev, &map);
	for (d = 0; d < FT_DSCP_MAX; d++) {
		want = p->trust == FABTRACE_TRUST_DSCP ? BIT(p->dscp_prio[d]) : 0;
		if (map.map[d] == want)
			continue;
		*changed = true;
		app.protocol = d;
		if (want & ~map.map[d]) {
			app.priority = p->dscp_prio[d];
			*op = OP_SETAPP;
			err = app_set(ndev, &app);
			/*
			 * ice refuses a DSCP that is mapped already: the stale
			 * entries go first there (its last one going costs its
			 * DSCP mode a moment), and the new one after.
			 */
			if (err && map.map[d]) {
				err = del_stale(ndev, d, 0, op);
				if (!err) {
					app.priority = p->dscp_prio[d];
					*op = OP_SETAPP;
					err = app_set(ndev, &app);
				}
			}
			if (err)
				return err;
		}
		err = del_stale(ndev, d, want, op);
		if (err)
			return err;
	}

#ifdef FT_HAVE_APPTRUST
	if (ops->dcbnl_setapptrust) {
		u8 sel[IEEE_8021QAZ_APP_SEL_MAX + 1], cur[2];
		int n = 0, w = trust_selectors(p->trust, cur);

		*op = OP_GETAPPTRUST;
		err = ops->dcbnl_getapptrust ? ops->dcbnl_getapptrust(ndev, sel, &n) : 0;
		if (err)
			return err;
		if (n != w || memcmp(sel, cur, n)) {
			*op = OP_SETAPPTRUST;
			*changed = true;
			err = ops->dcbnl_setapptrust(ndev, cur, w);
			if (err)
				return err;
		}
	}
#endif
	return 0;
}

/* Publish what a port's hardware reports.  Context: RTNL. */
static void dp_set(struct ft_dcb_port *dp, const struct ft_dcb_hw *hw, bool have_hw,
		   u8 state, int err, const char *err_op)
{
	spin_lock(&dcb_lock);
	if (hw)
		dp->hw = *hw;
	dp->have_hw = have_hw;
	dp->state = state;
	dp->err = err;
	dp->err_op = err ? err_op : NULL;
	spin_unlock(&dcb_lock);
}

void ft_dcb_lock(void)
{
	mutex_lock(&dcb_mutex);
}

void ft_dcb_unlock(void)
{
	mutex_unlock(&dcb_mutex);
}

/**
 * ft_dcb_apply() - push the policy of @port to its netdev's DCBNL operations
 * @dev: the device
 * @port: its port
 * @extack: for the operation that failed
 *
 * A port whose netdev has no DCBNL operations has nothing to push: its
 * policy is software only.  A push that fails half way leaves what it
 * wrote; what the hardware then reports is shown.
 * Context: process; ft_dcb_lock() held; takes the RTNL.
 *
 * Return: 0, or the driver's error (the port's state is then failed).
 */
int ft_dcb_apply(struct ft_dev *dev, u32 port, struct netlink_ext_ack *extack)
{
	struct ft_dcb_port *dp = &dev->dcb->port[port];
	struct ft_port_policy p;
	struct net_device *ndev;
	enum dcb_op op, rop;
	struct ft_dcb_hw hw;
	bool changed;
	int err = 0, rerr;
	u8 was;

	lockdep_assert_held(&dcb_mutex);
	rtnl_lock();
	ndev = dcb_netdev(dev, port);
	if (!ndev)
		goto out_unlock;
	was = dp->state;
	ft_policy_read(dev, port, &p);
	err = push(ndev, &p, &op, &changed);
	/* as dcbnl does after a set: listeners (dcb monitor, us) learn of it */
	if (changed)
		dcbnl_ieee_notify(ndev, RTM_SETDCB, DCB_CMD_IEEE_SET, 0, 0);
	rerr = read_hw(ndev, &hw, &rop);
	if (!err && rerr) {
		err = rerr;
		op = rop;
	} else if (!err && !hw_matches(&hw, &p)) {
		err = -EIO;
		op = OP_READBACK;
	}
	dp_set(dp, rerr ? NULL : &hw, !rerr,
	       err ? FABTRACE_DCB_STATE_FAILED : FABTRACE_DCB_STATE_APPLIED, err, op_name[op]);
	/* a drift this push ended is told of, as one another tool ends */
	if (was == FABTRACE_DCB_STATE_DRIFT && !err)
		ft_event_drift(dev, port, &p, &hw);
	if (err)
		op_extack(extack, op);
	dev_put(ndev);
out_unlock:
	rtnl_unlock();
	return err;
}

/*
 * A port's state for a reply, from what was read last: a reader takes no
 * RTNL and reaches no driver.  Whether fabtrace's push stands is the
 * port's; what the hardware reports, and how the driver refused a push,
 * are the netdev's, for readers in its network namespace, as its name is.
 * Context: process.
 */
void ft_dcb_snap(struct ft_dev *dev, u32 port, const struct net *net,
		 struct ft_dcb_snap *s)
{
	const struct ft_dcb_port *dp = &dev->dcb->port[port];
	struct net_device *ndev;

	memset(s, 0, sizeof(*s));
	s->state = FABTRACE_DCB_STATE_NO_NETDEV;
	ndev = ft_port_netdev(dev->ibdev, port);
	if (!ndev)
		return;
	spin_lock(&dcb_lock);
	s->state = FABTRACE_DCB_STATE_UNSUPPORTED;
	/* DCBNL gone (a driver's unload) is not announced: the pointer is */
	if (dcb_ops(ndev)) {
		s->state = dp->state;
		/* the driver's own words, for readers in its namespace */
		if (net_eq(dev_net(ndev), net)) {
			s->err = dp->err;
			s->err_op = dp->err_op;
			s->have_hw = dp->have_hw;
			s->hw = dp->hw;
		}
	}
	spin_unlock(&dcb_lock);
	dev_put(ndev);
}

/*
 * Read @dev's ports again (those whose netdev is in @net, or all), and
 * tell of each fabtrace pushed to that stopped or ceased to match its
 * policy.  Context: dcb_mutex, RTNL.
 */
static void reread(struct ft_dev *dev, const struct net *net)
{
	struct ft_port_policy p;
	struct net_device *ndev;
	struct ft_dcb_hw hw;
	enum dcb_op op;
	u32 port;

	rdma_for_each_port(dev->ibdev, port) {
		struct ft_dcb_port *dp = &dev->dcb->port[port];
		bool tell, have;
		u8 state = dp->state;

		ndev = dcb_netdev(dev, port);
		if (ndev && net && !net_eq(dev_net(ndev), net)) {
			dev_put(ndev);
			continue;
		}
		have = ndev && !read_hw(ndev, &hw, &op);
		if (ndev)
			dev_put(ndev);
		if (!have || state == FABTRACE_DCB_STATE_NOT_APPLIED) {
			dp_set(dp, have ? &hw : NULL, have, state, dp->err, dp->err_op);
			continue;
		}
		ft_policy_read(dev, port, &p);
		if (hw_matches(&hw, &p))
			state = FABTRACE_DCB_STATE_APPLIED;
		else if (dp->state != FABTRACE_DCB_STATE_FAILED)
			state = FABTRACE_DCB_STATE_DRIFT;
		/* a new difference, or the end of one */
		tell = (state == FABTRACE_DCB_STATE_DRIFT &&
			(dp->state != state || memcmp(&hw, &dp->hw, sizeof(hw)))) ||
		       (state == FABTRACE_DCB_STATE_APPLIED &&
			dp->state == FABTRACE_DCB_STATE_DRIFT);
		if (state == FABTRACE_DCB_STATE_APPLIED)
			dp_set(dp, &hw, true, state, 0, NULL);
		else
			dp_set(dp, &hw, true, state, dp->err, dp->err_op);
		if (tell)
			ft_event_drift(dev, port, &p, &hw);
	}
}

/* Read a device's ports' hardware part first.  Context: process. */
static void dcb_dev_attach(struct ft_dev *dev)
{
	mutex_lock(&dcb_mutex);
	rtnl_lock();
	reread(dev, NULL);
	rtnl_unlock();
	mutex_unlock(&dcb_mutex);
}

/* The hardware part of a device's ports' policies. */
const struct ft_dev_part ft_dcb_part = {
	.name = "dcb",
	.add = dcb_dev_add,
	.attach = dcb_dev_attach,
	.free = dcb_dev_free,
};

/* Every device with a netdev in @net, after a DCB change there.  Context: process. */
static void recheck(const struct net *net)
{
	struct ft_dev *dev;
	u32 index = 0;

	mutex_lock(&dcb_mutex);
	while ((dev = ft_dev_get(index, NULL, true))) {
		rtnl_lock();
		reread(dev, net);
		rtnl_unlock();
		index = dev->index + 1;
		ft_dev_put(dev);
	}
	mutex_unlock(&dcb_mutex);
}

/*
 * Each network namespace's recheck.  dcbnl tells of a DCB change, its own
 * or a driver's, once the change is made: rtnl_notify() to RTNLGRP_DCB,
 * or rtnl_set_sk_err() on the group when it cannot build the message
 * (dcbnl_notify(), which dcbnl inlines into its callers).  Callbacks on
 * those two see every change the group's listeners would learn of.  A
 * kernel netlink socket listening on the group, bound or not, cost
 * soft-RoCE 1 % of its bandwidth, for no reason found
 * (Documentation/performance.rst, 2c).
 */
struct dcb_net {
	struct net *net;
	struct delayed_work work;
	unsigned long last;			/* jiffies of the last recheck */
	bool pending;				/* a change waits for its recheck */
};

static unsigned int dcb_net_id;

/*
 * Any context but NMI (rtnetlink notifies from softirqs too); hooked
 * by ft_hooks_on(), inside ftrace's recursion guard, so preemption is off
 * throughout.  A namespace being dismantled may still notify (a driver's
 * event work, without the RTNL): once its count is zero, cleanup_net()
 * waits for an RCU grace period before any exit, so a callback that saw
 * the count above zero has queued its work before dcb_net_exit() cancels
 * it.
 */
static void notrace dcb_changed(struct net *net, u32 group)
{
	struct dcb_net *dn;

	if (group != RTNLGRP_DCB)
		return;
	/*
	 * Preemption is off here already (ftrace's guard), which is an RCU
	 * read side; said, so that lockdep and readers of this need not know.
	 */
	rcu_read_lock();
	if (check_net(net)) {
		dn = net_generic(net, dcb_net_id);
		WRITE_ONCE(dn->pending, true);
		queue_delayed_work(system_wq, &dn->work, 0);
	}
	rcu_read_unlock();
}

/* rtnl_notify(skb, net, pid, group, nlh, flags) */
static void notrace dcb_notify_cb(unsigned long ip, unsigned long parent_ip,
				  struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	dcb_changed((struct net *)ft_arg(fregs, 1), (u32)ft_arg(fregs, 3));
}

/* rtnl_set_sk_err(net, group, error) */
static void notrace dcb_sk_err_cb(unsigned long ip, unsigned long parent_ip,
				  struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	dcb_changed((struct net *)ft_arg(fregs, 0), (u32)ft_arg(fregs, 1));
}

static struct ft_hook dcb_hooks[] = {
	{ .sym = "rtnl_notify", .ops.func = dcb_notify_cb },
	{ .sym = "rtnl_set_sk_err", .ops.func = dcb_sk_err_cb },
};

/*
 * At most one recheck a second per namespace: each reads every DCBNL port
 * of it under the RTNL, and some drivers ask their firmware.
 */
static void dcb_work_fn(struct work_struct *work)
{
	struct dcb_net *dn = container_of(to_delayed_work(work), struct dcb_net, work);
	unsigned long now = jiffies;

	if (!READ_ONCE(dn->pending))
		return;
	if (time_before(now, dn->last + HZ)) {
		queue_delayed_work(system_wq, &dn->work, dn->last + HZ - now);
		return;
	}
	WRITE_ONCE(dn->pending, false);
	dn->last = now;
	recheck(dn->net);
}

static int __net_init dcb_net_init(struct net *net)
{
	struct dcb_net *dn = net_generic(net, dcb_net_id);

	INIT_DELAYED_WORK(&dn->work, dcb_work_fn);
	dn->net = net;
	dn->last = jiffies - HZ;
	return 0;
}

/* No callback queues the work now (dcb_changed()); it may requeue itself. */
static void __net_exit dcb_net_exit(struct net *net)
{
	struct dcb_net *dn = net_generic(net, dcb_net_id);

	cancel_delayed_work_sync(&dn->work);
}

static struct pernet_operations dcb_net_ops = {
	.init = dcb_net_init,
	.exit = dcb_net_exit,
	.id = &dcb_net_id,
	.size = sizeof(struct dcb_net),
};

int ft_dcb_init(void)
{
	int err;

	if (!IS_ENABLED(CONFIG_DCB))
		return 0;
	err = register_pernet_subsys(&dcb_net_ops);
	if (err)
		return err;
	err = ft_hooks_on(dcb_hooks, ARRAY_SIZE(dcb_hooks));
	if (err)
		goto err_unregister_pernet;
	return 0;

err_unregister_pernet:
	unregister_pernet_subsys(&dcb_net_ops);
	return err;
}

/* The callbacks are gone (ftrace waits them out) before the works go. */
void ft_dcb_exit(void)
{
	if (!IS_ENABLED(CONFIG_DCB))
		return;
	ft_hooks_off(dcb_hooks, ARRAY_SIZE(dcb_hooks));
	unregister_pernet_subsys(&dcb_net_ops);
}
