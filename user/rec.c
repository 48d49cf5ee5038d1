// SPDX-License-Identifier: GPL-2.0
/* What the kernel sends, as plain C records, and the parsers that fill them. */

#include <endian.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <stdlib.h>
#include <string.h>

#include "rec.h"
#include "util.h"

const char *const ft_drop_keys[FABTRACE_A_DROPS_MAX + 1] = {
	[FABTRACE_A_DROPS_MALFORMED] = "malformed",
	[FABTRACE_A_DROPS_UNKNOWN_QP] = "unknown_qp",
	[FABTRACE_A_DROPS_QP_STATE] = "qp_state",
	[FABTRACE_A_DROPS_ADDRESS] = "address",
	[FABTRACE_A_DROPS_KEY] = "key",
	[FABTRACE_A_DROPS_ICRC] = "icrc",
	[FABTRACE_A_DROPS_MCAST] = "mcast",
	[FABTRACE_A_DROPS_OTHER] = "other",
};

const char *const ft_traffic_keys[FABTRACE_A_TRAFFIC_MAX + 1] = {
	[FABTRACE_A_TRAFFIC_PACKETS] = "packets",
	[FABTRACE_A_TRAFFIC_BYTES] = "bytes",
	[FABTRACE_A_TRAFFIC_SEND] = "send",
	[FABTRACE_A_TRAFFIC_WRITE] = "write",
	[FABTRACE_A_TRAFFIC_READ_REQ] = "read_req",
	[FABTRACE_A_TRAFFIC_READ_RESP] = "read_resp",
	[FABTRACE_A_TRAFFIC_ATOMIC] = "atomic",
	[FABTRACE_A_TRAFFIC_ACK] = "ack",
	[FABTRACE_A_TRAFFIC_NAK] = "nak",
	[FABTRACE_A_TRAFFIC_CNP] = "cnp",
	[FABTRACE_A_TRAFFIC_OTHER] = "other",
};

const char *const ft_nak_keys[FABTRACE_A_NAK_MAX + 1] = {
	[FABTRACE_A_NAK_PSN_SEQ] = "psn_seq",
	[FABTRACE_A_NAK_RNR] = "rnr",
	[FABTRACE_A_NAK_REM_ACCESS] = "rem_access",
	[FABTRACE_A_NAK_INV_REQ] = "inv_req",
	[FABTRACE_A_NAK_REM_OP] = "rem_op",
	[FABTRACE_A_NAK_OTHER] = "other",
};

/* The two NAK nests are printed as nested objects, not from this table. */
const char *const ft_cong_keys[FABTRACE_A_CONG_MAX + 1] = {
	[FABTRACE_A_CONG_RX_ECT] = "rx_ect",
	[FABTRACE_A_CONG_RX_CE] = "rx_ce",
	[FABTRACE_A_CONG_RETRANSMITS] = "retransmits",
	[FABTRACE_A_CONG_TIMEOUTS] = "timeouts",
	[FABTRACE_A_CONG_RNR_TIMEOUTS] = "rnr_timeouts",
	[FABTRACE_A_CONG_RX_DUP] = "rx_dup",
	[FABTRACE_A_CONG_RX_OOS] = "rx_oos",
	[FABTRACE_A_CONG_RETRY_EXHAUSTED] = "retry_exhausted",
	[FABTRACE_A_CONG_ERRORS] = "errors",
	[FABTRACE_A_CONG_LAST_CE] = "last_ce",
	[FABTRACE_A_CONG_LAST_CNP] = "last_cnp",
	[FABTRACE_A_CONG_LAST_NAK] = "last_nak",
	[FABTRACE_A_CONG_LAST_RETRANSMIT] = "last_retransmit",
	[FABTRACE_A_CONG_LAST_TIMEOUT] = "last_timeout",
	[FABTRACE_A_CONG_LAST_RNR_TIMEOUT] = "last_rnr_timeout",
};

const char *const ft_stats_keys[FABTRACE_A_STATS_MAX + 1] = {
	[FABTRACE_A_STATS_QPS] = "qps",
	[FABTRACE_A_STATS_RETAINED] = "retained",
	[FABTRACE_A_STATS_MAX_QPS] = "max_qps",
	[FABTRACE_A_STATS_RETAIN_MS] = "retain_ms",
	[FABTRACE_A_STATS_ENTRY_SIZE] = "entry_size",
	[FABTRACE_A_STATS_OVERFLOW] = "overflow",
	[FABTRACE_A_STATS_ALLOC_FAIL] = "alloc_fail",
	[FABTRACE_A_STATS_MALFORMED] = "malformed",
	[FABTRACE_A_STATS_UNKNOWN] = "unknown",
	[FABTRACE_A_STATS_HOOK_MISSED] = "hook_missed",
	[FABTRACE_A_STATS_EVENTS_SENT] = "events_sent",
	[FABTRACE_A_STATS_EVENTS_SUPPRESSED] = "events_suppressed",
	[FABTRACE_A_STATS_EVENTS_LOST] = "events_lost",
	[FABTRACE_A_STATS_GENERATION] = "generation",
	[FABTRACE_A_STATS_INDEX_BYTES] = "index_bytes",
	[FABTRACE_A_STATS_EVICTED] = "evicted",
	[FABTRACE_A_STATS_CNP_SENT] = "cnp_sent",
	[FABTRACE_A_STATS_CNP_LIMITED] = "cnp_limited",
	[FABTRACE_A_STATS_CNP_FAILED] = "cnp_failed",
	[FABTRACE_A_STATS_CNP_SKIPPED] = "cnp_skipped",
	[FABTRACE_A_STATS_LOAD_TIME] = "load_time",
};

