// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of fabtrace export: label cleaning and escaping, the sums of
 * the groups against the device totals, counters that never go down from
 * run to run (destroyed, forgotten, reset QPs; the state saved and read
 * back), the group cap, the top QPs, grouping by cgroup, and the series
 * bound.
 */

#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "harness.h"
#include "synth.h"

#include "prom.h"

/* --- reading an exposition back ------------------------------------------------- */

/* The value of the sample whose name and labels are exactly @series. */
static bool value_of(const char *text, const char *series, uint64_t *v)
{
	size_t n = strlen(series);
	const char *p;

	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!strncmp(p, series, n) && p[n] == ' ') {
			*v = strtoull(p + n + 1, NULL, 10);
			return true;
		}
	}
	return false;
}

/* The sum of the samples whose line starts with @prefix. */
static uint64_t sum_of(const char *text, const char *prefix, unsigned int *count)
{
	size_t n = strlen(prefix);
	const char *p, *sp;
	uint64_t sum = 0;

	*count = 0;
	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, prefix, n))
			continue;
		sp = strchr(p, '\n');
		while (sp > p && sp[-1] != ' ')
			sp--;
		sum += strtoull(sp, NULL, 10);
		(*count)++;
	}
	return sum;
}

static unsigned long samples(const char *text)
{
	unsigned long n = 0;
	const char *p;

	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		n += *p != '#' && *p != '\n';
	return n;
}

/*
 * Every traffic family: the groups of each device add up to the total
 * exported, and that is the device's own (unless @moved: the device's
 * totals were read before QPs that grew).
 */
/* tx packets, rx packets, tx bytes, rx bytes of a device */
static uint64_t dev_total(const struct ft_dev_rec *d, unsigned int i)
{
	const struct ft_traffic *t = i % 2 ? &d->rx : &d->tx;

	return t->v[i < 2 ? FABTRACE_A_TRAFFIC_PACKETS : FABTRACE_A_TRAFFIC_BYTES];
}

static void check_sums_(struct __test_metadata *_metadata, const char *text,
			const struct synth *s, bool moved, int line)
{
	static const char *const fams[] = {
		"tx_packets_total", "rx_packets_total", "tx_bytes_total", "rx_bytes_total",
	};
	char prefix[128], series[128];
	unsigned int i, d, n;
	uint64_t total, sum;

	for (d = 0; d < s->ndevs; d++) {
		for (i = 0; i < ARRAY_SIZE(fams); i++) {
			snprintf(prefix, sizeof(prefix), "fabtrace_qps_%s{device=\"%s\",",
				 fams[i], s->devs[d].name);
			snprintf(series, sizeof(series), "fabtrace_device_%s{device=\"%s\"}",
				 fams[i], s->devs[d].name);
			sum = sum_of(text, prefix, &n);
			if (!value_of(text, series, &total) || sum != total || !n)
				ft_fail(__FILE__, line, "%s: groups %llu (%u), total %llu", series,
					 (unsigned long long)sum, n, (unsigned long long)total);
			if (!moved && total != dev_total(&s->devs[d], i))
				ft_fail(__FILE__, line, "%s: exported %llu, the device has %llu",
					 series, (unsigned long long)total,
					 (unsigned long long)dev_total(&s->devs[d], i));
		}
	}
}

#define check_sums(text, s, line)	check_sums_(_metadata, text, s, false, line)

/* Every sample of @a that @b has too is no bigger there (counters only). */
static void check_monotonic(struct __test_metadata *_metadata, const char *a, const char *b,
			    int line)
{
	const char *p, *sp, *nl;
	char series[1024];
	uint64_t va, vb;

	for (p = a; p && *p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		if (*p == '#' || !nl)
			continue;
		sp = nl;
		while (sp > p && sp[-1] != ' ')
			sp--;
		if ((size_t)(sp - 1 - p) >= sizeof(series))
			continue;
		memcpy(series, p, sp - 1 - p);
		series[sp - 1 - p] = '\0';
		if (!strstr(series, "_total") || (strncmp(series, "fabtrace_q", 10) &&
						   strncmp(series, "fabtrace_device_", 16)))
			continue;
		va = strtoull(sp, NULL, 10);
		if (value_of(b, series, &vb) && vb < va)
			ft_fail(__FILE__, line, "%s went down: %llu -> %llu", series,
				 (unsigned long long)va, (unsigned long long)vb);
	}
}

static char *save(const struct agg *a)
{
	char *text = NULL;
	size_t len;
	FILE *fp = open_memstream(&text, &len);

	agg_save(a, fp);
	fclose(fp);
	return text;
}

/* @a replaced by what its saved state reads back as, for @load_time. */
static int reload(struct agg *a, uint64_t load_time)
{
	char *text = save(a);
	FILE *fp = fmemopen(text, strlen(text), "r");
	enum agg_by by = a->by;
	uint32_t max = a->max_groups;
	int ret;

	agg_free(a);
	agg_init(a, by, max);
	ret = agg_load(a, fp, "test", load_time);
	fclose(fp);
	free(text);
	return ret;
}

/* agg_load() of @len bytes of @text, for a module loaded at 2. */
static int try_load(enum agg_by by, const char *text, size_t len)
{
	char *copy = xmalloc(len + 1);
	struct agg b;
	FILE *fp;
	int ret;

	memcpy(copy, text, len);
	copy[len] = '\0';
	agg_init(&b, by, 100);
	fp = len ? fmemopen(copy, len, "r") : fopen("/dev/null", "r");
	ret = fp ? agg_load(&b, fp, "test", 2) : -2;
	if (fp)
		fclose(fp);
	agg_free(&b);
	free(copy);
	return ret;
}

