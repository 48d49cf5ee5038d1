// SPDX-License-Identifier: GPL-2.0
/* fabtrace export: the Prometheus exposition of one snapshot of the module. */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "expo.h"
#include "hwterm.h"
#include "parse.h"
#include "print.h"
#include "prom.h"
#include "units.h"
#include "util.h"

#define NS	1000000000ull
#define SV(r, a)	((r)->v[FABTRACE_A_STATS_##a])
#define CFG(a)		FABTRACE_A_POLICY_CFG_##a
#define PV(p, a)	((p)->v[FABTRACE_A_PFC_PRIO_##a])

/* --- the top QPs -------------------------------------------------------------- */

void expo_top_init(struct expo_top *t, size_t max)
{
	t->v = max ? xcalloc(max, sizeof(*t->v)) : NULL;
	t->n = 0;
	t->max = max;
}

void expo_top_clear(struct expo_top *t)
{
	t->n = 0;
}

void expo_top_free(struct expo_top *t)
{
	free(t->v);
	t->v = NULL;
	t->n = t->max = 0;
}

/* a ranks before b */
static bool top_before(const struct expo_top_qp *a, const struct expo_top_qp *b)
{
	if (a->delta != b->delta)
		return a->delta > b->delta;
	if (a->score != b->score)
		return a->score > b->score;
	if (a->r.dev_index != b->r.dev_index)
		return a->r.dev_index < b->r.dev_index;
	if (a->r.qpn != b->r.qpn)
		return a->r.qpn < b->r.qpn;
	/* the same number twice: the live one */
	return !(a->r.flags & FABTRACE_QP_FLAGS_DESTROYED);
}

void expo_top_offer(struct expo_top *t, const struct ft_qp_rec *r, uint64_t delta)
{
	struct expo_top_qp c;
	size_t i, at;

	c.score = agg_qp_score(r);
	c.delta = delta;
	if (!t->max || !c.score)
		return;
	memcpy(&c.r, r, sizeof(c.r));
	/* the same device and number: the better of the two stays */
	for (i = 0; i < t->n; i++) {
		if (t->v[i].r.dev_index != r->dev_index || t->v[i].r.qpn != r->qpn)
			continue;
		if (!top_before(&c, &t->v[i]))
			return;
		memmove(&t->v[i], &t->v[i + 1], (t->n - i - 1) * sizeof(*t->v));
		t->n--;
		break;
	}
	for (at = t->n; at > 0 && top_before(&c, &t->v[at - 1]); at--)
		;
	if (at >= t->max)
		return;
	if (t->n == t->max)
		t->n--;
	memmove(&t->v[at + 1], &t->v[at], (t->n - at) * sizeof(*t->v));
	t->v[at] = c;
	t->n++;
}

/* --- families ----------------------------------------------------------------- */

unsigned long expo_bound(size_t devs, size_t ports, size_t hw_ports, uint32_t max_groups,
			 size_t top)
{
	return EXPO_FIXED + devs * (EXPO_PER_DEV + EXPO_PER_GROUP * ((unsigned long)max_groups + 1)) +
	       ports * EXPO_PER_PORT + hw_ports * EXPO_PER_HW_PORT + top * EXPO_PER_QP;
}

/*
 * Whether device @d has series for counter @c: a tapped device always; a
 * hardware NIC's if a QP of this run counts it, or a group (or "other")
 * has a value for it from earlier ones.  Nothing not counted reads 0.
 */
static bool dev_counts(const struct agg *a, const struct agg_dev *d, unsigned int c)
{
	size_t i;

	if ((d->have & (1ull << c)) || d->other[c] || (c < AGG_NTRAFFIC && d->total[c]))
		return true;
	for (i = 0; i < a->ngroups; i++)
		if (a->groups[i]->dev_index == d->index && a->groups[i]->value[c])
			return true;
	return false;
}

