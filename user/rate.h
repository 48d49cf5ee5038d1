/* SPDX-License-Identifier: GPL-2.0 */
/* Per-second rates of QPs from two successive samples, for "fabtrace top". */
#ifndef _FABTRACE_RATE_H
#define _FABTRACE_RATE_H

#include <stddef.h>
#include <stdint.h>

#include "qpset.h"

#include "parse.h"

struct qp_rate {
	const struct ft_qp_rec *r;	/* the newer sample's record */
	double tx_pps, rx_pps;		/* packets per second */
	double tx_bps, rx_bps;		/* payload bytes per second */
	double ce_ps, cnp_ps, nak_ps, retrans_ps;
};

enum top_sort {
	TOP_SORT_BYTES,		/* tx + rx bytes per second */
	TOP_SORT_PKTS,
	TOP_SORT_CE,
	TOP_SORT_CNP,
	TOP_SORT_NAK,
	TOP_SORT_RETRANS,
};

extern const struct kw ft_kw_top_sort[];

/*
 * Rates of every QP of @cur against @prev, taken @elapsed_ns apart; @prev
 * was sampled from @prev_real (CLOCK_REALTIME ns) on.  QPs are matched on
 * (device, QP number, creation time), so a reused QP number is a new QP.
 * A QP missing from @prev counts from zero if it was created since, else it
 * has no rate yet (0).  A counter that went down was reset: what it holds
 * now is its delta.  QPs destroyed before @prev are left out.  @prev's
 * order is changed (sorted for lookup).  Returns how many rates were written
 * to @out, which has room for cur->n.
 */
size_t rates_compute(struct qpset *prev, const struct qpset *cur,
		     uint64_t prev_real, uint64_t elapsed_ns, struct qp_rate *out);

/* Descending by @key, ties by device and QP number; then keep @limit (0: all). */
size_t rates_sort(struct qp_rate *v, size_t n, enum top_sort key, size_t limit);

#endif /* _FABTRACE_RATE_H */
