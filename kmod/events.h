/* SPDX-License-Identifier: GPL-2.0 */
/* QP lifecycle and congestion events: rate limiting and queueing. */
#ifndef _FABTRACE_EVENTS_H
#define _FABTRACE_EVENTS_H

#include <rdma/ib_verbs.h>
#include <uapi/linux/fabtrace.h>

#include "acct.h"

/*
 * What one notification says, copied when the event happens: the worker
 * that sends it never touches the entry, which may be gone by then.
 */
struct ft_event {
	u64 time;			/* CLOCK_MONOTONIC ns */
	u64 count;
	u64 suppressed;
	u32 kind;			/* enum fabtrace_event_kind */
	u32 dev_index;
	u32 qpn;
	u32 rqpn;
	u32 pid;			/* in the initial PID namespace */
	bool has_snap;
	char dev_name[IB_DEVICE_NAME_MAX];
	char comm[16];
	u8 peer[16];
	struct ft_snap snap;		/* final counters, for qp-destroy */
};

struct ft_ev_stats {
	atomic64_t sent;
	atomic64_t suppressed;
	atomic64_t lost;
};

extern struct ft_ev_stats ft_ev_stats;
extern unsigned int ft_ev_rate;
extern unsigned int ft_ev_qp_interval_ms;
extern unsigned int ft_ev_quiet_ms;

int ft_events_init(void);
void ft_events_exit(void);

struct ft_dev;

void ft_event_qp(const struct ft_dev *dev, struct ft_qp *qp, unsigned int kind);
void ft_event_note(const struct ft_dev *dev, struct ft_qp *qp, unsigned int ev);
#ifdef CONFIG_FABTRACE_BENCH
void ft_events_bench(unsigned int n, u64 *withheld_ns, u64 *sent_ns);
#endif

#endif /* _FABTRACE_EVENTS_H */
