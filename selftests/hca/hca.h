/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * ft_hca: rxe that counts like a hardware RoCE NIC (test-only).
 *
 * Counter sets (the RDMA core's rdma_counter, "rdma statistic qp") with
 * mlx5's per-set counters, and mlx5's per-port congestion counters, all
 * counted on rxe's own packet path.  See README beside this file for what
 * increments each counter.
 */
#ifndef _FT_HCA_H
#define _FT_HCA_H

#include <linux/atomic.h>
#include <linux/idr.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>

#include "rxe_hw_counters.h"

struct rxe_dev;
struct rxe_qp;
struct rxe_pkt_info;
struct sk_buff;

/*
 * Every counter the port shows, in the order it shows them.  The first
 * HCA_NUM_Q are mlx5's Q counters (in mlx5's order): a counter set holds
 * exactly these.  The core sums each port counter over the sets by index,
 * so a set's statistics have the port's layout, the rest of them zero.
 */
enum hca_stat {
	HCA_RX_WRITE_REQUESTS,
	HCA_RX_READ_REQUESTS,
	HCA_RX_ATOMIC_REQUESTS,
	HCA_RX_DCT_CONNECT,
	HCA_OUT_OF_BUFFER,
	HCA_OUT_OF_SEQUENCE,
	HCA_DUPLICATE_REQUEST,
	HCA_RNR_NAK_RETRY_ERR,
	HCA_PACKET_SEQ_ERR,
	HCA_IMPLIED_NAK_SEQ_ERR,
	HCA_LOCAL_ACK_TIMEOUT_ERR,
	HCA_RESP_LOCAL_LENGTH_ERROR,
	HCA_RESP_CQE_ERROR,
	HCA_REQ_CQE_ERROR,
	HCA_REQ_REMOTE_INVALID_REQUEST,
	HCA_REQ_REMOTE_ACCESS_ERRORS,
	HCA_RESP_REMOTE_ACCESS_ERRORS,
	HCA_RESP_CQE_FLUSH_ERROR,
	HCA_REQ_CQE_FLUSH_ERROR,
	HCA_REQ_TRANSPORT_RETRIES_EXCEEDED,
	HCA_REQ_RNR_RETRIES_EXCEEDED,
	HCA_ROCE_ADP_RETRANS,
	HCA_ROCE_ADP_RETRANS_TO,
	HCA_ROCE_SLOW_RESTART,
	HCA_ROCE_SLOW_RESTART_CNPS,
	HCA_ROCE_SLOW_RESTART_TRANS,
	HCA_NUM_Q,
	/* per port only: mlx5's congestion counters, then its ICRC one */
	HCA_RP_CNP_IGNORED = HCA_NUM_Q,
	HCA_RP_CNP_HANDLED,
	HCA_NP_ECN_MARKED_ROCE_PACKETS,
	HCA_NP_CNP_SENT,
	HCA_RX_ICRC_ENCAPSULATED,
	/* rxe's own counters, but duplicate_request (a Q counter here) */
	HCA_RXE_FIRST,
	HCA_RXE_LAST = HCA_RXE_FIRST + RXE_NUM_OF_COUNTERS - 2,
	/* optional (rdma statistic set link ... optional-counters ...) */
	HCA_CC_RX_CE_PKTS,
	HCA_CC_RX_CNP_PKTS,
	HCA_CC_TX_CNP_PKTS,
	HCA_NUM_STATS
};

#define HCA_FIRST_OPTIONAL	HCA_CC_RX_CE_PKTS
#define HCA_NUM_OPTIONAL	(HCA_NUM_STATS - HCA_FIRST_OPTIONAL)

/* One counter set: what a firmware Q counter is on mlx5. */
struct hca_set {
	atomic_t v[HCA_NUM_Q];		/* 32 bits, wrapping as mlx5's */
	unsigned int nqps;		/* QPs bound; under the counter's lock */
};

struct hca_dev {
	/* [0]: the port's own, for QPs in no set; [1..nr_sets]: sets */
	struct hca_set *sets;
	u32 nr_sets;
	struct ida ids;
	atomic64_t port[HCA_NUM_STATS];	/* the per-port-only counters */
	u64 opt_base[HCA_NUM_OPTIONAL];	/* their values when enabled */
};

struct hca_qp {
	u32 set;		/* the QP's set id; 0: none (the port's) */
	bool slow_restart;	/* timed out since its last progress */
	bool implied_nak;	/* implied NAK counted since then */
	u64 last_cnp;		/* ns: the last CNP sent for it */
};

int hca_init(void);
int hca_dev_init(struct rxe_dev *rxe);
void hca_dev_fini(struct rxe_dev *rxe);
extern const struct ib_device_ops hca_dev_ops;

/* The hooks on rxe's paths: a QP's counter (into its set), or the port's */
void hca_q_inc(struct rxe_qp *qp, enum hca_stat s);
void hca_port_inc(struct rxe_dev *rxe, enum hca_stat s);
void hca_rx_request(struct rxe_qp *qp, struct rxe_pkt_info *pkt);
void hca_req_cqe(struct rxe_qp *qp, int status);
void hca_resp_cqe(struct rxe_qp *qp, int status);
void hca_implied_nak(struct rxe_qp *qp);
void hca_progress(struct rxe_qp *qp);
void hca_retry(struct rxe_qp *qp, bool timeout);
void hca_retry_exceeded(struct rxe_qp *qp, bool timeout);
bool hca_rcv(struct rxe_pkt_info *pkt, struct sk_buff *skb);
void hca_np(struct rxe_pkt_info *pkt, struct sk_buff *skb);

#endif /* _FT_HCA_H */
