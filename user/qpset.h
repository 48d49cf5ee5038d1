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
	QP_SORT_RTT,		/* srtt; QPs not timed last */
};

extern const struct kw ft_kw_qp_sort[];

/* The value a counter key sorts by (CNP and NAK: sent plus received). */
uint64_t qp_sort_value(const struct ft_qp_rec *r, enum qp_sort key);
/*
 * Sort, then keep the first @limit records (0: all).  Add records again only
 * after qpset_clear(): sorting permutes the slots.
 */
void qpset_sort(struct qpset *s, enum qp_sort key, size_t limit);

/*
 * Identity of a QP entry over time: device, QP number (reused after a
 * destroy) and creation time.  The kernel turns its boot-time stamps into
 * CLOCK_REALTIME when it answers, so one QP's create_time differs by some
 * microseconds from one dump to the next (more while the clock is slewed):
 * creation times this close are the same QP.
 */
#define FT_CTIME_SLACK_NS	(50 * 1000000ull)

/*
 * A QP: its device and number; for QP0 and QP1, of which a multi-port HCA
 * has one a port, made at once, the port too (0 for other QPs, whose port
 * a modify may change between two parts of a dump); its creation time.
 */
struct qp_key {
	uint32_t dev_index, qpn, port;
	uint64_t create_time;
};

static inline struct qp_key qp_key_of(const struct ft_qp_rec *r)
{
	return (struct qp_key){ r->dev_index, r->qpn, r->qpn <= 1 ? r->port : 0,
				r->create_time };
}

/* Total order: device, QP number, port, creation time. */
int qp_key_cmp(const struct ft_qp_rec *a, const struct ft_qp_rec *b);
int qp_keyv_cmp(const struct qp_key *a, const struct qp_key *b);

/*
 * A set of entry keys, for a streamed dump that must not print an entry
 * twice: the same device and QP number, creation time within
 * FT_CTIME_SLACK_NS, is the same entry.  O(1) per key (open addressing on
 * device and QP number; a retained entry and a live one of the same QPN
 * share a probe sequence).
 */
struct qp_keyset {
	struct qp_keyslot {
		struct qp_key k;
		bool used;
	} *slot;
	size_t cap, n;		/* cap: 0 or a power of two */
};

/* Add @k unless the set has its entry: true if it was added. */
bool qp_keyset_add(struct qp_keyset *s, const struct qp_key *k);
void qp_keyset_free(struct qp_keyset *s);
/* The same over records sorted by qp_key_cmp; NULL if none. */
const struct ft_qp_rec *qp_rec_find(struct ft_qp_rec *const *v, size_t n,
				    const struct ft_qp_rec *r);

#endif /* _FABTRACE_QPSET_H */
