// SPDX-License-Identifier: GPL-2.0
/* ft_icrc: checks the ICRC of every RoCEv2 frame in a capture, and the ICRC code itself. */

/*
 * Two uses.  On the host, `--self-test` checks ft_roce_icrc() (which ft_cnp
 * uses to make CNPs rxe would accept) against known answers, among them
 * frames rdma_rxe itself sent.  On a test node, `ft_icrc CAPTURE.pcap`
 * recomputes the ICRC of every RoCEv2 frame a tcpdump saw: all rxe frames
 * must check, and a frame that does not was corrupted or hand-made wrong.
 * Prints one JSON object; exit 1 if a frame's ICRC is wrong.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "icrc.h"
#include "pcap.h"

#define ROCE_PORT 4791

static const char *prog = "ft_icrc";

static void usage(void)
{
	printf("Usage: %s [--quiet] CAPTURE.pcap...\n"
	       "       %s --self-test\n"
	       "Recomputes the RoCEv2 ICRC of every UDP/4791 frame in the captures\n"
	       "(classic pcap, Ethernet or Linux cooked) and compares it to the frame's.\n"
	       "Prints {\"frames\",\"roce\",\"icrc_ok\",\"icrc_bad\",\"opcodes\":{...}} on stdout;\n"
	       "exit 0 all good, 1 a bad ICRC or unreadable file, 2 usage.\n",
	       prog, prog);
}

/*
 * Finds the IP packet in a frame; returns a pointer to its L3 header and its
 * length from the IP header's own length field (Ethernet pads short frames,
 * and the pad is not part of the ICRC), or NULL if it is not RoCEv2.
 */
static const uint8_t *roce_l3(const uint8_t *f, long len, uint32_t linktype, size_t *l3len)
{
	size_t off, iplen, hl;
	uint16_t et;
	const uint8_t *ip, *udp;

	if (linktype == FT_LINKTYPE_ETHERNET) {
		off = 12;
	} else if (linktype == FT_LINKTYPE_LINUX_SLL) {
		off = 14;
	} else {
		return NULL;
	}
	for (;;) {
		if ((long)off + 2 > len)
			return NULL;
		et = f[off] << 8 | f[off + 1];
		if (et != 0x8100 && et != 0x88a8)
			break;
		off += 4;			/* VLAN tag */
	}
	off += 2;
	ip = f + off;
	if (et == 0x0800) {
		if ((long)off + 20 > len || ip[9] != 17)
			return NULL;
		hl = (ip[0] & 0xf) * 4;
		iplen = ip[2] << 8 | ip[3];
	} else if (et == 0x86dd) {
		if ((long)off + 40 > len || ip[6] != 17)
			return NULL;
		hl = 40;
		iplen = 40 + (ip[4] << 8 | ip[5]);
	} else {
		return NULL;
	}
	if (off + iplen > (size_t)len || iplen < hl + 8 + 12 + 4)
		return NULL;
	udp = ip + hl;
	if ((udp[2] << 8 | udp[3]) != ROCE_PORT)
		return NULL;
	*l3len = iplen;
	return ip;
}

static uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

struct vec {
	const char *what;
	const char *hex;		/* from the IP header to the ICRC, inclusive */
};

/*
 * Frames rdma_rxe sent on the two-node harness (Debian 6.12 kernel), cut
 * from a tcpdump capture: from the IPv4 header through the ICRC.  Their
 * ICRC was computed by the kernel, so they pin the masking and seeding
 * down independently of this file's reading of rxe_icrc.c.
 */
static const struct vec rxe_frames[] = {
#include "testdata/rxe_frames.inc"
};

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static size_t unhex(const char *s, uint8_t *out, size_t cap)
{
	size_t n = 0;

	for (; s[0] && s[1] && n < cap; s += 2)
		out[n++] = hexval(s[0]) << 4 | hexval(s[1]);
	return n;
}

