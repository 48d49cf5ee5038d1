// SPDX-License-Identifier: GPL-2.0
/* Netlink: the PFC frames each port's links received (pfc-get do and dump). */

#include <linux/netdevice.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <net/genetlink.h>
#include <rdma/ib_verbs.h>

#include "dev.h"
#include "fabtrace-nl-gen.h"
#include "nl.h"
#include "pfc.h"

/*
 * One priority's nest; @qps only for a port's (QPs are a port's, not a
 * link's).  What a NIC that counts PFC does not tell is left out, never
 * given as 0: XOFF and XON apart (@no_split: a link summed has them not),
 * the quanta (@no_quanta: a link summed is read from its driver).
 */
static int put_prio(struct sk_buff *skb, int type, const struct ft_pfc_prio_snap *ps,
		    unsigned int prio, const u32 *qps, bool no_split, bool no_quanta)
{
	const struct ft_pfc_prio *s = &ps->sum;
	struct nlattr *nest;

	nest = nla_nest_start(skb, type);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, FABTRACE_A_PFC_PRIO_PRIO, prio) ||
	    ft_nl_put_u64(skb, FABTRACE_A_PFC_PRIO_FRAMES, s->frames, FABTRACE_A_PFC_PRIO_PAD) ||
	    (!no_split &&
	     (ft_nl_put_u64(skb, FABTRACE_A_PFC_PRIO_XOFF, s->xoff, FABTRACE_A_PFC_PRIO_PAD) ||
	      ft_nl_put_u64(skb, FABTRACE_A_PFC_PRIO_XON, s->xon, FABTRACE_A_PFC_PRIO_PAD))) ||
	    (!no_quanta &&
	     ft_nl_put_u64(skb, FABTRACE_A_PFC_PRIO_QUANTA, s->quanta, FABTRACE_A_PFC_PRIO_PAD)) ||
	    ft_nl_put_u64(skb, FABTRACE_A_PFC_PRIO_PAUSED_NS, s->paused_ns,
			  FABTRACE_A_PFC_PRIO_PAD) ||
	    ft_nl_put_u64(skb, FABTRACE_A_PFC_PRIO_UNEXPECTED, s->unexpected,
			  FABTRACE_A_PFC_PRIO_PAD) ||
	    ft_nl_put_u64(skb, FABTRACE_A_PFC_PRIO_STORMS, s->storms, FABTRACE_A_PFC_PRIO_PAD) ||
	    nla_put_u32(skb, FABTRACE_A_PFC_PRIO_STATE, ps->state) ||
	    (qps && nla_put_u32(skb, FABTRACE_A_PFC_PRIO_QPS, qps[prio]))) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* One link's nest: the priorities it had frames for (the others are all 0). */
static int put_link(struct sk_buff *skb, const struct ft_pfc_link_snap *ls)
{
	struct nlattr *nest;
	unsigned int i;

	nest = nla_nest_start(skb, FABTRACE_A_PFC_LINK);
	if (!nest)
		return -EMSGSIZE;
	/* like the port's: the link's name and speed, only to its namespace */
	if ((ls->visible &&
	     (nla_put_string(skb, FABTRACE_A_PFC_LINK_NETDEV_NAME, ls->name) ||
	      nla_put_u32(skb, FABTRACE_A_PFC_LINK_NETDEV_IFINDEX, ls->ifindex) ||
	      nla_put_u32(skb, FABTRACE_A_PFC_LINK_SPEED, ls->mbps))) ||
	    /* which NIC it is, like its name, is its namespace's to know */
	    (ls->visible && ls->driver &&
	     nla_put_string(skb, FABTRACE_A_PFC_LINK_DRIVER, ls->driver)) ||
	    (!ls->driver &&
	     (ft_nl_put_u64(skb, FABTRACE_A_PFC_LINK_MALFORMED, ls->malformed,
			    FABTRACE_A_PFC_LINK_PAD) ||
	      ft_nl_put_u64(skb, FABTRACE_A_PFC_LINK_PAUSE, ls->pause,
			    FABTRACE_A_PFC_LINK_PAD))))
		goto err_cancel;
	for (i = 0; i < FT_PAUSE_PRIOS; i++)
		if ((ls->prio[i].sum.frames || ls->prio[i].sum.paused_ns) &&
		    put_prio(skb, FABTRACE_A_PFC_LINK_PRIO, &ls->prio[i], i, NULL,
			     !ls->split, ls->driver))
			goto err_cancel;
	nla_nest_end(skb, nest);
	return 0;

err_cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

static int pfc_fill(struct sk_buff *skb, struct ft_dev *dev, u32 port,
		    const struct net *net, u32 portid, u32 seq, int flags)
{
	char name[IB_DEVICE_NAME_MAX];
	/* alone in the message: links that do not fit are left out, not it */
	bool alone = !skb->len;
	u32 qps[FT_PAUSE_PRIOS];
	struct ft_pfc_snap *s;
	unsigned int i;
	void *hdr;
	int err;

	ft_nl_dev_name(dev, name);
	/* a reader in a PID namespace counts the QPs it may see */
	ft_pfc_qps(dev, port, task_active_pid_ns(current), qps);
	s = ft_pfc_snap(dev, port, net);
	if (IS_ERR_OR_NULL(s))
		return s ? PTR_ERR(s) : -EINVAL;
	err = -EMSGSIZE;
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
	    (s->ndriver &&
	     nla_put_u32(skb, FABTRACE_A_PFC_DRIVER_LINKS, s->ndriver)) ||
	    (!s->ndriver &&
	     (ft_nl_put_u64(skb, FABTRACE_A_PFC_MALFORMED, s->malformed, FABTRACE_A_PFC_PAD) ||
	      ft_nl_put_u64(skb, FABTRACE_A_PFC_PAUSE, s->pause, FABTRACE_A_PFC_PAD))))
		goto err_cancel;
	for (i = 0; i < FT_PAUSE_PRIOS; i++)
		if (put_prio(skb, FABTRACE_A_PFC_PRIO, &s->prio[i], i, qps, s->nosplit,
			     s->ndriver))
			goto err_cancel;
	for (i = 0; i < s->nlinks; i++)
		if (put_link(skb, &s->link[i])) {
			/* in a dump, the next message has more room */
			if (!alone)
				goto err_cancel;
			if (nla_put_u32(skb, FABTRACE_A_PFC_LINKS_OMITTED, s->nlinks - i))
				goto err_cancel;
			break;
		}
	genlmsg_end(skb, hdr);
	err = 0;
	goto out_free;

err_cancel:
	genlmsg_cancel(skb, hdr);
out_free:
	kvfree(s);
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
