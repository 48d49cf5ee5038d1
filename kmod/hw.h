/* SPDX-License-Identifier: GPL-2.0 */
/* Hardware RDMA NICs: their counter sets, port counters and QPs' PSN progress. */
#ifndef _FABTRACE_HW_H
#define _FABTRACE_HW_H

#include <linux/llist.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

/* Counters of a set, or of a port, that fabtrace keeps, and their names. */
#define FT_HW_MAX	128		/* bnxt_re has 92 port counters */
#define FT_HW_NAME	32
#define FT_HW_SHARE	1024		/* QPs in a set fabtrace shares, at most */
#define FT_HW_PSN_READS	1024		/* QPs' PSNs read in a poll, at most */
#define FT_HW_PORT_EVERY 10		/* polls a port is read in, with sets in use */
#define FT_HW_PORT_SETS	8		/* sets in use that read like none */
#define FT_HW_EVENTS	6		/* set counters whose moves are QP events */

/* Where a QP's numbers come from (the UAPI's enum fabtrace-source). */
enum ft_hw_source {
	FT_SRC_NONE,
	FT_SRC_TAP,		/* soft-RoCE's data path, exact */
	FT_SRC_SET,		/* a counter set of its own */
	FT_SRC_SET_SHARED,	/* a counter set shared with other QPs */
	FT_SRC_PSN,		/* its PSNs' progress: new request PSNs, no bytes */
};

/* Names of a device's counters, appended to, never changed: readers need no lock. */
struct ft_hw_names {
	u32 n;				/* written after the name (release) */
	char name[FT_HW_MAX][FT_HW_NAME];
};

/*
 * A counter set, as fabtrace follows it: the driver's 32-bit values, and
 * what they added up to.  It outlives the core's while a retained QP
 * holds its final values.
 */
struct ft_hw_set {
	struct rcu_head rcu;
	refcount_t ref;			/* the device's table's, and each QP's */
	u32 id, port;
	u32 nqps;			/* QPs bound, as last read */
	bool ours;			/* fabtrace made it */
	bool gone;			/* released by the core: the values are final */
	u32 solo;			/* the QP alone in it at the last read; 0 (hw->lock) */
	u8 ev_moved;			/* event kinds that moved at that read, its (hw->lock) */
	spinlock_t lock;		/* raw[], total[], gone */
	u32 raw[FT_HW_MAX];
	u64 total[FT_HW_MAX];
};

/* A QP of a device fabtrace does not tap (its hw pointer). */
struct ft_hw_qp {
	struct rcu_head rcu;
	struct ft_hw_set __rcu *set;
	u32 sq_psn, rq_psn;		/* as last read; FT_PSN_VALID once known */
	u32 psn_seq;			/* the QP's psn_seq they were read in */
	u32 psn_gen;			/* hw->psn_gen they were read in */
	bool rebase;			/* left a set: count from the next read (hw->lock) */
	u64 psn_tx, psn_rx;		/* their progress: new request PSNs */
	int bind_err;			/* why fabtrace could not bind it; 0 */
	u32 listed;			/* the dump that last listed it in a set (hw->lock) */
	unsigned long left;		/* jiffies a whole dump first had it out of its set; 0 */
	unsigned long flags;		/* FT_HW_BIND_ASKED */
};

struct ft_hw_port {
	u32 mode, mask;			/* the port's counter mode, as last read */
	bool theirs;			/* someone else's sets or auto mode: not ours to bind */
	bool foreign;			/* the dump being read lists a set not fabtrace's */
	u64 value[FT_HW_MAX];		/* the port's counters (history included), rising */
	u64 last[FT_HW_MAX];		/* as nldev gave them last, wraps added (the work) */
	u64 conf[FT_HW_MAX];		/* the last of those a later read confirmed */
	u64 carry[FT_HW_MAX];		/* the wraps seen, 2^32 each */
	u32 nvalues;
};

/* A device's hardware part (dev->hw). */
struct ft_hw {
	struct ft_dev *dev;
	bool sets;			/* the driver has counter sets */
	bool port_stats;		/* and port counters */
	bool dying;			/* detached or unloading: nothing runs again (q_lock) */
	spinlock_t q_lock;		/* dying, and the works' queueing */
	struct delayed_work work;	/* the poll: reads, every hw_poll_ms */
	struct work_struct bind_work;	/* binds, as QPs come */
	struct llist_head pending;	/* QPs to bind */
	bool polled;			/* the poll ran: theirs is known (hw->lock) */
	struct mutex lock;		/* the work's tables: ports, names */
	struct xarray set_xa;		/* set id -> struct ft_hw_set, RCU */
	atomic_t gone_seq;		/* sets the core released (ft_hw_counter_gone()) */
	u32 dump_seq;			/* gone_seq as the current dump was asked for */
	u32 dump_gen;			/* the current dump (ft_hw_qp.listed) */
	bool dump_whole;		/* it skipped no set: a QP it lists in none is in none */
	u32 dump_sets;			/* the sets it listed so far */
	u32 dump_empty;			/* its parts in a row that listed none */
	u32 nsets;			/* the sets the last dump listed */
	int read_err;			/* the last dump's error; 0 */
	u32 polls;			/* the poll's runs */
	u32 psn_key;			/* where the next poll's PSN reads start */
	u32 psn_gen;			/* moved on when a modify went unseen */
	u64 modify_missed;		/* ft_hook_modify_missed() as last read */
	struct ft_hw_names set_names;
	s8 ev_idx[FT_HW_EVENTS];	/* set_names' index of each event counter; -1 (hw->lock) */
	struct ft_hw_names port_names;
	u64 reads, read_ns;		/* the work's reads of the sets, and their time */
	u32 nports;
	struct ft_hw_port port[];	/* by port number */
};

struct ft_dev;
struct ft_dev_part;
struct ft_qp;
struct rdma_counter;

extern const struct ft_dev_part ft_hw_part;

int ft_hw_init(void);
void ft_hw_exit(void);
void ft_hw_counter_gone(struct ft_dev *dev, const struct rdma_counter *counter);
enum ft_hw_source ft_hw_qp_source(const struct ft_dev *dev, const struct ft_qp *qp);
void ft_hw_qp_ready(const struct ft_dev *dev, struct ft_qp *qp);

#endif /* _FABTRACE_HW_H */