/*
 * Value readers that accept only the sizes the type may have.  Counters take
 * 4 or 8 bytes, so a kernel that moves them to the variable-size "uint"
 * netlink type still reads right.  A pad attribute has no payload and so is
 * skipped by every reader.
 */
static bool get_uint(const struct nlattr *a, uint64_t *v)
{
	switch (mnl_attr_get_payload_len(a)) {
	case sizeof(uint64_t):
		*v = mnl_attr_get_u64(a);
		return true;
	case sizeof(uint32_t):
		*v = mnl_attr_get_u32(a);
		return true;
	default:
		return false;
	}
}

static bool get_u32(const struct nlattr *a, uint32_t *v)
{
	if (mnl_attr_get_payload_len(a) != sizeof(uint32_t))
		return false;
	*v = mnl_attr_get_u32(a);
	return true;
}

static bool get_str(const struct nlattr *a, char *buf, size_t len)
{
	const char *s = mnl_attr_get_payload(a);
	size_t n = strnlen(s, mnl_attr_get_payload_len(a));

	if (!len)
		return false;
	if (n >= len)
		n = len - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return true;
}

static bool get_gid(const struct nlattr *a, uint8_t gid[16])
{
	if (mnl_attr_get_payload_len(a) != 16)
		return false;
	memcpy(gid, mnl_attr_get_payload(a), 16);
	return true;
}

/* A nest of plain counters, stored at v[type]; bit type of *have set if given. */
struct counters {
	uint64_t *v;
	unsigned int max;
	uint32_t *have;
};

static int counters_cb(const struct nlattr *a, void *data)
{
	const struct counters *c = data;
	unsigned int type = mnl_attr_get_type(a);

	if (type <= c->max && get_uint(a, &c->v[type]) && c->have && type < 32)
		*c->have |= 1u << type;
	return MNL_CB_OK;
}

static void parse_traffic(const struct nlattr *nest, struct ft_traffic *t)
{
	struct counters c = { t->v, FABTRACE_A_TRAFFIC_MAX, NULL };

	mnl_attr_parse_nested(nest, counters_cb, &c);
}

static void parse_drops(const struct nlattr *nest, struct ft_drops *d)
{
	struct counters c = { d->v, FABTRACE_A_DROPS_MAX, NULL };

	mnl_attr_parse_nested(nest, counters_cb, &c);
}

static void parse_naks(const struct nlattr *nest, struct ft_naks *n)
{
	struct counters c = { n->v, FABTRACE_A_NAK_MAX, &n->have };

	mnl_attr_parse_nested(nest, counters_cb, &c);
}

static int cong_cb(const struct nlattr *a, void *data)
{
	struct ft_cong *c = data;
	unsigned int type = mnl_attr_get_type(a);

	/* a hardware NIC's QP: only what it counted comes */
	if (type <= FABTRACE_A_CONG_MAX && type < 32)
		c->have |= 1u << type;
	switch (type) {
	case FABTRACE_A_CONG_TX_NAK:
		parse_naks(a, &c->tx_nak);
		break;
	case FABTRACE_A_CONG_RX_NAK:
		parse_naks(a, &c->rx_nak);
		break;
	case FABTRACE_A_CONG_LAST_CE ... FABTRACE_A_CONG_LAST_RNR_TIMEOUT:
		if (get_uint(a, &c->v[type]) && c->v[type])
			c->have_last |= 1u << (type - FABTRACE_A_CONG_LAST_CE);
		break;
	default:
		if (type <= FABTRACE_A_CONG_MAX)
			get_uint(a, &c->v[type]);
		break;
	}
	return MNL_CB_OK;
}

static void parse_cong(const struct nlattr *nest, struct ft_cong *c)
{
	mnl_attr_parse_nested(nest, cong_cb, c);
}

