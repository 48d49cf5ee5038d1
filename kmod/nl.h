/* SPDX-License-Identifier: GPL-2.0 */
/* What the netlink family's per-object files (nl-*.c) share. */
#ifndef _FABTRACE_NL_H
#define _FABTRACE_NL_H

#include <net/netlink.h>

#include "acct.h"

struct ft_dev;

u64 ft_nl_realtime(u64 mono_ns);
int ft_nl_put_u64(struct sk_buff *skb, int type, u64 val, int pad);
int ft_nl_put_traffic(struct sk_buff *skb, int type, u64 bytes,
		      const u64 *cls);
int ft_nl_put_counters(struct sk_buff *skb, const struct ft_snap *s,
		       int tx, int rx, int cong);
struct ft_dev *ft_nl_req_dev(struct nlattr **tb, int a_index, int a_name,
			     struct netlink_ext_ack *extack);
void ft_nl_dev_name(struct ft_dev *dev, char *name);

#endif /* _FABTRACE_NL_H */
