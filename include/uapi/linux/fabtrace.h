/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/fabtrace.yaml */
/* YNL-GEN uapi header */

#ifndef _UAPI_LINUX_FABTRACE_H
#define _UAPI_LINUX_FABTRACE_H

#define FABTRACE_FAMILY_NAME	"fabtrace"
#define FABTRACE_FAMILY_VERSION	1

/**
 * enum fabtrace_qp_type - QP transport type, numbered as the RDMA core numbers
 *   it.
 * @FABTRACE_QP_TYPE_SMI: subnet management QP (QP0, InfiniBand only)
 * @FABTRACE_QP_TYPE_GSI: general services QP (QP1), carries CM and other MADs
 * @FABTRACE_QP_TYPE_RC: reliable connected
 * @FABTRACE_QP_TYPE_UC: unreliable connected
 * @FABTRACE_QP_TYPE_UD: unreliable datagram
 * @FABTRACE_QP_TYPE_XRC_INI: XRC initiator
 * @FABTRACE_QP_TYPE_XRC_TGT: XRC target
 * @FABTRACE_QP_TYPE_DRIVER: driver-specific QP type
 */
enum fabtrace_qp_type {
	FABTRACE_QP_TYPE_SMI,
	FABTRACE_QP_TYPE_GSI,
	FABTRACE_QP_TYPE_RC,
	FABTRACE_QP_TYPE_UC,
	FABTRACE_QP_TYPE_UD,
	FABTRACE_QP_TYPE_RAW_IPV6,
	FABTRACE_QP_TYPE_RAW_ETHERTYPE,
	FABTRACE_QP_TYPE_RAW_PACKET = 8,
	FABTRACE_QP_TYPE_XRC_INI,
	FABTRACE_QP_TYPE_XRC_TGT,
	FABTRACE_QP_TYPE_DRIVER = 255,
};

/**
 * enum fabtrace_qp_state - QP state, numbered as the RDMA core numbers it.
 */
enum fabtrace_qp_state {
	FABTRACE_QP_STATE_RESET,
	FABTRACE_QP_STATE_INIT,
	FABTRACE_QP_STATE_RTR,
	FABTRACE_QP_STATE_RTS,
	FABTRACE_QP_STATE_SQD,
	FABTRACE_QP_STATE_SQE,
	FABTRACE_QP_STATE_ERR,
};

/**
 * enum fabtrace_port_state - Logical port state, numbered as the RDMA core
 *   numbers it.
 */
enum fabtrace_port_state {
	FABTRACE_PORT_STATE_NOP,
	FABTRACE_PORT_STATE_DOWN,
	FABTRACE_PORT_STATE_INIT,
	FABTRACE_PORT_STATE_ARMED,
	FABTRACE_PORT_STATE_ACTIVE,
	FABTRACE_PORT_STATE_ACTIVE_DEFER,
};

/**
 * enum fabtrace_link_layer - Link layer of a port.
 */
enum fabtrace_link_layer {
	FABTRACE_LINK_LAYER_UNSPECIFIED,
	FABTRACE_LINK_LAYER_INFINIBAND,
	FABTRACE_LINK_LAYER_ETHERNET,
};

/**
 * enum fabtrace_qp_flags - Properties of a QP entry.
 * @FABTRACE_QP_FLAGS_DESTROYED: The QP was destroyed; its entry holds the
 *   final counters until retain_ms have passed.
 * @FABTRACE_QP_FLAGS_KERNEL: The QP is owned by a kernel consumer; comm names
 *   it.
 * @FABTRACE_QP_FLAGS_DISCOVERED: The QP existed before fabtrace learnt of its
 *   device; it was found afterwards, so its counters start from that moment
 *   and its creation time is when it was found.
 * @FABTRACE_QP_FLAGS_CONGESTED: The QP received a CE mark or a CNP, sent or
 *   received a NAK, or retransmitted; only meaningful as a dump filter
 *   (match-flags) and in replies.
 * @FABTRACE_QP_FLAGS_MISCONFIGURED: The QP's traffic class goes against its
 *   port's policy: the policy has lossless (PFC) priorities and the QP's
 *   priority is not one of them, or its priority is ECN-capable, the QP asks
 *   for Not-ECT and nothing marks it (a device fabtrace does not hook).
 *   Computed when read, from the policy of the moment; connected QPs only.
 */