/* Where a family message's attributes start; -1 if it has no room for them. */
static int genl_ok(const struct nlmsghdr *nlh)
{
	return mnl_nlmsg_get_payload_len(nlh) >= sizeof(struct genlmsghdr) ? 0 : -1;
}

static int port_cb(const struct nlattr *a, void *data)
{
	struct ft_port *p = data;

	switch (mnl_attr_get_type(a)) {
	case FABTRACE_A_PORT_INDEX:
		get_u32(a, &p->index);
		break;
	case FABTRACE_A_PORT_STATE:
		if (get_u32(a, &p->state))
			p->have |= FT_PORT_HAVE_STATE;
		break;
	case FABTRACE_A_PORT_PHYS_STATE:
		if (get_u32(a, &p->phys_state))
			p->have |= FT_PORT_HAVE_PHYS;
		break;
	case FABTRACE_A_PORT_LINK_LAYER:
		if (get_u32(a, &p->link_layer))
			p->have |= FT_PORT_HAVE_LL;
		break;
	case FABTRACE_A_PORT_ACTIVE_MTU:
		if (get_u32(a, &p->mtu))
			p->have |= FT_PORT_HAVE_MTU;
		break;
	case FABTRACE_A_PORT_NETDEV_NAME:
		if (get_str(a, p->netdev, sizeof(p->netdev)))
			p->have |= FT_PORT_HAVE_NETDEV;
		break;
	case FABTRACE_A_PORT_NETDEV_IFINDEX:
		if (get_u32(a, &p->ifindex))
			p->have |= FT_PORT_HAVE_IFINDEX;
		break;
	}
	return MNL_CB_OK;
}

/* --- what a hardware NIC counts (hw nests) --------------------------------- */

/* A table of counters by name, filled from hw-counter nests. */
struct hw_table {
	struct ft_hw_counter *c;
	unsigned int *n, max;
	bool *truncated;
};

struct hw_one {
	char name[FT_NAME_LEN];
	uint64_t value;
	bool have_name, have_value;
};

static int hw_counter_cb(const struct nlattr *a, void *data)
{
	struct hw_one *h = data;

	switch (mnl_attr_get_type(a)) {
	case FABTRACE_A_HW_COUNTER_NAME:
		h->have_name = get_str(a, h->name, sizeof(h->name)) && h->name[0];
		break;
	case FABTRACE_A_HW_COUNTER_VALUE:
		h->have_value = get_uint(a, &h->value);
		break;
	}
	return MNL_CB_OK;
}

/* One hw-counter nest into @t; one without a name or a value is skipped. */
static void parse_hw_counter(const struct nlattr *nest, const struct hw_table *t)
{
	struct hw_one h = { .have_name = false };

	mnl_attr_parse_nested(nest, hw_counter_cb, &h);
	if (!h.have_name || !h.have_value)
		return;
	if (*t->n == t->max) {
		*t->truncated = true;
		return;
	}
	t->c[*t->n].name = ft_intern(h.name);
	t->c[*t->n].value = h.value;
	(*t->n)++;
}

static int qp_hw_cb(const struct nlattr *a, void *data)
{
	struct ft_qp_hw *h = data;
	const struct hw_table t = { h->c, &h->ncounters, FT_HW_QP_COUNTERS, &h->truncated };

	switch (mnl_attr_get_type(a)) {
	case FABTRACE_A_QP_HW_SOURCE:
		if (get_u32(a, &h->source))
			h->have |= FT_HW_HAVE_SOURCE;
		break;
	case FABTRACE_A_QP_HW_SET_ID:
		if (get_u32(a, &h->set_id))
			h->have |= FT_HW_HAVE_SET;
		break;
	case FABTRACE_A_QP_HW_SET_QPS:
		if (get_u32(a, &h->set_qps))
			h->have |= FT_HW_HAVE_SET_QPS;
		break;
	case FABTRACE_A_QP_HW_PSN_TX:
		if (get_uint(a, &h->psn_tx))
			h->have |= FT_HW_HAVE_PSN;
		break;
	case FABTRACE_A_QP_HW_PSN_RX:
		get_uint(a, &h->psn_rx);
		break;
	case FABTRACE_A_QP_HW_BIND_ERROR:
		if (get_u32(a, &h->bind_error))
			h->have |= FT_HW_HAVE_BIND_ERROR;
		break;
	case FABTRACE_A_QP_HW_COUNTER:
		parse_hw_counter(a, &t);
		break;
	}
	return MNL_CB_OK;
}

