// SPDX-License-Identifier: GPL-2.0
/* Printing of records the commands share: counters, QPs, devices, ports, events. */

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "hwterm.h"
#include "out.h"
#include "parse.h"
#include "print.h"
#include "units.h"
#include "util.h"

const char *kw_text(const struct kw *table, uint32_t val, char *buf, size_t len)
{
	const char *name = kw_name(table, val);

	if (name)
		return name;
	snprintf(buf, len, "%u", val);
	return buf;
}

/* --- counters ------------------------------------------------------------ */

static void print_u64_kv(struct out *o, const char *key, uint64_t v)
{
	out_text(o, " %s ", key);
	out_u64(o, PRINT_ANY, key, "%llu", v);
}

/*
 * What a hardware NIC did not count (@have without its bit; NULL: all
 * counted): "-" in text, absent from JSON, never 0.
 */
static void print_u64_kv_have(struct out *o, const char *key, uint64_t v,
			      const uint32_t *have, unsigned int type)
{
	if (!have || (type < 32 && (*have & (1u << type)))) {
		print_u64_kv(o, key, v);
		return;
	}
	out_text(o, " %s -", key);
}

/* "<indent>key: k1 v1 k2 v2 ..." or {"key": {...}}: counters @first to @last. */
static void print_nest_have(struct out *o, const char *key, const char *indent,
			    const char *const *keys, unsigned int first, unsigned int last,
			    const uint64_t *v, const uint32_t *have)
{
	unsigned int i;

	out_obj_begin(o, key);
	out_text(o, "%s%s:", indent, key);
	for (i = first; i <= last; i++)
		print_u64_kv_have(o, keys[i], v[i], have, i);
	out_text(o, "\n");
	out_obj_end(o);
}

static void print_nest(struct out *o, const char *key, const char *indent,
		       const char *const *keys, unsigned int first, unsigned int last,
		       const uint64_t *v)
{
	print_nest_have(o, key, indent, keys, first, last, v, NULL);
}

void print_traffic(struct out *o, const char *key, const char *indent,
		   const struct ft_traffic *t)
{
	print_nest(o, key, indent, ft_traffic_keys, FABTRACE_A_TRAFFIC_PACKETS,
		   FABTRACE_A_TRAFFIC_OTHER, t->v);
}

/* Text only: "<lead>tx packets 1.2K bytes 3.4MiB<sep>rx packets ... bytes ...". */
static void print_packets_bytes(struct out *o, const char *lead, const char *sep,
				const struct ft_traffic *tx, const struct ft_traffic *rx)
{
	out_text(o, "%stx", lead);
	out_count(o, PRINT_FP, NULL, " packets %s", tx->v[FABTRACE_A_TRAFFIC_PACKETS]);
	out_bytes(o, PRINT_FP, NULL, " bytes %s", tx->v[FABTRACE_A_TRAFFIC_BYTES]);
	out_text(o, "%srx", sep);
	out_count(o, PRINT_FP, NULL, " packets %s", rx->v[FABTRACE_A_TRAFFIC_PACKETS]);
	out_bytes(o, PRINT_FP, NULL, " bytes %s", rx->v[FABTRACE_A_TRAFFIC_BYTES]);
}

/* @partial: a hardware NIC's, which sends only what it counted */
static void print_naks(struct out *o, const char *key, const char *indent,
		       const struct ft_naks *n, bool partial)
{
	/* none counted: no object in JSON, a line of "-" in text */
	if (partial && !n->have && out_is_json(o))
		return;
	print_nest_have(o, key, indent, ft_nak_keys, FABTRACE_A_NAK_PSN_SEQ,
			FABTRACE_A_NAK_OTHER, n->v, partial ? &n->have : NULL);
}

static void print_cong_of(struct out *o, const char *indent, const struct ft_cong *c,
			  bool partial)
{
	const uint32_t *have = partial ? &c->have : NULL;
	unsigned int i;

	out_obj_begin(o, "cong");
	out_text(o, "%scong:", indent);
	print_u64_kv_have(o, ft_cong_keys[FABTRACE_A_CONG_RX_ECT], c->v[FABTRACE_A_CONG_RX_ECT],
			  have, FABTRACE_A_CONG_RX_ECT);
	print_u64_kv_have(o, ft_cong_keys[FABTRACE_A_CONG_RX_CE], c->v[FABTRACE_A_CONG_RX_CE],
			  have, FABTRACE_A_CONG_RX_CE);
	/* JSON keeps the spec's order; text puts the NAK nests on lines of their own */
	if (out_is_json(o)) {
		print_naks(o, "tx_nak", indent, &c->tx_nak, partial);
		print_naks(o, "rx_nak", indent, &c->rx_nak, partial);
	}
	for (i = FABTRACE_A_CONG_RETRANSMITS; i <= FABTRACE_A_CONG_ERRORS; i++)
		print_u64_kv_have(o, ft_cong_keys[i], c->v[i], have, i);
	out_text(o, "\n");
	if (!out_is_json(o)) {
		print_naks(o, "tx_nak", indent, &c->tx_nak, partial);
		print_naks(o, "rx_nak", indent, &c->rx_nak, partial);
	}
	for (i = FABTRACE_A_CONG_LAST_CE; i <= FABTRACE_A_CONG_LAST_RNR_TIMEOUT; i++) {
		if (!(c->have_last & (1u << (i - FABTRACE_A_CONG_LAST_CE))))
			continue;
		out_text(o, "%s%s ", indent, ft_cong_keys[i]);
		out_time(o, PRINT_ANY, ft_cong_keys[i], "%s\n", c->v[i]);
	}
	out_obj_end(o);
}

void print_cong(struct out *o, const char *indent, const struct ft_cong *c)
{
	print_cong_of(o, indent, c, false);
}

/* --- hardware NICs --------------------------------------------------------- */

const char *fmt_source(char *buf, size_t len, const struct ft_qp_rec *r)
{
	uint32_t src = ft_qp_source(r);

	if (src == FABTRACE_SOURCE_SET_SHARED && (r->hw.have & FT_HW_HAVE_SET_QPS)) {
		snprintf(buf, len, "set-shared(%u)", r->hw.set_qps);
		return buf;
	}
	return kw_text(ft_kw_source, src, buf, len);
}

/*
 * Counters by their driver's names: [{"name": N, "value": V}, ...] in
 * JSON (jq's from_entries makes an object of it; a name never becomes a
 * key, so it is escaped as every string the kernel sends), and
 * "<indent>key: name value ..." in text, a few a line.
 */
static void print_hw_counters(struct out *o, const char *key, const char *indent,
			      const struct ft_hw_counter *c, unsigned int n, bool truncated)
{
	unsigned int i;

	out_arr_begin(o, key);
	out_text(o, "%s%s:", indent, key);
	for (i = 0; i < n; i++) {
		if (i && !(i % 4))
			out_text(o, "\n%s  ", indent);
		out_obj_begin(o, NULL);
		out_str(o, PRINT_ANY, "name", " %s", c[i].name);
		out_u64(o, PRINT_ANY, "value", " %llu", c[i].value);
		out_obj_end(o);
	}
	if (!n)
		out_text(o, " -");
	/* the rest did not fit the record: say so, never drop them silently */
	if (truncated)
		out_text(o, " ...");
	out_text(o, "\n");
	out_arr_end(o);
	if (truncated)
		out_bool(o, PRINT_JSON, "counters_truncated", NULL, true);
}

/* --- round trips ----------------------------------------------------------- */

