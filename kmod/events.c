// SPDX-License-Identifier: GPL-2.0
/* Events of every kind: raised here, rate limited, queued and handed to netlink. */

#include <linux/jiffies.h>
#include <linux/moduleparam.h>
#include <linux/pid.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "dev.h"
#include "events.h"

struct ft_ev_stats ft_ev_stats;

static unsigned int ev_rate = 1000;
module_param_named(event_rate, ev_rate, uint, 0644);
MODULE_PARM_DESC(event_rate, "events sent per second at most, over all QPs (default 1000)");
static unsigned int ev_qp_interval_ms = 100;
module_param_named(event_qp_interval_ms, ev_qp_interval_ms, uint, 0644);
MODULE_PARM_DESC(event_qp_interval_ms, "least time between two congestion events of one QP (default 100)");
static unsigned int ev_quiet_ms = 1000;
module_param_named(event_quiet_ms, ev_quiet_ms, uint, 0644);
MODULE_PARM_DESC(event_quiet_ms, "quiet time after which a congestion signal is an onset (default 1000)");

#define FT_EV_RING	512

/*
 * Events are rare next to packets (onsets, not every mark), so one
 * spinlock-protected ring is simpler than per-CPU rings and costs nothing
 * on the packet path; rate limiting is counted under the same lock, which
 * keeps the dropped count exact.  Every kind goes through it, in the order
 * raised, and one worker sends them: a listener sees policy changes in the
 * order they were made, and a gap in the sequence numbers only for what it
 * missed.
 */
static DEFINE_SPINLOCK(ring_lock);
static struct ft_event *ring;
static unsigned int ring_head, ring_tail;	/* head == tail: empty */
static unsigned long win_start;
static unsigned int win_count;
static u64 dropped_reported;
/*
 * Events are queued only while there is a transport, the netlink family:
 * it is registered after the ring exists and unregistered before it goes,
 * and nothing queues the worker once this is false (ft_events_close()).
 * Under ring_lock.
 */
static bool ev_open;
/* The transport, given while open: netlink's (ft_events_open()). */
static int (*ev_send)(const struct ft_event *e);

static void ev_work_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(ev_work, ev_work_fn);

/*
 * An event that does not make it must still be reported, even when no
 * later event comes to carry the news: the worker runs a second after the
 * first one withheld and sends the dropped count.  A plain read first, so a
 * storm of withheld events costs no atomic operation on a shared line.
 */
static void ev_withheld(atomic64_t *counter)
{
	unsigned long flags;

	atomic64_inc(counter);
	if (delayed_work_pending(&ev_work) || !READ_ONCE(ev_open))
		return;
	spin_lock_irqsave(&ring_lock, flags);
	if (ev_open)
		queue_delayed_work(system_wq, &ev_work, HZ);
	spin_unlock_irqrestore(&ring_lock, flags);
}

/* One more withheld event of @qp, racing other CPUs; saturates. */
static void ev_qp_withheld(struct ft_qp *qp)
{
	u16 old = READ_ONCE(qp->ev_suppressed);

	do {
		if (old == U16_MAX)
			return;
	} while (!try_cmpxchg(&qp->ev_suppressed, &old, old + 1));
}

/* Did @qp have an event less than the per-QP interval before @now? */
static bool ev_qp_recent(const struct ft_qp *qp, unsigned long now)
{
	u32 last = READ_ONCE(qp->ev_last);

	return last && (u32)now - last <
	       (u32)msecs_to_jiffies(READ_ONCE(ev_qp_interval_ms));
}

static bool ev_kind_per_qp_limited(unsigned int kind)
{
	switch (kind) {
	case FABTRACE_EVENT_KIND_QP_CREATE:
	case FABTRACE_EVENT_KIND_QP_DESTROY:
	case FABTRACE_EVENT_KIND_QP_ERROR:
	case FABTRACE_EVENT_KIND_RETRY_EXHAUSTED:
	case FABTRACE_EVENT_KIND_MISCONFIGURED:
		return false;
	default:
		return true;
	}
}

