/* SPDX-License-Identifier: GPL-2.0 */
/* Events of every kind: raised here, rate limited, queued and handed to netlink. */
#ifndef _FABTRACE_EVENTS_H
#define _FABTRACE_EVENTS_H

#include <linux/if.h>
#include <rdma/ib_verbs.h>
#include <uapi/linux/fabtrace.h>

#include "acct.h"
#include "policy.h"

/*
 * What one notification says, copied when the event happens: the worker
 * that sends it never touches the entry or the device, which may be gone
 * by then.  A QP's events fill the QP's part; the others their own.
 */
struct ft_event {
	u64 time;			/* CLOCK_MONOTONIC ns */
	u64 count;
	u64 suppressed;
	u32 kind;			/* enum fabtrace_event_kind */
	u32 dev_index;
	char dev_name[IB_DEVICE_NAME_MAX];
	/* a QP's */
	u32 qpn;
	u32 rqpn;
	u32 pid;			/* in the initial PID namespace */
	bool has_qp;
	bool has_snap;
	char comm[16];
	u8 peer[16];
	union {
		struct ft_snap snap;	/* final counters: qp-destroy, qp-error */
		struct {
			u32 port, prio, qps;
			u64 duration;
			u32 link_ifindex;	/* 0: not named */
			char link[IFNAMSIZ];
		} storm;
		struct {
			u32 port;
			struct ft_port_policy old, new;
		} policy;		/* policy-change */
		struct {
			u32 port;
			struct ft_port_policy p;
			struct ft_dcb_hw hw;
		} drift;
	};
};

struct ft_ev_stats {
	atomic64_t sent;
	atomic64_t suppressed;
	atomic64_t lost;
};

extern struct ft_ev_stats ft_ev_stats;

int ft_events_init(void);
void ft_events_open(int (*send)(const struct ft_event *e));
void ft_events_close(void);
void ft_events_exit(void);

struct ft_dev;

void ft_event_qp(const struct ft_dev *dev, struct ft_qp *qp, unsigned int kind);
void ft_event_note(const struct ft_dev *dev, struct ft_qp *qp, unsigned int ev);
void ft_event_hw(const struct ft_dev *dev, struct ft_qp *qp, unsigned int kind, u64 count);
void ft_event_storm(const struct ft_dev *dev, u32 kind, u32 port, u32 prio,
		    u64 duration, u32 qps, u32 link_ifindex, const char *link);
void ft_event_policy(const struct ft_dev *dev, u32 port,
		     const struct ft_port_policy *old,
		     const struct ft_port_policy *new);
void ft_event_drift(const struct ft_dev *dev, u32 port,
		    const struct ft_port_policy *p, const struct ft_dcb_hw *hw);
#ifdef CONFIG_FABTRACE_BENCH
void ft_events_bench(unsigned int n, u64 *withheld_ns, u64 *sent_ns);
#endif

#endif /* _FABTRACE_EVENTS_H */
