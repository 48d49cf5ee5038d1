// SPDX-License-Identifier: GPL-2.0
/* The fabtrace generic netlink family: shared attribute writers, registration. */

#include <linux/ktime.h>
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

int ft_nl_put_counters(struct sk_buff *skb, const struct ft_snap *s,
		       int tx, int rx, int cong)
{
	if (ft_nl_put_traffic(skb, tx, s->bytes[FT_TX], s->cls[FT_TX]) ||
	    ft_nl_put_traffic(skb, rx, s->bytes[FT_RX], s->cls[FT_RX]) ||
	    put_cong(skb, cong, s))
		return -EMSGSIZE;
	return 0;
}

/* Resolve the device a request names by index or name (either, or both). */
struct ft_dev *ft_nl_req_dev(struct nlattr **tb, int a_index, int a_name,
			     struct netlink_ext_ack *extack)
{
	struct ft_dev *dev;
	const char *name = tb[a_name] ? nla_data(tb[a_name]) : NULL;
	u32 index = tb[a_index] ? nla_get_u32(tb[a_index]) : 0;

	dev = ft_dev_get(index, name, false);
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
	BUILD_BUG_ON(FABTRACE_A_TRAFFIC_OTHER - FABTRACE_A_TRAFFIC_SEND !=
		     FT_CLS_MAX - 1);
	BUILD_BUG_ON(FABTRACE_A_NAK_OTHER - FABTRACE_A_NAK_PSN_SEQ !=
		     FT_NAK_MAX - 1);
	BUILD_BUG_ON(FABTRACE_A_CONG_ERRORS - FABTRACE_A_CONG_RETRANSMITS != 6);
	BUILD_BUG_ON(FABTRACE_A_CONG_LAST_RNR_TIMEOUT - FABTRACE_A_CONG_LAST_CE !=
		     FT_LAST_RNR_TIMEOUT - FT_LAST_CE);

	err = ft_compat_merge_ops(&fabtrace_nl_family);
	if (err)
		return err;
	if (WARN_ON(fabtrace_nl_family.n_mcgrps != ARRAY_SIZE(mcgrps)))
		return -EINVAL;
	fabtrace_nl_family.mcgrps = mcgrps;
	return genl_register_family(&fabtrace_nl_family);
}

void ft_nl_exit(void)
{
	genl_unregister_family(&fabtrace_nl_family);
}
