// SPDX-License-Identifier: GPL-2.0
/* RoCEv2 header parsing, and the CNPs fabtrace sends (pure C, kernel and userspace). */

#include "roce.h"

/* Transports: the top three bits of a BTH opcode */
#define RC	0x00
#define UC	0x20
#define UD	0x60
#define XRC	0xa0

/* Opcode values within a transport, as IBTA numbers them */
#define SEND_FIRST		0x00
#define SEND_MIDDLE		0x01
#define SEND_LAST		0x02
#define SEND_LAST_IMM		0x03
#define SEND_ONLY		0x04
#define SEND_ONLY_IMM		0x05
#define WRITE_FIRST		0x06
#define WRITE_MIDDLE		0x07
#define WRITE_LAST		0x08
#define WRITE_LAST_IMM		0x09
#define WRITE_ONLY		0x0a
#define WRITE_ONLY_IMM		0x0b
#define READ_REQ		0x0c
#define READ_RESP_FIRST		0x0d
#define READ_RESP_MIDDLE	0x0e
#define READ_RESP_LAST		0x0f
#define READ_RESP_ONLY		0x10
#define ACK			0x11
#define ATOMIC_ACK		0x12
#define CMP_SWAP		0x13
#define FETCH_ADD		0x14
#define SEND_LAST_INV		0x16
#define SEND_ONLY_INV		0x17
#define FLUSH			0x1c
#define ATOMIC_WRITE		0x1d

/* Extended transport header sizes */
#define IMMDT	4
#define RETH	16
#define AETH	4
#define ATMACK	8
#define ATMETH	28
#define IETH	4
#define FETH	4
#define DETH	8
#define XRCETH	4

/* Flags of valid opcodes, by the PSN space they belong to */
#define REQ		(FT_PKT_REQ | FT_OP_VALID | FT_OP_PLAIN)
#define RESP		(FT_PKT_RESP | FT_OP_VALID | FT_OP_PLAIN)
#define RESP_AETH	(FT_PKT_RESP | FT_OP_VALID | FT_OP_AETH)

/* An opcode: its class, extended transport header bytes and flags. */
#define OP(c, e, f)	{ .cls = (c), .ext = (e), .flags = (f) }

/*
 * One entry per BTH opcode.  Opcodes the table leaves zero are reserved or
 * vendor specific: not FT_OP_VALID.
 */
