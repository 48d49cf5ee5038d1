// SPDX-License-Identifier: GPL-2.0
/* Test-only debugfs files that time the module's own paths (not ABI). */

#include <linux/debugfs.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/seq_file.h>

#include "bench.h"
#include "dev.h"
#include "events.h"
#include "pfc.h"
#include "table.h"

/*
 * make bench reads these in the QEMU nodes: the cost of an event withheld
 * and sent, and the cost of the hot path's lookup (device map, then QP
 * index, then the entry's first line) at whatever QP count the node holds.
 * Writing N to a file runs N iterations; reading it gives the results.
 */
static struct dentry *bench_dir;
static u64 ev_withheld_ns, ev_sent_ns;
static u64 lk_ns, lk_loop_ns, lk_sum, lk_n, lk_lo, lk_hi;
static u64 pfc_ns, pfc_n, pfc_qps;

/* A cheap generator: the loop must cost little next to a lookup. */
static inline u32 bench_next(u32 *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

/* The lowest and highest QP numbers @dev has an entry for. */
static bool bench_qpn_range(struct ft_dev *dev, u32 *lo, u32 *hi)
{
	const struct ft_leaf *leaf;
	bool found = false;
	u32 r, s;

	rcu_read_lock();
	for (r = 0; r < FT_ROOT_SIZE; r++) {
		leaf = rcu_dereference(dev->idx->root[r]);
		if (leaf == &ft_leaf_none)
			continue;
		for (s = 0; s < FT_LEAF_SIZE; s++) {
			if (!rcu_access_pointer(leaf->slot[s]))
				continue;
			if (!found)
				*lo = r << FT_LEAF_BITS | s;
			*hi = r << FT_LEAF_BITS | s;
			found = true;
		}
	}
	rcu_read_unlock();
	return found;
}

#define BENCH_CHUNK	4096

/*
 * Random QP numbers between the lowest and the highest with an entry: on
 * a node whose QPs were created in one go (dense numbers) nearly all hit,
 * and the entries are spread over as much memory as the QP count makes.
 */
static u64 bench_lookups(struct ft_dev *dev, u64 n, u32 lo, u32 span,
			 bool lookup, u64 *checksum)
{
	const void *key = dev->ibdev;
	u64 i = 0, t0, sum = 0;
	u32 x = 2463534242u;

	t0 = ktime_get_ns();
	while (i < n) {
		u64 end = min(n, i + BENCH_CHUNK);

		rcu_read_lock();
		for (; i < end; i++) {
			u32 qpn = lo + (u32)(((u64)bench_next(&x) * span) >> 32);
			const struct ft_dev *d;
			const struct ft_qp *qp;

			if (!lookup) {
				sum += qpn;
				continue;
			}
			d = ft_devmap_find(&ft_devmap, key);
			qp = d ? ft_qpidx_find(d->idx, qpn) : NULL;
			if (qp)
				sum += READ_ONCE(qp->type) + 1;
		}
		rcu_read_unlock();
		cond_resched();
	}
	t0 = ktime_get_ns() - t0;
	/* keep the loads: the compiler must not see the result unused */
	*checksum = sum;
	return t0;
}

/* The device with the most live QPs.  Context: ft_devs_lock. */
static struct ft_dev *bench_busiest(void)
{
	struct ft_dev *dev, *pick = NULL;

	list_for_each_entry(dev, &ft_devs, list) {
		if (dev->nr_live > (pick ? pick->nr_live : 0))
			pick = dev;
	}
	return pick;
}

static int bench_lookup_run(u64 n)
{
	struct ft_dev *pick;
	u32 lo = 0, hi = 0;
	u64 sum, t_loop, t;
	int err = -ENODEV;

	mutex_lock(&ft_devs_lock);
	pick = bench_busiest();
	if (!pick || !bench_qpn_range(pick, &lo, &hi))
		goto unlock;
	t_loop = bench_lookups(pick, n, lo, hi - lo + 1, false, &sum);
	t = bench_lookups(pick, n, lo, hi - lo + 1, true, &sum);
	lk_loop_ns = t_loop;
	lk_ns = t;
	lk_sum = sum;		/* over the hits, type + 1: 3 per RC QP found */
	lk_n = n;
	lk_lo = lo;
	lk_hi = hi;
	err = 0;
unlock:
	mutex_unlock(&ft_devs_lock);
	return err;
}

static int bench_lookup_show(struct seq_file *m, void *v)
{
	if (!lk_n)
		return 0;
	seq_printf(m, "lookups %llu\nqpn_lo %llu\nqpn_hi %llu\nchecksum %llu\n",
		   lk_n, lk_lo, lk_hi, lk_sum);
	seq_printf(m, "loop_ps %llu\nlookup_ps %llu\n",
		   div64_u64(lk_loop_ns * 1000, lk_n),
		   div64_u64(lk_ns > lk_loop_ns ? (lk_ns - lk_loop_ns) * 1000 : 0, lk_n));
	return 0;
}

static int bench_events_show(struct seq_file *m, void *v)
{
	seq_printf(m, "suppressed_ns %llu\ndelivered_ns %llu\n",
		   ev_withheld_ns, ev_sent_ns);
	return 0;
}

static int bench_events_run(u64 n)
{
	ft_events_bench(n, &ev_withheld_ns, &ev_sent_ns);
	return 0;
}

/* A PFC frame's cost, with the busiest device's QPs all on its priority. */
static int bench_pfc_run(u64 n)
{
	struct ft_dev *pick;
	u32 index = 0;
	int err;

	mutex_lock(&ft_devs_lock);
	pick = bench_busiest();
	if (pick)
		index = pick->index;
	mutex_unlock(&ft_devs_lock);
	/* held without ft_devs_lock: the bench takes the RTNL */
	pick = pick ? ft_dev_get(index, NULL, false) : NULL;
	if (!pick)
		return -ENODEV;
	pfc_qps = READ_ONCE(pick->nr_live);
	err = ft_pfc_bench(pick, n, &pfc_ns);
	pfc_n = err ? 0 : n;
	ft_dev_put(pick);
	return err;
}

static int bench_pfc_show(struct seq_file *m, void *v)
{
	if (pfc_n)
		seq_printf(m, "frames %llu\nqps %llu\nframe_ps %llu\n", pfc_n, pfc_qps,
			   div64_u64(pfc_ns * 1000, pfc_n));
	return 0;
}

struct bench_file {
	const char *name;
	u64 max;
	int (*run)(u64 n);
	int (*show)(struct seq_file *m, void *v);
};

static const struct bench_file bench_files[] = {
	{ "bench_events", 1000000, bench_events_run, bench_events_show },
	{ "bench_lookup", 100000000, bench_lookup_run, bench_lookup_show },
	{ "bench_pfc", 100000000, bench_pfc_run, bench_pfc_show },
};

static int bench_open(struct inode *inode, struct file *file)
{
	const struct bench_file *bf = inode->i_private;

	return single_open(file, bf->show, NULL);
}

static ssize_t bench_write(struct file *file, const char __user *buf,
			   size_t len, loff_t *ppos)
{
	const struct bench_file *bf = file_inode(file)->i_private;
	u64 n;
	int err;

	err = kstrtoull_from_user(buf, len, 0, &n);
	if (err)
		return err;
	if (!n || n > bf->max)
		return -EINVAL;
	err = bf->run(n);
	return err ? err : len;
}

static const struct file_operations bench_fops = {
	.owner = THIS_MODULE,
	.open = bench_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = bench_write,
};

void ft_bench_init(void)
{
	unsigned int i;

	bench_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	for (i = 0; i < ARRAY_SIZE(bench_files); i++)
		debugfs_create_file(bench_files[i].name, 0600, bench_dir,
				    (void *)&bench_files[i], &bench_fops);
}

void ft_bench_exit(void)
{
	debugfs_remove_recursive(bench_dir);
}
