// SPDX-License-Identifier: GPL-2.0
/* Netlink: RDMA devices (dev-get do and dump). */

#include <linux/slab.h>
#include <net/genetlink.h>
#include <rdma/ib_verbs.h>

#include "compat.h"
#include "dev.h"
#include "fabtrace-nl-gen.h"
#include "hook.h"
#include "nl.h"
#include "pfc.h"
#include "tap.h"

/* --- devices ------------------------------------------------------------- */

static int put_port(struct sk_buff *skb, struct ib_device *ibdev, u32 port,
		    const struct net *net)
{
	struct ib_port_attr attr = {};
	struct nlattr *nest;

	nest = nla_nest_start(skb, FABTRACE_A_DEV_PORT);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, FABTRACE_A_PORT_INDEX, port) ||
	    nla_put_u32(skb, FABTRACE_A_PORT_LINK_LAYER,
			rdma_port_get_link_layer(ibdev, port)))
		goto err_cancel;
	if (!ib_query_port(ibdev, port, &attr) &&
	    (nla_put_u32(skb, FABTRACE_A_PORT_STATE, attr.state) ||
	     nla_put_u32(skb, FABTRACE_A_PORT_PHYS_STATE, attr.phys_state) ||
	     nla_put_u32(skb, FABTRACE_A_PORT_ACTIVE_MTU,
			 ib_mtu_enum_to_int(attr.active_mtu))))
		goto err_cancel;

	if (ft_nl_put_netdev(skb, ibdev, port, net, FABTRACE_A_PORT_NETDEV_NAME,
			     FABTRACE_A_PORT_NETDEV_IFINDEX))
		goto err_cancel;
	nla_nest_end(skb, nest);
	return 0;

err_cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

static int put_drops(struct sk_buff *skb, const u64 *drops)
{
	struct nlattr *nest;
	unsigned int i;

	nest = nla_nest_start(skb, FABTRACE_A_DEV_RX_DROPS);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < FT_DROP_MAX; i++)
		if (ft_nl_put_u64(skb, FABTRACE_A_DROPS_MALFORMED + i, drops[i],
				  FABTRACE_A_DROPS_PAD)) {
			nla_nest_cancel(skb, nest);
			return -EMSGSIZE;
		}
	nla_nest_end(skb, nest);
	return 0;
}