/* --- the format ------------------------------------------------------------------- */

TEST(labels_clean_and_escaped)
{
	char buf[PROM_CLEAN_SIZE(64)], *text = NULL;
	struct prom_label l[2] = {
		{ "comm", "a\"b\\c\nd\xff" "e\xc3\xa9\xc2\x9b" },
		{ "cgroup", "/ok/\xe2\x82" },
	};
	struct prom p;
	size_t len;
	FILE *fp;

	/* invalid UTF-8 and controls (C0, C1) become U+FFFD; é stays */
	EXPECT_STREQ(prom_clean(buf, sizeof(buf), "a\x01\xc3\xa9\xc2\x9b\xff"),
		     "a\xef\xbf\xbd\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd");
	/* a truncated sequence is one replacement */
	EXPECT_STREQ(prom_clean(buf, sizeof(buf), "\xe2\x82z"), "\xef\xbf\xbdz");
	/* too small: cut at a character */
	EXPECT_STREQ(prom_clean(buf, 5, "ab\xc3\xa9"), "ab\xc3\xa9");
	EXPECT_STREQ(prom_clean(buf, 4, "ab\xc3\xa9"), "ab");

	fp = open_memstream(&text, &len);
	prom_init(&p, fp);
	prom_family(&p, "x_total", "counter", "Help.");
	prom_u64(&p, "x_total", l, 2, 18446744073709551615ull);
	prom_frac(&p, "y_seconds", l, 1, 1500000000ull, 1000000000ull);
	prom_frac(&p, "y_seconds", NULL, 0, 3000, 1000);
	prom_frac(&p, "y_seconds", NULL, 0, 7, 1000000);
	fclose(fp);
	EXPECT_STREQ(text,
		"# HELP x_total Help.\n# TYPE x_total counter\n"
		"x_total{comm=\"a\\\"b\\\\c\xef\xbf\xbd" "d\xef\xbf\xbd" "e\xc3\xa9\xef\xbf\xbd\","
		"cgroup=\"/ok/\xef\xbf\xbd\"} 18446744073709551615\n"
		"y_seconds{comm=\"a\\\"b\\\\c\xef\xbf\xbd" "d\xef\xbf\xbd" "e\xc3\xa9\xef\xbf\xbd\"} 1.5\n"
		"y_seconds 3\ny_seconds 0.000007\n");
	EXPECT_EQ(p.series, 4);
	free(text);
}

TEST(exposition_sums_equal_device_totals)
{
	static struct synth s;
	struct expo_top t;
	struct agg a;
	uint64_t v;
	char *text;

	synth_cluster(&s);
	agg_init(&a, AGG_BY_OWNER, 100);
	expo_top_init(&t, 20);
	synth_run(&s, &a, &t);
	text = synth_expo(&s, &a, &t, NULL);
	check_sums(text, &s, __LINE__);
	/* the remainder holds what no QP does */
	EXPECT_TRUE(value_of(text, "fabtrace_qps_tx_packets_total{device=\"rxe0\",peer=\"other\","
			     "prio=\"other\",comm=\"other\"}", &v));
	EXPECT_EQ(v, 5);
	/* QPs 17 and 19: python to 10.99.0.2 on priority 3 */
	EXPECT_TRUE(value_of(text, "fabtrace_qps_tx_packets_total{device=\"rxe0\","
			     "peer=\"10.99.0.2\",prio=\"3\",comm=\"python\"}", &v));
	EXPECT_EQ(v, 1000 + 3000);
	EXPECT_TRUE(value_of(text, "fabtrace_qps_tx_opcode_packets_total{device=\"rxe0\","
			     "peer=\"10.99.0.2\",prio=\"3\",comm=\"python\",opcode=\"cnp\"}", &v));
	EXPECT_EQ(v, 1009 + 3009);
	EXPECT_TRUE(value_of(text, "fabtrace_qps_rx_naks_total{device=\"rxe0\","
			     "peer=\"10.99.0.2\",prio=\"3\",comm=\"python\",syndrome=\"rnr\"}", &v));
	EXPECT_EQ(v, 1201 + 3201);
	EXPECT_TRUE(value_of(text, "fabtrace_qps_live{device=\"rxe0\","
			     "peer=\"10.99.0.2\",prio=\"3\",comm=\"python\"}", &v));
	EXPECT_EQ(v, 2);
	/* the destroyed QP is folded in, but not live */
	EXPECT_TRUE(value_of(text, "fabtrace_qps_rx_ce_packets_total{device=\"rxe1\","
			     "peer=\"10.99.0.3\",prio=\"3\",comm=\"nccl-test\"}", &v));
	EXPECT_EQ(v, 702);
	EXPECT_TRUE(value_of(text, "fabtrace_qps_live{device=\"rxe1\","
			     "peer=\"10.99.0.3\",prio=\"3\",comm=\"nccl-test\"}", &v));
	EXPECT_EQ(v, 0);
	/* the hostile name, as one valid label */
	EXPECT_TRUE(value_of(text, "fabtrace_qps_live{device=\"rxe1\",peer=\"10.99.0.3\","
			     "prio=\"3\",comm=\"a\\\"b\\\\c\xef\xbf\xbd" "d\xef\xbf\xbd\"}", &v));
	EXPECT_TRUE(value_of(text, "fabtrace_module_load_time_seconds", &v));
	EXPECT_EQ(v, 1699999990);
	EXPECT_TRUE(value_of(text, "fabtrace_pfc_storm{device=\"rxe0\",port=\"1\",prio=\"3\"}", &v));
	EXPECT_EQ(v, 1);
	EXPECT_TRUE(strstr(text, "fabtrace_pfc_paused_seconds_total{device=\"rxe0\",port=\"1\","
			   "prio=\"1\"} 1.5\n") != NULL);
	EXPECT_TRUE(value_of(text, "fabtrace_policy_dcb_state{device=\"rxe1\",port=\"1\","
			     "state=\"applied\"}", &v));
	EXPECT_EQ(v, 1);
	free(text);
	expo_top_free(&t);
	agg_free(&a);
}

