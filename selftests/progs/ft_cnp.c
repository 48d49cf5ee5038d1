// SPDX-License-Identifier: GPL-2.0
/* ft_cnp: sends hand-made RoCEv2 CNPs to a QP through an AF_PACKET socket. */

/*
 * rxe never sends a Congestion Notification Packet (it has no ECN logic),
 * yet fabtrace must count CNPs received per QP.  This makes real ones:
 *
 *   Ethernet  dst, src, 0x0800
 *   IPv4      DSCP/ECN as asked, DF, TTL 64, header checksum
 *   UDP       sport (default 0xC000 | qpn & 0x3fff), dport 4791, checksum 0
 *             (RoCEv2 allows 0 over IPv4)
 *   BTH       opcode 0x81 (CNP), SE=M=pad=TVer=0, P_Key 0xFFFF, BECN set,
 *             FECN clear, DestQP = --qpn, A=0, PSN 0
 *   16 reserved bytes of zero
 *   ICRC      computed as rxe computes it (icrc.c)
 *
 * All frames are identical, so one is built and sent --count times.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "icrc.h"
#include "raw.h"

#define ROCE_PORT	4791
#define OPC_CNP		0x81
#define BTH_BECN	0x40	/* in BTH byte 4 */
#define ETH_LEN		14
#define IP_LEN		20
#define UDP_LEN		8
#define BTH_LEN		12
#define CNP_RSVD	16
#define FRAME_LEN	(ETH_LEN + IP_LEN + UDP_LEN + BTH_LEN + CNP_RSVD + 4)

static struct {
	struct raw_link l;
	long qpn, count, interval_us, sport, pkey;
	int dscp, ecn;
	double timeout_s;
} c = { .qpn = -1, .count = 1, .sport = -1, .pkey = 0xffff, .timeout_s = 60 };

static void usage(void)
{
	printf("Usage: %s --ifname IF --dst-ip A.B.C.D --qpn N [options]\n"
"  --ifname IF          interface to send on (its MAC and IPv4 are the defaults)\n"
"  --dst-ip A.B.C.D     the node whose QP gets the CNPs\n"
"  --dst-mac MAC        default: IF's neighbour (ARP) entry for --dst-ip\n"
"  --src-ip A.B.C.D     default: IF's address\n"
"  --src-mac MAC        default: IF's MAC\n"
"  --qpn N              destination QP number (BTH DestQP), 0..0xffffff\n"
"  --count K            frames to send (default 1)\n"
"  --interval-us U      gap between frames (default 0: back to back)\n"
"  --dscp D --ecn E     IP TOS = D << 2 | E (default 0, 0)\n"
"  --sport P            UDP source port (default 0xC000 | (qpn & 0x3fff))\n"
"  --pkey P             BTH P_Key (default 0xffff)\n"
"  --pcap FILE          write the frames to FILE instead of sending (no root;\n"
"                       --ifname optional if --src-ip/--src-mac/--dst-mac given)\n"
"  --timeout-s S        overall deadline (default 60; 0 = none)\n"
"Prints {\"sent\",\"qpn\",\"bytes_per_frame\",...} on stdout.\n"
"Exit: 0 ok, 1 failure, 2 usage, 3 deadline.\n", raw_prog);
}

