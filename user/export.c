// SPDX-License-Identifier: GPL-2.0
/* fabtrace export: the module's counters as a Prometheus textfile, bounded. */

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <linux/genetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agg.h"
#include "cmd.h"
#include "expo.h"
#include "ft.h"
#include "objects.h"
#include "parse.h"
#include "util.h"

#define EXPORT_CTX	"export"
#define EXPORT_HELP	"fabtrace export help"

/* Debian's prometheus-node-exporter reads *.prom files from there. */
#ifndef FT_TEXTFILE_DIR
#define FT_TEXTFILE_DIR	"/var/lib/prometheus/node-exporter"
#endif
#define FT_TEXTFILE	"fabtrace.prom"
#ifndef FT_STATE_DIR
#define FT_STATE_DIR	"/run/fabtrace"	/* it dies with the module: a boot */
#endif

#define TOP_DEFAULT	20
#define GROUPS_DEFAULT	100
/* Reads whose device totals moved meanwhile are made again, this often. */
#define READ_TRIES	2
/* How long a run waits for another one holding the state. */
#define LOCK_WAIT_MS	10000

static int export_help(void)
{
	printf("Usage: fabtrace export [ dev DEV ] [ top N ] [ by { owner | cgroup } ] [ groups N ]\n"
	       "                       [ state { FILE | none } ]\n"
	       "                       [ { textfile | dir DIR | file FILE | - } ]\n"
	       "       fabtrace export help\n"
	       "\n"
	       "Writes the module's counters in the Prometheus text format: each device's\n"
	       "totals (fabtrace_device_*), the module's own statistics (fabtrace_module_*),\n"
	       "each port's policy and PFC counters (fabtrace_policy_*, fabtrace_pfc_*),\n"
	       "and the QPs summed by group (fabtrace_qps_*): by owner (default) a group is\n"
	       "the QPs of one device, peer, priority and command, by cgroup those of one\n"
	       "device and cgroup.  Each device has at most \"groups\" N groups (default %d),\n"
	       "then one more, \"other\", so that a device's groups add up to its totals\n"
	       "exactly.  The top N QPs by congestion (default %d, 0: none) get series of\n"
	       "their own as well (fabtrace_qp_*), outside those sums.  At most\n"
	       "  %d + devices * (%d + %d * (groups + 1)) + ports * %d\n"
	       "  + hardware NIC ports * %d + top * %d\n"
	       "series, however many QPs there are (fabtrace_export_max_series).\n"
	       "\n"
	       "On a hardware RDMA NIC each series is what the NIC counts, never a 0 for\n"
	       "what it does not: a device's QP groups have the counters some QP of it\n"
	       "counts (its counter sets fill; fabtrace_device_qps{source} says how many\n"
	       "QPs have one), and each\n"
	       "port its ECN and CNP counters (fabtrace_port_ecn_marked_packets_total,\n"
	       "_cnp_sent_total, _cnp_handled_total, _cnp_ignored_total) and every\n"
	       "counter of its driver (fabtrace_port_hw_counter_total{counter}).\n"
	       "\n"
	       "Counters never go down while the module stays loaded: destroyed QPs are\n"
	       "folded into their group when a run sees them retained, and a state file\n"
	       "remembers them (default %s/export.state, export-cgroup.state by\n"
	       "cgroup; with \"-\" none unless given).  Export more often than retain_ms.\n"
	       "\n"
	       "textfile writes %s/%s (node_exporter's\n"
	       "textfile directory), dir DIR writes DIR/%s, file FILE writes FILE, each\n"
	       "as a whole or not at all (a temporary file in the same directory, synced,\n"
	       "renamed).  - or nothing: standard output.  -j prints what was written\n"
	       "(a file target only).\n"
	       "\n"
	       "Examples:\n"
	       "  fabtrace export\n"
	       "  fabtrace export textfile\n"
	       "  fabtrace export by cgroup top 50 dir /run/node-exporter\n"
	       "  fabtrace -j export dev rxe0 file /tmp/rxe0.prom state none\n",
	       GROUPS_DEFAULT, TOP_DEFAULT, EXPO_FIXED, EXPO_PER_DEV, EXPO_PER_GROUP,
	       EXPO_PER_PORT, EXPO_PER_HW_PORT, EXPO_PER_QP, FT_STATE_DIR, FT_TEXTFILE_DIR, FT_TEXTFILE,
	       FT_TEXTFILE);
	return 0;
}

static const struct kw by_kw[] = {
	{ "owner", AGG_BY_OWNER },
	{ "cgroup", AGG_BY_CGROUP },
	{ NULL, 0 }
};

