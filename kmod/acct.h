/* SPDX-License-Identifier: GPL-2.0 */
/* The QP entry and the per-packet accounting step (pure C). */
#ifndef _FABTRACE_ACCT_H
#define _FABTRACE_ACCT_H

#include "pure.h"
#include "roce.h"
#include "rtt.h"

struct ft_dev;
struct ft_hw_qp;
struct ib_qp;
struct pid;

/*
 * Counters of one direction: packets per class, but a NAK counts in the
 * slot of its syndrome (FT_CLS_NAK + nak), so one increment accounts any
 * packet and the NAK class is the sum of its syndromes.
 */
struct ft_dir {
	atomic64_t bytes;
	atomic64_t pkts[FT_SLOT_MAX];	/* packets = their sum */
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
	atomic64_t retrans;
	atomic64_t rx_dup;
	atomic64_t rx_oos;
	/*
	 * A QP errs, or exhausts its retries (and then errs), a few times in
	 * its life at most; its timers expire a jiffy apart at the least, 2^32
	 * of them 198 days of nothing but expiries: 32 bits, and the entry
	 * has room for its cgroup and its round trips.
	 */
	atomic_t timeouts;
	atomic_t rnr_timeouts;
	atomic_t retry_exh;
	atomic_t errors;
	u64 last[FT_LAST_MAX];		/* ktime_get_ns() */
};

#define FT_TX 0
#define FT_RX 1

/* ft_qp.flags, as the UAPI numbers them */
#define FT_QP_DESTROYED		0x1
#define FT_QP_KERNEL		0x2
#define FT_QP_DISCOVERED	0x4
#define FT_QP_CONGESTED		0x8	/* computed when read, never stored */
#define FT_QP_MISCONFIGURED	0x10	/* computed when read, never stored */
/* internal flags, not reported */
#define FT_QP_PSN		0x20	/* RC or XRC: PSNs are tracked */
#define FT_QP_EVICTED		0x40	/* retired, given up for a live QP */
#define FT_QP_PFC_FROZEN	0x80	/* pfc_base holds the QP's paused time */
#define FT_QP_UAPI_FLAGS	0x07	/* those of the UAPI that are stored */

/*
 * A QP's psn_seq: the modifies that may give it new PSNs and are running
 * (the low byte), and an epoch of its send PSN and of its receive PSN,
 * each moved on when one such modify succeeded.  The PSNs of a hardware
 * NIC's QP are read from the NIC (hw.c): a read with a modify in flight,
 * or past one, is not the PSNs it counts from.
 */
#define FT_PSN_SEQ_RUN	1u		/* one running (atomic_inc) */
#define FT_PSN_SEQ_BUSY	0xffu
#define FT_PSN_SEQ_MAX_RUNNING	127	/* per modify probe (hook.c) */
#define FT_PSN_SEQ_SQ	0x00000100u	/* the send PSN's epoch, one */
#define FT_PSN_SEQ_RQ	0x00100000u	/* the receive PSN's */
#define FT_PSN_SEQ_SQS	0x000fff00u
#define FT_PSN_SEQ_RQS	0xfff00000u

/*
 * One QP.  Its transmit and receive counters are written by different
 * CPUs (rxe's send task and the receive softirq), so they sit far apart;
 * atomics keep them exact when, rarely, two CPUs send on one QP at once.
 * Per-CPU copies would cost nr_cpus times the memory for 100k QPs.
 *
 * Size matters at that scale: SLUB packs 15 entries of up to 544 bytes in
 * an order-1 slab (two CPUs), 546 bytes each with its share of the slack:
 * 554 with the index's 8, under 576 (the round trips took the entry from
 * 496 to 544: 56 bytes, 8 of them the timers' counts made 32 bits).
 * The device of an entry is known to every path that reaches it, so it is
 * not stored; retired entries are only ever appended and expire oldest
 * first, so one link suffices.
 */
