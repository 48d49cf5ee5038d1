/* SPDX-License-Identifier: GPL-2.0 */
/* QP entries: creation, destruction, retention, reset and iteration. */
#ifndef _FABTRACE_QP_H
#define _FABTRACE_QP_H

#include <rdma/ib_verbs.h>

#include "acct.h"

struct ft_dev;
struct ft_dev_part;

extern const struct ft_dev_part ft_qp_part;

extern unsigned int ft_max_qps;
extern unsigned int ft_retain_ms;

/* Module-wide statistics about the table (see the stats attribute set). */
struct ft_qp_stats {
	atomic_t entries;		/* live + retained, bounded by max_qps */
	atomic_t retained;
	atomic64_t overflow;
	atomic64_t alloc_fail;
	atomic64_t evicted;		/* retained entries given up for live ones */
	atomic_t generation;		/* bumped on every insert and removal */
};

extern struct ft_qp_stats ft_qp_stats;

int ft_qp_init(void);
void ft_qp_exit(void);

void ft_qp_created(struct ft_dev *dev, struct ib_qp *ibqp);
void ft_qp_destroyed(struct ft_dev *dev, struct ib_qp *ibqp);
void ft_qp_reset(struct ft_qp *qp);
bool ft_qp_congested(const struct ft_qp *qp);
struct pid_namespace;
bool ft_qp_visible(const struct ft_qp *qp, struct pid_namespace *ns);
struct ft_qp *ft_qp_next(const struct ft_dev *dev, u32 *key, u32 qpn_max);
void ft_qp_walk(const struct ft_dev *dev,
		void (*fn)(const struct ft_dev *dev, struct ft_qp *qp, void *arg),
		void *arg);

/* Entry size, for the stats: what one QP costs in the slab. */
unsigned int ft_qp_entry_size(void);

#endif /* _FABTRACE_QP_H */