static const struct stat_fam {
	uint16_t attr;
	const char *type, *name, *help;
	uint64_t div;			/* 0: a count */
} stat_fams[] = {
	{ FABTRACE_A_STATS_LOAD_TIME, "gauge", "fabtrace_module_load_time_seconds",
	  "When fabtrace.ko was loaded (Unix time): every counter started from zero then.", NS },
	{ FABTRACE_A_STATS_QPS, "gauge", "fabtrace_module_live_qps",
	  "QP entries of live QPs.", 0 },
	{ FABTRACE_A_STATS_RETAINED, "gauge", "fabtrace_module_retained_qps",
	  "Entries of destroyed QPs still retained.", 0 },
	{ FABTRACE_A_STATS_MAX_QPS, "gauge", "fabtrace_module_max_qps",
	  "Bound of the QP table (module parameter max_qps).", 0 },
	{ FABTRACE_A_STATS_RETAIN_MS, "gauge", "fabtrace_module_retain_seconds",
	  "How long a destroyed QP stays readable (module parameter retain_ms).", 1000 },
	{ FABTRACE_A_STATS_ENTRY_SIZE, "gauge", "fabtrace_module_entry_bytes",
	  "Kernel memory one QP entry takes.", 0 },
	{ FABTRACE_A_STATS_INDEX_BYTES, "gauge", "fabtrace_module_index_bytes",
	  "Kernel memory of the QP number index.", 0 },
	{ FABTRACE_A_STATS_OVERFLOW, "counter", "fabtrace_module_overflow_qps_total",
	  "QPs created while the table was full, hence not tracked.", 0 },
	{ FABTRACE_A_STATS_ALLOC_FAIL, "counter", "fabtrace_module_alloc_fail_qps_total",
	  "QPs not tracked because memory could not be allocated.", 0 },
	{ FABTRACE_A_STATS_EVICTED, "counter", "fabtrace_module_evicted_qps_total",
	  "Retained entries freed before retain_ms to make room for live QPs.", 0 },
	{ FABTRACE_A_STATS_MALFORMED, "counter", "fabtrace_module_malformed_packets_total",
	  "Packets the parser rejected, over all devices.", 0 },
	{ FABTRACE_A_STATS_UNKNOWN, "counter", "fabtrace_module_unknown_qp_packets_total",
	  "Packets of QPs without an entry, over all devices.", 0 },
	{ FABTRACE_A_STATS_HOOK_MISSED, "counter", "fabtrace_module_hook_missed_total",
	  "Hook invocations the kernel skipped: packets not counted (must stay 0).", 0 },
	{ FABTRACE_A_STATS_EVENTS_SENT, "counter", "fabtrace_module_events_sent_total",
	  "Events sent to the events group.", 0 },
	{ FABTRACE_A_STATS_EVENTS_SUPPRESSED, "counter", "fabtrace_module_events_suppressed_total",
	  "Events withheld by rate limiting.", 0 },
	{ FABTRACE_A_STATS_EVENTS_LOST, "counter", "fabtrace_module_events_lost_total",
	  "Events lost because the queue towards user space was full.", 0 },
	{ FABTRACE_A_STATS_CNP_SENT, "counter", "fabtrace_module_cnp_sent_total",
	  "CNPs fabtrace sent on soft-RoCE.", 0 },
	{ FABTRACE_A_STATS_CNP_LIMITED, "counter", "fabtrace_module_cnp_limited_total",
	  "CNPs withheld within a QP's cnp-interval.", 0 },
	{ FABTRACE_A_STATS_CNP_FAILED, "counter", "fabtrace_module_cnp_failed_total",
	  "CNPs that could not be sent.", 0 },
	{ FABTRACE_A_STATS_CNP_SKIPPED, "counter", "fabtrace_module_cnp_skipped_total",
	  "CE marks left unanswered (IPv6, or not from the QP's peer).", 0 },
};

/* Counter families of QPs (and, the traffic ones, of devices). */
static const char *const opcode_vals[] = {
	"send", "write", "read_req", "read_resp", "atomic", "ack", "nak", "cnp", "other",
};

static const char *const syndrome_vals[] = {
	"psn_seq", "rnr", "rem_access", "inv_req", "rem_op", "other",
};

static const struct ctr_fam {
	const char *suffix, *help;
	unsigned int first, n;
	const char *label;		/* with n > 1: the label that tells them apart */
	const char *const *vals;
} ctr_fams[] = {
	{ "tx_packets_total", "RoCE packets sent", AGG_TX, 1, NULL, NULL },
	{ "rx_packets_total", "RoCE packets received", AGG_RX, 1, NULL, NULL },
	{ "tx_bytes_total", "payload bytes sent (no headers, pad or ICRC)", AGG_TX + 1, 1, NULL, NULL },
	{ "rx_bytes_total", "payload bytes received (no headers, pad or ICRC)", AGG_RX + 1, 1, NULL, NULL },
	{ "tx_opcode_packets_total", "packets sent by opcode class", AGG_TX + 2, 9,
	  "opcode", opcode_vals },
	{ "rx_opcode_packets_total", "packets received by opcode class", AGG_RX + 2, 9,
	  "opcode", opcode_vals },
	/* AGG_NTRAFFIC: the device has totals of those above */
	{ "rx_ect_packets_total", "ECN-capable (ECT) packets received", AGG_CONG, 1, NULL, NULL },
	{ "rx_ce_packets_total", "CE-marked packets received", AGG_CONG + 1, 1, NULL, NULL },
	{ "retransmitted_packets_total",
	  "request or read-response packets sent again (PSN not past the highest sent)",
	  AGG_CONG + 2, 1, NULL, NULL },
	{ "timeouts_total", "retransmission timer expiries", AGG_CONG + 3, 1, NULL, NULL },
	{ "rnr_timeouts_total", "RNR retry timer expiries", AGG_CONG + 4, 1, NULL, NULL },
	{ "rx_duplicate_packets_total", "duplicate requests received", AGG_CONG + 5, 1, NULL, NULL },
	{ "rx_out_of_sequence_packets_total", "out-of-sequence requests received",
	  AGG_CONG + 6, 1, NULL, NULL },
	{ "retry_exhausted_total", "work requests that exhausted their (RNR) retries",
	  AGG_CONG + 7, 1, NULL, NULL },
	{ "error_state_entries_total", "times a QP entered the error state", AGG_CONG + 8, 1, NULL, NULL },
	{ "tx_naks_total", "NAKs sent by syndrome", AGG_TX_NAK, 6, "syndrome", syndrome_vals },
	{ "rx_naks_total", "NAKs received by syndrome", AGG_RX_NAK, 6, "syndrome", syndrome_vals },
};

#define NTRAFFIC_FAMS	6

static void family(struct prom *p, const char *prefix, const char *suffix,
		   const char *type, const char *help, char *name, size_t size)
{
	snprintf(name, size, "%s%s", prefix, suffix);
	prom_family(p, name, type, help);
}

/* --- groups ------------------------------------------------------------------- */