TEST(counters_never_go_down)
{
	static struct synth s;
	struct ft_qp_rec gone;
	struct agg a;
	char *t1, *t2, *t3, *t4, *t5;
	uint64_t v;

	synth_cluster(&s);
	agg_init(&a, AGG_BY_OWNER, 100);
	a.load_time = s.stats.v[FABTRACE_A_STATS_LOAD_TIME];
	synth_run(&s, &a, NULL);
	t1 = synth_expo(&s, &a, NULL, NULL);
	ASSERT_TRUE(reload(&a, s.stats.v[FABTRACE_A_STATS_LOAD_TIME]) == 0);

	/* QP 17 is destroyed: retained with its final counters, which grew */
	s.qps[0].flags |= FABTRACE_QP_FLAGS_DESTROYED;
	s.qps[0].tx.v[FABTRACE_A_TRAFFIC_PACKETS] += 50;
	s.qps[0].cong.v[FABTRACE_A_CONG_RX_CE] += 3;
	synth_totals(&s, NULL, 0);
	synth_run(&s, &a, NULL);
	t2 = synth_expo(&s, &a, NULL, NULL);
	check_sums(t2, &s, __LINE__);
	check_monotonic(_metadata, t1, t2, __LINE__);
	ASSERT_TRUE(reload(&a, s.stats.v[FABTRACE_A_STATS_LOAD_TIME]) == 0);

	/* retain_ms passed: it is forgotten, but the device counted it */
	gone = s.qps[0];
	s.qps[0] = s.qps[--s.nqps];
	synth_totals(&s, &gone, 1);
	synth_run(&s, &a, NULL);
	t3 = synth_expo(&s, &a, NULL, NULL);
	check_sums(t3, &s, __LINE__);
	check_monotonic(_metadata, t2, t3, __LINE__);
	EXPECT_TRUE(value_of(t3, "fabtrace_qps_tx_packets_total{device=\"rxe0\","
			     "peer=\"10.99.0.2\",prio=\"3\",comm=\"python\"}", &v));
	EXPECT_EQ(v, 1050 + 3000);
	EXPECT_TRUE(value_of(t3, "fabtrace_qps_rx_ce_packets_total{device=\"rxe0\","
			     "peer=\"10.99.0.2\",prio=\"3\",comm=\"python\"}", &v));
	EXPECT_EQ(v, 1005 + 3002);
	ASSERT_TRUE(reload(&a, s.stats.v[FABTRACE_A_STATS_LOAD_TIME]) == 0);

	/* qp reset of QP 19: its group keeps what it had; the device too */
	memset(&s.qps[2].tx, 0, sizeof(s.qps[2].tx));
	memset(&s.qps[2].rx, 0, sizeof(s.qps[2].rx));
	memset(&s.qps[2].cong, 0, sizeof(s.qps[2].cong));
	synth_run(&s, &a, NULL);
	t4 = synth_expo(&s, &a, NULL, NULL);
	check_sums(t4, &s, __LINE__);
	check_monotonic(_metadata, t3, t4, __LINE__);
	ASSERT_TRUE(reload(&a, s.stats.v[FABTRACE_A_STATS_LOAD_TIME]) == 0);

	/* every QP of a group gone between two runs: the group goes, "other" grows */
	gone = s.qps[5];		/* ib_write_bw, 10.99.0.3, priority 0 */
	s.qps[5] = s.qps[--s.nqps];
	synth_run(&s, &a, NULL);
	t5 = synth_expo(&s, &a, NULL, NULL);
	check_sums(t5, &s, __LINE__);
	check_monotonic(_metadata, t4, t5, __LINE__);
	EXPECT_FALSE(value_of(t5, "fabtrace_qps_live{device=\"rxe0\",peer=\"10.99.0.3\","
			      "prio=\"0\",comm=\"ib_write_bw\"}", &v));
	EXPECT_TRUE(value_of(t5, "fabtrace_qps_rx_ce_packets_total{device=\"rxe0\","
			     "peer=\"other\",prio=\"other\",comm=\"other\"}", &v));
	EXPECT_EQ(v, gone.cong.v[FABTRACE_A_CONG_RX_CE]);
	free(t1);
	free(t2);
	free(t3);
	free(t4);
	free(t5);
	agg_free(&a);
}

