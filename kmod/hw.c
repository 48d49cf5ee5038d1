// SPDX-License-Identifier: GPL-2.0
/* Hardware RDMA NICs: their counter sets, port counters and QPs' PSN progress. */

#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <net/netlink.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_counter.h>
#include <rdma/rdma_netlink.h>
#include <rdma/restrack.h>

#include "dev.h"
#include "events.h"
#include "hook.h"
#include "hw.h"
#include "nldev.h"
#include "qp.h"

/*
 * A hardware NIC's data path never crosses the kernel: what fabtrace
 * knows of its QPs' traffic is what the NIC counts.  A driver with counter
 * sets (mlx5) counts per set.  Binding a QP to one takes a NIC resource
 * and the port's counter mode from whoever else wants them (an operator's
 * auto mode is refused while any set is bound), with fabtrace's
 * privileges for any user's QP: only when asked (hw_bind), fabtrace binds
 * each new QP to a set of its own, as `rdma statistic qp bind` would, and
 * once the NIC has no set left to one of another QP of the same process
 * (so a QP's numbers are its own, or its process's, never the port's),
 * and unbinds them all when it lets the device go.  A port someone else
 * configured (auto mode, or any set fabtrace did not make) is left as it
 * is: its sets are read, never changed.  A QP in no set (any other
 * driver, none left, or binding off) gets its RC requests sent and
 * received from its PSNs' progress.  Every read is work for this poll,
 * never for a packet.
 */
static unsigned int hw_poll_ms = 1000;
module_param(hw_poll_ms, uint, 0644);
MODULE_PARM_DESC(hw_poll_ms, "hardware NICs: how often counter sets and PSNs are read, ms (default 1000)");
static bool hw_bind;
module_param(hw_bind, bool, 0644);
MODULE_PARM_DESC(hw_bind, "hardware NICs (default 0): binds QPs to the NIC's counter sets; takes the port's sets (an operator's auto mode fails until fabtrace unbinds them)");

/* A QP to bind: its identity, which it may have lost by the time it is bound. */
struct bind_req {
	struct llist_node node;
	const void *ibqp;
	u32 qpn, port;
};

/* ft_hw_qp.flags */
#define FT_HW_BIND_ASKED	0	/* its bind was asked for, once */
#define FT_HW_BIND_AT_PORT	1	/* to be asked again when it has its port */

/*
 * The polls and binds run here: fabtrace's unload drains it (ft_hw_exit()),
 * after the last device was detached, which waits for none of them.
 */
static struct workqueue_struct *ft_hw_wq;

static unsigned long poll_jiffies(void)
{
	return msecs_to_jiffies(max(READ_ONCE(hw_poll_ms), 10u));
}

/*
 * Each queued run of the poll or the binds holds a reference to
 * fabtrace's entry for the device (taken as it is queued, under q_lock,
 * which the run takes first), and from its start to its end the
 * ib_device too, taken only while not detached: the RDMA core waits for
 * the ib_device's references before it frees it, and the entry's last
 * reference frees this.  Detach waits for no run (hw_dev_detach()): it
 * takes back the references of the runs it cancels.
 */
static void queue_run(struct ft_hw *hw, bool poll, unsigned long delay)
{
	bool queued;

	lockdep_assert_held(&hw->q_lock);
	if (hw->dying)
		return;
	queued = poll ? queue_delayed_work(ft_hw_wq, &hw->work, delay) :
			queue_work(ft_hw_wq, &hw->bind_work);
	if (queued)
		kref_get(&hw->dev->ref);
}

/* --- names ------------------------------------------------------------------ */

/* The index of @name in @t, added if new; -1 if @t is full.  Context: hw->lock. */
static int name_index(struct ft_hw_names *t, const char *name)
{
	u32 i, n = t->n;

	for (i = 0; i < n; i++)
		if (!strncmp(t->name[i], name, FT_HW_NAME))
			return i;
	if (n == FT_HW_MAX)
		return -1;
	strscpy(t->name[n], name, FT_HW_NAME);
	/* readers see the name before they see it counted */
	smp_store_release(&t->n, n + 1);
	return n;
}

/* The index of @name in @t, or -1.  Context: any. */
static int name_find(const struct ft_hw_names *t, const char *name)
{
	/* pairs with name_index()'s release: the names counted are written */
	u32 i, n = smp_load_acquire(&t->n);

	for (i = 0; i < n; i++)
		if (!strncmp(t->name[i], name, FT_HW_NAME))
			return i;
	return -1;
}

/* --- sets -------------------------------------------------------------------- */

static void set_put(struct ft_hw_set *set)
{
	if (set && refcount_dec_and_test(&set->ref))
		kfree_rcu(set, rcu);
}

/* The set @id, held; created if new and @create, else NULL.  Context: the work. */
static struct ft_hw_set *set_get(struct ft_hw *hw, u32 id, u32 port, bool ours, bool create)
{
	struct ft_hw_set *set, *old;

	rcu_read_lock();
	set = xa_load(&hw->set_xa, id);
	if (set && !refcount_inc_not_zero(&set->ref))
		set = NULL;
	rcu_read_unlock();
	if (set || !create)
		return set;
	set = kzalloc(sizeof(*set), GFP_KERNEL);
	if (!set)
		return NULL;
	set->id = id;
	set->port = port;
	set->ours = ours;
	spin_lock_init(&set->lock);
	refcount_set(&set->ref, 2);		/* the table's, the caller's */
	old = xa_cmpxchg(&hw->set_xa, id, NULL, set, GFP_KERNEL);
	if (old) {
		kfree(set);
		return xa_is_err(old) ? NULL : set_get(hw, id, port, ours, create);
	}
	return set;
}

/* Account a set's new 32-bit value of counter @i.  Context: set->lock. */
static void set_add(struct ft_hw_set *set, int i, u32 raw)
{
	/* read without the lock (nl-hw.c) */
	WRITE_ONCE(set->total[i], set->total[i] + (u32)(raw - set->raw[i]));
	set->raw[i] = raw;
}

/*
 * The core releases a set when its last QP leaves it (a QP destroyed
 * leaves it first), after one last read of its values into the port's
 * history, and before it frees them: rdma_restrack_del(), which life.c
 * hooks.  The set's final values become fabtrace's, for the QPs that
 * were in it (retained with them).  Context: the hook; no sleeping.
 */
void ft_hw_counter_gone(struct ft_dev *dev, const struct rdma_counter *counter)
{
	struct ft_hw *hw = dev->hw;
	const struct rdma_hw_stats *st = counter->stats;
	struct ft_hw_set *set;
	unsigned long flags;
	int i, k;

	if (!hw)
		return;
	/*
	 * A dump sent before this may still list the set: its entry must not
	 * make it again (set_entry()).  A reader that misses the set below
	 * sees the count moved.
	 */
	atomic_inc(&hw->gone_seq);
	smp_mb__after_atomic();	/* the count, then the erase: set_entry() reads the other way */
	if (!st)
		return;
	rcu_read_lock();
	set = xa_load(&hw->set_xa, counter->id);
	if (set && set->port == counter->port) {
		spin_lock_irqsave(&set->lock, flags);
		for (i = 0; i < st->num_counters; i++) {
			if (test_bit(i, st->is_disabled))
				continue;
			k = name_find(&hw->set_names, st->descs[i].name);
			if (k >= 0)
				set_add(set, k, st->value[i]);
		}
		set->gone = true;
		spin_unlock_irqrestore(&set->lock, flags);
		/* the id may come again, for another set */
		if (xa_cmpxchg(&hw->set_xa, counter->id, set, NULL, GFP_ATOMIC) == set)
			set_put(set);
	}
	rcu_read_unlock();
}