static int group_cmp(const void *a, const void *b)
{
	const struct agg_group *x = *(const struct agg_group *const *)a;
	const struct agg_group *y = *(const struct agg_group *const *)b;

	if (x->dev_index != y->dev_index)
		return x->dev_index < y->dev_index ? -1 : 1;
	return strcmp(x->key, y->key);
}

struct gview {
	const struct agg_group **g;	/* named groups, by device then labels */
	size_t n;
};

static void gview_make(struct gview *v, const struct agg *a)
{
	size_t i;

	v->g = xcalloc(a->ngroups, sizeof(*v->g));
	v->n = 0;
	for (i = 0; i < a->ngroups; i++) {
		const struct agg_group *g = a->groups[i];
		size_t d;

		if (g->overflow)
			continue;
		for (d = 0; d < a->ndevs; d++)
			if (a->devs[d].index == g->dev_index && a->devs[d].seen)
				break;
		if (d < a->ndevs)
			v->g[v->n++] = g;
	}
	qsort(v->g, v->n, sizeof(*v->g), group_cmp);
}

static const struct agg_group *overflow_of(const struct agg *a, uint32_t dev)
{
	size_t i;

	for (i = 0; i < a->ngroups; i++)
		if (a->groups[i]->overflow && a->groups[i]->dev_index == dev)
			return a->groups[i];
	return NULL;
}

/* The labels of a group (NULL: the device's "other"), then @extra. */
static size_t group_labels(const struct agg *a, const struct agg_dev *d,
			   const struct agg_group *g, struct prom_label *l)
{
	unsigned int i;

	l[0] = (struct prom_label){ "device", d->name };
	for (i = 0; i < agg_nlabels(a->by); i++)
		l[1 + i] = (struct prom_label){ agg_label_name(a->by, i),
						g ? g->label[i] : "other" };
	return 1 + agg_nlabels(a->by);
}

static void group_families(struct prom *p, const struct agg *a, const struct gview *v)
{
	struct prom_label l[2 + AGG_MAX_LABELS];
	char name[96], help[256];
	size_t f, i, j, k, n;

	for (f = 0; f < ARRAY_SIZE(ctr_fams); f++) {
		const struct ctr_fam *cf = &ctr_fams[f];

		snprintf(help, sizeof(help), "QPs summed by %s: %s (group \"other\": the rest of the device's).",
			 a->by == AGG_BY_OWNER ? "device, peer, priority and command" :
			 "device and cgroup", cf->help);
		family(p, "fabtrace_qps_", cf->suffix, "counter", help, name, sizeof(name));
		for (i = 0; i < a->ndevs; i++) {
			const struct agg_dev *d = &a->devs[i];

			if (!d->seen)
				continue;
			/* the device's groups, then its other */
			for (j = 0; j <= v->n; j++) {
				const struct agg_group *g = j < v->n ? v->g[j] : NULL;
				const uint64_t *val = g ? g->value : d->other;

				if (g && g->dev_index != d->index)
					continue;
				n = group_labels(a, d, g, l);
				for (k = 0; k < cf->n; k++) {
					if (!dev_counts(a, d, cf->first + k))
						continue;
					if (cf->n > 1)
						l[n] = (struct prom_label){ cf->label, cf->vals[k] };
					prom_u64(p, name, l, n + (cf->n > 1), val[cf->first + k]);
				}
			}
		}
	}
	for (f = 0; f < 2; f++) {
		family(p, "fabtrace_qps_", f ? "in_error" : "live", "gauge", f ?
		       "Live QPs of the group in the error state." : "Live QPs of the group.",
		       name, sizeof(name));
		for (i = 0; i < a->ndevs; i++) {
			const struct agg_dev *d = &a->devs[i];
			const struct agg_group *o = overflow_of(a, d->index);

			if (!d->seen)
				continue;
			for (j = 0; j <= v->n; j++) {
				const struct agg_group *g = j < v->n ? v->g[j] : o;
				uint32_t val = 0;

				if (j < v->n && g->dev_index != d->index)
					continue;
				if (g)
					val = f ? g->in_error : g->live_qps;
				n = group_labels(a, d, j < v->n ? g : NULL, l);
				prom_u64(p, name, l, n, val);
			}
		}
	}
}

/* --- devices and ports ---------------------------------------------------------- */

/*
 * A hardware NIC's port counters: ECN and CNPs under fabtrace's names
 * (hwterm.c), those its driver has; then every counter by its driver's
 * name, as rdma statistic show lists them (names are the driver's: label
 * values, never metric names).
 */
static void hw_port_families(struct prom *p, const struct expo_in *in)
{
	struct prom_label l[3];
	char name[96], help[160], port[16];
	size_t i, k, c;
	unsigned int t;
	uint64_t v;

	for (t = 0; t < HW_NTERMS; t++) {
		snprintf(name, sizeof(name), "fabtrace_port_%s", hw_terms[t].metric);
		snprintf(help, sizeof(help), "%s.", hw_terms[t].help);
		prom_family(p, name, "counter", help);
		for (i = 0; i < in->ndevs; i++) {
			const struct ft_dev_hw *hw = &in->devs[i].hw;

			for (k = 0; hw->present && k < hw->nports; k++) {
				if (!hw_term_value(&hw->ports[k], t, &v))
					continue;
				snprintf(port, sizeof(port), "%u", hw->ports[k].port);
				l[0] = (struct prom_label){ "device", in->devs[i].name };
				l[1] = (struct prom_label){ "port", port };
				prom_u64(p, name, l, 2, v);
			}
		}
	}
	prom_family(p, "fabtrace_port_hw_counter_total", "counter",
		    "A hardware NIC port's counters by its driver's name (rdma statistic show's), "
		    "carried past 32-bit wraps.");
	for (i = 0; i < in->ndevs; i++) {
		const struct ft_dev_hw *hw = &in->devs[i].hw;

		for (k = 0; hw->present && k < hw->nports; k++) {
			const struct ft_dev_hw_port *h = &hw->ports[k];

			snprintf(port, sizeof(port), "%u", h->port);
			l[0] = (struct prom_label){ "device", in->devs[i].name };
			l[1] = (struct prom_label){ "port", port };
			for (c = 0; c < h->ncounters; c++) {
				l[2] = (struct prom_label){ "counter", h->c[c].name };
				prom_u64(p, "fabtrace_port_hw_counter_total", l, 3, h->c[c].value);
			}
		}
	}
}