enum fabtrace_qp_flags {
	FABTRACE_QP_FLAGS_DESTROYED = 1,
	FABTRACE_QP_FLAGS_KERNEL = 2,
	FABTRACE_QP_FLAGS_DISCOVERED = 4,
	FABTRACE_QP_FLAGS_CONGESTED = 8,
	FABTRACE_QP_FLAGS_MISCONFIGURED = 16,
};

/**
 * enum fabtrace_event_kind - What a notification on the events group reports.
 * @FABTRACE_EVENT_KIND_QP_CREATE: a QP was created
 * @FABTRACE_EVENT_KIND_QP_DESTROY: a QP was destroyed; its final counters
 *   follow
 * @FABTRACE_EVENT_KIND_QP_ERROR: the QP entered the error state
 * @FABTRACE_EVENT_KIND_CE: congestion onset, first CE-marked packet after a
 *   quiet period
 * @FABTRACE_EVENT_KIND_CNP: congestion onset, first CNP (sent or received)
 *   after a quiet period
 * @FABTRACE_EVENT_KIND_NAK: first NAK (sent or received) after a quiet period
 * @FABTRACE_EVENT_KIND_RETRANSMIT: first retransmitted packet after a quiet
 *   period
 * @FABTRACE_EVENT_KIND_TIMEOUT: the QP's retransmission timer expired
 * @FABTRACE_EVENT_KIND_RNR_TIMEOUT: the QP's RNR retry timer expired
 * @FABTRACE_EVENT_KIND_RETRY_EXHAUSTED: a work request completed with a
 *   retry-exceeded or RNR-retry-exceeded error: the QP gave up on its peer
 * @FABTRACE_EVENT_KIND_DROPPED: events were suppressed by rate limiting or
 *   lost because the queue towards userspace was full; count says how many
 *   since the previous dropped notification
 * @FABTRACE_EVENT_KIND_POLICY_CHANGE: a port's policy was set; policy-old and
 *   policy-new hold it before and after
 * @FABTRACE_EVENT_KIND_MISCONFIGURED: a QP became misconfigured (see
 *   qp-flags): when it got its traffic class or port, or when a policy change
 *   made it so
 * @FABTRACE_EVENT_KIND_STORM_START: a priority of one of a port's links stayed
 *   paused, XOFF renewed before it expired, for the PFC watchdog's detection
 *   time (a storm on one slave of a bond is a storm); duration says how long
 *   so far, qps how many live QPs of the port have that priority, link-name
 *   and link-ifindex which link
 * @FABTRACE_EVENT_KIND_STORM_END: the storm's priority stayed unpaused on its
 *   link for the restoration time, or the link left the port (it is no longer
 *   below the port's netdev); duration says how long it was paused (start to
 *   last pause's end, or to the link's leaving)
 * @FABTRACE_EVENT_KIND_POLICY_DRIFT: what a port's DCBNL hardware reports (hw)
 *   no longer matches what fabtrace pushed for its policy (policy-new):
 *   another tool (dcb, a vendor's) changed PFC, the DSCP app table or the
 *   trust behind fabtrace's back; sent once per difference, and again (hw
 *   equal to the policy) when it is gone
 */
enum fabtrace_event_kind {
	FABTRACE_EVENT_KIND_QP_CREATE,
	FABTRACE_EVENT_KIND_QP_DESTROY,
	FABTRACE_EVENT_KIND_QP_ERROR,
	FABTRACE_EVENT_KIND_CE,
	FABTRACE_EVENT_KIND_CNP,
	FABTRACE_EVENT_KIND_NAK,
	FABTRACE_EVENT_KIND_RETRANSMIT,
	FABTRACE_EVENT_KIND_TIMEOUT,
	FABTRACE_EVENT_KIND_RNR_TIMEOUT,
	FABTRACE_EVENT_KIND_RETRY_EXHAUSTED,
	FABTRACE_EVENT_KIND_DROPPED,
	FABTRACE_EVENT_KIND_POLICY_CHANGE,
	FABTRACE_EVENT_KIND_MISCONFIGURED,
	FABTRACE_EVENT_KIND_STORM_START,
	FABTRACE_EVENT_KIND_STORM_END,
	FABTRACE_EVENT_KIND_POLICY_DRIFT,
};

