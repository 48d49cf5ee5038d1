/* SPDX-License-Identifier: GPL-2.0 */
/* A QP's round-trip time from its own packets: which start and end a sample (pure C). */
#ifndef _FABTRACE_RTT_H
#define _FABTRACE_RTT_H

#include "pure.h"
#include "roce.h"

/*
 * A requester times one request at a time, as TCP times one segment a
 * window: a request that asks to be answered at once (AckReq set, or a
 * READ, whose response is its answer), sent while none is timed, from its
 * transmission to the first ACK, NAK or read response that covers its PSN.
 * Karn's rule: a request sent again while one is timed drops the sample
 * (the answer may be the copy's), and no sample starts on a copy.  The
 * responder times its own share alike, its ack delay: from such a request
 * received while none is timed to the first answer it sends that covers
 * it.  A QP has one sample running at a time, of either kind: one that
 * both requests and answers takes turns.  The clock is read in tap.c,
 * once to start a sample and once to end it, never for a packet that
 * does neither.
 *
 * UC and UD have no answers, and rxe asks for none: their QPs track no
 * PSNs, and nothing starts a sample of theirs (ft_rtt_rx()).
 *
 * A sample's start is kept in 64 ns units, 32 bits: 274 s; a sample that
 * runs longer (an answer after a whole retry budget, which Karn's rule
 * stops first) reads short.
 */
#define FT_RTT_ON		0x80000000u	/* a sample runs, its PSN below */
#define FT_RTT_BUSY		0x40000000u	/* one is being started */
#define FT_RTT_AD		0x20000000u	/* it is the responder's */
#define FT_RTT_UNIT		6		/* log2 ns of a start's unit */

/*
 * Per QP, a coarse histogram of factor-4 buckets: below 16 us, 64 us,
 * 256 us, 1.024 ms, 4.096 ms, 16.384 ms, and above (soft-RoCE's RTTs run
 * from tens of microseconds to the milliseconds of a delayed path): seven
 * 32-bit counts fit the entry's budget.  Per device, per CPU, a fine one
 * of factor 2: below 1 us, 2 us, ..., 2^22 us (4.2 s), and above.
 */
#define FT_RTT_QP_BUCKETS	7
#define FT_RTT_QP_LE0		16000u		/* ns, the first bucket's bound */
#define FT_RTT_DEV_BUCKETS	24
#define FT_RTT_DEV_LE0		1000u

/* 56 bytes a QP: see the entry's budget (acct.h). */
struct ft_rtt {
	u32 slot;		/* the sample running: FT_RTT_*, its PSN; 0 none */
	u32 t0;			/* its start, FT_RTT_UNIT */
	u32 last, min, srtt, rttvar;	/* the requester's, ns; min 0: no sample yet */
	u32 ack_delay;		/* the responder's, smoothed, ns; 0: none yet */
	atomic_t hist[FT_RTT_QP_BUCKETS];	/* the requester's samples, by bucket */
};

/* What a packet does to the sample: tap.c reads the clock for these. */
#define FT_RTT_START		0x1	/* the requester times this request */
#define FT_RTT_END		0x2	/* this answer ends the requester's sample */
#define FT_RTT_AD_START		0x4	/* the responder times this request */
#define FT_RTT_AD_END		0x8	/* this answer ends the responder's */

/* A request that its responder answers at once. */
static __always_inline bool ft_rtt_asks(const struct ft_pkt *pkt)
{
	return pkt->flags & (FT_PKT_ACKREQ | FT_PKT_READ);
}

/* Does the answer @psn end the sample @cur: an ACK or response at or past it, a NAK past it. */
static __always_inline bool ft_rtt_covers(u32 cur, u32 psn, bool nak)
{
	s32 d = ft_psn_diff(psn, cur & FT_PSN_MASK);

	return d > 0 || (d == 0 && !nak);
}

/*
 * End the sample @cur if it still runs: its one taker gets its start in
 * *@v.  Its starter wrote the start before the sample (release).
 */
static inline bool ft_rtt_take(struct ft_rtt *r, u32 cur, u32 *v)
{
	*v = READ_ONCE(r->t0);
	return cmpxchg(&r->slot, cur, 0) == cur;
}