/* The QP's part of an event; its final counters if the device is tapped. */
static void ev_fill_qp(struct ft_event *e, const struct ft_dev *dev,
		       const struct ft_qp *qp)
{
	e->has_qp = true;
	e->qpn = qp->qpn;
	e->rqpn = qp->rqpn;
	e->pid = qp->owner ? pid_nr(qp->owner) : 0;
	memcpy(e->comm, qp->comm, sizeof(e->comm));
	memcpy(e->peer, qp->peer, sizeof(e->peer));
	e->has_snap = dev->hooked && (e->kind == FABTRACE_EVENT_KIND_QP_DESTROY ||
				      e->kind == FABTRACE_EVENT_KIND_QP_ERROR);
	if (e->has_snap)
		ft_snap_take(qp, &e->snap);
}

/*
 * Queue an event of @kind on @dev: of @qp if not NULL (limited per QP for
 * the congestion kinds), then @fill writes its own part, if given.  The
 * entry is written in place, under the lock: a QP's final counters are too
 * large for a tap's stack.  Context: any but NMI.
 */
static void ev_queue(const struct ft_dev *dev, struct ft_qp *qp,
		     unsigned int kind, u64 count,
		     void (*fill)(struct ft_event *e, const void *arg),
		     const void *arg)
{
	bool per_qp = qp && ev_kind_per_qp_limited(kind);
	unsigned long flags, now = jiffies;
	struct ft_event *e;
	unsigned int next;

	/* a plain read first: a storm of withheld events takes no lock */
	if (per_qp && ev_qp_recent(qp, now))
		goto withheld_qp;

	spin_lock_irqsave(&ring_lock, flags);
	if (!ev_open) {
		/* no family, so no listener: nobody misses it */
		spin_unlock_irqrestore(&ring_lock, flags);
		return;
	}
	/*
	 * Again under the lock, which orders this QP's event senders, with
	 * the time read under it too: an older one would make a newer
	 * ev_last look far away.
	 */
	now = jiffies;
	if (per_qp && ev_qp_recent(qp, now)) {
		spin_unlock_irqrestore(&ring_lock, flags);
		goto withheld_qp;
	}
	if (time_after_eq(now, win_start + HZ)) {
		win_start = now;
		win_count = 0;
	}
	if (win_count >= READ_ONCE(ev_rate)) {
		spin_unlock_irqrestore(&ring_lock, flags);
		ev_withheld(&ft_ev_stats.suppressed);
		return;
	}
	next = (ring_head + 1) % FT_EV_RING;
	if (next == ring_tail) {
		spin_unlock_irqrestore(&ring_lock, flags);
		ev_withheld(&ft_ev_stats.lost);
		return;
	}
	win_count++;
	e = &ring[ring_head];
	memset(e, 0, offsetof(struct ft_event, snap));
	e->time = ktime_get_ns();
	e->kind = kind;
	e->count = count;
	e->dev_index = dev->index;
	memcpy(e->dev_name, dev->name, sizeof(e->dev_name));
	e->dev_name[sizeof(e->dev_name) - 1] = '\0';
	if (per_qp) {
		e->suppressed = xchg(&qp->ev_suppressed, 0);
		/* 0 means "never": keep a real jiffy value away from it */
		WRITE_ONCE(qp->ev_last, (u32)now ?: 1);
	}
	if (qp)
		ev_fill_qp(e, dev, qp);
	if (fill)
		fill(e, arg);
	ring_head = next;
	mod_delayed_work(system_wq, &ev_work, 0);
	spin_unlock_irqrestore(&ring_lock, flags);
	return;

withheld_qp:
	ev_qp_withheld(qp);
	ev_withheld(&ft_ev_stats.suppressed);
}