/**
 * enum fabtrace_trust - Which header field gives a packet its priority.
 * @FABTRACE_TRUST_PCP: the VLAN tag's priority code point (untagged packets
 *   are priority 0)
 * @FABTRACE_TRUST_DSCP: the IP header's DSCP, through the DSCP-to-priority map
 */
enum fabtrace_trust {
	FABTRACE_TRUST_PCP,
	FABTRACE_TRUST_DSCP,
};

/**
 * enum fabtrace_dcb_state - What the port's netdev offers for applying the
 *   policy in hardware.
 * @FABTRACE_DCB_STATE_NO_NETDEV: the port has no netdev (not RoCE)
 * @FABTRACE_DCB_STATE_UNSUPPORTED: the netdev has no DCBNL operations
 *   (soft-RoCE on virtio-net, veth)
 * @FABTRACE_DCB_STATE_NOT_APPLIED: the netdev has DCBNL operations, and no
 *   policy-set has pushed the policy to them yet: the hardware keeps its own
 *   settings
 * @FABTRACE_DCB_STATE_APPLIED: the policy was pushed through DCBNL, and what
 *   the hardware reports matches it
 * @FABTRACE_DCB_STATE_DRIFT: the policy was pushed, and what the hardware
 *   reports differs from it now (policy-drift): someone else changed it
 * @FABTRACE_DCB_STATE_FAILED: the last push was refused by the driver (hw's
 *   error and error-op say where); what the hardware reports is shown as it is
 */
enum fabtrace_dcb_state {
	FABTRACE_DCB_STATE_NO_NETDEV,
	FABTRACE_DCB_STATE_UNSUPPORTED,
	FABTRACE_DCB_STATE_NOT_APPLIED,
	FABTRACE_DCB_STATE_APPLIED,
	FABTRACE_DCB_STATE_DRIFT,
	FABTRACE_DCB_STATE_FAILED,
};

/**
 * enum fabtrace_wd_action - What the PFC watchdog does on a pause storm.
 * @FABTRACE_WD_ACTION_ALERT: storm events and counters only; a host cannot
 *   drop or forward a switch's queue
 */
enum fabtrace_wd_action {
	FABTRACE_WD_ACTION_ALERT,
};

/**
 * enum fabtrace_pfc_state - Where a priority of a link stands; a port's is the
 *   most severe of its links'.
 * @FABTRACE_PFC_STATE_IDLE: not paused
 * @FABTRACE_PFC_STATE_PAUSED: an XOFF's pause is running
 * @FABTRACE_PFC_STATE_STORM: the watchdog found a storm, which has not ended
 */
enum fabtrace_pfc_state {
	FABTRACE_PFC_STATE_IDLE,
	FABTRACE_PFC_STATE_PAUSED,
	FABTRACE_PFC_STATE_STORM,
};

/**
 * enum fabtrace_source - Where a QP's numbers come from.
 * @FABTRACE_SOURCE_NONE: nothing counts it (no counter set, no PSN to read)
 * @FABTRACE_SOURCE_TAP: soft-RoCE's data path, every packet, exactly
 * @FABTRACE_SOURCE_SET: a hardware counter set of its own
 * @FABTRACE_SOURCE_SET_SHARED: a hardware counter set it shares with other QPs
 *   (set-qps), of the same process when fabtrace bound them, or as the port's
 *   operator did
 * @FABTRACE_SOURCE_PSN: its PSNs' progress (RC): new request packets sent and
 *   received, no retransmissions, duplicates or bytes
 */
enum fabtrace_source {
	FABTRACE_SOURCE_NONE,
	FABTRACE_SOURCE_TAP,
	FABTRACE_SOURCE_SET,
	FABTRACE_SOURCE_SET_SHARED,
	FABTRACE_SOURCE_PSN,
};

enum {
	FABTRACE_A_PORT_INDEX = 1,
	FABTRACE_A_PORT_STATE,
	FABTRACE_A_PORT_PHYS_STATE,
	FABTRACE_A_PORT_LINK_LAYER,
	FABTRACE_A_PORT_ACTIVE_MTU,
	FABTRACE_A_PORT_NETDEV_NAME,
	FABTRACE_A_PORT_NETDEV_IFINDEX,

