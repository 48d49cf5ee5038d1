// SPDX-License-Identifier: GPL-2.0
/* Strict parsing of command-line values: numbers, QP number lists, keywords. */

#include <linux/fabtrace.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "util.h"

const struct kw ft_kw_qp_type[] = {
	{ "smi", FABTRACE_QP_TYPE_SMI },
	{ "gsi", FABTRACE_QP_TYPE_GSI },
	{ "rc", FABTRACE_QP_TYPE_RC },
	{ "uc", FABTRACE_QP_TYPE_UC },
	{ "ud", FABTRACE_QP_TYPE_UD },
	{ "raw_ipv6", FABTRACE_QP_TYPE_RAW_IPV6 },
	{ "raw_ethertype", FABTRACE_QP_TYPE_RAW_ETHERTYPE },
	{ "raw_packet", FABTRACE_QP_TYPE_RAW_PACKET },
	{ "xrc_ini", FABTRACE_QP_TYPE_XRC_INI },
	{ "xrc_tgt", FABTRACE_QP_TYPE_XRC_TGT },
	{ "driver", FABTRACE_QP_TYPE_DRIVER },
	{ NULL, 0 }
};

const struct kw ft_kw_qp_state[] = {
	{ "reset", FABTRACE_QP_STATE_RESET },
	{ "init", FABTRACE_QP_STATE_INIT },
	{ "rtr", FABTRACE_QP_STATE_RTR },
	{ "rts", FABTRACE_QP_STATE_RTS },
	{ "sqd", FABTRACE_QP_STATE_SQD },
	{ "sqe", FABTRACE_QP_STATE_SQE },
	{ "err", FABTRACE_QP_STATE_ERR },
	{ NULL, 0 }
};

const struct kw ft_kw_qp_flag[] = {
	{ "destroyed", FABTRACE_QP_FLAGS_DESTROYED },
	{ "kernel", FABTRACE_QP_FLAGS_KERNEL },
	{ "discovered", FABTRACE_QP_FLAGS_DISCOVERED },
	{ "congested", FABTRACE_QP_FLAGS_CONGESTED },
	{ "misconfigured", FABTRACE_QP_FLAGS_MISCONFIGURED },
	{ NULL, 0 }
};

const struct kw ft_kw_source[] = {
	{ "none", FABTRACE_SOURCE_NONE },
	{ "tap", FABTRACE_SOURCE_TAP },
	{ "set", FABTRACE_SOURCE_SET },
	{ "set-shared", FABTRACE_SOURCE_SET_SHARED },
	{ "psn", FABTRACE_SOURCE_PSN },
	{ NULL, 0 }
};

/* rdma(8)'s names of the RDMA core's counter modes (RDMA_COUNTER_MODE_*). */
const struct kw ft_kw_counter_mode[] = {
	{ "none", 0 },
	{ "auto", 1 },
	{ "manual", 2 },
	{ NULL, 0 }
};

/* Upper case, as rdma(8) and ibv_devinfo print port states. */
const struct kw ft_kw_port_state[] = {
	{ "NOP", FABTRACE_PORT_STATE_NOP },
	{ "DOWN", FABTRACE_PORT_STATE_DOWN },
	{ "INIT", FABTRACE_PORT_STATE_INIT },
	{ "ARMED", FABTRACE_PORT_STATE_ARMED },
	{ "ACTIVE", FABTRACE_PORT_STATE_ACTIVE },
	{ "ACTIVE_DEFER", FABTRACE_PORT_STATE_ACTIVE_DEFER },
	{ NULL, 0 }
};

/* The spec leaves physical states unnamed: these are ibv_devinfo's names. */
const struct kw ft_kw_phys_state[] = {
	{ "NOP", 0 },
	{ "SLEEP", 1 },
	{ "POLLING", 2 },
	{ "DISABLED", 3 },
	{ "PORT_CONFIGURATION_TRAINING", 4 },
	{ "LINK_UP", 5 },
	{ "LINK_ERROR_RECOVERY", 6 },
	{ "PHY_TEST", 7 },
	{ NULL, 0 }
};

const struct kw ft_kw_trust[] = {
	{ "pcp", FABTRACE_TRUST_PCP },
	{ "dscp", FABTRACE_TRUST_DSCP },
	{ NULL, 0 }
};

const struct kw ft_kw_dcb[] = {
	{ "no-netdev", FABTRACE_DCB_STATE_NO_NETDEV },
	{ "unsupported", FABTRACE_DCB_STATE_UNSUPPORTED },
	{ "not-applied", FABTRACE_DCB_STATE_NOT_APPLIED },
	{ "applied", FABTRACE_DCB_STATE_APPLIED },
	{ "drift", FABTRACE_DCB_STATE_DRIFT },
	{ "failed", FABTRACE_DCB_STATE_FAILED },
	{ NULL, 0 }
};

const struct kw ft_kw_link_layer[] = {
	{ "unspecified", FABTRACE_LINK_LAYER_UNSPECIFIED },
	{ "infiniband", FABTRACE_LINK_LAYER_INFINIBAND },
	{ "ethernet", FABTRACE_LINK_LAYER_ETHERNET },
	{ NULL, 0 }
};