TEST(totals_that_moved_while_reading)
{
	static struct synth s;
	struct agg a;
	char *t1, *t2;
	uint64_t v;

	synth_cluster(&s);
	agg_init(&a, AGG_BY_OWNER, 100);
	synth_run(&s, &a, NULL);
	t1 = synth_expo(&s, &a, NULL, NULL);
	/*
	 * The totals were read before the QPs, which then counted 100 more:
	 * "other" may not go below what it was; the device total exported is
	 * one the device went through (the sums stay exact).
	 */
	s.qps[0].tx.v[FABTRACE_A_TRAFFIC_PACKETS] += 100;
	synth_run(&s, &a, NULL);
	t2 = synth_expo(&s, &a, NULL, NULL);
	check_sums_(_metadata, t2, &s, true, __LINE__);
	check_monotonic(_metadata, t1, t2, __LINE__);
	EXPECT_TRUE(value_of(t2, "fabtrace_device_tx_packets_total{device=\"rxe0\"}", &v));
	EXPECT_EQ(v, s.devs[0].tx.v[FABTRACE_A_TRAFFIC_PACKETS] + 100);
	/* the next quiet read: the device total itself again */
	synth_totals(&s, NULL, 0);
	synth_run(&s, &a, NULL);
	free(t1);
	t1 = synth_expo(&s, &a, NULL, NULL);
	EXPECT_TRUE(value_of(t1, "fabtrace_device_tx_packets_total{device=\"rxe0\"}", &v));
	EXPECT_EQ(v, s.devs[0].tx.v[FABTRACE_A_TRAFFIC_PACKETS]);
	check_monotonic(_metadata, t2, t1, __LINE__);
	free(t1);
	free(t2);
	agg_free(&a);
}

TEST(state_of_another_load_or_grouping)
{
	static struct synth s;
	char *text, *damaged;
	struct agg a;

	synth_cluster(&s);
	agg_init(&a, AGG_BY_OWNER, 100);
	a.load_time = 1;
	synth_run(&s, &a, NULL);
	EXPECT_TRUE(a.ngroups > 0 && a.npins == s.nqps);
	/* the module loaded again: nothing of it applies */
	ASSERT_TRUE(reload(&a, 2) == 0);
	EXPECT_EQ(a.ngroups, 0);
	EXPECT_EQ(a.npins, 0);
	EXPECT_EQ(a.load_time, 2);

	synth_run(&s, &a, NULL);
	text = save(&a);
	ASSERT_TRUE(freopen("/dev/null", "w", stderr) != NULL);
	EXPECT_EQ(try_load(AGG_BY_OWNER, text, strlen(text)), 0);
	/* kept by owner, read by cgroup: refused */
	EXPECT_EQ(try_load(AGG_BY_CGROUP, text, strlen(text)), -1);
	/* cut short, or damaged: refused, never taken for empty */
	EXPECT_EQ(try_load(AGG_BY_OWNER, text, strlen(text) - 4), -1);
	damaged = strdup(text);
	ASSERT_TRUE(damaged && strstr(damaged, "\nqp "));
	memcpy(strstr(damaged, "\nqp "), "\nqx ", 5);
	EXPECT_EQ(try_load(AGG_BY_OWNER, damaged, strlen(damaged)), -1);
	free(damaged);
	EXPECT_EQ(try_load(AGG_BY_OWNER, "hello\n", 6), -1);
	/* empty: a first run */
	EXPECT_EQ(try_load(AGG_BY_OWNER, "", 0), 0);
	free(text);
	agg_free(&a);
}

