/* SPDX-License-Identifier: GPL-2.0 */
/* The PFC/ECN policy of each RDMA port: its values and how they change. */
#ifndef _FABTRACE_POLICY_H
#define _FABTRACE_POLICY_H

#include <linux/build_bug.h>
#include <linux/rcupdate.h>
#include <linux/types.h>
#include <uapi/linux/fabtrace.h>

#define FT_DSCP_MAX		64
#define FT_PRIO_MAX		8
#define FT_CNP_INTERVAL_MAX	1000000		/* us */
#define FT_WD_DETECT_MIN	100		/* ms, as SONiC's pfcwd */
#define FT_WD_DETECT_MAX	5000
#define FT_WD_RESTORE_MIN	100
#define FT_WD_RESTORE_MAX	60000

/* No padding: two policies compare with memcmp(). */
struct ft_port_policy {
	u32 cnp_interval_us;
	u32 wd_detect_ms;		/* 0: watchdog off */
	u32 wd_restore_ms;
	u32 wd_action;			/* enum fabtrace_wd_action */
	u8 dscp_prio[FT_DSCP_MAX];
	u8 trust;			/* enum fabtrace_trust */
	u8 pfc;				/* bit p: priority p */
	u8 ecn;
	u8 cnp;				/* 0 or 1 */
	u8 cnp_dscp;
	u8 zero[3];
};

static_assert(sizeof(struct ft_port_policy) == 88);

/* What a port's netdev reports of its policy through DCBNL (dcb.c). */
struct ft_dcb_hw {
	u8 pfc;				/* bit p: priority p is lossless */
	u8 pfc_cap;
	u8 has_trust;			/* the driver has dcbnl_getapptrust */
	u8 trust;			/* enum fabtrace_trust, or FT_DCB_TRUST_OTHER */
	u8 dscp[FT_DSCP_MAX];		/* bit p: the app table maps it to p */
};

/* Trusted selectors that are neither policy's order (none, or others first). */
#define FT_DCB_TRUST_OTHER	0xff

/*
 * A device's policies, indexed by port number.  Replaced whole under the
 * policy lock and freed after a grace period: readers (the data path, in
 * time) see one consistent policy without a lock.
 */
struct ft_policy {
	struct rcu_head rcu;
	u32 nports;			/* ports 0..nports - 1 */
	struct ft_port_policy port[];
};

struct ft_dev;

void ft_policy_default(struct ft_port_policy *p);
u64 ft_policy_ect_dscp(const struct ft_port_policy *p);
void ft_policy_read(struct ft_dev *dev, u32 port, struct ft_port_policy *p);
const struct ft_port_policy *ft_policy_port(const struct ft_dev *dev, u32 port);

struct ft_qp;

bool ft_qp_misconfigured(const struct ft_dev *dev, const struct ft_qp *qp,
			 const struct ft_port_policy *p);
bool ft_qp_misconfigured_now(const struct ft_dev *dev, const struct ft_qp *qp);

/* A traffic class's priority under @p (NULL: the defaults). */
static inline u8 ft_policy_prio(const struct ft_port_policy *p, u8 tclass)
{
	if (!p || p->trust == FABTRACE_TRUST_PCP)
		return 0;
	return p->dscp_prio[tclass >> 2];
}

/*
 * A change of one port's policy.  @edit gets a copy of the current policy
 * to change, and may fail (-errno), which leaves the policy as it was.  If
 * the copy differs, it is published, the device's parts are told
 * (ft_dev_policy_changed()) and a policy-change event raised, under the
 * policy lock: both come in the order of the changes.
 */
struct ft_policy_edit {
	int (*edit)(struct ft_port_policy *p, void *arg);
	void *arg;
};

/* Context: process; takes the policy lock; may sleep. */
int ft_policy_edit(struct ft_dev *dev, u32 port, const struct ft_policy_edit *e);

extern const struct ft_dev_part ft_policy_part;

#endif /* _FABTRACE_POLICY_H */
