// SPDX-License-Identifier: GPL-2.0
/* A growable set of QP records, and sorting it by the keys "qp show" offers. */

#include <stdlib.h>

#include "parse.h"
#include "qpset.h"
#include "util.h"

#define QPSET_CHUNK	1024

const struct kw ft_kw_qp_sort[] = {
	{ "qpn", QP_SORT_QPN },
	{ "tx-bytes", QP_SORT_TX_BYTES },
	{ "rx-bytes", QP_SORT_RX_BYTES },
	{ "tx-pkts", QP_SORT_TX_PKTS },
	{ "rx-pkts", QP_SORT_RX_PKTS },
	{ "ce", QP_SORT_CE },
	{ "cnp", QP_SORT_CNP },
	{ "nak", QP_SORT_NAK },
	{ "retrans", QP_SORT_RETRANS },
	{ "timeouts", QP_SORT_TIMEOUTS },
	{ "rtt", QP_SORT_RTT },
	{ NULL, 0 }
};

struct ft_qp_rec *qpset_add(struct qpset *s)
{
	size_t chunk = s->n / QPSET_CHUNK;

	if (chunk == s->nchunks) {
		s->chunks = xrealloc(s->chunks, (s->nchunks + 1) * sizeof(*s->chunks));
		s->chunks[s->nchunks++] = xmalloc(QPSET_CHUNK * sizeof(struct ft_qp_rec));
	}
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : QPSET_CHUNK;
		s->v = xrealloc(s->v, s->cap * sizeof(*s->v));
	}
	/* slots are handed out in order, so slot n is chunk n / CHUNK */
	s->v[s->n] = &s->chunks[chunk][s->n % QPSET_CHUNK];
	return s->v[s->n++];
}

void qpset_clear(struct qpset *s)
{
	s->n = 0;
}

void qpset_free(struct qpset *s)
{
	size_t i;

	for (i = 0; i < s->nchunks; i++)
		free(s->chunks[i]);
	free(s->chunks);
	free(s->v);
	*s = (struct qpset){ 0 };
}

int qp_keyv_cmp(const struct qp_key *a, const struct qp_key *b)
{
	if (a->dev_index != b->dev_index)
		return a->dev_index < b->dev_index ? -1 : 1;
	if (a->qpn != b->qpn)
		return a->qpn < b->qpn ? -1 : 1;
	if (a->port != b->port)
		return a->port < b->port ? -1 : 1;
	if (a->create_time != b->create_time)
		return a->create_time < b->create_time ? -1 : 1;
	return 0;
}

int qp_key_cmp(const struct ft_qp_rec *a, const struct ft_qp_rec *b)
{
	struct qp_key x = qp_key_of(a), y = qp_key_of(b);

	return qp_keyv_cmp(&x, &y);
}

static uint64_t ctime_gap(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/* Before (device, QP number, port) of @k, whatever the creation time. */
static bool before(const struct qp_key *a, const struct qp_key *k)
{
	if (a->dev_index != k->dev_index)
		return a->dev_index < k->dev_index;
	if (a->qpn != k->qpn)
		return a->qpn < k->qpn;
	return a->port < k->port;
}

static bool same_qp(const struct qp_key *a, const struct qp_key *k)
{
	return a->dev_index == k->dev_index && a->qpn == k->qpn && a->port == k->port;
}

/*
 * Binary search on device and QP number, then a look at the few entries
 * that share them (destroyed ones retained next to the live one).
 */
const struct ft_qp_rec *qp_rec_find(struct ft_qp_rec *const *v, size_t n,
				    const struct ft_qp_rec *r)
{
	struct qp_key k = qp_key_of(r), e;
	const struct ft_qp_rec *best = NULL;
	uint64_t gap, best_gap = 0;
	size_t lo = 0, hi = n, i;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		e = qp_key_of(v[mid]);
		if (before(&e, &k))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < n; i++) {
		e = qp_key_of(v[i]);
		if (!same_qp(&e, &k))
			break;
		gap = ctime_gap(e.create_time, k.create_time);
		if (gap <= FT_CTIME_SLACK_NS && (!best || gap < best_gap)) {
			best = v[i];
			best_gap = gap;
		}
	}
	return best;
}

