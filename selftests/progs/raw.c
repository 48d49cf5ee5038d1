// SPDX-License-Identifier: GPL-2.0
/* What ft_cnp, ft_pfc and ft_wirefuzz share: options, the AF_PACKET set-up, socket or pcap. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "raw.h"

const char *raw_prog = "ft";
volatile sig_atomic_t raw_stop;

static void on_signal(int sig)
{
	raw_stop = sig;
}

void raw_signals_init(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

double raw_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- the command line ---- */

void raw_usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", raw_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help'.\n", raw_prog);
	exit(2);
}

int raw_getopt(int argc, char **argv, const struct option *opts, void (*usage)(void),
	       struct raw_link *l)
{
	int o;

	for (;;) {
		o = getopt_long(argc, argv, "h", opts, NULL);
		switch (o) {
		case RAW_O_IF: l->ifname = raw_parse_ifname(optarg); continue;
		case RAW_O_SMAC:
			raw_parse_mac("--src-mac", optarg, l->src_mac);
			l->have_src_mac = true;
			continue;
		case RAW_O_PCAP: l->pcap = optarg; continue;
		case RAW_O_SIP:
			raw_parse_ip("--src-ip", optarg, &l->src_ip);
			l->have_src_ip = true;
			continue;
		case RAW_O_DIP:
			raw_parse_ip("--dst-ip", optarg, &l->dst_ip);
			l->have_dst_ip = true;
			continue;
		case RAW_O_DMAC:
			raw_parse_mac("--dst-mac", optarg, l->dst_mac);
			l->have_dst_mac = true;
			continue;
		case 'h':
			usage();
			exit(0);
		case '?':
			/* getopt_long() has said what is wrong with it */
			fprintf(stderr, "Try '%s --help'.\n", raw_prog);
			exit(2);
		case -1:
			if (optind < argc)
				raw_usage_error("unexpected argument '%s'", argv[optind]);
		}
		return o;
	}
}

long raw_parse_int(const char *opt, const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || end == s || *end)
		raw_usage_error("%s: '%s' is not an integer", opt, s);
	if (v < min || v > max)
		raw_usage_error("%s: %ld is out of range [%ld, %ld]", opt, v, min, max);
	return v;
}

void raw_parse_mac(const char *opt, const char *s, uint8_t mac[6])
{
	unsigned int b[6];
	char extra;
	int i;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5],
		   &extra) != 6)
		raw_usage_error("%s: '%s' is not a MAC address (xx:xx:xx:xx:xx:xx)", opt, s);
	for (i = 0; i < 6; i++) {
		if (b[i] > 0xff)
			raw_usage_error("%s: '%s' is not a MAC address", opt, s);
		mac[i] = b[i];
	}
}

void raw_parse_ip(const char *opt, const char *s, struct in_addr *a)
{
	if (inet_pton(AF_INET, s, a) != 1)
		raw_usage_error("%s: '%s' is not an IPv4 address", opt, s);
}

const char *raw_parse_ifname(const char *s)
{
	if (!*s || strlen(s) >= IFNAMSIZ)
		raw_usage_error("--ifname: '%s' is not an interface name", s);
	return s;
}

double raw_parse_timeout(const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	/* !(v >= 0) rejects NaN too */
	if (errno || end == s || *end || !(v >= 0) || v > 1e6)
		raw_usage_error("--timeout-s: '%s' is not a number of seconds", s);
	return v;
}

/* ---- the interface ---- */

/* One SIOC* request about IFNAME; -1 with errno set on failure. */
static int ifreq(const char *ifname, unsigned long req, struct ifreq *ifr)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), ret;

	if (fd < 0)
		return -1;
	memset(ifr, 0, sizeof(*ifr));
	snprintf(ifr->ifr_name, IFNAMSIZ, "%s", ifname);
	ret = ioctl(fd, req, ifr);
	close(fd);
	return ret;
}

/* IFNAME's IPv4 address; -1 with errno set. */
static int if_ipv4(const char *ifname, struct in_addr *a)
{
	struct ifreq ifr;

	if (ifreq(ifname, SIOCGIFADDR, &ifr))
		return -1;
	*a = ((struct sockaddr_in *)&ifr.ifr_addr)->sin_addr;
	return 0;
}

/* Only a complete entry (flags 0x2) on IFNAME: an incomplete one has no MAC yet. */
static bool arp_lookup(const char *ifname, struct in_addr dst, uint8_t mac[6])
{
	char line[256], ip[64], hw[64], dev[64], want[INET_ADDRSTRLEN];
	unsigned int type, flags, b[6];
	FILE *f = fopen("/proc/net/arp", "r");
	bool found = false;
	int i;

	if (!f)
		return false;
	inet_ntop(AF_INET, &dst, want, sizeof(want));
	if (!fgets(line, sizeof(line), f)) {	/* column titles */
		fclose(f);
		return false;
	}
	while (!found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %x %x %63s %*s %63s", ip, &type, &flags, hw, dev) != 5)
			continue;
		if (strcmp(ip, want) || strcmp(dev, ifname) || !(flags & 0x2))
			continue;
		if (sscanf(hw, "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4],
			   &b[5]) == 6) {
			for (i = 0; i < 6; i++)
				mac[i] = b[i];
			found = true;
		}
	}
	fclose(f);
	return found;
}

/*
 * DST's MAC address from the neighbour table.  No entry yet: make the
 * kernel resolve it by sending one UDP datagram to the discard port (the
 * peer answers port-unreachable at most; never 4791, which would reach
 * rxe), then watch the table for 3 s, or until DEADLINE (0 = none).  Says
 * why on stderr and returns -1 when none comes.
 */
