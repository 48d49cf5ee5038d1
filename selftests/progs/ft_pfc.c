// SPDX-License-Identifier: GPL-2.0
/* ft_pfc: sends 802.1Qbb PFC (or 802.3x PAUSE) frames through an AF_PACKET socket. */

/*
 * fabtrace counts the PFC frames an RDMA port's netdev receives, and the
 * time they pause each priority.  No software sends them (rxe has no flow
 * control), so this makes them by hand, as a switch would:
 *
 *   Ethernet  dst 01:80:c2:00:00:01, src IF's MAC (or --src-mac), 0x8808
 *   opcode    0x0101 (PFC)
 *   vector    class-enable: bit p set for each --prio p
 *   quanta    eight of them, big-endian: --quanta for an enabled priority,
 *             0 for the others
 *   padding   zero, to a 60-byte frame; the NIC appends the FCS
 *
 * --global makes an 802.3x PAUSE instead: opcode 0x0001, one quanta, then
 * zero padding.  --malformed KIND breaks one field, so a test can tell the
 * kinds apart on the wire: `opcode` (0x0002), `vector` (reserved bit 8 set
 * on top of the --prio bits: 0x0108 for the default priority 3), `dst`
 * (01:80:c2:00:00:02).  Every frame is 60 bytes, malformed or not: an
 * AF_PACKET socket hands the driver what it is given, and a NIC pads a
 * shorter one to 60 bytes anyway, so "short" cannot be shown on a wire.
 *
 * All frames are identical, so one is built and sent --count times.  Frame
 * i leaves at t0 + i * --interval-us on CLOCK_MONOTONIC, so one late wake-up
 * does not slow the average rate.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include "raw.h"

#define ETH_P_MACCTL	0x8808
#define OPC_PAUSE	0x0001
#define OPC_PFC		0x0101
#define OPC_BAD		0x0002	/* --malformed opcode: not a MAC Control opcode we count */
#define VEC_RESERVED	0x0100	/* --malformed vector: bit 8 of the vector */
#define NPRIO		8
#define FRAME_LEN	60	/* the minimum frame without its FCS */

enum { BAD_NONE, BAD_OPCODE, BAD_VECTOR, BAD_DST };
static const char *const bad_names[] = { "none", "opcode", "vector", "dst", NULL };

static struct {
	struct raw_link l;
	bool have_prio, global;
	uint8_t prio_mask;
	long quanta, count, interval_us;
	int malformed;
	double timeout_s;
} c = { .prio_mask = 1 << 3, .quanta = 65535, .count = 1, .timeout_s = 60 };

static void usage(void)
{
	printf("Usage: %s --ifname IF [options]\n"
"  --ifname IF          interface to send on (its MAC is the source)\n"
"  --src-mac MAC        source MAC (default: IF's)\n"
"  --prio LIST          priorities to pause, comma list of 0..7 (default 3)\n"
"  --quanta Q           pause quanta for each of them, 0..65535 (default 65535;\n"
"                       0 = XON); a quantum is 512 bit times\n"
"  --global             an 802.3x PAUSE (opcode 0x0001, one quanta) instead\n"
"  --count K            frames to send (default 1)\n"
"  --interval-us U      frame i at start + i*U on CLOCK_MONOTONIC (default 0:\n"
"                       back to back)\n"
"  --malformed KIND     opcode (0x0002), vector (reserved bit 8 set) or dst\n"
"                       (01:80:c2:00:00:02)\n"
"  --pcap FILE          write the frames to FILE instead of sending (no root;\n"
"                       --ifname optional if --src-mac is given)\n"
"  --timeout-s S        overall deadline (default 60; 0 = none)\n"
"Every frame is 60 bytes (the NIC adds the FCS).\n"
"Prints {\"sent\",\"prio\",\"quanta\",\"frame_len\",\"first_ns\",\"last_ns\",...} on\n"
"stdout; first_ns/last_ns are CLOCK_REALTIME ns just before the first and\n"
"last frame went to the socket.\n"
"Exit: 0 ok, 1 failure, 2 usage, 3 deadline.\n", raw_prog);
}