static void device_families(struct prom *p, const struct expo_in *in)
{
	const struct agg *a = in->agg;
	struct prom_label l[4];
	char name[96], guid[FT_FMT_LEN], help[160], port[16];
	size_t f, i, k;

	prom_family(p, "fabtrace_device_info", "gauge",
		    "An RDMA device fabtrace tracks: its driver and node GUID.");
	for (i = 0; i < in->ndevs; i++) {
		l[0] = (struct prom_label){ "device", in->devs[i].name };
		l[1] = (struct prom_label){ "driver", in->devs[i].driver };
		l[2] = (struct prom_label){ "node_guid",
					    fmt_guid(guid, sizeof(guid), in->devs[i].node_guid) };
		prom_u64(p, "fabtrace_device_info", l, 3, 1);
	}
/* a family of one series per device (@tap: per device fabtrace taps), @expr of its record r */
#define DEV_SERIES(nm, type, help, tap, expr) do {				\
	prom_family(p, nm, type, help);						\
	for (i = 0; i < in->ndevs; i++) {					\
		const struct ft_dev_rec *r = &in->devs[i];			\
		if ((tap) && r->hw.present)					\
			continue;						\
		l[0] = (struct prom_label){ "device", r->name };		\
		prom_u64(p, nm, l, 1, (expr));					\
	}									\
} while (0)
#define DEV_GAUGE(nm, help, expr) DEV_SERIES(nm, "gauge", help, false, expr)
#define DEV_COUNTER(nm, help, expr) DEV_SERIES(nm, "counter", help, true, expr)
	DEV_GAUGE("fabtrace_device_hooked",
		  "1 if fabtrace taps the device's data path (soft-RoCE): else its counters stay 0.",
		  r->hooked);
	DEV_GAUGE("fabtrace_device_live_qps", "QP entries of the device's live QPs.", r->qps);
	DEV_GAUGE("fabtrace_device_retained_qps",
		  "Entries of the device's destroyed QPs still retained.", r->retained);
	prom_family(p, "fabtrace_device_qps", "gauge",
		    "Live QPs of the device by where their numbers come from: tap (soft-RoCE, exact), "
		    "set (a NIC counter set of its own), set-shared, psn (new requests from its PSNs), "
		    "none.");
	for (i = 0; i < a->ndevs; i++) {
		const struct agg_dev *d = &a->devs[i];
		char src[16];

		if (!d->seen)
			continue;
		l[0] = (struct prom_label){ "device", d->name };
		for (k = 0; k < AGG_NSOURCES; k++) {
			l[1] = (struct prom_label){ "source",
						    kw_text(ft_kw_source, k, src, sizeof(src)) };
			prom_u64(p, "fabtrace_device_qps", l, 2, d->by_source[k]);
		}
	}
	for (f = 0; f < NTRAFFIC_FAMS; f++) {
		const struct ctr_fam *cf = &ctr_fams[f];

		snprintf(help, sizeof(help), "The device's %s: the sum of its fabtrace_qps_ series.",
			 cf->help);
		family(p, "fabtrace_device_", cf->suffix, "counter", help, name, sizeof(name));
		for (i = 0; i < a->ndevs; i++) {
			const struct agg_dev *d = &a->devs[i];

			if (!d->seen)
				continue;
			l[0] = (struct prom_label){ "device", d->name };
			for (k = 0; k < cf->n; k++) {
				if (!dev_counts(a, d, cf->first + k))
					continue;
				if (cf->n > 1)
					l[1] = (struct prom_label){ cf->label, cf->vals[k] };
				prom_u64(p, name, l, 1 + (cf->n > 1), d->total[cf->first + k]);
			}
		}
	}
	DEV_COUNTER("fabtrace_device_tx_unknown_qp_packets_total",
		    "Packets sent whose QP has no entry (table full, or not found).",
		    r->unknown_tx);
	DEV_COUNTER("fabtrace_device_rx_unknown_qp_packets_total",
		    "Packets received for a QP number with no entry.", r->unknown_rx);
	DEV_COUNTER("fabtrace_device_malformed_packets_total",
		    "Packets the parser rejected (truncated, not RoCEv2).", r->malformed);
	prom_family(p, "fabtrace_device_rx_dropped_packets_total", "counter",
		    "Received packets the driver (soft-RoCE) dropped, by the first check each failed.");
	for (i = 0; i < in->ndevs; i++) {
		const struct ft_dev_rec *r = &in->devs[i];

		if (!r->have_drops)
			continue;
		l[0] = (struct prom_label){ "device", r->name };
		for (k = FABTRACE_A_DROPS_MALFORMED; k <= FABTRACE_A_DROPS_OTHER; k++) {
			l[1] = (struct prom_label){ "reason", ft_drop_keys[k] };
			prom_u64(p, "fabtrace_device_rx_dropped_packets_total", l, 2,
				 r->rx_drops.v[k]);
		}
	}