static int dev_hw_port_cb(const struct nlattr *a, void *data)
{
	struct ft_dev_hw_port *p = data;
	const struct hw_table t = { p->c, &p->ncounters, FT_HW_PORT_COUNTERS, &p->truncated };

	switch (mnl_attr_get_type(a)) {
	case FABTRACE_A_DEV_HW_PORT_PORT:
		get_u32(a, &p->port);
		break;
	case FABTRACE_A_DEV_HW_PORT_MODE:
		p->have_mode = get_u32(a, &p->mode);
		break;
	case FABTRACE_A_DEV_HW_PORT_THEIRS:
		if (mnl_attr_get_payload_len(a) == 1)
			p->theirs = mnl_attr_get_u8(a);
		break;
	case FABTRACE_A_DEV_HW_PORT_COUNTER:
		parse_hw_counter(a, &t);
		break;
	}
	return MNL_CB_OK;
}

static int dev_hw_cb(const struct nlattr *a, void *data)
{
	struct ft_dev_hw *h = data;

	switch (mnl_attr_get_type(a)) {
	case FABTRACE_A_DEV_HW_SETS:
		if (mnl_attr_get_payload_len(a) == 1)
			h->sets = mnl_attr_get_u8(a);
		break;
	case FABTRACE_A_DEV_HW_PORT_STATS:
		if (mnl_attr_get_payload_len(a) == 1)
			h->port_stats = mnl_attr_get_u8(a);
		break;
	case FABTRACE_A_DEV_HW_READS:
		get_uint(a, &h->reads);
		break;
	case FABTRACE_A_DEV_HW_READ_NS:
		get_uint(a, &h->read_ns);
		break;
	case FABTRACE_A_DEV_HW_READ_ERR:
		if (mnl_attr_get_payload_len(a) == sizeof(uint32_t))
			h->read_err = mnl_attr_get_u32(a);
		break;
	case FABTRACE_A_DEV_HW_PORT:
		/* ports beyond what we keep are left out, as in the port list */
		if (h->nports < FT_HW_PORTS)
			mnl_attr_parse_nested(a, dev_hw_port_cb, &h->ports[h->nports++]);
		break;
	}
	return MNL_CB_OK;
}

static int qp_rtt_cb(const struct nlattr *a, void *data)
{
	struct ft_qp_rtt *r = data;

	switch (mnl_attr_get_type(a)) {
	case FABTRACE_A_QP_RTT_SAMPLES:
		get_uint(a, &r->samples);
		break;
	case FABTRACE_A_QP_RTT_LAST_NS:
		if (get_u32(a, &r->last_ns))
			r->have |= FT_RTT_HAVE_STATS;
		break;
	case FABTRACE_A_QP_RTT_MIN_NS:
		get_u32(a, &r->min_ns);
		break;
	case FABTRACE_A_QP_RTT_SRTT_NS:
		get_u32(a, &r->srtt_ns);
		break;
	case FABTRACE_A_QP_RTT_RTTVAR_NS:
		get_u32(a, &r->rttvar_ns);
		break;
	case FABTRACE_A_QP_RTT_ACK_DELAY_NS:
		if (get_u32(a, &r->ack_delay_ns))
			r->have |= FT_RTT_HAVE_AD;
		break;
	case FABTRACE_A_QP_RTT_BUCKET:
		if (r->nbuckets < FT_RTT_QP_BUCKETS &&
		    get_u32(a, &r->bucket[r->nbuckets]))
			r->nbuckets++;
		break;
	}
	return MNL_CB_OK;
}

static int dev_rtt_cb(const struct nlattr *a, void *data)
{
	struct ft_dev_rtt *r = data;

	switch (mnl_attr_get_type(a)) {
	case FABTRACE_A_DEV_RTT_BUCKET:
		if (r->nbuckets < FT_RTT_DEV_BUCKETS &&
		    get_uint(a, &r->bucket[r->nbuckets]))
			r->nbuckets++;
		break;
	case FABTRACE_A_DEV_RTT_SUM_NS:
		get_uint(a, &r->sum_ns);
		break;
	case FABTRACE_A_DEV_RTT_ACK_DELAY_SAMPLES:
		get_uint(a, &r->ad_samples);
		break;
	case FABTRACE_A_DEV_RTT_ACK_DELAY_SUM_NS:
		get_uint(a, &r->ad_sum_ns);
		break;
	}
	return MNL_CB_OK;
}