const struct ft_op ft_ops[256] = {
	/* RC */
	[RC | SEND_FIRST] = OP(FT_CLS_SEND, 0, REQ),
	[RC | SEND_MIDDLE] = OP(FT_CLS_SEND, 0, REQ),
	[RC | SEND_LAST] = OP(FT_CLS_SEND, 0, REQ),
	[RC | SEND_LAST_IMM] = OP(FT_CLS_SEND, IMMDT, REQ),
	[RC | SEND_ONLY] = OP(FT_CLS_SEND, 0, REQ),
	[RC | SEND_ONLY_IMM] = OP(FT_CLS_SEND, IMMDT, REQ),
	[RC | WRITE_FIRST] = OP(FT_CLS_WRITE, RETH, REQ),
	[RC | WRITE_MIDDLE] = OP(FT_CLS_WRITE, 0, REQ),
	[RC | WRITE_LAST] = OP(FT_CLS_WRITE, 0, REQ),
	[RC | WRITE_LAST_IMM] = OP(FT_CLS_WRITE, IMMDT, REQ),
	[RC | WRITE_ONLY] = OP(FT_CLS_WRITE, RETH, REQ),
	[RC | WRITE_ONLY_IMM] = OP(FT_CLS_WRITE, RETH + IMMDT, REQ),
	[RC | READ_REQ] = OP(FT_CLS_READ_REQ, RETH, REQ | FT_PKT_READ),
	[RC | READ_RESP_FIRST] = OP(FT_CLS_READ_RESP, AETH, RESP_AETH),
	[RC | READ_RESP_MIDDLE] = OP(FT_CLS_READ_RESP, 0, RESP),
	[RC | READ_RESP_LAST] = OP(FT_CLS_READ_RESP, AETH, RESP_AETH),
	[RC | READ_RESP_ONLY] = OP(FT_CLS_READ_RESP, AETH, RESP_AETH),
	[RC | ACK] = OP(FT_CLS_ACK, AETH, FT_PKT_ACK | FT_OP_VALID | FT_OP_AETH),
	[RC | ATOMIC_ACK] = OP(FT_CLS_ATOMIC, AETH + ATMACK, RESP_AETH),
	[RC | CMP_SWAP] = OP(FT_CLS_ATOMIC, ATMETH, REQ),
	[RC | FETCH_ADD] = OP(FT_CLS_ATOMIC, ATMETH, REQ),
	[RC | SEND_LAST_INV] = OP(FT_CLS_SEND, IETH, REQ),
	[RC | SEND_ONLY_INV] = OP(FT_CLS_SEND, IETH, REQ),
	[RC | FLUSH] = OP(FT_CLS_OTHER, FETH + RETH, REQ),
	[RC | ATOMIC_WRITE] = OP(FT_CLS_ATOMIC, RETH, REQ),
	/* UC */
	[UC | SEND_FIRST] = OP(FT_CLS_SEND, 0, REQ),
	[UC | SEND_MIDDLE] = OP(FT_CLS_SEND, 0, REQ),
	[UC | SEND_LAST] = OP(FT_CLS_SEND, 0, REQ),
	[UC | SEND_LAST_IMM] = OP(FT_CLS_SEND, IMMDT, REQ),
	[UC | SEND_ONLY] = OP(FT_CLS_SEND, 0, REQ),
	[UC | SEND_ONLY_IMM] = OP(FT_CLS_SEND, IMMDT, REQ),
	[UC | WRITE_FIRST] = OP(FT_CLS_WRITE, RETH, REQ),
	[UC | WRITE_MIDDLE] = OP(FT_CLS_WRITE, 0, REQ),
	[UC | WRITE_LAST] = OP(FT_CLS_WRITE, 0, REQ),
	[UC | WRITE_LAST_IMM] = OP(FT_CLS_WRITE, IMMDT, REQ),
	[UC | WRITE_ONLY] = OP(FT_CLS_WRITE, RETH, REQ),
	[UC | WRITE_ONLY_IMM] = OP(FT_CLS_WRITE, RETH + IMMDT, REQ),
	/* UD: every request carries a DETH */
	[UD | SEND_ONLY] = OP(FT_CLS_SEND, DETH, REQ),
	[UD | SEND_ONLY_IMM] = OP(FT_CLS_SEND, DETH + IMMDT, REQ),
	/* XRC: requests carry an XRCETH, responses do not */
	[XRC | SEND_FIRST] = OP(FT_CLS_SEND, XRCETH, REQ),
	[XRC | SEND_MIDDLE] = OP(FT_CLS_SEND, XRCETH, REQ),
	[XRC | SEND_LAST] = OP(FT_CLS_SEND, XRCETH, REQ),
	[XRC | SEND_LAST_IMM] = OP(FT_CLS_SEND, IMMDT + XRCETH, REQ),
	[XRC | SEND_ONLY] = OP(FT_CLS_SEND, XRCETH, REQ),
	[XRC | SEND_ONLY_IMM] = OP(FT_CLS_SEND, IMMDT + XRCETH, REQ),
	[XRC | WRITE_FIRST] = OP(FT_CLS_WRITE, RETH + XRCETH, REQ),
	[XRC | WRITE_MIDDLE] = OP(FT_CLS_WRITE, XRCETH, REQ),
	[XRC | WRITE_LAST] = OP(FT_CLS_WRITE, XRCETH, REQ),
	[XRC | WRITE_LAST_IMM] = OP(FT_CLS_WRITE, IMMDT + XRCETH, REQ),
	[XRC | WRITE_ONLY] = OP(FT_CLS_WRITE, RETH + XRCETH, REQ),
	[XRC | WRITE_ONLY_IMM] = OP(FT_CLS_WRITE, RETH + IMMDT + XRCETH, REQ),
	[XRC | READ_REQ] = OP(FT_CLS_READ_REQ, RETH + XRCETH,
			     REQ | FT_PKT_READ),
	[XRC | READ_RESP_FIRST] = OP(FT_CLS_READ_RESP, AETH, RESP_AETH),
	[XRC | READ_RESP_MIDDLE] = OP(FT_CLS_READ_RESP, 0, RESP),
	[XRC | READ_RESP_LAST] = OP(FT_CLS_READ_RESP, AETH, RESP_AETH),
	[XRC | READ_RESP_ONLY] = OP(FT_CLS_READ_RESP, AETH, RESP_AETH),
	[XRC | ACK] = OP(FT_CLS_ACK, AETH, FT_PKT_ACK | FT_OP_VALID | FT_OP_AETH),
	[XRC | ATOMIC_ACK] = OP(FT_CLS_ATOMIC, AETH + ATMACK, RESP_AETH),
	[XRC | CMP_SWAP] = OP(FT_CLS_ATOMIC, ATMETH + XRCETH, REQ),
	[XRC | FETCH_ADD] = OP(FT_CLS_ATOMIC, ATMETH + XRCETH, REQ),
	[XRC | SEND_LAST_INV] = OP(FT_CLS_SEND, IETH + XRCETH, REQ),
	[XRC | SEND_ONLY_INV] = OP(FT_CLS_SEND, IETH + XRCETH, REQ),
	[XRC | FLUSH] = OP(FT_CLS_OTHER, FETH + RETH + XRCETH, REQ),
	[XRC | ATOMIC_WRITE] = OP(FT_CLS_ATOMIC, RETH + XRCETH, REQ),
	/* a CNP carries 16 reserved bytes and no payload */
	[FT_OPCODE_CNP] = OP(FT_CLS_CNP, 16, FT_PKT_CNP | FT_OP_VALID | FT_OP_PLAIN),
};

