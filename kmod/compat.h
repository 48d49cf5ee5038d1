/* SPDX-License-Identifier: GPL-2.0 */
/* What differs between the kernels fabtrace builds for (6.1 to 6.12). */
#ifndef _FABTRACE_COMPAT_H
#define _FABTRACE_COMPAT_H

#include <linux/ftrace.h>
#include <linux/version.h>
#include <net/genetlink.h>
#include <rdma/ib_verbs.h>

/*
 * Split ops (one entry per do and per dump) arrived in 6.2.  On 6.1 the
 * generated table becomes a table of genl_ops with a command listed twice;
 * ft_compat_merge_ops() (compat.c) merges each pair before registering.  The spec gives do and
 * dump of a command the same request attributes, so merging loses nothing.
 */
#if KERNEL_VERSION(6, 2, 0) > LINUX_VERSION_CODE
#define FT_GENL_MERGE_OPS	1
#define genl_split_ops		genl_ops
#define split_ops		ops
#define n_split_ops		n_ops
#endif

#ifdef FT_GENL_MERGE_OPS
int ft_compat_merge_ops(struct genl_family *family);
#else
static inline int ft_compat_merge_ops(struct genl_family *family)
{
	return 0;
}
#endif

/* The request attributes of a dump; genl_info_dump() arrived in 6.6. */
static inline struct nlattr **ft_dump_attrs(struct netlink_callback *cb)
{
#if KERNEL_VERSION(6, 6, 0) > LINUX_VERSION_CODE
	return genl_dumpit_info(cb)->attrs;
#else
	return genl_info_dump(cb)->attrs;
#endif
}

/*
 * The netdev of an RDMA port, held (dev_put() it), or NULL.  Drivers with
 * their own get_netdev (mlx4, and mlx5 on 6.1) keep port_data's empty.
 * ib_device_get_netdev(), which asks either, is exported from 6.12 on.
 */
#if KERNEL_VERSION(6, 12, 0) > LINUX_VERSION_CODE
static inline struct net_device *ft_port_netdev(struct ib_device *ibdev, u32 port)
{
	struct net_device *ndev;

	if (ibdev->ops.get_netdev)
		return ibdev->ops.get_netdev(ibdev, port);
	rcu_read_lock();
	ndev = rcu_dereference(ibdev->port_data[port].netdev);
	if (ndev)
		dev_hold(ndev);
	rcu_read_unlock();
	return ndev;
}
#else
#define ft_port_netdev ib_device_get_netdev
#endif

/*
 * Hooks read their target's arguments from the ftrace frame.  6.12 has an
 * accessor; 6.1's x86 frame is a pt_regs holding the argument registers.
 */
#ifdef ftrace_regs_get_argument
#define ft_arg(fregs, n)	ftrace_regs_get_argument(fregs, n)
#else
#define ft_arg(fregs, n)	regs_get_kernel_argument(&(fregs)->regs, n)
#endif

/* The kfree_skb tracepoint's arguments: 6.11 added the receiving socket. */
#if KERNEL_VERSION(6, 11, 0) <= LINUX_VERSION_CODE
#define FT_KFREE_SKB_ARGS	struct sk_buff *skb, void *location, \
				enum skb_drop_reason reason, struct sock *rx_sk
#else
#define FT_KFREE_SKB_ARGS	struct sk_buff *skb, void *location, \
				enum skb_drop_reason reason
#endif

/*
 * rxe before 6.6 took a packet only if its QP's requester or responder
 * was ready, which a QP in error is not; later ones take what the QP's
 * state allows (RTR and up), error included.
 */
#define FT_RXE_ERR_REFUSES	(KERNEL_VERSION(6, 6, 0) > LINUX_VERSION_CODE)

/* DCBNL's apptrust operations arrived in 6.2. */
#if KERNEL_VERSION(6, 2, 0) <= LINUX_VERSION_CODE
#define FT_HAVE_APPTRUST	1
#endif

#endif /* _FABTRACE_COMPAT_H */
