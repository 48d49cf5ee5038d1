/* SPDX-License-Identifier: GPL-2.0 */
/* Test helpers: a synthetic module (devices, QPs, policy, PFC) for export. */
#ifndef _FABTRACE_SYNTH_H
#define _FABTRACE_SYNTH_H

#include <stdlib.h>
#include <string.h>

#include "nlbuild.h"

#include "agg.h"
#include "expo.h"
#include "rec.h"
#include "util.h"

#define SYNTH_MAX_QPS	64

struct synth {
	struct ft_stats_rec stats;
	struct ft_dev_rec devs[2];
	size_t ndevs;
	struct ft_qp_rec qps[SYNTH_MAX_QPS];
	size_t nqps;
	struct ft_policy_rec pols[2];
	struct ft_pfc_rec pfcs[2];
	uint64_t unknown;		/* packets no QP holds, per device and counter */
};

static char synth_buf[16384] __attribute__((aligned(8)));

static inline void synth_dev(struct synth *s, uint32_t index, const char *name)
{
	struct ft_dev_rec *d = &s->devs[s->ndevs];
	struct ft_policy_rec *p = &s->pols[s->ndevs];
	struct ft_pfc_rec *f = &s->pfcs[s->ndevs];
	unsigned int i;

	memset(d, 0, sizeof(*d));
	d->index = index;
	snprintf(d->name, sizeof(d->name), "%s", name);
	snprintf(d->driver, sizeof(d->driver), "rdma_rxe");
	d->node_guid = 0x505400fffe000001ull + index;
	d->hooked = true;
	d->nports = 1;
	d->ports[0].index = 1;
	d->ports[0].state = FABTRACE_PORT_STATE_ACTIVE;
	d->ports[0].link_layer = FABTRACE_LINK_LAYER_ETHERNET;
	d->ports[0].have = FT_PORT_HAVE_STATE | FT_PORT_HAVE_LL | FT_PORT_HAVE_NETDEV;
	snprintf(d->ports[0].netdev, sizeof(d->ports[0].netdev), "eth%u", index);

	memset(p, 0, sizeof(*p));
	p->dev_index = index;
	snprintf(p->dev, sizeof(p->dev), "%s", name);
	p->port = 1;
	p->cfg.v[FABTRACE_A_POLICY_CFG_TRUST] = FABTRACE_TRUST_DSCP;
	p->cfg.v[FABTRACE_A_POLICY_CFG_PFC] = 1u << 3;
	p->cfg.v[FABTRACE_A_POLICY_CFG_ECN] = 1u << 3;
	p->cfg.v[FABTRACE_A_POLICY_CFG_CNP] = 1;
	p->cfg.v[FABTRACE_A_POLICY_CFG_CNP_INTERVAL] = 50;
	p->cfg.v[FABTRACE_A_POLICY_CFG_CNP_DSCP] = 48;
	p->cfg.v[FABTRACE_A_POLICY_CFG_WD_DETECT] = 200;
	p->cfg.v[FABTRACE_A_POLICY_CFG_WD_RESTORE] = 400;
	p->dcb = FABTRACE_DCB_STATE_APPLIED;
	p->hw.present = true;
	p->hw.pfc = 1u << 3;

	memset(f, 0, sizeof(*f));
	f->dev_index = index;
	snprintf(f->dev, sizeof(f->dev), "%s", name);
	f->port = 1;
	f->speed = 10000;
	f->pause = 1;
	for (i = 0; i < 8; i++) {
		f->prio[i].v[FABTRACE_A_PFC_PRIO_PRIO] = i;
		f->prio[i].v[FABTRACE_A_PFC_PRIO_FRAMES] = 10 * i;
		f->prio[i].v[FABTRACE_A_PFC_PRIO_XOFF] = 6 * i;
		f->prio[i].v[FABTRACE_A_PFC_PRIO_XON] = 4 * i;
		f->prio[i].v[FABTRACE_A_PFC_PRIO_PAUSED_NS] = 1500000000ull * i;
		f->prio[i].v[FABTRACE_A_PFC_PRIO_STATE] = i == 3 ? FABTRACE_PFC_STATE_STORM : 0;
	}
	f->have_prio = 0xff;
	s->ndevs++;
}

/* A module with every statistic, loaded at @load_time, and no device yet. */
static inline void synth_init(struct synth *s, uint64_t load_time)
{
	unsigned int i;

	memset(s, 0, sizeof(*s));
	for (i = FABTRACE_A_STATS_QPS; i <= FABTRACE_A_STATS_MAX; i++) {
		if (i == FABTRACE_A_STATS_PAD)
			continue;
		s->stats.v[i] = 7 * i;
		s->stats.have |= 1ull << i;
	}
	s->stats.v[FABTRACE_A_STATS_LOAD_TIME] = load_time;
	s->stats.v[FABTRACE_A_STATS_RETAIN_MS] = 60000;
}

/* A QP as the kernel would send it: counters base..., priority @prio. */
static inline struct ft_qp_rec *synth_qp(struct synth *s, const struct nlb_qp *q,
					 uint32_t prio)
{
	struct ft_qp_rec *r = &s->qps[s->nqps++];

	ft_parse_qp(nlb_qp(synth_buf, q), r);
	r->prio = prio;
	r->have |= FT_QP_HAVE_PFC;
	return r;
}