/* --- QPs ----------------------------------------------------------------------- */

/* @qp's hardware record; NULL on a tapped device.  Context: RCU read side. */
static struct ft_hw_qp *qp_hw(const struct ft_qp *qp)
{
	return rcu_dereference(qp->hw);
}

/**
 * ft_hw_qp_source() - where @qp's numbers come from
 * @dev: its device
 * @qp: the entry
 *
 * Context: RCU read side.
 */
enum ft_hw_source ft_hw_qp_source(const struct ft_dev *dev, const struct ft_qp *qp)
{
	const struct ft_hw_qp *h = qp_hw(qp);
	const struct ft_hw_set *set;

	if (dev->hooked)
		return FT_SRC_TAP;
	if (!h)
		return FT_SRC_NONE;
	set = rcu_dereference(h->set);
	if (set)
		return READ_ONCE(set->nqps) > 1 ? FT_SRC_SET_SHARED : FT_SRC_SET;
	return READ_ONCE(h->sq_psn) & FT_PSN_VALID ? FT_SRC_PSN : FT_SRC_NONE;
}

/*
 * Queue @qp for binding, by the bind work: a new QP costs its bind, not a
 * poll of every set, port and PSN.  Context: a hook or a part callback,
 * RCU read side; no sleeping.
 */
static void want_bind(const struct ft_dev *dev, struct ft_hw_qp *h, const struct ft_qp *qp,
		      u32 port)
{
	struct ft_hw *hw = dev->hw;
	struct bind_req *r;

	if (!hw->sets || !READ_ONCE(hw_bind) || qp->flags & FT_QP_KERNEL)
		return;
	/* the discovery and the restrack_add() return may both see a new QP */
	if (test_and_set_bit(FT_HW_BIND_ASKED, &h->flags))
		return;
	r = kmalloc(sizeof(*r), GFP_ATOMIC);
	if (!r)
		return;
	r->ibqp = qp->ibqp;
	r->qpn = qp->qpn;
	r->port = port;
	llist_add(&r->node, &hw->pending);
	/* once detached, nothing runs: the request is freed with the device */
	spin_lock(&hw->q_lock);
	queue_run(hw, false, 0);
	spin_unlock(&hw->q_lock);
}

/* The port a QP will be bound on: its own, or the device's only one. */
static u32 bind_port(const struct ft_dev *dev, const struct ft_qp *qp)
{
	u32 port = READ_ONCE(qp->port);

	if (rdma_is_port_valid(dev->ibdev, port))
		return port;
	return rdma_start_port(dev->ibdev) == rdma_end_port(dev->ibdev) ?
	       rdma_start_port(dev->ibdev) : 0;
}

/* Bind @qp, now in the RDMA core's restrack, if it can be. */
static void bind_new(const struct ft_dev *dev, struct ft_hw_qp *h, const struct ft_qp *qp)
{
	u32 port = bind_port(dev, qp);

	if (port && ft_qp_type_has_psn(qp->type))
		want_bind(dev, h, qp, port);
}

/**
 * ft_hw_qp_ready() - a new QP is in the RDMA core's restrack
 * @dev: its device
 * @qp: its entry
 *
 * nldev looks a QP up there to bind it: its entry is made as
 * rdma_restrack_add() starts (life.c), when a bind would get ENOENT, and
 * the bind is asked for when it returns.
 * Context: the rdma_restrack_add() return hook, RCU read side; no sleeping.
 */
void ft_hw_qp_ready(const struct ft_dev *dev, struct ft_qp *qp)
{
	struct ft_hw_qp *h = qp_hw(qp);

	if (dev->hw && h)
		bind_new(dev, h, qp);
}

static void hw_qp_added(const struct ft_dev *dev, struct ft_qp *qp)
{
	struct ft_hw_qp *h;

	if (!dev->hw)
		return;
	h = kzalloc(sizeof(*h), GFP_ATOMIC);
	if (!h)
		return;
	/* a modify missed before it was made is none of its concern */
	h->psn_gen = READ_ONCE(dev->hw->psn_gen);
	rcu_assign_pointer(qp->hw, h);
	/* a new QP is bound from ft_hw_qp_ready(); a discovered one is there */
	if (qp->flags & FT_QP_DISCOVERED)
		bind_new(dev, h, qp);
}

/* A QP that had no port when it was made has one now. */
static void hw_qp_moved(const struct ft_dev *dev, struct ft_qp *qp, u32 old_port)
{
	struct ft_hw_qp *h = rcu_dereference_protected(qp->hw, lockdep_is_held(&dev->lock));

	/* its shared bind waited for the port (wait_port()) */
	if (h && rdma_is_port_valid(dev->ibdev, READ_ONCE(qp->port)) &&
	    test_and_clear_bit(FT_HW_BIND_AT_PORT, &h->flags)) {
		clear_bit(FT_HW_BIND_ASKED, &h->flags);
		want_bind(dev, h, qp, READ_ONCE(qp->port));
		return;
	}
	if (!h || rcu_access_pointer(h->set) || rdma_is_port_valid(dev->ibdev, old_port) ||
	    !rdma_is_port_valid(dev->ibdev, READ_ONCE(qp->port)) ||
	    rdma_start_port(dev->ibdev) == rdma_end_port(dev->ibdev) ||
	    !ft_qp_type_has_psn(qp->type))
		return;
	want_bind(dev, h, qp, READ_ONCE(qp->port));
}

static void hw_qp_freed(struct ft_qp *qp)
{
	/* the entry's grace period is over: no reader, no writer is left */
	struct ft_hw_qp *h = rcu_dereference_protected(qp->hw, true);

	if (!h)
		return;
	set_put(rcu_dereference_protected(h->set, true));
	kfree(h);
}

/* The live entry @ibqp still has, or NULL.  Context: RCU read side. */
static struct ft_qp *entry_of(const struct ft_dev *dev, const void *ibqp, u32 qpn)
{
	struct ft_qp *qp = ft_qpidx_find(dev->idx, qpn);

	return qp && qp->ibqp == ibqp ? qp : NULL;
}

/* Give @qp's record @set (held by the caller, given on), if it has none. */
static void attach(struct ft_qp *qp, struct ft_hw_set *set)
{
	struct ft_hw_qp *h = qp_hw(qp);

	if (h && !cmpxchg(&h->set, RCU_INITIALIZER(NULL), RCU_INITIALIZER(set)))
		return;
	set_put(set);
}

/* --- nldev requests ---------------------------------------------------------- */

