// SPDX-License-Identifier: GPL-2.0
/* QP entries: creation, destruction, retention, reset and discovery. */

#include <linux/cgroup.h>
#include <linux/moduleparam.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/restrack.h>

#include "dev.h"
#include "events.h"
#include "qp.h"

struct ft_qp_stats ft_qp_stats;
struct ft_leaf ft_leaf_none;

static struct kmem_cache *ft_qp_cache;
static void retire_work_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(retire_work, retire_work_fn);
static bool retire_ready;		/* the worker may be scheduled */
static void evict_work_fn(struct work_struct *work);
static DECLARE_WORK(evict_work, evict_work_fn);
static atomic_t evicting;		/* evicted entries not yet freed */

unsigned int ft_max_qps = 262144;
module_param_named(max_qps, ft_max_qps, uint, 0644);
MODULE_PARM_DESC(max_qps, "QP entries kept at most, live and retained (default 262144)");

/*
 * A new retain_ms applies to the QPs already retained, at once: the worker
 * sleeps until the oldest retained entry expires under the old value, and
 * runs now instead.
 */
unsigned int ft_retain_ms = 60000;
static int retain_ms_set(const char *val, const struct kernel_param *kp)
{
	int err = param_set_uint(val, kp);

	if (!err && READ_ONCE(retire_ready))
		mod_delayed_work(system_wq, &retire_work, 0);
	return err;
}

static const struct kernel_param_ops retain_ms_ops = {
	.set = retain_ms_set,
	.get = param_get_uint,
};

module_param_cb(retain_ms, &retain_ms_ops, &ft_retain_ms, 0644);
MODULE_PARM_DESC(retain_ms, "how long a destroyed QP's final counters stay readable (default 60000)");

unsigned int ft_qp_entry_size(void)
{
	return kmem_cache_size(ft_qp_cache);
}

/*
 * The slot of QP @qpn of @type on @port (QPs 0 and 1 are kept by port).
 * Caller holds dev->lock.  A missing leaf is taken from @spare,
 * which the caller allocated before locking (NULL: do not add one).
 * Leaves are never freed before the device.
 */
static struct ft_qp __rcu **slot_of(struct ft_dev *dev, u32 qpn, u32 type,
				    u32 port, struct ft_leaf **spare)
{
	struct ft_leaf *leaf;
	u32 hi = (qpn >> FT_LEAF_BITS) & (FT_ROOT_SIZE - 1);

	if (qpn <= 1)
		return ft_port_qp_slot(dev, qpn, type, port);
	leaf = rcu_dereference_protected(dev->idx->root[hi],
					 lockdep_is_held(&dev->lock));
	if (leaf == &ft_leaf_none) {
		if (!spare || !*spare)
			return NULL;
		leaf = *spare;
		*spare = NULL;
		rcu_assign_pointer(dev->idx->root[hi], leaf);
		dev->nr_leaves++;
	}
	return &leaf->slot[qpn & (FT_LEAF_SIZE - 1)];
}

/*
 * A user QP's owner is its creator, with the cgroup it was in then (a
 * pod's, a job's).  A kernel QP's is the owner of its protection domain:
 * ib_core names rdma_cm as the owner of every QP rdma_cm creates, where
 * the ULP that asked for the connection (nvme_rdma, rpcrdma) allocated
 * the PD, and that is what tells storage traffic from the rest.
 */
static void fill_owner(struct ft_qp *qp, struct ib_qp *ibqp)
{
	struct rdma_restrack_entry *res = &ibqp->res;
	const char *name = res->kern_name;

	if (res->task) {
		qp->owner = get_task_pid(res->task, PIDTYPE_TGID);
		get_task_comm(qp->comm, res->task);
#ifdef CONFIG_CGROUPS
		rcu_read_lock();
		qp->cgroup = cgroup_id(task_dfl_cgroup(res->task));
		rcu_read_unlock();
#endif
		return;
	}
	qp->flags |= FT_QP_KERNEL;
	if (ibqp->pd && ibqp->pd->res.kern_name)
		name = ibqp->pd->res.kern_name;
	strscpy(qp->comm, name ?: "kernel", sizeof(qp->comm));
}

/*
 * Give up the oldest retained entry of @dev that is not given up yet: it
 * stops counting (and showing) at once, and evict_work frees it after a
 * grace period (readers may be on it; the caller may not sleep).  The
 * entries so marked are always the first ones of the retired list, the
 * last of them evict_last.
 */