/* A hardware NIC: what it counts has series, what it does not has none. */
TEST(hardware_nic_series)
{
	static struct synth s;
	struct nlb_qp q = {
		.dev_index = 3, .dev = "mlx5_0", .type = FABTRACE_QP_TYPE_RC,
		.state = FABTRACE_QP_STATE_RTS, .pid = 100, .comm = "python",
		.peer = nlb_peer_v4, .rqpn = 90, .ctime = 1700000000000000000ull,
		.cgroup_id = 4242, .cgroup = "/slurm/job_1", .qpn = 40, .base = 0,
	};
	struct ft_dev_hw_port *hp;
	struct ft_qp_rec *r;
	unsigned long series;
	struct expo_top t;
	struct agg a;
	uint64_t v;
	char *text;

	synth_init(&s, 1699999990000000000ull);
	synth_dev(&s, 3, "mlx5_0");
	s.devs[0].hooked = false;
	s.devs[0].hw.present = s.devs[0].hw.sets = s.devs[0].hw.port_stats = true;
	s.devs[0].hw.nports = 1;
	hp = &s.devs[0].hw.ports[0];
	hp->port = 1;
	hp->ncounters = 3;
	hp->c[0] = (struct ft_hw_counter){ "np_cnp_sent", 5 };
	hp->c[1] = (struct ft_hw_counter){ "rx_write_requests", 77 };
	hp->c[2] = (struct ft_hw_counter){ "evil\"name\n", 1 };
	/* a QP in a set of its own that counted 4 retransmits, nothing else */
	r = synth_qp(&s, &q, 3);
	memset(&r->tx, 0, sizeof(r->tx));
	memset(&r->rx, 0, sizeof(r->rx));
	memset(&r->cong, 0, sizeof(r->cong));
	r->cong.have = 1u << FABTRACE_A_CONG_RETRANSMITS;
	r->cong.v[FABTRACE_A_CONG_RETRANSMITS] = 4;
	r->hw.present = true;
	r->hw.have = FT_HW_HAVE_SOURCE | FT_HW_HAVE_SET;
	r->hw.source = FABTRACE_SOURCE_SET;
	synth_totals(&s, NULL, 0);

	agg_init(&a, AGG_BY_OWNER, 10);
	expo_top_init(&t, 5);
	synth_run(&s, &a, &t);
	text = synth_expo(&s, &a, &t, &series);
	EXPECT_TRUE(strstr(text, "fabtrace_qps_tx_packets_total{device=\"mlx5_0\"") == NULL);
	EXPECT_TRUE(strstr(text, "fabtrace_device_tx_packets_total{device=\"mlx5_0\"") == NULL);
	EXPECT_TRUE(strstr(text, "fabtrace_qps_rx_ce_packets_total{device=\"mlx5_0\"") == NULL);
	EXPECT_TRUE(strstr(text, "fabtrace_device_malformed_packets_total{device=\"mlx5_0\"") == NULL);
	EXPECT_TRUE(strstr(text, "fabtrace_qp_tx_packets_total{device=\"mlx5_0\"") == NULL);
	EXPECT_TRUE(value_of(text, "fabtrace_qps_retransmitted_packets_total{device=\"mlx5_0\","
			     "peer=\"10.99.0.2\",prio=\"3\",comm=\"python\"}", &v));
	EXPECT_EQ(v, 4);
	EXPECT_TRUE(value_of(text, "fabtrace_qp_retransmitted_packets_total{device=\"mlx5_0\","
			     "qpn=\"40\"}", &v));
	EXPECT_EQ(v, 4);
	/* its paused time is the NIC's PFC counters': there */
	EXPECT_TRUE(strstr(text, "fabtrace_qp_paused_seconds_total{device=\"mlx5_0\",qpn=\"40\"}")
		    != NULL);
	EXPECT_TRUE(strstr(text, ",cgroup=\"/slurm/job_1\",source=\"set\"} 1\n") != NULL);
	EXPECT_TRUE(value_of(text, "fabtrace_device_qps{device=\"mlx5_0\",source=\"set\"}", &v));
	EXPECT_EQ(v, 1);
	EXPECT_TRUE(value_of(text, "fabtrace_device_qps{device=\"mlx5_0\",source=\"tap\"}", &v));
	EXPECT_EQ(v, 0);
	EXPECT_TRUE(value_of(text, "fabtrace_port_cnp_sent_total{device=\"mlx5_0\",port=\"1\"}", &v));
	EXPECT_EQ(v, 5);
	EXPECT_TRUE(strstr(text, "fabtrace_port_ecn_marked_packets_total{") == NULL);
	EXPECT_TRUE(value_of(text, "fabtrace_port_hw_counter_total{device=\"mlx5_0\",port=\"1\","
			     "counter=\"rx_write_requests\"}", &v));
	EXPECT_EQ(v, 77);
	/* a driver's name is a label value: escaped, its controls replaced, one line */
	EXPECT_TRUE(value_of(text, "fabtrace_port_hw_counter_total{device=\"mlx5_0\",port=\"1\","
			     "counter=\"evil\\\"name\xef\xbf\xbd\"}", &v));
	EXPECT_TRUE(series <= expo_bound(1, 1, 1, 10, 5));
	free(text);
	expo_top_free(&t);
	agg_free(&a);
}

TEST(group_cap_and_series_bound)
{
	static struct synth s;
	struct expo_top t;
	unsigned long series;
	struct agg a;
	uint64_t v;
	char *text;

	synth_cluster(&s);
	agg_init(&a, AGG_BY_OWNER, 2);
	expo_top_init(&t, 3);
	synth_run(&s, &a, &t);
	text = synth_expo(&s, &a, &t, &series);
	check_sums(text, &s, __LINE__);
	EXPECT_TRUE(value_of(text, "fabtrace_export_groups{device=\"rxe0\"}", &v));
	EXPECT_EQ(v, 2);
	/* rxe0 has 4 groups of 6 QPs: the first two have slots, 2 QPs overflow */
	EXPECT_TRUE(value_of(text, "fabtrace_export_overflow_qps{device=\"rxe0\"}", &v));
	EXPECT_EQ(v, 2);
	EXPECT_TRUE(value_of(text, "fabtrace_qps_live{device=\"rxe0\",peer=\"other\","
			     "prio=\"other\",comm=\"other\"}", &v));
	EXPECT_EQ(v, 2);
	/* every slot taken on both devices, every family there: the bound, exactly */
	EXPECT_EQ(series, samples(text));
	EXPECT_EQ(series, expo_bound(2, 2, 0, 2, 3));
	EXPECT_TRUE(value_of(text, "fabtrace_export_max_series", &v));
	EXPECT_EQ(v, series);
	EXPECT_TRUE(value_of(text, "fabtrace_export_series", &v));
	EXPECT_EQ(v, series);
	/* overflowed QPs stay in "other" when a slot frees: it never shrinks */
	free(text);
	s.qps[0] = s.qps[--s.nqps];	/* QP 17 gone: its group keeps QP 19 */
	s.qps[2] = s.qps[--s.nqps];	/* QP 19 gone: the group goes */
	synth_totals(&s, NULL, 0);
	synth_run(&s, &a, &t);
	text = synth_expo(&s, &a, &t, &series);
	EXPECT_TRUE(value_of(text, "fabtrace_export_overflow_qps{device=\"rxe0\"}", &v));
	EXPECT_EQ(v, 2);
	EXPECT_TRUE(series <= expo_bound(2, 2, 0, 2, 3));
	free(text);
	expo_top_free(&t);
	agg_free(&a);
}

