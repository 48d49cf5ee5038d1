// SPDX-License-Identifier: GPL-2.0
/* Unit tests: the QP record set, sort keys and limit. */

#include <linux/fabtrace.h>

#include "harness.h"

#include "qpset.h"

static struct ft_qp_rec *add(struct qpset *s, uint32_t dev, uint32_t qpn,
			     uint64_t txb, uint64_t ce)
{
	struct ft_qp_rec *r = qpset_add(s);

	memset(r, 0, sizeof(*r));
	r->dev_index = dev;
	r->qpn = qpn;
	r->tx.v[FABTRACE_A_TRAFFIC_BYTES] = txb;
	r->rx.v[FABTRACE_A_TRAFFIC_BYTES] = 1000 - txb;
	r->tx.v[FABTRACE_A_TRAFFIC_PACKETS] = qpn;
	r->cong.v[FABTRACE_A_CONG_RX_CE] = ce;
	return r;
}

static void fill(struct qpset *s)
{
	qpset_clear(s);
	add(s, 1, 30, 100, 5);
	add(s, 0, 20, 300, 5);
	add(s, 1, 10, 200, 0);
	add(s, 0, 40, 300, 9);
}

#define ORDER(s, ...) do {						\
	static const uint32_t w[] = { __VA_ARGS__ };			\
	size_t _i;							\
	EXPECT_EQ((s)->n, sizeof(w) / sizeof(w[0]));			\
	for (_i = 0; _i < (s)->n && _i < sizeof(w) / sizeof(w[0]); _i++) \
		EXPECT_EQ((s)->v[_i]->qpn, w[_i]);			\
} while (0)

TEST(sort_keys)
{
	struct qpset s = { 0 };

	fill(&s);
	qpset_sort(&s, QP_SORT_QPN, 0);		/* device first, then QP number */
	ORDER(&s, 20, 40, 10, 30);
	fill(&s);
	qpset_sort(&s, QP_SORT_TX_BYTES, 0);	/* descending, ties by device+QPN */
	ORDER(&s, 20, 40, 10, 30);
	fill(&s);
	qpset_sort(&s, QP_SORT_RX_BYTES, 0);
	ORDER(&s, 30, 10, 20, 40);
	fill(&s);
	qpset_sort(&s, QP_SORT_CE, 0);
	ORDER(&s, 40, 20, 30, 10);
	fill(&s);
	qpset_sort(&s, QP_SORT_TX_PKTS, 2);	/* limit after sorting */
	ORDER(&s, 40, 30);
	qpset_free(&s);
}

TEST(sort_values)
{
	struct ft_qp_rec r;

	memset(&r, 0, sizeof(r));
	r.tx.v[FABTRACE_A_TRAFFIC_CNP] = 2;
	r.rx.v[FABTRACE_A_TRAFFIC_CNP] = 3;
	r.tx.v[FABTRACE_A_TRAFFIC_NAK] = 4;
	r.rx.v[FABTRACE_A_TRAFFIC_NAK] = 5;
	r.cong.v[FABTRACE_A_CONG_RETRANSMITS] = 6;
	r.cong.v[FABTRACE_A_CONG_TIMEOUTS] = 7;
	EXPECT_EQ(qp_sort_value(&r, QP_SORT_CNP), 5);
	EXPECT_EQ(qp_sort_value(&r, QP_SORT_NAK), 9);
	EXPECT_EQ(qp_sort_value(&r, QP_SORT_RETRANS), 6);
	EXPECT_EQ(qp_sort_value(&r, QP_SORT_TIMEOUTS), 7);
}

TEST(set_grows_past_chunks)
{
	struct qpset s = { 0 };
	uint32_t i;

	for (i = 0; i < 5000; i++)
		add(&s, 0, 5000 - i, i, 0);
	EXPECT_EQ(s.n, 5000);
	EXPECT_EQ(s.v[1234]->qpn, 5000 - 1234);	/* records never move */
	qpset_sort(&s, QP_SORT_QPN, 0);
	for (i = 0; i < 5000; i++)
		if (s.v[i]->qpn != i + 1)
			ft_fail(__FILE__, __LINE__, "slot %u holds QP %u", i, s.v[i]->qpn);
	qpset_clear(&s);
	EXPECT_EQ(s.n, 0);
	add(&s, 0, 1, 0, 0);
	EXPECT_EQ(s.n, 1);
	qpset_free(&s);
}

TEST(keyset_adds_each_entry_once)
{
	struct qp_keyset s = { 0 };
	struct qp_key k;
	unsigned int i;

	k = (struct qp_key){ .dev_index = 1, .qpn = 7, .create_time = 1000000000ull };
	EXPECT_EQ(qp_keyset_add(&s, &k), true);
	EXPECT_EQ(qp_keyset_add(&s, &k), false);	/* live, then destroyed */
	k.create_time += 1234;				/* the same QP, clock jitter */
	EXPECT_EQ(qp_keyset_add(&s, &k), false);
	k.create_time = 1000000000ull - 40000000ull;	/* within 50 ms */
	EXPECT_EQ(qp_keyset_add(&s, &k), false);
	k.create_time = 9000000000ull;			/* the QPN reused */
	EXPECT_EQ(qp_keyset_add(&s, &k), true);
	EXPECT_EQ(qp_keyset_add(&s, &k), false);
	k = (struct qp_key){ .dev_index = 2, .qpn = 7, .create_time = 1000000000ull };	/* another device */
	EXPECT_EQ(qp_keyset_add(&s, &k), true);
	k = (struct qp_key){ .dev_index = 1, .qpn = 8, .create_time = 1000000000ull };	/* another QPN */
	EXPECT_EQ(qp_keyset_add(&s, &k), true);
	/* a multi-port HCA's QP1s, one a port, made in the same millisecond */
	k = (struct qp_key){ .dev_index = 1, .qpn = 1, .port = 1, .create_time = 1000000000ull };
	EXPECT_EQ(qp_keyset_add(&s, &k), true);
	k.port = 2;
	EXPECT_EQ(qp_keyset_add(&s, &k), true);
	EXPECT_EQ(qp_keyset_add(&s, &k), false);
	/* growth keeps every key: 100,000 entries, then each again */
	for (i = 0; i < 100000; i++) {
		k = (struct qp_key){ .dev_index = 3 + i % 4, .qpn = i, .create_time = 5000000000ull + i };
		if (!qp_keyset_add(&s, &k))
			break;
	}
	EXPECT_EQ(i, 100000);
	for (i = 0; i < 100000; i++) {
		k = (struct qp_key){ .dev_index = 3 + i % 4, .qpn = i, .create_time = 5000000000ull + i + 999 };
		if (qp_keyset_add(&s, &k))
			break;
	}
	EXPECT_EQ(i, 100000);
	EXPECT_EQ(s.n, 100006);
	qp_keyset_free(&s);
}

TEST(sort_keywords)
{
	uint32_t v;

	EXPECT_EQ(kw_lookup(ft_kw_qp_sort, "tx-bytes", &v), 0);
	EXPECT_EQ(v, QP_SORT_TX_BYTES);
	EXPECT_EQ(kw_lookup(ft_kw_qp_sort, "timeouts", &v), 0);
	EXPECT_EQ(kw_lookup(ft_kw_qp_sort, "tx", &v), -1);
	EXPECT_EQ(kw_lookup(ft_kw_qp_sort, "tx_bytes", &v), -1);
}

TEST_HARNESS_MAIN
