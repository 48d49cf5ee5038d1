/* SPDX-License-Identifier: GPL-2.0 */
/* What the netlink family's per-object files (nl-*.c) share. */
#ifndef _FABTRACE_NL_H
#define _FABTRACE_NL_H

#include <net/netlink.h>

#include "acct.h"

struct ft_dev;
struct net;

extern u64 ft_nl_load_time;

u64 ft_nl_realtime(u64 mono_ns);
int ft_nl_put_u64(struct sk_buff *skb, int type, u64 val, int pad);
int ft_nl_put_traffic(struct sk_buff *skb, int type, u64 bytes,
		      const u64 *cls);
int ft_nl_put_counters(struct sk_buff *skb, const struct ft_snap *s,
		       int tx, int rx, int cong);
struct ft_dev_pcpu;
int ft_nl_put_qp_rtt(struct sk_buff *skb, int type, const struct ft_rtt *r);
int ft_nl_put_dev_rtt(struct sk_buff *skb, int type, const struct ft_dev_pcpu *tot);
struct genl_info;
struct ft_dev *ft_nl_req_dev(struct genl_info *info, int a_index, int a_name,
			     bool required);
struct ft_dev *ft_nl_dev_next(u32 index, const struct net *net);
bool ft_nl_port_in_net(struct ft_dev *dev, u32 port, const struct net *net);
#define FT_NL_ALL_PORTS	0	/* no device has a port 0 and others */
int ft_nl_dev_writable(struct ft_dev *dev, u32 port, const struct net *net,
		       struct netlink_ext_ack *extack);
void ft_nl_dev_name(struct ft_dev *dev, char *name);
struct ib_device;
int ft_nl_put_netdev(struct sk_buff *skb, struct ib_device *ibdev, u32 port,
		     const struct net *net, int a_name, int a_ifindex);

struct ft_qp;
int ft_nl_put_qp_hw(struct sk_buff *skb, const struct ft_dev *dev,
		    const struct ft_qp *qp);
int ft_nl_put_dev_hw(struct sk_buff *skb, const struct ft_dev *dev);
size_t ft_nl_dev_hw_size(const struct ft_dev *dev);

struct ft_port_policy;
struct ft_dcb_hw;
int ft_nl_put_policy(struct sk_buff *skb, int type, const struct ft_port_policy *p);
int ft_nl_put_policy_hw(struct sk_buff *skb, int type, const struct ft_dcb_hw *hw,
			int err, const char *op);

/* A get of one port's object: its attributes, and how to fill a message. */
struct ft_nl_port_get {
	int a_index, a_name, a_port;
	int (*fill)(struct sk_buff *skb, struct ft_dev *dev, u32 port,
		    const struct net *net, u32 portid, u32 seq, int flags);
};

struct netlink_callback;

int ft_nl_req_port(struct ft_dev *dev, struct nlattr *attr, u32 *port,
		   struct netlink_ext_ack *extack);
int ft_nl_port_doit(const struct ft_nl_port_get *g, struct genl_info *info);
int ft_nl_port_dumpit(const struct ft_nl_port_get *g, struct sk_buff *skb,
		      struct netlink_callback *cb);

#endif /* _FABTRACE_NL_H */