static struct sk_buff *req_port(u32 cmd, u16 flags, const struct ft_dev *dev, u32 port)
{
	struct sk_buff *skb = ft_nldev_new(cmd, flags);

	if (skb && (nla_put_u32(skb, RDMA_NLDEV_ATTR_DEV_INDEX, dev->index) ||
		    (port && nla_put_u32(skb, RDMA_NLDEV_ATTR_PORT_INDEX, port)))) {
		kfree_skb(skb);
		return NULL;
	}
	return skb;
}

static int id_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct nlattr *a = nlmsg_find_attr(nlh, 0, RDMA_NLDEV_ATTR_STAT_COUNTER_ID);

	if (a && nla_len(a) >= sizeof(u32))
		*(u32 *)arg = nla_get_u32(a);
	return 0;
}

/* Bind QP @qpn to set @id (0: a new set); the set's id in *@id.  Context: the work. */
static int bind(struct ft_hw *hw, u32 port, u32 qpn, u32 *id)
{
	struct sk_buff *skb = req_port(RDMA_NLDEV_CMD_STAT_SET, 0, hw->dev, port);

	if (!skb || nla_put_u32(skb, RDMA_NLDEV_ATTR_STAT_RES, RDMA_NLDEV_ATTR_RES_QP) ||
	    nla_put_u32(skb, RDMA_NLDEV_ATTR_STAT_MODE, RDMA_COUNTER_MODE_MANUAL) ||
	    nla_put_u32(skb, RDMA_NLDEV_ATTR_RES_LQPN, qpn) ||
	    (*id && nla_put_u32(skb, RDMA_NLDEV_ATTR_STAT_COUNTER_ID, *id))) {
		kfree_skb(skb);
		return -ENOMEM;
	}
	return ft_nldev_talk(skb, id_cb, id);
}

/* Take QP @qpn out of set @id, as `rdma statistic qp unbind` does.  Context: the work's lock. */
static int unbind(struct ft_hw *hw, u32 port, u32 qpn, u32 id)
{
	struct sk_buff *skb = req_port(RDMA_NLDEV_CMD_STAT_DEL, 0, hw->dev, port);

	if (!skb || nla_put_u32(skb, RDMA_NLDEV_ATTR_STAT_RES, RDMA_NLDEV_ATTR_RES_QP) ||
	    nla_put_u32(skb, RDMA_NLDEV_ATTR_RES_LQPN, qpn) ||
	    nla_put_u32(skb, RDMA_NLDEV_ATTR_STAT_COUNTER_ID, id)) {
		kfree_skb(skb);
		return -ENOMEM;
	}
	return ft_nldev_talk(skb, NULL, NULL);
}

static int mode_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct ft_hw_port *p = arg;
	const struct nlattr *a;

	a = nlmsg_find_attr(nlh, 0, RDMA_NLDEV_ATTR_STAT_MODE);
	if (a && nla_len(a) >= sizeof(u32))
		WRITE_ONCE(p->mode, nla_get_u32(a));
	a = nlmsg_find_attr(nlh, 0, RDMA_NLDEV_ATTR_STAT_AUTO_MODE_MASK);
	WRITE_ONCE(p->mask, a && nla_len(a) >= sizeof(u32) ? nla_get_u32(a) : 0);
	return 0;
}

static void read_mode(struct ft_hw *hw, u32 port)
{
	struct sk_buff *skb = req_port(RDMA_NLDEV_CMD_STAT_GET, 0, hw->dev, port);

	if (!skb || nla_put_u32(skb, RDMA_NLDEV_ATTR_STAT_RES, RDMA_NLDEV_ATTR_RES_QP) ||
	    nla_put_u32(skb, RDMA_NLDEV_ATTR_STAT_MODE, 0)) {
		kfree_skb(skb);
		return;
	}
	ft_nldev_talk(skb, mode_cb, &hw->port[port]);
}

/* Each name and value of a HWCOUNTERS table, to @fn. */
static void each_counter(const struct nlattr *table,
			 void (*fn)(void *arg, const char *name, u64 value), void *arg)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE + 1];
	const struct nlattr *e;
	int rem;

	nla_for_each_nested(e, table, rem) {
		if (nla_type(e) != RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY ||
		    nla_parse_nested_deprecated(tb, ARRAY_SIZE(tb) - 1, e, NULL, NULL) ||
		    !tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME] ||
		    !tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE] ||
		    nla_len(tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE]) < sizeof(u64))
			continue;
		fn(arg, nla_data(tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME]),
		   nla_get_u64(tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE]));
	}
}

struct port_read {
	struct ft_hw *hw;
	struct ft_hw_port *p;
};

/*
 * nldev's value of a port counter is the sum of the port's own, each
 * running set's and the released sets' (history).  A set the core
 * releases joins the history before it leaves the running sets
 * (counter_release()), and a sum read between the two counts it twice
 * (hw.sh saw 1,600 more, and then not): a read counts once the next one
 * is no lower, and is dropped if it is.  Drops are judged against the
 * last read so confirmed.  On mlx5 the port's own counter and the sets'
 * are 32 bits wide: when one wraps, the sum drops by nearly 2^32, so a
 * drop of more than 2^31 and no more than 2^32 is such a wrap, and 2^32
 * is added from then on (exact while at most one of them wraps in two
 * reads; a 64-bit counter reset from between 2^31 and 2^32 reads as one).
 * A smaller drop is waited out; a counter that went back further than
 * 2^32 started again (the driver reset it), and counts from there.
 */
static void port_value(void *arg, const char *name, u64 value)
{
	struct port_read *r = arg;
	struct ft_hw_port *p = r->p;
	int i = name_index(&r->hw->port_names, name);
	u64 conf, last, y;

	if (i < 0)
		return;
	y = value + p->carry[i];
	if (i >= READ_ONCE(p->nvalues)) {
		/* the first read: what the port counted before fabtrace */
		p->conf[i] = y;
		p->last[i] = y;
		WRITE_ONCE(p->value[i], y);
		WRITE_ONCE(p->nvalues, i + 1);
		return;
	}
	conf = p->conf[i];
	last = p->last[i];
	if (y < conf && conf - y > 1ULL << 31 && conf - y <= 1ULL << 32) {
		p->carry[i] += 1ULL << 32;	/* a wrap */
		y += 1ULL << 32;
	} else if (y < conf && conf - y > 1ULL << 32) {
		p->conf[i] = y;			/* a reset */
		p->last[i] = y;
		return;
	}
	/* the last read stands if this one is no lower: what it rose by counts */
	if (y >= conf && last >= conf && y >= last) {
		WRITE_ONCE(p->value[i], p->value[i] + last - conf);
		p->conf[i] = last;
	}
	p->last[i] = y;
}

static int port_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct nlattr *t = nlmsg_find_attr(nlh, 0, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);

	if (t)
		each_counter(t, port_value, arg);
	return 0;
}

/* The port's counters (the default counter's, the sets' and their history). */
static void read_port(struct ft_hw *hw, u32 port)
{
	struct port_read r = { hw, &hw->port[port] };
	struct sk_buff *skb = req_port(RDMA_NLDEV_CMD_STAT_GET, 0, hw->dev, port);

	if (skb)
		ft_nldev_talk(skb, port_cb, &r);
}

