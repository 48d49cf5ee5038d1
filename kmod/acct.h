/* SPDX-License-Identifier: GPL-2.0 */
/* The QP entry and the per-packet accounting step (pure C). */
#ifndef _FABTRACE_ACCT_H
#define _FABTRACE_ACCT_H

#include "pure.h"
#include "roce.h"

struct ft_dev;
struct ib_qp;
struct pid;

/* Counters of one direction. */
struct ft_dir {
	atomic64_t bytes;
	atomic64_t cls[FT_CLS_MAX];	/* packets = their sum */
};

enum ft_last {
	FT_LAST_CE,
	FT_LAST_CNP,
	FT_LAST_NAK,
	FT_LAST_RETRANS,
	FT_LAST_TIMEOUT,
	FT_LAST_RNR_TIMEOUT,
	FT_LAST_MAX
};

/* Congestion signals; see the cong attribute set of the netlink spec. */
struct ft_cong {
	atomic64_t rx_ect;
	atomic64_t rx_ce;
	atomic64_t nak[2][FT_NAK_MAX];	/* [FT_TX] sent, [FT_RX] received */
	atomic64_t retrans;
	atomic64_t timeouts;
	atomic64_t rnr_timeouts;
	atomic64_t rx_dup;
	atomic64_t rx_oos;
	atomic64_t retry_exh;
	atomic64_t errors;
	u64 last[FT_LAST_MAX];		/* ktime_get_real_ns() */
};

#define FT_TX 0
#define FT_RX 1

/* The PSN trackers keep a 24-bit PSN; this bit says one is known. */
#define FT_PSN_VALID	0x80000000u

/* ft_qp.flags, as the UAPI numbers them */
#define FT_QP_DESTROYED		0x1
#define FT_QP_KERNEL		0x2
#define FT_QP_DISCOVERED	0x4
#define FT_QP_CONGESTED		0x8

/*
 * One QP.  Its transmit and receive counters are written by different
 * CPUs (rxe's send task and the receive softirq), so they sit far apart;
 * atomics keep them exact when, rarely, two CPUs send on one QP at once.
 * Per-CPU copies would cost nr_cpus times the memory for 100k QPs.
 */
struct ft_qp {
	struct ft_dir dir_tx;
	/* PSN trackers: written by the path that owns them (see acct.c) */
	u32 tx_req_psn;		/* highest request PSN sent */
	u32 tx_resp_psn;	/* highest read/atomic response PSN sent */
	u32 rx_req_psn;		/* next request PSN expected */
	u32 rx_ack_psn;		/* highest request PSN the peer acknowledged */
	u8 type;		/* enum ib_qp_type */
	u8 state;		/* enum ib_qp_state */
	u8 port;
	u8 flags;		/* FT_QP_* */

	/* read-mostly metadata between the two directions' counters */
	u32 qpn;
	u32 rqpn;
	u8 tclass;
	u8 sl;
	u16 ev_suppressed;	/* events withheld since the last sent */
	u32 ev_last;		/* jiffies of the last event sent */
	struct ft_dev *dev;
	const struct ib_qp *ibqp;	/* identity only, never dereferenced */
	struct pid *owner;
	char comm[16];
	u8 peer[16];
	u64 ctime;
	u64 dtime;
	struct list_head retired;	/* on ft_dev.retired once destroyed */

	struct ft_cong cong;
	struct ft_dir dir_rx;
};

/* ft_acct_*() return a mask of the events the packet started. */
#define FT_EV_CE	0x01
#define FT_EV_CNP	0x02
#define FT_EV_NAK	0x04
#define FT_EV_RETRANS	0x08

unsigned int ft_acct_tx(struct ft_qp *qp, const struct ft_pkt *pkt);
unsigned int ft_acct_rx(struct ft_qp *qp, const struct ft_pkt *pkt);
bool ft_acct_outstanding(const struct ft_qp *qp);

/* A plain copy of an entry's counters, for replies and events. */
struct ft_snap {
	u64 bytes[2];
	u64 cls[2][FT_CLS_MAX];
	u64 rx_ect, rx_ce;
	u64 nak[2][FT_NAK_MAX];
	u64 retrans, timeouts, rnr_timeouts, rx_dup, rx_oos, retry_exh, errors;
	u64 last[FT_LAST_MAX];
};

void ft_snap_take(const struct ft_qp *qp, struct ft_snap *s);

static inline u64 ft_snap_packets(const struct ft_snap *s, unsigned int dir)
{
	u64 sum = 0;
	unsigned int i;

	for (i = 0; i < FT_CLS_MAX; i++)
		sum += s->cls[dir][i];
	return sum;
}

static inline u64 ft_dir_packets(const struct ft_dir *d)
{
	u64 sum = 0;
	unsigned int i;

	for (i = 0; i < FT_CLS_MAX; i++)
		sum += atomic64_read(&d->cls[i]);
	return sum;
}

#endif /* _FABTRACE_ACCT_H */
