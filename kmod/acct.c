// SPDX-License-Identifier: GPL-2.0
/* Per-packet accounting of one QP (pure C, kernel and userspace). */

#include "acct.h"

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
 * ft_snap_take() - copy the counters of @qp
 * @qp: the entry
 * @s: the copy
 */
void ft_snap_take(const struct ft_qp *qp, struct ft_snap *s)
{
	const struct ft_dir *dirs[2] = { &qp->dir_tx, &qp->dir_rx };
	const struct ft_cong *c = &qp->cong;
	unsigned int d, i;

	BUILD_BUG_ON(FT_CLS_MAX - 1 != FT_CLS_NAK);
	for (d = 0; d < 2; d++) {
		s->bytes[d] = atomic64_read(&dirs[d]->bytes);
		for (i = 0; i < FT_CLS_NAK; i++)
			s->cls[d][i] = atomic64_read(&dirs[d]->pkts[i]);
		s->cls[d][FT_CLS_NAK] = 0;
		for (i = 0; i < FT_NAK_MAX; i++) {
			s->nak[d][i] = atomic64_read(&dirs[d]->pkts[FT_CLS_NAK + i]);
			s->cls[d][FT_CLS_NAK] += s->nak[d][i];
		}
	}
	s->rx_ect = atomic64_read(&c->rx_ect);
	s->rx_ce = atomic64_read(&c->rx_ce);
	s->retrans = atomic64_read(&c->retrans);
	s->timeouts = (u32)atomic_read(&c->timeouts);
	s->rnr_timeouts = (u32)atomic_read(&c->rnr_timeouts);
	s->rx_dup = atomic64_read(&c->rx_dup);
	s->rx_oos = atomic64_read(&c->rx_oos);
	s->retry_exh = (u32)atomic_read(&c->retry_exh);
	s->errors = (u32)atomic_read(&c->errors);
	for (i = 0; i < FT_LAST_MAX; i++)
		s->last[i] = READ_ONCE(c->last[i]);
}