/* A duration in ns, as a cell: its value in -n mode, else with a unit. */
static const char *fmt_ns(const struct out *o, char *buf, size_t len, uint64_t ns)
{
	if (out_numeric(o))
		snprintf(buf, len, "%llu", (unsigned long long)ns);
	else
		fmt_duration(buf, len, ns);
	return buf;
}

/* A duration in ns: "key" in JSON, " key <duration>" in text. */
static void print_ns(struct out *o, const char *key, const char *text, uint64_t ns)
{
	char buf[FT_FMT_LEN];

	out_u64(o, PRINT_JSON, key, NULL, ns);
	out_text(o, " %s %s", text, fmt_ns(o, buf, sizeof(buf), ns));
}

/*
 * A histogram's buckets: "buckets" (counts) and "bounds_ns" (each one's
 * upper bound, the last bucket's none) in JSON; "<bound n ... >=bound n"
 * in text.
 */
static void print_buckets(struct out *o, const char *indent, const uint64_t *n,
			  unsigned int nb, double le0, double step)
{
	char buf[FT_FMT_LEN];
	unsigned int i;
	double le = le0;

	out_arr_begin(o, "buckets");
	for (i = 0; i < nb; i++)
		out_u64(o, PRINT_JSON, NULL, NULL, n[i]);
	out_arr_end(o);
	out_arr_begin(o, "bounds_ns");
	for (i = 0; i + 1 < nb; i++, le *= step)
		out_u64(o, PRINT_JSON, NULL, NULL, (uint64_t)le);
	out_arr_end(o);
	out_text(o, "%srtt_hist:", indent);
	for (i = 0, le = le0; i < nb; i++, le *= step) {
		if (i && !(i % 8))
			out_text(o, "\n%s         ", indent);
		fmt_duration(buf, sizeof(buf), (uint64_t)(i + 1 < nb ? le : le / step));
		out_text(o, " %s%s %llu", i + 1 < nb ? "<" : ">=", buf, (unsigned long long)n[i]);
	}
	out_text(o, "\n");
}

/* A QP's round trips: "rtt" in JSON (absent where not timed), a line or two in text. */
static void print_qp_rtt(struct out *o, const struct ft_qp_rec *r)
{
	const struct ft_qp_rtt *t = &r->rtt;
	uint64_t n[FT_RTT_QP_BUCKETS];
	unsigned int i;

	if (!t->present) {
		/* not timed (a hardware NIC's QP, UD, UC): "-", never 0 */
		out_text(o, "    rtt: -\n");
		return;
	}
	out_obj_begin(o, "rtt");
	out_u64(o, PRINT_ANY, "samples", "    rtt: samples %llu", t->samples);
	if (t->have & FT_RTT_HAVE_STATS) {
		print_ns(o, "last_ns", "last", t->last_ns);
		print_ns(o, "min_ns", "min", t->min_ns);
		print_ns(o, "srtt_ns", "srtt", t->srtt_ns);
		print_ns(o, "rttvar_ns", "rttvar", t->rttvar_ns);
	}
	if (t->have & FT_RTT_HAVE_AD)
		print_ns(o, "ack_delay_ns", "ack_delay", t->ack_delay_ns);
	out_text(o, "\n");
	if (t->nbuckets) {
		for (i = 0; i < t->nbuckets; i++)
			n[i] = t->bucket[i];
		print_buckets(o, "    ", n, t->nbuckets, FT_RTT_QP_LE0_NS, FT_RTT_QP_STEP);
	}
	out_obj_end(o);
}

/* A device's round trips: "rtt" in JSON; in text, a line, and with -s its histogram. */
static void print_dev_rtt(struct out *o, const struct ft_dev_rtt *t, int stats)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < t->nbuckets; i++)
		n += t->bucket[i];
	out_obj_begin(o, "rtt");
	out_u64(o, PRINT_ANY, "samples", "    rtt: samples %llu", n);
	out_u64(o, PRINT_JSON, "sum_ns", NULL, t->sum_ns);
	if (n)
		print_ns(o, "mean_ns", "mean", t->sum_ns / n);
	out_u64(o, PRINT_ANY, "ack_delay_samples", " ack_delay_samples %llu", t->ad_samples);
	out_u64(o, PRINT_JSON, "ack_delay_sum_ns", NULL, t->ad_sum_ns);
	if (t->ad_samples)
		print_ns(o, "ack_delay_mean_ns", "ack_delay_mean", t->ad_sum_ns / t->ad_samples);
	out_text(o, "\n");
	if (stats || out_is_json(o))
		print_buckets(o, "    ", t->bucket, t->nbuckets, FT_RTT_DEV_LE0_NS,
			      FT_RTT_DEV_STEP);
	out_obj_end(o);
}

/* A few errnos a bind gives, by name (the module sends them positive). */
static const struct kw bind_errors[] = {
	{ "ENOMEM", 12 },
	{ "EBUSY", 16 },
	{ "EINVAL", 22 },
	{ "ENOSPC", 28 },
	{ "EOPNOTSUPP", 95 },
	{ NULL, 0 }
};

/* What a hardware NIC counts of a QP: its hw object, or its text lines. */
static void print_qp_hw(struct out *o, const struct ft_qp_hw *h)
{
	char buf[32];

	out_obj_begin(o, "hw");
	out_text(o, "    hw:");
	out_str(o, PRINT_ANY, "source", " source %s",
		kw_text(ft_kw_source, (h->have & FT_HW_HAVE_SOURCE) ? h->source :
			FABTRACE_SOURCE_NONE, buf, sizeof(buf)));
	if (h->have & FT_HW_HAVE_SET)
		out_u64(o, PRINT_ANY, "set_id", " set_id %llu", h->set_id);
	if (h->have & FT_HW_HAVE_SET_QPS)
		out_u64(o, PRINT_ANY, "set_qps", " set_qps %llu", h->set_qps);
	/* new request packets, from the PSNs: not packets, not bytes */
	if (h->have & FT_HW_HAVE_PSN) {
		out_u64(o, PRINT_ANY, "psn_tx", " psn_tx %llu", h->psn_tx);
		out_u64(o, PRINT_ANY, "psn_rx", " psn_rx %llu", h->psn_rx);
	}
	if (h->have & FT_HW_HAVE_BIND_ERROR) {
		out_u64(o, PRINT_JSON, "bind_error", NULL, h->bind_error);
		out_str(o, PRINT_ANY, "bind_error_name", " bind_error %s",
			kw_text(bind_errors, h->bind_error, buf, sizeof(buf)));
	}
	out_text(o, "\n");
	if (h->have & FT_HW_HAVE_SET)
		print_hw_counters(o, "counters", "    ", h->c, h->ncounters, h->truncated);
	out_obj_end(o);
}

/* --- QPs ----------------------------------------------------------------- */

static void print_flags(struct out *o, uint32_t flags)
{
	const struct kw *f;
	bool first = true;

	out_arr_begin(o, "flags");
	for (f = ft_kw_qp_flag; f->name; f++) {
		if (!(flags & f->val))
			continue;
		out_text(o, first ? " flags " : ",");
		out_str(o, PRINT_ANY, NULL, "%s", f->name);
		first = false;
	}
	out_arr_end(o);
}