/*
 * What an ACK's AETH syndrome says: 0 for an ACK; for a NAK, FT_AETH_NAK
 * and the offset of the NAK's counter slot from FT_CLS_ACK.  Bits 7-5:
 * 000 ACK, 001 RNR NAK, 011 NAK with a code in bits 4-0, others reserved
 * (counted as "other" NAKs).
 */
#define NAK(n)	(FT_AETH_NAK | (FT_CLS_NAK - FT_CLS_ACK + (n)))

const u8 ft_aeth[256] = {
	[0x00 ... 0x1f] = 0,
	[0x20 ... 0x3f] = NAK(FT_NAK_RNR),
	[0x40 ... 0x5f] = NAK(FT_NAK_OTHER),
	[0x60] = NAK(FT_NAK_PSN_SEQ),
	[0x61] = NAK(FT_NAK_INV_REQ),
	[0x62] = NAK(FT_NAK_REM_ACCESS),
	[0x63] = NAK(FT_NAK_REM_OP),
	[0x64 ... 0x7f] = NAK(FT_NAK_OTHER),
	[0x80 ... 0xff] = NAK(FT_NAK_OTHER),
};

/**
 * ft_icrc() - the ICRC of a RoCEv2 packet over IPv4, as the packet carries it
 * @ip: the packet, from its IPv4 header (20 bytes, no options) on
 * @len: its length, the ICRC's 4 bytes not included
 *
 * As rxe computes it: over a copy of the headers with the fields routers
 * may change (TOS, TTL, header and UDP checksums, BTH byte 4) set to ones,
 * after 8 bytes of ones where an InfiniBand packet's LRH would be; then
 * over the rest.  The packet carries it inverted, little-endian.
 */