struct export_req {
	const char *dev, *dir, *file, *state;
	uint32_t top, groups, by;
	bool textfile, stdout_;
	char path[4096];		/* the file written; "" for stdout */
};

/* 0, ARGS_HELP or -1 (printed). */
static int export_parse(int argc, char **argv, struct export_req *q)
{
	const struct arg args[] = {
		{ .key = "help", .kind = ARG_HELP },
		ARG_DEV(&q->dev),
		{ .key = "top", .kind = ARG_U32, .max = 1000, .dst = &q->top,
		  .why = "not a number from 0 to 1000" },
		{ .key = "by", .kind = ARG_KW, .kw = by_kw, .dst = &q->by },
		{ .key = "groups", .kind = ARG_U32, .min = 1, .max = 10000, .dst = &q->groups,
		  .why = "not a number from 1 to 10000" },
		{ .key = "state", .kind = ARG_STR, .min = 1, .max = sizeof(q->path) - 16,
		  .dst = &q->state, .why = "not a path" },
		{ .key = "textfile", .kind = ARG_FLAG, .dst = &q->textfile },
		{ .key = "dir", .kind = ARG_STR, .min = 1, .max = sizeof(q->path) - 16,
		  .dst = &q->dir, .why = "not a path" },
		{ .key = "file", .kind = ARG_STR, .min = 1, .max = sizeof(q->path) - 16,
		  .dst = &q->file, .why = "not a path" },
		{ .key = "-", .kind = ARG_FLAG, .dst = &q->stdout_ },
		{ .key = NULL }
	};
	int ret;

	memset(q, 0, sizeof(*q));
	q->top = TOP_DEFAULT;
	q->groups = GROUPS_DEFAULT;
	ret = args_parse(EXPORT_CTX, EXPORT_HELP, args, argc, argv);
	if (ret)
		return ret;
	if (q->textfile + !!q->dir + !!q->file + q->stdout_ > 1) {
		ft_err("%s: one target at most: textfile, dir DIR, file FILE or -", EXPORT_CTX);
		return -1;
	}
	if (q->textfile)
		snprintf(q->path, sizeof(q->path), "%s/%s", FT_TEXTFILE_DIR, FT_TEXTFILE);
	else if (q->dir)
		snprintf(q->path, sizeof(q->path), "%s/%s", q->dir, FT_TEXTFILE);
	else if (q->file)
		snprintf(q->path, sizeof(q->path), "%s", q->file);
	return 0;
}

/* --- the state ----------------------------------------------------------------- */

struct state {
	char path[4096];
	int lock;			/* its directory, flock()ed; -1 */
};

/* The state's directory, made if missing, locked against other runs. */
static int state_lock(struct state *st)
{
	char dirbuf[4096];
	const char *dir;
	unsigned int waited;

	snprintf(dirbuf, sizeof(dirbuf), "%s", st->path);
	dir = dirname(dirbuf);
	if (mkdir(dir, 0755) && errno != EEXIST) {
		ft_err("%s: cannot make the state's directory %s: %s", EXPORT_CTX, dir,
		       strerror(errno));
		return -1;
	}
	st->lock = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (st->lock < 0) {
		ft_err("%s: cannot open the state's directory %s: %s", EXPORT_CTX, dir,
		       strerror(errno));
		return -1;
	}
	for (waited = 0; flock(st->lock, LOCK_EX | LOCK_NB); waited += 50) {
		if (errno != EWOULDBLOCK || waited >= LOCK_WAIT_MS) {
			ft_err("%s: cannot lock %s (another fabtrace export?): %s", EXPORT_CTX,
			       dir, strerror(errno));
			return -1;
		}
		usleep(50 * 1000);
	}
	return 0;
}

static int state_load(struct state *st, struct agg *a, uint64_t load_time)
{
	FILE *fp = fopen(st->path, "r");
	int ret;

	if (!fp) {
		if (errno == ENOENT) {
			a->load_time = load_time;
			return 0;	/* the first run */
		}
		ft_err("%s: cannot read the state %s: %s", EXPORT_CTX, st->path, strerror(errno));
		return -1;
	}
	ret = agg_load(a, fp, st->path, load_time);
	fclose(fp);
	return ret;
}

static int state_save(const struct state *st, const struct agg *a)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	int ret;

	if (!fp || agg_save(a, fp) | fclose(fp)) {
		ft_err("%s: cannot build the state: %s", EXPORT_CTX, strerror(errno));
		free(buf);
		return -1;
	}
	ret = ft_write_whole(st->path, buf, len, 0600, EXPORT_CTX);
	free(buf);
	return ret;
}

/* --- reading the module ----------------------------------------------------------- */