	__FABTRACE_A_PORT_MAX,
	FABTRACE_A_PORT_MAX = (__FABTRACE_A_PORT_MAX - 1)
};

enum {
	FABTRACE_A_TRAFFIC_PACKETS = 1,
	FABTRACE_A_TRAFFIC_BYTES,
	FABTRACE_A_TRAFFIC_SEND,
	FABTRACE_A_TRAFFIC_WRITE,
	FABTRACE_A_TRAFFIC_READ_REQ,
	FABTRACE_A_TRAFFIC_READ_RESP,
	FABTRACE_A_TRAFFIC_ATOMIC,
	FABTRACE_A_TRAFFIC_ACK,
	FABTRACE_A_TRAFFIC_NAK,
	FABTRACE_A_TRAFFIC_CNP,
	FABTRACE_A_TRAFFIC_OTHER,
	FABTRACE_A_TRAFFIC_PAD,

	__FABTRACE_A_TRAFFIC_MAX,
	FABTRACE_A_TRAFFIC_MAX = (__FABTRACE_A_TRAFFIC_MAX - 1)
};

enum {
	FABTRACE_A_NAK_PSN_SEQ = 1,
	FABTRACE_A_NAK_RNR,
	FABTRACE_A_NAK_REM_ACCESS,
	FABTRACE_A_NAK_INV_REQ,
	FABTRACE_A_NAK_REM_OP,
	FABTRACE_A_NAK_OTHER,
	FABTRACE_A_NAK_PAD,

	__FABTRACE_A_NAK_MAX,
	FABTRACE_A_NAK_MAX = (__FABTRACE_A_NAK_MAX - 1)
};

enum {
	FABTRACE_A_CONG_RX_ECT = 1,
	FABTRACE_A_CONG_RX_CE,
	FABTRACE_A_CONG_TX_NAK,
	FABTRACE_A_CONG_RX_NAK,
	FABTRACE_A_CONG_RETRANSMITS,
	FABTRACE_A_CONG_TIMEOUTS,
	FABTRACE_A_CONG_RNR_TIMEOUTS,
	FABTRACE_A_CONG_RX_DUP,
	FABTRACE_A_CONG_RX_OOS,
	FABTRACE_A_CONG_RETRY_EXHAUSTED,
	FABTRACE_A_CONG_ERRORS,
	FABTRACE_A_CONG_LAST_CE,
	FABTRACE_A_CONG_LAST_CNP,
	FABTRACE_A_CONG_LAST_NAK,
	FABTRACE_A_CONG_LAST_RETRANSMIT,
	FABTRACE_A_CONG_LAST_TIMEOUT,
	FABTRACE_A_CONG_LAST_RNR_TIMEOUT,
	FABTRACE_A_CONG_PAD,

	__FABTRACE_A_CONG_MAX,
	FABTRACE_A_CONG_MAX = (__FABTRACE_A_CONG_MAX - 1)
};

enum {
	FABTRACE_A_DROPS_MALFORMED = 1,
	FABTRACE_A_DROPS_UNKNOWN_QP,
	FABTRACE_A_DROPS_QP_STATE,
	FABTRACE_A_DROPS_ADDRESS,
	FABTRACE_A_DROPS_KEY,
	FABTRACE_A_DROPS_ICRC,
	FABTRACE_A_DROPS_MCAST,
	FABTRACE_A_DROPS_OTHER,
	FABTRACE_A_DROPS_PAD,

	__FABTRACE_A_DROPS_MAX,
	FABTRACE_A_DROPS_MAX = (__FABTRACE_A_DROPS_MAX - 1)
};

enum {
	FABTRACE_A_HW_COUNTER_NAME = 1,
	FABTRACE_A_HW_COUNTER_VALUE,
	FABTRACE_A_HW_COUNTER_PAD,

	__FABTRACE_A_HW_COUNTER_MAX,
	FABTRACE_A_HW_COUNTER_MAX = (__FABTRACE_A_HW_COUNTER_MAX - 1)
};

