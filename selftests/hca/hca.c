// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ft_hca: rxe that counts like a hardware RoCE NIC (test-only).
 *
 * The RDMA core keeps counter sets (struct rdma_counter) and asks the
 * driver to make, bind, read and free them; this is the driver's side,
 * modelled on what an mlx5 does with its firmware Q counters:
 *
 *  - a set is a slot of hca_dev.sets, taken at the first bind (its id is
 *    the set id "rdma statistic qp" shows) and given back when the core
 *    frees the set; nr_counters slots per device, then binding fails as an
 *    mlx5's firmware does when it has no Q counter left;
 *  - a QP names its set by id (as a QP context does on mlx5), and every
 *    event the QP's packets cause counts into that set, or into the port's
 *    own slot 0 while the QP is in none;
 *  - a set's values are 32 bits and wrap; the port shows slot 0, and the
 *    core adds the running sets and the history of freed ones to it.
 *
 * The hooks (hca_*() in rxe's code, see the patches) say which event
 * happened; the README beside this file has the table.
 */
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/version.h>
#include <net/dsfield.h>
#include <net/inet_ecn.h>
#include <net/ip.h>
#include <net/ipv6.h>

#include "rxe.h"
#include "rxe_loc.h"

static unsigned int nr_counters = 64;
module_param(nr_counters, uint, 0444);
MODULE_PARM_DESC(nr_counters,
		 "counter sets per device, then binding fails (default 64)");

static uint counter_start;
module_param(counter_start, uint, 0444);
MODULE_PARM_DESC(counter_start,
		 "value a set's counters start from, e.g. 4294967000 to see them wrap (default 0)");

static bool np_enable = true;
module_param(np_enable, bool, 0644);
MODULE_PARM_DESC(np_enable,
		 "notification point: answer CE-marked packets with CNPs (default Y)");

static unsigned int np_min_time_us = 4;
module_param(np_min_time_us, uint, 0644);
MODULE_PARM_DESC(np_min_time_us,
		 "least time between two CNPs of one QP, us (default 4; 0: one per CE packet)");

static unsigned int np_cnp_dscp = 48;
module_param(np_cnp_dscp, uint, 0644);
MODULE_PARM_DESC(np_cnp_dscp, "DSCP of the CNPs sent (default 48)");

static bool rp_enable = true;
module_param(rp_enable, bool, 0644);
MODULE_PARM_DESC(rp_enable,
		 "reaction point: CNPs count as handled, else as ignored (default Y)");

#define HCA_OPCODE_CNP		(IB_OPCODE_CNP | 0x01)
#define HCA_CNP_RESERVED	16	/* bytes after the BTH */

static const char * const hca_names[HCA_NUM_STATS] = {
	[HCA_RX_WRITE_REQUESTS]			= "rx_write_requests",
	[HCA_RX_READ_REQUESTS]			= "rx_read_requests",
	[HCA_RX_ATOMIC_REQUESTS]		= "rx_atomic_requests",
	[HCA_RX_DCT_CONNECT]			= "rx_dct_connect",
	[HCA_OUT_OF_BUFFER]			= "out_of_buffer",
	[HCA_OUT_OF_SEQUENCE]			= "out_of_sequence",
	[HCA_DUPLICATE_REQUEST]			= "duplicate_request",
	[HCA_RNR_NAK_RETRY_ERR]			= "rnr_nak_retry_err",
	[HCA_PACKET_SEQ_ERR]			= "packet_seq_err",
	[HCA_IMPLIED_NAK_SEQ_ERR]		= "implied_nak_seq_err",
	[HCA_LOCAL_ACK_TIMEOUT_ERR]		= "local_ack_timeout_err",
	[HCA_RESP_LOCAL_LENGTH_ERROR]		= "resp_local_length_error",
	[HCA_RESP_CQE_ERROR]			= "resp_cqe_error",
	[HCA_REQ_CQE_ERROR]			= "req_cqe_error",
	[HCA_REQ_REMOTE_INVALID_REQUEST]	= "req_remote_invalid_request",
	[HCA_REQ_REMOTE_ACCESS_ERRORS]		= "req_remote_access_errors",
	[HCA_RESP_REMOTE_ACCESS_ERRORS]		= "resp_remote_access_errors",
	[HCA_RESP_CQE_FLUSH_ERROR]		= "resp_cqe_flush_error",
	[HCA_REQ_CQE_FLUSH_ERROR]		= "req_cqe_flush_error",
	[HCA_REQ_TRANSPORT_RETRIES_EXCEEDED]	= "req_transport_retries_exceeded",
	[HCA_REQ_RNR_RETRIES_EXCEEDED]		= "req_rnr_retries_exceeded",
	[HCA_ROCE_ADP_RETRANS]			= "roce_adp_retrans",
	[HCA_ROCE_ADP_RETRANS_TO]		= "roce_adp_retrans_to",
	[HCA_ROCE_SLOW_RESTART]			= "roce_slow_restart",
	[HCA_ROCE_SLOW_RESTART_CNPS]		= "roce_slow_restart_cnps",
	[HCA_ROCE_SLOW_RESTART_TRANS]		= "roce_slow_restart_trans",
	[HCA_RP_CNP_IGNORED]			= "rp_cnp_ignored",
	[HCA_RP_CNP_HANDLED]			= "rp_cnp_handled",
	[HCA_NP_ECN_MARKED_ROCE_PACKETS]	= "np_ecn_marked_roce_packets",
	[HCA_NP_CNP_SENT]			= "np_cnp_sent",
	[HCA_RX_ICRC_ENCAPSULATED]		= "rx_icrc_encapsulated",
	/* HCA_RXE_FIRST..HCA_RXE_LAST: rxe's names, filled in by hca_init() */
	[HCA_CC_RX_CE_PKTS]			= "cc_rx_ce_pkts",
	[HCA_CC_RX_CNP_PKTS]			= "cc_rx_cnp_pkts",
	[HCA_CC_TX_CNP_PKTS]			= "cc_tx_cnp_pkts",
};

/* The port's counters as the core reads them (names, flags), and rxe's */
static struct rdma_stat_desc hca_descs[HCA_NUM_STATS];
static u8 hca_rxe_index[HCA_RXE_LAST - HCA_RXE_FIRST + 1];

/**
 * hca_init() - module setup, before rxe registers its link type
 *
 * Builds the port's counter table: mlx5's names, then rxe's own (read from
 * rxe's table, whose duplicate_request is already one of mlx5's), then the
 * optional ones.  Gives rxe's opcode table the CNP's length, so that rxe's
 * own ICRC code covers the CNPs sent here; the CNP stays an opcode rxe's
 * receive path drops (its mask stays 0), after hca_rcv() has counted it.
 *
 * Return: 0, or -ENOMEM.
 */
int hca_init(void)
{
	struct rxe_opcode_info *cnp = &rxe_opcode[HCA_OPCODE_CNP];
	struct rdma_hw_stats *rxe_stats;
	unsigned int i, r, k = 0;

	rxe_stats = rxe_ib_alloc_hw_port_stats(NULL, 1);
	if (!rxe_stats)
		return -ENOMEM;
	for (r = 0; r < RXE_NUM_OF_COUNTERS; r++) {
		if (r == RXE_CNT_DUP_REQ)
			continue;
		hca_rxe_index[k] = r;
		hca_descs[HCA_RXE_FIRST + k].name = rxe_stats->descs[r].name;
		k++;
	}
	rdma_free_hw_stats_struct(rxe_stats);

	for (i = 0; i < HCA_NUM_STATS; i++) {
		if (hca_names[i])
			hca_descs[i].name = hca_names[i];
		if (i >= HCA_FIRST_OPTIONAL)
			hca_descs[i].flags = IB_STAT_FLAG_OPTIONAL;
	}

	cnp->name = "IB_OPCODE_CNP";
	cnp->length = RXE_BTH_BYTES + HCA_CNP_RESERVED;
	cnp->offset[RXE_BTH] = 0;
	cnp->offset[RXE_PAYLOAD] = RXE_BTH_BYTES + HCA_CNP_RESERVED;
	return 0;
}

static void hca_set_start(struct hca_set *set)
{
	unsigned int i;

	for (i = 0; i < HCA_NUM_Q; i++)
		atomic_set(&set->v[i], counter_start);
	set->nqps = 0;
}

/**
 * hca_dev_init() - a new device's sets, before it registers
 * @rxe: the device
 *
 * Return: 0, or -ENOMEM.
 */
int hca_dev_init(struct rxe_dev *rxe)
{
	struct hca_dev *h = &rxe->hca;

	h->nr_sets = nr_counters;
	h->sets = kvcalloc(h->nr_sets + 1, sizeof(*h->sets), GFP_KERNEL);
	if (!h->sets)
		return -ENOMEM;
	ida_init(&h->ids);
	hca_set_start(&h->sets[0]);
	return 0;
}

/* Context: the device's release, every QP and set gone; or its failed init */
void hca_dev_fini(struct rxe_dev *rxe)
{
	struct hca_dev *h = &rxe->hca;

	if (!h->sets)
		return;
	ida_destroy(&h->ids);
	kvfree(h->sets);
	h->sets = NULL;
}

/* ---- counting ----------------------------------------------------------- */

/*
 * The QP's set may change under us (bind, unbind): the read of its id and
 * the increment are one RCU reader, and the last unbind from a set waits
 * for the readers, so that the set's final reading misses nothing.
 */
void hca_q_inc(struct rxe_qp *qp, enum hca_stat s)
{
	struct rxe_dev *rxe = to_rdev(qp->ibqp.device);

	rcu_read_lock();
	atomic_inc(&rxe->hca.sets[READ_ONCE(qp->hca.set)].v[s]);
	rcu_read_unlock();
}

void hca_port_inc(struct rxe_dev *rxe, enum hca_stat s)
{
	atomic64_inc(&rxe->hca.port[s]);
}

/* A request packet reached the QP's responder */
void hca_rx_request(struct rxe_qp *qp, struct rxe_pkt_info *pkt)
{
	unsigned int atomic = RXE_ATOMIC_MASK;

#if KERNEL_VERSION(6, 2, 0) <= LINUX_VERSION_CODE
	atomic |= RXE_ATOMIC_WRITE_MASK;	/* an ATOMIC WRITE (6.2 on) */
#endif
	if (pkt->mask & RXE_WRITE_MASK)
		hca_q_inc(qp, HCA_RX_WRITE_REQUESTS);
	else if (pkt->mask & RXE_READ_MASK)
		hca_q_inc(qp, HCA_RX_READ_REQUESTS);
	else if (pkt->mask & atomic)
		hca_q_inc(qp, HCA_RX_ATOMIC_REQUESTS);
}

/* A completion the requester (send queue) makes, with @status */
void hca_req_cqe(struct rxe_qp *qp, int status)
{
	if (status == IB_WC_SUCCESS)
		return;
	hca_q_inc(qp, HCA_REQ_CQE_ERROR);
	if (status == IB_WC_WR_FLUSH_ERR)
		hca_q_inc(qp, HCA_REQ_CQE_FLUSH_ERROR);
}

/* A completion the responder (receive queue) makes, with @status */
void hca_resp_cqe(struct rxe_qp *qp, int status)
{
	if (status == IB_WC_SUCCESS)
		return;
	hca_q_inc(qp, HCA_RESP_CQE_ERROR);
	if (status == IB_WC_WR_FLUSH_ERR)
		hca_q_inc(qp, HCA_RESP_CQE_FLUSH_ERROR);
}

/*
 * A response with a PSN past the one expected for a read or atomic: once
 * per gap (rxe sees it again on every later response of the gap, an mlx5
 * retries at once).  Context: the completer, one per QP at a time.
 */
void hca_implied_nak(struct rxe_qp *qp)
{
	if (qp->hca.implied_nak)
		return;
	qp->hca.implied_nak = true;
	hca_q_inc(qp, HCA_IMPLIED_NAK_SEQ_ERR);
}

/* An ACK or response moved the send queue on (rxe resets its retry counts) */
void hca_progress(struct rxe_qp *qp)
{
	qp->hca.slow_restart = false;
	qp->hca.implied_nak = false;
}

/*
 * The completer starts a retry of the send queue; @timeout: because the
 * ACK timer expired.  rxe's timer does not adapt and rxe has no rate to
 * restart slowly: a timeout's retry stands for mlx5's adaptive
 * retransmission, and the first since the QP last made progress for its
 * move to slow restart.
 */
void hca_retry(struct rxe_qp *qp, bool timeout)
{
	if (!timeout)
		return;
	hca_q_inc(qp, HCA_LOCAL_ACK_TIMEOUT_ERR);
	hca_q_inc(qp, HCA_ROCE_ADP_RETRANS);
	hca_q_inc(qp, HCA_ROCE_SLOW_RESTART);
	if (!qp->hca.slow_restart) {
		qp->hca.slow_restart = true;
		hca_q_inc(qp, HCA_ROCE_SLOW_RESTART_TRANS);
	}
}

/* The retry count ran out; @timeout: on an expiry of the ACK timer */
void hca_retry_exceeded(struct rxe_qp *qp, bool timeout)
{
	hca_q_inc(qp, HCA_REQ_TRANSPORT_RETRIES_EXCEEDED);
	if (timeout)
		hca_q_inc(qp, HCA_ROCE_ADP_RETRANS_TO);
}

static bool hca_ce(const struct sk_buff *skb)
{
	if (skb->protocol == htons(ETH_P_IP))
		return INET_ECN_is_ce(ip_hdr(skb)->tos);
	if (skb->protocol == htons(ETH_P_IPV6))
		return INET_ECN_is_ce(ipv6_get_dsfield(ipv6_hdr(skb)));
	return false;
}

/* Whether QP @qpn is one a CNP can slow down: connected and sending */
static bool hca_rp_qp(struct rxe_dev *rxe, u32 qpn)
{
	struct rxe_qp *qp;
	bool ok;

	if (qpn <= 1)
		return false;
	qp = rxe_pool_get_index(&rxe->qp_pool, qpn);
	if (!qp)
		return false;
	ok = (qp_type(qp) == IB_QPT_RC || qp_type(qp) == IB_QPT_UC) &&
	     qp_state(qp) >= IB_QPS_RTS;
	rxe_put(qp);
	return ok;
}

/**
 * hca_rcv() - a RoCE packet for this device, before rxe checks its opcode
 * @pkt: its rxe_pkt_info (opcode parsed)
 * @skb: the packet
 *
 * Counts CE marks (the notification point's) and CNPs (the reaction
 * point's).  rxe knows no CNP and would drop it as a bad opcode.
 *
 * Context: rxe's receive path (softirq, or a loopback sender).
 * Return: true when the packet was a CNP, which rxe then drops.
 */
bool hca_rcv(struct rxe_pkt_info *pkt, struct sk_buff *skb)
{
	struct rxe_dev *rxe = pkt->rxe;
	bool handled;

	if (hca_ce(skb)) {
		hca_port_inc(rxe, HCA_NP_ECN_MARKED_ROCE_PACKETS);
		hca_port_inc(rxe, HCA_CC_RX_CE_PKTS);
	}
	if (likely(pkt->opcode != HCA_OPCODE_CNP))
		return false;
	hca_port_inc(rxe, HCA_CC_RX_CNP_PKTS);
	handled = READ_ONCE(rp_enable) && hca_rp_qp(rxe, bth_qpn(pkt));
	hca_port_inc(rxe, handled ? HCA_RP_CNP_HANDLED : HCA_RP_CNP_IGNORED);
	return true;
}

/* Send a CNP to @qp's peer QP, along the QP's own path */
static int hca_send_cnp(struct rxe_qp *qp)
{
	int paylen = RXE_BTH_BYTES + HCA_CNP_RESERVED + RXE_ICRC_SIZE;
	struct rxe_dev *rxe = to_rdev(qp->ibqp.device);
	struct rxe_pkt_info cnp = {};
	struct sk_buff *skb;
	int err;

	skb = rxe_init_packet(rxe, &qp->pri_av, paylen, &cnp);
	if (!skb)
		return -ENOMEM;
	cnp.qp = qp;
	cnp.opcode = HCA_OPCODE_CNP;
	cnp.paylen = paylen;
	bth_init(&cnp, HCA_OPCODE_CNP, 0, 0, 0, IB_DEFAULT_PKEY_FULL,
		 qp->attr.dest_qp_num, 0, 0);
	bth_set_becn(&cnp, 1);
	memset(cnp.hdr + RXE_BTH_BYTES, 0, HCA_CNP_RESERVED);
	err = rxe_prepare(&qp->pri_av, &cnp, skb);
	if (err) {
		kfree_skb(skb);
		return err;
	}
	/* the QP's traffic class, but the CNP's DSCP and never ECT */
	if (skb->protocol == htons(ETH_P_IP))
		ipv4_change_dsfield(ip_hdr(skb), 0, (np_cnp_dscp & 0x3f) << 2);
	else
		ipv6_change_dsfield(ipv6_hdr(skb), 0, (np_cnp_dscp & 0x3f) << 2);
	return rxe_xmit_packet(qp, &cnp, skb);
}

/**
 * hca_np() - a valid packet for a QP arrived: the notification point
 * @pkt: the packet's info, its QP found
 * @skb: the packet
 *
 * A CE-marked packet of a connected QP is answered with a CNP to the QP's
 * peer, unless the QP sent one less than np_min_time_us ago.
 *
 * Context: rxe's receive path, one CPU per QP's flow at a time.
 */
void hca_np(struct rxe_pkt_info *pkt, struct sk_buff *skb)
{
	struct rxe_qp *qp = pkt->qp;
	struct rxe_dev *rxe = pkt->rxe;
	u64 now, last;

	if (!qp || !READ_ONCE(np_enable) || !hca_ce(skb))
		return;
	if (qp_type(qp) != IB_QPT_RC && qp_type(qp) != IB_QPT_UC)
		return;
	now = ktime_get_ns();
	last = READ_ONCE(qp->hca.last_cnp);
	if (last && now - last < (u64)READ_ONCE(np_min_time_us) * NSEC_PER_USEC)
		return;
	WRITE_ONCE(qp->hca.last_cnp, now);
	if (hca_send_cnp(qp))
		return;
	hca_port_inc(rxe, HCA_NP_CNP_SENT);
	hca_port_inc(rxe, HCA_CC_TX_CNP_PKTS);
}

/* ---- the RDMA core's operations ---------------------------------------- */

static struct rdma_hw_stats *hca_alloc_stats(bool set)
{
	struct rdma_hw_stats *st;
	unsigned int i;

	st = rdma_alloc_hw_stats_struct(hca_descs, HCA_NUM_STATS,
					RDMA_HW_STATS_DEFAULT_LIFESPAN);
	if (!st)
		return NULL;
	/* optional counters start disabled; a set shows only mlx5's */
	for (i = set ? HCA_RXE_FIRST : HCA_FIRST_OPTIONAL; i < HCA_NUM_STATS; i++)
		set_bit(i, st->is_disabled);
	return st;
}

static struct rdma_hw_stats *hca_alloc_hw_port_stats(struct ib_device *ibdev,
						     u32 port)
{
	return hca_alloc_stats(false);
}

/* The port's own: QPs in no set (the core adds the sets and history) */
static int hca_get_hw_stats(struct ib_device *ibdev,
			    struct rdma_hw_stats *stats, u32 port, int index)
{
	struct rxe_dev *rxe = to_rdev(ibdev);
	struct hca_dev *h = &rxe->hca;
	atomic64_t *own = rxe->stats_counters;
	unsigned int i;

	for (i = 0; i < HCA_NUM_Q; i++)
		stats->value[i] = (u32)atomic_read(&h->sets[0].v[i]);
	for (; i < HCA_RXE_FIRST; i++)
		stats->value[i] = atomic64_read(&h->port[i]);
	for (; i <= HCA_RXE_LAST; i++)
		stats->value[i] = atomic64_read(&own[hca_rxe_index[i - HCA_RXE_FIRST]]);
	for (; i < HCA_NUM_STATS; i++)
		stats->value[i] = atomic64_read(&h->port[i]) -
				  h->opt_base[i - HCA_FIRST_OPTIONAL];
	return HCA_NUM_STATS;
}

/* An optional counter counts from when it is enabled, as mlx5's do */
static int hca_modify_hw_stat(struct ib_device *ibdev, u32 port,
			      unsigned int index, bool enable)
{
	struct hca_dev *h = &to_rdev(ibdev)->hca;

	if (index < HCA_FIRST_OPTIONAL || index >= HCA_NUM_STATS)
		return -EINVAL;
	if (enable)
		h->opt_base[index - HCA_FIRST_OPTIONAL] =
			atomic64_read(&h->port[index]);
	return 0;
}

static struct rdma_hw_stats *hca_counter_alloc_stats(struct rdma_counter *counter)
{
	return hca_alloc_stats(true);
}

/* Context: the core holds the counter's lock */
static int hca_counter_update_stats(struct rdma_counter *counter)
{
	struct hca_set *set = &to_rdev(counter->device)->hca.sets[counter->id];
	unsigned int i;

	for (i = 0; i < HCA_NUM_Q; i++)
		counter->stats->value[i] = (u32)atomic_read(&set->v[i]);
	return 0;
}

/*
 * The set gets its id at its first bind, as mlx5's gets its firmware Q
 * counter.  Context: the core holds the counter's lock.
 */
static int hca_counter_bind_qp(struct rdma_counter *counter, struct ib_qp *ibqp)
{
	struct hca_dev *h = &to_rdev(ibqp->device)->hca;
	struct rxe_qp *qp = to_rqp(ibqp);
	int id;

	if (!counter->id) {
		if (!h->nr_sets)
			return -ENOMEM;
		id = ida_alloc_range(&h->ids, 1, h->nr_sets, GFP_KERNEL);
		if (id < 0)	/* none left: mlx5's firmware says ENOMEM */
			return id == -ENOSPC ? -ENOMEM : id;
		hca_set_start(&h->sets[id]);
		counter->id = id;
	}
	h->sets[counter->id].nqps++;
	WRITE_ONCE(qp->hca.set, counter->id);
	ibqp->counter = counter;
	return 0;
}

/* Context: the core holds the counter's lock; may sleep */
static int hca_counter_unbind_qp(struct ib_qp *ibqp)
{
	struct hca_dev *h = &to_rdev(ibqp->device)->hca;
	struct rxe_qp *qp = to_rqp(ibqp);
	struct hca_set *set = &h->sets[ibqp->counter->id];

	WRITE_ONCE(qp->hca.set, 0);
	ibqp->counter = NULL;
	/* the core reads the set for the last time once its last QP left */
	if (!--set->nqps)
		synchronize_rcu();
	return 0;
}

static int hca_counter_dealloc(struct rdma_counter *counter)
{
	struct hca_dev *h = &to_rdev(counter->device)->hca;

	if (counter->id)
		ida_free(&h->ids, counter->id);
	return 0;
}

const struct ib_device_ops hca_dev_ops = {
	.alloc_hw_port_stats = hca_alloc_hw_port_stats,
	.get_hw_stats = hca_get_hw_stats,
	.modify_hw_stat = hca_modify_hw_stat,
	.counter_alloc_stats = hca_counter_alloc_stats,
	.counter_update_stats = hca_counter_update_stats,
	.counter_bind_qp = hca_counter_bind_qp,
	.counter_unbind_qp = hca_counter_unbind_qp,
	.counter_dealloc = hca_counter_dealloc,
};