struct set_read {
	struct ft_hw *hw;
	struct ft_hw_set *set;
};

static void set_value(void *arg, const char *name, u64 value)
{
	struct set_read *r = arg;
	int i = name_index(&r->hw->set_names, name);
	unsigned long flags;

	if (i < 0)
		return;
	spin_lock_irqsave(&r->set->lock, flags);
	if (!r->set->gone)
		set_add(r->set, i, value);
	spin_unlock_irqrestore(&r->set->lock, flags);
}

/*
 * Put a QP's record @h in @set (NULL: in none), the set it had let go.  A
 * reader under RCU may still use the old one: sets are freed after a
 * grace period (set_put()).  Context: hw->lock, RCU read side.
 */
static void move(struct ft_hw_qp *h, struct ft_hw_set *set)
{
	/* its PSNs moved on while it was in the set: their base is stale */
	h->rebase = true;
	set_put(unrcu_pointer(xchg(&h->set, RCU_INITIALIZER(set))));
}

/*
 * The QPs a set lists (RES_QP: RES_QP_ENTRY nests of RES_LQPN) are in it:
 * a QP the dump lists in another set than the one it had (its operator
 * unbound it and bound it again) moves to it.
 */
static u32 set_qps(struct ft_hw *hw, struct ft_hw_set *set, const struct nlattr *table,
		   u32 *last, bool *moved)
{
	const struct nlattr *q, *n;
	struct ft_hw_qp *h;
	struct ft_qp *qp;
	int rem, rem2;
	u32 nqps = 0;

	nla_for_each_nested(q, table, rem) {
		nla_for_each_nested(n, q, rem2) {
			if (nla_type(n) != RDMA_NLDEV_ATTR_RES_LQPN || nla_len(n) < sizeof(u32))
				continue;
			nqps++;
			*last = nla_get_u32(n);
			rcu_read_lock();
			qp = ft_qpidx_find(hw->dev->idx, *last);
			h = qp ? qp_hw(qp) : NULL;
			if (h) {
				h->listed = hw->dump_gen;
				if (rcu_access_pointer(h->set) != set &&
				    refcount_inc_not_zero(&set->ref)) {
					move(h, set);
					*moved = true;
				}
			}
			rcu_read_unlock();
		}
	}
	return nqps;
}

/*
 * A set's counters whose moves are events of its QP, when the QP was
 * alone in it at this read and the one before (in a shared set, whose
 * is unknown).  A kind's counters adjacent, the gravest kind first: the
 * per-QP limit keeps the first of a read's events.
 */
static const struct {
	const char *name;
	unsigned int kind;
} set_events[] = {
	{ "req_transport_retries_exceeded", FABTRACE_EVENT_KIND_RETRY_EXHAUSTED },
	{ "req_rnr_retries_exceeded", FABTRACE_EVENT_KIND_RETRY_EXHAUSTED },
	{ "local_ack_timeout_err", FABTRACE_EVENT_KIND_TIMEOUT },
	{ "roce_adp_retrans", FABTRACE_EVENT_KIND_RETRANSMIT },
	{ "out_of_sequence", FABTRACE_EVENT_KIND_NAK },	/* received, NAKed */
	{ "packet_seq_err", FABTRACE_EVENT_KIND_NAK },	/* NAKs received */
};

static_assert(ARRAY_SIZE(set_events) == FT_HW_EVENTS);
static_assert(FT_HW_MAX <= 128);	/* hw->ev_idx[] holds an index in an s8 */

/*
 * @set's values of set_events[]' counters into @v; returns a bit for each
 * the device has listed (names only grow: an index once found stays).
 * Context: hw->lock.
 */
static unsigned int event_values(struct ft_hw *hw, const struct ft_hw_set *set, u64 *v)
{
	unsigned int i, known = 0;

	for (i = 0; i < ARRAY_SIZE(set_events); i++) {
		if (hw->ev_idx[i] < 0)
			hw->ev_idx[i] = name_find(&hw->set_names, set_events[i].name);
		v[i] = hw->ev_idx[i] < 0 ? 0 : READ_ONCE(set->total[hw->ev_idx[i]]);
		if (hw->ev_idx[i] >= 0)
			known |= BIT(i);
	}
	return known;
}

/*
 * The events a read of @set raises for the QP alone in it: a kind whose counters
 * moved (known before the read) and had not at the read before, an
 * onset, with their sum (a NAK's: the sequence errors either way).
 * Context: the work, hw->lock.
 */
static void raise_events(struct ft_hw *hw, struct ft_hw_set *set, unsigned int known,
			 const u64 *before, const u64 *after)
{
	unsigned int i, j, kind, bit, moved = 0;
	struct ft_qp *qp;
	u64 count;

	rcu_read_lock();
	qp = ft_qpidx_find(hw->dev->idx, set->solo);
	if (!qp || !qp_hw(qp))
		goto unlock;
	for (i = 0, bit = 0; i < ARRAY_SIZE(set_events); i = j, bit++) {
		kind = set_events[i].kind;
		count = 0;
		for (j = i; j < ARRAY_SIZE(set_events) && set_events[j].kind == kind; j++) {
			if ((known & BIT(j)) && after[j] > before[j])
				moved |= BIT(bit);
			count += after[j];
		}
		if ((moved & BIT(bit)) && !(set->ev_moved & BIT(bit)))
			ft_event_hw(hw->dev, qp, kind, count);
	}
unlock:
	rcu_read_unlock();
	set->ev_moved = moved;
}

/* One set, as nldev lists it (@len bytes of attributes): its values, and the QPs in it. */
static void set_entry(struct ft_hw *hw, const struct nlattr *head, int len)
{
	const struct nlattr *a, *counters = NULL, *qps = NULL;
	u64 before[ARRAY_SIZE(set_events)], after[ARRAY_SIZE(set_events)];
	struct set_read r = { hw };
	u32 id = 0, port = 0, nqps, last = 0;
	unsigned int known;
	bool moved = false;
	int rem;

	nla_for_each_attr(a, head, len, rem) {
		switch (nla_type(a)) {
		case RDMA_NLDEV_ATTR_STAT_COUNTER_ID:
			if (nla_len(a) >= sizeof(u32))
				id = nla_get_u32(a);
			break;
		case RDMA_NLDEV_ATTR_PORT_INDEX:
			if (nla_len(a) >= sizeof(u32))
				port = nla_get_u32(a);
			break;
		case RDMA_NLDEV_ATTR_STAT_HWCOUNTERS:
			counters = a;
			break;
		case RDMA_NLDEV_ATTR_RES_QP:
			qps = a;
			break;
		}
	}
	if (!id || !port || port >= hw->nports)
		return;
	r.set = set_get(hw, id, port, false, false);
	if (!r.set) {
		/*
		 * nldev filled this entry some time before it is read: a set
		 * the core released since the dump was asked for (its last QP
		 * destroyed) would come back from it as a phantom, and its id,
		 * reused, would be read against the stale values.  A set that
		 * is new and real is listed again by the next dump.
		 */
		smp_rmb();	/* the miss, then the count: ft_hw_counter_gone()'s order */
		r.set = atomic_read(&hw->gone_seq) == hw->dump_seq ?
			set_get(hw, id, port, false, true) : NULL;
		if (!r.set) {
			/* its QPs are not known to be in it, nor in none */
			hw->dump_whole = false;
			return;
		}
	}
	/* someone else's set: the port is theirs */
	if (!r.set->ours)
		hw->port[port].foreign = true;
	known = event_values(hw, r.set, before);
	if (counters)
		each_counter(counters, set_value, &r);
	event_values(hw, r.set, after);
	nqps = qps ? set_qps(hw, r.set, qps, &last, &moved) : 0;
	WRITE_ONCE(r.set->nqps, nqps);
	/*
	 * Its QP's events, if it had it alone since the last read: a set
	 * first seen (its values history), a QP moved into it or one that
	 * shared it meanwhile (whose counts?) raise none.
	 */
	if (nqps == 1 && !moved && r.set->solo == last)
		raise_events(hw, r.set, known, before, after);
	else
		r.set->ev_moved = 0;
	r.set->solo = nqps == 1 ? last : 0;
	set_put(r.set);
}

