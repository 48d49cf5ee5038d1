/* SPDX-License-Identifier: GPL-2.0 */
/* The hardware part of a port's policy: DCBNL pushes, read-backs and drift. */
#ifndef _FABTRACE_DCB_H
#define _FABTRACE_DCB_H

#include <linux/types.h>

#include "policy.h"

/* A port's DCB state, for replies. */
struct ft_dcb_snap {
	u32 state;			/* enum fabtrace_dcb_state */
	int err;			/* of the last push: 0 or -errno */
	const char *err_op;		/* the operation that failed */
	bool have_hw;
	struct ft_dcb_hw hw;
};

struct ft_dev;
struct ft_dev_part;
struct netlink_ext_ack;

int ft_dcb_init(void);
void ft_dcb_exit(void);
extern const struct ft_dev_part ft_dcb_part;

/* A policy change and its push, ordered against the drift checks. */
void ft_dcb_lock(void);
void ft_dcb_unlock(void);
int ft_dcb_apply(struct ft_dev *dev, u32 port, struct netlink_ext_ack *extack);

struct net;
void ft_dcb_snap(struct ft_dev *dev, u32 port, const struct net *net,
		 struct ft_dcb_snap *s);

#endif /* _FABTRACE_DCB_H */
