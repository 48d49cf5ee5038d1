/* SPDX-License-Identifier: GPL-2.0 */
/* Requests to the RDMA core's own netlink interface (nldev), from the module. */
#ifndef _FABTRACE_NLDEV_H
#define _FABTRACE_NLDEV_H

#include <linux/types.h>

struct nlmsghdr;
struct sk_buff;

int ft_nldev_init(void);
void ft_nldev_exit(void);
struct sk_buff *ft_nldev_new(u32 cmd, u16 flags);
int ft_nldev_talk(struct sk_buff *req, int (*cb)(const struct nlmsghdr *nlh, void *arg),
		  void *arg);

#endif /* _FABTRACE_NLDEV_H */