static size_t keyset_hash(const struct qp_key *k, size_t mask)
{
	uint64_t h = ((uint64_t)k->dev_index << 32 | k->qpn | (uint64_t)k->port << 24) *
		     0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 32) & mask;
}

static void keyset_put(struct qp_keyset *s, const struct qp_key *k)
{
	size_t i = keyset_hash(k, s->cap - 1);

	while (s->slot[i].used)
		i = (i + 1) & (s->cap - 1);
	s->slot[i] = (struct qp_keyslot){ *k, true };
	s->n++;
}

bool qp_keyset_add(struct qp_keyset *s, const struct qp_key *k)
{
	size_t i;

	if (s->cap) {
		for (i = keyset_hash(k, s->cap - 1); s->slot[i].used; i = (i + 1) & (s->cap - 1)) {
			const struct qp_key *e = &s->slot[i].k;

			if (same_qp(e, k) &&
			    ctime_gap(e->create_time, k->create_time) <= FT_CTIME_SLACK_NS)
				return false;
		}
	}
	/* at most half full */
	if (2 * (s->n + 1) > s->cap) {
		struct qp_keyset big = { .cap = s->cap ? 2 * s->cap : 1024 };

		big.slot = xcalloc(big.cap, sizeof(*big.slot));
		for (i = 0; i < s->cap; i++)
			if (s->slot[i].used)
				keyset_put(&big, &s->slot[i].k);
		free(s->slot);
		*s = big;
	}
	keyset_put(s, k);
	return true;
}

void qp_keyset_free(struct qp_keyset *s)
{
	free(s->slot);
	*s = (struct qp_keyset){ 0 };
}

uint64_t qp_sort_value(const struct ft_qp_rec *r, enum qp_sort key)
{
	switch (key) {
	case QP_SORT_TX_BYTES:
		return r->tx.v[FABTRACE_A_TRAFFIC_BYTES];
	case QP_SORT_RX_BYTES:
		return r->rx.v[FABTRACE_A_TRAFFIC_BYTES];
	case QP_SORT_TX_PKTS:
		return r->tx.v[FABTRACE_A_TRAFFIC_PACKETS];
	case QP_SORT_RX_PKTS:
		return r->rx.v[FABTRACE_A_TRAFFIC_PACKETS];
	case QP_SORT_CE:
		return r->cong.v[FABTRACE_A_CONG_RX_CE];
	case QP_SORT_CNP:
		return ft_qp_cnp(r);
	case QP_SORT_NAK:
		return ft_qp_nak(r);
	case QP_SORT_RETRANS:
		return r->cong.v[FABTRACE_A_CONG_RETRANSMITS];
	case QP_SORT_TIMEOUTS:
		return r->cong.v[FABTRACE_A_CONG_TIMEOUTS];
	case QP_SORT_RTT:
		return (r->rtt.have & FT_RTT_HAVE_STATS) ? r->rtt.srtt_ns : 0;
	case QP_SORT_QPN:
		break;
	}
	return 0;
}

/* qsort() has no context argument: the key of the running sort. */
static enum qp_sort sort_key;

static int sort_cmp(const void *pa, const void *pb)
{
	const struct ft_qp_rec *a = *(struct ft_qp_rec *const *)pa;
	const struct ft_qp_rec *b = *(struct ft_qp_rec *const *)pb;
	uint64_t va, vb;

	if (sort_key != QP_SORT_QPN) {
		va = qp_sort_value(a, sort_key);
		vb = qp_sort_value(b, sort_key);
		if (va != vb)
			return va > vb ? -1 : 1;
	}
	return qp_key_cmp(a, b);
}

void qpset_sort(struct qpset *s, enum qp_sort key, size_t limit)
{
	sort_key = key;
	qsort(s->v, s->n, sizeof(*s->v), sort_cmp);
	if (limit && s->n > limit)
		s->n = limit;
}