/* "3", "0,3,5": each 0..7, in any order; a repeat is harmless. */
static uint8_t parse_prios(const char *s)
{
	const char *p = s;
	uint8_t mask = 0;

	if (!*s)
		raw_usage_error("--prio: empty list");
	for (;;) {
		if (*p < '0' || *p > '7' || (p[1] && p[1] != ','))
			raw_usage_error("--prio: '%s' is not a comma list of priorities 0..7", s);
		mask |= 1 << (*p - '0');
		if (!p[1])
			return mask;
		p += 2;
	}
}

static void parse(int argc, char **argv)
{
	enum { O_PRIO = RAW_O_PROG, O_QUANTA, O_GLOBAL, O_COUNT, O_INTERVAL, O_MALFORMED,
	       O_TIMEOUT };
	static const struct option opts[] = {
		RAW_LINK_OPTIONS,
		{ "prio", required_argument, NULL, O_PRIO },
		{ "quanta", required_argument, NULL, O_QUANTA },
		{ "global", no_argument, NULL, O_GLOBAL },
		{ "count", required_argument, NULL, O_COUNT },
		{ "interval-us", required_argument, NULL, O_INTERVAL },
		{ "malformed", required_argument, NULL, O_MALFORMED },
		{ "timeout-s", required_argument, NULL, O_TIMEOUT },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	int o, i;

	while ((o = raw_getopt(argc, argv, opts, usage, &c.l)) != -1) {
		switch (o) {
		case O_PRIO: c.prio_mask = parse_prios(optarg); c.have_prio = true; break;
		case O_QUANTA: c.quanta = raw_parse_int("--quanta", optarg, 0, 65535); break;
		case O_GLOBAL: c.global = true; break;
		case O_COUNT: c.count = raw_parse_int("--count", optarg, 1, 1000000000); break;
		case O_INTERVAL:
			c.interval_us = raw_parse_int("--interval-us", optarg, 0, 60000000);
			break;
		case O_MALFORMED:
			for (i = BAD_OPCODE; bad_names[i]; i++)
				if (!strcmp(optarg, bad_names[i]))
					break;
			if (!bad_names[i])
				raw_usage_error("--malformed: '%s' is not one of opcode, vector, dst",
						optarg);
			c.malformed = i;
			break;
		case O_TIMEOUT: c.timeout_s = raw_parse_timeout(optarg); break;
		}
	}
	if (!c.l.ifname && !(c.l.pcap && c.l.have_src_mac))
		raw_usage_error("--ifname is required (with --pcap it may be left out if "
				"--src-mac is given)");
	if (c.global && c.have_prio)
		raw_usage_error("--global pauses every priority: no --prio with it");
	if (c.global && c.malformed == BAD_VECTOR)
		raw_usage_error("--malformed vector: an 802.3x PAUSE has no vector");
	if (c.global)
		c.prio_mask = 0xff;
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void put16(uint8_t *p, unsigned int v)
{
	p[0] = v >> 8;
	p[1] = v;
}

/* The frame; returns its opcode, and its vector in *vec (-1: none). */
static unsigned int build(uint8_t *f, uint8_t dst[6], long *vec)
{
	static const uint8_t pause_dst[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 };
	unsigned int opc = c.global ? OPC_PAUSE : OPC_PFC, p;

	memset(f, 0, FRAME_LEN);
	memcpy(dst, pause_dst, 6);
	if (c.malformed == BAD_DST)
		dst[5] = 0x02;
	if (c.malformed == BAD_OPCODE)
		opc = OPC_BAD;
	memcpy(f, dst, 6);
	memcpy(f + 6, c.l.src_mac, 6);
	put16(f + 12, ETH_P_MACCTL);
	put16(f + 14, opc);
	if (c.global) {
		/* 802.3x: one pause_time, then padding */
		put16(f + 16, c.quanta);
		*vec = -1;
		return opc;
	}
	*vec = c.prio_mask | (c.malformed == BAD_VECTOR ? VEC_RESERVED : 0);
	put16(f + 16, *vec);
	for (p = 0; p < NPRIO; p++)
		put16(f + 18 + 2 * p, c.prio_mask & 1 << p ? c.quanta : 0);
	return opc;
}

/*
 * Sleeps until MONO_NS on CLOCK_MONOTONIC.  Returns 0 there, 3 when the
 * deadline comes first, 1 on a signal.
 */
static int wait_until(uint64_t mono_ns, uint64_t deadline_ns)
{
	uint64_t t = deadline_ns && deadline_ns < mono_ns ? deadline_ns : mono_ns;
	struct timespec ts = { .tv_sec = t / 1000000000, .tv_nsec = t % 1000000000 };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		if (raw_stop)
			return 1;
	if (raw_stop)
		return 1;
	return t == mono_ns ? 0 : 3;
}

static struct {
	long sent, vec;
	unsigned int opc;
	uint8_t dst[6];
	uint64_t t0, first_ns, last_ns;
} r = { .vec = -1 };

/* The result, on every path but a bad command line. */
static void print_json(const char *error)
{
	char smac[18], dmac[18];
	bool comma = false;
	unsigned int p;

	raw_mac_str(c.l.src_mac, smac);
	raw_mac_str(r.dst, dmac);
	printf("{\"prog\":\"ft_pfc\",\"sent\":%ld,\"count\":%ld,\"prio\":[", r.sent, c.count);
	for (p = 0; p < NPRIO; p++) {
		if (c.prio_mask & 1 << p) {
			printf("%s%u", comma ? "," : "", p);
			comma = true;
		}
	}
	printf("],\"quanta\":%ld,\"global\":%s,\"opcode\":%u,", c.quanta,
	       c.global ? "true" : "false", r.opc);
	if (r.vec < 0)
		printf("\"vector\":null,");
	else
		printf("\"vector\":%ld,", r.vec);
	printf("\"malformed\":%s%s%s,\"frame_len\":%d,\"ifname\":\"%s\",\"src_mac\":\"%s\","
	       "\"dst_mac\":\"%s\",\"interval_us\":%ld,\"pcap\":%s%s%s,",
	       c.malformed ? "\"" : "", c.malformed ? bad_names[c.malformed] : "null",
	       c.malformed ? "\"" : "", FRAME_LEN, c.l.ifname ? c.l.ifname : "", smac, dmac,
	       c.interval_us, c.l.pcap ? "\"" : "", c.l.pcap ? c.l.pcap : "null", c.l.pcap ? "\"" : "");
	if (r.sent)
		printf("\"first_ns\":%llu,\"last_ns\":%llu,", (unsigned long long)r.first_ns,
		       (unsigned long long)r.last_ns);
	else
		printf("\"first_ns\":null,\"last_ns\":null,");
	printf("\"elapsed_s\":%.6f,\"error\":%s%s%s}\n",
	       (clock_ns(CLOCK_MONOTONIC) - r.t0) / 1e9, error ? "\"" : "",
	       error ? error : "null", error ? "\"" : "");
}

int main(int argc, char **argv)
{
	struct raw_out out;
	uint8_t frame[FRAME_LEN];
	uint64_t deadline;
	const char *error;
	int rc = 0, w;

	raw_prog = "ft_pfc";
	parse(argc, argv);
	raw_signals_init();
	r.t0 = clock_ns(CLOCK_MONOTONIC);
	deadline = c.timeout_s > 0 ? r.t0 + (uint64_t)(c.timeout_s * 1e9) : 0;
	/* the frame's destination, for the set-up; then the frame again, with
	 * the interface's MAC as its source unless --src-mac gave one */
	r.opc = build(frame, r.dst, &r.vec);
	memcpy(c.l.dst_mac, r.dst, 6);
	error = raw_setup(&out, &c.l, 0, htons(ETH_P_MACCTL), CLOCK_REALTIME, 0);
	if (error) {
		print_json(error);
		return 1;
	}
	build(frame, r.dst, &r.vec);

	/* frame i at t0 + i * interval, whatever the sleeps before it took */
	r.t0 = clock_ns(CLOCK_MONOTONIC);
	while (r.sent < c.count) {
		if (r.sent && c.interval_us) {
			w = wait_until(r.t0 + (uint64_t)r.sent * c.interval_us * 1000, deadline);
			if (w) {
				error = w == 3 ? "timed out" : "interrupted";
				rc = w;
				break;
			}
		}
		rc = raw_out_frame(&out, frame, FRAME_LEN, deadline / 1e9, &error);
		if (rc)
			break;
		if (!r.sent)
			r.first_ns = out.stamp_ns;
		r.last_ns = out.stamp_ns;
		r.sent++;
	}
	if (raw_out_close(&out)) {
		if (!error)
			error = "pcap write failed";
		rc = rc ? rc : 1;
	}
	if (error)
		fprintf(stderr, "%s: %s after %ld of %ld frames\n", raw_prog, error, r.sent, c.count);
	print_json(error);
	return rc;
}
