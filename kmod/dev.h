/* SPDX-License-Identifier: GPL-2.0 */
/* RDMA devices fabtrace tracks, and the QP table of each. */
#ifndef _FABTRACE_DEV_H
#define _FABTRACE_DEV_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>

#include "acct.h"
#include "table.h"

struct ft_dcb;
struct ft_dev;
struct ft_hw;
struct ft_pfc;
struct ft_policy;
struct ft_port_policy;

/*
 * A part of every device: state of its own, set up with the device and
 * torn down with it, part after part in the order of the table main.c
 * gives ft_dev_init(), and undone in the reverse order.  Every callback
 * may be NULL.  Context: process, for all but @policy_changed.
 */
struct ft_dev_part {
	const char *name;
	/* allocate, before the device is published; may fail (-errno) */
	int (*add)(struct ft_dev *dev);
	/* the device is published: hooks and handlers find it from now on */
	void (*attach)(struct ft_dev *dev);
	/*
	 * fabtrace is unloading and the device stays: undo what was done to
	 * it (before any part's detach; the caller holds a reference)
	 */
	void (*unload)(struct ft_dev *dev);
	/*
	 * It is unpublished, and a grace period passed: stop what attach
	 * began.  The device may be going from inside nldev (`rdma link
	 * delete` holds its lock for reading): nothing here may wait for an
	 * nldev request.
	 */
	void (*detach)(struct ft_dev *dev);
	/* the last reference went: free what add allocated */
	void (*free)(struct ft_dev *dev);
	/* a port's policy changed; under the policy lock (policy.c) */
	void (*policy_changed)(const struct ft_dev *dev, u32 port,
			       const struct ft_port_policy *old,
			       const struct ft_port_policy *new);
	/*
	 * A QP entry is about to be published, its path (port, traffic
	 * class) changed from @old_port's, or it was retired.  Under
	 * dev->lock: no sleeping.
	 */
	void (*qp_added)(const struct ft_dev *dev, struct ft_qp *qp);
	void (*qp_moved)(const struct ft_dev *dev, struct ft_qp *qp, u32 old_port);
	void (*qp_retired)(const struct ft_dev *dev, struct ft_qp *qp);
	/*
	 * The entry is freed (after a grace period, or never published);
	 * its device may be gone already.
	 */
	void (*qp_freed)(struct ft_qp *qp);
};

/* Totals of a device, per CPU: the hot path adds without atomics. */
struct ft_dev_pcpu {
	u64 bytes[2];
	u64 pkts[2][FT_SLOT_MAX];	/* as a QP's: NAKs by syndrome */
	u64 unknown[2];		/* packets of QPs with no entry */
	u64 malformed;
	u64 drops[FT_DROP_MAX];	/* received, dropped by rxe: enum ft_drop */
	u64 rtt[FT_RTT_DEV_BUCKETS];	/* its requesters' round trips, by bucket (rtt.h) */
	u64 rtt_ns;			/* their sum */
	u64 ad_samples, ad_ns;		/* its responders' ack delays, and their sum */
};

struct ft_dev {
	struct list_head list;		/* ft_devs, by index, RCU */
	struct kref ref;		/* the list's, and netlink readers' */
	struct ib_device *ibdev;
	u32 index;
	bool hooked;			/* rxe: the data path taps see it */
	char name[IB_DEVICE_NAME_MAX];
	char driver[MODULE_NAME_LEN];

	spinlock_t lock;		/* index and retired list writers */
	struct ft_qp __rcu *retired;	/* destroyed QPs, oldest first, RCU */
	struct ft_qp __rcu **retired_tail;	/* where the next one goes */
	struct ft_qp *evict_last;	/* last evicted one, at the head; lock */
	u32 nr_live;
	u32 nr_retired;
	u32 nr_leaves;			/* index pages allocated */

	struct ft_dev_pcpu __percpu *pcpu;
	struct ft_qpidx *idx;
	/*
	 * Every port has its own QP0 (SMI) and QP1 (GSI), and mlx5 has a QP
	 * numbered 1 of its own beside them: QPs numbered 0 and 1 are kept
	 * by port, FT_PORT_QPS slots a port (ft_port_qp_slot()), and the
	 * index holds the others.  Under lock, RCU.
	 */
	struct ft_qp __rcu **port_qps;
	u32 nr_port_qps;
	struct ft_policy __rcu *policy;	/* NULL: the defaults; policy.c */
	/*
	 * Of the first port's policy, for the transmit tap: bit d set if
	 * DSCP d's priority is ECN-capable (ft_ect_wanted()); 0: mark none.
	 */
	u64 ect_dscp;
	struct delayed_work audit;	/* after discovery; qp.c */
	u8 audits_left;			/* its runs still to come */
	struct ft_pfc *pfc;		/* never NULL; pfc.c */
	struct ft_dcb *dcb;		/* never NULL; dcb.c */
	struct ft_hw *hw;		/* NULL on a tapped device; hw.c */
};

