/* SPDX-License-Identifier: GPL-2.0 */
/* Build RoCEv2 packets in memory for the host tests, fuzzer and benchmark. */
#ifndef _FABTRACE_TEST_PKT_H
#define _FABTRACE_TEST_PKT_H

#include <stdint.h>
#include <string.h>

/* Extended transport header bytes after the BTH, by opcode (IBTA). */
static inline unsigned int tpkt_ext_len(uint8_t op)
{
	static const uint8_t rc[32] = {
		[0x03] = 4, [0x05] = 4, [0x06] = 16, [0x09] = 4, [0x0a] = 16,
		[0x0b] = 20, [0x0c] = 16, [0x0d] = 4, [0x0f] = 4, [0x10] = 4,
		[0x11] = 4, [0x12] = 12, [0x13] = 28, [0x14] = 28, [0x16] = 4,
		[0x17] = 4, [0x1c] = 20, [0x1d] = 16,
	};

	if (op == 0x81)
		return 16;
	if (op >> 5 == 3)		/* UD: DETH */
		return 8 + rc[op & 0x1f];
	if (op >> 5 == 5 && (op & 0x1f) != 0x11 && (op & 0x1f) != 0x12 &&
	    ((op & 0x1f) < 0x0d || (op & 0x1f) > 0x10))
		return 4 + rc[op & 0x1f];	/* XRC request: XRCETH */
	return rc[op & 0x1f];
}

struct tpkt {
	uint8_t opcode;
	uint32_t qpn;
	uint32_t psn;
	uint32_t payload;
	uint8_t pad;		/* 0..3 */
	uint8_t tos;		/* DSCP << 2 | ECN */
	uint8_t syndrome;	/* AETH syndrome, for opcodes with an AETH */
	int ipv6;
	int ackreq;		/* BTH AckReq */
};

/* Write the packet from its IP header on into @buf; return its length. */
static inline unsigned int tpkt_build(uint8_t *buf, const struct tpkt *t)
{
	unsigned int ext = tpkt_ext_len(t->opcode);
	unsigned int udplen = 8 + 12 + ext + t->payload + t->pad + 4;
	unsigned int iphl = t->ipv6 ? 40 : 20, len = iphl + udplen;
	uint8_t *udp = buf + iphl, *bth = udp + 8;

	memset(buf, 0, len);
	if (t->ipv6) {
		buf[0] = 0x60 | t->tos >> 4;
		buf[1] = (uint8_t)(t->tos << 4);
		buf[4] = udplen >> 8;
		buf[5] = udplen & 0xff;
		buf[6] = 17;
		buf[7] = 64;
	} else {
		buf[0] = 0x45;
		buf[1] = t->tos;
		buf[2] = len >> 8;
		buf[3] = len & 0xff;
		buf[8] = 64;
		buf[9] = 17;
	}
	udp[0] = 0xc0;
	udp[2] = 4791 >> 8;
	udp[3] = 4791 & 0xff;
	udp[4] = udplen >> 8;
	udp[5] = udplen & 0xff;
	bth[0] = t->opcode;
	bth[1] = (uint8_t)(t->pad << 4);
	bth[2] = 0xff;
	bth[3] = 0xff;
	bth[5] = t->qpn >> 16;
	bth[6] = t->qpn >> 8;
	bth[7] = t->qpn;
	bth[8] = t->ackreq ? 0x80 : 0;
	bth[9] = t->psn >> 16;
	bth[10] = t->psn >> 8;
	bth[11] = t->psn;
	bth[12] = t->syndrome;	/* first ETH byte: the AETH syndrome if any */
	return len;
}

#endif /* _FABTRACE_TEST_PKT_H */
