// SPDX-License-Identifier: GPL-2.0
/*
 * The exposition of a synthetic busy node (tests/synth.h) on standard
 * output, for promtool check metrics (tests/prom.sh): "by owner" or
 * "by cgroup" as the first argument says, after a second run, so folded
 * and released groups are in it too.  With two more arguments, what
 * "fabtrace -j qp show" and "-j dev show" would print of the same moment
 * goes to those files: the oracle of selftests/export.sh
 * (export_check.py match) is checked against them on the host.
 *
 *   expo_sample [owner|cgroup [QPS.json DEVS.json]]
 */

#include <stdio.h>
#include <string.h>

#include "synth.h"

#include "out.h"
#include "print.h"

static int write_json(const char *path, const struct synth *s, bool qps)
{
	FILE *fp = fopen(path, "w");
	struct out *o;
	size_t i;

	if (!fp)
		return -1;
	o = out_new(fp, true, false, false);
	out_list_begin(o);
	for (i = 0; i < (qps ? s->nqps : s->ndevs); i++) {
		if (qps)
			print_qp_full(o, &s->qps[i]);
		else
			print_dev(o, &s->devs[i], 1);
	}
	out_list_end(o);
	out_free(o);
	return fclose(fp);
}

int main(int argc, char **argv)
{
	enum agg_by by = argc > 1 && !strcmp(argv[1], "cgroup") ? AGG_BY_CGROUP : AGG_BY_OWNER;
	static struct synth s;
	struct expo_top top;
	struct agg a;
	char *text;

	synth_cluster(&s);
	agg_init(&a, by, 100);
	expo_top_init(&top, 20);
	a.load_time = s.stats.v[FABTRACE_A_STATS_LOAD_TIME];
	synth_run(&s, &a, &top);
	/* the retained QP goes, the others move on */
	s.qps[7] = s.qps[--s.nqps];
	for (size_t i = 0; i < s.nqps; i++)
		s.qps[i].tx.v[FABTRACE_A_TRAFFIC_PACKETS] += 10;
	synth_totals(&s, NULL, 0);
	s.devs[1].tx.v[FABTRACE_A_TRAFFIC_PACKETS] += 777;	/* the one gone */
	synth_run(&s, &a, &top);
	text = synth_expo(&s, &a, &top, NULL);
	fputs(text, stdout);
	free(text);
	if (argc > 3 && (write_json(argv[2], &s, true) || write_json(argv[3], &s, false))) {
		perror("expo_sample");
		return 1;
	}
	expo_top_free(&top);
	agg_free(&a);
	return 0;
}