/* Protects ft_devs and the device map against each other's writers. */
extern struct mutex ft_devs_lock;
extern struct list_head ft_devs;
extern struct ft_devmap ft_devmap;

int ft_dev_init(const struct ft_dev_part *const *parts, unsigned int n);
void ft_dev_exit(void);
void ft_dev_policy_changed(const struct ft_dev *dev, u32 port,
			   const struct ft_port_policy *old,
			   const struct ft_port_policy *new);
void ft_dev_qp_added(const struct ft_dev *dev, struct ft_qp *qp);
void ft_dev_qp_moved(const struct ft_dev *dev, struct ft_qp *qp, u32 old_port);
void ft_dev_qp_retired(const struct ft_dev *dev, struct ft_qp *qp);
void ft_dev_qp_freed(struct ft_qp *qp);

struct ft_dev *ft_dev_find(u32 index, const char *name);
struct ft_dev *ft_dev_get(u32 index, const char *name, bool next);
void ft_dev_put(struct ft_dev *dev);
void ft_dev_unref(struct ft_dev *dev);
void ft_dev_totals(const struct ft_dev *dev, struct ft_dev_pcpu *sum);

/* Walk the retired entries of a device.  Context: RCU read side. */
static inline struct ft_qp *ft_retired_first(const struct ft_dev *dev)
{
	return rcu_dereference(dev->retired);
}

static inline struct ft_qp *ft_retired_next(const struct ft_qp *qp)
{
	return rcu_dereference(qp->next_retired);
}

static inline struct ft_dev *ft_dev_of(const struct ib_device *ibdev)
{
	return ft_devmap_find(&ft_devmap, ibdev);
}

/* Keys of ft_qp_next(): QP numbers in the index, then the port QP slots. */
#define FT_KEY_PORTS	BIT(FT_QPN_BITS)

/* A port's QPs numbered 0 and 1: SMI, GSI, and a driver's own 0 and 1. */
#define FT_PORT_QPS	4

static inline bool ft_qp_type_special(u32 type)
{
	return type == IB_QPT_SMI || type == IB_QPT_GSI;
}

/*
 * The slot of @port's QP numbered @qpn (0 or 1) of @type, or NULL.  Such a
 * QP's port is its key: it never changes.
 */
static inline struct ft_qp __rcu **ft_port_qp_slot(const struct ft_dev *dev,
						   u32 qpn, u32 type, u32 port)
{
	u32 first = rdma_start_port(dev->ibdev), i;

	i = type == IB_QPT_SMI ? 0 : type == IB_QPT_GSI ? 1 : 2 + (qpn & 1);
	if (port < first || (port - first) * FT_PORT_QPS + i >= dev->nr_port_qps)
		return NULL;
	return &dev->port_qps[(port - first) * FT_PORT_QPS + i];
}

/*
 * A packet's QP 0 or 1 on a device with one port (rxe): its special QP.
 * Context: RCU read side (the taps': sched).
 */
static inline struct ft_qp *ft_qp_special_rx(const struct ft_dev *dev, u32 qpn)
{
	/* the first port's SMI and GSI slots are 0 and 1 */
	return qpn <= 1 ? ft_deref(dev->port_qps[qpn]) : NULL;
}

/**
 * ft_qp_of() - the live entry of @ibqp
 * @dev: its device
 * @ibqp: the QP
 *
 * Inline: the transmit tap calls it for every packet; a QP numbered 0
 * or 1 costs a second look, after the index had none.
 * Context: RCU read side (the taps': sched).
 * Return: the entry, or NULL if @ibqp has none.
 */
static inline struct ft_qp *ft_qp_of(const struct ft_dev *dev,
				     const struct ib_qp *ibqp)
{
	struct ft_qp __rcu **slot;
	struct ft_qp *qp = ft_qpidx_find(dev->idx, ibqp->qp_num);

	if (likely(qp && qp->ibqp == ibqp))
		return qp;
	if (ibqp->qp_num > 1)
		return NULL;
	slot = ft_port_qp_slot(dev, ibqp->qp_num, ibqp->qp_type, ibqp->port);
	qp = slot ? ft_deref(*slot) : NULL;
	return qp && qp->ibqp == ibqp ? qp : NULL;
}

#endif /* _FABTRACE_DEV_H */