#undef DEV_COUNTER
#undef DEV_GAUGE
#undef DEV_SERIES

	prom_family(p, "fabtrace_port_info", "gauge",
		    "A port of an RDMA device: its network device and link layer.");
	for (i = 0; i < in->ndevs; i++) {
		for (k = 0; k < in->devs[i].nports; k++) {
			const struct ft_port *pt = &in->devs[i].ports[k];
			char ll[16];

			snprintf(port, sizeof(port), "%u", pt->index);
			l[0] = (struct prom_label){ "device", in->devs[i].name };
			l[1] = (struct prom_label){ "port", port };
			l[2] = (struct prom_label){ "netdev", pt->netdev };
			l[3] = (struct prom_label){ "link_layer",
				kw_text(ft_kw_link_layer, pt->link_layer, ll, sizeof(ll)) };
			prom_u64(p, "fabtrace_port_info", l, 4, 1);
		}
	}
	prom_family(p, "fabtrace_port_active", "gauge", "1 if the port's state is ACTIVE.");
	for (i = 0; i < in->ndevs; i++) {
		for (k = 0; k < in->devs[i].nports; k++) {
			const struct ft_port *pt = &in->devs[i].ports[k];

			snprintf(port, sizeof(port), "%u", pt->index);
			l[0] = (struct prom_label){ "device", in->devs[i].name };
			l[1] = (struct prom_label){ "port", port };
			prom_u64(p, "fabtrace_port_active", l, 2,
				 (pt->have & FT_PORT_HAVE_STATE) &&
				 pt->state == FABTRACE_PORT_STATE_ACTIVE);
		}
	}
	hw_port_families(p, in);
}

/* --- policy and PFC -------------------------------------------------------------- */

static size_t port_labels(struct prom_label *l, const char *dev, uint32_t port, char *buf)
{
	sprintf(buf, "%u", port);
	l[0] = (struct prom_label){ "device", dev };
	l[1] = (struct prom_label){ "port", buf };
	return 2;
}

static void policy_families(struct prom *p, const struct expo_in *in)
{
	static const char prios[8][2] = { "0", "1", "2", "3", "4", "5", "6", "7" };
	static const struct {
		const char *name, *help;
		unsigned int attr;
		uint64_t div;
	} scalars[] = {
		{ "fabtrace_policy_cnp_enabled",
		  "1 if CE marks are answered with CNPs (policy cnp).", CFG(CNP), 0 },
		{ "fabtrace_policy_cnp_interval_seconds",
		  "Least time between two CNPs of a QP (policy cnp-interval).",
		  CFG(CNP_INTERVAL), 1000000 },
		{ "fabtrace_policy_cnp_dscp", "DSCP of the CNPs sent (policy cnp-dscp).",
		  CFG(CNP_DSCP), 0 },
		{ "fabtrace_policy_pfc_watchdog_detect_seconds",
		  "Pause time that makes a storm (policy pfc-watchdog detect); 0: off.",
		  CFG(WD_DETECT), 1000 },
		{ "fabtrace_policy_pfc_watchdog_restore_seconds",
		  "Unpaused time that ends a storm (policy pfc-watchdog restore).",
		  CFG(WD_RESTORE), 1000 },
	};
	const struct kw *k;
	struct prom_label l[4];
	char port[16], buf[16];
	size_t i, j;
	unsigned int pr, f;

	if (!in->npols)
		return;
	prom_family(p, "fabtrace_policy_info", "gauge",
		    "A port's PFC/ECN policy: which header gives a packet its priority (trust).");
	for (i = 0; i < in->npols; i++) {
		const struct ft_policy_rec *r = &in->pols[i];

		port_labels(l, r->dev, r->port, port);
		l[2] = (struct prom_label){ "trust",
			kw_text(ft_kw_trust, r->cfg.v[CFG(TRUST)], buf, sizeof(buf)) };
		prom_u64(p, "fabtrace_policy_info", l, 3, 1);
	}
	for (f = 0; f < 3; f++) {
		const char *nm = f == 0 ? "fabtrace_policy_pfc_enabled" :
				 f == 1 ? "fabtrace_policy_ecn_enabled" :
				 "fabtrace_policy_hw_pfc_enabled";

		prom_family(p, nm, "gauge", f == 0 ? "1 if the priority is lossless (policy pfc)." :
			    f == 1 ? "1 if the priority is ECN-capable (policy ecn)." :
			    "1 if the port's DCBNL hardware reports PFC on for the priority.");
		for (i = 0; i < in->npols; i++) {
			const struct ft_policy_rec *r = &in->pols[i];
			uint32_t mask = f == 0 ? r->cfg.v[CFG(PFC)] : f == 1 ?
					r->cfg.v[CFG(ECN)] : r->hw.pfc;

			if (f == 2 && !r->hw.present)
				continue;
			port_labels(l, r->dev, r->port, port);
			for (pr = 0; pr < 8; pr++) {
				l[2] = (struct prom_label){ "prio", prios[pr] };
				prom_u64(p, nm, l, 3, (mask >> pr) & 1);
			}
		}
	}
	for (j = 0; j < ARRAY_SIZE(scalars); j++) {
		prom_family(p, scalars[j].name, "gauge", scalars[j].help);
		for (i = 0; i < in->npols; i++) {
			const struct ft_policy_rec *r = &in->pols[i];

			port_labels(l, r->dev, r->port, port);
			if (scalars[j].div)
				prom_frac(p, scalars[j].name, l, 2, r->cfg.v[scalars[j].attr],
					  scalars[j].div);
			else
				prom_u64(p, scalars[j].name, l, 2, r->cfg.v[scalars[j].attr]);
		}
	}
	prom_family(p, "fabtrace_policy_dcb_state", "gauge",
		    "Where the policy stands in the port's hardware (DCBNL): 1 for the current state.");
	for (i = 0; i < in->npols; i++) {
		const struct ft_policy_rec *r = &in->pols[i];

		port_labels(l, r->dev, r->port, port);
		for (k = ft_kw_dcb; k->name; k++) {
			l[2] = (struct prom_label){ "state", k->name };
			prom_u64(p, "fabtrace_policy_dcb_state", l, 3, r->dcb == k->val);
		}
	}
}

