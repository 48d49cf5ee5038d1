/* SPDX-License-Identifier: GPL-2.0 */
/* What ft_cnp, ft_pfc and ft_wirefuzz share: options, the AF_PACKET set-up, socket or pcap. */
#ifndef FT_RAW_H
#define FT_RAW_H

#include <getopt.h>
#include <linux/if_packet.h>
#include <stdbool.h>
#include <net/if.h>
#include <netinet/in.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "pcap.h"

/*
 * Plain C, apart from common.c, which needs libibverbs: these programs make
 * their frames by hand rather than through an RDMA device.
 */

/* Each program sets it first thing: every message starts with it. */
extern const char *raw_prog;
/* The SIGINT or SIGTERM that asks the program to stop, 0 until then. */
extern volatile sig_atomic_t raw_stop;

/* No SA_RESTART, so a sleep or a wait returns when a signal comes. */
void raw_signals_init(void);
double raw_now(void);			/* CLOCK_MONOTONIC seconds */

/* ---- the command line: a bad one is a message and exit 2 ---- */

void raw_usage_error(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
/*
 * The options of the frames' ends (struct raw_link, below), first in a
 * program's table: RAW_LINK_OPTIONS (--ifname, --src-mac, --pcap) and, for
 * IPv4 frames, RAW_IPV4_OPTIONS (--src-ip, --dst-ip, --dst-mac).  The
 * program's own options are numbered from RAW_O_PROG on.
 */
enum { RAW_O_IF = 256, RAW_O_SMAC, RAW_O_PCAP, RAW_O_SIP, RAW_O_DIP, RAW_O_DMAC, RAW_O_PROG };
#define RAW_LINK_OPTIONS					\
	{ "ifname", required_argument, NULL, RAW_O_IF },	\
	{ "src-mac", required_argument, NULL, RAW_O_SMAC },	\
	{ "pcap", required_argument, NULL, RAW_O_PCAP }
#define RAW_IPV4_OPTIONS					\
	{ "src-ip", required_argument, NULL, RAW_O_SIP },	\
	{ "dst-ip", required_argument, NULL, RAW_O_DIP },	\
	{ "dst-mac", required_argument, NULL, RAW_O_DMAC }

struct raw_link;
/*
 * getopt_long() over OPTS, which have --help as 'h': the options of the
 * frames' ends go into L; returns the next of the program's own options,
 * or -1 at the end.  --help is USAGE and exit 0; an unknown option or a
 * stray argument is exit 2.
 */
int raw_getopt(int argc, char **argv, const struct option *opts, void (*usage)(void),
	       struct raw_link *l);
/* Whole-string integer in [min, max] (decimal, 0x hex, 0 octal). */
long raw_parse_int(const char *opt, const char *s, long min, long max);
void raw_parse_mac(const char *opt, const char *s, uint8_t mac[6]);
void raw_parse_ip(const char *opt, const char *s, struct in_addr *a);
/* --ifname and --timeout-s, the same in every program. */
const char *raw_parse_ifname(const char *s);
double raw_parse_timeout(const char *s);

/* BUF holds at least 18 bytes. */
void raw_mac_str(const uint8_t *m, char *buf);

/* ---- where the frames go: an AF_PACKET socket or a pcap file ---- */

struct raw_out {
	const char *pcap;	/* the file, or NULL for the socket */
	const char *ifname;
	clockid_t clock;
	uint64_t stamp_ns;	/* on CLOCK, just before the last frame went */
	struct ft_pcap pc;
	int fd;
	struct sockaddr_ll ll;
};

/*
 * Where a program's frames go, and between which addresses: what its
 * command line gave (the have_ flags) and, from the interface, the rest.
 */
struct raw_link {
	const char *ifname;	/* the interface, or NULL: no socket */
	const char *pcap;	/* the frames go to this file instead */
	uint8_t src_mac[6], dst_mac[6];
	struct in_addr src_ip, dst_ip;
	bool have_src_mac, have_dst_mac, have_src_ip, have_dst_ip;
};

/* raw_setup() flags */
#define RAW_IPV4	1	/* IPv4 frames: the source and the destination's MAC too */

/*
 * The AF_PACKET set-up every program shares.  With an interface: its
 * index, and its MAC as the source unless given; for RAW_IPV4 frames also
 * its address as the source unless given, and the MAC of the destination
 * (dst_ip) from the neighbour table unless given, asking the kernel to
 * resolve it when needed (for 3 s at most, or until DEADLINE, a raw_now()
 * time; 0 = none).  Then O: the pcap file, else a socket sending on the
 * interface to dst_mac, sll_protocol PROTO (network order); with neither
 * (ft_wirefuzz --check alone) the frames go nowhere.  CLOCK stamps them in
 * the file.  Returns NULL, or what failed, for the program's JSON, after
 * saying why on stderr.
 */
const char *raw_setup(struct raw_out *o, struct raw_link *l, int flags, uint16_t proto,
		      clockid_t clock, double deadline);
/*
 * One try at FRAME.  Returns 0 when it went; 1 when the device queue was
 * full, which is back-pressure, not failure: try again; -1 with errno set.
 */
int raw_out_send(struct raw_out *o, const void *frame, size_t len);
/*
 * FRAME out, trying again while the queue is full.  Returns 0 when it went,
 * else the exit status (1: failed or a signal, 3: past DEADLINE, a raw_now()
 * time, 0 = none) with *ERROR set for the program's JSON; a failure is also
 * said on stderr.
 */
int raw_out_frame(struct raw_out *o, const void *frame, size_t len, double deadline,
		  const char **error);
/* Closes; -1 after saying why when the file could not be completed. */
int raw_out_close(struct raw_out *o);

#endif
