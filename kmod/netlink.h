/* SPDX-License-Identifier: GPL-2.0 */
/* The fabtrace generic netlink family. */
#ifndef _FABTRACE_NETLINK_H
#define _FABTRACE_NETLINK_H

#include <linux/types.h>

struct ft_event;

int ft_nl_init(void);
void ft_nl_exit(void);
int ft_nl_notify(const struct ft_event *e);

struct sk_buff;

struct sk_buff *ft_nl_event_new(u32 kind, u64 mono_ns);
int ft_nl_event_send(struct sk_buff *skb);
void ft_nl_count_event(int err);

struct ft_dev;

int ft_nl_storm(struct ft_dev *dev, u32 kind, u32 port, u32 prio,
		u64 duration, u32 qps);

struct ft_port_policy;
struct ft_dcb_hw;

int ft_nl_policy_drift(struct ft_dev *dev, u32 port, const struct ft_port_policy *p,
		       const struct ft_dcb_hw *hw);

#endif /* _FABTRACE_NETLINK_H */
