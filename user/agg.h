/* SPDX-License-Identifier: GPL-2.0 */
/* fabtrace export: QPs summed by group, exact and monotonic from run to run. */
#ifndef _FABTRACE_AGG_H
#define _FABTRACE_AGG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rec.h"

/*
 * Every counter of a QP, in one array: tx and rx traffic (packets, bytes,
 * the nine opcode classes: what a device totals too), then congestion,
 * then NAKs by syndrome sent and received.
 */
#define AGG_TX		0	/* + FABTRACE_A_TRAFFIC_* - 1 */
#define AGG_RX		11
#define AGG_NTRAFFIC	22	/* [0, 22): the device has totals of these */
#define AGG_CONG	22	/* rx_ect rx_ce retransmits timeouts rnr_timeouts
				 * rx_dup rx_oos retry_exhausted errors */
#define AGG_NCONG	9
#define AGG_TX_NAK	31	/* + FABTRACE_A_NAK_* - 1 */
#define AGG_RX_NAK	37
#define AGG_NCTR	43
#define AGG_NSOURCES	(FABTRACE_SOURCE_PSN + 1)

/* The FABTRACE_A_CONG_* attribute of AGG_CONG + i. */
extern const uint16_t agg_cong_attr[AGG_NCONG];

void agg_qp_counters(const struct ft_qp_rec *r, uint64_t c[AGG_NCTR]);
void agg_dev_counters(const struct ft_dev_rec *d, uint64_t c[AGG_NTRAFFIC]);
/*
 * Bit i set: @r counts counter i.  All on soft-RoCE (fabtrace's taps); of
 * a hardware NIC's QP, those its counter set fills (its cong nest), none
 * without one: what is not counted is not exported as 0.
 */
uint64_t agg_qp_have(const struct ft_qp_rec *r);
/* What ranks a QP by congestion: CE + CNPs + NAKs + retransmits + timeouts. */
uint64_t agg_qp_score(const struct ft_qp_rec *r);

/*
 * The labels a QP is summed by (besides its device): by owner, its peer
 * (address, or "none"), priority ("none" without one) and command; by
 * cgroup, its cgroup path ("kernel" for kernel QPs; a path the kernel no
 * longer gives is the one remembered for its cgroup id, else "id:N").
 */
enum agg_by {
	AGG_BY_OWNER,
	AGG_BY_CGROUP,
};

#define AGG_MAX_LABELS	3
extern const char *const agg_by_name[2];
unsigned int agg_nlabels(enum agg_by by);
const char *agg_label_name(enum agg_by by, unsigned int i);

/*
 * A group: the QPs of one device with one set of labels.  Its counters are
 * what its QPs counted, destroyed ones included: a QP destroyed is folded
 * into @folded when first seen so (its counters are final then), before the
 * module forgets it.  Whatever a group loses without such a fold (a QP reset,
 * a QP forgotten between two runs) is folded too, from @last: a group's
 * counters never go down.  The groups of a device beyond the cap share
 * the overflow group, which is exported within the device's "other".
 */
struct agg_group {
	uint32_t id;			/* > 0; QPs name their group by it */
	uint32_t dev_index;
	bool overflow;
	char *label[AGG_MAX_LABELS];	/* clean (prom_clean()) values */
	char *key;			/* the labels escaped, joined: lookup, state */
	uint64_t cgroup_id;		/* by cgroup: the id its path was last seen with */
	uint64_t folded[AGG_NCTR];
	uint64_t last[AGG_NCTR];	/* what the last run exported */
	/* the run under way */
	uint64_t fold[AGG_NCTR];	/* destroyed QPs folded by this run */
	uint64_t live[AGG_NCTR];	/* live QPs */
	uint32_t present, live_qps, in_error;
	bool created;
	/* agg_end(): what this run exports */
	uint64_t value[AGG_NCTR];
};

