/* SPDX-License-Identifier: GPL-2.0 */
/* PFC frames received on RDMA ports' netdevs: counters, pause time, storms. */
#ifndef _FABTRACE_PFC_H
#define _FABTRACE_PFC_H

#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "pause.h"
#include "policy.h"

struct ft_dev;
struct ft_dev_part;
struct ft_qp;
struct net_device;

/*
 * One port: written by the frame handler (softirq) under its lock, which
 * is taken with interrupts off: QP hooks read it from kprobe handlers.
 */
struct ft_pfc_port {
	spinlock_t lock;		/* the fields below, and prio[] */
	/* held while set; written under the RTNL, compared by the handler */
	struct net_device *netdev;
	u32 mbps;			/* 0: unknown */
	u8 storm_new;			/* priorities whose storm-start is unsent */
	u64 malformed;
	u64 pause;			/* 802.3x PAUSE frames */
	struct ft_pfc_prio prio[FT_PAUSE_PRIOS];
};

/* The ports of a device, by port number, as its policies are. */
struct ft_pfc {
	struct ft_dev *dev;
	struct delayed_work wd;		/* storm events and storm ends */
	u32 nports;
	struct ft_pfc_port port[];
};

/* A copy of one port's PFC state, for replies. */
struct ft_pfc_snap {
	u64 now;
	u32 mbps;
	u64 malformed, pause;
	struct ft_pfc_prio prio[FT_PAUSE_PRIOS];
};

int ft_pfc_init(void);
void ft_pfc_exit(void);

extern const struct ft_dev_part ft_pfc_part;

bool ft_pfc_snap(const struct ft_dev *dev, u32 port, struct ft_pfc_snap *s);
struct pid_namespace;
void ft_pfc_qps(const struct ft_dev *dev, u32 port, struct pid_namespace *ns,
		u32 *n);

u8 ft_qp_prio(const struct ft_dev *dev, const struct ft_qp *qp);
void ft_pfc_qp_reset(const struct ft_dev *dev, struct ft_qp *qp);
u64 ft_pfc_qp_paused_us(struct ft_dev *dev, const struct ft_qp *qp);
#ifdef CONFIG_FABTRACE_BENCH
int ft_pfc_bench(struct ft_dev *dev, u64 n, u64 *ns);
#endif

#endif /* _FABTRACE_PFC_H */