/* "qp " lines of a saved state */
static unsigned int state_qps(const struct agg *a)
{
	char *text = save(a), *p;
	unsigned int n = 0;

	for (p = text; (p = strstr(p, "\nqp ")); p++)
		n++;
	free(text);
	return n;
}

TEST(state_keeps_what_labels_cannot_tell)
{
	static struct synth s;
	struct ft_qp_rec gone[2];
	struct agg a;
	char *t1, *t2;
	uint64_t v;
	size_t i;

	synth_cluster(&s);
	for (i = 0; i < s.nqps; i++) {
		/* no congestion: no score to keep */
		memset(&s.qps[i].cong, 0, sizeof(s.qps[i].cong));
		s.qps[i].tx.v[FABTRACE_A_TRAFFIC_CNP] = s.qps[i].rx.v[FABTRACE_A_TRAFFIC_CNP] = 0;
		s.qps[i].tx.v[FABTRACE_A_TRAFFIC_NAK] = s.qps[i].rx.v[FABTRACE_A_TRAFFIC_NAK] = 0;
	}
	synth_totals(&s, NULL, 0);
	agg_init(&a, AGG_BY_OWNER, 2);
	a.load_time = s.stats.v[FABTRACE_A_STATS_LOAD_TIME];
	synth_run(&s, &a, NULL);
	t1 = synth_expo(&s, &a, NULL, NULL);
	/* rxe0: QPs 21 and 22 beyond the cap; rxe1: QP 31 folded, QP 32 beyond */
	EXPECT_EQ(a.npins, s.nqps);
	EXPECT_EQ(state_qps(&a), 4);
	ASSERT_TRUE(reload(&a, a.load_time) == 0);
	EXPECT_EQ(a.npins, 4);

	/* QPs 18 and 20 go: their group with them; the overflow stays put */
	gone[0] = s.qps[1];
	gone[1] = s.qps[3];
	s.qps[1] = s.qps[--s.nqps];
	s.qps[3] = s.qps[--s.nqps];
	synth_totals(&s, gone, 2);
	synth_run(&s, &a, NULL);
	t2 = synth_expo(&s, &a, NULL, NULL);
	check_sums(t2, &s, __LINE__);
	check_monotonic(_metadata, t1, t2, __LINE__);
	EXPECT_TRUE(value_of(t2, "fabtrace_export_overflow_qps{device=\"rxe0\"}", &v));
	EXPECT_EQ(v, 2);
	EXPECT_TRUE(value_of(t2, "fabtrace_export_groups{device=\"rxe0\"}", &v));
	EXPECT_EQ(v, 1);
	/* a slot is free now, and still the overflowed QPs stay in "other" */
	ASSERT_TRUE(reload(&a, a.load_time) == 0);
	free(t1);
	t1 = t2;
	synth_run(&s, &a, NULL);
	t2 = synth_expo(&s, &a, NULL, NULL);
	check_sums(t2, &s, __LINE__);
	check_monotonic(_metadata, t1, t2, __LINE__);
	EXPECT_TRUE(value_of(t2, "fabtrace_export_overflow_qps{device=\"rxe0\"}", &v));
	EXPECT_EQ(v, 2);
	free(t1);
	free(t2);
	agg_free(&a);
}

TEST(top_qps_by_congestion_growth)
{
	static struct synth s;
	struct expo_top t;
	struct agg a;
	uint64_t v;
	char *text;
	size_t i;

	synth_cluster(&s);
	agg_init(&a, AGG_BY_OWNER, 100);
	expo_top_init(&t, 3);
	/* no congestion at all: never among the top */
	memset(&s.qps[1].cong, 0, sizeof(s.qps[1].cong));
	s.qps[1].tx.v[FABTRACE_A_TRAFFIC_CNP] = s.qps[1].rx.v[FABTRACE_A_TRAFFIC_CNP] = 0;
	s.qps[1].tx.v[FABTRACE_A_TRAFFIC_NAK] = s.qps[1].rx.v[FABTRACE_A_TRAFFIC_NAK] = 0;
	synth_run(&s, &a, &t);
	/* first run: by how much they have (the biggest bases) */
	ASSERT_TRUE(t.n == 3);
	EXPECT_EQ(t.v[0].r.qpn, 22);
	EXPECT_EQ(t.v[1].r.qpn, 21);
	EXPECT_EQ(t.v[2].r.qpn, 20);
	/* then by growth: QP 17 sees 5 CE marks, the others nothing */
	s.qps[0].cong.v[FABTRACE_A_CONG_RX_CE] += 5;
	synth_run(&s, &a, &t);
	EXPECT_EQ(t.v[0].r.qpn, 17);
	EXPECT_EQ(t.v[0].delta, 5);
	EXPECT_EQ(t.v[1].r.qpn, 22);
	for (i = 0; i < t.n; i++)
		EXPECT_TRUE(t.v[i].r.qpn != 18);
	text = synth_expo(&s, &a, &t, NULL);
	EXPECT_TRUE(value_of(text, "fabtrace_qp_rx_ce_packets_total{device=\"rxe0\",qpn=\"17\"}", &v));
	EXPECT_EQ(v, 1007);
	EXPECT_TRUE(strstr(text, "fabtrace_qp_info{device=\"rxe0\",qpn=\"17\",type=\"rc\","
			   "state=\"rts\",peer=\"10.99.0.2\",remote_qpn=\"90\",prio=\"3\","
			   "pid=\"100\",comm=\"python\",cgroup=\"/slurm/job_1\",source=\"tap\"} 1\n") != NULL);
	free(text);

	/* a number reused: one entry for it, the live QP's when they tie */
	expo_top_clear(&t);
	s.qps[1] = s.qps[0];
	s.qps[1].flags |= FABTRACE_QP_FLAGS_DESTROYED;
	expo_top_offer(&t, &s.qps[1], 5);
	expo_top_offer(&t, &s.qps[0], 5);
	expo_top_offer(&t, &s.qps[1], 5);
	EXPECT_EQ(t.n, 1);
	EXPECT_FALSE(t.v[0].r.flags & FABTRACE_QP_FLAGS_DESTROYED);
	expo_top_free(&t);
	agg_free(&a);
}

