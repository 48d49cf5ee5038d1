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

TEST(top_keywords)
{
	uint32_t v;

	EXPECT_EQ(kw_lookup(ft_kw_top_sort, "retrans", &v), 0);
	EXPECT_EQ(v, TOP_SORT_RETRANS);
	EXPECT_EQ(kw_lookup(ft_kw_top_sort, "byte", &v), -1);
}

TEST_HARNESS_MAIN
