// SPDX-License-Identifier: GPL-2.0
/* fabtrace stats: the module's statistics about itself. */

#include <errno.h>
#include <linux/genetlink.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "ft.h"
#include "objects.h"
#include "print.h"
#include "util.h"

#define STATS_HELP	"fabtrace stats help"

static int stats_help(struct ft *ft, int argc, char **argv)
{
	(void)ft;
	(void)argc;
	(void)argv;
	printf("Usage: fabtrace stats [ show ]\n"
	       "       fabtrace stats help\n"
	       "\n"
	       "show prints the module's view of itself: live and retained QP entries,\n"
	       "the table bound (max_qps), how long destroyed QPs are kept (retain_ms),\n"
	       "the kernel memory of one entry (entry_size) and of the QP number index\n"
	       "(index_bytes), QPs not tracked (overflow, alloc_fail), retained entries\n"
	       "freed early to make room for live QPs (evicted), packets\n"
	       "rejected (malformed) or of untracked QPs (unknown),\n"
	       "hook invocations the kernel skipped (hook_missed: must stay 0), events\n"
	       "sent, suppressed by rate limiting and lost, the table generation, and\n"
	       "the CNPs fabtrace sent on soft-RoCE (cnp_sent), withheld within a QP's\n"
	       "cnp-interval (cnp_limited), could not send (cnp_failed) or left\n"
	       "unanswered (cnp_skipped: IPv6, or not from the QP's peer).\n"
	       "\n"
	       "Examples:\n"
	       "  fabtrace stats\n"
	       "  fabtrace -j stats show\n");
	return 0;
}

static int stats_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);
	struct ft_stats_rec *r = data;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*g) ||
	    g->cmd != FABTRACE_CMD_STATS_GET)
		return MNL_CB_OK;
	if (ft_parse_stats(nlh, r)) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	return MNL_CB_OK;
}

static const struct arg stats_show_args[] = {
	{ .key = "help", .kind = ARG_HELP },
	{ .key = NULL }
};

static int stats_show(struct ft *ft, int argc, char **argv)
{
	struct ft_stats_rec r;
	struct nl *nl;
	int ret;

	ret = args_parse("stats show", STATS_HELP, stats_show_args, argc, argv);
	if (ret == ARGS_HELP)
		return stats_help(ft, 0, NULL);
	if (ret)
		return -1;
	nl = ft_nl(ft);
	if (!nl)
		return -1;
	memset(&r, 0, sizeof(r));
	if (nl_do(nl, nl_req(nl, FABTRACE_CMD_STATS_GET, false), stats_cb, &r,
		  "stats show"))
		return -1;
	print_stats(ft->out, &r);
	return 0;
}

static const struct cmd stats_cmds[] = {
	{ "show", stats_show },
	{ "help", stats_help },
	{ NULL, NULL }
};

int do_stats(struct ft *ft, int argc, char **argv)
{
	return cmd_dispatch(ft, stats_cmds, "stats command", STATS_HELP, argc, argv);
}