TEST(grouped_by_cgroup)
{
	static struct synth s;
	struct agg a;
	uint64_t v;
	char *text;

	synth_cluster(&s);
	agg_init(&a, AGG_BY_CGROUP, 100);
	a.load_time = s.stats.v[FABTRACE_A_STATS_LOAD_TIME];
	synth_run(&s, &a, NULL);
	text = synth_expo(&s, &a, NULL, NULL);
	check_sums(text, &s, __LINE__);
	EXPECT_TRUE(value_of(text, "fabtrace_qps_tx_packets_total{device=\"rxe0\","
			     "cgroup=\"/slurm/job_1\"}", &v));
	EXPECT_EQ(v, 1000 + 2000 + 3000);
	EXPECT_TRUE(value_of(text, "fabtrace_qps_live{device=\"rxe1\",cgroup=\"kernel\"}", &v));
	EXPECT_EQ(v, 1);
	free(text);
	ASSERT_TRUE(reload(&a, s.stats.v[FABTRACE_A_STATS_LOAD_TIME]) == 0);

	/* job 1's cgroup is removed: its QPs keep their path, a new one finds it */
	s.qps[0].have &= ~FT_QP_HAVE_CGROUP;
	s.qps[0].cgroup = NULL;
	s.qps[s.nqps] = s.qps[0];
	s.qps[s.nqps].qpn = 40;
	s.qps[s.nqps].create_time += 7000000000ull;
	s.nqps++;
	synth_totals(&s, NULL, 0);
	synth_run(&s, &a, NULL);
	text = synth_expo(&s, &a, NULL, NULL);
	check_sums(text, &s, __LINE__);
	EXPECT_TRUE(value_of(text, "fabtrace_qps_live{device=\"rxe0\",cgroup=\"/slurm/job_1\"}",
			     &v));
	EXPECT_EQ(v, 4);
	EXPECT_TRUE(strstr(text, "cgroup=\"id:") == NULL);
	free(text);
	agg_free(&a);
}

TEST(zero_qp_joins_its_peers_group)
{
	static struct synth s;
	struct ft_qp_rec *r;
	struct agg a;
	uint64_t v;
	char *text;

	synth_cluster(&s);
	/* a QP created, not connected yet, nothing counted */
	r = &s.qps[s.nqps++];
	*r = s.qps[0];
	r->qpn = 50;
	r->create_time += 9000000000ull;
	r->have &= ~(FT_QP_HAVE_PEER | FT_QP_HAVE_RQPN);
	memset(&r->tx, 0, sizeof(r->tx));
	memset(&r->rx, 0, sizeof(r->rx));
	memset(&r->cong, 0, sizeof(r->cong));
	agg_init(&a, AGG_BY_OWNER, 100);
	synth_run(&s, &a, NULL);
	text = synth_expo(&s, &a, NULL, NULL);
	EXPECT_TRUE(value_of(text, "fabtrace_qps_live{device=\"rxe0\",peer=\"none\","
			     "prio=\"3\",comm=\"python\"}", &v));
	EXPECT_EQ(v, 1);
	free(text);
	/* connected, counting: it joins its peer's group, the empty one goes */
	r->have |= FT_QP_HAVE_PEER;
	r->tx.v[FABTRACE_A_TRAFFIC_PACKETS] = 10;
	synth_totals(&s, NULL, 0);
	synth_run(&s, &a, NULL);
	text = synth_expo(&s, &a, NULL, NULL);
	check_sums(text, &s, __LINE__);
	EXPECT_TRUE(value_of(text, "fabtrace_qps_live{device=\"rxe0\",peer=\"10.99.0.2\","
			     "prio=\"3\",comm=\"python\"}", &v));
	EXPECT_EQ(v, 3);
	EXPECT_FALSE(value_of(text, "fabtrace_qps_live{device=\"rxe0\",peer=\"none\","
			      "prio=\"3\",comm=\"python\"}", &v));
	free(text);
	/* a QP that counted is pinned: it stays where its counts are */
	r->prio = 5;
	r->tx.v[FABTRACE_A_TRAFFIC_PACKETS] = 20;
	synth_totals(&s, NULL, 0);
	synth_run(&s, &a, NULL);
	text = synth_expo(&s, &a, NULL, NULL);
	check_sums(text, &s, __LINE__);
	EXPECT_TRUE(value_of(text, "fabtrace_qps_live{device=\"rxe0\",peer=\"10.99.0.2\","
			     "prio=\"3\",comm=\"python\"}", &v));
	EXPECT_EQ(v, 3);
	free(text);
	agg_free(&a);
}