void print_qp_full(struct out *o, const struct ft_qp_rec *r)
{
	char buf[FT_FMT_LEN];
	bool kernel = r->flags & FABTRACE_QP_FLAGS_KERNEL;

	out_obj_begin(o, NULL);
	out_str(o, PRINT_ANY, "dev", "%s", r->dev);
	out_u64(o, PRINT_JSON, "dev_index", NULL, r->dev_index);
	out_u64(o, PRINT_ANY, "qpn", " qpn %llu", r->qpn);
	out_str(o, PRINT_ANY, "type", " type %s",
		kw_text(ft_kw_qp_type, r->type, buf, sizeof(buf)));
	out_str(o, PRINT_ANY, "state", " state %s",
		kw_text(ft_kw_qp_state, r->state, buf, sizeof(buf)));
	if (r->have & FT_QP_HAVE_PORT)
		out_u64(o, PRINT_ANY, "port", " port %llu", r->port);
	/* where its numbers come from: the name in JSON, set-shared(N) in text */
	out_str(o, PRINT_JSON, "source", NULL,
		kw_text(ft_kw_source, ft_qp_source(r), buf, sizeof(buf)));
	out_str(o, PRINT_FP, NULL, " source %s", fmt_source(buf, sizeof(buf), r));
	out_text(o, "\n   ");
	if (r->have & FT_QP_HAVE_RQPN)
		out_u64(o, PRINT_ANY, "remote_qpn", " rqpn %llu", r->remote_qpn);
	if (r->have & FT_QP_HAVE_PEER)
		out_str(o, PRINT_ANY, "peer", " peer %s",
			fmt_gid(buf, sizeof(buf), r->peer));
	out_u64(o, PRINT_ANY, "tclass", " tclass %llu", r->tclass);
	out_u64(o, PRINT_ANY, "sl", " sl %llu", r->sl);
	if (r->have & FT_QP_HAVE_PFC) {
		out_u64(o, PRINT_ANY, "prio", " prio %llu", r->prio);
		out_u64(o, PRINT_JSON, "paused_us", NULL, r->paused_us);
		if (r->paused_us)
			out_u64(o, PRINT_FP, NULL, " paused %llu us", r->paused_us);
	}
	out_text(o, "\n   ");
	/* kernel consumers have no process: name them as rdma(8) does */
	out_u64(o, kernel ? PRINT_JSON : PRINT_ANY, "pid", " pid %llu", r->pid);
	out_str(o, PRINT_ANY, "comm", kernel ? " comm [%s]" : " comm %s", r->comm);
	/* the path while the cgroup exists; the id alone says which one it was */
	if (r->have & FT_QP_HAVE_CGROUP_ID)
		out_u64(o, (r->have & FT_QP_HAVE_CGROUP) ? PRINT_JSON : PRINT_ANY,
			"cgroup_id", " cgroup_id %llu", r->cgroup_id);
	if (r->have & FT_QP_HAVE_CGROUP)
		out_str(o, PRINT_ANY, "cgroup", " cgroup %s", r->cgroup);
	out_time(o, PRINT_ANY, "create_time", " created %s", r->create_time);
	if (r->have & FT_QP_HAVE_DTIME)
		out_time(o, PRINT_ANY, "destroy_time", " destroyed %s",
			 r->destroy_time);
	print_flags(o, r->flags);
	out_text(o, "\n");
	/* a hardware NIC's QP has no packet or byte counts: "-", no object */
	if (!r->hw.present || (r->have & FT_QP_HAVE_TX))
		print_traffic(o, "tx", "    ", &r->tx);
	else
		out_text(o, "    tx: -\n");
	if (!r->hw.present || (r->have & FT_QP_HAVE_RX))
		print_traffic(o, "rx", "    ", &r->rx);
	else
		out_text(o, "    rx: -\n");
	print_cong_of(o, "    ", &r->cong, r->hw.present);
	print_qp_rtt(o, r);
	if (r->hw.present)
		print_qp_hw(o, &r->hw);
	out_text(o, "\n");
	out_obj_end(o);
}

void fmt_qp_cells(struct qp_cells *c, const struct ft_qp_rec *r)
{
	char name[OUT_ESC_SIZE(FT_COMM_LEN)];
	bool kernel = r->flags & FABTRACE_QP_FLAGS_KERNEL;

	snprintf(c->qpn, sizeof(c->qpn), "%u", r->qpn);
	if (kernel)
		snprintf(c->pid, sizeof(c->pid), "-");
	else
		snprintf(c->pid, sizeof(c->pid), "%u", r->pid);
	/* a row is formatted here, not by out_str(): escape what it would */
	out_esc(c->dev, sizeof(c->dev), r->dev);
	snprintf(c->comm, sizeof(c->comm), kernel ? "[%s]" : "%s",
		 out_esc(name, sizeof(name), r->comm));
	fmt_peer(c->peer, sizeof(c->peer), (r->have & FT_QP_HAVE_PEER) ? r->peer : NULL,
		 r->have & FT_QP_HAVE_RQPN, r->remote_qpn);
}

#define QP_ROW_FMT "%-8s %8s %-5s %-9s %7s %-15s %-21s %8s %9s %8s %9s %6s %6s %6s %6s %7s %s\n"

void print_qp_header(struct out *o)
{
	out_text(o, QP_ROW_FMT, "DEV", "QPN", "TYPE", "STATE", "PID", "COMM",
		 "PEER", "TX-PKTS", "TX-BYTES", "RX-PKTS", "RX-BYTES", "CE",
		 "CNP", "NAK", "RETX", "RTT", "SOURCE");
}

/* A hardware NIC's QP's NAKs, into @buf: those of the syndromes it counted, or "-". */
static void fmt_hw_naks(const struct out *o, char *buf, size_t len, const struct ft_qp_rec *r)
{
	char tmp[FT_FMT_LEN];

	if (!r->cong.tx_nak.have && !r->cong.rx_nak.have) {
		snprintf(buf, len, "-");
		return;
	}
	snprintf(buf, len, "%s", out_fmt_count(o, tmp, sizeof(tmp), ft_qp_hw_nak(r)));
}

void print_qp_row(struct out *o, const struct ft_qp_rec *r)
{
	char tbuf[16], sbuf[16], txp[FT_FMT_LEN], txb[FT_FMT_LEN];
	char rxp[FT_FMT_LEN], rxb[FT_FMT_LEN], ce[FT_FMT_LEN];
	char cnp[FT_FMT_LEN], nak[FT_FMT_LEN], retx[FT_FMT_LEN], src[32];
	char rtt[FT_FMT_LEN];
	const char *type, *state;
	struct qp_cells c = { 0 };

	fmt_qp_cells(&c, r);
	type = kw_text(ft_kw_qp_type, r->type, tbuf, sizeof(tbuf));
	if (r->flags & FABTRACE_QP_FLAGS_DESTROYED)
		state = "destroyed";
	else
		state = kw_text(ft_kw_qp_state, r->state, sbuf, sizeof(sbuf));
	if (!r->hw.present) {
		out_fmt_count(o, txp, sizeof(txp), r->tx.v[FABTRACE_A_TRAFFIC_PACKETS]);
		out_fmt_bytes(o, txb, sizeof(txb), r->tx.v[FABTRACE_A_TRAFFIC_BYTES]);
		out_fmt_count(o, rxp, sizeof(rxp), r->rx.v[FABTRACE_A_TRAFFIC_PACKETS]);
		out_fmt_bytes(o, rxb, sizeof(rxb), r->rx.v[FABTRACE_A_TRAFFIC_BYTES]);
		out_fmt_count(o, ce, sizeof(ce), r->cong.v[FABTRACE_A_CONG_RX_CE]);
		out_fmt_count(o, cnp, sizeof(cnp), ft_qp_cnp(r));
		out_fmt_count(o, nak, sizeof(nak), ft_qp_nak(r));
		out_fmt_count(o, retx, sizeof(retx), r->cong.v[FABTRACE_A_CONG_RETRANSMITS]);
	} else {
		/*
		 * A hardware NIC counts no packets, bytes, CE marks or CNPs
		 * per QP: "-", never 0.  Its NAKs and retransmits, where
		 * its counter set has them.
		 */
		strcpy(txp, "-");
		strcpy(txb, "-");
		strcpy(rxp, "-");
		strcpy(rxb, "-");
		strcpy(ce, "-");
		strcpy(cnp, "-");
		fmt_hw_naks(o, nak, sizeof(nak), r);
		if (r->cong.have & (1u << FABTRACE_A_CONG_RETRANSMITS))
			out_fmt_count(o, retx, sizeof(retx),
				      r->cong.v[FABTRACE_A_CONG_RETRANSMITS]);
		else
			strcpy(retx, "-");
	}
	/* its smoothed round trip; "-" where not timed, or not yet */
	if (r->rtt.have & FT_RTT_HAVE_STATS)
		fmt_ns(o, rtt, sizeof(rtt), r->rtt.srtt_ns);
	else
		strcpy(rtt, "-");
	out_text(o, QP_ROW_FMT, c.dev, c.qpn, type, state, c.pid, c.comm, c.peer,
		 txp, txb, rxp, rxb, ce, cnp, nak, retx, rtt,
		 fmt_source(src, sizeof(src), r));
}

