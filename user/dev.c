// SPDX-License-Identifier: GPL-2.0
/* fabtrace dev: the RDMA devices fabtrace tracks, their ports and totals. */

#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "ft.h"
#include "objects.h"
#include "print.h"
#include "util.h"

#define DEV_HELP	"fabtrace dev help"

static int dev_help(struct ft *ft, int argc, char **argv)
{
	(void)ft;
	(void)argc;
	(void)argv;
	printf("Usage: fabtrace dev [ show [ DEV ] ]\n"
	       "       fabtrace dev help\n"
	       "\n"
	       "show prints every RDMA device fabtrace tracks, or DEV (a name such as\n"
	       "rxe0): index, driver, node GUID, live and retained QP entries, each port\n"
	       "(state, physical state, MTU, link layer, network device) and what the\n"
	       "device sent and received.  -s adds the counters per opcode class and\n"
	       "the packets no QP could be found for (unknown) or the parser rejected\n"
	       "(malformed).  sources says what fabtrace counts a device from: tap\n"
	       "(soft-RoCE's data path, every packet), or on a hardware NIC sets (counter\n"
	       "sets: per-QP counters) and port counters, or none.  A port of a NIC with\n"
	       "sets shows their mode (rdma statistic qp mode: none, auto or manual;\n"
	       "\"(operator's)\" when someone else set auto mode or bound a QP to a set of\n"
	       "their own: fabtrace reads those sets, binds nothing there and never\n"
	       "changes the mode); -s and -j add every port counter by its driver's name.\n"
	       "\"(not hooked)\" marks a device fabtrace neither taps nor reads.\n"
	       "\n"
	       "Examples:\n"
	       "  fabtrace dev\n"
	       "  fabtrace dev show rxe0\n"
	       "  fabtrace -s dev show\n"
	       "  fabtrace -j -p dev show rxe0\n");
	return 0;
}

static void show_dev(struct out *o, const void *rec, bool all)
{
	print_dev(o, rec, all);
}

static int dev_show(struct ft *ft, int argc, char **argv)
{
	struct ft_recs q = { .kind = &ft_dev_recs };

	if (argc > 0) {
		if (!strcmp(argv[0], "help"))
			return dev_help(ft, 0, NULL);
		q.dev = argv[0];
		if (argc > 1)
			return arg_unknown("dev show", argv[1], DEV_HELP);
		if (!*q.dev || strlen(q.dev) >= FT_NAME_LEN) {
			ft_err("dev show: invalid device name \"%s\"", q.dev);
			return -1;
		}
	}
	/* a name asks for one device: dev-get's dump has no filter */
	return ft_recs_show(ft, &q, !q.dev, "dev show", show_dev);
}

static const struct cmd dev_cmds[] = {
	{ "show", dev_show },
	{ "help", dev_help },
	{ NULL, NULL }
};

int do_dev(struct ft *ft, int argc, char **argv)
{
	return cmd_dispatch(ft, dev_cmds, "dev command", DEV_HELP, argc, argv);
}