static int dev_cb(const struct nlattr *a, void *data)
{
	struct ft_dev_rec *r = data;
	uint64_t v;

	switch (mnl_attr_get_type(a)) {
	case FABTRACE_A_DEV_INDEX:
		get_u32(a, &r->index);
		break;
	case FABTRACE_A_DEV_NAME:
		get_str(a, r->name, sizeof(r->name));
		break;
	case FABTRACE_A_DEV_DRIVER:
		get_str(a, r->driver, sizeof(r->driver));
		break;
	case FABTRACE_A_DEV_NODE_GUID:
		/* big-endian on the wire, like the GUID's own byte order */
		if (mnl_attr_get_payload_len(a) == sizeof(uint64_t))
			r->node_guid = be64toh(mnl_attr_get_u64(a));
		break;
	case FABTRACE_A_DEV_PORT:
		/* ports beyond what we keep are left out of the listing */
		if (r->nports < FT_MAX_PORTS)
			mnl_attr_parse_nested(a, port_cb, &r->ports[r->nports++]);
		break;
	case FABTRACE_A_DEV_QPS:
		get_u32(a, &r->qps);
		break;
	case FABTRACE_A_DEV_RETAINED:
		get_u32(a, &r->retained);
		break;
	case FABTRACE_A_DEV_TX:
		parse_traffic(a, &r->tx);
		break;
	case FABTRACE_A_DEV_RX:
		parse_traffic(a, &r->rx);
		break;
	case FABTRACE_A_DEV_UNKNOWN_TX:
		get_uint(a, &r->unknown_tx);
		break;
	case FABTRACE_A_DEV_UNKNOWN_RX:
		get_uint(a, &r->unknown_rx);
		break;
	case FABTRACE_A_DEV_MALFORMED:
		get_uint(a, &r->malformed);
		break;
	case FABTRACE_A_DEV_PFC_NIC_LINKS:
		get_u32(a, &r->pfc_nic_links);
		break;
	case FABTRACE_A_DEV_HOOKED:
		if (mnl_attr_get_payload_len(a) == 1)
			r->hooked = mnl_attr_get_u8(a);
		else if (get_uint(a, &v))
			r->hooked = v;
		break;
	case FABTRACE_A_DEV_RX_DROPS:
		parse_drops(a, &r->rx_drops);
		r->have_drops = true;
		break;
	case FABTRACE_A_DEV_RTT:
		r->rtt.present = true;
		mnl_attr_parse_nested(a, dev_rtt_cb, &r->rtt);
		break;
	case FABTRACE_A_DEV_HW:
		r->hw.present = true;
		mnl_attr_parse_nested(a, dev_hw_cb, &r->hw);
		break;
	}
	return MNL_CB_OK;
}

int ft_parse_dev(const struct nlmsghdr *nlh, struct ft_dev_rec *r)
{
	memset(r, 0, sizeof(*r));
	if (genl_ok(nlh))
		return -1;
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr), dev_cb, r) < 0 ? -1 : 0;
}

static int qp_cb(const struct nlattr *a, void *data)
{
	struct ft_qp_rec *r = data;
	char path[FT_CGROUP_LEN];

	switch (mnl_attr_get_type(a)) {
	case FABTRACE_A_QP_DEV_INDEX:
		get_u32(a, &r->dev_index);
		break;
	case FABTRACE_A_QP_DEV_NAME:
		get_str(a, r->dev, sizeof(r->dev));
		break;
	case FABTRACE_A_QP_QPN:
		get_u32(a, &r->qpn);
		break;
	case FABTRACE_A_QP_TYPE:
		get_u32(a, &r->type);
		break;
	case FABTRACE_A_QP_STATE:
		get_u32(a, &r->state);
		break;
	case FABTRACE_A_QP_PORT:
		if (get_u32(a, &r->port))
			r->have |= FT_QP_HAVE_PORT;
		break;
	case FABTRACE_A_QP_REMOTE_QPN:
		if (get_u32(a, &r->remote_qpn))
			r->have |= FT_QP_HAVE_RQPN;
		break;
	case FABTRACE_A_QP_PEER_ADDR:
		if (get_gid(a, r->peer))
			r->have |= FT_QP_HAVE_PEER;
		break;
	case FABTRACE_A_QP_TCLASS:
		get_u32(a, &r->tclass);
		break;
	case FABTRACE_A_QP_SL:
		get_u32(a, &r->sl);
		break;
	case FABTRACE_A_QP_PRIO:
		if (get_u32(a, &r->prio))
			r->have |= FT_QP_HAVE_PFC;
		break;
	case FABTRACE_A_QP_PAUSED_US:
		get_uint(a, &r->paused_us);
		break;
	case FABTRACE_A_QP_PID:
		get_u32(a, &r->pid);
		break;
	case FABTRACE_A_QP_COMM:
		get_str(a, r->comm, sizeof(r->comm));
		break;
	case FABTRACE_A_QP_CREATE_TIME:
		get_uint(a, &r->create_time);
		break;
	case FABTRACE_A_QP_DESTROY_TIME:
		if (get_uint(a, &r->destroy_time))
			r->have |= FT_QP_HAVE_DTIME;
		break;
	case FABTRACE_A_QP_FLAGS:
		get_u32(a, &r->flags);
		break;
	case FABTRACE_A_QP_CGROUP_ID:
		if (mnl_attr_get_payload_len(a) == sizeof(uint64_t)) {
			r->cgroup_id = mnl_attr_get_u64(a);
			r->have |= FT_QP_HAVE_CGROUP_ID;
		}
		break;
	case FABTRACE_A_QP_CGROUP:
		if (get_str(a, path, sizeof(path))) {
			r->cgroup = ft_intern(path);
			r->have |= FT_QP_HAVE_CGROUP;
		}
		break;
	case FABTRACE_A_QP_TX:
		parse_traffic(a, &r->tx);
		r->have |= FT_QP_HAVE_TX;
		break;
	case FABTRACE_A_QP_RX:
		parse_traffic(a, &r->rx);
		r->have |= FT_QP_HAVE_RX;
		break;
	case FABTRACE_A_QP_CONG:
		parse_cong(a, &r->cong);
		break;
	case FABTRACE_A_QP_HW:
		r->hw.present = true;
		mnl_attr_parse_nested(a, qp_hw_cb, &r->hw);
		break;
	case FABTRACE_A_QP_RTT:
		r->rtt.present = true;
		mnl_attr_parse_nested(a, qp_rtt_cb, &r->rtt);
		break;
	}
	return MNL_CB_OK;
}