static bool evict_one(struct ft_dev *dev)
{
	struct ft_qp *qp;

	spin_lock(&dev->lock);
	qp = dev->evict_last ?
	     rcu_dereference_protected(dev->evict_last->next_retired,
				       lockdep_is_held(&dev->lock)) :
	     rcu_dereference_protected(dev->retired, lockdep_is_held(&dev->lock));
	if (qp) {
		WRITE_ONCE(qp->flags, qp->flags | FT_QP_EVICTED);
		dev->evict_last = qp;
		WRITE_ONCE(dev->nr_retired, dev->nr_retired - 1);
		/* entries first: entries - retained never reads high */
		atomic_dec(&ft_qp_stats.entries);
		atomic_dec(&ft_qp_stats.retained);
		atomic_inc(&evicting);
		atomic64_inc(&ft_qp_stats.evicted);
		atomic_inc(&ft_qp_stats.generation);
	}
	spin_unlock(&dev->lock);
	return qp;
}

/* Evicted entries waiting for their grace period: memory stays bounded. */
static unsigned int evict_max(void)
{
	return max(256u, READ_ONCE(ft_max_qps) / 8);
}

/*
 * Live QPs before retained ones: a user churning QPs must not fill the
 * table with its destroyed entries and leave another tenant's new QPs
 * untracked.  The QP's own device gives up its oldest first, then any.
 * Nothing is given up where that cannot make room.
 */
static bool evict_for(struct ft_dev *dev)
{
	struct ft_dev *other;
	bool done = false;

	/* the caller's new entry is counted in entries already */
	if (atomic_read(&ft_qp_stats.entries) - atomic_read(&ft_qp_stats.retained) >
	    (int)READ_ONCE(ft_max_qps) ||
	    atomic_read(&evicting) >= (int)evict_max())
		return false;
	if (READ_ONCE(dev->nr_retired) && evict_one(dev)) {
		done = true;
	} else {
		rcu_read_lock();
		list_for_each_entry_rcu(other, &ft_devs, list) {
			if (other != dev && READ_ONCE(other->nr_retired) &&
			    evict_one(other)) {
				done = true;
				break;
			}
		}
		rcu_read_unlock();
	}
	if (done)
		queue_work(system_wq, &evict_work);
	return done;
}

static struct ft_qp *qp_alloc(struct ft_dev *dev, struct ib_qp *ibqp,
			      gfp_t gfp)
{
	struct ft_qp *qp;

	/* allocated first: an entry is never given up for a failed one */
	qp = kmem_cache_zalloc(ft_qp_cache, gfp | __GFP_NOWARN);
	if (!qp) {
		atomic64_inc(&ft_qp_stats.alloc_fail);
		return NULL;
	}
	/* one for one: the entry given up pays for this one */
	if (atomic_inc_return(&ft_qp_stats.entries) > READ_ONCE(ft_max_qps) &&
	    !evict_for(dev)) {
		atomic_dec(&ft_qp_stats.entries);
		kmem_cache_free(ft_qp_cache, qp);
		atomic64_inc(&ft_qp_stats.overflow);
		return NULL;
	}
	qp->ibqp = ibqp;
	qp->qpn = ibqp->qp_num;
	qp->type = ibqp->qp_type;
	if (ft_qp_type_has_psn(qp->type))
		qp->flags |= FT_QP_PSN;
	qp->port = ibqp->port;
	qp->ctime = ktime_get_ns();
	fill_owner(qp, ibqp);
	return qp;
}

/* Free @qp, which counts against max_qps unless it was evicted. */
static void qp_free(struct ft_qp *qp)
{
	if (qp->flags & FT_QP_EVICTED)
		atomic_dec(&evicting);
	else
		atomic_dec(&ft_qp_stats.entries);
	ft_dev_qp_freed(qp);
	put_pid(qp->owner);
	kmem_cache_free(ft_qp_cache, qp);
}

/* Free a retired entry the lists no longer reach. */
static void retired_free(struct ft_qp *qp)
{
	if (!(qp->flags & FT_QP_EVICTED))
		atomic_dec(&ft_qp_stats.retained);
	qp_free(qp);
}

