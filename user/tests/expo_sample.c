// SPDX-License-Identifier: GPL-2.0
/*
 * The exposition of a synthetic busy node (tests/synth.h) on standard
 * output, for promtool check metrics (tests/prom.sh): "by owner" or
 * "by cgroup" as the first argument says, state saved and a second run
 * made, so folded and released groups are in it too.
 */

#include <stdio.h>
#include <string.h>

#include "synth.h"

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
	expo_top_free(&top);
	agg_free(&a);
	return 0;
}