/* The answer @pkt ends a sample of kind @kind (0 or FT_RTT_AD)?  Its start in *@v. */
static __always_inline bool ft_rtt_answer(struct ft_rtt *r, const struct ft_pkt *pkt,
					  u32 kind, bool nak, u32 *v)
{
	/* the start, written before the sample was published (ft_rtt_start()) */
	u32 cur = smp_load_acquire(&r->slot);

	return (cur & (FT_RTT_ON | FT_RTT_AD)) == (FT_RTT_ON | kind) &&
	       ft_rtt_covers(cur, pkt->psn, nak) && ft_rtt_take(r, cur, v);
}

/**
 * ft_rtt_tx() - what a transmitted packet does to its QP's sample
 * @r: the QP's
 * @pkt: the packet
 * @again: it is a request sent again (ft_acct_tx() found FT_EV_RETRANS)
 * @v: for FT_RTT_START, the free slot to claim; for FT_RTT_AD_END, the
 *	sample's start
 *
 * Return: FT_RTT_START or FT_RTT_AD_END, or 0.
 */
static __always_inline unsigned int ft_rtt_tx(struct ft_rtt *r, const struct ft_pkt *pkt,
					      bool again, u32 *v)
{
	u32 cur;

	if (likely(pkt->flags & FT_PKT_REQ)) {
		/* most requests: a message's packets before its last */
		if (likely(!again && !ft_rtt_asks(pkt)))
			return 0;
		cur = READ_ONCE(r->slot);
		if (!(cur & (FT_RTT_ON | FT_RTT_BUSY))) {
			*v = cur;
			return again ? 0 : FT_RTT_START;
		}
		/* Karn: the answer may be the copy's */
		if (again && (cur & (FT_RTT_ON | FT_RTT_AD)) == FT_RTT_ON)
			cmpxchg(&r->slot, cur, 0);
		return 0;
	}
	if ((pkt->flags & (FT_PKT_ACK | FT_PKT_RESP)) && ft_rtt_answer(r, pkt, FT_RTT_AD, false, v))
		return FT_RTT_AD_END;
	return 0;
}

/**
 * ft_rtt_rx() - what a received packet does to its QP's sample
 * @r: the QP's
 * @pkt: the packet, accounted already (ft_acct_rx())
 * @sent: the QP's highest request PSN sent (FT_PSN_VALID once known)
 * @expect: the request PSN it expects next, as @pkt left it
 * @v: for FT_RTT_AD_START, the free slot to claim; for FT_RTT_END, the
 *	sample's start
 *
 * A packet's checks in rxe (addresses, QP, ICRC) come before the taps,
 * its PSN's after: an answer past every request sent (a forged one) ends
 * no sample, and only a request taken in order, which its answer follows
 * at once, starts the responder's (not a duplicate, nor one past a gap).
 * A QP that tracks no PSNs (UC, UD) has neither, and times nothing.
 *
 * Return: FT_RTT_END or FT_RTT_AD_START, or 0.
 */
static __always_inline unsigned int ft_rtt_rx(struct ft_rtt *r, const struct ft_pkt *pkt,
					      const u32 *sent, const u32 *expect, u32 *v)
{
	u32 cur, last;

	if (likely(pkt->flags & FT_PKT_REQ)) {
		if (likely(!ft_rtt_asks(pkt)))
			return 0;
		last = READ_ONCE(*expect);
		if (!(last & FT_PSN_VALID) || ((last - pkt->psn) & FT_PSN_MASK) != 1)
			return 0;
		cur = READ_ONCE(r->slot);
		if (cur & (FT_RTT_ON | FT_RTT_BUSY))
			return 0;
		*v = cur;
		return FT_RTT_AD_START;
	}
	if (!(pkt->flags & (FT_PKT_ACK | FT_PKT_RESP)))
		return 0;
	last = READ_ONCE(*sent);
	if (!(last & FT_PSN_VALID) || ft_psn_diff(pkt->psn, last & FT_PSN_MASK) > 0)
		return 0;
	return ft_rtt_answer(r, pkt, 0, pkt->flags & FT_PKT_NAK, v) ? FT_RTT_END : 0;
}

/*
 * Start a sample of @kind (0 or FT_RTT_AD) on @psn at @now (ns), if the
 * slot is still @free: the requester's tap and the responder's may both
 * try, one claims it.
 */