/* --- devices and the module ---------------------------------------------- */

/* The hardware part of port @index of @r, or NULL. */
static const struct ft_dev_hw_port *hw_port(const struct ft_dev_rec *r, uint32_t index)
{
	unsigned int i;

	for (i = 0; r->hw.present && i < r->hw.nports; i++)
		if (r->hw.ports[i].port == index)
			return &r->hw.ports[i];
	return NULL;
}

/*
 * The port's ECN and CNP counters under fabtrace's names, those its
 * driver has ("congestion: ecn_marked 12 cnp_sent 12"); none, no line.
 */
static void print_hw_congestion(struct out *o, const struct ft_dev_hw_port *h)
{
	bool any = false;
	unsigned int t;
	uint64_t v;

	for (t = 0; t < HW_NTERMS; t++) {
		if (!hw_term_value(h, t, &v))
			continue;
		if (!any) {
			out_obj_begin(o, "congestion");
			out_text(o, "      congestion:");
			any = true;
		}
		out_text(o, " %s", hw_terms[t].key);
		out_u64(o, PRINT_ANY, hw_terms[t].key, " %llu", v);
	}
	if (any) {
		out_text(o, "\n");
		out_obj_end(o);
	}
}

/*
 * A hardware port's counter sets: "counters auto (operator's)", as the
 * RDMA core's mode says (rdma statistic qp mode); with @stats (JSON:
 * always) every port counter by its driver's name.
 */
static void print_hw_port(struct out *o, const struct ft_dev_rec *r,
			  const struct ft_dev_hw_port *h, int stats)
{
	char buf[32];

	if (r->hw.sets && h->have_mode) {
		out_str(o, PRINT_ANY, "counter_mode", " counter_mode %s",
			kw_text(ft_kw_counter_mode, h->mode, buf, sizeof(buf)));
		/* an operator's auto mode or sets: fabtrace reads them, binds nothing */
		out_bool(o, PRINT_JSON, "counter_mode_operator", NULL, h->theirs);
		if (h->theirs)
			out_text(o, " (operator's)");
	}
	out_text(o, "\n");
	print_hw_congestion(o, h);
	if (stats || out_is_json(o))
		print_hw_counters(o, "counters", "      ", h->c, h->ncounters, h->truncated);
}

static void print_port(struct out *o, const struct ft_dev_rec *r, const struct ft_port *p,
		       int stats)
{
	const struct ft_dev_hw_port *h = hw_port(r, p->index);
	char buf[FT_FMT_LEN];

	out_obj_begin(o, NULL);
	out_u64(o, PRINT_ANY, "port", "    port %llu", p->index);
	if (p->have & FT_PORT_HAVE_STATE)
		out_str(o, PRINT_ANY, "state", " state %s",
			kw_text(ft_kw_port_state, p->state, buf, sizeof(buf)));
	if (p->have & FT_PORT_HAVE_PHYS)
		out_str(o, PRINT_ANY, "phys_state", " phys %s",
			kw_text(ft_kw_phys_state, p->phys_state, buf, sizeof(buf)));
	if (p->have & FT_PORT_HAVE_MTU)
		out_u64(o, PRINT_ANY, "mtu", " mtu %llu", p->mtu);
	if (p->have & FT_PORT_HAVE_LL)
		out_str(o, PRINT_ANY, "link_layer", " link_layer %s",
			kw_text(ft_kw_link_layer, p->link_layer, buf, sizeof(buf)));
	if (p->have & FT_PORT_HAVE_NETDEV)
		out_str(o, PRINT_ANY, "netdev", " netdev %s", p->netdev);
	if (p->have & FT_PORT_HAVE_IFINDEX)
		out_u64(o, PRINT_ANY, "ifindex", " (ifindex %llu)", p->ifindex);
	if (h)
		print_hw_port(o, r, h, stats);
	else
		out_text(o, "\n");
	out_obj_end(o);
}

/*
 * What fabtrace counts a device from: its taps (soft-RoCE), or what the
 * NIC counts: counter sets (per QP), port counters, and its ports' PFC
 * counters where the NIC consumes PFC frames; or nothing.
 */
static void print_sources(struct out *o, const struct ft_dev_rec *r)
{
	bool any = false;

	/* neither: "(not hooked)" says it in text (a module that reads no hardware) */
	int text = r->hooked || r->hw.present ? PRINT_ANY : PRINT_JSON;

	out_arr_begin(o, "sources");
	if (text == PRINT_ANY)
		out_text(o, "  sources");
	if (!r->hw.present) {
		if (r->hooked) {
			out_str(o, text, NULL, " %s", "tap");
			any = true;
		}
	} else {
		if (r->hw.sets) {
			out_str(o, text, NULL, " %s", "sets");
			any = true;
		}
		if (r->hw.port_stats) {
			out_str(o, PRINT_JSON, NULL, NULL, "port_counters");
			out_text(o, "%s port counters", any ? "," : "");
			any = true;
		}
	}
	/* the NIC's own PFC counters, on a tapped device too */
	if (r->pfc_nic_links) {
		out_str(o, PRINT_JSON, NULL, NULL, "pfc_counters");
		if (text == PRINT_ANY)
			out_text(o, "%s NIC's PFC counters", any ? "," : "");
		any = true;
	}
	if (r->hw.present && !any)
		out_text(o, " none");
	out_arr_end(o);
}

/* Why the last read of a hardware NIC's counter sets failed. */
static const char *hw_read_error(uint32_t err)
{
	switch (err) {
	case EFBIG:
		return "a set too large for nldev to list";
	case ETIMEDOUT:
		return "nldev did not answer";
	default:
		return strerror(err);
	}
}

