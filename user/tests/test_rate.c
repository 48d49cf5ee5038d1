// SPDX-License-Identifier: GPL-2.0
/* Unit tests: per-second rates from two samples, for "fabtrace top". */

#include <linux/fabtrace.h>

#include "harness.h"

#include "rate.h"

#define T0	1700000000000000000ull	/* when the first sample was taken */

static struct ft_qp_rec *qp(struct qpset *s, uint32_t qpn, uint64_t ctime,
			    uint64_t pkts, uint32_t flags)
{
	struct ft_qp_rec *r = qpset_add(s);

	memset(r, 0, sizeof(*r));
	r->dev_index = 1;
	r->qpn = qpn;
	r->create_time = ctime;
	r->flags = flags;
	r->tx.v[FABTRACE_A_TRAFFIC_PACKETS] = pkts;
	r->rx.v[FABTRACE_A_TRAFFIC_PACKETS] = 2 * pkts;
	r->tx.v[FABTRACE_A_TRAFFIC_BYTES] = 1000 * pkts;
	r->rx.v[FABTRACE_A_TRAFFIC_BYTES] = 10 * pkts;
	r->tx.v[FABTRACE_A_TRAFFIC_CNP] = pkts / 10;
	r->rx.v[FABTRACE_A_TRAFFIC_NAK] = pkts / 100;
	r->cong.v[FABTRACE_A_CONG_RX_CE] = pkts / 2;
	r->cong.v[FABTRACE_A_CONG_RETRANSMITS] = pkts / 5;
	return r;
}

static const struct qp_rate *find(const struct qp_rate *v, size_t n, uint32_t qpn)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].r->qpn == qpn)
			return &v[i];
	return NULL;
}

TEST(rates_from_two_samples)
{
	struct qpset prev = { 0 }, cur = { 0 };
	struct qp_rate out[16];
	const struct qp_rate *q;
	size_t n;

	qp(&prev, 10, T0 - 5, 100, 0);		/* grows 100 -> 300 */
	qp(&prev, 11, T0 - 5, 500, 0);		/* reset, now at 40 */
	qp(&prev, 12, T0 - 9, 7, FABTRACE_QP_FLAGS_DESTROYED);	/* long gone */
	qp(&prev, 13, T0 - 5, 1000, 0);		/* QPN reused below */
	qp(&prev, 15, T0 - 5, 50, 0);		/* destroyed during the interval */
	qp(&prev, 16, T0 - 5000, 10, 0);	/* its create_time jitters */

	qp(&cur, 10, T0 - 5, 300, 0);
	qp(&cur, 11, T0 - 5, 40, 0);
	qp(&cur, 12, T0 - 9, 7, FABTRACE_QP_FLAGS_DESTROYED);
	qp(&cur, 13, T0 + 10, 20, 0);		/* a new QP with an old number */
	qp(&cur, 14, T0 - 3, 77, 0);		/* existed, missed by the first dump */
	qp(&cur, 15, T0 - 5, 90, FABTRACE_QP_FLAGS_DESTROYED);
	/* the kernel converts boot time to realtime per dump: microseconds off */
	qp(&cur, 16, T0 - 5000 + 913, 30, 0);

	n = rates_compute(&prev, &cur, T0, 2000000000ull, out);	/* 2 s */
	EXPECT_EQ(n, 6);
	EXPECT_TRUE(find(out, n, 12) == NULL);

	q = find(out, n, 10);
	ASSERT_TRUE(q);
	EXPECT_DBL(q->tx_pps, 100);
	EXPECT_DBL(q->rx_pps, 200);
	EXPECT_DBL(q->tx_bps, 100000);
	EXPECT_DBL(q->rx_bps, 1000);
	EXPECT_DBL(q->ce_ps, 50);
	EXPECT_DBL(q->cnp_ps, 10);
	EXPECT_DBL(q->nak_ps, 1);
	EXPECT_DBL(q->retrans_ps, 20);

	q = find(out, n, 11);		/* went down: what it holds is the delta */
	ASSERT_TRUE(q);
	EXPECT_DBL(q->tx_pps, 20);

	q = find(out, n, 13);		/* counts from zero: created since */
	ASSERT_TRUE(q);
	EXPECT_DBL(q->tx_pps, 10);

	q = find(out, n, 14);		/* no baseline: no rate yet */
	ASSERT_TRUE(q);
	EXPECT_DBL(q->tx_pps, 0);
	EXPECT_DBL(q->rx_bps, 0);

	q = find(out, n, 15);		/* its last interval still counts */
	ASSERT_TRUE(q);
	EXPECT_DBL(q->tx_pps, 20);

	q = find(out, n, 16);		/* the same QP despite the jitter */
	ASSERT_TRUE(q);
	EXPECT_DBL(q->tx_pps, 10);

	qpset_free(&prev);
	qpset_free(&cur);
}