static bool is_cmd(const struct nlmsghdr *nlh, uint8_t cmd)
{
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);

	return mnl_nlmsg_get_payload_len(nlh) >= sizeof(*g) && g->cmd == cmd;
}

/* Devices: all of them, or the one asked for (dev-get has no dump filter). */
static int read_devs(struct nl *nl, struct ft_recs *c, const char *dev)
{
	struct ft_dev_rec *v;
	size_t i, n = 0;

	if (ft_recs_dump(nl, c, EXPORT_CTX))
		return -1;
	v = c->v;
	for (i = 0; i < c->n; i++)
		if (!dev || !strcmp(v[i].name, dev))
			v[n++] = v[i];
	c->n = n;
	return 0;
}

struct qp_run {
	struct agg *agg;
	struct expo_top *top;
	const char *dev;
	struct ft_qp_rec rec;
	size_t qps;
};

static int qp_cb(const struct nlmsghdr *nlh, void *data)
{
	struct qp_run *x = data;
	const struct agg_group *g;
	uint64_t delta = 0;

	if (!is_cmd(nlh, FABTRACE_CMD_QP_GET))
		return MNL_CB_OK;
	if (ft_parse_qp(nlh, &x->rec)) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	x->qps++;
	g = agg_qp(x->agg, &x->rec, &delta);
	if (g)
		expo_top_offer(x->top, &x->rec, delta);
	return MNL_CB_OK;
}

static void qp_restart(void *data)
{
	struct qp_run *x = data;

	agg_run_reset(x->agg, false);
	expo_top_clear(x->top);
	x->qps = 0;
}

static struct nlmsghdr *qp_build(struct nl *nl, void *data)
{
	const struct qp_run *x = data;
	struct nlmsghdr *nlh = nl_req(nl, FABTRACE_CMD_QP_GET, true);

	if (x->dev)
		mnl_attr_put_strz(nlh, FABTRACE_A_QP_DEV_NAME, x->dev);
	return nlh;
}

static int stats_cb(const struct nlmsghdr *nlh, void *data)
{
	if (!is_cmd(nlh, FABTRACE_CMD_STATS_GET))
		return MNL_CB_OK;
	if (ft_parse_stats(nlh, data)) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	return MNL_CB_OK;
}

/* The same devices, with the same traffic totals. */
static bool same_totals(const struct ft_recs *a, const struct ft_recs *b)
{
	const struct ft_dev_rec *x = a->v, *y = b->v;
	uint64_t cx[AGG_NTRAFFIC], cy[AGG_NTRAFFIC];
	size_t i;

	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++) {
		if (x[i].index != y[i].index)
			return false;
		agg_dev_counters(&x[i], cx);
		agg_dev_counters(&y[i], cy);
		if (memcmp(cx, cy, sizeof(cx)))
			return false;
	}
	return true;
}

/* --- the command ----------------------------------------------------------------- */

static void print_summary(struct ft *ft, const struct export_req *q, const struct state *st,
			  unsigned long series, unsigned long max, size_t bytes,
			  const struct expo_in *in)
{
	struct out *o = ft->out;

	out_obj_begin(o, NULL);
	out_str(o, PRINT_JSON, "path", NULL, q->path);
	out_str(o, PRINT_JSON, "state", NULL, st->path[0] ? st->path : NULL);
	out_str(o, PRINT_JSON, "by", NULL, agg_by_name[q->by]);
	out_u64(o, PRINT_JSON, "series", NULL, series);
	out_u64(o, PRINT_JSON, "max_series", NULL, max);
	out_u64(o, PRINT_JSON, "bytes", NULL, bytes);
	out_u64(o, PRINT_JSON, "qps", NULL, in->qps);
	out_u64(o, PRINT_JSON, "top", NULL, in->top->n);
	out_bool(o, PRINT_JSON, "consistent", NULL, in->consistent);
	out_obj_end(o);
}