/* The interned strings: open addressing, never shrinks. */
static struct {
	char **slot;
	size_t cap, n;		/* cap: 0 or a power of two */
} interned;

static size_t str_hash(const char *s)
{
	size_t h = 5381;

	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

const char *ft_intern(const char *s)
{
	size_t i, j, cap;
	char **slot;

	if (interned.cap) {
		for (i = str_hash(s) & (interned.cap - 1); interned.slot[i];
		     i = (i + 1) & (interned.cap - 1))
			if (!strcmp(interned.slot[i], s))
				return interned.slot[i];
	}
	if (2 * (interned.n + 1) > interned.cap) {
		cap = interned.cap ? 2 * interned.cap : 64;
		slot = xcalloc(cap, sizeof(*slot));
		for (i = 0; i < interned.cap; i++) {
			if (!interned.slot[i])
				continue;
			for (j = str_hash(interned.slot[i]) & (cap - 1); slot[j]; j = (j + 1) & (cap - 1))
				;
			slot[j] = interned.slot[i];
		}
		free(interned.slot);
		interned.slot = slot;
		interned.cap = cap;
	}
	for (i = str_hash(s) & (interned.cap - 1); interned.slot[i]; i = (i + 1) & (interned.cap - 1))
		;
	interned.slot[i] = xmalloc(strlen(s) + 1);
	strcpy(interned.slot[i], s);
	interned.n++;
	return interned.slot[i];
}

bool ft_qp_in_cgroup(const struct ft_qp_rec *r, const char *path)
{
	size_t n = strlen(path);

	if (!(r->have & FT_QP_HAVE_CGROUP) || !r->cgroup)
		return false;
	if (n == 1 && path[0] == '/')
		return r->cgroup[0] == '/';
	return !strncmp(r->cgroup, path, n) &&
	       (r->cgroup[n] == '\0' || r->cgroup[n] == '/');
}

int ft_parse_qp(const struct nlmsghdr *nlh, struct ft_qp_rec *r)
{
	memset(r, 0, sizeof(*r));
	if (genl_ok(nlh))
		return -1;
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr), qp_cb, r) < 0 ? -1 : 0;
}

static int stats_cb(const struct nlattr *a, void *data)
{
	struct ft_stats_rec *r = data;
	unsigned int type = mnl_attr_get_type(a);

	if (type <= FABTRACE_A_STATS_MAX && ft_stats_keys[type] &&
	    get_uint(a, &r->v[type]))
		r->have |= 1ull << type;
	return MNL_CB_OK;
}

int ft_parse_stats(const struct nlmsghdr *nlh, struct ft_stats_rec *r)
{
	memset(r, 0, sizeof(*r));
	if (genl_ok(nlh))
		return -1;
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr), stats_cb, r) < 0 ? -1 : 0;
}

static int policy_cfg_cb(const struct nlattr *a, void *data)
{
	struct ft_policy_cfg *c = data;
	unsigned int type = mnl_attr_get_type(a);

	if (type == FABTRACE_A_POLICY_CFG_DSCP_MAP) {
		if (mnl_attr_get_payload_len(a) != sizeof(c->dscp))
			return MNL_CB_OK;
		memcpy(c->dscp, mnl_attr_get_payload(a), sizeof(c->dscp));
	} else if (type > FABTRACE_A_POLICY_CFG_MAX || !get_u32(a, &c->v[type])) {
		return MNL_CB_OK;
	}
	c->have |= 1u << type;
	return MNL_CB_OK;
}

static void parse_policy_cfg(const struct nlattr *nest, struct ft_policy_cfg *c)
{
	mnl_attr_parse_nested(nest, policy_cfg_cb, c);
}

