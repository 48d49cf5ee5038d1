// SPDX-License-Identifier: GPL-2.0
/* fabtrace dev: the RDMA devices fabtrace tracks, their ports and totals. */

#include <errno.h>
#include <linux/genetlink.h>
#include <stdio.h>
#include <stdlib.h>
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
	       "(malformed).  \"(not hooked)\" marks a device whose data path fabtrace\n"
	       "does not tap: its counters do not move.\n"
	       "\n"
	       "Examples:\n"
	       "  fabtrace dev\n"
	       "  fabtrace dev show rxe0\n"
	       "  fabtrace -s dev show\n"
	       "  fabtrace -j -p dev show rxe0\n");
	return 0;
}

/*
 * Devices are few: they are collected and printed once the answer is
 * complete, so a dump that has to be run again prints nothing twice.
 */
struct dev_list {
	struct ft_dev_rec *v;
	size_t n;
};

static int dev_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);
	struct dev_list *l = data;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*g) ||
	    g->cmd != FABTRACE_CMD_DEV_GET)
		return MNL_CB_OK;
	l->v = xrealloc(l->v, (l->n + 1) * sizeof(*l->v));
	if (ft_parse_dev(nlh, &l->v[l->n])) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	l->n++;
	return MNL_CB_OK;
}

static void dev_restart(void *data)
{
	((struct dev_list *)data)->n = 0;
}

static struct nlmsghdr *dev_build(struct nl *nl, void *data)
{
	(void)data;
	return nl_req(nl, FABTRACE_CMD_DEV_GET, true);
}

static int dev_show(struct ft *ft, int argc, char **argv)
{
	struct dev_list l = { NULL, 0 };
	const char *name = NULL;
	struct nlmsghdr *nlh;
	struct nl *nl;
	size_t i;
	int ret;

	if (argc > 0) {
		if (!strcmp(argv[0], "help"))
			return dev_help(ft, 0, NULL);
		name = argv[0];
		if (argc > 1)
			return arg_unknown("dev show", argv[1], DEV_HELP);
		if (!*name || strlen(name) >= FT_NAME_LEN) {
			ft_err("dev show: invalid device name \"%s\"", name);
			return -1;
		}
	}
	nl = ft_nl(ft);
	if (!nl)
		return -1;
	if (name) {
		nlh = nl_req(nl, FABTRACE_CMD_DEV_GET, false);
		mnl_attr_put_strz(nlh, FABTRACE_A_DEV_NAME, name);
		ret = nl_do(nl, nlh, dev_cb, &l, "dev show");
	} else {
		ret = nl_dump(nl, dev_build, dev_cb, dev_restart, &l, "dev show");
	}
	if (!ret) {
		if (ft->json)
			out_list_begin(ft->out);
		for (i = 0; i < l.n; i++)
			print_dev(ft->out, &l.v[i], ft->stats);
		if (ft->json)
			out_list_end(ft->out);
	}
	free(l.v);
	return ret;
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