/*
 * A part of the set dump.  nldev sends a part with no set in it when the
 * next set does not fit in the part: its entry lists each of its QPs.
 * Netlink makes a part 32 KiB when it can, and a page when that
 * allocation fails (a fragmented host): a set too large for a page may
 * come in the next part.  One too large for 32 KiB (some 2,500 QPs)
 * never does, and nldev sends empty parts for ever.
 */
static int sets_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct nlattr *t = nlmsg_find_attr(nlh, 0, RDMA_NLDEV_ATTR_STAT_COUNTER);
	struct ft_hw *hw = arg;
	const struct nlattr *e;
	unsigned int n = 0;
	int rem;

	/* detached: the rest of the dump is dropped, not waited for */
	if (READ_ONCE(hw->dying))
		return -ESHUTDOWN;
	if (t)
		nla_for_each_nested(e, t, rem)
			if (nla_type(e) == RDMA_NLDEV_ATTR_STAT_COUNTER_ENTRY) {
				set_entry(hw, nla_data(e), nla_len(e));
				n++;
			}
	hw->dump_sets += n;
	if (n)
		hw->dump_empty = 0;
	else if (++hw->dump_empty >= 4)
		return -EFBIG;
	return 0;
}

static int one_set_cb(const struct nlmsghdr *nlh, void *arg)
{
	set_entry(arg, nlmsg_attrdata(nlh, 0), nlmsg_attrlen(nlh, 0));
	return 0;
}

/* Every set of the device: nldev refreshes each from the NIC as it lists it. */
static int read_sets(struct ft_hw *hw)
{
	struct sk_buff *skb = req_port(RDMA_NLDEV_CMD_STAT_GET, NLM_F_DUMP, hw->dev, 0);
	u64 t0 = ktime_get_ns();
	int err;

	if (!skb || nla_put_u32(skb, RDMA_NLDEV_ATTR_STAT_RES, RDMA_NLDEV_ATTR_RES_QP)) {
		kfree_skb(skb);
		return -ENOMEM;
	}
	/* releases from here on make the dump's unknown sets suspect */
	hw->dump_seq = atomic_read(&hw->gone_seq);
	hw->dump_gen++;
	hw->dump_whole = true;
	hw->dump_sets = 0;
	hw->dump_empty = 0;
	err = ft_nldev_talk(skb, sets_cb, hw);
	/* the sets after one too large to list are not read: said in dev show */
	WRITE_ONCE(hw->read_err, err);
	hw->nsets = err ? max(hw->nsets, hw->dump_sets) : hw->dump_sets;
	if (!err) {
		WRITE_ONCE(hw->reads, hw->reads + 1);
		WRITE_ONCE(hw->read_ns, hw->read_ns + ktime_get_ns() - t0);
	}
	return err;
}

/*
 * After a dump that listed every set: a live QP it lists in none, or
 * whose set the core released, has left its set (unbound by its
 * operator, and the set perhaps with it).  It is in none now, and its
 * PSNs' progress counts for it.  A destroyed QP keeps its set's final
 * values: it is not a live entry.  But a QP being destroyed leaves its
 * set (rdma_counter_unbind_qp()) before its driver destroys it and the
 * restrack lets it go, when its entry is retired: only a QP still out of
 * its set a second later was unbound.  Context: hw->lock.
 */
static void sets_left(struct ft_hw *hw)
{
	const struct ft_hw_set *set;
	struct ft_hw_qp *h;
	struct ft_qp *qp;
	u32 key;

	rcu_read_lock();
	for (key = 2; (qp = ft_qp_next(hw->dev, &key, FT_KEY_PORTS - 1)); key++) {
		h = qp_hw(qp);
		if (!h)
			continue;
		set = rcu_dereference(h->set);
		if (!set || (h->listed == hw->dump_gen && !READ_ONCE(set->gone)))
			h->left = 0;
		else if (!h->left)
			h->left = jiffies ?: 1;
		else if (time_after(jiffies, h->left + HZ))
			move(h, NULL);
	}
	rcu_read_unlock();
}

/* --- binding ------------------------------------------------------------------- */

/*
 * Set @id, read once as fabtrace binds a QP to it, while no dump has named
 * the device's set counters yet: ft_hw_counter_gone() keeps the final
 * values only of counters it has a name for, and a set released before
 * the poll's first dump (a QP that lived less than a poll) would lose
 * them all.  A driver's names never change: once is enough.  Context:
 * hw->lock.
 */
static void read_set(struct ft_hw *hw, u32 port, u32 id)
{
	struct sk_buff *skb;

	if (hw->set_names.n)
		return;
	/* nldev's do for one set: STAT_GET, QP resources, its id */
	skb = req_port(RDMA_NLDEV_CMD_STAT_GET, 0, hw->dev, port);
	if (!skb || nla_put_u32(skb, RDMA_NLDEV_ATTR_STAT_RES, RDMA_NLDEV_ATTR_RES_QP) ||
	    nla_put_u32(skb, RDMA_NLDEV_ATTR_STAT_COUNTER_ID, id)) {
		kfree_skb(skb);
		return;
	}
	ft_nldev_talk(skb, one_set_cb, hw);
}

/*
 * The QPs a set fabtrace shares may have.  nldev lists a set, its
 * counters and each of its QPs, as one entry of a dump, which must fit in
 * one part; rdma(8) reads a part a page at a time (as does netlink when a
 * larger one cannot be had), and a set that does not fit makes its
 * `rdma statistic qp show` loop for ever.  A counter takes 56 bytes at
 * most (a nest, its name, its 64-bit value), a QP 12.
 */
static u32 share_max(const struct ft_hw *hw)
{
	/* before a dump named them, as many as mlx5's at most */
	long n = READ_ONCE(hw->set_names.n) ?: 40;
	long room = (long)NLMSG_GOODSIZE - 512 - 56 * n;

	return clamp_t(long, room / 12, 1, FT_HW_SHARE);
}