/*
 * A device.  "other" is what the device counted that no exported group
 * holds: packets of unknown QPs, of QPs forgotten before a run saw them
 * destroyed, of released and overflow groups; for counters without a
 * device total (congestion), released and overflow groups alone.
 */
struct agg_dev {
	uint32_t index;
	char name[FT_NAME_LEN];
	uint64_t other_last[AGG_NTRAFFIC];
	uint64_t released[AGG_NCTR];	/* groups gone: congestion floor */
	/* the run under way */
	bool seen;
	bool hw;			/* a hardware NIC: what its QPs count is in @have */
	uint64_t have;			/* counters its QPs count (agg_qp_have()) */
	uint32_t by_source[AGG_NSOURCES];	/* its live QPs, by where their numbers come from */
	uint64_t d[AGG_NTRAFFIC];	/* totals, read before the QPs */
	/* agg_end() */
	uint64_t other[AGG_NCTR];
	uint64_t total[AGG_NTRAFFIC];	/* groups + other: what is exported */
	uint32_t groups, overflow_qps;
};

/* A QP seen, by identity (device, QP number, creation time). */
struct agg_pin {
	uint32_t dev_index, qpn;
	uint64_t ctime;
	struct agg_group *g;		/* NULL: new in this run */
	uint32_t flags;			/* AGG_PIN_* */
	uint64_t score;
	/* the run under way */
	struct agg_group *sg;
	uint32_t sflags;
	uint64_t sscore;
	bool seen;
};

#define AGG_PIN_FOLDED	1u	/* destroyed: in its group's folded */
#define AGG_PIN_ZERO	2u	/* every counter 0: may join another group */
#define AGG_PIN_MOVED	4u	/* its group is not the one its labels name */

struct agg {
	enum agg_by by;
	uint32_t max_groups;		/* per device, the overflow group apart */
	uint64_t load_time;
	uint32_t next_id;
	struct agg_dev *devs;
	size_t ndevs;
	struct agg_group **groups;
	size_t ngroups;
	struct agg_pin *pins;
	size_t npins, pincap;
	uint32_t *pslot, *gslot;	/* hash tables: index + 1, 0 empty */
	size_t npslot, ngslot;		/* powers of two */
};

void agg_init(struct agg *a, enum agg_by by, uint32_t max_groups);
void agg_free(struct agg *a);

/*
 * The state a previous run saved (agg_save()), for the module loaded at
 * @load_time: one of another load is ignored (the module's counters
 * started over).  @name is for messages.  0, or -1 printed (another
 * "by", or not a state file: never taken for empty).
 */
int agg_load(struct agg *a, FILE *fp, const char *name, uint64_t load_time);
/*
 * 0, or -1 when writing failed (errno set).  Of the QPs, only those a run
 * could not tell again from their labels are kept: folded ones, moved
 * ones (the overflow's, those whose labels changed after they counted),
 * and those with a congestion score to rank the next run's growth by.
 */
int agg_save(const struct agg *a, FILE *fp);

/*
 * A run: agg_dev() for every device to export (its totals, read before
 * the QPs), agg_qp() for every QP entry of the dump, agg_end().  A dump
 * that starts over calls agg_run_reset(a, false) first; the whole run
 * read again, agg_run_reset(a, true).
 */
void agg_run_reset(struct agg *a, bool devs);
void agg_dev(struct agg *a, const struct ft_dev_rec *d);
/*
 * Sum @r into its group.  Returns the group, or NULL when the QP is not to
 * be counted (its device is not being exported, or the dump brought the
 * entry twice).  *@delta: what its congestion score grew by since the last
 * run (all of it for a QP new to the state).
 */
const struct agg_group *agg_qp(struct agg *a, const struct ft_qp_rec *r, uint64_t *delta);
/*
 * Close the run: groups' values, each device's other and totals; groups
 * without QPs are released, QPs no longer there forgotten.  @partial: only
 * some devices were read (dev DEV): the others keep their state as it was.
 */
void agg_end(struct agg *a, bool partial);

#endif /* _FABTRACE_AGG_H */