TEST(rates_sorted_and_limited)
{
	struct qpset prev = { 0 }, cur = { 0 };
	struct qp_rate out[8];
	size_t n;

	qp(&prev, 1, 0, 0, 0);
	qp(&prev, 2, 0, 0, 0);
	qp(&prev, 3, 0, 0, 0);
	qp(&cur, 1, 0, 10, 0);
	qp(&cur, 2, 0, 30, 0);
	qp(&cur, 3, 0, 20, 0);
	cur.v[0]->cong.v[FABTRACE_A_CONG_RX_CE] = 100;	/* QP 1: most CE */

	n = rates_compute(&prev, &cur, T0, 1000000000ull, out);
	EXPECT_EQ(rates_sort(out, n, TOP_SORT_BYTES, 0), 3);
	EXPECT_EQ(out[0].r->qpn, 2);
	EXPECT_EQ(out[1].r->qpn, 3);
	EXPECT_EQ(out[2].r->qpn, 1);
	EXPECT_EQ(rates_sort(out, n, TOP_SORT_CE, 1), 1);
	EXPECT_EQ(out[0].r->qpn, 1);
	EXPECT_EQ(rates_sort(out, n, TOP_SORT_PKTS, 2), 2);
	EXPECT_EQ(out[0].r->qpn, 2);
	qpset_free(&prev);
	qpset_free(&cur);
}

/* A hardware NIC's QP: its PSNs' progress, or a counter set's NAKs and retransmits. */
static struct ft_qp_rec *hw_qp(struct qpset *s, uint32_t qpn, uint32_t source, uint64_t n)
{
	struct ft_qp_rec *r = qp(s, qpn, 0, 0, 0);

	memset(&r->tx, 0, sizeof(r->tx));
	memset(&r->rx, 0, sizeof(r->rx));
	memset(&r->cong, 0, sizeof(r->cong));
	r->have |= FT_QP_HAVE_PORT;
	r->port = 1;
	r->hw.present = true;
	r->hw.have = FT_HW_HAVE_SOURCE;
	r->hw.source = source;
	if (source == FABTRACE_SOURCE_PSN) {
		r->hw.have |= FT_HW_HAVE_PSN;
		r->hw.psn_tx = n;
		r->hw.psn_rx = 3 * n;
	} else if (source == FABTRACE_SOURCE_SET) {
		r->cong.have = 1u << FABTRACE_A_CONG_RETRANSMITS;
		r->cong.v[FABTRACE_A_CONG_RETRANSMITS] = n;
		r->cong.rx_nak.have = 1u << FABTRACE_A_NAK_PSN_SEQ;
		r->cong.rx_nak.v[FABTRACE_A_NAK_PSN_SEQ] = 2 * n;
	}
	return r;
}