enum {
	FABTRACE_A_QP_HW_SOURCE = 1,
	FABTRACE_A_QP_HW_SET_ID,
	FABTRACE_A_QP_HW_SET_QPS,
	FABTRACE_A_QP_HW_PSN_TX,
	FABTRACE_A_QP_HW_PSN_RX,
	FABTRACE_A_QP_HW_BIND_ERROR,
	FABTRACE_A_QP_HW_COUNTER,
	FABTRACE_A_QP_HW_PAD,

	__FABTRACE_A_QP_HW_MAX,
	FABTRACE_A_QP_HW_MAX = (__FABTRACE_A_QP_HW_MAX - 1)
};

enum {
	FABTRACE_A_DEV_HW_PORT_PORT = 1,
	FABTRACE_A_DEV_HW_PORT_MODE,
	FABTRACE_A_DEV_HW_PORT_THEIRS,
	FABTRACE_A_DEV_HW_PORT_COUNTER,

	__FABTRACE_A_DEV_HW_PORT_MAX,
	FABTRACE_A_DEV_HW_PORT_MAX = (__FABTRACE_A_DEV_HW_PORT_MAX - 1)
};

enum {
	FABTRACE_A_DEV_HW_SETS = 1,
	FABTRACE_A_DEV_HW_PORT_STATS,
	FABTRACE_A_DEV_HW_READS,
	FABTRACE_A_DEV_HW_READ_NS,
	FABTRACE_A_DEV_HW_PORT,
	FABTRACE_A_DEV_HW_PAD,
	FABTRACE_A_DEV_HW_READ_ERR,

	__FABTRACE_A_DEV_HW_MAX,
	FABTRACE_A_DEV_HW_MAX = (__FABTRACE_A_DEV_HW_MAX - 1)
};

enum {
	FABTRACE_A_DEV_INDEX = 1,
	FABTRACE_A_DEV_NAME,
	FABTRACE_A_DEV_DRIVER,
	FABTRACE_A_DEV_NODE_GUID,
	FABTRACE_A_DEV_PORT,
	FABTRACE_A_DEV_QPS,
	FABTRACE_A_DEV_RETAINED,
	FABTRACE_A_DEV_TX,
	FABTRACE_A_DEV_RX,
	FABTRACE_A_DEV_UNKNOWN_TX,
	FABTRACE_A_DEV_UNKNOWN_RX,
	FABTRACE_A_DEV_MALFORMED,
	FABTRACE_A_DEV_HOOKED,
	FABTRACE_A_DEV_PAD,
	FABTRACE_A_DEV_RX_DROPS,
	FABTRACE_A_DEV_HW,
	FABTRACE_A_DEV_PFC_NIC_LINKS,

	__FABTRACE_A_DEV_MAX,
	FABTRACE_A_DEV_MAX = (__FABTRACE_A_DEV_MAX - 1)
};

enum {
	FABTRACE_A_QP_DEV_INDEX = 1,
	FABTRACE_A_QP_DEV_NAME,
	FABTRACE_A_QP_QPN,
	FABTRACE_A_QP_TYPE,
	FABTRACE_A_QP_STATE,
	FABTRACE_A_QP_PORT,
	FABTRACE_A_QP_REMOTE_QPN,
	FABTRACE_A_QP_PEER_ADDR,
	FABTRACE_A_QP_TCLASS,
	FABTRACE_A_QP_SL,
	FABTRACE_A_QP_PID,
	FABTRACE_A_QP_COMM,
	FABTRACE_A_QP_CREATE_TIME,
	FABTRACE_A_QP_DESTROY_TIME,
	FABTRACE_A_QP_FLAGS,
	FABTRACE_A_QP_TX,
	FABTRACE_A_QP_RX,
	FABTRACE_A_QP_CONG,
	FABTRACE_A_QP_QPN_MIN,
	FABTRACE_A_QP_QPN_MAX,
	FABTRACE_A_QP_MATCH_FLAGS,
	FABTRACE_A_QP_PAD,
	FABTRACE_A_QP_PRIO,
	FABTRACE_A_QP_PAUSED_US,
	FABTRACE_A_QP_CGROUP_ID,
	FABTRACE_A_QP_CGROUP,
	FABTRACE_A_QP_HW,

	__FABTRACE_A_QP_MAX,
	FABTRACE_A_QP_MAX = (__FABTRACE_A_QP_MAX - 1)
};

