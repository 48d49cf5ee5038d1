/* SPDX-License-Identifier: GPL-2.0 */
/* The objects of the command line: what main.c dispatches to. */
#ifndef _FABTRACE_OBJECTS_H
#define _FABTRACE_OBJECTS_H

#include <stdbool.h>
#include <stdint.h>

#include "cmd.h"
#include "qpset.h"
#include "rec.h"

struct ft;
struct qpn_range;

int do_dev(struct ft *ft, int argc, char **argv);
int do_qp(struct ft *ft, int argc, char **argv);
int do_stats(struct ft *ft, int argc, char **argv);
int do_monitor(struct ft *ft, int argc, char **argv);
int do_top(struct ft *ft, int argc, char **argv);
int do_policy(struct ft *ft, int argc, char **argv);
int do_pfc(struct ft *ft, int argc, char **argv);
int do_export(struct ft *ft, int argc, char **argv);

/* -b FILE ("-": stdin): each line a command; stops at the first error. */
int ft_batch(struct ft *ft, const struct cmd *objects, const char *path);
/* One line's words, split in place (unit-tested): count, or -1 and @why. */
int batch_split(char *line, char **argv, int max, const char **why);

/* "dev DEV" in an argument table (cmd.h): a name the kernel can hold. */
#define ARG_DEV(p)	{ .key = "dev", .kind = ARG_STR, .dst = (p), .min = 1,	\
			  .max = FT_NAME_LEN - 1, .why = "not a device name" }
/* "port N": a port number 1..255 into *@p, *@given set when given. */
#define ARG_PORT(p, given) { .key = "port", .kind = ARG_U32, .min = 1, .max = 255,	\
			     .dst = (p), .seen = (given), .why = "not a port number 1..255" }

/* "qp show" arguments, parsed without the kernel (unit-tested). */
struct qp_query {
	const char *dev;
	struct qpn_range *ranges;	/* NULL: every QP number */
	size_t nranges;
	bool has_pid, has_type, has_state, has_sort, has_limit;
	uint32_t pid, type, state, match_flags, limit;
	enum qp_sort sort;
	bool has_cgroup;		/* filtered here, not by the kernel */
	char cgroup[FT_CGROUP_LEN];	/* absolute, no trailing "/" but "/" */
	bool slow;			/* srtt above rtt_above_us: here too */
	uint32_t rtt_above_us;
};

/* "qp show slow" without rtt-above: a round trip over 1 ms is slow. */
#define QP_SLOW_US	1000

/* 0, ARGS_HELP or -1 (printed); nothing to free but on 0. */
int qp_parse_show(int argc, char **argv, struct qp_query *q);
/*
 * "cgroup PATH" (qp show, export): an absolute path without empty
 * components, trailing "/" dropped, into @buf (FT_CGROUP_LEN bytes).
 * NULL, or what is wrong with it.
 */
const char *parse_cgroup_path(const char *s, char *buf);
/* A single QP named by device and number, and nothing else: a do request. */
bool qp_query_is_do(const struct qp_query *q);
void qp_query_free(struct qp_query *q);

/* "policy set" arguments, parsed without the kernel (unit-tested). */
struct policy_req {
	const char *dev;
	uint32_t port;
	bool has_port;
	struct ft_policy_cfg cfg;	/* the fields given: cfg.have */
	uint64_t map_set;		/* DSCPs given in dscp-map */
	bool map_default;		/* dscp-map starts from the defaults */
};

/* 0, ARGS_HELP or -1 (printed). */
int policy_parse_set(int argc, char **argv, struct policy_req *r);

struct nlmsghdr;

/* What "monitor" keeps between events (unit-tested through monitor_msg()). */
struct monitor {
	struct ft *ft;
	const char *dev;		/* only this device's events */
	uint32_t kinds;			/* 1 << kind; 0: every kind */
	unsigned long count, shown;	/* stop after count (0: never) */
	uint64_t last_seq;		/* 0: none seen yet */
	bool overrun;			/* ENOBUFS, loss not reported yet */
};

/*
 * One notification: report a gap in the sequence numbers (or an overrun
 * without one) on stderr, filter, print.  MNL_CB_STOP once count events
 * were printed.  An mnl_cb_t.
 */
int monitor_msg(const struct nlmsghdr *nlh, void *data);

#endif /* _FABTRACE_OBJECTS_H */