/**
 * ft_event_qp() - report a lifecycle or timer event of @qp
 * @dev: its device
 * @qp: the entry
 * @kind: enum fabtrace_event_kind
 */
void ft_event_qp(const struct ft_dev *dev, struct ft_qp *qp, unsigned int kind)
{
	u64 count = 0;

	switch (kind) {
	case FABTRACE_EVENT_KIND_TIMEOUT:
		count = (u32)atomic_read(&qp->cong.timeouts);
		break;
	case FABTRACE_EVENT_KIND_RNR_TIMEOUT:
		count = (u32)atomic_read(&qp->cong.rnr_timeouts);
		break;
	case FABTRACE_EVENT_KIND_RETRY_EXHAUSTED:
		count = atomic_read(&qp->cong.retry_exh);
		break;
	case FABTRACE_EVENT_KIND_QP_ERROR:
		count = atomic_read(&qp->cong.errors);
		break;
	}
	ev_queue(dev, qp, kind, count, NULL, NULL);
}

/**
 * ft_event_hw() - a hardware NIC's counters of a QP began to move
 * @dev: its device
 * @qp: the entry, alone in its counter set
 * @kind: FABTRACE_EVENT_KIND_NAK, _RETRANSMIT, _TIMEOUT or _RETRY_EXHAUSTED
 * @count: what the set counts of it now
 *
 * The poll that reads the set decides the onset (hw.c); the event is
 * limited per QP and in all as a packet's are.  Context: RCU read side.
 */
void ft_event_hw(const struct ft_dev *dev, struct ft_qp *qp, unsigned int kind, u64 count)
{
	ev_queue(dev, qp, kind, count, NULL, NULL);
}

/**
 * ft_event_note() - stamp the congestion signals a packet carried
 * @dev: its device
 * @qp: the entry
 * @ev: FT_EV_* mask from ft_acct_tx() or ft_acct_rx()
 *
 * The first signal of a kind after event_quiet_ms without one is an onset,
 * and becomes an event.
 */
void ft_event_note(const struct ft_dev *dev, struct ft_qp *qp, unsigned int ev)
{
	static const struct {
		unsigned int ev, last, kind;
	} map[] = {
		{ FT_EV_CE, FT_LAST_CE, FABTRACE_EVENT_KIND_CE },
		{ FT_EV_CNP, FT_LAST_CNP, FABTRACE_EVENT_KIND_CNP },
		{ FT_EV_NAK, FT_LAST_NAK, FABTRACE_EVENT_KIND_NAK },
		{ FT_EV_RETRANS, FT_LAST_RETRANS, FABTRACE_EVENT_KIND_RETRANSMIT },
	};
	u64 now = ktime_get_ns(), quiet, prev, count;
	unsigned int i;

	quiet = (u64)READ_ONCE(ev_quiet_ms) * NSEC_PER_MSEC;
	for (i = 0; i < ARRAY_SIZE(map); i++) {
		if (!(ev & map[i].ev))
			continue;
		prev = READ_ONCE(qp->cong.last[map[i].last]);
		WRITE_ONCE(qp->cong.last[map[i].last], now);
		if (prev && now - prev < quiet)
			continue;
		switch (map[i].ev) {
		case FT_EV_CE:
			count = atomic64_read(&qp->cong.rx_ce);
			break;
		case FT_EV_CNP:
			count = atomic64_read(&qp->dir_rx.pkts[FT_CLS_CNP]) +
				atomic64_read(&qp->dir_tx.pkts[FT_CLS_CNP]);
			break;
		case FT_EV_NAK:
			count = ft_dir_naks(&qp->dir_rx) +
				ft_dir_naks(&qp->dir_tx);
			break;
		default:
			count = atomic64_read(&qp->cong.retrans);
			break;
		}
		ev_queue(dev, qp, map[i].kind, count, NULL, NULL);
	}
}

