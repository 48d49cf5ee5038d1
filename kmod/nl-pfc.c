// SPDX-License-Identifier: GPL-2.0
/* Netlink: the PFC frames each port received (pfc-get do and dump). */

#include <linux/netdevice.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <net/genetlink.h>
#include <rdma/ib_verbs.h>

#include "dev.h"
#include "fabtrace-nl-gen.h"
#include "nl.h"
#include "pfc.h"

static int put_prio(struct sk_buff *skb, const struct ft_pfc_prio *s, u64 now,
		    unsigned int prio, u32 qps)
{
	u32 state = FABTRACE_PFC_STATE_IDLE;
	struct nlattr *nest;

	if (s->storm_start)
		state = FABTRACE_PFC_STATE_STORM;
	else if (ft_pfc_is_paused(s, now))
		state = FABTRACE_PFC_STATE_PAUSED;
	nest = nla_nest_start(skb, FABTRACE_A_PFC_PRIO);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, FABTRACE_A_PFC_PRIO_PRIO, prio) ||
	    ft_nl_put_u64(skb, FABTRACE_A_PFC_PRIO_FRAMES, s->frames, FABTRACE_A_PFC_PRIO_PAD) ||
	    ft_nl_put_u64(skb, FABTRACE_A_PFC_PRIO_XOFF, s->xoff, FABTRACE_A_PFC_PRIO_PAD) ||
	    ft_nl_put_u64(skb, FABTRACE_A_PFC_PRIO_XON, s->xon, FABTRACE_A_PFC_PRIO_PAD) ||
	    ft_nl_put_u64(skb, FABTRACE_A_PFC_PRIO_QUANTA, s->quanta, FABTRACE_A_PFC_PRIO_PAD) ||
	    ft_nl_put_u64(skb, FABTRACE_A_PFC_PRIO_PAUSED_NS, ft_pfc_paused(s, now),
			  FABTRACE_A_PFC_PRIO_PAD) ||
	    ft_nl_put_u64(skb, FABTRACE_A_PFC_PRIO_UNEXPECTED, s->unexpected,
			  FABTRACE_A_PFC_PRIO_PAD) ||
	    ft_nl_put_u64(skb, FABTRACE_A_PFC_PRIO_STORMS, s->storms, FABTRACE_A_PFC_PRIO_PAD) ||
	    nla_put_u32(skb, FABTRACE_A_PFC_PRIO_STATE, state) ||
	    nla_put_u32(skb, FABTRACE_A_PFC_PRIO_QPS, qps)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

static int pfc_fill(struct sk_buff *skb, struct ft_dev *dev, u32 port,
		    const struct net *net, u32 portid, u32 seq, int flags)
{
	char name[IB_DEVICE_NAME_MAX];
	u32 qps[FT_PAUSE_PRIOS];
	struct ft_pfc_snap *s;
	unsigned int i;
	void *hdr;
	int err = -EMSGSIZE;

	/* 800 bytes: not on the stack */
	s = kmalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	ft_nl_dev_name(dev, name);
	/* a reader in a PID namespace counts the QPs it may see */
	ft_pfc_qps(dev, port, task_active_pid_ns(current), qps);
	if (!ft_pfc_snap(dev, port, s)) {
		err = -EINVAL;
		goto out_free;
	}
	hdr = genlmsg_put(skb, portid, seq, &fabtrace_nl_family, flags,
			  FABTRACE_CMD_PFC_GET);
	if (!hdr)
		goto out_free;
	if (nla_put_u32(skb, FABTRACE_A_PFC_DEV_INDEX, dev->index) ||
	    nla_put_string(skb, FABTRACE_A_PFC_DEV_NAME, name) ||
	    nla_put_u32(skb, FABTRACE_A_PFC_PORT, port) ||
	    ft_nl_put_netdev(skb, dev->ibdev, port, net, FABTRACE_A_PFC_NETDEV_NAME,
			     FABTRACE_A_PFC_NETDEV_IFINDEX) ||
	    (ft_nl_port_in_net(dev, port, net) &&
	     nla_put_u32(skb, FABTRACE_A_PFC_SPEED, s->mbps)) ||
	    ft_nl_put_u64(skb, FABTRACE_A_PFC_MALFORMED, s->malformed, FABTRACE_A_PFC_PAD) ||
	    ft_nl_put_u64(skb, FABTRACE_A_PFC_PAUSE, s->pause, FABTRACE_A_PFC_PAD))
		goto err_cancel;
	for (i = 0; i < FT_PAUSE_PRIOS; i++)
		if (put_prio(skb, &s->prio[i], s->now, i, qps[i]))
			goto err_cancel;
	genlmsg_end(skb, hdr);
	err = 0;
	goto out_free;

err_cancel:
	genlmsg_cancel(skb, hdr);
out_free:
	kfree(s);
	return err;
}

/* --- pfc-get ------------------------------------------------------------- */

static const struct ft_nl_port_get pfc_get = {
	.a_index = FABTRACE_A_PFC_DEV_INDEX,
	.a_name = FABTRACE_A_PFC_DEV_NAME,
	.a_port = FABTRACE_A_PFC_PORT,
	.fill = pfc_fill,
};

int fabtrace_nl_pfc_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	return ft_nl_port_doit(&pfc_get, info);
}

int fabtrace_nl_pfc_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return ft_nl_port_dumpit(&pfc_get, skb, cb);
}