u32 ft_icrc(const u8 *ip, u32 len)
{
	static const u8 lrh[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	u8 h[20 + 8 + FT_BTH_LEN];
	u32 crc;

	__builtin_memcpy(h, ip, sizeof(h));
	h[1] = 0xff;
	h[8] = 0xff;
	h[10] = 0xff;
	h[11] = 0xff;
	h[20 + 6] = 0xff;
	h[20 + 7] = 0xff;
	h[20 + 8 + 4] = 0xff;
	crc = crc32_le(0xffffffff, lrh, sizeof(lrh));
	crc = crc32_le(crc, h, sizeof(h));
	crc = crc32_le(crc, ip + sizeof(h), len - sizeof(h));
	return ~crc;
}

/**
 * ft_cnp_build() - a CNP that answers a CE-marked RoCEv2 packet
 * @cnp: FT_CNP_LEN bytes, from the IP header on
 * @ip: the received packet, from its IP header on
 * @avail: bytes at @ip
 * @dqpn: the QP that sent it, which the CNP goes to
 * @dscp: the CNP's DSCP
 *
 * Back to where the packet came from: addresses swapped, the packet's UDP
 * source port (its flow's entropy) kept, its P_Key; BTH opcode 0x81, BECN
 * set, PSN 0, as RoCEv2's Annex A17 has it; Not-ECT; UDP checksum 0, which
 * IPv4 allows.
 *
 * Return: FT_CNP_LEN, or 0 if @ip is not a plain IPv4 RoCEv2 packet.
 */
u32 ft_cnp_build(u8 *cnp, const u8 *ip, u32 avail, u32 dqpn, u8 dscp)
{
	u32 sum = 0, i;

	if (avail < 20 + 8 + FT_BTH_LEN || ip[0] != 0x45 || ip[9] != 17)
		return 0;
	__builtin_memset(cnp, 0, FT_CNP_LEN);
	cnp[0] = 0x45;
	cnp[1] = dscp << 2;
	cnp[3] = FT_CNP_LEN;
	cnp[6] = 0x40;				/* DF */
	cnp[8] = 64;
	cnp[9] = 17;
	__builtin_memcpy(cnp + 12, ip + 16, 4);	/* to the sender */
	__builtin_memcpy(cnp + 16, ip + 12, 4);
	for (i = 0; i < 20; i += 2)
		sum += cnp[i] << 8 | cnp[i + 1];
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	cnp[10] = ~sum >> 8;
	cnp[11] = ~sum;

	cnp[20] = ip[20];			/* UDP source port */
	cnp[21] = ip[21];
	cnp[22] = FT_ROCE_UDP_PORT >> 8;
	cnp[23] = FT_ROCE_UDP_PORT & 0xff;
	cnp[25] = FT_CNP_LEN - 20;

	cnp[28] = FT_OPCODE_CNP;
	cnp[30] = ip[30];			/* P_Key */
	cnp[31] = ip[31];
	cnp[32] = 0x40;				/* BECN */
	cnp[33] = dqpn >> 16;
	cnp[34] = dqpn >> 8;
	cnp[35] = dqpn;

	i = ft_icrc(cnp, FT_CNP_LEN - FT_ICRC_LEN);
	cnp[FT_CNP_LEN - 4] = i;
	cnp[FT_CNP_LEN - 3] = i >> 8;
	cnp[FT_CNP_LEN - 2] = i >> 16;
	cnp[FT_CNP_LEN - 1] = i >> 24;
	return FT_CNP_LEN;
}

/* enum ib_qp_type and enum ib_qp_state values, as rxe's checks use them */
#define QPT_GSI		1
#define QPT_RC		2
#define QPT_UC		3
#define QPT_UD		4
#define QPS_RTR		2
#define QPS_RTS		3
#define QPS_SQD		4
#define QPS_ERR		6
#define MCAST_QPN	0xffffff
#define GSI_QKEY	0x80010000

/* Whether the ICRC the packet carries is right; true if it cannot be told. */
static bool icrc_ok(const u8 *ip, u32 avail, u32 len)
{
	u32 c;

	/* ft_icrc() knows plain IPv4; the whole packet must be at hand */
	if (avail != len || len < 20 + 8 + FT_BTH_LEN + FT_ICRC_LEN || ip[0] != 0x45)
		return true;
	c = ft_icrc(ip, len - FT_ICRC_LEN);
	return ip[len - 4] == (u8)c && ip[len - 3] == (u8)(c >> 8) &&
	       ip[len - 2] == (u8)(c >> 16) && ip[len - 1] == (u8)(c >> 24);
}

/*
 * The checks of rxe's receive path short of the ICRC, on a packet that
 * parsed: FT_DROP_MAX if it passes them all.
 */
static enum ft_drop header_checks(const u8 *ip, u32 avail, const struct ft_pkt *pkt,
				  const struct ft_drop_qp *qp)
{
	const u8 *bth = ip + (pkt->flags & FT_PKT_IPV6 ? 40 : (ip[0] & 0xf) * 4) + 8;
	u32 pkey = ft_get_be16(bth + 2), op = pkt->opcode & 0xe0;

	bool known = op <= 0x60 && (ft_ops[pkt->opcode].flags & FT_OP_VALID);

	/* in rxe's order: the BTH version, then the QP, then what it takes */
	if (bth[1] & 0xf)
		return FT_DROP_MALFORMED;
	if (pkt->qpn == MCAST_QPN)
		return known ? FT_DROP_MAX : FT_DROP_MALFORMED;
	if (!pkt->qpn || !qp->found)
		return FT_DROP_UNKNOWN_QP;
	/* opcodes rxe knows: RC, UC, RD, UD, no reserved one (a CNP is not) */
	if (!known)
		return FT_DROP_MALFORMED;
	switch (qp->type) {
	case QPT_RC:
		if (op != RC)
			return FT_DROP_QP_STATE;
		break;
	case QPT_UC:
		if (op != UC)
			return FT_DROP_QP_STATE;
		break;
	case QPT_UD:
	case QPT_GSI:
		if (op != UD)
			return FT_DROP_QP_STATE;
		break;
	default:
		return FT_DROP_QP_STATE;
	}
	if (qp->state < (pkt->flags & FT_PKT_REQ ? QPS_RTR : QPS_RTS) ||
	    (qp->err_refuses && qp->state == QPS_ERR))
		return FT_DROP_QP_STATE;
	/* a connected QP takes packets from its peer alone */
	if ((qp->type == QPT_RC || qp->type == QPT_UC) &&
	    (pkt->flags & FT_PKT_IPV6 ? __builtin_memcmp(ip + 8, qp->peer, 16) :
	     __builtin_memcmp(ip + 12, qp->peer + 12, 4)))
		return FT_DROP_ADDRESS;
	/* rxe's only partition: the default one, full or limited member */
	if ((pkey & 0x7fff) != 0x7fff)
		return FT_DROP_KEY;
	if (qp->type == QPT_GSI &&
	    (avail < (u32)(bth - ip) + FT_BTH_LEN + 4 ||
	     ft_get_be32(bth + FT_BTH_LEN) != GSI_QKEY))
		return FT_DROP_KEY;
	return FT_DROP_MAX;
}

/**
 * ft_drop_reason() - why rxe dropped a received packet
 * @ip: the packet, from its IP header on
 * @avail: bytes at @ip
 * @len: the packet's length from @ip on
 * @pkt: what ft_parse() made of it, if it parsed (else NULL)
 * @qp: what is known of the QP it names
 *
 * The first of rxe's receive checks it fails, as far as fabtrace can tell
 * them: rxe's own QP table and GID table are not at hand, so a QP rxe had
 * already let go, or a destination address not the device's, is put down
 * to the check that follows.
 *
 * Return: enum ft_drop.
 */
enum ft_drop ft_drop_reason(const u8 *ip, u32 avail, u32 len,
			    const struct ft_pkt *pkt, const struct ft_drop_qp *qp)
{
	enum ft_drop why;

	if (!pkt)
		return FT_DROP_MALFORMED;
	why = header_checks(ip, avail, pkt, qp);
	if (why != FT_DROP_MAX)
		return why;
	if (!icrc_ok(ip, avail, len))
		return FT_DROP_ICRC;
	return pkt->qpn == MCAST_QPN ? FT_DROP_MCAST : FT_DROP_OTHER;
}

/**
 * ft_rxe_takes() - would rxe's checks let a CNP in, had it known the opcode?
 * @ip: the packet, from its IP header on
 * @avail: bytes at @ip
 * @len: the packet's length from @ip on
 * @pkt: what ft_parse() made of it
 * @qp: what is known of the QP it names
 *
 * rxe drops every CNP as an opcode it does not know, after which fabtrace
 * counts those its own checks pass as received by their QP: the QP is
 * known, connected and sending (RTS or SQD, as a response needs), the CNP
 * comes from its peer, with the default P_Key and a right ICRC.
 */
bool ft_rxe_takes(const u8 *ip, u32 avail, u32 len, const struct ft_pkt *pkt,
		  const struct ft_drop_qp *qp)
{
	const u8 *bth = ip + (pkt->flags & FT_PKT_IPV6 ? 40 : (ip[0] & 0xf) * 4) + 8;

	if (!qp->found || (qp->type != QPT_RC && qp->type != QPT_UC) ||
	    (qp->state != QPS_RTS && qp->state != QPS_SQD))
		return false;
	if (pkt->flags & FT_PKT_IPV6 ? __builtin_memcmp(ip + 8, qp->peer, 16) :
	    __builtin_memcmp(ip + 12, qp->peer + 12, 4))
		return false;
	return (ft_get_be16(bth + 2) & 0x7fff) == 0x7fff && icrc_ok(ip, avail, len);
}
