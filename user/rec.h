/* SPDX-License-Identifier: GPL-2.0 */
/* What the kernel sends, as plain C records, and the parsers that fill them. */
#ifndef _FABTRACE_REC_H
#define _FABTRACE_REC_H

#include <linux/fabtrace.h>
#include <stdbool.h>
#include <stdint.h>

struct nlmsghdr;
struct nlattr;

#define FT_NAME_LEN	64	/* device names: IB_DEVICE_NAME_MAX */
#define FT_COMM_LEN	32	/* TASK_COMM_LEN is 16; room for owner names */
#define FT_IFNAME_LEN	16
#define FT_CGROUP_LEN	512	/* the kernel's path buffer, NUL included */
#define FT_MAX_PORTS	32

/*
 * Nest contents are kept indexed by attribute type, so one key table per
 * nest drives parsing and printing alike.  A counter the kernel did not
 * send reads 0.
 */
struct ft_traffic {
	uint64_t v[FABTRACE_A_TRAFFIC_MAX + 1];
};

struct ft_naks {
	uint64_t v[FABTRACE_A_NAK_MAX + 1];
	uint32_t have;		/* bit per attribute type: it came */
};

struct ft_cong {
	uint64_t v[FABTRACE_A_CONG_MAX + 1];
	struct ft_naks tx_nak, rx_nak;
	uint32_t have_last;	/* bit (type - LAST_CE): the last_* time is set */
	uint32_t have;		/* bit per attribute type: it came */
};

/*
 * A counter of a hardware NIC's, by its driver's name (ft_intern()ed: the
 * same few dozen names for every QP and port).
 */
struct ft_hw_counter {
	const char *name;
	uint64_t value;
};

/*
 * What a hardware NIC counts of a QP (its "hw" nest; a device fabtrace
 * taps sends none).  mlx5 has 26 counters a set, and a QP record is kept
 * by the 100,000 in top: the counters past FT_HW_QP_COUNTERS are dropped,
 * and @truncated says so.
 */
#define FT_HW_QP_COUNTERS	32

struct ft_qp_hw {
	bool present;		/* the nest came */
	bool truncated;
	uint32_t source;	/* enum fabtrace_source */
	uint32_t set_id, set_qps, bind_error;
	uint64_t psn_tx, psn_rx;
	unsigned int have;	/* FT_HW_HAVE_* */
	unsigned int ncounters;
	struct ft_hw_counter c[FT_HW_QP_COUNTERS];
};

#define FT_HW_HAVE_SOURCE	(1u << 0)
#define FT_HW_HAVE_SET		(1u << 1)	/* set_id */
#define FT_HW_HAVE_SET_QPS	(1u << 2)
#define FT_HW_HAVE_PSN		(1u << 3)	/* psn_tx and psn_rx */
#define FT_HW_HAVE_BIND_ERROR	(1u << 4)

/* A hardware port's counters and counter-set mode (dev-hw-port). */
#define FT_HW_PORT_COUNTERS	128	/* the module keeps as many */
#define FT_HW_PORTS		8

struct ft_dev_hw_port {
	uint32_t port, mode;
	bool theirs;		/* the operator's auto mode or sets, not fabtrace's */
	bool have_mode, truncated;
	unsigned int ncounters;
	struct ft_hw_counter c[FT_HW_PORT_COUNTERS];
};

struct ft_dev_hw {
	bool present;		/* a device fabtrace does not tap: what it reads */
	bool sets;		/* the driver has counter sets */
	bool port_stats;	/* ... and port counters */
	uint64_t reads, read_ns;
	uint32_t read_err;	/* the last read of its sets: 0 or an errno */
	unsigned int nports;
	struct ft_dev_hw_port ports[FT_HW_PORTS];
};

/*
 * Round trips (a qp-rtt or dev-rtt nest).  The buckets' bounds are the
 * spec's: a QP's from 16 us, each 4 times the last; a device's from 1 us,
 * each twice the last; the last bucket of each is unbounded.
 */
#define FT_RTT_QP_BUCKETS	7
#define FT_RTT_QP_LE0_NS	16000.0
#define FT_RTT_QP_STEP		4.0
#define FT_RTT_DEV_BUCKETS	24
#define FT_RTT_DEV_LE0_NS	1000.0
#define FT_RTT_DEV_STEP		2.0

struct ft_qp_rtt {
	bool present;		/* the nest came: a QP fabtrace times */
	uint64_t samples;
	uint32_t last_ns, min_ns, srtt_ns, rttvar_ns, ack_delay_ns;
	unsigned int have;	/* FT_RTT_HAVE_* */
	unsigned int nbuckets;
	uint32_t bucket[FT_RTT_QP_BUCKETS];
};

#define FT_RTT_HAVE_STATS	(1u << 0)	/* last, min, srtt, rttvar */
#define FT_RTT_HAVE_AD		(1u << 1)	/* ack_delay_ns */

struct ft_dev_rtt {
	bool present;
	unsigned int nbuckets;
	uint64_t bucket[FT_RTT_DEV_BUCKETS];
	uint64_t sum_ns, ad_samples, ad_sum_ns;
};

