/* SPDX-License-Identifier: GPL-2.0 */
/* The state of one fabtrace invocation, and the requests its commands share. */
#ifndef _FABTRACE_FT_H
#define _FABTRACE_FT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/*
 * What a get command answers with, one record a message: its command, the
 * attributes that filter it by device and port (0: none), each record's
 * size and parser.
 */
struct ft_rec_kind {
	uint8_t cmd;
	uint16_t a_dev, a_port;
	int (*parse)(const struct nlmsghdr *nlh, void *rec);
	size_t size;
};

/* dev-get (a device name filters a do only), policy-get, pfc-get */
extern const struct ft_rec_kind ft_dev_recs, ft_policy_recs, ft_pfc_recs;

/*
 * Records collected whole before anything is printed, so that a dump that
 * has to be run again prints nothing twice: what is asked (@dev, and @port
 * if @has_port; the kernel filters), what came (@n records at @v).
 */
struct ft_recs {
	const struct ft_rec_kind *kind;
	const char *dev;
	uint32_t port;
	bool has_port;
	void *v;			/* malloc'd; the caller frees it */
	size_t n;
};

/* A request of @cmd for @p's device and port. */
struct nlmsghdr *ft_recs_req(struct nl *nl, const struct ft_recs *p,
			     uint8_t cmd, bool dump);

/* A dump's records, none kept from before.  0, or -1 with the error printed. */
int ft_recs_dump(struct nl *nl, struct ft_recs *p, const char *what);

/*
 * The records: one device's or port's (@dump false), or a dump's, where a
 * device that has none of them gets the kernel's error, or "has no port N".
 * 0, or -1 with the error printed (@what names the command).
 */
int ft_recs_get(struct ft *ft, struct ft_recs *p, bool dump, const char *what);

/*
 * ft_recs_get(), then each record through @print (a JSON list with -j; @all
 * is -s), and the records freed.  0, or -1 with the error printed.
 */
int ft_recs_show(struct ft *ft, struct ft_recs *p, bool dump, const char *what,
		 void (*print)(struct out *o, const void *rec, bool all));

#endif /* _FABTRACE_FT_H */