static int dev_fill(struct sk_buff *skb, struct ft_dev *dev, const struct net *net,
		    u32 portid, u32 seq, int flags)
{
	struct ft_dev_pcpu *tot;
	char name[IB_DEVICE_NAME_MAX];
	u32 port, nr_live, nr_retired, nic_links;
	void *hdr;

	/* the totals outgrew a stack frame (the round trips' histogram) */
	tot = kmalloc(sizeof(*tot), GFP_KERNEL);
	if (!tot)
		return -ENOMEM;
	ft_dev_totals(dev, tot);
	nic_links = ft_pfc_nic_links(dev);
	spin_lock(&dev->lock);
	memcpy(name, dev->name, sizeof(name));
	nr_live = dev->nr_live;
	nr_retired = dev->nr_retired;
	spin_unlock(&dev->lock);

	hdr = genlmsg_put(skb, portid, seq, &fabtrace_nl_family, flags,
			  FABTRACE_CMD_DEV_GET);
	if (!hdr)
		goto err_free;
	if (nla_put_u32(skb, FABTRACE_A_DEV_INDEX, dev->index) ||
	    nla_put_string(skb, FABTRACE_A_DEV_NAME, name) ||
	    nla_put_string(skb, FABTRACE_A_DEV_DRIVER, dev->driver) ||
	    nla_put_be64(skb, FABTRACE_A_DEV_NODE_GUID, dev->ibdev->node_guid,
			 FABTRACE_A_DEV_PAD) ||
	    nla_put_u32(skb, FABTRACE_A_DEV_QPS, nr_live) ||
	    nla_put_u32(skb, FABTRACE_A_DEV_RETAINED, nr_retired) ||
	    ft_nl_put_traffic(skb, FABTRACE_A_DEV_TX, tot->bytes[FT_TX], tot->pkts[FT_TX]) ||
	    ft_nl_put_traffic(skb, FABTRACE_A_DEV_RX, tot->bytes[FT_RX], tot->pkts[FT_RX]) ||
	    ft_nl_put_u64(skb, FABTRACE_A_DEV_UNKNOWN_TX, tot->unknown[FT_TX],
			  FABTRACE_A_DEV_PAD) ||
	    ft_nl_put_u64(skb, FABTRACE_A_DEV_UNKNOWN_RX, tot->unknown[FT_RX],
			  FABTRACE_A_DEV_PAD) ||
	    ft_nl_put_u64(skb, FABTRACE_A_DEV_MALFORMED, tot->malformed,
			  FABTRACE_A_DEV_PAD) ||
	    nla_put_u8(skb, FABTRACE_A_DEV_HOOKED,
		       dev->hooked && ft_hook_rxe_attached()) ||
	    (dev->hooked && put_drops(skb, tot->drops)) ||
	    (dev->hooked && ft_tap_rtt() && ft_nl_put_dev_rtt(skb, FABTRACE_A_DEV_RTT, tot)) ||
	    (dev->hw && ft_nl_put_dev_hw(skb, dev)) ||
	    (nic_links && nla_put_u32(skb, FABTRACE_A_DEV_PFC_NIC_LINKS, nic_links)))
		goto err_cancel;
	rdma_for_each_port(dev->ibdev, port)
		if (put_port(skb, dev->ibdev, port, net))
			goto err_cancel;
	genlmsg_end(skb, hdr);
	kfree(tot);
	return 0;

err_cancel:
	genlmsg_cancel(skb, hdr);
err_free:
	kfree(tot);
	return -EMSGSIZE;
}

int fabtrace_nl_dev_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ft_dev *dev;
	struct sk_buff *msg;
	int err;

	dev = ft_nl_req_dev(info, FABTRACE_A_DEV_INDEX, FABTRACE_A_DEV_NAME, true);
	if (IS_ERR(dev))
		return PTR_ERR(dev);

	/* a hardware NIC's port counters may not fit a page */
	msg = genlmsg_new(NLMSG_GOODSIZE + (dev->hw ? ft_nl_dev_hw_size(dev) : 0), GFP_KERNEL);
	if (!msg) {
		err = -ENOMEM;
		goto err_put_dev;
	}
	err = dev_fill(msg, dev, genl_info_net(info), info->snd_portid, info->snd_seq, 0);
	if (err)
		goto err_free_msg;
	ft_dev_put(dev);
	return genlmsg_reply(msg, info);

err_free_msg:
	nlmsg_free(msg);
err_put_dev:
	ft_dev_put(dev);
	return err;
}

struct ft_dev_dump_ctx {
	u32 next_index;
};

int fabtrace_nl_dev_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct ft_dev_dump_ctx *ctx = (void *)cb->ctx;
	struct nlattr **tb = ft_dump_attrs(cb);
	struct ft_dev *dev;
	int err = 0;

	BUILD_BUG_ON(sizeof(*ctx) > sizeof(cb->ctx));
	while ((dev = ft_nl_dev_next(ctx->next_index, sock_net(cb->skb->sk)))) {
		bool match = (!tb[FABTRACE_A_DEV_INDEX] ||
			      nla_get_u32(tb[FABTRACE_A_DEV_INDEX]) == dev->index) &&
			     (!tb[FABTRACE_A_DEV_NAME] ||
			      !nla_strcmp(tb[FABTRACE_A_DEV_NAME], dev->name));

		if (match)
			err = dev_fill(skb, dev, sock_net(cb->skb->sk),
				       NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
				       NLM_F_MULTI);
		if (!err)
			ctx->next_index = dev->index + 1;
		ft_dev_put(dev);
		if (err)
			break;
	}
	/* A device that did not fit resumes the next dump; others ended it. */
	return err == -EMSGSIZE && skb->len ? skb->len : err;
}
