// SPDX-License-Identifier: GPL-2.0
/* Per-packet accounting of one QP (pure C, kernel and userspace). */

#include "acct.h"

/* ib_qp_type values fabtrace tracks PSNs for: RC and XRC target/initiator */
#define IBQPT_RC	2
#define IBQPT_XRC_INI	9
#define IBQPT_XRC_TGT	10

/*
 * After a READ request the responder expects request PSNs to resume past
 * the read's response packets, whose number depends on the path MTU; until
 * the next request arrives, any PSN beyond the read counts as in order.
 */
#define FT_PSN_LOOSE	0x40000000u
#define FT_PSN_MASK	0x00ffffffu

static inline bool psn_tracked(const struct ft_qp *qp)
{
	return qp->type == IBQPT_RC || qp->type == IBQPT_XRC_INI ||
	       qp->type == IBQPT_XRC_TGT;
}

/*
 * A transmitted PSN that does not advance past the highest one sent is a
 * retransmission.  Each tracker has a single writer (the requester, or the
 * responder), so a plain load and store suffice.
 */
static inline bool tx_retrans(u32 *track, u32 psn)
{
	u32 cur = READ_ONCE(*track);

	if ((cur & FT_PSN_VALID) && ft_psn_diff(psn, cur & FT_PSN_MASK) <= 0)
		return true;
	WRITE_ONCE(*track, psn | FT_PSN_VALID);
	return false;
}

/**
 * ft_acct_tx() - account one transmitted packet of @qp
 * @qp: the sending QP
 * @pkt: the parsed packet
 *
 * Return: FT_EV_* mask of the congestion signals the packet carries.
 */
unsigned int ft_acct_tx(struct ft_qp *qp, const struct ft_pkt *pkt)
{
	struct ft_dir *d = &qp->dir_tx;
	unsigned int ev = 0;

	atomic64_add(pkt->payload, &d->bytes);
	atomic64_inc(&d->cls[pkt->cls]);

	if (pkt->flags & FT_PKT_REQ) {
		if (psn_tracked(qp) && tx_retrans(&qp->tx_req_psn, pkt->psn))
			ev = FT_EV_RETRANS;
	} else if (pkt->flags & FT_PKT_RESP) {
		if (psn_tracked(qp) && tx_retrans(&qp->tx_resp_psn, pkt->psn))
			ev = FT_EV_RETRANS;
	} else if (pkt->cls == FT_CLS_NAK) {
		atomic64_inc(&qp->cong.nak[FT_TX][pkt->nak]);
		/*
		 * A sequence NAK names the PSN the responder expects; an RNR
		 * NAK names the request it could not take, which will come
		 * again.  Either way that is the next in-order PSN.
		 */
		if (pkt->nak == FT_NAK_PSN_SEQ || pkt->nak == FT_NAK_RNR)
			WRITE_ONCE(qp->rx_req_psn, pkt->psn | FT_PSN_VALID);
		ev = FT_EV_NAK;
	} else if (pkt->cls == FT_CLS_CNP) {
		ev = FT_EV_CNP;
	}

	if (ev & FT_EV_RETRANS)
		atomic64_inc(&qp->cong.retrans);
	return ev;
}

/* Classify a received request against the PSN the responder expects. */
static inline void rx_request(struct ft_qp *qp, const struct ft_pkt *pkt)
{
	u32 cur = READ_ONCE(qp->rx_req_psn);
	s32 diff;

	if (!(cur & FT_PSN_VALID)) {
		diff = 0;
	} else {
		diff = ft_psn_diff(pkt->psn, cur & FT_PSN_MASK);
		if (diff < 0) {
			atomic64_inc(&qp->cong.rx_dup);
			return;
		}
		if (diff > 0 && !(cur & FT_PSN_LOOSE)) {
			atomic64_inc(&qp->cong.rx_oos);
			return;
		}
	}
	cur = ft_psn_add(pkt->psn, 1) | FT_PSN_VALID;
	if (pkt->cls == FT_CLS_READ_REQ)
		cur |= FT_PSN_LOOSE;
	WRITE_ONCE(qp->rx_req_psn, cur);
}