TEST(dump_started_over_counts_once)
{
	static struct synth s;
	struct agg a, b;
	char *ta, *tb;
	uint64_t delta;
	size_t i;

	synth_cluster(&s);
	agg_init(&a, AGG_BY_OWNER, 100);
	agg_init(&b, AGG_BY_OWNER, 100);
	synth_run(&s, &a, NULL);
	/* the same, but the dump is interrupted halfway and brings a QP twice */
	agg_run_reset(&b, true);
	for (i = 0; i < s.ndevs; i++)
		agg_dev(&b, &s.devs[i]);
	for (i = 0; i < s.nqps / 2; i++)
		agg_qp(&b, &s.qps[i], &delta);
	agg_run_reset(&b, false);
	for (i = 0; i < s.nqps; i++)
		agg_qp(&b, &s.qps[i], &delta);
	EXPECT_TRUE(agg_qp(&b, &s.qps[3], &delta) == NULL);
	agg_end(&b, false);
	ta = synth_expo(&s, &a, NULL, NULL);
	tb = synth_expo(&s, &b, NULL, NULL);
	EXPECT_STREQ(ta, tb);
	free(ta);
	free(tb);
	agg_free(&a);
	agg_free(&b);
}

TEST(one_device_leaves_the_others_state)
{
	static struct synth s;
	struct agg a;
	size_t groups, pins;
	char *text;

	synth_cluster(&s);
	agg_init(&a, AGG_BY_OWNER, 100);
	synth_run(&s, &a, NULL);
	groups = a.ngroups;
	pins = a.npins;
	/* "dev rxe0": rxe1 is not read, its groups and QPs stay as they were */
	agg_run_reset(&a, true);
	agg_dev(&a, &s.devs[0]);
	for (size_t i = 0; i < s.nqps; i++) {
		uint64_t delta;

		if (s.qps[i].dev_index == 1)
			agg_qp(&a, &s.qps[i], &delta);
	}
	agg_end(&a, true);
	EXPECT_EQ(a.ngroups, groups);
	EXPECT_EQ(a.npins, pins);
	text = synth_expo(&s, &a, NULL, NULL);
	EXPECT_TRUE(strstr(text, "fabtrace_qps_live{device=\"rxe0\"") != NULL);
	EXPECT_TRUE(strstr(text, "fabtrace_qps_live{device=\"rxe1\"") == NULL);
	free(text);
	agg_free(&a);
}

/* The names in @dir, joined: "" when it is empty. */
static void dir_names(const char *dir, char *buf, size_t size)
{
	char cmd[512];
	FILE *fp;
	size_t n;

	snprintf(cmd, sizeof(cmd), "ls -A %s | tr '\\n' ' '", dir);
	fp = popen(cmd, "r");
	n = fp ? fread(buf, 1, size - 1, fp) : 0;
	buf[n] = '\0';
	if (fp)
		pclose(fp);
}

TEST(files_written_whole_or_not_at_all)
{
	char dir[] = "/tmp/ft-export-XXXXXX", path[128], names[256], *big, got[16];
	struct stat st;
	FILE *fp;

	ASSERT_TRUE(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/fabtrace.prom", dir);
	ASSERT_TRUE(freopen("/dev/null", "w", stderr) != NULL);

	/* a directory that is not there */
	EXPECT_EQ(ft_write_whole("/nonexistent/fabtrace.prom", "x", 1, 0644, "t"), -1);

	/*
	 * A full disk and a read-only one: a 16 KiB tmpfs, mounted in a mount
	 * namespace of this test's own process (the harness forks one per test),
	 * which takes it away with it.  Needs root: otherwise only the rest.
	 */
	if (unshare(CLONE_NEWNS) || mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) ||
	    mount("tmpfs", dir, "tmpfs", 0, "size=16k")) {
		printf("# no tmpfs of our own (not root?): ENOSPC and EROFS not tried\n");
		EXPECT_EQ(ft_write_whole(path, "new\n", 4, 0644, "t"), 0);
		unlink(path);
		rmdir(dir);
		return;
	}
	EXPECT_EQ(ft_write_whole(path, "old\n", 4, 0644, "t"), 0);
	ASSERT_TRUE(stat(path, &st) == 0);
	EXPECT_EQ(st.st_mode & 07777, 0644);
	big = xcalloc(1, 64 * 1024);
	memset(big, 'x', 64 * 1024 - 1);
	EXPECT_EQ(ft_write_whole(path, big, 64 * 1024, 0644, "t"), -1);
	/* the old file as it was, no temporary file beside it */
	fp = fopen(path, "r");
	ASSERT_TRUE(fp && fgets(got, sizeof(got), fp));
	fclose(fp);
	EXPECT_STREQ(got, "old\n");
	dir_names(dir, names, sizeof(names));
	EXPECT_STREQ(names, "fabtrace.prom ");
	free(big);
	/* read-only */
	ASSERT_TRUE(mount("none", dir, "none", MS_REMOUNT | MS_RDONLY, NULL) == 0);
	EXPECT_EQ(ft_write_whole(path, "new\n", 4, 0644, "t"), -1);
	dir_names(dir, names, sizeof(names));
	EXPECT_STREQ(names, "fabtrace.prom ");
	umount(dir);
	rmdir(dir);
}

TEST_HARNESS_MAIN