enum {
	FABTRACE_A_STATS_QPS = 1,
	FABTRACE_A_STATS_RETAINED,
	FABTRACE_A_STATS_MAX_QPS,
	FABTRACE_A_STATS_RETAIN_MS,
	FABTRACE_A_STATS_ENTRY_SIZE,
	FABTRACE_A_STATS_OVERFLOW,
	FABTRACE_A_STATS_ALLOC_FAIL,
	FABTRACE_A_STATS_MALFORMED,
	FABTRACE_A_STATS_UNKNOWN,
	FABTRACE_A_STATS_HOOK_MISSED,
	FABTRACE_A_STATS_EVENTS_SENT,
	FABTRACE_A_STATS_EVENTS_SUPPRESSED,
	FABTRACE_A_STATS_EVENTS_LOST,
	FABTRACE_A_STATS_GENERATION,
	FABTRACE_A_STATS_INDEX_BYTES,
	FABTRACE_A_STATS_PAD,
	FABTRACE_A_STATS_EVICTED,
	FABTRACE_A_STATS_CNP_SENT,
	FABTRACE_A_STATS_CNP_LIMITED,
	FABTRACE_A_STATS_CNP_FAILED,
	FABTRACE_A_STATS_CNP_SKIPPED,
	FABTRACE_A_STATS_LOAD_TIME,

	__FABTRACE_A_STATS_MAX,
	FABTRACE_A_STATS_MAX = (__FABTRACE_A_STATS_MAX - 1)
};

enum {
	FABTRACE_A_POLICY_CFG_TRUST = 1,
	FABTRACE_A_POLICY_CFG_DSCP_MAP,
	FABTRACE_A_POLICY_CFG_PFC,
	FABTRACE_A_POLICY_CFG_ECN,
	FABTRACE_A_POLICY_CFG_CNP,
	FABTRACE_A_POLICY_CFG_CNP_INTERVAL,
	FABTRACE_A_POLICY_CFG_CNP_DSCP,
	FABTRACE_A_POLICY_CFG_WD_DETECT,
	FABTRACE_A_POLICY_CFG_WD_RESTORE,
	FABTRACE_A_POLICY_CFG_WD_ACTION,

	__FABTRACE_A_POLICY_CFG_MAX,
	FABTRACE_A_POLICY_CFG_MAX = (__FABTRACE_A_POLICY_CFG_MAX - 1)
};

enum {
	FABTRACE_A_POLICY_HW_PFC = 1,
	FABTRACE_A_POLICY_HW_PFC_CAP,
	FABTRACE_A_POLICY_HW_DSCP_PRIO,
	FABTRACE_A_POLICY_HW_TRUST,
	FABTRACE_A_POLICY_HW_ERROR,
	FABTRACE_A_POLICY_HW_ERROR_OP,

	__FABTRACE_A_POLICY_HW_MAX,
	FABTRACE_A_POLICY_HW_MAX = (__FABTRACE_A_POLICY_HW_MAX - 1)
};

enum {
	FABTRACE_A_POLICY_DEV_INDEX = 1,
	FABTRACE_A_POLICY_DEV_NAME,
	FABTRACE_A_POLICY_PORT,
	FABTRACE_A_POLICY_CONFIG,
	FABTRACE_A_POLICY_NETDEV_NAME,
	FABTRACE_A_POLICY_NETDEV_IFINDEX,
	FABTRACE_A_POLICY_DCB,
	FABTRACE_A_POLICY_HW,

	__FABTRACE_A_POLICY_MAX,
	FABTRACE_A_POLICY_MAX = (__FABTRACE_A_POLICY_MAX - 1)
};

enum {
	FABTRACE_A_PFC_PRIO_PRIO = 1,
	FABTRACE_A_PFC_PRIO_FRAMES,
	FABTRACE_A_PFC_PRIO_XOFF,
	FABTRACE_A_PFC_PRIO_XON,
	FABTRACE_A_PFC_PRIO_QUANTA,
	FABTRACE_A_PFC_PRIO_PAUSED_NS,
	FABTRACE_A_PFC_PRIO_UNEXPECTED,
	FABTRACE_A_PFC_PRIO_STORMS,
	FABTRACE_A_PFC_PRIO_STATE,
	FABTRACE_A_PFC_PRIO_QPS,
	FABTRACE_A_PFC_PRIO_PAD,

