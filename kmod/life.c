// SPDX-License-Identifier: GPL-2.0
/* QP lifecycle hooks: create, modify, error, timers, failed completions. */

#include <linux/kallsyms.h>
#include <linux/string.h>
#include <linux/timer.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_counter.h>
#include <rdma/restrack.h>

#include "compat.h"
#include "dev.h"
#include "events.h"
#include "hw.h"
#include "life.h"
#include "qp.h"

/* Find the live entry of an ib_qp, and its device.  Context: RCU read side. */
static struct ft_qp *entry_of(const struct ib_qp *ibqp, struct ft_dev **devp)
{
	*devp = ft_dev_of(ibqp->device);
	return *devp ? ft_qp_of(*devp, ibqp) : NULL;
}

/* --- timers -------------------------------------------------------------- */

/*
 * rxe's timer callbacks receive the timer_list inside struct rxe_qp, whose
 * layout is private to rxe.  Its offsets are learnt from the first rxe QP
 * fabtrace sees: the words of the QP that point to the start of
 * retransmit_timer() and rnr_nak_timer() are the function fields of those
 * two timers.  Until then (or if that fails) the timer hooks count nothing.
 */
static long retrans_off = -1, rnr_off = -1;

static void learn_timer_offsets(const struct ib_qp *ibqp)
{
	const unsigned long *word = (const unsigned long *)ibqp;
	/*
	 * The driver's QP object, as ib_core allocated it (rdma_zalloc_drv_obj),
	 * not ksize(), whose slack past the object KASAN rightly reports.
	 */
	size_t i, n = min_t(size_t, ibqp->device->ops.size_ib_qp, 8192) / sizeof(*word);
	long fn = offsetof(struct timer_list, function);
	char sym[KSYM_SYMBOL_LEN];

	for (i = 0; i < n && (READ_ONCE(retrans_off) < 0 || READ_ONCE(rnr_off) < 0); i++) {
		if (word[i] < MODULES_VADDR || word[i] >= MODULES_END)
			continue;
		sprint_symbol(sym, word[i]);
		if (str_has_prefix(sym, "retransmit_timer+0x0/"))
			WRITE_ONCE(retrans_off, i * sizeof(*word) - fn);
		else if (str_has_prefix(sym, "rnr_nak_timer+0x0/"))
			WRITE_ONCE(rnr_off, i * sizeof(*word) - fn);
	}
}

/* rxe is gone; a new one may be a different build. */
void ft_life_rxe_gone(void)
{
	WRITE_ONCE(retrans_off, -1);
	WRITE_ONCE(rnr_off, -1);
}

static struct ft_qp *entry_of_timer(const void *timer, long off,
				    struct ft_dev **devp)
{
	if (off < 0)
		return NULL;
	return entry_of((const struct ib_qp *)(timer - off), devp);
}

/* retransmit_timer(struct timer_list *t) */
void notrace ft_life_retrans_timer(unsigned long ip, unsigned long parent_ip,
				   struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct ft_dev *dev;
	struct ft_qp *qp;

	rcu_read_lock();
	qp = entry_of_timer((void *)ft_arg(fregs, 0), READ_ONCE(retrans_off), &dev);
	/* rxe lets its timer run out when all is acknowledged: not a timeout */
	if (qp && ft_acct_outstanding(qp)) {
		atomic_inc(&qp->cong.timeouts);
		WRITE_ONCE(qp->cong.last[FT_LAST_TIMEOUT], ktime_get_ns());
		ft_event_qp(dev, qp, FABTRACE_EVENT_KIND_TIMEOUT);
	}
	rcu_read_unlock();
}

/* rnr_nak_timer(struct timer_list *t) */
void notrace ft_life_rnr_timer(unsigned long ip, unsigned long parent_ip,
			       struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct ft_dev *dev;
	struct ft_qp *qp;

	rcu_read_lock();
	qp = entry_of_timer((void *)ft_arg(fregs, 0), READ_ONCE(rnr_off), &dev);
	if (qp) {
		atomic_inc(&qp->cong.rnr_timeouts);
		WRITE_ONCE(qp->cong.last[FT_LAST_RNR_TIMEOUT], ktime_get_ns());
		ft_event_qp(dev, qp, FABTRACE_EVENT_KIND_RNR_TIMEOUT);
	}
	rcu_read_unlock();
}