void print_dev(struct out *o, const struct ft_dev_rec *r, int stats)
{
	char buf[FT_FMT_LEN];
	unsigned int i;

	out_obj_begin(o, NULL);
	out_u64(o, PRINT_ANY, "index", "%llu: ", r->index);
	out_str(o, PRINT_ANY, "name", "%s", r->name);
	out_str(o, PRINT_ANY, "driver", "  driver %s", r->driver);
	out_str(o, PRINT_ANY, "node_guid", "  node_guid %s",
		fmt_guid(buf, sizeof(buf), r->node_guid));
	out_u64(o, PRINT_ANY, "qps", "  qps %llu", r->qps);
	out_u64(o, PRINT_ANY, "retained", " retained %llu", r->retained);
	out_bool(o, PRINT_JSON, "hooked", NULL, r->hooked);
	/* an untapped device counts nothing: say so where it shows */
	if (!r->hooked && !r->hw.present)
		out_text(o, "  (not hooked)");
	print_sources(o, r);
	if (r->hw.present) {
		out_obj_begin(o, "hw");
		out_bool(o, PRINT_JSON, "sets", NULL, r->hw.sets);
		out_bool(o, PRINT_JSON, "port_counters", NULL, r->hw.port_stats);
		out_u64(o, PRINT_JSON, "reads", NULL, r->hw.reads);
		out_u64(o, PRINT_JSON, "read_ns", NULL, r->hw.read_ns);
		if (r->hw.read_err)
			out_str(o, PRINT_ANY, "read_error", "  (sets not read: %s)",
				hw_read_error(r->hw.read_err));
		out_obj_end(o);
	}
	out_text(o, "\n");
	out_arr_begin(o, "ports");
	for (i = 0; i < r->nports; i++)
		print_port(o, r, &r->ports[i], stats);
	out_arr_end(o);
	if (r->hw.present) {
		/* the taps' totals: a hardware NIC's data path has none */
		out_text(o, "    tx -  rx -\n");
	} else if (stats || out_is_json(o)) {
		print_traffic(o, "tx", "    ", &r->tx);
		print_traffic(o, "rx", "    ", &r->rx);
		out_u64(o, PRINT_ANY, "unknown_tx", "    unknown_tx %llu", r->unknown_tx);
		out_u64(o, PRINT_ANY, "unknown_rx", " unknown_rx %llu", r->unknown_rx);
		out_u64(o, PRINT_ANY, "malformed", " malformed %llu", r->malformed);
		out_bool(o, PRINT_FP, NULL, " hooked %s", r->hooked);
		out_text(o, "\n");
		if (r->have_drops)
			print_nest(o, "rx_drops", "    ", ft_drop_keys,
				   FABTRACE_A_DROPS_MALFORMED, FABTRACE_A_DROPS_OTHER,
				   r->rx_drops.v);
	} else {
		print_packets_bytes(o, "    ", "  ", &r->tx, &r->rx);
		out_text(o, "\n");
	}
	if (r->rtt.present)
		print_dev_rtt(o, &r->rtt, stats);
	out_obj_end(o);
}

void print_stats(struct out *o, const struct ft_stats_rec *r)
{
	/* four lines: the table, accounting health, events, CNPs; 0 ends a line */
	static const unsigned int order[] = {
		FABTRACE_A_STATS_QPS, FABTRACE_A_STATS_RETAINED,
		FABTRACE_A_STATS_MAX_QPS, FABTRACE_A_STATS_RETAIN_MS,
		FABTRACE_A_STATS_ENTRY_SIZE, FABTRACE_A_STATS_INDEX_BYTES, 0,
		FABTRACE_A_STATS_OVERFLOW, FABTRACE_A_STATS_EVICTED,
		FABTRACE_A_STATS_ALLOC_FAIL,
		FABTRACE_A_STATS_MALFORMED, FABTRACE_A_STATS_UNKNOWN,
		FABTRACE_A_STATS_HOOK_MISSED, 0,
		FABTRACE_A_STATS_EVENTS_SENT, FABTRACE_A_STATS_EVENTS_SUPPRESSED,
		FABTRACE_A_STATS_EVENTS_LOST, FABTRACE_A_STATS_GENERATION, 0,
		FABTRACE_A_STATS_CNP_SENT, FABTRACE_A_STATS_CNP_LIMITED,
		FABTRACE_A_STATS_CNP_FAILED, FABTRACE_A_STATS_CNP_SKIPPED, 0,
		FABTRACE_A_STATS_LOAD_TIME, 0,
	};
	bool first = true;
	unsigned int i, a;

	out_obj_begin(o, NULL);
	for (i = 0; i < ARRAY_SIZE(order); i++) {
		a = order[i];
		if (!a) {
			if (!first)
				out_text(o, "\n");
			first = true;
			continue;
		}
		if (!(r->have & (1ull << a)))
			continue;
		out_text(o, "%s%s ", first ? "" : " ", ft_stats_keys[a]);
		/* nanoseconds since the epoch: a number in JSON, a date in text */
		if (a == FABTRACE_A_STATS_LOAD_TIME)
			out_time(o, PRINT_ANY, ft_stats_keys[a], "%s", r->v[a]);
		else
			out_u64(o, PRINT_ANY, ft_stats_keys[a], "%llu", r->v[a]);
		first = false;
	}
	out_obj_end(o);
}

/* --- policies ------------------------------------------------------------ */

/* The port a policy or PFC record is of: "rxe0 port 1 netdev eth0". */
static void print_port_of(struct out *o, const char *dev, uint32_t dev_index,
			  uint32_t port, const char *netdev, uint32_t ifindex)
{
	out_str(o, PRINT_ANY, "dev", "%s", dev);
	out_u64(o, PRINT_JSON, "dev_index", NULL, dev_index);
	out_u64(o, PRINT_ANY, "port", " port %llu", port);
	if (netdev[0]) {
		out_str(o, PRINT_ANY, "netdev", " netdev %s", netdev);
		out_u64(o, PRINT_JSON, "ifindex", NULL, ifindex);
	}
}

#define CFG(a)		FABTRACE_A_POLICY_CFG_##a

static const struct kw wd_action_kw[] = {
	{ "alert", FABTRACE_WD_ACTION_ALERT },
	{ NULL, 0 }
};

/* "none" or "3,4" */
static const char *fmt_prios(char *buf, size_t len, uint32_t mask)
{
	size_t n = 0;
	unsigned int p;

	if (!(mask & 0xff))
		return "none";
	buf[0] = '\0';
	for (p = 0; p < 8 && n < len; p++)
		if (mask & (1u << p))
			n += snprintf(buf + n, len - n, "%s%u", n ? "," : "", p);
	return buf;
}

/* "default", "default,26:3,46:5", or every entry (@all) */
static const char *fmt_map(char *buf, size_t len, const uint8_t *map, bool all)
{
	size_t n = snprintf(buf, len, "%s", all ? "" : "default");
	unsigned int d;

	for (d = 0; d < 64 && n < len; d++)
		if (all || map[d] != d >> 3)
			n += snprintf(buf + n, len - n, "%s%u:%u", n ? "," : "", d, map[d]);
	return buf;
}

/* "off" or "detect 200 restore 400" */
static const char *fmt_wd(char *buf, size_t len, const struct ft_policy_cfg *c)
{
	if (!c->v[CFG(WD_DETECT)])
		return "off";
	snprintf(buf, len, "detect %u restore %u", c->v[CFG(WD_DETECT)],
		 c->v[CFG(WD_RESTORE)]);
	return buf;
}

static void print_prios_json(struct out *o, const char *key, uint32_t mask)
{
	unsigned int p;

	out_arr_begin(o, key);
	for (p = 0; p < 8; p++)
		if (mask & (1u << p))
			out_u64(o, PRINT_JSON, NULL, NULL, p);
	out_arr_end(o);
}