	__FABTRACE_A_PFC_PRIO_MAX,
	FABTRACE_A_PFC_PRIO_MAX = (__FABTRACE_A_PFC_PRIO_MAX - 1)
};

enum {
	FABTRACE_A_PFC_LINK_NETDEV_NAME = 1,
	FABTRACE_A_PFC_LINK_NETDEV_IFINDEX,
	FABTRACE_A_PFC_LINK_SPEED,
	FABTRACE_A_PFC_LINK_MALFORMED,
	FABTRACE_A_PFC_LINK_PAUSE,
	FABTRACE_A_PFC_LINK_PRIO,
	FABTRACE_A_PFC_LINK_PAD,
	FABTRACE_A_PFC_LINK_DRIVER,

	__FABTRACE_A_PFC_LINK_MAX,
	FABTRACE_A_PFC_LINK_MAX = (__FABTRACE_A_PFC_LINK_MAX - 1)
};

enum {
	FABTRACE_A_PFC_DEV_INDEX = 1,
	FABTRACE_A_PFC_DEV_NAME,
	FABTRACE_A_PFC_PORT,
	FABTRACE_A_PFC_NETDEV_NAME,
	FABTRACE_A_PFC_NETDEV_IFINDEX,
	FABTRACE_A_PFC_SPEED,
	FABTRACE_A_PFC_MALFORMED,
	FABTRACE_A_PFC_PAUSE,
	FABTRACE_A_PFC_PRIO,
	FABTRACE_A_PFC_PAD,
	FABTRACE_A_PFC_LINK,
	FABTRACE_A_PFC_LINKS_OMITTED,
	FABTRACE_A_PFC_DRIVER_LINKS,

	__FABTRACE_A_PFC_MAX,
	FABTRACE_A_PFC_MAX = (__FABTRACE_A_PFC_MAX - 1)
};

enum {
	FABTRACE_A_EVENT_SEQ = 1,
	FABTRACE_A_EVENT_KIND,
	FABTRACE_A_EVENT_TIME,
	FABTRACE_A_EVENT_DEV_INDEX,
	FABTRACE_A_EVENT_DEV_NAME,
	FABTRACE_A_EVENT_QPN,
	FABTRACE_A_EVENT_REMOTE_QPN,
	FABTRACE_A_EVENT_PEER_ADDR,
	FABTRACE_A_EVENT_PID,
	FABTRACE_A_EVENT_COMM,
	FABTRACE_A_EVENT_COUNT,
	FABTRACE_A_EVENT_SUPPRESSED,
	FABTRACE_A_EVENT_TX,
	FABTRACE_A_EVENT_RX,
	FABTRACE_A_EVENT_CONG,
	FABTRACE_A_EVENT_PAD,
	FABTRACE_A_EVENT_PORT,
	FABTRACE_A_EVENT_POLICY_OLD,
	FABTRACE_A_EVENT_POLICY_NEW,
	FABTRACE_A_EVENT_PRIO,
	FABTRACE_A_EVENT_DURATION,
	FABTRACE_A_EVENT_QPS,
	FABTRACE_A_EVENT_HW,
	FABTRACE_A_EVENT_LINK_NAME,
	FABTRACE_A_EVENT_LINK_IFINDEX,

	__FABTRACE_A_EVENT_MAX,
	FABTRACE_A_EVENT_MAX = (__FABTRACE_A_EVENT_MAX - 1)
};

enum {
	FABTRACE_CMD_DEV_GET = 1,
	FABTRACE_CMD_QP_GET,
	FABTRACE_CMD_QP_RESET,
	FABTRACE_CMD_STATS_GET,
	FABTRACE_CMD_QP_EVENT,
	FABTRACE_CMD_POLICY_GET,
	FABTRACE_CMD_POLICY_SET,
	FABTRACE_CMD_PFC_GET,

	__FABTRACE_CMD_MAX,
	FABTRACE_CMD_MAX = (__FABTRACE_CMD_MAX - 1)
};

#define FABTRACE_MCGRP_EVENTS	"events"

#endif /* _UAPI_LINUX_FABTRACE_H */