struct storm_arg {
	u32 port, prio, qps;
	u64 duration;
	u32 link_ifindex;
	const char *link;
};

static void fill_storm(struct ft_event *e, const void *arg)
{
	const struct storm_arg *a = arg;

	e->storm.port = a->port;
	e->storm.prio = a->prio;
	e->storm.qps = a->qps;
	e->storm.duration = a->duration;
	e->storm.link_ifindex = a->link_ifindex;
	strscpy(e->storm.link, a->link, sizeof(e->storm.link));
}

/**
 * ft_event_storm() - a PFC storm started or ended on a port's priority
 * @dev: the device
 * @kind: FABTRACE_EVENT_KIND_STORM_START or _END
 * @port: its port
 * @prio: the priority
 * @duration: ns paused so far (start) or in all (end)
 * @qps: live QPs of @port with @prio
 * @link_ifindex: the ifindex of the port's link (pfc.c) whose priority it
 *	is; 0 to name none
 * @link: and its name
 */
void ft_event_storm(const struct ft_dev *dev, u32 kind, u32 port, u32 prio,
		    u64 duration, u32 qps, u32 link_ifindex, const char *link)
{
	const struct storm_arg a = { port, prio, qps, duration, link_ifindex, link };

	ev_queue(dev, NULL, kind, 0, fill_storm, &a);
}

struct policy_arg {
	u32 port;
	const struct ft_port_policy *old, *new;
	const struct ft_dcb_hw *hw;
};

static void fill_policy(struct ft_event *e, const void *arg)
{
	const struct policy_arg *a = arg;

	e->policy.port = a->port;
	e->policy.old = *a->old;
	e->policy.new = *a->new;
}

/**
 * ft_event_policy() - a port's policy changed
 * @dev: the device
 * @port: its port
 * @old: the values before
 * @new: and after
 *
 * Context: under the policy lock, so that events come in the order of the
 * changes.
 */
void ft_event_policy(const struct ft_dev *dev, u32 port,
		     const struct ft_port_policy *old,
		     const struct ft_port_policy *new)
{
	const struct policy_arg a = { .port = port, .old = old, .new = new };

	ev_queue(dev, NULL, FABTRACE_EVENT_KIND_POLICY_CHANGE, 0, fill_policy, &a);
}

static void fill_drift(struct ft_event *e, const void *arg)
{
	const struct policy_arg *a = arg;

	e->drift.port = a->port;
	e->drift.p = *a->new;
	e->drift.hw = *a->hw;
}

/**
 * ft_event_drift() - a port's hardware no longer reports its policy, or again does
 * @dev: the device
 * @port: its port
 * @p: the policy
 * @hw: what the hardware reports
 */
void ft_event_drift(const struct ft_dev *dev, u32 port,
		    const struct ft_port_policy *p, const struct ft_dcb_hw *hw)
{
	const struct policy_arg a = { .port = port, .new = p, .hw = hw };

	ev_queue(dev, NULL, FABTRACE_EVENT_KIND_POLICY_DRIFT, 0, fill_drift, &a);
}

static bool ev_pop(struct ft_event *e)
{
	bool ok = false;

	spin_lock_irq(&ring_lock);
	if (ring_tail != ring_head) {
		*e = ring[ring_tail];
		ring_tail = (ring_tail + 1) % FT_EV_RING;
		ok = true;
	}
	spin_unlock_irq(&ring_lock);
	return ok;
}

/* Count what became of an event: the transport's return value. */
static void ev_count(int err)
{
	if (err > 0)
		atomic64_inc(&ft_ev_stats.sent);
	else if (err < 0)
		atomic64_inc(&ft_ev_stats.lost);
}