/* --- create and destroy -------------------------------------------------- */

/*
 * Start the entry of a new QP.  Return whether its device is known, and
 * in *@hw whether it is a hardware NIC's.
 */
static bool qp_added(struct ib_qp *ibqp, bool *hw)
{
	struct ft_dev *dev;

	rcu_read_lock();
	dev = ft_dev_of(ibqp->device);
	*hw = dev && dev->hw;
	if (dev) {
		ft_qp_created(dev, ibqp);
		if (dev->hooked && (READ_ONCE(retrans_off) < 0 || READ_ONCE(rnr_off) < 0))
			learn_timer_offsets(ibqp);
	}
	rcu_read_unlock();
	return dev;
}

/*
 * rdma_restrack_add(res), by a kretprobe: the QP is complete, its creator
 * not yet told.  A QP whose device is known is added at the entry, and the
 * instance given back at once.  One whose device is not yet known (it is
 * being discovered) is looked at again at the return, when the QP is in
 * the device's restrack, which the discovery walks after publishing the
 * device (dev.c): one or the other adds it, never neither.  A hardware
 * NIC's QP is looked at again at the return too: only then can nldev find
 * it, to bind it to a counter set (hw.c).
 */
int ft_life_add_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct rdma_restrack_entry *res = (void *)regs_get_kernel_argument(regs, 0);
	struct ib_qp *ibqp = container_of(res, struct ib_qp, res);
	bool hw;

	if (res->type != RDMA_RESTRACK_QP)
		return 1;
	*(struct ib_qp **)ri->data = ibqp;
	/* non-zero: no return handler for this call */
	return qp_added(ibqp, &hw) && !hw;
}

int ft_life_add_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct ib_qp *ibqp = *(struct ib_qp **)ri->data;
	struct ft_dev *dev;
	struct ft_qp *qp;
	bool found, hw;

	/* the discovery may have added it meanwhile: count nothing twice */
	rcu_read_lock();
	dev = ft_dev_of(ibqp->device);
	found = dev && ft_qp_of(dev, ibqp);
	rcu_read_unlock();
	if (!found)
		qp_added(ibqp, &hw);
	rcu_read_lock();
	dev = ft_dev_of(ibqp->device);
	qp = dev ? ft_qp_of(dev, ibqp) : NULL;
	if (qp)
		ft_hw_qp_ready(dev, qp);
	rcu_read_unlock();
	return 0;
}

/* rdma_restrack_commit_del(res), rdma_restrack_del(res): a QP, or a counter set, is gone. */
void notrace ft_life_del(unsigned long ip, unsigned long parent_ip,
			 struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct rdma_restrack_entry *res = (void *)ft_arg(fregs, 0);
	struct rdma_counter *counter;
	struct ib_qp *ibqp;
	struct ft_dev *dev;

	/* a counter set released: its final values, just read */
	if (res->type == RDMA_RESTRACK_COUNTER) {
		counter = container_of(res, struct rdma_counter, res);
		rcu_read_lock();
		dev = ft_dev_of(counter->device);
		if (dev)
			ft_hw_counter_gone(dev, counter);
		rcu_read_unlock();
		return;
	}
	if (res->type != RDMA_RESTRACK_QP)
		return;
	ibqp = container_of(res, struct ib_qp, res);
	rcu_read_lock();
	dev = ft_dev_of(ibqp->device);
	if (dev)
		ft_qp_destroyed(dev, ibqp);
	rcu_read_unlock();
}

/* --- state --------------------------------------------------------------- */

static void entered_error(const struct ft_dev *dev, struct ft_qp *qp)
{
	if (xchg(&qp->state, IB_QPS_ERR) == IB_QPS_ERR)
		return;
	atomic_inc(&qp->cong.errors);
	ft_event_qp(dev, qp, FABTRACE_EVENT_KIND_QP_ERROR);
}

/* rxe_qp_error(qp): rxe moves a QP to the error state on its own. */
void notrace ft_life_qp_error(unsigned long ip, unsigned long parent_ip,
			      struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct ft_dev *dev;
	struct ft_qp *qp;

	rcu_read_lock();
	/* struct rxe_qp begins with its struct ib_qp */
	qp = entry_of((const struct ib_qp *)ft_arg(fregs, 0), &dev);
	if (qp)
		entered_error(dev, qp);
	rcu_read_unlock();
}

