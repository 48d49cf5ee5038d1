/* SPDX-License-Identifier: GPL-2.0 */
/* What ft_cnp, ft_pfc and ft_wirefuzz share: options, interface, AF_PACKET socket or pcap. */
#ifndef FT_RAW_H
#define FT_RAW_H

#include <getopt.h>
#include <linux/if_packet.h>
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
 * getopt_long() over OPTS, which have --help as 'h': returns the next of
 * the program's own options, or -1 at the end.  --help is USAGE and exit 0;
 * an unknown option or a stray argument is exit 2.
 */
int raw_getopt(int argc, char **argv, const struct option *opts, void (*usage)(void));
/* Whole-string integer in [min, max] (decimal, 0x hex, 0 octal). */
long raw_parse_int(const char *opt, const char *s, long min, long max);
void raw_parse_mac(const char *opt, const char *s, uint8_t mac[6]);
void raw_parse_ip(const char *opt, const char *s, struct in_addr *a);
/* --ifname and --timeout-s, the same in every program. */
const char *raw_parse_ifname(const char *s);
double raw_parse_timeout(const char *s);

/* ---- the interface ---- */

/* One SIOC* request about IFNAME; -1 with errno set on failure. */
int raw_ifreq(const char *ifname, unsigned long req, struct ifreq *ifr);
/* IFNAME's index, and its MAC address unless MAC is NULL; says why on
 * stderr and returns -1 on failure. */
int raw_if_lookup(const char *ifname, int *index, uint8_t *mac);
/* IFNAME's IPv4 address; -1 with errno set (the caller says what to pass). */
int raw_if_ipv4(const char *ifname, struct in_addr *a);
/* DST's MAC address from the neighbour table, asking the kernel to resolve
 * it first when needed; says why on stderr and returns -1 when none comes
 * within 3 s or by DEADLINE (raw_now() time, 0 = none). */
int raw_resolve_mac(const char *ifname, struct in_addr dst, uint8_t mac[6], double deadline);
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
 * Opens PCAP, else a socket sending to DST on interface IFINDEX with
 * sll_protocol PROTO (network order).  With neither (ft_wirefuzz --check
 * alone) the frames go nowhere.  CLOCK stamps them in the file.  Returns -1
 * with errno set: each program has its own words for it.
 */
int raw_out_open(struct raw_out *o, const char *pcap, const char *ifname, int ifindex,
		 const uint8_t dst[6], uint16_t proto, clockid_t clock);
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