/* JSON/text keys per attribute type, NULL for types without one (pad). */
extern const char *const ft_traffic_keys[FABTRACE_A_TRAFFIC_MAX + 1];
extern const char *const ft_nak_keys[FABTRACE_A_NAK_MAX + 1];
extern const char *const ft_cong_keys[FABTRACE_A_CONG_MAX + 1];

struct ft_port {
	uint32_t index, state, phys_state, link_layer, mtu, ifindex;
	char netdev[FT_IFNAME_LEN];
	unsigned int have;	/* FT_PORT_HAVE_* */
};

#define FT_PORT_HAVE_STATE	(1u << 0)
#define FT_PORT_HAVE_PHYS	(1u << 1)
#define FT_PORT_HAVE_LL		(1u << 2)
#define FT_PORT_HAVE_MTU	(1u << 3)
#define FT_PORT_HAVE_NETDEV	(1u << 4)
#define FT_PORT_HAVE_IFINDEX	(1u << 5)

/* Received packets rxe dropped, by why (soft-RoCE). */
struct ft_drops {
	uint64_t v[FABTRACE_A_DROPS_MAX + 1];
};

extern const char *const ft_drop_keys[FABTRACE_A_DROPS_MAX + 1];

struct ft_dev_rec {
	uint32_t index, qps, retained;
	char name[FT_NAME_LEN], driver[FT_NAME_LEN];
	uint64_t node_guid;	/* host order */
	bool hooked;
	bool have_drops;	/* rx_drops came (a tapped device) */
	struct ft_traffic tx, rx;
	struct ft_drops rx_drops;
	uint64_t unknown_tx, unknown_rx, malformed;
	unsigned int nports;
	struct ft_port ports[FT_MAX_PORTS];
	struct ft_dev_hw hw;
	uint32_t pfc_nic_links;	/* links whose NIC counts PFC (pfc show) */
	struct ft_dev_rtt rtt;
};

struct ft_qp_rec {
	uint32_t dev_index, qpn, type, state, port, remote_qpn, tclass, sl, pid;
	uint32_t flags, prio;
	uint64_t create_time, destroy_time, paused_us;
	uint64_t cgroup_id;	/* FT_QP_HAVE_CGROUP_ID */
	uint8_t peer[16];
	unsigned int have;	/* FT_QP_HAVE_* */
	char dev[FT_NAME_LEN];
	char comm[FT_COMM_LEN];
	const char *cgroup;	/* FT_QP_HAVE_CGROUP: ft_intern()ed; else NULL */
	struct ft_traffic tx, rx;
	struct ft_cong cong;
	struct ft_qp_hw hw;
	struct ft_qp_rtt rtt;
};

#define FT_QP_HAVE_RQPN		(1u << 0)
#define FT_QP_HAVE_PEER		(1u << 1)
#define FT_QP_HAVE_DTIME	(1u << 2)
#define FT_QP_HAVE_PORT		(1u << 3)
#define FT_QP_HAVE_PFC		(1u << 4)	/* prio and paused_us */
#define FT_QP_HAVE_CGROUP_ID	(1u << 5)	/* a user QP's creator's cgroup */
#define FT_QP_HAVE_CGROUP	(1u << 6)	/* its path, while it exists */
#define FT_QP_HAVE_TX		(1u << 7)	/* tx and rx: the device is tapped */
#define FT_QP_HAVE_RX		(1u << 8)

/*
 * Where a QP's numbers come from: its hw nest's source, or, without one,
 * fabtrace's taps (a soft-RoCE device: a module that reads hardware sends
 * the nest for every QP of any other device).
 */
static inline uint32_t ft_qp_source(const struct ft_qp_rec *r)
{
	return r->hw.present && (r->hw.have & FT_HW_HAVE_SOURCE) ? r->hw.source :
	       r->hw.present ? FABTRACE_SOURCE_NONE : FABTRACE_SOURCE_TAP;
}

struct ft_stats_rec {
	uint64_t v[FABTRACE_A_STATS_MAX + 1];
	uint64_t have;		/* bit per attribute type */
};

extern const char *const ft_stats_keys[FABTRACE_A_STATS_MAX + 1];

/* A port's policy values, indexed by attribute type (dscp-map apart). */
struct ft_policy_cfg {
	uint32_t v[FABTRACE_A_POLICY_CFG_MAX + 1];
	uint8_t dscp[64];
	uint32_t have;			/* 1 << FABTRACE_A_POLICY_CFG_* */
};

/* What a port's DCBNL hardware reports (policy-hw). */
struct ft_policy_hw {
	uint32_t pfc, pfc_cap, trust, error;
	uint8_t dscp[64];		/* bit p: the app table maps it to p */
	char error_op[32];
	bool present, has_trust;
	bool has_values;		/* pfc and the rest: the last read worked */
};

struct ft_policy_rec {
	uint32_t dev_index, port, ifindex, dcb;
	char dev[FT_NAME_LEN];
	char netdev[FT_IFNAME_LEN];
	struct ft_policy_cfg cfg;
	struct ft_policy_hw hw;
};