struct modify_args {
	struct ib_qp *qp;
	const struct ib_qp_attr *attr;
	int mask;
	bool busy;		/* counted in its QP's psn_seq */
};

/* What the entry handlers of the kretprobes keep for their return. */
size_t ft_life_probe_data_size(void)
{
	return max(sizeof(struct modify_args), sizeof(struct ib_qp *));
}

/* The epochs of psn_seq a modify of @mask moves on, when it succeeds. */
static u32 psn_bumps(const struct ib_qp_attr *attr, int mask)
{
	bool reset = (mask & IB_QP_STATE) && attr->qp_state == IB_QPS_RESET;

	return (reset || (mask & IB_QP_SQ_PSN) ? FT_PSN_SEQ_SQ : 0) |
	       (reset || (mask & IB_QP_RQ_PSN) ? FT_PSN_SEQ_RQ : 0);
}

/* ib_modify_qp_with_udata(qp, attr, mask, udata), ib_modify_qp(qp, attr, mask) */
int ft_life_modify_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct modify_args *a = (struct modify_args *)ri->data;
	struct ft_dev *dev;
	struct ft_qp *qp;

	a->qp = (struct ib_qp *)regs_get_kernel_argument(regs, 0);
	a->attr = (const struct ib_qp_attr *)regs_get_kernel_argument(regs, 1);
	a->mask = regs_get_kernel_argument(regs, 2);
	a->busy = false;
	/*
	 * A hardware NIC's QP is counted by its PSNs' progress (hw.c), read
	 * from the NIC: a read while the driver moves them, before the
	 * return below has the new ones, would take the jump for traffic.
	 */
	if (!psn_bumps(a->attr, a->mask))
		return 0;
	rcu_read_lock();
	qp = entry_of(a->qp->real_qp, &dev);
	if (qp) {
		atomic_inc(&qp->psn_seq);
		/* counted running, then the driver's modify */
		smp_mb__after_atomic();
		a->busy = true;
	}
	rcu_read_unlock();
	return 0;
}

/*
 * The QP's path: its port, peer and traffic class, which give it its
 * priority.  Under dev->lock, with its share of the pauses (pfc.c), which
 * follows it to the new priority.
 */
static void path_changed(struct ft_dev *dev, struct ft_qp *qp,
			 const struct ib_qp_attr *attr, int mask)
{
	u32 old_port;

	spin_lock(&dev->lock);
	old_port = READ_ONCE(qp->port);
	/* a QP 0's or 1's port is its key (ft_port_qp_slot()), and stays */
	if ((mask & IB_QP_PORT) && qp->qpn > 1)
		WRITE_ONCE(qp->port, attr->port_num);
	if (mask & IB_QP_DEST_QPN)
		WRITE_ONCE(qp->rqpn, attr->dest_qp_num);
	if (mask & IB_QP_AV) {
		const struct ib_global_route *grh = rdma_ah_read_grh(&attr->ah_attr);

		if (grh) {
			memcpy(qp->peer, grh->dgid.raw, sizeof(qp->peer));
			WRITE_ONCE(qp->tclass, grh->traffic_class);
		}
		ft_qp_set_sl(qp, rdma_ah_get_sl(&attr->ah_attr));
	}
	ft_dev_qp_moved(dev, qp, old_port);
	spin_unlock(&dev->lock);
}