/*
 * A set of fabtrace's on @port for the QPs of @qp's process, to share
 * once the NIC has no set left, with room for one more; 0 if none.
 */
static u32 shared_set(struct ft_hw *hw, const struct ft_qp *qp, u32 port)
{
	u32 key, id = 0, share = share_max(hw);
	struct ft_qp *other;
	struct ft_hw_set *set;

	rcu_read_lock();
	for (key = 0; !id && (other = ft_qp_next(hw->dev, &key, FT_KEY_PORTS - 1)); key++) {
		if (other == qp || !qp_hw(other) || other->owner != qp->owner)
			continue;
		set = rcu_dereference(qp_hw(other)->set);
		/*
		 * Its references: the table's and each QP's (a reader takes
		 * one only under hw->lock, held here); a destroyed QP's until
		 * its entry is retired.
		 */
		if (set && set->ours && set->port == port && !READ_ONCE(set->gone) &&
		    refcount_read(&set->ref) <= share)
			id = set->id;
	}
	rcu_read_unlock();
	return id;
}

/*
 * The core binds a QP to a set that exists only once the QP has its port,
 * from its modify to INIT, which a new QP has not had yet: the bind is
 * asked again from hw_qp_moved().  False if the port came meanwhile, to
 * bind now.  Context: RCU read side.
 */
static bool wait_port(const struct ft_dev *dev, struct ft_qp *qp)
{
	struct ft_hw_qp *h = qp_hw(qp);

	set_bit(FT_HW_BIND_AT_PORT, &h->flags);
	smp_mb__after_atomic();	/* the bit, then the port: path_changed() writes the other way */
	if (!rdma_is_port_valid(dev->ibdev, READ_ONCE(qp->port)))
		return true;
	/* whoever clears the bit binds */
	return !test_and_clear_bit(FT_HW_BIND_AT_PORT, &h->flags);
}

/* Bind @r's QP.  Context: hw->lock. */
static void bind_one(struct ft_hw *hw, struct bind_req *r)
{
	struct ft_hw_set *set;
	bool own;
	struct ft_qp *qp;
	u32 id = 0;
	int err;

	/* the device or fabtrace is going (hw_dev_detach(), hw_dev_unload()) */
	if (READ_ONCE(hw->dying))
		return;
	if (hw->port[r->port].theirs) {
		err = -EBUSY;
		goto out;
	}
	err = bind(hw, r->port, r->qpn, &id);
	own = !err;
	if (err == -ENOMEM || err == -ENOSPC || err == -EBUSY) {
		rcu_read_lock();
		qp = entry_of(hw->dev, r->ibqp, r->qpn);
		id = qp && qp_hw(qp) ? shared_set(hw, qp, r->port) : 0;
		if (id && wait_port(hw->dev, qp)) {
			rcu_read_unlock();
			return;
		}
		rcu_read_unlock();
		if (id)
			err = bind(hw, r->port, r->qpn, &id);
	}
	if (!err && id) {
		set = set_get(hw, id, r->port, true, true);
		if (set) {
			/*
			 * a set of its own counts from 0 as it is bound: its
			 * first read's moves are the QP's events already
			 */
			set->solo = own ? r->qpn : 0;
			rcu_read_lock();
			qp = entry_of(hw->dev, r->ibqp, r->qpn);
			if (qp)
				attach(qp, set);
			else
				set_put(set);
			rcu_read_unlock();
			read_set(hw, r->port, id);
		}
	}
out:
	rcu_read_lock();
	qp = entry_of(hw->dev, r->ibqp, r->qpn);
	if (qp && qp_hw(qp))
		WRITE_ONCE(qp_hw(qp)->bind_err, err);
	rcu_read_unlock();
}

/* --- PSN progress ---------------------------------------------------------------- */

/*
 * An RC QP's send and receive PSNs advance by one a new request PSN (an
 * RDMA READ takes one per response packet): two reads apart, their
 * distance is what it sent and took in between, retransmissions and
 * duplicates not included.  The distance is signed (24 bits) and counted
 * only forward: a requester that goes back N to a NAK'd PSN adds nothing,
 * and counts again from where it was once past it.  A QP that goes again
 * through RESET to new PSNs counts from them, not from where its old ones
 * were: the jump between the two is no traffic.  Reads further apart than
 * 2^23 packets of a QP lose some or all of them: the counts are a lower
 * bound then (2^23 packets: 0.7 s of a 400G QP at 4 KiB).
 */

/* The distance from @base to @psn, counted forward only; the new base in *@base. */
static u64 psn_forward(u32 *base, u32 psn)
{
	s32 d = sign_extend32((psn - *base) & FT_PSN_MASK, 23);

	if (d <= 0)
		return 0;
	*base = psn;
	return d;
}

/*
 * The PSN @psn counts from: @base, as last read, while the QP had no
 * modify of its PSNs since (@same); else @now, what the last modify set
 * (life.c keeps it), where fabtrace saw it.  @next_of turns a kept PSN
 * into the next one expected.  Context: RCU read side.
 */
static u32 psn_base(u32 base, bool same, u32 now, u32 psn, u32 next_of)
{
	if ((base & FT_PSN_VALID) && same)
		return base & FT_PSN_MASK;
	return now & FT_PSN_VALID ? (now + next_of) & FT_PSN_MASK : psn;
}

/*
 * Context: the work.  @seq: the QP's psn_seq before the NIC was asked (no
 * modify of its PSNs running); the read counts only if it is the same
 * after, the modify's PSNs read in between.
 */
static void psn_one(struct ft_hw *hw, const void *ibqp, u32 qpn, u32 seq)
{
	struct rdma_restrack_entry *res;
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr;
	struct ft_hw_qp *h;
	struct ft_qp *qp;
	u32 sq, rq;

	res = rdma_restrack_get_byid(hw->dev->ibdev, RDMA_RESTRACK_QP, qpn);
	if (IS_ERR(res))
		return;
	if (container_of(res, struct ib_qp, res) != ibqp ||
	    ib_query_qp(container_of(res, struct ib_qp, res), &attr,
			IB_QP_STATE | IB_QP_SQ_PSN | IB_QP_RQ_PSN, &init) ||
	    attr.qp_state < IB_QPS_RTR || attr.qp_state > IB_QPS_SQE)
		goto out;
	/*
	 * A modify the probes missed bumps the count before it sets PSNs:
	 * PSNs read past one are not counted from (the next poll rebases).
	 */
	if (ft_hook_modify_missed() != hw->modify_missed)
		goto out;
	sq = attr.sq_psn & FT_PSN_MASK;
	rq = attr.rq_psn & FT_PSN_MASK;
	rcu_read_lock();
	qp = entry_of(hw->dev, ibqp, qpn);
	h = qp ? qp_hw(qp) : NULL;
	if (h) {
		/*
		 * The first read, and the first after a modify gave it new
		 * PSNs, count from those PSNs (the last request sent, the
		 * next one expected), when fabtrace saw them: a QP that moved
		 * all its traffic between two reads has it counted.  A QP
		 * back from a set counts from this read.
		 */
		u32 tx = READ_ONCE(qp->tx_req_psn), rx = READ_ONCE(qp->rx_req_psn);
		u32 sq0 = sq, rq0 = rq;

		smp_rmb();	/* the modify's PSNs, then their epochs */
		if (atomic_read(&qp->psn_seq) != seq)
			goto unlock;	/* a modify ran meanwhile: the next read counts */
		/* a modify missed since: any QP's PSNs may have been set anew */
		if (!h->rebase && h->psn_gen == hw->psn_gen) {
			u32 moved = h->psn_seq ^ seq;

			sq0 = psn_base(h->sq_psn, !(moved & FT_PSN_SEQ_SQS), tx, sq, 1);
			rq0 = psn_base(h->rq_psn, !(moved & FT_PSN_SEQ_RQS), rx, rq, 0);
			WRITE_ONCE(h->psn_tx, h->psn_tx + psn_forward(&sq0, sq));
			WRITE_ONCE(h->psn_rx, h->psn_rx + psn_forward(&rq0, rq));
		}
		h->rebase = false;
		h->psn_seq = seq;
		h->psn_gen = hw->psn_gen;
		WRITE_ONCE(h->sq_psn, sq0 | FT_PSN_VALID);
		WRITE_ONCE(h->rq_psn, rq0 | FT_PSN_VALID);
	}
unlock:
	rcu_read_unlock();
out:
	rdma_restrack_put(res);
}

