// SPDX-License-Identifier: GPL-2.0
/* Per-second rates of QPs from two successive samples, for "fabtrace top". */

#include <stdlib.h>

#include "parse.h"
#include "rate.h"

const struct kw ft_kw_top_sort[] = {
	{ "bytes", TOP_SORT_BYTES },
	{ "pkts", TOP_SORT_PKTS },
	{ "ce", TOP_SORT_CE },
	{ "cnp", TOP_SORT_CNP },
	{ "nak", TOP_SORT_NAK },
	{ "retrans", TOP_SORT_RETRANS },
	{ NULL, 0 }
};

static int key_cmp(const void *pa, const void *pb)
{
	return qp_key_cmp(*(struct ft_qp_rec *const *)pa,
			  *(struct ft_qp_rec *const *)pb);
}

/* What a counter gained between samples; a reset leaves what it counts now. */
static double delta(uint64_t now, uint64_t before)
{
	return (double)(now >= before ? now - before : now);
}

size_t rates_compute(struct qpset *prev, const struct qpset *cur,
		     uint64_t prev_real, uint64_t elapsed_ns, struct qp_rate *out)
{
	static const struct ft_qp_rec zero;
	double sec = elapsed_ns ? (double)elapsed_ns / 1e9 : 1.0;
	size_t i, n = 0;

	qsort(prev->v, prev->n, sizeof(*prev->v), key_cmp);
	for (i = 0; i < cur->n; i++) {
		const struct ft_qp_rec *c = cur->v[i], *p;
		struct qp_rate *q = &out[n];
		bool fresh;

		p = qp_rec_find(prev->v, prev->n, c);
		fresh = !p && c->create_time >= prev_real;
		/* gone before this interval: nothing to show */
		if ((c->flags & FABTRACE_QP_FLAGS_DESTROYED) &&
		    (p ? (p->flags & FABTRACE_QP_FLAGS_DESTROYED) : !fresh))
			continue;
		*q = (struct qp_rate){ .r = c };
		n++;
		if (!p) {
			if (!fresh)
				continue;	/* no baseline: no rate yet */
			p = &zero;
		}
		q->tx_pps = delta(c->tx.v[FABTRACE_A_TRAFFIC_PACKETS],
				  p->tx.v[FABTRACE_A_TRAFFIC_PACKETS]) / sec;
		q->rx_pps = delta(c->rx.v[FABTRACE_A_TRAFFIC_PACKETS],
				  p->rx.v[FABTRACE_A_TRAFFIC_PACKETS]) / sec;
		q->tx_bps = delta(c->tx.v[FABTRACE_A_TRAFFIC_BYTES],
				  p->tx.v[FABTRACE_A_TRAFFIC_BYTES]) / sec;
		q->rx_bps = delta(c->rx.v[FABTRACE_A_TRAFFIC_BYTES],
				  p->rx.v[FABTRACE_A_TRAFFIC_BYTES]) / sec;
		q->ce_ps = delta(c->cong.v[FABTRACE_A_CONG_RX_CE],
				 p->cong.v[FABTRACE_A_CONG_RX_CE]) / sec;
		q->cnp_ps = (delta(c->tx.v[FABTRACE_A_TRAFFIC_CNP],
				   p->tx.v[FABTRACE_A_TRAFFIC_CNP]) +
			     delta(c->rx.v[FABTRACE_A_TRAFFIC_CNP],
				   p->rx.v[FABTRACE_A_TRAFFIC_CNP])) / sec;
		q->nak_ps = (delta(c->tx.v[FABTRACE_A_TRAFFIC_NAK],
				   p->tx.v[FABTRACE_A_TRAFFIC_NAK]) +
			     delta(c->rx.v[FABTRACE_A_TRAFFIC_NAK],
				   p->rx.v[FABTRACE_A_TRAFFIC_NAK])) / sec;
		q->retrans_ps = delta(c->cong.v[FABTRACE_A_CONG_RETRANSMITS],
				      p->cong.v[FABTRACE_A_CONG_RETRANSMITS]) / sec;
	}
	return n;
}

static double rate_of(const struct qp_rate *q, enum top_sort key)
{
	switch (key) {
	case TOP_SORT_PKTS:
		return q->tx_pps + q->rx_pps;
	case TOP_SORT_CE:
		return q->ce_ps;
	case TOP_SORT_CNP:
		return q->cnp_ps;
	case TOP_SORT_NAK:
		return q->nak_ps;
	case TOP_SORT_RETRANS:
		return q->retrans_ps;
	case TOP_SORT_BYTES:
		break;
	}
	return q->tx_bps + q->rx_bps;
}

static enum top_sort rate_key;

static int rate_cmp(const void *pa, const void *pb)
{
	const struct qp_rate *a = pa, *b = pb;
	double va = rate_of(a, rate_key), vb = rate_of(b, rate_key);

	if (va != vb)
		return va > vb ? -1 : 1;
	return qp_key_cmp(a->r, b->r);
}

size_t rates_sort(struct qp_rate *v, size_t n, enum top_sort key, size_t limit)
{
	rate_key = key;
	qsort(v, n, sizeof(*v), rate_cmp);
	return limit && n > limit ? limit : n;
}