static int resolve_mac(const char *ifname, struct in_addr dst, uint8_t mac[6], double deadline)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(9),
				  .sin_addr = dst };
	double end = raw_now() + 3;
	int fd;

	if (arp_lookup(ifname, dst, mac))
		return 0;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd >= 0) {
		/* Root may pin it to the interface; harmless if refused. */
		setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, ifname, strlen(ifname));
		sendto(fd, "", 0, 0, (struct sockaddr *)&sa, sizeof(sa));
		close(fd);
	}
	if (deadline && deadline < end)
		end = deadline;
	while (raw_now() < end && !raw_stop) {
		usleep(20000);
		if (arp_lookup(ifname, dst, mac))
			return 0;
	}
	fprintf(stderr, "%s: no ARP entry for %s on %s; pass --dst-mac\n", raw_prog,
		inet_ntoa(dst), ifname);
	return -1;
}

void raw_mac_str(const uint8_t *m, char *buf)
{
	sprintf(buf, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
}

/* ---- where the frames go ---- */

/* PCAP, else a socket to DST on IFINDEX; -1 with errno set. */
static int out_open(struct raw_out *o, const char *pcap, const char *ifname, int ifindex,
		    const uint8_t dst[6], uint16_t proto, clockid_t clock)
{
	memset(o, 0, sizeof(*o));
	o->pcap = pcap;
	o->ifname = ifname;
	o->clock = clock;
	o->fd = -1;
	o->ll.sll_family = AF_PACKET;
	o->ll.sll_protocol = proto;
	o->ll.sll_ifindex = ifindex;
	o->ll.sll_halen = 6;
	memcpy(o->ll.sll_addr, dst, 6);
	if (pcap)
		return ft_pcap_create(&o->pc, pcap);
	if (!ifindex)
		return 0;
	/* Protocol 0: send only, no copy of every received frame. */
	o->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	return o->fd < 0 ? -1 : 0;
}

/* A failure of raw_setup(): ERRNO's words on stderr, WHY for the JSON. */
static const char *setup_failed(const char *what, const char *why)
{
	fprintf(stderr, "%s: %s: %s%s\n", raw_prog, what, strerror(errno),
		errno == EPERM ? " (needs CAP_NET_RAW)" : "");
	return why;
}

const char *raw_setup(struct raw_out *o, struct raw_link *l, int flags, uint16_t proto,
		      clockid_t clock, double deadline)
{
	struct ifreq ifr;
	char what[64];
	int ifindex = 0;

	if (l->ifname) {
		snprintf(what, sizeof(what), "interface '%s'", l->ifname);
		if (ifreq(l->ifname, SIOCGIFINDEX, &ifr))
			return setup_failed(what, "no such interface");
		ifindex = ifr.ifr_ifindex;
		if (!l->have_src_mac) {
			if (ifreq(l->ifname, SIOCGIFHWADDR, &ifr))
				return setup_failed(what, "no MAC address");
			memcpy(l->src_mac, ifr.ifr_hwaddr.sa_data, 6);
		}
	}
	if (l->ifname && (flags & RAW_IPV4)) {
		if (!l->have_src_ip && if_ipv4(l->ifname, &l->src_ip)) {
			fprintf(stderr, "%s: %s has no IPv4 address (%s); pass --src-ip\n",
				raw_prog, l->ifname, strerror(errno));
			return "no IPv4 address";
		}
		if (!l->have_dst_mac && resolve_mac(l->ifname, l->dst_ip, l->dst_mac, deadline))
			return "no ARP entry";
	}
	if (out_open(o, l->pcap, l->ifname, ifindex, l->dst_mac, proto, clock)) {
		if (l->pcap)
			return setup_failed(l->pcap, "cannot create the pcap file");
		return setup_failed("AF_PACKET socket", "cannot open an AF_PACKET socket");
	}
	return NULL;
}

int raw_out_send(struct raw_out *o, const void *frame, size_t len)
{
	struct timespec ts;

	clock_gettime(o->clock, &ts);
	o->stamp_ns = (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	if (o->pcap)
		return ft_pcap_write(&o->pc, o->stamp_ns / 1e9, frame, len) ? -1 : 0;
	if (o->fd < 0)
		return 0;
	if (sendto(o->fd, frame, len, 0, (struct sockaddr *)&o->ll, sizeof(o->ll)) == (ssize_t)len)
		return 0;
	return errno == ENOBUFS || errno == EAGAIN || errno == EINTR ? 1 : -1;
}

int raw_out_frame(struct raw_out *o, const void *frame, size_t len, double deadline,
		  const char **error)
{
	int w;

	for (;;) {
		if (raw_stop) {
			*error = "interrupted";
			return 1;
		}
		if (deadline && raw_now() >= deadline) {
			*error = "timed out";
			return 3;
		}
		w = raw_out_send(o, frame, len);
		if (!w)
			return 0;
		if (w < 0)
			break;
		usleep(100);
	}
	if (o->pcap) {
		fprintf(stderr, "%s: %s: write failed\n", raw_prog, o->pcap);
		*error = "pcap write failed";
	} else {
		fprintf(stderr, "%s: sendto %s: %s\n", raw_prog, o->ifname, strerror(errno));
		*error = "send failed";
	}
	return 1;
}

int raw_out_close(struct raw_out *o)
{
	int ret = 0;

	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
	if (o->pcap && o->pc.f && fclose(o->pc.f)) {
		fprintf(stderr, "%s: %s: %s\n", raw_prog, o->pcap, strerror(errno));
		ret = -1;
	}
	o->pc.f = NULL;
	return ret;
}