/* Caller holds dev->lock; @qp is the live entry in @slot. */
static void retire_locked(struct ft_dev *dev, struct ft_qp __rcu **slot,
			  struct ft_qp *qp)
{
	rcu_assign_pointer(*slot, NULL);
	qp->dtime = ktime_get_ns();
	ft_dev_qp_retired(dev, qp);
	WRITE_ONCE(qp->flags, qp->flags | FT_QP_DESTROYED);
	/* appended in destroy order: the list stays oldest first */
	rcu_assign_pointer(*dev->retired_tail, qp);
	dev->retired_tail = &qp->next_retired;
	dev->nr_live--;
	WRITE_ONCE(dev->nr_retired, dev->nr_retired + 1);
	atomic_inc(&ft_qp_stats.retained);
	atomic_inc(&ft_qp_stats.generation);
}

/*
 * Publish @qp in the index.  Return false if the QP is already there.
 * @gfp may sleep (discovery): a leaf the QP needs is allocated before
 * dev->lock is taken, and freed after it if another insert got there first.
 */
static bool qp_insert(struct ft_dev *dev, struct ft_qp *qp, gfp_t gfp)
{
	u32 hi = (qp->qpn >> FT_LEAF_BITS) & (FT_ROOT_SIZE - 1);
	struct ft_leaf *spare = NULL;
	const struct ft_policy *seen;
	struct ft_qp __rcu **slot;
	struct ft_qp *old;
	bool added = false;

	if (qp->qpn > 1 && rcu_access_pointer(dev->idx->root[hi]) == &ft_leaf_none)
		spare = kzalloc(sizeof(*spare), gfp | __GFP_NOWARN);

	spin_lock(&dev->lock);
	slot = slot_of(dev, qp->qpn, qp->type, qp->port, &spare);
	if (!slot) {
		atomic64_inc(&ft_qp_stats.alloc_fail);
		goto out_unlock;
	}
	old = rcu_dereference_protected(*slot, lockdep_is_held(&dev->lock));
	if (old && old->ibqp == qp->ibqp)
		goto out_unlock;
	/* A live entry for another QP with this number missed its destroy. */
	if (old)
		retire_locked(dev, slot, old);
	seen = rcu_access_pointer(dev->policy);
	ft_dev_qp_added(dev, qp);
	rcu_assign_pointer(*slot, qp);
	/*
	 * A policy published since is walked over the QPs, which may have
	 * missed this one: it moves itself.  Pairs with the barrier between
	 * publishing a policy and walking the QPs (ft_policy_edit()).
	 */
	smp_mb();
	if (rcu_access_pointer(dev->policy) != seen)
		ft_dev_qp_moved(dev, qp, qp->port);
	dev->nr_live++;
	atomic_inc(&ft_qp_stats.generation);
	added = true;
out_unlock:
	spin_unlock(&dev->lock);
	kfree(spare);
	if (!added)
		qp_free(qp);
	return added;
}

/**
 * ft_qp_created() - start an entry for a QP the RDMA core just created
 * @dev: its device
 * @ibqp: the QP, fully set up but not yet visible to its creator
 *
 * Context: the rdma_restrack_add() hook: any context that may not sleep.
 */
void ft_qp_created(struct ft_dev *dev, struct ib_qp *ibqp)
{
	struct ft_qp *qp = qp_alloc(dev, ibqp, GFP_ATOMIC);

	if (qp && qp_insert(dev, qp, GFP_ATOMIC))
		ft_event_qp(dev, qp, FABTRACE_EVENT_KIND_QP_CREATE);
}

/* After an entry was retired: tell, and start the clock of its retention. */
static void retired_tell(struct ft_dev *dev, struct ft_qp *qp)
{
	ft_event_qp(dev, qp, FABTRACE_EVENT_KIND_QP_DESTROY);
	/* a no-op while the worker is queued: it reschedules itself */
	queue_delayed_work(system_wq, &retire_work,
			   msecs_to_jiffies(READ_ONCE(ft_retain_ms)));
}

/**
 * ft_qp_destroyed() - retire the entry of a QP the RDMA core destroyed
 * @dev: its device
 * @ibqp: the QP; its driver state is gone, the ib_qp itself still valid
 *
 * The entry leaves the index, so the QP number can be reused at once, and
 * stays readable with its final counters for retain_ms.
 */
