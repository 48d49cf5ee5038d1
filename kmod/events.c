// SPDX-License-Identifier: GPL-2.0
/* QP lifecycle and congestion events: rate limiting and queueing. */

#include <linux/jiffies.h>
#include <linux/pid.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "dev.h"
#include "events.h"
#include "netlink.h"

struct ft_ev_stats ft_ev_stats;
unsigned int ft_ev_rate = 1000;		/* events per second, all QPs */
unsigned int ft_ev_qp_interval_ms = 100;	/* per QP, congestion kinds */
unsigned int ft_ev_quiet_ms = 1000;	/* what makes a signal an onset */

#define FT_EV_RING	512

/*
 * Events are rare next to packets (onsets, not every mark), so one
 * spinlock-protected ring is simpler than per-CPU rings and costs nothing
 * on the packet path; rate limiting is counted under the same lock, which
 * keeps the dropped count exact.
 */
static DEFINE_SPINLOCK(ring_lock);
static struct ft_event *ring;
static unsigned int ring_head, ring_tail;	/* head == tail: empty */
static unsigned long win_start;
static unsigned int win_count;
static u64 dropped_reported;

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
	atomic64_inc(counter);
	if (!delayed_work_pending(&ev_work))
		queue_delayed_work(system_wq, &ev_work, HZ);
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
	       (u32)msecs_to_jiffies(READ_ONCE(ft_ev_qp_interval_ms));
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

static void ev_fill(struct ft_event *e, const struct ft_dev *dev,
		    const struct ft_qp *qp, unsigned int kind, u64 count,
		    u64 suppressed)
{
	e->time = ktime_get_ns();
	e->kind = kind;
	e->count = count;
	e->suppressed = suppressed;
	e->dev_index = dev->index;
	e->qpn = qp->qpn;
	e->rqpn = qp->rqpn;
	e->pid = qp->owner ? pid_nr(qp->owner) : 0;
	memcpy(e->dev_name, dev->name, sizeof(e->dev_name));
	e->dev_name[sizeof(e->dev_name) - 1] = '\0';
	memcpy(e->comm, qp->comm, sizeof(e->comm));
	memcpy(e->peer, qp->peer, sizeof(e->peer));
	e->has_snap = kind == FABTRACE_EVENT_KIND_QP_DESTROY ||
		      kind == FABTRACE_EVENT_KIND_QP_ERROR;
	if (e->has_snap)
		ft_snap_take(qp, &e->snap);
}

static void ev_queue(const struct ft_dev *dev, struct ft_qp *qp,
		     unsigned int kind, u64 count)
{
	bool per_qp = ev_kind_per_qp_limited(kind);
	unsigned long flags, now = jiffies;
	unsigned int next;
	u64 suppressed = 0;

	/* a plain read first: a storm of withheld events takes no lock */
	if (per_qp && ev_qp_recent(qp, now))
		goto withheld_qp;

	spin_lock_irqsave(&ring_lock, flags);
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
	if (win_count >= READ_ONCE(ft_ev_rate)) {
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
	if (per_qp) {
		suppressed = xchg(&qp->ev_suppressed, 0);
		/* 0 means "never": keep a real jiffy value away from it */
		WRITE_ONCE(qp->ev_last, (u32)now ?: 1);
	}
	ev_fill(&ring[ring_head], dev, qp, kind, count, suppressed);
	ring_head = next;
	spin_unlock_irqrestore(&ring_lock, flags);
	mod_delayed_work(system_wq, &ev_work, 0);
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
		count = atomic64_read(&qp->cong.timeouts);
		break;
	case FABTRACE_EVENT_KIND_RNR_TIMEOUT:
		count = atomic64_read(&qp->cong.rnr_timeouts);
		break;
	case FABTRACE_EVENT_KIND_RETRY_EXHAUSTED:
		count = atomic_read(&qp->cong.retry_exh);
		break;
	case FABTRACE_EVENT_KIND_QP_ERROR:
		count = atomic_read(&qp->cong.errors);
		break;
	}
	ev_queue(dev, qp, kind, count);
}

/**
 * ft_event_note() - stamp the congestion signals a packet carried
 * @dev: its device
 * @qp: the entry
 * @ev: FT_EV_* mask from ft_acct_tx() or ft_acct_rx()
 *
 * The first signal of a kind after ft_ev_quiet_ms without one is an onset,
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

	quiet = (u64)READ_ONCE(ft_ev_quiet_ms) * NSEC_PER_MSEC;
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
		ev_queue(dev, qp, map[i].kind, count);
	}
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

static void ev_work_fn(struct work_struct *work)
{
	struct ft_event *e;
	u64 dropped;

	e = kmalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return;
	while (ev_pop(e)) {
		ft_nl_count_event(ft_nl_notify(e));
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
		if (ft_nl_notify(e) >= 0)
			dropped_reported = dropped;
	}
	kfree(e);
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
		ev_queue(&bench_dev, qp, FABTRACE_EVENT_KIND_TIMEOUT, i);
	*withheld_ns = div_u64(ktime_get_ns() - t0, n);

	/*
	 * Lifecycle events are not limited per QP; queue them in batches that
	 * fit the ring and the global limit, each waited for until sent.
	 */
	batch = min_t(unsigned int, FT_EV_RING / 2, READ_ONCE(ft_ev_rate) ?: 1);
	t0 = ktime_get_ns();
	for (i = 0; i < n;) {
		unsigned int end = min(n, i + batch);

		spin_lock_irq(&ring_lock);
		win_count = 0;
		spin_unlock_irq(&ring_lock);
		for (; i < end; i++)
			ev_queue(&bench_dev, qp, FABTRACE_EVENT_KIND_QP_CREATE, i);
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

void ft_events_exit(void)
{
	cancel_delayed_work_sync(&ev_work);
	kvfree(ring);
	ring = NULL;
}