static void ev_work_fn(struct work_struct *work)
{
	/* the work never runs twice at once: one buffer, never failing */
	static struct ft_event buf;
	struct ft_event *e = &buf;
	u64 dropped;

	while (ev_pop(e)) {
		ev_count(ev_send(e));
		cond_resched();
	}

	/* Say how many events never made it, so none is lost silently. */
	dropped = atomic64_read(&ft_ev_stats.suppressed) +
		  atomic64_read(&ft_ev_stats.lost);
	if (dropped != dropped_reported) {
		memset(e, 0, sizeof(*e));
		e->kind = FABTRACE_EVENT_KIND_DROPPED;
		e->time = ktime_get_ns();
		e->count = dropped - dropped_reported;
		if (ev_send(e) >= 0)
			dropped_reported = dropped;
	}
}

#ifdef CONFIG_FABTRACE_BENCH
/*
 * For make bench: what an event costs when rate limiting withholds it, and
 * when it is queued and sent, on a dummy QP.  Its events count in the
 * statistics.
 */
void ft_events_bench(unsigned int n, u64 *withheld_ns, u64 *sent_ns)
{
	static struct ft_dev bench_dev = { .name = "bench" };
	unsigned int i, batch;
	struct ft_qp *qp;
	u64 t0;

	qp = kzalloc(sizeof(*qp), GFP_KERNEL);
	if (!qp)
		return;
	strscpy(qp->comm, "bench", sizeof(qp->comm));

	/* a congestion event of a QP that just had one: withheld */
	WRITE_ONCE(qp->ev_last, (u32)jiffies ?: 1);
	t0 = ktime_get_ns();
	for (i = 0; i < n; i++)
		ev_queue(&bench_dev, qp, FABTRACE_EVENT_KIND_TIMEOUT, i, NULL, NULL);
	*withheld_ns = div_u64(ktime_get_ns() - t0, n);

	/*
	 * Lifecycle events are not limited per QP; queue them in batches that
	 * fit the ring and the global limit, each waited for until sent.
	 */
	batch = min_t(unsigned int, FT_EV_RING / 2, READ_ONCE(ev_rate) ?: 1);
	t0 = ktime_get_ns();
	for (i = 0; i < n;) {
		unsigned int end = min(n, i + batch);

		spin_lock_irq(&ring_lock);
		win_count = 0;
		spin_unlock_irq(&ring_lock);
		for (; i < end; i++)
			ev_queue(&bench_dev, qp, FABTRACE_EVENT_KIND_QP_CREATE, i,
				 NULL, NULL);
		flush_delayed_work(&ev_work);
	}
	*sent_ns = div_u64(ktime_get_ns() - t0, n);
	kfree(qp);
}
#endif /* CONFIG_FABTRACE_BENCH */

int ft_events_init(void)
{
	ring = kvcalloc(FT_EV_RING, sizeof(*ring), GFP_KERNEL);
	if (!ring)
		return -ENOMEM;
	win_start = jiffies;
	return 0;
}

/**
 * ft_events_open() - send events from now on
 * @send: how: 1 if sent, 0 if nobody listens, or -errno (then counted lost)
 */
void ft_events_open(int (*send)(const struct ft_event *e))
{
	spin_lock_irq(&ring_lock);
	ev_send = send;
	ev_open = true;
	spin_unlock_irq(&ring_lock);
}

/*
 * The module is closing: nothing is queued from here on, and the worker
 * sends what the ring holds (the final counters of QPs destroyed during
 * the teardown among them) and the dropped count, once, before the family
 * goes (main.c).  Raisers (the taps, the PFC watchdog, the DCB worker, a
 * policy-set) go on for a while and find the ring closed.
 */
void ft_events_close(void)
{
	spin_lock_irq(&ring_lock);
	ev_open = false;
	spin_unlock_irq(&ring_lock);
	/* nothing queues it again: run it now, wait for it */
	flush_delayed_work(&ev_work);
}

/* Context: ft_events_close() ran, and no raiser is left. */
void ft_events_exit(void)
{
	kvfree(ring);
	ring = NULL;
}