/* Remember the highest request PSN the peer has acknowledged. */
static inline void rx_acked(struct ft_qp *qp, u32 psn)
{
	u32 cur = READ_ONCE(qp->rx_ack_psn);

	if (!(cur & FT_PSN_VALID) || ft_psn_diff(psn, cur & FT_PSN_MASK) > 0)
		WRITE_ONCE(qp->rx_ack_psn, psn | FT_PSN_VALID);
}

/**
 * ft_acct_outstanding() - does @qp wait for the peer to acknowledge requests
 * @qp: the QP
 *
 * A retransmission timer that expires while nothing is outstanding is
 * rxe pushing its timer down the road, not a timeout.
 */
bool ft_acct_outstanding(const struct ft_qp *qp)
{
	u32 sent = READ_ONCE(qp->tx_req_psn), acked = READ_ONCE(qp->rx_ack_psn);

	if (!(sent & FT_PSN_VALID))
		return false;
	if (!(acked & FT_PSN_VALID))
		return true;
	return ft_psn_diff(sent & FT_PSN_MASK, acked & FT_PSN_MASK) > 0;
}

/**
 * ft_acct_rx() - account one received packet of @qp
 * @qp: the receiving QP
 * @pkt: the parsed packet
 *
 * Return: FT_EV_* mask of the congestion signals the packet carries.
 */
unsigned int ft_acct_rx(struct ft_qp *qp, const struct ft_pkt *pkt)
{
	struct ft_dir *d = &qp->dir_rx;
	unsigned int ev = 0;

	atomic64_add(pkt->payload, &d->bytes);
	atomic64_inc(&d->cls[pkt->cls]);

	if (unlikely(pkt->flags & FT_PKT_ECT)) {
		atomic64_inc(&qp->cong.rx_ect);
		if (pkt->flags & FT_PKT_CE) {
			atomic64_inc(&qp->cong.rx_ce);
			ev = FT_EV_CE;
		}
	}

	if (pkt->flags & FT_PKT_REQ) {
		if (psn_tracked(qp))
			rx_request(qp, pkt);
		return ev;
	}
	if (pkt->cls == FT_CLS_CNP)
		return ev | FT_EV_CNP;
	if (pkt->cls == FT_CLS_NAK) {
		atomic64_inc(&qp->cong.nak[FT_RX][pkt->nak]);
		ev |= FT_EV_NAK;
		/* a NAK acknowledges everything before the PSN it names */
		rx_acked(qp, ft_psn_add(pkt->psn, FT_PSN_MASK));
	} else if (pkt->cls == FT_CLS_ACK || (pkt->flags & FT_PKT_RESP)) {
		rx_acked(qp, pkt->psn);
	}
	return ev;
}

/**
 * ft_snap_take() - copy the counters of @qp
 * @qp: the entry
 * @s: the copy
 */
void ft_snap_take(const struct ft_qp *qp, struct ft_snap *s)
{
	const struct ft_dir *dirs[2] = { &qp->dir_tx, &qp->dir_rx };
	const struct ft_cong *c = &qp->cong;
	unsigned int d, i;

	for (d = 0; d < 2; d++) {
		s->bytes[d] = atomic64_read(&dirs[d]->bytes);
		for (i = 0; i < FT_CLS_MAX; i++)
			s->cls[d][i] = atomic64_read(&dirs[d]->cls[i]);
		for (i = 0; i < FT_NAK_MAX; i++)
			s->nak[d][i] = atomic64_read(&c->nak[d][i]);
	}
	s->rx_ect = atomic64_read(&c->rx_ect);
	s->rx_ce = atomic64_read(&c->rx_ce);
	s->retrans = atomic64_read(&c->retrans);
	s->timeouts = atomic64_read(&c->timeouts);
	s->rnr_timeouts = atomic64_read(&c->rnr_timeouts);
	s->rx_dup = atomic64_read(&c->rx_dup);
	s->rx_oos = atomic64_read(&c->rx_oos);
	s->retry_exh = atomic64_read(&c->retry_exh);
	s->errors = atomic64_read(&c->errors);
	for (i = 0; i < FT_LAST_MAX; i++)
		s->last[i] = READ_ONCE(c->last[i]);
}
