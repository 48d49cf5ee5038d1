// SPDX-License-Identifier: GPL-2.0
/* The fabtrace generic netlink family: shared attribute writers, registration. */

#include <linux/ktime.h>
#include <linux/netdevice.h>
#include <linux/timekeeping.h>
#include <net/genetlink.h>

#include "compat.h"
#include "dev.h"
#include "fabtrace-nl-gen.h"
#include "netlink.h"
#include "nl.h"
#include "qp.h"

/*
 * Entries keep CLOCK_MONOTONIC nanoseconds (what retain_ms and the event
 * intervals are measured in); userspace gets CLOCK_REALTIME.  One offset
 * read makes the same instant read the same in every reply.
 */
u64 ft_nl_realtime(u64 mono_ns)
{
	return ktime_to_ns(ktime_mono_to_real(ns_to_ktime(mono_ns)));
}

int ft_nl_put_u64(struct sk_buff *skb, int type, u64 val, int pad)
{
	return nla_put_u64_64bit(skb, type, val, pad);
}

int ft_nl_put_traffic(struct sk_buff *skb, int type, u64 bytes,
		      const u64 *cls)
{
	/* the class of each attribute, in the UAPI's order */
	static const u8 attr_cls[FT_CLS_MAX] = {
		FT_CLS_SEND, FT_CLS_WRITE, FT_CLS_READ_REQ, FT_CLS_READ_RESP,
		FT_CLS_ATOMIC, FT_CLS_ACK, FT_CLS_NAK, FT_CLS_CNP, FT_CLS_OTHER,
	};
	struct nlattr *nest;
	unsigned int i;
	u64 packets = 0;

	for (i = 0; i < FT_CLS_MAX; i++)
		packets += cls[i];
	nest = nla_nest_start(skb, type);
	if (!nest)
		return -EMSGSIZE;
	if (ft_nl_put_u64(skb, FABTRACE_A_TRAFFIC_PACKETS, packets, FABTRACE_A_TRAFFIC_PAD) ||
	    ft_nl_put_u64(skb, FABTRACE_A_TRAFFIC_BYTES, bytes, FABTRACE_A_TRAFFIC_PAD))
		goto err_cancel;
	for (i = 0; i < FT_CLS_MAX; i++)
		if (ft_nl_put_u64(skb, FABTRACE_A_TRAFFIC_SEND + i, cls[attr_cls[i]],
				  FABTRACE_A_TRAFFIC_PAD))
			goto err_cancel;
	nla_nest_end(skb, nest);
	return 0;

err_cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

static int put_naks(struct sk_buff *skb, int type, const u64 *nak)
{
	struct nlattr *nest;
	unsigned int i;

	nest = nla_nest_start(skb, type);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < FT_NAK_MAX; i++)
		if (ft_nl_put_u64(skb, FABTRACE_A_NAK_PSN_SEQ + i, nak[i],
				  FABTRACE_A_NAK_PAD))
			goto err_cancel;
	nla_nest_end(skb, nest);
	return 0;

err_cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

static int put_cong(struct sk_buff *skb, int type, const struct ft_snap *s)
{
	const u64 counts[] = {
		s->retrans, s->timeouts, s->rnr_timeouts, s->rx_dup,
		s->rx_oos, s->retry_exh, s->errors,
	};
	struct nlattr *nest;
	unsigned int i;

	nest = nla_nest_start(skb, type);
	if (!nest)
		return -EMSGSIZE;
	if (ft_nl_put_u64(skb, FABTRACE_A_CONG_RX_ECT, s->rx_ect, FABTRACE_A_CONG_PAD) ||
	    ft_nl_put_u64(skb, FABTRACE_A_CONG_RX_CE, s->rx_ce, FABTRACE_A_CONG_PAD) ||
	    put_naks(skb, FABTRACE_A_CONG_TX_NAK, s->nak[FT_TX]) ||
	    put_naks(skb, FABTRACE_A_CONG_RX_NAK, s->nak[FT_RX]))
		goto err_cancel;
	for (i = 0; i < ARRAY_SIZE(counts); i++)
		if (ft_nl_put_u64(skb, FABTRACE_A_CONG_RETRANSMITS + i, counts[i],
				  FABTRACE_A_CONG_PAD))
			goto err_cancel;
	for (i = 0; i < FT_LAST_MAX; i++)
		if (s->last[i] &&
		    ft_nl_put_u64(skb, FABTRACE_A_CONG_LAST_CE + i,
				  ft_nl_realtime(s->last[i]), FABTRACE_A_CONG_PAD))
			goto err_cancel;
	nla_nest_end(skb, nest);
	return 0;

err_cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

/**
 * ft_nl_put_qp_rtt() - a QP's round trips (rtt.h), as a qp-rtt nest
 * @skb: the message
 * @type: the nest's type
 * @r: the QP's
 *
 * Return: 0 or -EMSGSIZE.
 */
int ft_nl_put_qp_rtt(struct sk_buff *skb, int type, const struct ft_rtt *r)
{
	u32 hist[FT_RTT_QP_BUCKETS], ad = READ_ONCE(r->ack_delay);
	struct nlattr *nest;
	unsigned int i;
	u64 n = 0;

	for (i = 0; i < FT_RTT_QP_BUCKETS; i++) {
		hist[i] = (u32)atomic_read(&r->hist[i]);
		n += hist[i];
	}
	nest = nla_nest_start(skb, type);
	if (!nest)
		return -EMSGSIZE;
	if (ft_nl_put_u64(skb, FABTRACE_A_QP_RTT_SAMPLES, n, FABTRACE_A_QP_RTT_PAD) ||
	    (ad && nla_put_u32(skb, FABTRACE_A_QP_RTT_ACK_DELAY_NS, ad)))
		goto err_cancel;
	if (n && READ_ONCE(r->min)) {
		if (nla_put_u32(skb, FABTRACE_A_QP_RTT_LAST_NS, READ_ONCE(r->last)) ||
		    nla_put_u32(skb, FABTRACE_A_QP_RTT_MIN_NS, READ_ONCE(r->min)) ||
		    nla_put_u32(skb, FABTRACE_A_QP_RTT_SRTT_NS, READ_ONCE(r->srtt)) ||
		    nla_put_u32(skb, FABTRACE_A_QP_RTT_RTTVAR_NS, READ_ONCE(r->rttvar)))
			goto err_cancel;
		for (i = 0; i < FT_RTT_QP_BUCKETS; i++)
			if (nla_put_u32(skb, FABTRACE_A_QP_RTT_BUCKET, hist[i]))
				goto err_cancel;
	}
	nla_nest_end(skb, nest);
	return 0;

err_cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

/**
 * ft_nl_put_dev_rtt() - a device's round trips, as a dev-rtt nest
 * @skb: the message
 * @type: the nest's type
 * @tot: the device's totals (ft_dev_totals())
 *
 * Return: 0 or -EMSGSIZE.
 */
int ft_nl_put_dev_rtt(struct sk_buff *skb, int type, const struct ft_dev_pcpu *tot)
{
	struct nlattr *nest;
	unsigned int i;

	nest = nla_nest_start(skb, type);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < FT_RTT_DEV_BUCKETS; i++)
		if (ft_nl_put_u64(skb, FABTRACE_A_DEV_RTT_BUCKET, tot->rtt[i],
				  FABTRACE_A_DEV_RTT_PAD))
			goto err_cancel;
	if (ft_nl_put_u64(skb, FABTRACE_A_DEV_RTT_SUM_NS, tot->rtt_ns, FABTRACE_A_DEV_RTT_PAD) ||
	    ft_nl_put_u64(skb, FABTRACE_A_DEV_RTT_ACK_DELAY_SAMPLES, tot->ad_samples,
			  FABTRACE_A_DEV_RTT_PAD) ||
	    ft_nl_put_u64(skb, FABTRACE_A_DEV_RTT_ACK_DELAY_SUM_NS, tot->ad_ns,
			  FABTRACE_A_DEV_RTT_PAD))
		goto err_cancel;
	nla_nest_end(skb, nest);
	return 0;

err_cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

int ft_nl_put_counters(struct sk_buff *skb, const struct ft_snap *s,
		       int tx, int rx, int cong)
{
	if (ft_nl_put_traffic(skb, tx, s->bytes[FT_TX], s->cls[FT_TX]) ||
	    ft_nl_put_traffic(skb, rx, s->bytes[FT_RX], s->cls[FT_RX]) ||
	    put_cong(skb, cong, s))
		return -EMSGSIZE;
	return 0;
}

/*
 * Whether a reader in @net may see @dev at all: rdma's own rule (nldev's),
 * every device in shared mode, in exclusive mode those of @net alone.
 */
static bool dev_visible(const struct ft_dev *dev, const struct net *net)
{
	return rdma_dev_access_netns(dev->ibdev, net);
}

/**
 * ft_nl_dev_next() - the first device at index @index or above that @net sees
 * @index: where to start
 * @net: the reader's network namespace
 *
 * Return: the device, held (ft_dev_put()), or NULL.
 */
struct ft_dev *ft_nl_dev_next(u32 index, const struct net *net)
{
	struct ft_dev *dev;

	while ((dev = ft_dev_get(index, NULL, true)) && !dev_visible(dev, net)) {
		index = dev->index + 1;
		ft_dev_put(dev);
	}
	return dev;
}

/**
 * ft_nl_req_dev() - the device a request names by index or name (or both)
 * @info: the request
 * @a_index: the attribute of the device's index
 * @a_name: and of its name
 * @required: a request naming neither is refused; else NULL is returned
 *
 * A device the caller's network namespace does not see is no device.
 *
 * Return: the device, held (ft_dev_put()), NULL if none is named and none
 * is @required, or an ERR_PTR with an extack.
 */
struct ft_dev *ft_nl_req_dev(struct genl_info *info, int a_index, int a_name,
			     bool required)
{
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr **tb = info->attrs;
	const char *name = tb[a_name] ? nla_data(tb[a_name]) : NULL;
	u32 index = tb[a_index] ? nla_get_u32(tb[a_index]) : 0;
	struct ft_dev *dev;

	if (!tb[a_index] && !tb[a_name]) {
		if (!required)
			return NULL;
		NL_SET_ERR_MSG(extack, "missing device index or name");
		return ERR_PTR(-EINVAL);
	}
	dev = ft_dev_get(index, name, false);
	if (dev && !dev_visible(dev, genl_info_net(info))) {
		ft_dev_put(dev);
		dev = NULL;
	}
	if (!dev) {
		NL_SET_ERR_MSG_ATTR(extack, tb[a_name] ?: tb[a_index],
				    "no such RDMA device");
		return ERR_PTR(-ENODEV);
	}
	if (tb[a_name] && tb[a_index] && dev->index != index) {
		ft_dev_put(dev);
		NL_SET_ERR_MSG_ATTR(extack, tb[a_index],
				    "device index and name do not match");
		return ERR_PTR(-EINVAL);
	}
	return dev;
}

/*
 * Whether @port of @dev belongs to @net: the port belongs to its netdev's
 * network namespace (a container given a VF's netdev owns it), or,
 * without a netdev, to the RDMA device's own.  Only a caller there may
 * change what belongs to the port (ft_nl_dev_writable()), or read what
 * belongs to its netdev (its name, speed, DCB read-back).
 * CAP_NET_ADMIN (the family's admin ops) is checked in the initial user
 * namespace, so a container with its own network namespace passes it;
 * this keeps it off the host's ports, as DCBNL keeps it off the host's
 * netdevs.
 */
bool ft_nl_port_in_net(struct ft_dev *dev, u32 port, const struct net *net)
{
	struct net_device *ndev = ft_port_netdev(dev->ibdev, port);
	bool ok;

	if (!ndev)
		return net_eq(read_pnet(&dev->ibdev->coredev.rdma_net), net);
	ok = net_eq(dev_net(ndev), net);
	dev_put(ndev);
	return ok;
}

/**
 * ft_nl_dev_writable() - may a caller in @net change @port of @dev?
 * @dev: the device
 * @port: its port; one the device does not have (a QP not yet given one)
 *	stands for every port, as does FT_NL_ALL_PORTS
 * @net: the caller's network namespace
 * @extack: for the refusal, or NULL to refuse silently
 *
 * The caller's namespace must see the device (rdma's exclusive netns mode)
 * and own the port.
 *
 * Return: 0, or -EPERM.
 */
int ft_nl_dev_writable(struct ft_dev *dev, u32 port, const struct net *net,
		       struct netlink_ext_ack *extack)
{
	bool all = !rdma_is_port_valid(dev->ibdev, port);
	u32 p;

	if (!dev_visible(dev, net))
		goto err_perm;
	rdma_for_each_port(dev->ibdev, p)
		if ((all || p == port) && !ft_nl_port_in_net(dev, p, net))
			goto err_perm;
	return 0;

err_perm:
	NL_SET_ERR_MSG(extack, "the port is another network namespace's");
	return -EPERM;
}

/**
 * ft_nl_put_netdev() - name the netdev of @port of @ibdev
 * @skb: the message
 * @ibdev: the RDMA device
 * @port: its port
 * @net: the reader's network namespace
 * @a_name: the attribute for the netdev's name
 * @a_ifindex: the attribute for its ifindex
 *
 * Only a reader in the netdev's namespace gets them: an ifindex means
 * nothing elsewhere, and a name would tell of another namespace.
 *
 * Return: 0 or -EMSGSIZE.
 */
int ft_nl_put_netdev(struct sk_buff *skb, struct ib_device *ibdev, u32 port,
		     const struct net *net, int a_name, int a_ifindex)
{
	struct net_device *ndev;
	int err = 0;

	ndev = ft_port_netdev(ibdev, port);
	if (!ndev)
		return 0;
	if (net_eq(dev_net(ndev), net))
		err = nla_put_string(skb, a_name, ndev->name) ||
		      nla_put_u32(skb, a_ifindex, ndev->ifindex);
	dev_put(ndev);
	return err ? -EMSGSIZE : 0;
}

/* Copy a device's name, which a rename may change under us. */
void ft_nl_dev_name(struct ft_dev *dev, char *name)
{
	spin_lock(&dev->lock);
	memcpy(name, dev->name, IB_DEVICE_NAME_MAX);
	spin_unlock(&dev->lock);
}

/*
 * The generated group, with the flag the spec gives it and the generator
 * drops: events carry every tenant's PIDs, commands and peers, where the
 * dumps show a reader only its own PID namespace's QPs.
 */
static const struct genl_multicast_group mcgrps[] = {
	[FABTRACE_NLGRP_EVENTS] = { .name = "events",
				    .flags = GENL_MCAST_CAP_NET_ADMIN },
};

int ft_nl_init(void)
{
	int err;

	BUILD_BUG_ON(FT_QP_DESTROYED != FABTRACE_QP_FLAGS_DESTROYED);
	BUILD_BUG_ON(FT_QP_KERNEL != FABTRACE_QP_FLAGS_KERNEL);
	BUILD_BUG_ON(FT_QP_DISCOVERED != FABTRACE_QP_FLAGS_DISCOVERED);
	BUILD_BUG_ON(FT_QP_CONGESTED != FABTRACE_QP_FLAGS_CONGESTED);
	BUILD_BUG_ON(FT_QP_MISCONFIGURED != FABTRACE_QP_FLAGS_MISCONFIGURED);
	BUILD_BUG_ON(FABTRACE_A_TRAFFIC_OTHER - FABTRACE_A_TRAFFIC_SEND !=
		     FT_CLS_MAX - 1);
	BUILD_BUG_ON(FABTRACE_A_NAK_OTHER - FABTRACE_A_NAK_PSN_SEQ !=
		     FT_NAK_MAX - 1);
	BUILD_BUG_ON(FABTRACE_A_CONG_ERRORS - FABTRACE_A_CONG_RETRANSMITS != 6);
	BUILD_BUG_ON(FABTRACE_A_DROPS_OTHER - FABTRACE_A_DROPS_MALFORMED !=
		     FT_DROP_MAX - 1);
	BUILD_BUG_ON(FABTRACE_A_CONG_LAST_RNR_TIMEOUT - FABTRACE_A_CONG_LAST_CE !=
		     FT_LAST_RNR_TIMEOUT - FT_LAST_CE);

	ft_nl_load_time = ktime_get_real_ns();
	/*
	 * The family is __ro_after_init: a module's such data is made
	 * read-only once its init function has returned (do_init_module()),
	 * and this runs from it, before the family is registered and reachable.
	 */
	err = ft_compat_merge_ops(&fabtrace_nl_family);
	if (err)
		return err;
	if (WARN_ON(fabtrace_nl_family.n_mcgrps != ARRAY_SIZE(mcgrps)))
		return -EINVAL;
	fabtrace_nl_family.mcgrps = mcgrps;
	return genl_register_family(&fabtrace_nl_family);
}

/* When the counters started: stats' load-time. */
u64 ft_nl_load_time;

void ft_nl_exit(void)
{
	genl_unregister_family(&fabtrace_nl_family);
}

/* --- gets of one port's object (policy-get, pfc-get) ------------------------ */

/**
 * ft_nl_req_port() - the port a request names, or its device's first
 * @dev: the device
 * @attr: the port attribute, or NULL
 * @port: the port
 * @extack: for the error
 *
 * Return: 0, or -EINVAL (with an extack) if @dev has no such port.
 */
int ft_nl_req_port(struct ft_dev *dev, struct nlattr *attr, u32 *port,
		   struct netlink_ext_ack *extack)
{
	*port = attr ? nla_get_u32(attr) : rdma_start_port(dev->ibdev);
	if (!rdma_is_port_valid(dev->ibdev, *port)) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "port: no such port on this device");
		return -EINVAL;
	}
	return 0;
}

/* One port's object, by device (index or name) and port (or the first). */
int ft_nl_port_doit(const struct ft_nl_port_get *g, struct genl_info *info)
{
	struct nlattr **tb = info->attrs;
	struct sk_buff *msg;
	struct ft_dev *dev;
	u32 port;
	int err;

	dev = ft_nl_req_dev(info, g->a_index, g->a_name, true);
	if (IS_ERR(dev))
		return PTR_ERR(dev);
	err = ft_nl_req_port(dev, tb[g->a_port], &port, info->extack);
	if (err)
		goto err_put_dev;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg) {
		err = -ENOMEM;
		goto err_put_dev;
	}
	err = g->fill(msg, dev, port, genl_info_net(info), info->snd_portid,
		      info->snd_seq, 0);
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

struct ft_port_dump_ctx {
	u32 next_index;		/* device */
	u32 next_port;		/* of that device; 0: its first */
};

/* Every port's object; the attributes given filter the dump. */
int ft_nl_port_dumpit(const struct ft_nl_port_get *g, struct sk_buff *skb,
		      struct netlink_callback *cb)
{
	struct ft_port_dump_ctx *ctx = (void *)cb->ctx;
	struct nlattr **tb = ft_dump_attrs(cb);
	struct ft_dev *dev;
	int err = 0;

	BUILD_BUG_ON(sizeof(*ctx) > sizeof(cb->ctx));
	while (!err && (dev = ft_nl_dev_next(ctx->next_index, sock_net(cb->skb->sk)))) {
		u32 port = max(ctx->next_port, rdma_start_port(dev->ibdev));
		char name[IB_DEVICE_NAME_MAX];
		bool match;

		ft_nl_dev_name(dev, name);
		match = (!tb[g->a_index] || nla_get_u32(tb[g->a_index]) == dev->index) &&
			(!tb[g->a_name] || !nla_strcmp(tb[g->a_name], name));

		if (dev->index != ctx->next_index)
			port = rdma_start_port(dev->ibdev);
		for (; match && port <= rdma_end_port(dev->ibdev); port++) {
			if (tb[g->a_port] && nla_get_u32(tb[g->a_port]) != port)
				continue;
			err = g->fill(skb, dev, port, sock_net(cb->skb->sk),
				      NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
				      NLM_F_MULTI);
			if (err)
				break;
		}
		/* a port that did not fit resumes the next part */
		ctx->next_index = err ? dev->index : dev->index + 1;
		ctx->next_port = err ? port : 0;
		ft_dev_put(dev);
	}
	return err == -EMSGSIZE && skb->len ? skb->len : err;
}