int ft_parse_policy(const struct nlmsghdr *nlh, struct ft_policy_rec *r);

/* One priority of a port's PFC counters, indexed by attribute type. */
struct ft_pfc_prio_rec {
	uint64_t v[FABTRACE_A_PFC_PRIO_MAX + 1];
	uint32_t have;			/* 1 << FABTRACE_A_PFC_PRIO_* */
};

struct ft_pfc_rec {
	uint32_t dev_index, port, ifindex, speed;
	bool have_speed;		/* not to readers in another netns */
	uint64_t malformed, pause;
	uint32_t driver_links;		/* links read from their driver's counters */
	char driver[16];		/* the first one's family of names */
	char dev[FT_NAME_LEN];
	char netdev[FT_IFNAME_LEN];
	struct ft_pfc_prio_rec prio[8];
	uint8_t have_prio;		/* bit p: prio[p] came */
};

int ft_parse_pfc(const struct nlmsghdr *nlh, struct ft_pfc_rec *r);

struct ft_event_rec {
	uint64_t seq, time, count, suppressed;
	uint32_t kind, dev_index, qpn, remote_qpn, pid, port, prio, qps;
	uint64_t duration;
	uint8_t peer[16];
	char dev[FT_NAME_LEN];
	char comm[FT_COMM_LEN];
	unsigned int have;	/* FT_EV_HAVE_* */
	struct ft_traffic tx, rx;
	struct ft_cong cong;
	struct ft_policy_cfg old, new;	/* policy-change */
	struct ft_policy_hw hw;		/* policy-drift */
};

#define FT_EV_HAVE_SEQ		(1u << 0)
#define FT_EV_HAVE_KIND		(1u << 1)
#define FT_EV_HAVE_DEV		(1u << 2)
#define FT_EV_HAVE_QPN		(1u << 3)
#define FT_EV_HAVE_RQPN		(1u << 4)
#define FT_EV_HAVE_PEER		(1u << 5)
#define FT_EV_HAVE_PID		(1u << 6)
#define FT_EV_HAVE_TX		(1u << 7)
#define FT_EV_HAVE_RX		(1u << 8)
#define FT_EV_HAVE_CONG		(1u << 9)
#define FT_EV_HAVE_SUPPRESSED	(1u << 10)
#define FT_EV_HAVE_COUNT	(1u << 11)
#define FT_EV_HAVE_DEV_INDEX	(1u << 12)
#define FT_EV_HAVE_COMM		(1u << 13)
#define FT_EV_HAVE_PORT		(1u << 14)
#define FT_EV_HAVE_POLICY	(1u << 15)	/* old and new */
#define FT_EV_HAVE_STORM	(1u << 16)	/* prio, duration, qps */

/*
 * Parse one generic netlink message of the family.  Attributes of types
 * this CLI does not know (a newer kernel) are skipped, and so are known ones
 * of the wrong size.  0, or -1 when the message itself is malformed.
 */
int ft_parse_dev(const struct nlmsghdr *nlh, struct ft_dev_rec *r);
int ft_parse_qp(const struct nlmsghdr *nlh, struct ft_qp_rec *r);
int ft_parse_stats(const struct nlmsghdr *nlh, struct ft_stats_rec *r);
int ft_parse_event(const struct nlmsghdr *nlh, struct ft_event_rec *r);

/* Convenience sums the table, sort and top use. */
static inline uint64_t ft_qp_cnp(const struct ft_qp_rec *r)
{
	return r->tx.v[FABTRACE_A_TRAFFIC_CNP] + r->rx.v[FABTRACE_A_TRAFFIC_CNP];
}

static inline uint64_t ft_qp_nak(const struct ft_qp_rec *r)
{
	return r->tx.v[FABTRACE_A_TRAFFIC_NAK] + r->rx.v[FABTRACE_A_TRAFFIC_NAK];
}

/* A hardware NIC's QP's NAKs: the syndromes its counter set counts, both ways. */
static inline uint64_t ft_qp_hw_nak(const struct ft_qp_rec *r)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = FABTRACE_A_NAK_PSN_SEQ; i <= FABTRACE_A_NAK_OTHER; i++)
		sum += r->cong.tx_nak.v[i] + r->cong.rx_nak.v[i];
	return sum;
}

/*
 * One copy of @s for the whole run, found again by its value: a job's QPs
 * share their cgroup path, and a record keeps a pointer to it instead of
 * 512 bytes (a dump of 100,000 QPs held twice, as top does).  Never freed.
 */
const char *ft_intern(const char *s);

/*
 * Whether a QP's cgroup is @path or lies below it, component by component:
 * "/a/b" holds "/a/b" and "/a/b/c", not "/a/bc"; "/" holds every cgroup.
 * @path is absolute, without a trailing "/" (but "/" itself).  A QP without
 * a cgroup path (a kernel QP, or its cgroup is gone) is in none.
 */
bool ft_qp_in_cgroup(const struct ft_qp_rec *r, const char *path);

#endif /* _FABTRACE_REC_H */
