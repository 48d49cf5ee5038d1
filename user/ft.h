/* SPDX-License-Identifier: GPL-2.0 */
/* The state of one fabtrace invocation, handed to every command. */
#ifndef _FABTRACE_FT_H
#define _FABTRACE_FT_H

#include <stdbool.h>

#include "nl.h"
#include "out.h"

#define FABTRACE_VERSION	"0.1.0"

/* Receive buffer of the socket: room for a dump burst without drops. */
#define FT_RCVBUF		(1 << 20)
/* Bigger for monitor: events come in bursts we do not control. */
#define FT_RCVBUF_MONITOR	(8 << 20)

struct ft {
	/* global options */
	bool json, pretty, stats, numeric;
	const char *batch;	/* -b FILE */
	unsigned long count;	/* --count: monitor stops after N events */
	struct out *out;
	/* the one netlink socket, opened on first use */
	struct nl nl;
	bool nl_open;
	int rcvbuf;
};

/*
 * The socket, opened (and the family resolved) on first use, so that usage
 * errors and help never need the kernel module.  NULL: the reason is printed.
 */
struct nl *ft_nl(struct ft *ft);

/*
 * A dump filtered by a device name that matches nothing is just empty: ask
 * for the device first, so that a typo gets the kernel's "no such RDMA
 * device".  0, or -1 with the error printed.
 */
int ft_check_dev(struct ft *ft, const char *dev);

#endif /* _FABTRACE_FT_H */
