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

/* NAKs sent and received: packets on soft-RoCE, a counter set's syndromes on hardware. */
static uint64_t naks(const struct ft_qp_rec *r)
{
	return r->hw.present ? ft_qp_hw_nak(r) : ft_qp_nak(r);
}

static unsigned int rate_have(const struct ft_qp_rec *r)
{
	unsigned int have = 0;

	if (!r->hw.present)
		return RATE_HAVE_TAP;
	if (ft_qp_source(r) == FABTRACE_SOURCE_PSN && (r->hw.have & FT_HW_HAVE_PSN))
		have |= RATE_HAVE_PKTS;
	if (r->cong.tx_nak.have || r->cong.rx_nak.have)
		have |= RATE_HAVE_NAK;
	if (r->cong.have & (1u << FABTRACE_A_CONG_RETRANSMITS))
		have |= RATE_HAVE_RETRANS;
	return have;
}

/* Whether any hardware counter of @c moved since @p (by name: both are interned). */
static bool hw_moved(const struct ft_qp_rec *c, const struct ft_qp_rec *p)
{
	unsigned int i, k;

	if (c->hw.psn_tx != p->hw.psn_tx || c->hw.psn_rx != p->hw.psn_rx)
		return true;
	for (i = 0; i < c->hw.ncounters; i++) {
		for (k = 0; k < p->hw.ncounters; k++)
			if (p->hw.c[k].name == c->hw.c[i].name)
				break;
		if (c->hw.c[i].value != (k < p->hw.ncounters ? p->hw.c[k].value : 0))
			return true;
	}
	return false;
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
		*q = (struct qp_rate){ .r = c, .have = rate_have(c) };
		n++;
		if (!p) {
			if (!fresh)
				continue;	/* no baseline: no rate yet */
			p = &zero;
		}
		if (c->hw.present) {
			q->tx_pps = delta(c->hw.psn_tx, p->hw.psn_tx) / sec;
			q->rx_pps = delta(c->hw.psn_rx, p->hw.psn_rx) / sec;
			q->active = hw_moved(c, p);
		} else {
			q->tx_pps = delta(c->tx.v[FABTRACE_A_TRAFFIC_PACKETS],
					  p->tx.v[FABTRACE_A_TRAFFIC_PACKETS]) / sec;
			q->rx_pps = delta(c->rx.v[FABTRACE_A_TRAFFIC_PACKETS],
					  p->rx.v[FABTRACE_A_TRAFFIC_PACKETS]) / sec;
			q->active = q->tx_pps > 0 || q->rx_pps > 0;
		}
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
		q->nak_ps = delta(naks(c), naks(p)) / sec;
		q->retrans_ps = delta(c->cong.v[FABTRACE_A_CONG_RETRANSMITS],
				      p->cong.v[FABTRACE_A_CONG_RETRANSMITS]) / sec;
	}
	return n;
}

/* The rate @key sorts by; -1 where @q's source does not count it. */
static double rate_of(const struct qp_rate *q, enum top_sort key)
{
	switch (key) {
	case TOP_SORT_PKTS:
		return q->have & RATE_HAVE_PKTS ? q->tx_pps + q->rx_pps : -1;
	case TOP_SORT_CE:
		return q->have & RATE_HAVE_CE ? q->ce_ps : -1;
	case TOP_SORT_CNP:
		return q->have & RATE_HAVE_CNP ? q->cnp_ps : -1;
	case TOP_SORT_NAK:
		return q->have & RATE_HAVE_NAK ? q->nak_ps : -1;
	case TOP_SORT_RETRANS:
		return q->have & RATE_HAVE_RETRANS ? q->retrans_ps : -1;
	case TOP_SORT_BYTES:
		break;
	}
	return q->have & RATE_HAVE_BYTES ? q->tx_bps + q->rx_bps : -1;
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

static const struct ft_dev_hw_port *port_of(const struct ft_dev_rec *v, size_t n,
					    uint32_t dev, uint32_t port)
{
	size_t i, k;

	for (i = 0; i < n; i++)
		for (k = 0; v[i].index == dev && k < v[i].hw.nports; k++)
			if (v[i].hw.ports[k].port == port)
				return &v[i].hw.ports[k];
	return NULL;
}

size_t port_rates_compute(const struct ft_dev_rec *prev, size_t nprev,
			  const struct ft_dev_rec *cur, size_t ncur, uint64_t elapsed_ns,
			  struct port_rate *out)
{
	double sec = elapsed_ns ? (double)elapsed_ns / 1e9 : 1.0;
	const struct ft_dev_hw_port *c, *p;
	size_t i, k, n = 0;
	uint64_t vc, vp;
	unsigned int t;

	for (i = 0; i < ncur; i++) {
		for (k = 0; cur[i].hw.present && k < cur[i].hw.nports; k++) {
			struct port_rate *r = &out[n];

			c = &cur[i].hw.ports[k];
			p = port_of(prev, nprev, cur[i].index, c->port);
			if (!p)
				continue;
			*r = (struct port_rate){ .d = &cur[i], .port = c->port };
			for (t = 0; t < HW_NTERMS; t++) {
				if (!hw_term_value(c, t, &vc) || !hw_term_value(p, t, &vp))
					continue;
				r->have |= 1u << t;
				r->ps[t] = delta(vc, vp) / sec;
				r->congested |= r->ps[t] > 0 && t != HW_CNP_IGNORED;
			}
			n += r->have != 0;
		}
	}
	return n;
}