/*
 * The connected RC QPs in no set, a batch at a time, each read outside
 * RCU.  A read is a command to the NIC's firmware on mlx5 (QUERY_QP), and
 * anyone may make QPs: a poll reads FT_HW_PSN_READS at most, from where
 * the last one stopped.  A QP not yet connected, or in error, is not read.
 */
static void read_psns(struct ft_hw *hw)
{
	struct { const void *ibqp; u32 qpn, seq; } batch[16];
	unsigned int i, n, steps, budget = FT_HW_PSN_READS;
	u32 start = max(hw->psn_key, 2u), key = start, end = U32_MAX, state, seq;
	struct ft_qp *qp;
	bool done;
	u64 missed;

	/* before any read: a modify missed after it is seen by the next poll */
	missed = ft_hook_modify_missed();
	if (missed != hw->modify_missed) {
		hw->modify_missed = missed;
		WRITE_ONCE(hw->psn_gen, hw->psn_gen + 1);
	}
	for (;;) {
		n = 0;
		done = false;
		rcu_read_lock();
		/* a few entries an RCU section: a user may hold a million in INIT */
		for (steps = 0; n < min_t(unsigned int, budget, ARRAY_SIZE(batch)) && steps < 256;
		     steps++, key++) {
			qp = ft_qp_next(hw->dev, &key, FT_KEY_PORTS - 1);
			if (!qp || key >= end) {
				done = true;
				break;
			}
			state = READ_ONCE(qp->state);
			/* its epochs, then the NIC's PSNs (life.c) */
			seq = atomic_read_acquire(&qp->psn_seq);
			if (!ft_qp_type_has_psn(qp->type) || !qp_hw(qp) ||
			    rcu_access_pointer(qp_hw(qp)->set) ||
			    state < IB_QPS_RTR || state > IB_QPS_SQE || (seq & FT_PSN_SEQ_BUSY))
				continue;
			batch[n].ibqp = qp->ibqp;
			batch[n].seq = seq;
			batch[n++].qpn = qp->qpn;
		}
		rcu_read_unlock();
		for (i = 0; i < n; i++)
			psn_one(hw, batch[i].ibqp, batch[i].qpn, batch[i].seq);
		budget -= n;
		if (READ_ONCE(hw->dying))
			return;
		cond_resched();
		if (done && (end != U32_MAX || start == 2)) {
			/* the whole table read: the next poll starts from its beginning */
			hw->psn_key = 2;
			return;
		}
		if (done) {
			/* the rest, from the beginning up to where this poll began */
			end = start;
			key = 2;
		} else if (!budget) {
			hw->psn_key = key;
			return;
		}
	}
}

/* --- the work ---------------------------------------------------------------------- */

static bool run_begin(struct ft_hw *hw)
{
	struct ft_dev *dev = hw->dev;
	bool ok;

	spin_lock(&hw->q_lock);
	/* the core holds the ib_device until every client is detached */
	ok = !hw->dying && ib_device_try_get(dev->ibdev);
	spin_unlock(&hw->q_lock);
	/* a run that does not begin drops its queued reference: maybe the last */
	if (!ok)
		ft_dev_unref(dev);
	return ok;
}

/*
 * The bind work runs again if more came meanwhile, and the poll every
 * hw_poll_ms, unless detached.  Then the run's references go: the last may
 * free @hw.
 */
static void run_end(struct ft_hw *hw, bool poll)
{
	struct ft_dev *dev = hw->dev;

	spin_lock(&hw->q_lock);
	if (poll) {
		if (!llist_empty(&hw->pending))
			queue_run(hw, false, 0);
		queue_run(hw, true, poll_jiffies());
	}
	spin_unlock(&hw->q_lock);
	ft_dev_put(dev);
}

/*
 * The QPs to bind, apart from the poll.  Which ports are theirs comes from
 * the poll: until its first run, binds wait for it (it queues this again).
 */
static void hw_bind_fn(struct work_struct *work)
{
	struct ft_hw *hw = container_of(work, struct ft_hw, bind_work);
	struct llist_node *todo;
	struct bind_req *r, *next;

	if (!run_begin(hw))
		return;
	mutex_lock(&hw->lock);
	if (hw->polled) {
		todo = llist_reverse_order(llist_del_all(&hw->pending));
		llist_for_each_entry_safe(r, next, todo, node) {
			bind_one(hw, r);
			kfree(r);
		}
	}
	mutex_unlock(&hw->lock);
	run_end(hw, false);
}

/* Every hw_poll_ms: the ports, the sets, the PSNs of the QPs in none. */
static void hw_work_fn(struct work_struct *work)
{
	struct ft_hw *hw = container_of(to_delayed_work(work), struct ft_hw, work);
	bool read, ports;
	u32 port;

	if (!run_begin(hw))
		return;
	mutex_lock(&hw->lock);
	/*
	 * nldev sums a port's counter over the sets in use, reading each
	 * from the NIC (a firmware command a set, a counter): with more than
	 * a few sets in use, the ports are read every FT_HW_PORT_EVERY polls.
	 */
	ports = hw->nsets <= FT_HW_PORT_SETS || !(hw->polls++ % FT_HW_PORT_EVERY);
	rdma_for_each_port(hw->dev->ibdev, port) {
		if (READ_ONCE(hw->dying))
			goto unlock;
		if (hw->sets) {
			read_mode(hw, port);
			hw->port[port].foreign = false;
		}
		if (hw->port_stats && ports)
			read_port(hw, port);
	}
	/*
	 * A port in auto mode, or with a set fabtrace did not make (an
	 * operator's `rdma statistic qp bind`), is someone else's: fabtrace
	 * binds nothing there, nor takes away the mode they chose.  Known
	 * before any bind: a dump that failed leaves it as it was.
	 */
	read = hw->sets && !READ_ONCE(hw->dying) && !read_sets(hw);
	if (read && hw->dump_whole)
		sets_left(hw);
	rdma_for_each_port(hw->dev->ibdev, port) {
		struct ft_hw_port *p = &hw->port[port];
		bool theirs = p->mode == RDMA_COUNTER_MODE_AUTO ||
			      (read ? p->foreign : p->theirs);

		/* read without the lock (nl-hw.c): one write, no false between */
		WRITE_ONCE(p->theirs, theirs);
	}
	hw->polled = true;
	if (!READ_ONCE(hw->dying))
		read_psns(hw);
unlock:
	mutex_unlock(&hw->lock);
	run_end(hw, true);
}