/* Set each device's totals to its QPs' traffic, plus s->unknown. */
static inline void synth_totals(struct synth *s, const struct ft_qp_rec *gone, size_t ngone)
{
	uint64_t c[AGG_NCTR], t[AGG_NTRAFFIC];
	size_t i, j, k;

	for (i = 0; i < s->ndevs; i++) {
		struct ft_dev_rec *d = &s->devs[i];

		for (k = 0; k < AGG_NTRAFFIC; k++)
			t[k] = s->unknown;
		for (j = 0; j < s->nqps + ngone; j++) {
			const struct ft_qp_rec *r = j < s->nqps ? &s->qps[j] : &gone[j - s->nqps];

			if (r->dev_index != d->index)
				continue;
			agg_qp_counters(r, c);
			for (k = 0; k < AGG_NTRAFFIC; k++)
				t[k] += c[k];
		}
		for (k = 1; k <= FABTRACE_A_TRAFFIC_OTHER; k++) {
			d->tx.v[k] = t[AGG_TX + k - 1];
			d->rx.v[k] = t[AGG_RX + k - 1];
		}
	}
}

/* One export run over @s. */
static inline void synth_run(struct synth *s, struct agg *a, struct expo_top *t)
{
	uint64_t delta;
	size_t i;

	agg_run_reset(a, true);
	if (t)
		expo_top_clear(t);
	for (i = 0; i < s->ndevs; i++)
		agg_dev(a, &s->devs[i]);
	for (i = 0; i < s->nqps; i++)
		if (agg_qp(a, &s->qps[i], &delta) && t)
			expo_top_offer(t, &s->qps[i], delta);
	agg_end(a, false);
}

/* The exposition of the last run; free() it. */
static inline char *synth_expo(struct synth *s, struct agg *a, struct expo_top *t,
			       unsigned long *series)
{
	struct expo_in in = {
		.stats = &s->stats, .devs = s->devs, .ndevs = s->ndevs,
		.pols = s->pols, .npols = s->ndevs, .pfcs = s->pfcs, .npfcs = s->ndevs,
		.agg = a, .top = t, .qps = s->nqps, .consistent = true,
		.duration_ns = 1234567,
	};
	char *text = NULL;
	size_t len;
	FILE *fp = open_memstream(&text, &len);
	unsigned long n = expo_write(fp, &in);

	fclose(fp);
	if (series)
		*series = n;
	return text;
}

/*
 * A busy node: two devices, QPs of three commands to two peers on two
 * priorities, a kernel QP, one destroyed, one whose name is hostile.
 */
static inline void synth_cluster(struct synth *s)
{
	static const uint8_t peer2[16] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 99, 0, 3
	};
	struct nlb_qp q = {
		.dev_index = 1, .dev = "rxe0", .type = FABTRACE_QP_TYPE_RC,
		.state = FABTRACE_QP_STATE_RTS, .pid = 100, .comm = "python",
		.peer = nlb_peer_v4, .rqpn = 90, .ctime = 1700000000000000000ull,
		.cgroup_id = 4242, .cgroup = "/slurm/job_1",
	};
	unsigned int i;

	synth_init(s, 1699999990000000000ull);
	synth_dev(s, 1, "rxe0");
	synth_dev(s, 2, "rxe1");
	for (i = 0; i < 6; i++) {
		q.qpn = 17 + i;
		q.base = 1000 * (i + 1);
		q.ctime += 1000000000ull;
		q.peer = i % 2 ? peer2 : nlb_peer_v4;
		q.comm = i < 4 ? "python" : "ib_write_bw";
		q.cgroup = i < 3 ? "/slurm/job_1" : "/slurm/job_2";
		q.cgroup_id = i < 3 ? 4242 : 4343;
		synth_qp(s, &q, i == 5 ? 0 : 3);
	}
	/* a kernel QP on rxe1 */
	q.dev_index = 2;
	q.dev = "rxe1";
	q.qpn = 30;
	q.flags = FABTRACE_QP_FLAGS_KERNEL;
	q.pid = 0;
	q.comm = "nvme_rdma";
	q.cgroup = NULL;
	q.cgroup_id = 0;
	q.base = 500;
	synth_qp(s, &q, 3);
	/* destroyed, retained */
	q.qpn = 31;
	q.flags = FABTRACE_QP_FLAGS_DESTROYED;
	q.pid = 200;
	q.comm = "nccl-test";
	q.cgroup = "/slurm/job_3";
	q.cgroup_id = 4444;
	q.dtime = q.ctime + 5;
	q.base = 700;
	synth_qp(s, &q, 3);
	/* a hostile name: quote, backslash, newline, invalid UTF-8 */
	q.qpn = 32;
	q.flags = 0;
	q.comm = "a\"b\\c\nd\xff";
	q.cgroup = "/x\"y";
	q.cgroup_id = 4545;
	q.base = 900;
	synth_qp(s, &q, 3);
	s->unknown = 5;
	synth_totals(s, NULL, 0);
}

#endif /* _FABTRACE_SYNTH_H */
