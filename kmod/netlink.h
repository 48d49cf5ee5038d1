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

#endif /* _FABTRACE_NETLINK_H */