void ft_qp_destroyed(struct ft_dev *dev, struct ib_qp *ibqp)
{
	struct ft_qp __rcu **slot;
	struct ft_qp *qp = NULL;

	spin_lock(&dev->lock);
	slot = slot_of(dev, ibqp->qp_num, ibqp->qp_type, ibqp->port, NULL);
	if (slot) {
		qp = rcu_dereference_protected(*slot,
					       lockdep_is_held(&dev->lock));
		if (qp && qp->ibqp == ibqp)
			retire_locked(dev, slot, qp);
		else
			qp = NULL;
	}
	spin_unlock(&dev->lock);
	if (qp)
		retired_tell(dev, qp);
}

/*
 * The restrack root of a device, which ib_core keeps private: an xarray of
 * entries indexed by QP number, followed by a cursor.  Layout checked
 * against drivers/infiniband/core/restrack.h of 6.1 and 6.12.
 */
struct ft_restrack_root {
	struct xarray xa;
	u32 next_id;
};

static void discover_one(struct ft_dev *dev, struct ib_qp *ibqp)
{
	struct ib_qp_init_attr init = {};
	struct ib_qp_attr attr = {};
	struct ft_qp *qp;
	int mask = IB_QP_STATE | IB_QP_PORT | IB_QP_AV | IB_QP_DEST_QPN;

	rcu_read_lock();
	qp = ft_qp_of(dev, ibqp);
	rcu_read_unlock();
	if (qp)
		return;

	qp = qp_alloc(dev, ibqp, GFP_KERNEL);
	if (!qp)
		return;
	qp->flags |= FT_QP_DISCOVERED;
	if (!ib_query_qp(ibqp, &attr, mask, &init)) {
		qp->state = attr.qp_state;
		/* a QP 0's or 1's port is its key: ib_core's, not the driver's */
		if (attr.port_num && qp->qpn > 1)
			qp->port = attr.port_num;
		if (qp->type != IB_QPT_UD && !ft_qp_type_special(qp->type) &&
		    attr.qp_state >= IB_QPS_RTR) {
			const struct ib_global_route *grh;

			qp->rqpn = attr.dest_qp_num;
			grh = rdma_ah_read_grh(&attr.ah_attr);
			if (grh) {
				memcpy(qp->peer, grh->dgid.raw, sizeof(qp->peer));
				qp->tclass = grh->traffic_class;
			}
			ft_qp_set_sl(qp, rdma_ah_get_sl(&attr.ah_attr));
		}
	}
	qp_insert(dev, qp, GFP_KERNEL);
}

static struct ft_restrack_root *restrack_qps(const struct ft_dev *dev)
{
	if (!dev->ibdev->res)
		return NULL;
	return &((struct ft_restrack_root *)dev->ibdev->res)[RDMA_RESTRACK_QP];
}

/*
 * The walk below holds each QP while it adds it, but rdma_restrack_del()
 * runs the destroy hook at its entry and only then waits for holders: a
 * QP destroyed while the walk was at it can be added after its destroy
 * found nothing to retire, and stay live.  This retires, a while after
 * the walk (and again ten seconds later), every discovered entry whose
 * restrack entry is gone.  QPs are compared by address, never touched:
 * they may be freed.  restrack keys a
 * special QP by its number and port (6.1 and 6.12).  Context: process.
 */
static void audit_fn(struct work_struct *work)
{
	struct ft_dev *dev = container_of(to_delayed_work(work), struct ft_dev, audit);
	struct ft_restrack_root *rt = restrack_qps(dev);
	struct ft_qp __rcu **slot;
	const void *res;
	struct ft_qp *qp;
	u32 key, id;
	bool gone;

	if (!rt)
		return;
	rcu_read_lock();
	for (key = 0; (qp = ft_qp_next(dev, &key, FT_KEY_PORTS - 1)); key++) {
		if (!(READ_ONCE(qp->flags) & FT_QP_DISCOVERED))
			continue;
		res = &((const struct ib_qp *)qp->ibqp)->res;
		id = qp->qpn;
		if (ft_qp_type_special(qp->type))
			id |= (u32)qp->port << 24;
		if (xa_load(&rt->xa, id) == res)
			continue;
		spin_lock(&dev->lock);
		slot = slot_of(dev, qp->qpn, qp->type, qp->port, NULL);
		gone = slot && rcu_dereference_protected(*slot,
							  lockdep_is_held(&dev->lock)) == qp;
		if (gone)
			retire_locked(dev, slot, qp);
		spin_unlock(&dev->lock);
		if (gone)
			retired_tell(dev, qp);
	}
	rcu_read_unlock();
	/* once more later, for a destroy preempted between its hook and xa_erase() */
	if (--dev->audits_left)
		schedule_delayed_work(&dev->audit, 10 * HZ);
}