#define FT_QP_SIZE_MAX	544
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
	u8 sl;			/* 0-3: the SL; 4-6: pfc.c's (dev->lock) */
	u16 ev_suppressed;	/* events withheld since the last sent */
	u32 ev_last;		/* jiffies of the last event sent */
	atomic_t psn_seq;	/* modifies of its PSNs: FT_PSN_SEQ_* (life.c, hw.c) */
	u64 pfc_base;		/* ns; see pfc.c */
	u64 cnp_sent;		/* ktime_get_ns() of the last CNP sent; cnp.c */
	const struct ib_qp *ibqp;	/* identity only, never dereferenced */
	struct pid *owner;
	char comm[16];
	u8 peer[16];
	u64 ctime;
	u64 dtime;
	u64 cgroup;		/* the creator's cgroup v2 id; 0: a kernel QP */
	struct ft_qp __rcu *next_retired;	/* on ft_dev.retired, once destroyed */
	struct ft_hw_qp __rcu *hw;	/* a hardware NIC's QP: hw.c */

	struct ft_cong cong;
	struct ft_rtt rtt;	/* its samples: rtt.h */
	struct ft_dir dir_rx;
};

/* The SL shares its byte with pfc.c's priority: writers hold dev->lock. */
static inline u8 ft_qp_sl(const struct ft_qp *qp)
{
	return READ_ONCE(qp->sl) & 0x0f;
}

static inline void ft_qp_set_sl(struct ft_qp *qp, u8 sl)
{
	WRITE_ONCE(qp->sl, (READ_ONCE(qp->sl) & 0xf0) | (sl & 0x0f));
}

/* ft_acct_*() return a mask of the events the packet started. */
#define FT_EV_CE	0x01
#define FT_EV_CNP	0x02
#define FT_EV_NAK	0x04
#define FT_EV_RETRANS	0x08

bool ft_acct_outstanding(const struct ft_qp *qp);

/*
 * After a READ request the responder expects request PSNs to resume past
 * the read's response packets, whose number depends on the path MTU; until
 * the next request arrives, any PSN beyond the read counts as in order.
 */
#define FT_PSN_LOOSE	0x40000000u

/* ib_qp_type values fabtrace tracks PSNs for: RC and XRC target/initiator */
static inline bool ft_qp_type_has_psn(u8 type)
{
	return type == 2 || type == 9 || type == 10;
}

static inline bool ft_psn_tracked(const struct ft_qp *qp)
{
	return qp->flags & FT_QP_PSN;
}

/*
 * A transmitted PSN that does not advance past the highest one sent is a
 * retransmission.  Each tracker has a single writer (the requester, or the
 * responder), so a plain load and store suffice.
 */
static inline bool ft_tx_retrans(u32 *track, u32 psn)
{
	u32 cur = READ_ONCE(*track);

	/* a PSN past the last, the common case, tests no flag */
	if (unlikely(ft_psn_diff(psn, cur) <= 0) && (cur & FT_PSN_VALID))
		return true;
	WRITE_ONCE(*track, psn | FT_PSN_VALID);
	return false;
}

/* A request or response sent: a retransmission, if its PSN is tracked. */
static __always_inline unsigned int ft_tx_psn(struct ft_qp *qp, u32 *track,
					      u32 psn)
{
	if (ft_psn_tracked(qp) && ft_tx_retrans(track, psn)) {
		atomic64_inc(&qp->cong.retrans);
		return FT_EV_RETRANS;
	}
	return 0;
}

/* A NAK or a CNP sent: rare, out of the straight line. */
static inline unsigned int ft_acct_tx_rare(struct ft_qp *qp,
					   const struct ft_pkt *pkt)
{
	if (!(pkt->flags & FT_PKT_NAK))
		return FT_EV_CNP;
	/*
	 * A sequence NAK names the PSN the responder expects; an RNR NAK
	 * names the request it could not take, which will come again.
	 * Either way that is the next in-order PSN.
	 */
	if (ft_pkt_nak(pkt) == FT_NAK_PSN_SEQ || ft_pkt_nak(pkt) == FT_NAK_RNR)
		WRITE_ONCE(qp->rx_req_psn, pkt->psn | FT_PSN_VALID);
	return FT_EV_NAK;
}

/**
 * ft_acct_tx() - account one transmitted packet of @qp
 * @qp: the sending QP
 * @pkt: the parsed packet
 *
 * Return: FT_EV_* mask of the congestion signals the packet carries.
 */