static int export_run(struct ft *ft, int argc, char **argv)
{
	struct ft_recs before = { .kind = &ft_dev_recs }, after = before;
	struct ft_recs pols = { .kind = &ft_policy_recs }, pfcs = { .kind = &ft_pfc_recs };
	struct state st = { .lock = -1 };
	struct ft_stats_rec stats;
	struct expo_in in = { 0 };
	struct export_req q;
	struct expo_top top;
	struct qp_run run;
	struct agg agg;
	char *buf = NULL;
	size_t len = 0, i, ports = 0, hw_ports = 0;
	unsigned long series;
	uint64_t t0;
	struct nl *nl;
	FILE *fp;
	int ret, tries;

	ret = export_parse(argc, argv, &q);
	if (ret == ARGS_HELP)
		return export_help();
	if (ret)
		return -1;
	if (ft->json && !q.path[0]) {
		ft_err("%s: -j describes a file written: give textfile, dir DIR or file FILE",
		       EXPORT_CTX);
		return -1;
	}
	if (q.state && !strcmp(q.state, "none"))
		q.state = NULL;
	else if (q.state)
		snprintf(st.path, sizeof(st.path), "%s", q.state);
	else if (q.path[0])
		snprintf(st.path, sizeof(st.path), "%s/export%s.state", FT_STATE_DIR,
			 q.by == AGG_BY_CGROUP ? "-cgroup" : "");

	nl = ft_nl(ft);
	if (!nl)
		return -1;
	if (q.dev && ft_check_dev(ft, q.dev))
		return -1;
	agg_init(&agg, q.by, q.groups);
	expo_top_init(&top, q.top);
	ret = -1;
	t0 = ft_now_mono();
	memset(&stats, 0, sizeof(stats));
	if (nl_do(nl, nl_req(nl, FABTRACE_CMD_STATS_GET, false), stats_cb, &stats, EXPORT_CTX))
		goto out;
	if (st.path[0] && (state_lock(&st) ||
			   state_load(&st, &agg, stats.v[FABTRACE_A_STATS_LOAD_TIME])))
		goto out;
	if (!st.path[0])
		agg.load_time = stats.v[FABTRACE_A_STATS_LOAD_TIME];

	run = (struct qp_run){ .agg = &agg, .top = &top, .dev = q.dev };
	for (tries = 1;; tries++) {
		agg_run_reset(&agg, true);
		expo_top_clear(&top);
		run.qps = 0;
		if (read_devs(nl, &before, q.dev))
			goto out;
		for (i = 0; i < before.n; i++)
			agg_dev(&agg, &((struct ft_dev_rec *)before.v)[i]);
		if (nl_dump(nl, qp_build, qp_cb, qp_restart, &run, EXPORT_CTX) ||
		    read_devs(nl, &after, q.dev))
			goto out;
		in.consistent = same_totals(&before, &after);
		if (in.consistent || tries == READ_TRIES)
			break;
	}
	pols.dev = pfcs.dev = q.dev;
	if (nl_supports(nl, FABTRACE_CMD_POLICY_GET, GENL_CMD_CAP_DUMP) &&
	    ft_recs_dump(nl, &pols, EXPORT_CTX))
		goto out;
	if (nl_supports(nl, FABTRACE_CMD_PFC_GET, GENL_CMD_CAP_DUMP) &&
	    ft_recs_dump(nl, &pfcs, EXPORT_CTX))
		goto out;
	agg_end(&agg, q.dev != NULL);

	in.stats = &stats;
	in.devs = after.v;
	in.ndevs = after.n;
	in.pols = pols.v;
	in.npols = pols.n;
	in.pfcs = pfcs.v;
	in.npfcs = pfcs.n;
	in.agg = &agg;
	in.top = &top;
	in.qps = run.qps;
	in.duration_ns = ft_now_mono() - t0;
	fp = open_memstream(&buf, &len);
	if (!fp) {
		ft_err("%s: %s", EXPORT_CTX, strerror(errno));
		goto out;
	}
	series = expo_write(fp, &in);
	if (ferror(fp) | fclose(fp)) {
		ft_err("%s: cannot build the exposition: %s", EXPORT_CTX, strerror(errno));
		goto out;
	}
	/* the state first: should the file fail, the next run still goes up from it */
	if (st.path[0] && state_save(&st, &agg))
		goto out;
	if (!q.path[0]) {
		fwrite(buf, 1, len, stdout);
		ret = 0;
		goto out;
	}
	if (ft_write_whole(q.path, buf, len, 0644, EXPORT_CTX))
		goto out;
	if (ft->json) {
		for (i = 0; i < in.ndevs; i++) {
			ports += in.devs[i].nports;
			hw_ports += in.devs[i].hw.present ? in.devs[i].hw.nports : 0;
		}
		print_summary(ft, &q, &st, series,
			      expo_bound(in.ndevs, ports, hw_ports, q.groups, q.top),
			      len, &in);
	}
	ret = 0;
out:
	if (st.lock >= 0)
		close(st.lock);
	free(buf);
	free(before.v);
	free(after.v);
	free(pols.v);
	free(pfcs.v);
	expo_top_free(&top);
	agg_free(&agg);
	return ret;
}

int do_export(struct ft *ft, int argc, char **argv)
{
	/* one command: "export help" is its argument, as "export" alone runs it */
	return export_run(ft, argc, argv);
}