/*
 * Add entries for the QPs a device fabtrace just learnt of already has.
 * Context: process; walks ib_core's own resource tracking, as nldev does.
 */
static void qp_discover(struct ft_dev *dev)
{
	struct ft_restrack_root *rt = restrack_qps(dev);
	struct rdma_restrack_entry *res;
	unsigned long id;

	if (!rt)
		return;

	xa_lock(&rt->xa);
	xa_for_each(&rt->xa, id, res) {
		if (res->type != RDMA_RESTRACK_QP || !rdma_restrack_get(res))
			continue;
		xa_unlock(&rt->xa);
		discover_one(dev, container_of(res, struct ib_qp, res));
		rdma_restrack_put(res);
		cond_resched();
		xa_lock(&rt->xa);
	}
	xa_unlock(&rt->xa);
	/* a destroy that raced the walk is at its xa_erase() by then */
	dev->audits_left = 2;
	schedule_delayed_work(&dev->audit, HZ);
}

/*
 * Free the entries evict_one() gave up: each device's run of them leaves
 * its list at once, its own links intact (a reader on it goes on to the
 * rest of the list), and all runs are freed after one grace period.
 */
static void evict_work_fn(struct work_struct *work)
{
	struct { struct ft_qp *first, *last; } run[FT_DEVMAP_SIZE / 2];
	struct ft_qp *qp, *next;
	struct ft_dev *dev;
	unsigned int i, n = 0;
	bool last;

	mutex_lock(&ft_devs_lock);
	list_for_each_entry(dev, &ft_devs, list) {
		if (n == ARRAY_SIZE(run))
			break;
		spin_lock(&dev->lock);
		if (dev->evict_last) {
			run[n].first = rcu_dereference_protected(dev->retired,
								 lockdep_is_held(&dev->lock));
			run[n].last = dev->evict_last;
			next = rcu_dereference_protected(dev->evict_last->next_retired,
							 lockdep_is_held(&dev->lock));
			rcu_assign_pointer(dev->retired, next);
			if (!next)
				dev->retired_tail = &dev->retired;
			dev->evict_last = NULL;
			n++;
		}
		spin_unlock(&dev->lock);
	}
	/* the lists changed: a dump resuming by position is flagged */
	if (n)
		atomic_inc(&ft_qp_stats.generation);
	mutex_unlock(&ft_devs_lock);
	if (!n)
		return;

	synchronize_rcu();
	for (i = 0; i < n; i++) {
		for (qp = run[i].first; qp; qp = next) {
			next = rcu_dereference_protected(qp->next_retired, true);
			last = qp == run[i].last;
			retired_free(qp);
			if (last)
				break;
		}
	}
}

/* Free what retained entries have outlived retain_ms; reschedule. */
static void retire_work_fn(struct work_struct *work)
{
	struct ft_qp *batch[64], *qp, *rest;
	u64 now, keep, next = 0;
	struct ft_dev *dev;
	unsigned int i, n;

again:
	n = 0;
	now = ktime_get_ns();
	keep = (u64)READ_ONCE(ft_retain_ms) * NSEC_PER_MSEC;
	mutex_lock(&ft_devs_lock);
	list_for_each_entry(dev, &ft_devs, list) {
		spin_lock(&dev->lock);
		while ((qp = rcu_dereference_protected(dev->retired,
						       lockdep_is_held(&dev->lock)))) {
			if (!(qp->flags & FT_QP_EVICTED) && qp->dtime + keep > now) {
				if (!next || qp->dtime + keep < next)
					next = qp->dtime + keep;
				break;
			}
			if (n == ARRAY_SIZE(batch))
				break;
			/* readers on @qp go on to the rest of the list */
			rest = rcu_dereference_protected(qp->next_retired,
							 lockdep_is_held(&dev->lock));
			rcu_assign_pointer(dev->retired, rest);
			if (!rest)
				dev->retired_tail = &dev->retired;
			if (dev->evict_last == qp)
				dev->evict_last = NULL;
			if (!(qp->flags & FT_QP_EVICTED))
				WRITE_ONCE(dev->nr_retired, dev->nr_retired - 1);
			batch[n++] = qp;
		}
		spin_unlock(&dev->lock);
	}
	if (n)
		atomic_inc(&ft_qp_stats.generation);
	mutex_unlock(&ft_devs_lock);

	if (n) {
		/* dumps walk the retired lists under RCU */
		synchronize_rcu();
		for (i = 0; i < n; i++)
			retired_free(batch[i]);
		if (n == ARRAY_SIZE(batch))
			goto again;
	}
	if (next)
		mod_delayed_work(system_wq, &retire_work,
				 nsecs_to_jiffies(next - now) + 1);
}