static void pfc_families(struct prom *p, const struct expo_in *in)
{
	static const char prios[8][2] = { "0", "1", "2", "3", "4", "5", "6", "7" };
	static const struct {
		const char *type, *name, *help;
	} fams[] = {
		{ "counter", "fabtrace_pfc_rx_frames_total",
		  "PFC frames received that name the priority." },
		{ "counter", "fabtrace_pfc_rx_xoff_frames_total",
		  "PFC frames received that pause the priority (quanta > 0)." },
		{ "counter", "fabtrace_pfc_rx_xon_frames_total",
		  "PFC frames received that resume the priority (quanta 0)." },
		{ "counter", "fabtrace_pfc_rx_quanta_total",
		  "Pause quanta received for the priority." },
		{ "counter", "fabtrace_pfc_paused_seconds_total",
		  "Time the priority was paused (each XOFF's quanta at the port's speed)." },
		{ "counter", "fabtrace_pfc_unexpected_frames_total",
		  "PFC frames for the priority while the policy has no PFC on it." },
		{ "counter", "fabtrace_pfc_storms_total",
		  "Pause storms the PFC watchdog found on the priority." },
		{ "gauge", "fabtrace_pfc_paused", "1 while the priority is paused." },
		{ "gauge", "fabtrace_pfc_storm", "1 while the priority is in a pause storm." },
		{ "gauge", "fabtrace_pfc_qps", "Live QPs of the port with the priority." },
	};
	struct prom_label l[3];
	char port[16];
	size_t i, f;
	unsigned int pr;

	if (!in->npfcs)
		return;
	prom_family(p, "fabtrace_port_speed_bytes", "gauge",
		    "The port's netdev speed in bytes per second, as PFC times use it; 0: unknown.");
	for (i = 0; i < in->npfcs; i++) {
		port_labels(l, in->pfcs[i].dev, in->pfcs[i].port, port);
		prom_u64(p, "fabtrace_port_speed_bytes", l, 2, in->pfcs[i].speed * 125000ull);
	}
	prom_family(p, "fabtrace_pfc_malformed_frames_total", "counter",
		    "MAC Control frames the port received that fabtrace does not trust.");
	for (i = 0; i < in->npfcs; i++) {
		port_labels(l, in->pfcs[i].dev, in->pfcs[i].port, port);
		prom_u64(p, "fabtrace_pfc_malformed_frames_total", l, 2, in->pfcs[i].malformed);
	}
	prom_family(p, "fabtrace_pfc_pause_frames_total", "counter",
		    "802.3x PAUSE frames the port received (every priority).");
	for (i = 0; i < in->npfcs; i++) {
		port_labels(l, in->pfcs[i].dev, in->pfcs[i].port, port);
		prom_u64(p, "fabtrace_pfc_pause_frames_total", l, 2, in->pfcs[i].pause);
	}
	for (f = 0; f < ARRAY_SIZE(fams); f++) {
		prom_family(p, fams[f].name, fams[f].type, fams[f].help);
		for (i = 0; i < in->npfcs; i++) {
			const struct ft_pfc_rec *r = &in->pfcs[i];

			port_labels(l, r->dev, r->port, port);
			for (pr = 0; pr < 8; pr++) {
				const struct ft_pfc_prio_rec *q = &r->prio[pr];
				uint64_t v[] = {
					PV(q, FRAMES), PV(q, XOFF), PV(q, XON), PV(q, QUANTA), 0,
					PV(q, UNEXPECTED), PV(q, STORMS),
					PV(q, STATE) != FABTRACE_PFC_STATE_IDLE,
					PV(q, STATE) == FABTRACE_PFC_STATE_STORM, PV(q, QPS),
				};

				if (!(r->have_prio & (1u << pr)))
					continue;
				l[2] = (struct prom_label){ "prio", prios[pr] };
				if (f == 4)
					prom_frac(p, fams[f].name, l, 3, PV(q, PAUSED_NS), NS);
				else
					prom_u64(p, fams[f].name, l, 3, v[f]);
			}
		}
	}
}

/* --- the top QPs ------------------------------------------------------------------ */