static int self_test(void)
{
	static const uint8_t lrh[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	int fails = 0, i;
	uint32_t v;

	v = ~ft_crc32_le(0xffffffff, "123456789", 9);
	if (v != 0xcbf43926) {
		fprintf(stderr, "%s: CRC-32 check value %#x != 0xcbf43926\n", prog, v);
		fails++;
	}
	/* The seed rxe_icrc_hdr() hard-codes must be what our LRH gives. */
	v = ft_crc32_le(0xffffffff, lrh, 8);
	if (v != 0xdebb20e3) {
		fprintf(stderr, "%s: LRH seed %#x != rxe's 0xdebb20e3\n", prog, v);
		fails++;
	}
	for (i = 0; i < (int)(sizeof(rxe_frames) / sizeof(rxe_frames[0])); i++) {
		uint8_t pkt[2048];
		size_t n = unhex(rxe_frames[i].hex, pkt, sizeof(pkt));
		const char *err;

		if (n < 20 + 8 + 12 + 4) {
			fprintf(stderr, "%s: rxe frame %d (%s) is too short\n", prog, i,
				rxe_frames[i].what);
			fails++;
			continue;
		}
		v = ft_roce_icrc(pkt, n - 4, &err);
		if (err || v != le32(pkt + n - 4)) {
			fprintf(stderr, "%s: rxe frame %d (%s): ICRC %#010x, frame has %#010x%s%s\n",
				prog, i, rxe_frames[i].what, v, le32(pkt + n - 4),
				err ? ": " : "", err ? err : "");
			fails++;
		}
		/* One flipped payload bit must change the ICRC. */
		pkt[n - 5] ^= 1;
		if (ft_roce_icrc(pkt, n - 4, &err) == le32(pkt + n - 4)) {
			fprintf(stderr, "%s: rxe frame %d: corruption not detected\n", prog, i);
			fails++;
		}
		/* ...but rewriting a masked field (TOS, TTL) must not. */
		pkt[n - 5] ^= 1;
		if ((pkt[0] >> 4) == 4) {
			pkt[1] ^= 0x03;
			pkt[8] -= 1;
			if (ft_roce_icrc(pkt, n - 4, &err) != le32(pkt + n - 4)) {
				fprintf(stderr, "%s: rxe frame %d: masked TOS/TTL changed the ICRC\n",
					prog, i);
				fails++;
			}
		}
	}
	printf("{\"prog\":\"ft_icrc\",\"self_test\":%s,\"rxe_frames\":%d,\"failures\":%d}\n",
	       fails ? "false" : "true", (int)(sizeof(rxe_frames) / sizeof(rxe_frames[0])),
	       fails);
	return fails ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "self-test", no_argument, NULL, 's' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	unsigned long frames = 0, roce = 0, ok = 0, bad = 0, opc[256] = { 0 };
	bool quiet = false, selftest = false, first = true;
	int o, i, rc = 0;

	while ((o = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
		switch (o) {
		case 's': selftest = true; break;
		case 'q': quiet = true; break;
		case 'h': usage(); return 0;
		default: fprintf(stderr, "Try '%s --help'.\n", prog); return 2;
		}
	}
	if (selftest) {
		if (optind < argc) {
			fprintf(stderr, "%s: --self-test takes no files\n", prog);
			return 2;
		}
		return self_test();
	}
	if (optind == argc) {
		fprintf(stderr, "%s: no capture files given\nTry '%s --help'.\n", prog, prog);
		return 2;
	}
	for (i = optind; i < argc; i++) {
		static uint8_t f[65536];
		struct ft_pcap p;
		const char *why = ft_pcap_open(&p, argv[i]);
		unsigned long n = 0;
		long len;

		if (why) {
			fprintf(stderr, "%s: %s: %s\n", prog, argv[i], why);
			ft_pcap_close(&p);
			rc = 1;
			continue;
		}
		while ((len = ft_pcap_next(&p, f, sizeof(f))) > 0) {
			const uint8_t *l3;
			const char *err;
			size_t l3len;
			uint32_t v, have;

			n++;
			frames++;
			l3 = roce_l3(f, len, p.linktype, &l3len);
			if (!l3)
				continue;
			roce++;
			v = ft_roce_icrc(l3, l3len - 4, &err);
			have = le32(l3 + l3len - 4);
			opc[l3[(l3[0] >> 4) == 4 ? (l3[0] & 0xf) * 4 + 8 : 48]]++;
			if (!err && v == have) {
				ok++;
				continue;
			}
			bad++;
			if (!quiet && bad <= 10)
				fprintf(stderr, "%s: %s frame %lu: ICRC %#010x, computed %#010x%s%s\n",
					prog, argv[i], n, have, v, err ? ": " : "", err ? err : "");
		}
		if (len < 0) {
			fprintf(stderr, "%s: %s: damaged after frame %lu\n", prog, argv[i], n);
			rc = 1;
		}
		ft_pcap_close(&p);
	}
	printf("{\"prog\":\"ft_icrc\",\"frames\":%lu,\"roce\":%lu,\"icrc_ok\":%lu,\"icrc_bad\":%lu,"
	       "\"opcodes\":{", frames, roce, ok, bad);
	for (i = 0; i < 256; i++) {
		if (!opc[i])
			continue;
		printf("%s\"%d\":%lu", first ? "" : ",", i, opc[i]);
		first = false;
	}
	printf("}}\n");
	return bad || rc ? 1 : 0;
}