/**
 * ft_qp_next() - the first live entry of @dev at key *@key or after it
 * @dev: the device
 * @key: where to look from; set to the key of the entry found
 * @qpn_max: the last QP number to look at
 *
 * Keys are QP numbers in the index, then FT_KEY_PORTS + i for the
 * special QPs (ft_dev.port_qps[i]).
 * Context: RCU read side.
 * Return: the entry, or NULL (*@key is then past the last key).
 */
struct ft_qp *ft_qp_next(const struct ft_dev *dev, u32 *key, u32 qpn_max)
{
	const struct ft_leaf *leaf;
	struct ft_qp *qp;
	u32 k = *key;

	for (; k <= qpn_max && k < FT_KEY_PORTS; k++) {
		leaf = rcu_dereference(dev->idx->root[k >> FT_LEAF_BITS]);
		if (leaf == &ft_leaf_none) {
			k |= FT_LEAF_SIZE - 1;		/* skip the range */
			continue;
		}
		qp = rcu_dereference(leaf->slot[k & (FT_LEAF_SIZE - 1)]);
		if (qp)
			goto found;
	}
	for (k = max(k, FT_KEY_PORTS); k - FT_KEY_PORTS < dev->nr_port_qps; k++) {
		qp = rcu_dereference(dev->port_qps[k - FT_KEY_PORTS]);
		if (qp && qp->qpn <= qpn_max)
			goto found;
	}
	*key = k;
	return NULL;
found:
	*key = k;
	return qp;
}

/**
 * ft_qp_walk() - call @fn for every live entry of @dev
 * @dev: the device
 * @fn: the function, which must not sleep
 * @arg: its argument
 *
 * Context: process; takes the RCU read lock.
 */
void ft_qp_walk(const struct ft_dev *dev,
		void (*fn)(const struct ft_dev *dev, struct ft_qp *qp, void *arg),
		void *arg)
{
	struct ft_qp *qp;
	u32 key;

	rcu_read_lock();
	for (key = 0; (qp = ft_qp_next(dev, &key, FT_KEY_PORTS - 1)); key++)
		fn(dev, qp, arg);
	rcu_read_unlock();
}

/* Free every entry of a device no longer reachable by hooks or netlink. */
static void qp_free_all(struct ft_dev *dev)
{
	struct ft_qp *qp, *next;
	struct ft_leaf *leaf;
	unsigned int i, j;

	for (qp = rcu_dereference_protected(dev->retired, true); qp; qp = next) {
		next = rcu_dereference_protected(qp->next_retired, true);
		retired_free(qp);
	}
	for (i = 0; i < dev->nr_port_qps; i++) {
		qp = rcu_dereference_protected(dev->port_qps[i], true);
		if (qp)
			qp_free(qp);
	}
	for (i = 0; i < FT_ROOT_SIZE; i++) {
		leaf = rcu_dereference_protected(dev->idx->root[i], true);
		if (leaf == &ft_leaf_none)
			continue;
		for (j = 0; j < FT_LEAF_SIZE; j++) {
			qp = rcu_dereference_protected(leaf->slot[j], true);
			if (qp)
				qp_free(qp);
		}
		kfree(leaf);
	}
	atomic_inc(&ft_qp_stats.generation);
}

static int qp_dev_add(struct ft_dev *dev)
{
	struct ib_device *ibdev = dev->ibdev;

	dev->idx = kvmalloc(sizeof(*dev->idx), GFP_KERNEL);
	if (!dev->idx)
		return -ENOMEM;
	ft_qpidx_init(dev->idx);
	dev->nr_port_qps = FT_PORT_QPS * (rdma_end_port(ibdev) - rdma_start_port(ibdev) + 1);
	dev->port_qps = kcalloc(dev->nr_port_qps, sizeof(*dev->port_qps), GFP_KERNEL);
	if (!dev->port_qps) {
		kvfree(dev->idx);
		return -ENOMEM;
	}
	dev->retired_tail = &dev->retired;
	INIT_DELAYED_WORK(&dev->audit, audit_fn);
	return 0;
}