/* --- the part ------------------------------------------------------------------------ */

static int hw_dev_add(struct ft_dev *dev)
{
	const struct ib_device_ops *ops = &dev->ibdev->ops;
	u32 nports = rdma_end_port(dev->ibdev) + 1;
	struct ft_hw *hw;

	/* soft-RoCE's packets are tapped: exact, and no set to read */
	if (dev->hooked)
		return 0;
	hw = kvzalloc(struct_size(hw, port, nports), GFP_KERNEL);
	if (!hw)
		return -ENOMEM;
	hw->dev = dev;
	hw->nports = nports;
	memset(hw->ev_idx, -1, sizeof(hw->ev_idx));
	hw->sets = ops->counter_bind_qp && ops->counter_alloc_stats &&
		   ops->counter_update_stats;
	hw->port_stats = ops->alloc_hw_port_stats && ops->get_hw_stats;
	mutex_init(&hw->lock);
	spin_lock_init(&hw->q_lock);
	xa_init(&hw->set_xa);
	atomic_set(&hw->gone_seq, 0);
	init_llist_head(&hw->pending);
	INIT_WORK(&hw->bind_work, hw_bind_fn);
	INIT_DELAYED_WORK(&hw->work, hw_work_fn);
	dev->hw = hw;
	return 0;
}

static void hw_dev_attach(struct ft_dev *dev)
{
	if (!dev->hw)
		return;
	spin_lock(&dev->hw->q_lock);
	queue_run(dev->hw, true, 0);
	spin_unlock(&dev->hw->q_lock);
}

/*
 * Every live QP in a set of fabtrace's is unbound, as `rdma statistic qp
 * unbind` would: the core releases each set with its last QP, and the
 * port, once it has none, leaves manual mode for its operator to choose.
 * Context: hw->lock.
 */
static void unbind_ours(struct ft_hw *hw)
{
	struct { u32 qpn, port, id; } batch[16];
	const struct ft_hw_set *set;
	const struct ft_hw_qp *h;
	unsigned int i, n, done = 0;
	struct ft_qp *qp;
	u32 key = 2;

	do {
		n = 0;
		rcu_read_lock();
		for (; n < ARRAY_SIZE(batch); key++) {
			qp = ft_qp_next(hw->dev, &key, FT_KEY_PORTS - 1);
			if (!qp)
				break;
			h = qp_hw(qp);
			set = h ? rcu_dereference(h->set) : NULL;
			if (!set || !set->ours || READ_ONCE(set->gone))
				continue;
			batch[n].qpn = qp->qpn;
			batch[n].port = set->port;
			batch[n++].id = set->id;
		}
		rcu_read_unlock();
		for (i = 0; i < n; i++)
			if (!unbind(hw, batch[i].port, batch[i].qpn, batch[i].id))
				done++;
		cond_resched();
	} while (n == ARRAY_SIZE(batch));
	if (done)
		pr_debug("%s: %u QPs unbound from fabtrace's counter sets\n",
			 dev_name(&hw->dev->ibdev->dev), done);
}

/*
 * fabtrace unloads, the device stays: every QP it bound is unbound, and
 * nothing runs again (the client's removal then detaches the device).
 * From the unloading task, which holds no lock of nldev's.
 */
static void hw_dev_unload(struct ft_dev *dev)
{
	struct ft_hw *hw = dev->hw;

	if (!hw)
		return;
	/* the binds stop first: no QP they bind stays bound */
	mutex_lock(&hw->lock);
	spin_lock(&hw->q_lock);
	WRITE_ONCE(hw->dying, true);
	spin_unlock(&hw->q_lock);
	if (hw->sets)
		unbind_ours(hw);
	mutex_unlock(&hw->lock);
}

/*
 * Before the device's ports and restrack go: no run of the poll or the
 * binds starts after this, and none is waited for.  A device that goes
 * takes its QPs and their sets with it: nothing to unbind.  Its removal
 * may run inside nldev (`rdma link delete`, a namespace move), holding its
 * lock for reading, which a run takes too for each request it sends;
 * waiting for one here would close a cycle lockdep rightly reports.  A
 * run that began holds the ib_device, which the core waits for, and
 * fabtrace's entry, whose last reference frees this.
 */
static void hw_dev_detach(struct ft_dev *dev)
{
	struct ft_hw *hw = dev->hw;

	if (!hw)
		return;
	spin_lock(&hw->q_lock);
	WRITE_ONCE(hw->dying, true);
	spin_unlock(&hw->q_lock);
	/*
	 * Nothing queues them now: a pending run goes, with its reference
	 * (never the last: the caller holds the device list's); one that
	 * runs ends by itself.
	 */
	if (cancel_delayed_work(&hw->work))
		ft_dev_unref(dev);
	if (cancel_work(&hw->bind_work))
		ft_dev_unref(dev);
}

/* No run is left, nor queued: each held a reference. */
static void hw_dev_free(struct ft_dev *dev)
{
	struct ft_hw *hw = dev->hw;
	struct bind_req *r, *next;
	struct ft_hw_set *set;
	unsigned long id;

	if (!hw)
		return;
	llist_for_each_entry_safe(r, next, llist_del_all(&hw->pending), node)
		kfree(r);
	xa_for_each(&hw->set_xa, id, set)
		set_put(set);
	xa_destroy(&hw->set_xa);
	kvfree(hw);
}

/* A hardware NIC's counters: its sets, its ports' and its QPs' PSNs. */
const struct ft_dev_part ft_hw_part = {
	.name = "hardware counters",
	.add = hw_dev_add,
	.attach = hw_dev_attach,
	.unload = hw_dev_unload,
	.detach = hw_dev_detach,
	.free = hw_dev_free,
	.qp_added = hw_qp_added,
	.qp_moved = hw_qp_moved,
	.qp_freed = hw_qp_freed,
};

int ft_hw_init(void)
{
	int err;

	ft_hw_wq = alloc_workqueue("fabtrace_hw", WQ_UNBOUND, 0);
	if (!ft_hw_wq)
		return -ENOMEM;
	err = ft_nldev_init();
	if (err)
		goto err_destroy_wq;
	return 0;

err_destroy_wq:
	destroy_workqueue(ft_hw_wq);
	return err;
}

/* After the devices were detached: the runs left end, and their references with them. */
void ft_hw_exit(void)
{
	destroy_workqueue(ft_hw_wq);
	ft_nldev_exit();
}
