/* SPDX-License-Identifier: GPL-2.0 */
/* PFC frames received on RDMA ports' links: counters, pause time, storms. */
#ifndef _FABTRACE_PFC_H
#define _FABTRACE_PFC_H

#include <linux/if.h>
#include <linux/list.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "pause.h"
#include "policy.h"

struct ft_dev;
struct ft_dev_part;
struct ft_pfc;
struct ft_pfc_drv;
struct ft_pfc_port;
struct ft_qp;
struct net;
struct net_device;

/*
 * A link of a port: a real device below the port's netdev (the netdev
 * itself, the device under a VLAN, each slave of a bond or team, down to
 * devices with nothing below them).  PFC frames are link-local: they
 * arrive on the link, untagged, and pause that link only, for a time its
 * own speed gives.  So each link has its own pause state.  The frame
 * handler finds it by its netdev (RCU); its counters are under the port's
 * lock.
 */
struct ft_pfc_link {
	struct hlist_node hnode;	/* pfc_links, by netdev: RTNL, RCU */
	struct list_head node;		/* port->links: RTNL and port->lock, RCU */
	struct ft_pfc_port *port;
	struct net_device *ndev;	/* held, and in its PFC address */
	struct rcu_head rcu;
	bool live;			/* cleared under the lock when dropped */
	bool seen;			/* port_rebuild()'s mark; RTNL */
	/*
	 * The NIC counts its PFC (its MAC consumes the frames): the driver's
	 * counters are read every pfc_poll_ms, frames reaching the host are
	 * not counted.  Set under the RTNL and the lock.
	 */
	const struct ft_pfc_names *driver;	/* its family of names; NULL: frames */
	struct ft_pfc_drv *drv;		/* the driver's statistics; RTNL */
	u64 polled;			/* the last read of them; RTNL */
	u64 half;			/* half of that read's duration; RTNL */
	unsigned long due;		/* jiffies the next read is due; RTNL */
	u32 mbps;			/* its own speed; 0: unknown */
	u8 storm_new;			/* priorities whose storm-start is unsent */
	u64 malformed;
	u64 pause;			/* 802.3x PAUSE frames */
	struct ft_pfc_prio prio[FT_PAUSE_PRIOS];
};

/*
 * One port.  The lock is taken with interrupts off: QP hooks read the
 * paused time from kprobe handlers.
 */
struct ft_pfc_port {
	spinlock_t lock;		/* links' counters, the list, gone */
	struct ft_pfc *pfc;
	u32 num;
	/* held while set; written under the RTNL, read by cnp.c under RCU */
	struct net_device *netdev;
	u32 mbps;			/* the netdev's (a bond's: summed); 0: unknown */
	u32 nlinks;
	struct list_head links;
	/*
	 * What links dropped since had counted, their paused time up to the
	 * drop (ft_pfc_fold()): the port's sums never go back, so neither
	 * does a QP's share of them.
	 */
	u64 malformed;
	u64 pause;
	struct ft_pfc_prio gone[FT_PAUSE_PRIOS];
};

/* The ports of a device, by port number, as its policies are. */
struct ft_pfc {
	struct ft_dev *dev;
	struct list_head node;		/* pfc_all: RTNL */
	struct delayed_work wd;		/* storm events and storm ends */
	struct delayed_work poll;	/* links whose driver counts PFC */
	u32 nports;
	struct ft_pfc_port port[];
};

/* One priority in a reply: sums (ft_pfc_fold()) and its state now. */
struct ft_pfc_prio_snap {
	struct ft_pfc_prio sum;
	u32 state;			/* enum fabtrace_pfc_state */
};

/* A copy of one link's state, for replies. */
struct ft_pfc_link_snap {
	char name[IFNAMSIZ];
	const char *driver;		/* the family of names it is read by; NULL: frames */
	bool split;			/* XOFF and XON are counted apart */
	u32 ifindex;
	bool visible;			/* in the reader's network namespace */
	u32 mbps;
	u64 malformed, pause;
	struct ft_pfc_prio_snap prio[FT_PAUSE_PRIOS];
};

/* A copy of one port's PFC state, its links' sums and each link's. */
struct ft_pfc_snap {
	u32 mbps;
	u32 ndriver;			/* links read from their driver */
	u32 nosplit;			/* of them, without XOFF and XON apart */
	u64 malformed, pause;
	struct ft_pfc_prio_snap prio[FT_PAUSE_PRIOS];
	u32 nlinks;
	struct ft_pfc_link_snap link[];
};

int ft_pfc_init(void);
void ft_pfc_exit(void);

extern const struct ft_dev_part ft_pfc_part;

struct ft_pfc_snap *ft_pfc_snap(const struct ft_dev *dev, u32 port,
				const struct net *net);
struct pid_namespace;
void ft_pfc_qps(const struct ft_dev *dev, u32 port, struct pid_namespace *ns,
		u32 *n);

u8 ft_qp_prio(const struct ft_dev *dev, const struct ft_qp *qp);
u32 ft_pfc_nic_links(const struct ft_dev *dev);
void ft_pfc_qp_reset(const struct ft_dev *dev, struct ft_qp *qp);
u64 ft_pfc_qp_paused_us(struct ft_dev *dev, const struct ft_qp *qp);
#ifdef CONFIG_FABTRACE_BENCH
int ft_pfc_bench(struct ft_dev *dev, u64 n, u64 *ns);
#endif

#endif /* _FABTRACE_PFC_H */
