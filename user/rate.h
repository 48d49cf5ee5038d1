/* SPDX-License-Identifier: GPL-2.0 */
/* Per-second rates of QPs from two successive samples, for "fabtrace top". */
#ifndef _FABTRACE_RATE_H
#define _FABTRACE_RATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hwterm.h"
#include "qpset.h"

#include "parse.h"

struct qp_rate {
	const struct ft_qp_rec *r;	/* the newer sample's record */
	double tx_pps, rx_pps;		/* packets per second */
	double tx_bps, rx_bps;		/* payload bytes per second */
	double ce_ps, cnp_ps, nak_ps, retrans_ps;
	unsigned int have;		/* RATE_HAVE_*: the rates its source counts */
	bool active;			/* any of its counters moved */
};

/*
 * What a QP's source counts: all on soft-RoCE (fabtrace's taps); on a
 * hardware NIC the NAKs and retransmits of its counter set, or the
 * packets of its PSNs' progress (new requests: pps, never bytes).
 */
#define RATE_HAVE_PKTS		(1u << 0)
#define RATE_HAVE_BYTES		(1u << 1)
#define RATE_HAVE_CE		(1u << 2)
#define RATE_HAVE_CNP		(1u << 3)
#define RATE_HAVE_NAK		(1u << 4)
#define RATE_HAVE_RETRANS	(1u << 5)
#define RATE_HAVE_TAP		0x3fu

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

/*
 * Descending by @key, ties by device and QP number, QPs whose source does
 * not count @key last; then keep @limit (0: all).
 */
size_t rates_sort(struct qp_rate *v, size_t n, enum top_sort key, size_t limit);

/*
 * A hardware port's ECN and CNP rates (hwterm.h's terms its driver counts,
 * bit per term in @have), and whether it saw marks or CNPs this interval.
 */
struct port_rate {
	const struct ft_dev_rec *d;	/* the newer sample's device */
	uint32_t port;
	double ps[HW_NTERMS];
	unsigned int have;
	bool congested;
};

/*
 * Rates of the ports of @cur's devices that count any term, against
 * @prev's, @elapsed_ns apart; a port not in @prev has none yet (have 0,
 * not listed).  @out has room for every hardware port of @cur.
 */
size_t port_rates_compute(const struct ft_dev_rec *prev, size_t nprev,
			  const struct ft_dev_rec *cur, size_t ncur, uint64_t elapsed_ns,
			  struct port_rate *out);

#endif /* _FABTRACE_RATE_H */
