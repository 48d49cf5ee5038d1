/* SPDX-License-Identifier: GPL-2.0 */
/* fabtrace export: the Prometheus exposition of one snapshot of the module. */
#ifndef _FABTRACE_EXPO_H
#define _FABTRACE_EXPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "agg.h"
#include "hwterm.h"
#include "rec.h"

/*
 * The QPs that get series of their own: the N most congested, by how much
 * their congestion signals (agg_qp_score()) grew since the last run, then
 * by how many they have; QPs without any are never among them.  One entry
 * per device and QP number (a retained QP and a live one that reuses its
 * number share series names: the higher ranked is kept).
 */
struct expo_top {
	struct expo_top_qp {
		struct ft_qp_rec r;
		uint64_t delta, score;
	} *v;
	size_t n, max;
};

void expo_top_init(struct expo_top *t, size_t max);
void expo_top_offer(struct expo_top *t, const struct ft_qp_rec *r, uint64_t delta);
void expo_top_clear(struct expo_top *t);
void expo_top_free(struct expo_top *t);

/* One snapshot; NULL/0 for what the module does not offer. */
struct expo_in {
	const struct ft_stats_rec *stats;
	const struct ft_dev_rec *devs;	/* the devices exported, as read last */
	size_t ndevs;
	const struct ft_policy_rec *pols;
	size_t npols;
	const struct ft_pfc_rec *pfcs;
	size_t npfcs;
	const struct agg *agg;		/* after agg_end() */
	const struct expo_top *top;
	size_t qps;			/* QP entries read */
	bool consistent;		/* no device total moved while reading */
	uint64_t duration_ns;
};

/*
 * The series an exposition has at most, whatever the QPs: module and
 * exporter EXPO_FIXED; per device EXPO_PER_DEV, plus EXPO_PER_GROUP for
 * each of at most max_groups + 1 groups ("other"); per port EXPO_PER_PORT
 * (policy and PFC), and per hardware NIC port EXPO_PER_HW_PORT (its
 * counters); per top QP EXPO_PER_QP.
 */
#define EXPO_FIXED	25
#define EXPO_PER_DEV	36
#define EXPO_PER_GROUP	45
#define EXPO_PER_PORT	121
#define EXPO_PER_QP	17
#define EXPO_PER_HW_PORT (HW_NTERMS + FT_HW_PORT_COUNTERS)
unsigned long expo_bound(size_t devs, size_t ports, size_t hw_ports, uint32_t max_groups,
			 size_t top);

/* Write the exposition; returns the series written (errors: ferror(fp)). */
unsigned long expo_write(FILE *fp, const struct expo_in *in);

#endif /* _FABTRACE_EXPO_H */