static inline void ft_rtt_start(struct ft_rtt *r, u32 free, u32 psn, u32 kind, u64 now)
{
	if (cmpxchg(&r->slot, free, FT_RTT_BUSY) != free)
		return;
	WRITE_ONCE(r->t0, (u32)(now >> FT_RTT_UNIT));
	/* the start before the sample: its taker reads them in that order */
	smp_store_release(&r->slot, (psn & FT_PSN_MASK) | FT_RTT_ON | kind);
}

/* A sample's length in ns, from its start @t0 to @now; at most U32_MAX. */
static inline u32 ft_rtt_since(u32 t0, u64 now)
{
	u64 ns = (u64)((u32)(now >> FT_RTT_UNIT) - t0) << FT_RTT_UNIT;

	return ns < U32_MAX ? (u32)ns ?: 1 : U32_MAX;
}

/* The bucket of @ns in a histogram whose first bound is @le0 and each next @shift bits up. */
static inline unsigned int ft_rtt_bucket(u32 ns, u32 le0, unsigned int shift, unsigned int n)
{
	u32 q = ns / le0;
	unsigned int b = q ? (32 - __builtin_clz(q) + shift - 1) / shift : 0;

	return b < n - 1 ? b : n - 1;
}

static inline unsigned int ft_rtt_qp_bucket(u32 ns)
{
	return ft_rtt_bucket(ns, FT_RTT_QP_LE0, 2, FT_RTT_QP_BUCKETS);
}

static inline unsigned int ft_rtt_dev_bucket(u32 ns)
{
	return ft_rtt_bucket(ns, FT_RTT_DEV_LE0, 1, FT_RTT_DEV_BUCKETS);
}

/*
 * One requester's sample of @ns: kept as TCP keeps its (RFC 6298: gains
 * 1/8 and 1/4).  The sample's one taker writes: plain stores suffice.
 */
static inline void ft_rtt_record(struct ft_rtt *r, u32 ns)
{
	u32 min = READ_ONCE(r->min), srtt = READ_ONCE(r->srtt);
	u32 var = READ_ONCE(r->rttvar), err;

	if (!min) {
		srtt = ns;
		var = ns / 2;
		min = ns;
	} else {
		err = srtt > ns ? srtt - ns : ns - srtt;
		var = var - var / 4 + err / 4;
		srtt = srtt - srtt / 8 + ns / 8;
		min = ns < min ? ns : min;
	}
	WRITE_ONCE(r->last, ns);
	WRITE_ONCE(r->srtt, srtt);
	WRITE_ONCE(r->rttvar, var);
	WRITE_ONCE(r->min, min);
	atomic_inc(&r->hist[ft_rtt_qp_bucket(ns)]);
}

/* One ack delay of @ns, smoothed as srtt is. */
static inline void ft_rtt_record_ad(struct ft_rtt *r, u32 ns)
{
	u32 ad = READ_ONCE(r->ack_delay);

	WRITE_ONCE(r->ack_delay, ad ? ad - ad / 8 + ns / 8 : ns);
}

/**
 * ft_rtt_clocked() - start or end the sample @t says, at @now
 * @r: the QP's
 * @psn: the packet's PSN
 * @t: FT_RTT_* from ft_rtt_tx() or ft_rtt_rx()
 * @v: what they left in their @v
 * @now: the clock, read for it (ns)
 *
 * Return: an ended sample's length (ns), for the device's totals; 0 else.
 */
static inline u32 ft_rtt_clocked(struct ft_rtt *r, u32 psn, unsigned int t, u32 v, u64 now)
{
	u32 ns = 0;

	switch (t) {
	case FT_RTT_START:
		ft_rtt_start(r, v, psn, 0, now);
		break;
	case FT_RTT_AD_START:
		ft_rtt_start(r, v, psn, FT_RTT_AD, now);
		break;
	case FT_RTT_END:
		ns = ft_rtt_since(v, now);
		ft_rtt_record(r, ns);
		break;
	case FT_RTT_AD_END:
		ns = ft_rtt_since(v, now);
		ft_rtt_record_ad(r, ns);
		break;
	}
	return ns;
}

#endif /* _FABTRACE_RTT_H */