const struct kw ft_kw_event[] = {
	{ "qp-create", FABTRACE_EVENT_KIND_QP_CREATE },
	{ "qp-destroy", FABTRACE_EVENT_KIND_QP_DESTROY },
	{ "qp-error", FABTRACE_EVENT_KIND_QP_ERROR },
	{ "ce", FABTRACE_EVENT_KIND_CE },
	{ "cnp", FABTRACE_EVENT_KIND_CNP },
	{ "nak", FABTRACE_EVENT_KIND_NAK },
	{ "retransmit", FABTRACE_EVENT_KIND_RETRANSMIT },
	{ "timeout", FABTRACE_EVENT_KIND_TIMEOUT },
	{ "rnr-timeout", FABTRACE_EVENT_KIND_RNR_TIMEOUT },
	{ "retry-exhausted", FABTRACE_EVENT_KIND_RETRY_EXHAUSTED },
	{ "dropped", FABTRACE_EVENT_KIND_DROPPED },
	{ "policy-change", FABTRACE_EVENT_KIND_POLICY_CHANGE },
	{ "misconfigured", FABTRACE_EVENT_KIND_MISCONFIGURED },
	{ "storm-start", FABTRACE_EVENT_KIND_STORM_START },
	{ "storm-end", FABTRACE_EVENT_KIND_STORM_END },
	{ "policy-drift", FABTRACE_EVENT_KIND_POLICY_DRIFT },
	{ NULL, 0 }
};

int kw_lookup(const struct kw *table, const char *name, uint32_t *val)
{
	for (; table->name; table++) {
		if (!strcmp(table->name, name)) {
			*val = table->val;
			return 0;
		}
	}
	return -1;
}

const char *kw_name(const struct kw *table, uint32_t val)
{
	for (; table->name; table++)
		if (table->val == val)
			return table->name;
	return NULL;
}

const char *kw_list(const struct kw *table, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (; table->name && off < len; table++) {
		size_t n = strlen(table->name) + 1;

		if (off + n >= len)
			break;
		if (off)
			buf[off - 1] = '|';
		memcpy(buf + off, table->name, n);
		off += n;
	}
	return buf;
}

const char *kw_expect(const struct kw *table, char *buf, size_t len)
{
	static const char prefix[] = "not one of ";

	if (len <= sizeof(prefix)) {
		if (len)
			buf[0] = '\0';
		return buf;
	}
	memcpy(buf, prefix, sizeof(prefix) - 1);
	kw_list(table, buf + sizeof(prefix) - 1, len - (sizeof(prefix) - 1));
	return buf;
}

int parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (!s || !*s)
		return -1;
	for (; *s; s++) {
		unsigned int d;

		if (*s < '0' || *s > '9')
			return -1;
		d = *s - '0';
		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	if (v > max)
		return -1;
	*out = v;
	return 0;
}

int parse_u32(const char *s, uint32_t max, uint32_t *out)
{
	uint64_t v;

	if (parse_u64(s, max, &v))
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* One decimal QP number spanning [s, end). */
static const char *qpn_of(const char *s, const char *end, uint32_t *out)
{
	uint64_t v = 0;

	if (s == end)
		return "empty QP number";
	for (; s < end; s++) {
		if (*s < '0' || *s > '9')
			return "not a decimal QP number";
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > FT_QPN_MAX)
			return "QP number above 16777215";
	}
	*out = (uint32_t)v;
	return NULL;
}

static int range_cmp(const void *a, const void *b)
{
	const struct qpn_range *x = a, *y = b;

	if (x->min != y->min)
		return x->min < y->min ? -1 : 1;
	return x->max < y->max ? -1 : x->max > y->max;
}

const char *parse_qpn_list(const char *s, struct qpn_range **ranges, size_t *n)
{
	struct qpn_range *r;
	size_t items = 1, i = 0, j;
	const char *p, *why = NULL;

	if (!s || !*s)
		return "empty list";
	for (p = s; *p; p++)
		items += *p == ',';
	r = xcalloc(items, sizeof(*r));
	for (p = s; ; i++) {
		const char *end = strchr(p, ','), *dash;

		if (!end)
			end = p + strlen(p);
		if (end == p) {
			why = "empty item";
			goto err;
		}
		dash = memchr(p, '-', end - p);
		if (!dash) {
			why = qpn_of(p, end, &r[i].min);
			r[i].max = r[i].min;
		} else if (dash == p) {
			why = "range without a start";
		} else if (dash + 1 == end) {
			why = "range without an end";
		} else {
			why = qpn_of(p, dash, &r[i].min);
			if (!why)
				why = qpn_of(dash + 1, end, &r[i].max);
			if (!why && r[i].min > r[i].max)
				why = "range whose start is above its end";
		}
		if (why)
			goto err;
		if (!*end)
			break;
		p = end + 1;
	}

	qsort(r, items, sizeof(*r), range_cmp);
	for (i = 0, j = 1; j < items; j++) {
		/* merge overlapping and adjacent ranges (no overflow: max <= 2^24) */
		if (r[j].min <= r[i].max + 1) {
			if (r[j].max > r[i].max)
				r[i].max = r[j].max;
		} else {
			r[++i] = r[j];
		}
	}
	*ranges = r;
	*n = i + 1;
	return NULL;

err:
	free(r);
	return why;
}

const char *parse_event_list(const char *s, uint32_t *mask)
{
	char name[32];
	uint32_t m = 0, kind;
	const char *p;

	if (!s || !*s)
		return "empty list";
	for (p = s; ; ) {
		const char *end = strchr(p, ',');
		size_t len;

		if (!end)
			end = p + strlen(p);
		len = end - p;
		if (!len)
			return "empty item";
		if (len >= sizeof(name))
			return "unknown event kind";
		memcpy(name, p, len);
		name[len] = '\0';
		if (kw_lookup(ft_kw_event, name, &kind))
			return "unknown event kind";
		m |= 1u << kind;
		if (!*end)
			break;
		p = end + 1;
	}
	*mask = m;
	return NULL;
}