static __always_inline unsigned int ft_acct_tx(struct ft_qp *qp,
					       const struct ft_pkt *pkt)
{
	struct ft_dir *d = &qp->dir_tx;

	atomic64_add(pkt->payload, &d->bytes);
	/* an unsigned long index: no sign extension of the slot */
	atomic64_inc(&d->pkts[(unsigned long)pkt->slot]);

	if (likely(pkt->flags & FT_PKT_REQ))
		return ft_tx_psn(qp, &qp->tx_req_psn, pkt->psn);
	if (pkt->flags & FT_PKT_RESP)
		return ft_tx_psn(qp, &qp->tx_resp_psn, pkt->psn);
	if (unlikely(pkt->flags & (FT_PKT_NAK | FT_PKT_CNP)))
		return ft_acct_tx_rare(qp, pkt);
	return 0;
}

/* Classify a received request against the PSN the responder expects. */
static inline void ft_rx_request(struct ft_qp *qp, const struct ft_pkt *pkt)
{
	u32 cur = READ_ONCE(qp->rx_req_psn);

	/* the PSN expected, the common case, tests no flag */
	if (unlikely((pkt->psn - cur) & FT_PSN_MASK) && (cur & FT_PSN_VALID)) {
		if (ft_psn_diff(pkt->psn, cur) < 0) {
			atomic64_inc(&qp->cong.rx_dup);
			return;
		}
		if (!(cur & FT_PSN_LOOSE)) {
			atomic64_inc(&qp->cong.rx_oos);
			return;
		}
	}
	/* after a READ request, FT_PSN_LOOSE */
	BUILD_BUG_ON(FT_PKT_READ << 25 != FT_PSN_LOOSE);
	WRITE_ONCE(qp->rx_req_psn, ft_psn_add(pkt->psn, 1) | FT_PSN_VALID |
		   (u32)(pkt->flags & FT_PKT_READ) << 25);
}

/* Remember the highest request PSN the peer has acknowledged. */
static inline void ft_rx_acked(struct ft_qp *qp, u32 psn)
{
	u32 cur = READ_ONCE(qp->rx_ack_psn);

	if (!(cur & FT_PSN_VALID) || ft_psn_diff(psn, cur) > 0)
		WRITE_ONCE(qp->rx_ack_psn, psn | FT_PSN_VALID);
}

/* A NAK or a CNP received: rare, out of the straight line. */
static inline unsigned int ft_acct_rx_rare(struct ft_qp *qp,
					   const struct ft_pkt *pkt)
{
	if (!(pkt->flags & FT_PKT_NAK))
		return FT_EV_CNP;
	/* a NAK acknowledges everything before the PSN it names */
	ft_rx_acked(qp, ft_psn_add(pkt->psn, FT_PSN_MASK));
	return FT_EV_NAK;
}

/**
 * ft_acct_rx() - account one received packet of @qp
 * @qp: the receiving QP
 * @pkt: the parsed packet
 *
 * Return: FT_EV_* mask of the congestion signals the packet carries.
 */
static __always_inline unsigned int ft_acct_rx(struct ft_qp *qp,
					       const struct ft_pkt *pkt)
{
	struct ft_dir *d = &qp->dir_rx;
	unsigned int ev = 0;

	atomic64_add(pkt->payload, &d->bytes);
	/* an unsigned long index: no sign extension of the slot */
	atomic64_inc(&d->pkts[(unsigned long)pkt->slot]);

	if (pkt->tclass & 3) {
		atomic64_inc(&qp->cong.rx_ect);
		if (unlikely((pkt->tclass & 3) == FT_ECN_CE)) {
			atomic64_inc(&qp->cong.rx_ce);
			ev = FT_EV_CE;
		}
	}

	if (likely(pkt->flags & FT_PKT_REQ)) {
		if (ft_psn_tracked(qp))
			ft_rx_request(qp, pkt);
	} else if (unlikely(pkt->flags & (FT_PKT_NAK | FT_PKT_CNP))) {
		ev |= ft_acct_rx_rare(qp, pkt);
	} else if (pkt->flags & (FT_PKT_ACK | FT_PKT_RESP)) {
		ft_rx_acked(qp, pkt->psn);
	}
	return ev;
}

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

	for (i = 0; i < FT_SLOT_MAX; i++)
		sum += atomic64_read(&d->pkts[i]);
	return sum;
}

/* The NAKs of one direction, all syndromes. */
static inline u64 ft_dir_naks(const struct ft_dir *d)
{
	u64 sum = 0;
	unsigned int i;

	for (i = FT_CLS_NAK; i < FT_SLOT_MAX; i++)
		sum += atomic64_read(&d->pkts[i]);
	return sum;
}

#endif /* _FABTRACE_ACCT_H */