static void parse(int argc, char **argv)
{
	enum { O_QPN = RAW_O_PROG, O_COUNT, O_INTERVAL, O_DSCP, O_ECN, O_SPORT, O_PKEY,
	       O_TIMEOUT };
	static const struct option opts[] = {
		RAW_LINK_OPTIONS,
		RAW_IPV4_OPTIONS,
		{ "qpn", required_argument, NULL, O_QPN },
		{ "count", required_argument, NULL, O_COUNT },
		{ "interval-us", required_argument, NULL, O_INTERVAL },
		{ "dscp", required_argument, NULL, O_DSCP },
		{ "ecn", required_argument, NULL, O_ECN },
		{ "sport", required_argument, NULL, O_SPORT },
		{ "pkey", required_argument, NULL, O_PKEY },
		{ "timeout-s", required_argument, NULL, O_TIMEOUT },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	int o;

	while ((o = raw_getopt(argc, argv, opts, usage, &c.l)) != -1) {
		switch (o) {
		case O_QPN: c.qpn = raw_parse_int("--qpn", optarg, 0, 0xffffff); break;
		case O_COUNT: c.count = raw_parse_int("--count", optarg, 1, 1000000000); break;
		case O_INTERVAL:
			c.interval_us = raw_parse_int("--interval-us", optarg, 0, 60000000);
			break;
		case O_DSCP: c.dscp = raw_parse_int("--dscp", optarg, 0, 63); break;
		case O_ECN: c.ecn = raw_parse_int("--ecn", optarg, 0, 3); break;
		case O_SPORT: c.sport = raw_parse_int("--sport", optarg, 1, 65535); break;
		case O_PKEY: c.pkey = raw_parse_int("--pkey", optarg, 0, 0xffff); break;
		case O_TIMEOUT: c.timeout_s = raw_parse_timeout(optarg); break;
		}
	}
	if (!c.l.have_dst_ip)
		raw_usage_error("--dst-ip is required");
	if (c.qpn < 0)
		raw_usage_error("--qpn is required");
	if (!c.l.ifname && !(c.l.pcap && c.l.have_src_ip && c.l.have_src_mac && c.l.have_dst_mac))
		raw_usage_error("--ifname is required (with --pcap it may be left out if "
				"--src-ip, --src-mac and --dst-mac are all given)");
	if (c.sport < 0)
		c.sport = 0xc000 | (c.qpn & 0x3fff);
}

static uint16_t ip_csum(const uint8_t *h, int len)
{
	uint32_t sum = 0;
	int i;

	for (i = 0; i < len; i += 2)
		sum += h[i] << 8 | h[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum;
}

static uint32_t build(uint8_t *f)
{
	uint8_t *ip = f + ETH_LEN, *udp = ip + IP_LEN, *bth = udp + UDP_LEN;
	uint16_t iplen = IP_LEN + UDP_LEN + BTH_LEN + CNP_RSVD + 4, cs;
	uint32_t icrc;
	const char *err;

	memset(f, 0, FRAME_LEN);
	memcpy(f, c.l.dst_mac, 6);
	memcpy(f + 6, c.l.src_mac, 6);
	f[12] = 0x08;
	f[13] = 0x00;

	ip[0] = 0x45;
	ip[1] = c.dscp << 2 | c.ecn;
	ip[2] = iplen >> 8;
	ip[3] = iplen & 0xff;
	/* ID 0 with DF, as Linux does for its own DF datagrams. */
	ip[6] = 0x40;
	ip[8] = 64;
	ip[9] = 17;
	memcpy(ip + 12, &c.l.src_ip, 4);
	memcpy(ip + 16, &c.l.dst_ip, 4);
	cs = ip_csum(ip, IP_LEN);
	ip[10] = cs >> 8;
	ip[11] = cs & 0xff;

	udp[0] = c.sport >> 8;
	udp[1] = c.sport & 0xff;
	udp[2] = ROCE_PORT >> 8;
	udp[3] = ROCE_PORT & 0xff;
	udp[4] = (iplen - IP_LEN) >> 8;
	udp[5] = (iplen - IP_LEN) & 0xff;
	/* udp[6..7]: checksum 0 = none, allowed for RoCEv2 over IPv4. */

	bth[0] = OPC_CNP;
	bth[1] = 0;			/* SE, M, pad, TVer */
	bth[2] = c.pkey >> 8;
	bth[3] = c.pkey & 0xff;
	bth[4] = BTH_BECN;
	bth[5] = c.qpn >> 16;
	bth[6] = c.qpn >> 8;
	bth[7] = c.qpn;
	/* bth[8]: A=0; bth[9..11]: PSN 0.  Then 16 reserved zero bytes. */

	icrc = ft_roce_icrc(ip, iplen - 4, &err);
	if (err) {
		fprintf(stderr, "%s: internal error: %s\n", raw_prog, err);
		exit(1);
	}
	/* rxe stores the CRC as a little-endian word. */
	f[FRAME_LEN - 4] = icrc;
	f[FRAME_LEN - 3] = icrc >> 8;
	f[FRAME_LEN - 2] = icrc >> 16;
	f[FRAME_LEN - 1] = icrc >> 24;
	return icrc;
}

int main(int argc, char **argv)
{
	uint8_t frame[FRAME_LEN];
	struct raw_out out;
	char smac[18], dmac[18], sip[INET_ADDRSTRLEN], dip[INET_ADDRSTRLEN];
	double t0, deadline;
	long sent = 0;
	const char *error = NULL;
	uint32_t icrc;
	int rc = 0;

	raw_prog = "ft_cnp";
	parse(argc, argv);
	raw_signals_init();
	t0 = raw_now();
	deadline = c.timeout_s > 0 ? t0 + c.timeout_s : 0;

	if (raw_setup(&out, &c.l, RAW_IPV4, 0, CLOCK_MONOTONIC, deadline))
		return 1;
	icrc = build(frame);

	struct timespec next;

	clock_gettime(CLOCK_MONOTONIC, &next);
	while (sent < c.count) {
		rc = raw_out_frame(&out, frame, FRAME_LEN, deadline, &error);
		if (rc)
			break;
		sent++;
		if (c.interval_us && sent < c.count) {
			next.tv_nsec += (c.interval_us % 1000000) * 1000;
			next.tv_sec += c.interval_us / 1000000 + next.tv_nsec / 1000000000;
			next.tv_nsec %= 1000000000;
			while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR &&
			       !raw_stop)
				;
		}
	}
	if (raw_out_close(&out))
		rc = rc ? rc : 1;
	if (error)
		fprintf(stderr, "%s: %s after %ld of %ld frames\n", raw_prog, error, sent, c.count);

	raw_mac_str(c.l.src_mac, smac);
	raw_mac_str(c.l.dst_mac, dmac);
	inet_ntop(AF_INET, &c.l.src_ip, sip, sizeof(sip));
	inet_ntop(AF_INET, &c.l.dst_ip, dip, sizeof(dip));
	printf("{\"prog\":\"ft_cnp\",\"sent\":%ld,\"count\":%ld,\"qpn\":%ld,\"bytes_per_frame\":%d,"
	       "\"ifname\":\"%s\",\"src_mac\":\"%s\",\"dst_mac\":\"%s\",\"src_ip\":\"%s\","
	       "\"dst_ip\":\"%s\",\"sport\":%ld,\"dscp\":%d,\"ecn\":%d,\"pkey\":%ld,"
	       "\"icrc\":\"0x%08x\",\"pcap\":%s%s%s,\"elapsed_s\":%.6f,\"error\":%s%s%s}\n",
	       sent, c.count, c.qpn, FRAME_LEN, c.l.ifname ? c.l.ifname : "", smac, dmac, sip, dip,
	       c.sport, c.dscp, c.ecn, c.pkey, icrc,
	       c.l.pcap ? "\"" : "", c.l.pcap ? c.l.pcap : "null", c.l.pcap ? "\"" : "",
	       raw_now() - t0, error ? "\"" : "", error ? error : "null", error ? "\"" : "");
	return rc;
}