static void qp_label_values(const struct ft_qp_rec *r, char v[][FT_CGROUP_LEN + 32])
{
	char buf[FT_FMT_LEN];

	snprintf(v[0], FT_FMT_LEN, "%s", kw_text(ft_kw_qp_type, r->type, buf, sizeof(buf)));
	if (r->flags & FABTRACE_QP_FLAGS_DESTROYED)
		snprintf(v[1], FT_FMT_LEN, "destroyed");
	else
		snprintf(v[1], FT_FMT_LEN, "%s",
			 kw_text(ft_kw_qp_state, r->state, buf, sizeof(buf)));
	snprintf(v[2], FT_FMT_LEN, "%s", (r->have & FT_QP_HAVE_PEER) ?
		 fmt_gid(buf, sizeof(buf), r->peer) : "none");
	if (r->have & FT_QP_HAVE_RQPN)
		snprintf(v[3], FT_FMT_LEN, "%u", r->remote_qpn);
	else
		snprintf(v[3], FT_FMT_LEN, "none");
	if (r->have & FT_QP_HAVE_PFC)
		snprintf(v[4], FT_FMT_LEN, "%u", r->prio);
	else
		snprintf(v[4], FT_FMT_LEN, "none");
	snprintf(v[5], FT_FMT_LEN, "%u", r->pid);
	snprintf(v[6], FT_CGROUP_LEN + 32, "%s", r->comm);
	if (r->have & FT_QP_HAVE_CGROUP)
		snprintf(v[7], FT_CGROUP_LEN + 32, "%s", r->cgroup);
	else if (r->have & FT_QP_HAVE_CGROUP_ID)
		snprintf(v[7], FT_CGROUP_LEN + 32, "id:%" PRIu64, r->cgroup_id);
	else
		snprintf(v[7], FT_CGROUP_LEN + 32, "kernel");
	snprintf(v[8], FT_FMT_LEN, "%s", kw_text(ft_kw_source, ft_qp_source(r), buf, sizeof(buf)));
}

static void top_families(struct prom *p, const struct expo_in *in)
{
	static const char *const info_names[] = {
		"type", "state", "peer", "remote_qpn", "prio", "pid", "comm", "cgroup", "source",
	};
	/*
	 * cong: on a hardware NIC, the cong attribute a series needs (-1: none
	 * has it; the last, paused time, needs the QP's priority)
	 */
	static const struct {
		const char *name, *help;
		int cong;
	} fams[] = {
		{ "fabtrace_qp_congestion_signals_total",
		  "What ranks the QP: CE marks, CNPs and NAKs (both ways), retransmits, timeouts.", 0 },
		{ "fabtrace_qp_tx_packets_total", "RoCE packets the QP sent.", -1 },
		{ "fabtrace_qp_rx_packets_total", "RoCE packets the QP received.", -1 },
		{ "fabtrace_qp_tx_bytes_total", "Payload bytes the QP sent.", -1 },
		{ "fabtrace_qp_rx_bytes_total", "Payload bytes the QP received.", -1 },
		{ "fabtrace_qp_rx_ect_packets_total", "ECN-capable packets the QP received.",
		  FABTRACE_A_CONG_RX_ECT },
		{ "fabtrace_qp_rx_ce_packets_total", "CE-marked packets the QP received.",
		  FABTRACE_A_CONG_RX_CE },
		{ "fabtrace_qp_tx_cnp_packets_total", "CNPs the QP sent.", -1 },
		{ "fabtrace_qp_rx_cnp_packets_total", "CNPs the QP received.", -1 },
		{ "fabtrace_qp_tx_naks_total", "NAKs the QP sent.", -1 },
		{ "fabtrace_qp_rx_naks_total", "NAKs the QP received.", -1 },
		{ "fabtrace_qp_retransmitted_packets_total", "Packets the QP sent again.",
		  FABTRACE_A_CONG_RETRANSMITS },
		{ "fabtrace_qp_timeouts_total", "Retransmission timer expiries of the QP.",
		  FABTRACE_A_CONG_TIMEOUTS },
		{ "fabtrace_qp_rnr_timeouts_total", "RNR retry timer expiries of the QP.",
		  FABTRACE_A_CONG_RNR_TIMEOUTS },
		{ "fabtrace_qp_error_state_entries_total", "Times the QP entered the error state.",
		  FABTRACE_A_CONG_ERRORS },
		{ "fabtrace_qp_paused_seconds_total",
		  "Time the QP's priority was paused by PFC while it lived (wraps at 2^32 us).", -1 },
	};
	static char vals[9][FT_CGROUP_LEN + 32];
	const struct expo_top *t = in->top;
	struct prom_label l[11];
	char qpn[16];
	size_t i, f, j;

	if (!t || !t->n)
		return;
	prom_family(p, "fabtrace_qp_info", "gauge",
		    "One of the most congested QPs (export top N): who owns it, where it goes.");
	for (i = 0; i < t->n; i++) {
		const struct ft_qp_rec *r = &t->v[i].r;

		snprintf(qpn, sizeof(qpn), "%u", r->qpn);
		l[0] = (struct prom_label){ "device", r->dev };
		l[1] = (struct prom_label){ "qpn", qpn };
		qp_label_values(r, vals);
		for (j = 0; j < ARRAY_SIZE(info_names); j++)
			l[2 + j] = (struct prom_label){ info_names[j], vals[j] };
		prom_u64(p, "fabtrace_qp_info", l, 2 + ARRAY_SIZE(info_names), 1);
	}
	for (f = 0; f < ARRAY_SIZE(fams); f++) {
		prom_family(p, fams[f].name, "counter", fams[f].help);
		for (i = 0; i < t->n; i++) {
			const struct ft_qp_rec *r = &t->v[i].r;
			uint64_t v[] = {
				t->v[i].score,
				r->tx.v[FABTRACE_A_TRAFFIC_PACKETS], r->rx.v[FABTRACE_A_TRAFFIC_PACKETS],
				r->tx.v[FABTRACE_A_TRAFFIC_BYTES], r->rx.v[FABTRACE_A_TRAFFIC_BYTES],
				r->cong.v[FABTRACE_A_CONG_RX_ECT], r->cong.v[FABTRACE_A_CONG_RX_CE],
				r->tx.v[FABTRACE_A_TRAFFIC_CNP], r->rx.v[FABTRACE_A_TRAFFIC_CNP],
				r->tx.v[FABTRACE_A_TRAFFIC_NAK], r->rx.v[FABTRACE_A_TRAFFIC_NAK],
				r->cong.v[FABTRACE_A_CONG_RETRANSMITS],
				r->cong.v[FABTRACE_A_CONG_TIMEOUTS],
				r->cong.v[FABTRACE_A_CONG_RNR_TIMEOUTS],
				r->cong.v[FABTRACE_A_CONG_ERRORS], r->paused_us,
			};

			/*
			 * a hardware NIC's QP: what its counter set counts, and
			 * its paused time (the NIC's PFC counters); no 0 for the rest
			 */
			if (r->hw.present && f &&
			    (f == ARRAY_SIZE(fams) - 1 ? !(r->have & FT_QP_HAVE_PFC) :
			     fams[f].cong < 0 || !(r->cong.have & (1u << fams[f].cong))))
				continue;
			snprintf(qpn, sizeof(qpn), "%u", r->qpn);
			l[0] = (struct prom_label){ "device", r->dev };
			l[1] = (struct prom_label){ "qpn", qpn };
			if (f == ARRAY_SIZE(fams) - 1)
				prom_frac(p, fams[f].name, l, 2, v[f], 1000000);
			else
				prom_u64(p, fams[f].name, l, 2, v[f]);
		}
	}
}