/* The policy values as JSON members (of the object being built). */
static void print_cfg_json(struct out *o, const struct ft_policy_cfg *c)
{
	char buf[32];
	unsigned int d;

	out_str(o, PRINT_JSON, "trust", NULL,
		kw_text(ft_kw_trust, c->v[CFG(TRUST)], buf, sizeof(buf)));
	out_arr_begin(o, "dscp_map");
	for (d = 0; d < 64; d++)
		out_u64(o, PRINT_JSON, NULL, NULL, c->dscp[d]);
	out_arr_end(o);
	print_prios_json(o, "pfc", c->v[CFG(PFC)]);
	print_prios_json(o, "ecn", c->v[CFG(ECN)]);
	out_bool(o, PRINT_JSON, "cnp", NULL, c->v[CFG(CNP)]);
	/* the module builds CNPs for IPv4 QPs only */
	out_bool(o, PRINT_JSON, "cnp_ipv6", NULL, false);
	out_u64(o, PRINT_JSON, "cnp_interval_us", NULL, c->v[CFG(CNP_INTERVAL)]);
	out_u64(o, PRINT_JSON, "cnp_dscp", NULL, c->v[CFG(CNP_DSCP)]);
	out_obj_begin(o, "pfc_watchdog");
	out_bool(o, PRINT_JSON, "enabled", NULL, c->v[CFG(WD_DETECT)]);
	out_u64(o, PRINT_JSON, "detect_ms", NULL, c->v[CFG(WD_DETECT)]);
	out_u64(o, PRINT_JSON, "restore_ms", NULL, c->v[CFG(WD_RESTORE)]);
	out_str(o, PRINT_JSON, "action", NULL,
		kw_text(wd_action_kw, c->v[CFG(WD_ACTION)], buf, sizeof(buf)));
	out_obj_end(o);
}

/* The values as "policy set" arguments: " trust pcp dscp-map default ..." */
static void fmt_cfg_args(char *buf, size_t len, const struct ft_policy_cfg *c,
			 bool all_map)
{
	char t[32], map[512], pfc[32], ecn[32], wd[64];

	snprintf(buf, len, " trust %s dscp-map %s pfc %s ecn %s cnp %s cnp-interval %u"
		 " cnp-dscp %u pfc-watchdog %s",
		 kw_text(ft_kw_trust, c->v[CFG(TRUST)], t, sizeof(t)),
		 fmt_map(map, sizeof(map), c->dscp, all_map),
		 fmt_prios(pfc, sizeof(pfc), c->v[CFG(PFC)]),
		 fmt_prios(ecn, sizeof(ecn), c->v[CFG(ECN)]),
		 c->v[CFG(CNP)] ? "on" : "off", c->v[CFG(CNP_INTERVAL)],
		 c->v[CFG(CNP_DSCP)], fmt_wd(wd, sizeof(wd), c));
}

/* --- a policy's hardware part -------------------------------------------- */

/* The app table entries the policy asks for: DSCP d to one priority, or none. */
static uint8_t hw_want(const struct ft_policy_cfg *c, unsigned int d)
{
	return c->v[CFG(TRUST)] == FABTRACE_TRUST_DSCP ? 1u << c->dscp[d] : 0;
}

/*
 * An app table as fmt_map() writes a map, "none" if it is empty: entries
 * apart from DSCP d to d>>3 are "d:p", "d:p+q" (several) or "d:-" (none).
 */
static const char *fmt_hw_map(char *buf, size_t len, const uint8_t *prios)
{
	size_t n;
	unsigned int d, p;
	bool any = false;

	for (d = 0; d < 64; d++)
		any |= prios[d] != 0;
	if (!any)
		return "none";
	n = snprintf(buf, len, "default");
	for (d = 0; d < 64 && n < len; d++) {
		if (prios[d] == 1u << (d >> 3))
			continue;
		n += snprintf(buf + n, len - n, ",%u:", d);
		if (!prios[d] && n < len)
			n += snprintf(buf + n, len - n, "-");
		for (p = 0; p < 8 && n < len; p++)
			if (prios[d] & (1u << p))
				n += snprintf(buf + n, len - n, "%s%u",
					      prios[d] & ((1u << p) - 1) ? "+" : "", p);
	}
	return buf;
}

/* " pfc 3 (hw 3,5)": the hardware's values where they differ from @c. */
static bool print_hw_diff(struct out *o, const struct ft_policy_hw *hw,
			  const struct ft_policy_cfg *c)
{
	char a[512], b[512];
	uint8_t want[64];
	unsigned int d;
	bool differ = false;

	if (hw->pfc != c->v[CFG(PFC)]) {
		out_text(o, " pfc %s (hw %s)", fmt_prios(a, sizeof(a), c->v[CFG(PFC)]),
			 fmt_prios(b, sizeof(b), hw->pfc));
		differ = true;
	}
	for (d = 0; d < 64; d++)
		want[d] = hw_want(c, d);
	if (memcmp(want, hw->dscp, sizeof(want))) {
		out_text(o, " app %s (hw %s)", fmt_hw_map(a, sizeof(a), want),
			 fmt_hw_map(b, sizeof(b), hw->dscp));
		differ = true;
	}
	if (hw->has_trust && hw->trust != c->v[CFG(TRUST)]) {
		out_text(o, " trust %s (hw %s)",
			 kw_text(ft_kw_trust, c->v[CFG(TRUST)], a, sizeof(a)),
			 kw_text(ft_kw_trust, hw->trust, b, sizeof(b)));
		differ = true;
	}
	return differ;
}

static void print_hw_json(struct out *o, const struct ft_policy_hw *hw)
{
	char buf[32];
	unsigned int d;

	out_obj_begin(o, "hw");
	/* the values are those of the last read, if it worked */
	if (hw->has_values) {
		print_prios_json(o, "pfc", hw->pfc);
		out_u64(o, PRINT_JSON, "pfc_cap", NULL, hw->pfc_cap);
		if (hw->has_trust)
			out_str(o, PRINT_JSON, "trust", NULL,
				kw_text(ft_kw_trust, hw->trust, buf, sizeof(buf)));
		out_arr_begin(o, "dscp_prio");
		for (d = 0; d < 64; d++)
			print_prios_json(o, NULL, hw->dscp[d]);
		out_arr_end(o);
	}
	if (hw->error) {
		out_u64(o, PRINT_JSON, "error", NULL, hw->error);
		out_str(o, PRINT_JSON, "error_op", NULL, hw->error_op);
	}
	out_obj_end(o);
}

/* What the hardware reports, under a policy's own lines (text). */
static void print_hw_text(struct out *o, const struct ft_policy_hw *hw,
			  const struct ft_policy_cfg *c)
{
	char pfc[32], trust[32], map[512];

	if (hw->error)
		out_text(o, "    hw error: %s: %s\n", hw->error_op, strerror((int)hw->error));
	if (!hw->has_values) {
		out_text(o, "    hw unknown: its last read failed\n");
		return;
	}
	out_text(o, "    hw pfc %s pfc-cap %u", fmt_prios(pfc, sizeof(pfc), hw->pfc),
		 hw->pfc_cap);
	if (hw->has_trust)
		out_text(o, " trust %s", kw_text(ft_kw_trust, hw->trust, trust, sizeof(trust)));
	out_text(o, " app %s\n", fmt_hw_map(map, sizeof(map), hw->dscp));
	out_text(o, "    hw differs:");
	if (!print_hw_diff(o, hw, c))
		out_text(o, " no");
	out_text(o, "\n");
}