static int policy_hw_cb(const struct nlattr *a, void *data)
{
	struct ft_policy_hw *hw = data;

	switch (mnl_attr_get_type(a)) {
	case FABTRACE_A_POLICY_HW_PFC:
		hw->has_values = get_u32(a, &hw->pfc);
		break;
	case FABTRACE_A_POLICY_HW_PFC_CAP:
		get_u32(a, &hw->pfc_cap);
		break;
	case FABTRACE_A_POLICY_HW_DSCP_PRIO:
		if (mnl_attr_get_payload_len(a) == sizeof(hw->dscp))
			memcpy(hw->dscp, mnl_attr_get_payload(a), sizeof(hw->dscp));
		break;
	case FABTRACE_A_POLICY_HW_TRUST:
		hw->has_trust = get_u32(a, &hw->trust);
		break;
	case FABTRACE_A_POLICY_HW_ERROR:
		get_u32(a, &hw->error);
		break;
	case FABTRACE_A_POLICY_HW_ERROR_OP:
		get_str(a, hw->error_op, sizeof(hw->error_op));
		break;
	}
	return MNL_CB_OK;
}

static void parse_policy_hw(const struct nlattr *nest, struct ft_policy_hw *hw)
{
	hw->present = true;
	mnl_attr_parse_nested(nest, policy_hw_cb, hw);
}

static int policy_cb(const struct nlattr *a, void *data)
{
	struct ft_policy_rec *r = data;

	switch (mnl_attr_get_type(a)) {
	case FABTRACE_A_POLICY_DEV_INDEX:
		get_u32(a, &r->dev_index);
		break;
	case FABTRACE_A_POLICY_DEV_NAME:
		get_str(a, r->dev, sizeof(r->dev));
		break;
	case FABTRACE_A_POLICY_PORT:
		get_u32(a, &r->port);
		break;
	case FABTRACE_A_POLICY_CONFIG:
		parse_policy_cfg(a, &r->cfg);
		break;
	case FABTRACE_A_POLICY_NETDEV_NAME:
		get_str(a, r->netdev, sizeof(r->netdev));
		break;
	case FABTRACE_A_POLICY_NETDEV_IFINDEX:
		get_u32(a, &r->ifindex);
		break;
	case FABTRACE_A_POLICY_DCB:
		get_u32(a, &r->dcb);
		break;
	case FABTRACE_A_POLICY_HW:
		parse_policy_hw(a, &r->hw);
		break;
	}
	return MNL_CB_OK;
}

int ft_parse_policy(const struct nlmsghdr *nlh, struct ft_policy_rec *r)
{
	memset(r, 0, sizeof(*r));
	if (genl_ok(nlh))
		return -1;
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr), policy_cb, r) < 0 ? -1 : 0;
}

static int pfc_prio_cb(const struct nlattr *a, void *data)
{
	struct ft_pfc_prio_rec *p = data;
	unsigned int type = mnl_attr_get_type(a);

	if (type <= FABTRACE_A_PFC_PRIO_MAX && get_uint(a, &p->v[type]))
		p->have |= 1u << type;
	return MNL_CB_OK;
}

static int pfc_link_cb(const struct nlattr *a, void *data)
{
	struct ft_pfc_rec *r = data;

	if (mnl_attr_get_type(a) == FABTRACE_A_PFC_LINK_DRIVER && !r->driver[0])
		get_str(a, r->driver, sizeof(r->driver));
	return MNL_CB_OK;
}

static int pfc_cb(const struct nlattr *a, void *data)
{
	struct ft_pfc_rec *r = data;
	struct ft_pfc_prio_rec p = { { 0 }, 0 };

	switch (mnl_attr_get_type(a)) {
	case FABTRACE_A_PFC_DEV_INDEX:
		get_u32(a, &r->dev_index);
		break;
	case FABTRACE_A_PFC_DEV_NAME:
		get_str(a, r->dev, sizeof(r->dev));
		break;
	case FABTRACE_A_PFC_PORT:
		get_u32(a, &r->port);
		break;
	case FABTRACE_A_PFC_NETDEV_NAME:
		get_str(a, r->netdev, sizeof(r->netdev));
		break;
	case FABTRACE_A_PFC_NETDEV_IFINDEX:
		get_u32(a, &r->ifindex);
		break;
	case FABTRACE_A_PFC_SPEED:
		r->have_speed = get_u32(a, &r->speed);
		break;
	case FABTRACE_A_PFC_MALFORMED:
		get_uint(a, &r->malformed);
		break;
	case FABTRACE_A_PFC_DRIVER_LINKS:
		get_u32(a, &r->driver_links);
		break;
	case FABTRACE_A_PFC_LINK:
		mnl_attr_parse_nested(a, pfc_link_cb, r);
		break;
	case FABTRACE_A_PFC_PAUSE:
		get_uint(a, &r->pause);
		break;
	case FABTRACE_A_PFC_PRIO:
		/* a priority without its number, or out of range, is skipped */
		mnl_attr_parse_nested(a, pfc_prio_cb, &p);
		if ((p.have & (1u << FABTRACE_A_PFC_PRIO_PRIO)) &&
		    p.v[FABTRACE_A_PFC_PRIO_PRIO] < 8) {
			r->prio[p.v[FABTRACE_A_PFC_PRIO_PRIO]] = p;
			r->have_prio |= 1u << p.v[FABTRACE_A_PFC_PRIO_PRIO];
		}
		break;
	}
	return MNL_CB_OK;
}