/* The ib_device's restrack is about to go: the audit walks it. */
static void qp_dev_detach(struct ft_dev *dev)
{
	cancel_delayed_work_sync(&dev->audit);
}

static void qp_dev_free(struct ft_dev *dev)
{
	qp_free_all(dev);
	kfree(dev->port_qps);
	kvfree(dev->idx);
}

/* A device's QP entries: its index, its port QPs and its retired list. */
const struct ft_dev_part ft_qp_part = {
	.name = "qp index",
	.add = qp_dev_add,
	.attach = qp_discover,
	.detach = qp_dev_detach,
	.free = qp_dev_free,
};

/**
 * ft_qp_reset() - zero the counters of @qp
 * @qp: the entry; metadata and PSN state are kept
 */
void ft_qp_reset(struct ft_qp *qp)
{
	struct ft_dir *dirs[] = { &qp->dir_tx, &qp->dir_rx };
	atomic64_t *c;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		atomic64_set(&dirs[i]->bytes, 0);
		for (c = dirs[i]->pkts; c < dirs[i]->pkts + FT_SLOT_MAX; c++)
			atomic64_set(c, 0);
	}
	for (c = &qp->cong.rx_ect; c <= &qp->cong.rx_oos; c++)
		atomic64_set(c, 0);
	atomic_set(&qp->cong.timeouts, 0);
	atomic_set(&qp->cong.rnr_timeouts, 0);
	atomic_set(&qp->cong.retry_exh, 0);
	atomic_set(&qp->cong.errors, 0);
	for (i = 0; i < FT_LAST_MAX; i++)
		WRITE_ONCE(qp->cong.last[i], 0);
	/* a sample running goes on; what the past ones added up to does not */
	WRITE_ONCE(qp->rtt.min, 0);
	WRITE_ONCE(qp->rtt.ack_delay, 0);
	for (i = 0; i < FT_RTT_QP_BUCKETS; i++)
		atomic_set(&qp->rtt.hist[i], 0);
}

/* What a reader in @ns may see: rdma's own rule for restrack resources. */
bool ft_qp_visible(const struct ft_qp *qp, struct pid_namespace *ns)
{
	if (ns == &init_pid_ns)
		return true;
	return qp->owner && pid_nr_ns(qp->owner, ns);
}

/* Did @qp see any congestion signal (the "congested" flag)? */
bool ft_qp_congested(const struct ft_qp *qp)
{
	return atomic64_read(&qp->cong.rx_ce) ||
	       atomic64_read(&qp->cong.retrans) ||
	       atomic64_read(&qp->dir_tx.pkts[FT_CLS_CNP]) ||
	       atomic64_read(&qp->dir_rx.pkts[FT_CLS_CNP]) ||
	       ft_dir_naks(&qp->dir_tx) || ft_dir_naks(&qp->dir_rx);
}

int ft_qp_init(void)
{
	/* ft_qp_reset() zeroes the 64-bit counters as one run */
	BUILD_BUG_ON(offsetof(struct ft_cong, rx_oos) -
		     offsetof(struct ft_cong, rx_ect) != 4 * sizeof(atomic64_t));
	BUILD_BUG_ON(sizeof(struct ft_qp) > FT_QP_SIZE_MAX);
	ft_qp_cache = KMEM_CACHE(ft_qp, 0);
	if (!ft_qp_cache)
		return -ENOMEM;
	/* netlink reads a dump's generation 0 as "none" */
	atomic_set(&ft_qp_stats.generation, 1);
	WRITE_ONCE(retire_ready, true);
	return 0;
}

void ft_qp_exit(void)
{
	/*
	 * A write of retain_ms runs under the module's parameter lock and may
	 * race with unload: once it is released here, no such write can
	 * queue the worker again.
	 */
	kernel_param_lock(THIS_MODULE);
	WRITE_ONCE(retire_ready, false);
	kernel_param_unlock(THIS_MODULE);
	cancel_delayed_work_sync(&retire_work);
	/* the hooks that evict are gone, and so are the devices */
	cancel_work_sync(&evict_work);
	kmem_cache_destroy(ft_qp_cache);
}