/* A policy-drift's fields: where the hardware differs, or that it does not. */
void print_policy_drift(struct out *o, const struct ft_policy_hw *hw,
			const struct ft_policy_cfg *c)
{
	if (out_is_json(o)) {
		out_obj_begin(o, "policy");
		print_cfg_json(o, c);
		out_obj_end(o);
		print_hw_json(o, hw);
		return;
	}
	if (!print_hw_diff(o, hw, c))
		out_text(o, " hw matches the policy again");
}

void print_policy(struct out *o, const struct ft_policy_rec *r, bool all_map)
{
	const struct ft_policy_cfg *c = &r->cfg;
	char buf[32], pfc[32], ecn[32], wd[64], map[512];

	out_obj_begin(o, NULL);
	print_port_of(o, r->dev, r->dev_index, r->port, r->netdev, r->ifindex);
	out_str(o, PRINT_ANY, "dcb", " dcb %s", kw_text(ft_kw_dcb, r->dcb, buf, sizeof(buf)));
	if (out_is_json(o)) {
		print_cfg_json(o, c);
		if (r->hw.present)
			print_hw_json(o, &r->hw);
	} else {
		out_text(o, "\n    trust %s pfc %s ecn %s cnp %s cnp-interval %u cnp-dscp %u\n",
			 kw_text(ft_kw_trust, c->v[CFG(TRUST)], buf, sizeof(buf)),
			 fmt_prios(pfc, sizeof(pfc), c->v[CFG(PFC)]),
			 fmt_prios(ecn, sizeof(ecn), c->v[CFG(ECN)]),
			 c->v[CFG(CNP)] ? "on" : "off", c->v[CFG(CNP_INTERVAL)],
			 c->v[CFG(CNP_DSCP)]);
		if (c->v[CFG(CNP)])
			out_text(o, "    cnp: IPv4 QPs only; IPv6 CE marks count as cnp_skipped\n");
		out_text(o, "    pfc-watchdog %s action %s\n    dscp-map %s\n",
			 fmt_wd(wd, sizeof(wd), c),
			 kw_text(wd_action_kw, c->v[CFG(WD_ACTION)], buf, sizeof(buf)),
			 fmt_map(map, sizeof(map), c->dscp, all_map));
		if (r->hw.present)
			print_hw_text(o, &r->hw, c);
	}
	out_obj_end(o);
}

/* One "policy set" line that gives the port this policy. */
void print_policy_command(struct out *o, const struct ft_policy_rec *r)
{
	char dev[OUT_ESC_SIZE(FT_NAME_LEN)], args[1024], line[1200];

	fmt_cfg_args(args, sizeof(args), &r->cfg, false);
	snprintf(line, sizeof(line), "policy set dev %s port %u%s",
		 out_esc(dev, sizeof(dev), r->dev), r->port, args);
	out_obj_begin(o, NULL);
	out_str(o, PRINT_ANY, "command", "%s\n", line);
	out_obj_end(o);
}

static void change(struct out *o, const char *key, const char *a, const char *b)
{
	if (strcmp(a, b))
		out_text(o, " %s %s->%s", key, a, b);
}

/* "ecn none->3 cnp-interval 50->100": the fields that changed. */
void print_policy_change(struct out *o, const struct ft_policy_cfg *old,
			 const struct ft_policy_cfg *new)
{
	char a[512], b[512];

	if (out_is_json(o)) {
		out_obj_begin(o, "old");
		print_cfg_json(o, old);
		out_obj_end(o);
		out_obj_begin(o, "new");
		print_cfg_json(o, new);
		out_obj_end(o);
		return;
	}
	change(o, "trust", kw_text(ft_kw_trust, old->v[CFG(TRUST)], a, sizeof(a)),
	       kw_text(ft_kw_trust, new->v[CFG(TRUST)], b, sizeof(b)));
	change(o, "dscp-map", fmt_map(a, sizeof(a), old->dscp, false),
	       fmt_map(b, sizeof(b), new->dscp, false));
	change(o, "pfc", fmt_prios(a, sizeof(a), old->v[CFG(PFC)]),
	       fmt_prios(b, sizeof(b), new->v[CFG(PFC)]));
	change(o, "ecn", fmt_prios(a, sizeof(a), old->v[CFG(ECN)]),
	       fmt_prios(b, sizeof(b), new->v[CFG(ECN)]));
	change(o, "cnp", old->v[CFG(CNP)] ? "on" : "off", new->v[CFG(CNP)] ? "on" : "off");
	snprintf(a, sizeof(a), "%u", old->v[CFG(CNP_INTERVAL)]);
	snprintf(b, sizeof(b), "%u", new->v[CFG(CNP_INTERVAL)]);
	change(o, "cnp-interval", a, b);
	snprintf(a, sizeof(a), "%u", old->v[CFG(CNP_DSCP)]);
	snprintf(b, sizeof(b), "%u", new->v[CFG(CNP_DSCP)]);
	change(o, "cnp-dscp", a, b);
	change(o, "pfc-watchdog", fmt_wd(a, sizeof(a), old), fmt_wd(b, sizeof(b), new));
}

/* --- PFC counters -------------------------------------------------------- */

#define PV(p, a)	((p)->v[FABTRACE_A_PFC_PRIO_##a])

static const struct kw pfc_state_kw[] = {
	{ "idle", FABTRACE_PFC_STATE_IDLE },
	{ "paused", FABTRACE_PFC_STATE_PAUSED },
	{ "storm", FABTRACE_PFC_STATE_STORM },
	{ NULL, 0 }
};

static void print_prio(struct out *o, const struct ft_pfc_prio_rec *p)
{
	char buf[32];

	out_obj_begin(o, NULL);
	out_u64(o, PRINT_ANY, "prio", "    prio %llu", PV(p, PRIO));
	out_count(o, PRINT_ANY, "frames", " frames %s", PV(p, FRAMES));
	/* a NIC that counts PFC itself does not tell them */
	if (p->have & (1u << FABTRACE_A_PFC_PRIO_XOFF)) {
		out_count(o, PRINT_ANY, "xoff", " xoff %s", PV(p, XOFF));
		out_count(o, PRINT_ANY, "xon", " xon %s", PV(p, XON));
		out_u64(o, PRINT_JSON, "quanta", NULL, PV(p, QUANTA));
	}
	out_u64(o, PRINT_JSON, "paused_ns", NULL, PV(p, PAUSED_NS));
	if (out_numeric(o))
		out_text(o, " paused %lluns", (unsigned long long)PV(p, PAUSED_NS));
	else
		out_text(o, " paused %s", fmt_duration(buf, sizeof(buf), PV(p, PAUSED_NS)));
	out_count(o, PRINT_ANY, "unexpected", " unexpected %s", PV(p, UNEXPECTED));
	out_count(o, PRINT_ANY, "storms", " storms %s", PV(p, STORMS));
	out_str(o, PRINT_ANY, "state", " state %s",
		kw_text(pfc_state_kw, PV(p, STATE), buf, sizeof(buf)));
	out_u64(o, PRINT_ANY, "qps", " qps %llu\n", PV(p, QPS));
	out_obj_end(o);
}

