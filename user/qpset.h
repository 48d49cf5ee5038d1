/* SPDX-License-Identifier: GPL-2.0 */
/* A growable set of QP records, and sorting it by the keys "qp show" offers. */
#ifndef _FABTRACE_QPSET_H
#define _FABTRACE_QPSET_H

#include <stddef.h>

#include "rec.h"

#include "parse.h"

/*
 * Records live in fixed chunks that are never moved, so pointers to them
 * stay valid while the set grows, and sorting moves pointers, not records.
 */
struct qpset {
	struct ft_qp_rec **v;	/* the records, in order */
	size_t n, cap;
	struct ft_qp_rec **chunks;
	size_t nchunks;
};

/* A slot for one more record (not zeroed; the parser fills it). */
struct ft_qp_rec *qpset_add(struct qpset *s);
/* Forget the records but keep the memory for the next round. */
void qpset_clear(struct qpset *s);
void qpset_free(struct qpset *s);

enum qp_sort {
	QP_SORT_QPN,		/* device index, QP number, creation: ascending */
	QP_SORT_TX_BYTES,	/* the others: descending, ties by QP number */
	QP_SORT_RX_BYTES,
	QP_SORT_TX_PKTS,
	QP_SORT_RX_PKTS,
	QP_SORT_CE,
	QP_SORT_CNP,
	QP_SORT_NAK,
	QP_SORT_RETRANS,
	QP_SORT_TIMEOUTS,
};

extern const struct kw ft_kw_qp_sort[];

/* The value a counter key sorts by (CNP and NAK: sent plus received). */
uint64_t qp_sort_value(const struct ft_qp_rec *r, enum qp_sort key);
/*
 * Sort, then keep the first @limit records (0: all).  Add records again only
 * after qpset_clear(): sorting permutes the slots.
 */
void qpset_sort(struct qpset *s, enum qp_sort key, size_t limit);

/* Identity of a QP entry over time: a QP number is reused after destroy. */
int qp_key_cmp(const struct ft_qp_rec *a, const struct ft_qp_rec *b);

#endif /* _FABTRACE_QPSET_H */