int ft_parse_pfc(const struct nlmsghdr *nlh, struct ft_pfc_rec *r)
{
	memset(r, 0, sizeof(*r));
	if (genl_ok(nlh))
		return -1;
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr), pfc_cb, r) < 0 ? -1 : 0;
}

static int event_cb(const struct nlattr *a, void *data)
{
	struct ft_event_rec *r = data;

	switch (mnl_attr_get_type(a)) {
	case FABTRACE_A_EVENT_SEQ:
		if (get_uint(a, &r->seq))
			r->have |= FT_EV_HAVE_SEQ;
		break;
	case FABTRACE_A_EVENT_KIND:
		if (get_u32(a, &r->kind))
			r->have |= FT_EV_HAVE_KIND;
		break;
	case FABTRACE_A_EVENT_TIME:
		get_uint(a, &r->time);
		break;
	case FABTRACE_A_EVENT_DEV_INDEX:
		if (get_u32(a, &r->dev_index))
			r->have |= FT_EV_HAVE_DEV_INDEX;
		break;
	case FABTRACE_A_EVENT_DEV_NAME:
		if (get_str(a, r->dev, sizeof(r->dev)))
			r->have |= FT_EV_HAVE_DEV;
		break;
	case FABTRACE_A_EVENT_QPN:
		if (get_u32(a, &r->qpn))
			r->have |= FT_EV_HAVE_QPN;
		break;
	case FABTRACE_A_EVENT_REMOTE_QPN:
		if (get_u32(a, &r->remote_qpn))
			r->have |= FT_EV_HAVE_RQPN;
		break;
	case FABTRACE_A_EVENT_PEER_ADDR:
		if (get_gid(a, r->peer))
			r->have |= FT_EV_HAVE_PEER;
		break;
	case FABTRACE_A_EVENT_PID:
		if (get_u32(a, &r->pid))
			r->have |= FT_EV_HAVE_PID;
		break;
	case FABTRACE_A_EVENT_COMM:
		if (get_str(a, r->comm, sizeof(r->comm)))
			r->have |= FT_EV_HAVE_COMM;
		break;
	case FABTRACE_A_EVENT_COUNT:
		if (get_uint(a, &r->count))
			r->have |= FT_EV_HAVE_COUNT;
		break;
	case FABTRACE_A_EVENT_SUPPRESSED:
		if (get_uint(a, &r->suppressed))
			r->have |= FT_EV_HAVE_SUPPRESSED;
		break;
	case FABTRACE_A_EVENT_TX:
		parse_traffic(a, &r->tx);
		r->have |= FT_EV_HAVE_TX;
		break;
	case FABTRACE_A_EVENT_RX:
		parse_traffic(a, &r->rx);
		r->have |= FT_EV_HAVE_RX;
		break;
	case FABTRACE_A_EVENT_CONG:
		parse_cong(a, &r->cong);
		r->have |= FT_EV_HAVE_CONG;
		break;
	case FABTRACE_A_EVENT_PORT:
		if (get_u32(a, &r->port))
			r->have |= FT_EV_HAVE_PORT;
		break;
	case FABTRACE_A_EVENT_POLICY_OLD:
		parse_policy_cfg(a, &r->old);
		r->have |= FT_EV_HAVE_POLICY;
		break;
	case FABTRACE_A_EVENT_POLICY_NEW:
		parse_policy_cfg(a, &r->new);
		r->have |= FT_EV_HAVE_POLICY;
		break;
	case FABTRACE_A_EVENT_PRIO:
		if (get_u32(a, &r->prio))
			r->have |= FT_EV_HAVE_STORM;
		break;
	case FABTRACE_A_EVENT_DURATION:
		get_uint(a, &r->duration);
		break;
	case FABTRACE_A_EVENT_QPS:
		get_u32(a, &r->qps);
		break;
	case FABTRACE_A_EVENT_HW:
		parse_policy_hw(a, &r->hw);
		break;
	}
	return MNL_CB_OK;
}

int ft_parse_event(const struct nlmsghdr *nlh, struct ft_event_rec *r)
{
	memset(r, 0, sizeof(*r));
	if (genl_ok(nlh))
		return -1;
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr), event_cb, r) < 0 ? -1 : 0;
}