void print_pfc(struct out *o, const struct ft_pfc_rec *r, bool all)
{
	unsigned int i;

	out_obj_begin(o, NULL);
	print_port_of(o, r->dev, r->dev_index, r->port, r->netdev, r->ifindex);
	/* the netdev's speed is for readers in its network namespace */
	if (r->have_speed) {
		out_u64(o, PRINT_JSON, "speed", NULL, r->speed);
		if (r->speed)
			out_text(o, " speed %uMb/s", r->speed);
		else
			out_text(o, " speed unknown");
	}
	if (r->driver_links) {
		/* the NIC consumed the frames: its driver's counters, no frame seen */
		out_str(o, PRINT_JSON, "source", NULL, "nic");
		out_str(o, PRINT_ANY, "driver", " counted by the NIC (%s)\n", r->driver);
	} else {
		out_str(o, PRINT_JSON, "source", NULL, "host");
		out_count(o, PRINT_ANY, "malformed", " malformed %s", r->malformed);
		out_count(o, PRINT_ANY, "pause", " pause %s\n", r->pause);
	}
	out_arr_begin(o, "prio");
	for (i = 0; i < 8; i++) {
		const struct ft_pfc_prio_rec *p = &r->prio[i];

		if (!(r->have_prio & (1u << i)))
			continue;
		/* in text, the quiet ones only with -s */
		if (!out_is_json(o) && !all && !PV(p, FRAMES) && !PV(p, QPS) &&
		    PV(p, STATE) == FABTRACE_PFC_STATE_IDLE)
			continue;
		print_prio(o, p);
	}
	out_arr_end(o);
	out_obj_end(o);
}

/* --- events -------------------------------------------------------------- */

static bool kind_has_count(uint32_t kind)
{
	return kind != FABTRACE_EVENT_KIND_QP_CREATE &&
	       kind != FABTRACE_EVENT_KIND_QP_DESTROY &&
	       kind != FABTRACE_EVENT_KIND_POLICY_CHANGE &&
	       kind != FABTRACE_EVENT_KIND_MISCONFIGURED &&
	       kind != FABTRACE_EVENT_KIND_STORM_START &&
	       kind != FABTRACE_EVENT_KIND_STORM_END &&
	       kind != FABTRACE_EVENT_KIND_POLICY_DRIFT;
}

static void print_event_json(struct out *o, const struct ft_event_rec *e)
{
	char buf[FT_FMT_LEN];

	out_obj_begin(o, NULL);
	if (e->have & FT_EV_HAVE_SEQ)
		out_u64(o, PRINT_JSON, "seq", NULL, e->seq);
	out_u64(o, PRINT_JSON, "time", NULL, e->time);
	out_str(o, PRINT_JSON, "kind", NULL,
		kw_text(ft_kw_event, e->kind, buf, sizeof(buf)));
	if (e->have & FT_EV_HAVE_DEV)
		out_str(o, PRINT_JSON, "dev", NULL, e->dev);
	if (e->have & FT_EV_HAVE_DEV_INDEX)
		out_u64(o, PRINT_JSON, "dev_index", NULL, e->dev_index);
	if (e->have & FT_EV_HAVE_QPN)
		out_u64(o, PRINT_JSON, "qpn", NULL, e->qpn);
	if (e->have & FT_EV_HAVE_RQPN)
		out_u64(o, PRINT_JSON, "remote_qpn", NULL, e->remote_qpn);
	if (e->have & FT_EV_HAVE_PEER)
		out_str(o, PRINT_JSON, "peer", NULL, fmt_gid(buf, sizeof(buf), e->peer));
	if (e->have & FT_EV_HAVE_PID)
		out_u64(o, PRINT_JSON, "pid", NULL, e->pid);
	if (e->have & FT_EV_HAVE_COMM)
		out_str(o, PRINT_JSON, "comm", NULL, e->comm);
	if (e->have & FT_EV_HAVE_COUNT)
		out_u64(o, PRINT_JSON, "count", NULL, e->count);
	if (e->have & FT_EV_HAVE_SUPPRESSED)
		out_u64(o, PRINT_JSON, "suppressed", NULL, e->suppressed);
	if (e->have & FT_EV_HAVE_TX)
		print_traffic(o, "tx", "", &e->tx);
	if (e->have & FT_EV_HAVE_RX)
		print_traffic(o, "rx", "", &e->rx);
	if (e->have & FT_EV_HAVE_CONG)
		print_cong(o, "", &e->cong);
	if (e->have & FT_EV_HAVE_PORT)
		out_u64(o, PRINT_JSON, "port", NULL, e->port);
	if (e->kind == FABTRACE_EVENT_KIND_POLICY_DRIFT)
		print_policy_drift(o, &e->hw, &e->new);
	else if (e->have & FT_EV_HAVE_POLICY)
		print_policy_change(o, &e->old, &e->new);
	if (e->have & FT_EV_HAVE_STORM) {
		out_u64(o, PRINT_JSON, "prio", NULL, e->prio);
		out_u64(o, PRINT_JSON, "duration", NULL, e->duration);
		out_u64(o, PRINT_JSON, "qps", NULL, e->qps);
	}
	out_obj_end(o);
}

void print_event(struct out *o, const struct ft_event_rec *e)
{
	char buf[FT_FMT_LEN], t[FT_FMT_LEN];
	FILE *fp = out_fp(o);

	if (out_is_json(o)) {
		print_event_json(o, e);
		return;
	}
	fputs(fmt_time(t, sizeof(t), e->time, 6), fp);
	if (e->kind == FABTRACE_EVENT_KIND_DROPPED) {
		fprintf(fp, " dropped count %llu\n", (unsigned long long)e->count);
		fflush(fp);
		return;
	}
	/* the kernel's strings through out_str(), which escapes them */
	if (e->have & FT_EV_HAVE_DEV)
		out_str(o, PRINT_FP, NULL, " dev %s", e->dev);
	if (e->have & FT_EV_HAVE_QPN)
		fprintf(fp, " qpn %u", e->qpn);
	if (e->have & FT_EV_HAVE_PORT)
		fprintf(fp, " port %u", e->port);
	fprintf(fp, " %s", kw_text(ft_kw_event, e->kind, buf, sizeof(buf)));
	if (e->kind == FABTRACE_EVENT_KIND_POLICY_DRIFT)
		print_policy_drift(o, &e->hw, &e->new);
	else if (e->have & FT_EV_HAVE_POLICY)
		print_policy_change(o, &e->old, &e->new);
	if (e->have & FT_EV_HAVE_STORM)
		fprintf(fp, " prio %u duration %llu ms qps %u", e->prio,
			(unsigned long long)e->duration / 1000000, e->qps);
	if (kind_has_count(e->kind))
		fprintf(fp, " count %llu", (unsigned long long)e->count);
	if (e->have & FT_EV_HAVE_PEER)
		fprintf(fp, " peer %s", fmt_gid(buf, sizeof(buf), e->peer));
	if (e->have & FT_EV_HAVE_RQPN)
		fprintf(fp, " rqpn %u", e->remote_qpn);
	if ((e->have & FT_EV_HAVE_PID) && e->pid)
		fprintf(fp, " pid %u", e->pid);
	if (e->comm[0])
		out_str(o, PRINT_FP, NULL, (e->have & FT_EV_HAVE_PID) && !e->pid ?
			" comm [%s]" : " comm %s", e->comm);
	if (e->suppressed)
		fprintf(fp, " suppressed %llu", (unsigned long long)e->suppressed);
	if (e->kind == FABTRACE_EVENT_KIND_QP_DESTROY &&
	    (e->have & (FT_EV_HAVE_TX | FT_EV_HAVE_RX))) {
		print_packets_bytes(o, " ", " ", &e->tx, &e->rx);
	}
	fputc('\n', fp);
	fflush(fp);
}
