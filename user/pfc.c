// SPDX-License-Identifier: GPL-2.0
/* fabtrace pfc: the PFC frames RDMA ports received, per priority, and storms. */

#include <stdio.h>

#include "cmd.h"
#include "ft.h"
#include "objects.h"
#include "out.h"
#include "parse.h"
#include "print.h"
#include "units.h"
#include "util.h"

#define PFC_HELP	"fabtrace pfc help"
#define PV(p, a)	((p)->v[FABTRACE_A_PFC_PRIO_##a])

static int pfc_help(struct ft *ft, int argc, char **argv)
{
	(void)ft;
	(void)argc;
	(void)argv;
	printf("Usage: fabtrace pfc [ show [ dev DEV ] [ port N ] ]\n"
	       "       fabtrace pfc help\n"
	       "\n"
	       "The 802.1Qbb PFC (and 802.3x PAUSE) frames each RDMA port's netdev\n"
	       "received, per priority: frames, XOFF (quanta > 0) and XON (quanta 0)\n"
	       "frames, time paused (each XOFF's quanta at the port's speed, cut short\n"
	       "by the next frame), frames for priorities the policy has no PFC for\n"
	       "(unexpected), pause storms the PFC watchdog found (see \"policy set ...\n"
	       "pfc-watchdog\"), the priority's state now, and how many live QPs of the\n"
	       "port have that priority (\"qp show\" gives each QP's paused time).\n"
	       "A NIC that implements PFC consumes the frames it receives in hardware:\n"
	       "only frames that reach the host's stack are seen (soft-RoCE).  The\n"
	       "paused time needs the netdev's speed; \"speed unknown\" means none.\n"
	       "-s prints every priority, not only those with frames or QPs.\n"
	       "\n"
	       "Examples:\n"
	       "  fabtrace pfc\n"
	       "  fabtrace -j pfc show dev rxe0\n");
	return 0;
}

static const struct kw state_kw[] = {
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
	out_count(o, PRINT_ANY, "xoff", " xoff %s", PV(p, XOFF));
	out_count(o, PRINT_ANY, "xon", " xon %s", PV(p, XON));
	out_u64(o, PRINT_JSON, "quanta", NULL, PV(p, QUANTA));
	out_u64(o, PRINT_JSON, "paused_ns", NULL, PV(p, PAUSED_NS));
	if (out_numeric(o))
		out_text(o, " paused %lluns", (unsigned long long)PV(p, PAUSED_NS));
	else
		out_text(o, " paused %s", fmt_duration(buf, sizeof(buf), PV(p, PAUSED_NS)));
	out_count(o, PRINT_ANY, "unexpected", " unexpected %s", PV(p, UNEXPECTED));
	out_count(o, PRINT_ANY, "storms", " storms %s", PV(p, STORMS));
	out_str(o, PRINT_ANY, "state", " state %s",
		kw_text(state_kw, PV(p, STATE), buf, sizeof(buf)));
	out_u64(o, PRINT_ANY, "qps", " qps %llu\n", PV(p, QPS));
	out_obj_end(o);
}

static void print_pfc(struct out *o, const struct ft_pfc_rec *r, bool all)
{
	unsigned int i;

	out_obj_begin(o, NULL);
	out_str(o, PRINT_ANY, "dev", "%s", r->dev);
	out_u64(o, PRINT_JSON, "dev_index", NULL, r->dev_index);
	out_u64(o, PRINT_ANY, "port", " port %llu", r->port);
	if (r->netdev[0]) {
		out_str(o, PRINT_ANY, "netdev", " netdev %s", r->netdev);
		out_u64(o, PRINT_JSON, "ifindex", NULL, r->ifindex);
	}
	out_u64(o, PRINT_JSON, "speed", NULL, r->speed);
	if (r->speed)
		out_text(o, " speed %uMb/s", r->speed);
	else
		out_text(o, " speed unknown");
	out_count(o, PRINT_ANY, "malformed", " malformed %s", r->malformed);
	out_count(o, PRINT_ANY, "pause", " pause %s\n", r->pause);
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

static void show_pfc(struct out *o, const void *rec, bool all)
{
	print_pfc(o, rec, all);
}

static int pfc_show(struct ft *ft, int argc, char **argv)
{
	struct ft_recs q = { .kind = &ft_pfc_recs };
	const struct arg args[] = {
		{ .key = "help", .kind = ARG_HELP },
		ARG_DEV(&q.dev),
		{ .key = "port", .kind = ARG_U32, .min = 1, .max = 255, .dst = &q.port,
		  .seen = &q.has_port, .why = "not a port number 1..255" },
		{ .key = NULL }
	};
	int ret;

	ret = args_parse("pfc show", PFC_HELP, args, argc, argv);
	if (ret == ARGS_HELP)
		return pfc_help(ft, 0, NULL);
	if (ret)
		return -1;
	return ft_recs_show(ft, &q, true, "pfc show", show_pfc);
}

static const struct cmd pfc_cmds[] = {
	{ "show", pfc_show },
	{ "help", pfc_help },
	{ NULL, NULL }
};

int do_pfc(struct ft *ft, int argc, char **argv)
{
	return cmd_dispatch(ft, pfc_cmds, "pfc command", PFC_HELP, argc, argv);
}
