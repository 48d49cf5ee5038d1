/* SPDX-License-Identifier: GPL-2.0 */
/* CNPs fabtrace sends on soft-RoCE: DCQCN's notification point. */
#ifndef _FABTRACE_CNP_H
#define _FABTRACE_CNP_H

#include <linux/atomic.h>
#include <linux/types.h>

struct ft_dev;
struct ft_qp;

/* Module-wide, for the stats (see the stats attribute set). */
struct ft_cnp_stats {
	atomic64_t sent;
	atomic64_t limited;		/* withheld: within cnp-interval */
	atomic64_t failed;		/* no route, no memory, not sent */
	atomic64_t skipped;		/* not IPv4, or not from the QP's peer */
};

extern struct ft_cnp_stats ft_cnp_stats;

void ft_cnp_answer(struct ft_dev *dev, struct ft_qp *qp, const u8 *ip,
		   unsigned int avail);

#endif /* _FABTRACE_CNP_H */