static void modified(const struct ft_dev *dev, struct ft_qp *qp,
		     const struct ib_qp_attr *attr, int mask)
{
	const int path = IB_QP_PORT | IB_QP_AV | IB_QP_DEST_QPN;
	bool was_misconf = ft_qp_misconfigured_now(dev, qp);

	if (mask & path)
		path_changed((struct ft_dev *)dev, qp, attr, mask);
	if ((mask & path) && !was_misconf &&
	    ft_qp_misconfigured_now(dev, qp))
		ft_event_qp(dev, qp, FABTRACE_EVENT_KIND_MISCONFIGURED);
	/*
	 * The PSNs the QP starts from: nothing before them was sent, received
	 * or is awaited.  A read responder answers in its peer's PSN space.
	 */
	if (mask & IB_QP_RQ_PSN) {
		WRITE_ONCE(qp->rx_req_psn, (attr->rq_psn & 0xffffff) | FT_PSN_VALID);
		WRITE_ONCE(qp->tx_resp_psn,
			   ft_psn_add(attr->rq_psn, 0xffffff) | FT_PSN_VALID);
	}
	if (mask & IB_QP_SQ_PSN) {
		u32 last = ft_psn_add(attr->sq_psn, 0xffffff) | FT_PSN_VALID;

		WRITE_ONCE(qp->tx_req_psn, last);
		WRITE_ONCE(qp->rx_ack_psn, last);
	}
	/*
	 * A sample running is the old PSNs' or connection's: its answer, if
	 * one comes, is no round trip of the new.
	 */
	if ((mask & (IB_QP_RQ_PSN | IB_QP_SQ_PSN)) ||
	    ((mask & IB_QP_STATE) &&
	     (attr->qp_state == IB_QPS_ERR || attr->qp_state == IB_QPS_RESET)))
		WRITE_ONCE(qp->rtt.slot, 0);
	if (mask & IB_QP_STATE) {
		if (attr->qp_state == IB_QPS_ERR) {
			entered_error(dev, qp);
			return;
		}
		if (attr->qp_state == IB_QPS_RESET) {
			WRITE_ONCE(qp->tx_req_psn, 0);
			WRITE_ONCE(qp->tx_resp_psn, 0);
			WRITE_ONCE(qp->rx_req_psn, 0);
			WRITE_ONCE(qp->rx_ack_psn, 0);
		}
		WRITE_ONCE(qp->state, attr->qp_state);
	}
}

int ft_life_modify_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct modify_args *a = (struct modify_args *)ri->data;
	bool ok = !regs_return_value(regs);
	struct ft_dev *dev;
	struct ft_qp *qp;

	rcu_read_lock();
	qp = entry_of(a->qp->real_qp, &dev);
	if (qp && ok)
		modified(dev, qp, a->attr, a->mask);
	if (qp && a->busy) {
		/* the PSNs, then their epochs and the end: hw.c reads them the other way */
		smp_mb__before_atomic();
		atomic_add((ok ? psn_bumps(a->attr, a->mask) : 0) - FT_PSN_SEQ_RUN,
			   &qp->psn_seq);
	}
	rcu_read_unlock();
	return 0;
}

/* --- completions --------------------------------------------------------- */

/*
 * rxe_cq_post(cq, cqe, solicited): a CQE is a struct ib_wc for kernel CQs
 * and a struct ib_uverbs_wc for user CQs, the two laid out alike up to the
 * status; struct rxe_cq begins with its struct ib_cq.
 */
void notrace ft_life_cqe(const struct ib_cq *cq, const void *cqe)
{
	const struct ib_uverbs_wc *uwc = cqe;
	const struct ib_wc *wc = cqe;
	struct ft_dev *dev;
	struct ft_qp *qp;

	/* ft_tramp_cqe's assembly reads the status with these numbers */
	BUILD_BUG_ON(offsetof(struct ib_wc, status) != 8);
	BUILD_BUG_ON(offsetof(struct ib_uverbs_wc, status) != 8);
	BUILD_BUG_ON(IB_WC_RETRY_EXC_ERR != 12);
	BUILD_BUG_ON(IB_WC_RNR_RETRY_EXC_ERR != 13);
	if (likely(wc->status != IB_WC_RETRY_EXC_ERR &&
		   wc->status != IB_WC_RNR_RETRY_EXC_ERR))
		return;

	rcu_read_lock();
	if (cq->uobject) {
		dev = ft_dev_of(cq->device);
		qp = dev ? ft_qpidx_find(dev->idx, uwc->qp_num) : NULL;
	} else {
		qp = wc->qp ? entry_of(wc->qp, &dev) : NULL;
	}
	if (qp) {
		atomic_inc(&qp->cong.retry_exh);
		ft_event_qp(dev, qp, FABTRACE_EVENT_KIND_RETRY_EXHAUSTED);
	}
	rcu_read_unlock();
}

void notrace ft_life_cq_post(unsigned long ip, unsigned long parent_ip,
			     struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	ft_life_cqe((const struct ib_cq *)ft_arg(fregs, 0),
		    (const void *)ft_arg(fregs, 1));
}