/* --- the whole --------------------------------------------------------------------- */

static void module_families(struct prom *p, const struct ft_stats_rec *s)
{
	size_t i;

	for (i = 0; s && i < ARRAY_SIZE(stat_fams); i++) {
		const struct stat_fam *f = &stat_fams[i];

		if (!(s->have & (1ull << f->attr)))
			continue;
		prom_family(p, f->name, f->type, f->help);
		if (f->div)
			prom_frac(p, f->name, NULL, 0, s->v[f->attr], f->div);
		else
			prom_u64(p, f->name, NULL, 0, s->v[f->attr]);
	}
}

static void export_families(struct prom *p, const struct expo_in *in)
{
	const struct agg *a = in->agg;
	struct prom_label l[1];
	size_t i, ports = 0, hw_ports = 0;

	for (i = 0; i < in->ndevs; i++) {
		ports += in->devs[i].nports;
		hw_ports += in->devs[i].hw.present ? in->devs[i].hw.nports : 0;
	}
	prom_family(p, "fabtrace_export_groups", "gauge",
		    "Groups of the device with series of their own (at most export's groups N).");
	for (i = 0; i < a->ndevs; i++) {
		if (!a->devs[i].seen)
			continue;
		l[0] = (struct prom_label){ "device", a->devs[i].name };
		prom_u64(p, "fabtrace_export_groups", l, 1, a->devs[i].groups);
	}
	prom_family(p, "fabtrace_export_overflow_qps", "gauge",
		    "QPs counted in the device's group \"other\" because every group slot was taken.");
	for (i = 0; i < a->ndevs; i++) {
		if (!a->devs[i].seen)
			continue;
		l[0] = (struct prom_label){ "device", a->devs[i].name };
		prom_u64(p, "fabtrace_export_overflow_qps", l, 1, a->devs[i].overflow_qps);
	}
	prom_family(p, "fabtrace_export_consistent", "gauge",
		    "1 if no device total moved while the export read the QPs: sums exact to the packet.");
	prom_u64(p, "fabtrace_export_consistent", NULL, 0, in->consistent);
	prom_family(p, "fabtrace_export_qps", "gauge", "QP entries this export read.");
	prom_u64(p, "fabtrace_export_qps", NULL, 0, in->qps);
	prom_family(p, "fabtrace_export_duration_seconds", "gauge",
		    "How long this export took to read the module.");
	prom_frac(p, "fabtrace_export_duration_seconds", NULL, 0, in->duration_ns, NS);
	prom_family(p, "fabtrace_export_max_series", "gauge",
		    "The most series an export of these devices, ports, groups and top N can have.");
	prom_u64(p, "fabtrace_export_max_series", NULL, 0,
		 expo_bound(in->ndevs, ports, hw_ports, a->max_groups, in->top ? in->top->max : 0));
}

unsigned long expo_write(FILE *fp, const struct expo_in *in)
{
	struct prom p;
	struct gview v;

	prom_init(&p, fp);
	gview_make(&v, in->agg);
	module_families(&p, in->stats);
	device_families(&p, in);
	group_families(&p, in->agg, &v);
	top_families(&p, in);
	policy_families(&p, in);
	pfc_families(&p, in);
	export_families(&p, in);
	/* last, counting itself */
	prom_family(&p, "fabtrace_export_series", "gauge", "Series in this exposition.");
	prom_u64(&p, "fabtrace_export_series", NULL, 0, p.series + 1);
	free(v.g);
	return p.series;
}