TEST(rates_of_hardware_qps)
{
	struct qpset prev = { 0 }, cur = { 0 };
	struct qp_rate out[8];
	const struct qp_rate *q;
	size_t n;

	hw_qp(&prev, 1, FABTRACE_SOURCE_PSN, 100);
	hw_qp(&prev, 2, FABTRACE_SOURCE_SET, 10);
	hw_qp(&prev, 3, FABTRACE_SOURCE_NONE, 0);
	qp(&prev, 4, 0, 0, 0);
	hw_qp(&cur, 1, FABTRACE_SOURCE_PSN, 300);
	hw_qp(&cur, 2, FABTRACE_SOURCE_SET, 10);	/* nothing moved */
	hw_qp(&cur, 3, FABTRACE_SOURCE_NONE, 0);
	qp(&cur, 4, 0, 5, 0);				/* tapped: 5 packets, a retransmit */
	n = rates_compute(&prev, &cur, T0, 2000000000ull, out);
	EXPECT_EQ(n, 4);

	q = find(out, n, 1);		/* new requests, no bytes, nothing else */
	ASSERT_TRUE(q);
	EXPECT_EQ(q->have, RATE_HAVE_PKTS);
	EXPECT_DBL(q->tx_pps, 100);
	EXPECT_DBL(q->rx_pps, 300);
	EXPECT_TRUE(q->active);
	q = find(out, n, 2);
	ASSERT_TRUE(q);
	EXPECT_EQ(q->have, RATE_HAVE_NAK | RATE_HAVE_RETRANS);
	EXPECT_DBL(q->retrans_ps, 0);
	EXPECT_FALSE(q->active);
	q = find(out, n, 3);
	ASSERT_TRUE(q);
	EXPECT_EQ(q->have, 0);
	q = find(out, n, 4);
	ASSERT_TRUE(q);
	EXPECT_EQ(q->have, RATE_HAVE_TAP);

	/* what a QP's source does not count sorts after a counted 0 */
	EXPECT_EQ(rates_sort(out, n, TOP_SORT_RETRANS, 0), 4);
	EXPECT_EQ(out[0].r->qpn, 4);	/* 0.5/s */
	EXPECT_EQ(out[1].r->qpn, 2);	/* 0/s, counted */
	EXPECT_EQ(out[2].r->qpn, 1);
	EXPECT_EQ(out[3].r->qpn, 3);
	EXPECT_EQ(rates_sort(out, n, TOP_SORT_PKTS, 0), 4);
	EXPECT_EQ(out[0].r->qpn, 1);
	EXPECT_EQ(out[1].r->qpn, 4);
	qpset_free(&prev);
	qpset_free(&cur);
}

/* A hardware port's congestion rates, by its driver's names. */
TEST(port_rates)
{
	struct ft_dev_rec *d = calloc(4, sizeof(*d));
	struct port_rate out[4];
	size_t n;

	ASSERT_TRUE(d);
	/* d[0], d[1]: before and after; mlx5's names */
	for (n = 0; n < 2; n++) {
		struct ft_dev_hw_port *p = &d[n].hw.ports[0];

		d[n].index = 3;
		d[n].hw.present = true;
		d[n].hw.nports = 1;
		p->port = 1;
		p->ncounters = 3;
		p->c[0] = (struct ft_hw_counter){ "rx_write_requests", 1000 * n };
		p->c[1] = (struct ft_hw_counter){ "np_ecn_marked_roce_packets", 50 + 40 * n };
		p->c[2] = (struct ft_hw_counter){ "rp_cnp_ignored", 7 };
	}
	/* d[2]: a tapped device after, no hw: not listed */
	d[2].index = 4;
	n = port_rates_compute(d, 1, d + 1, 2, 2000000000ull, out);
	EXPECT_EQ(n, 1);
	EXPECT_EQ(out[0].port, 1);
	EXPECT_EQ(out[0].have, (1u << HW_ECN_MARKED) | (1u << HW_CNP_IGNORED));
	EXPECT_DBL(out[0].ps[HW_ECN_MARKED], 20);
	EXPECT_DBL(out[0].ps[HW_CNP_IGNORED], 0);
	EXPECT_TRUE(out[0].congested);
	/* bnxt_re's name for the same, and no earlier sample: none yet */
	d[1].hw.ports[0].c[1].name = "rx_ecn_marked_pkts";
	d[0].hw.ports[0].c[1].name = "rx_ecn_marked_pkts";
	n = port_rates_compute(d, 1, d + 1, 1, 1000000000ull, out);
	EXPECT_EQ(n, 1);
	EXPECT_DBL(out[0].ps[HW_ECN_MARKED], 40);
	EXPECT_EQ(port_rates_compute(d, 0, d + 1, 1, 1000000000ull, out), 0);
	free(d);
}

TEST(top_keywords)
{
	uint32_t v;

	EXPECT_EQ(kw_lookup(ft_kw_top_sort, "retrans", &v), 0);
	EXPECT_EQ(v, TOP_SORT_RETRANS);
	EXPECT_EQ(kw_lookup(ft_kw_top_sort, "byte", &v), -1);
}

TEST_HARNESS_MAIN
