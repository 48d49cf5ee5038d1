// SPDX-License-Identifier: GPL-2.0
/* fabtrace pfc: the PFC frames RDMA ports received, per priority, and storms. */

#include <stdio.h>

#include "cmd.h"
#include "ft.h"
#include "objects.h"
#include "print.h"

#define PFC_HELP	"fabtrace pfc help"

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
	       "where its driver counts them per priority (mlx5, bnxt_en, ice, i40e),\n"
	       "those counters are read (\"counted by the NIC\"): frames and paused\n"
	       "time, no XOFF/XON split; elsewhere the frames that reach the host's\n"
	       "stack are counted (soft-RoCE).  Their paused time needs the netdev's\n"
	       "speed; \"speed unknown\" means none.\n"
	       "-s prints every priority, not only those with frames or QPs.\n"
	       "\n"
	       "Examples:\n"
	       "  fabtrace pfc\n"
	       "  fabtrace -j pfc show dev rxe0\n");
	return 0;
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
		ARG_PORT(&q.port, &q.has_port),
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
