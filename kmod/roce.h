/* SPDX-License-Identifier: GPL-2.0 */
/* RoCEv2 header parsing and PSN arithmetic (pure C, kernel and userspace). */
#ifndef _FABTRACE_ROCE_H
#define _FABTRACE_ROCE_H

#include "pure.h"

#define FT_ROCE_UDP_PORT	4791
#define FT_BTH_LEN		12
#define FT_ICRC_LEN		4
#define FT_OPCODE_CNP		0x81

/*
 * Enough of a packet to parse every header fabtrace reads: the largest
 * IPv4 header (60), UDP (8), BTH (12) and the largest extended transport
 * headers (FLUSH: FETH + RETH, 20; RD adds RDETH + DETH, 12; atomic ETH, 28).
 */
#define FT_HDR_MAX		128

/*
 * Opcode classes, as the counter contract names them.  NAK comes last and
 * right after ACK: the parser finds ACK + (is a NAK), and a packet's
 * counter slot is its class for every class but NAK, whose syndromes take
 * the slots from FT_CLS_NAK on.
 */
enum ft_cls {
	FT_CLS_SEND,
	FT_CLS_WRITE,
	FT_CLS_READ_REQ,
	FT_CLS_READ_RESP,
	FT_CLS_ATOMIC,
	FT_CLS_CNP,
	FT_CLS_OTHER,
	FT_CLS_ACK,
	FT_CLS_NAK,
	FT_CLS_MAX
};

/* NAKs by AETH syndrome. */
enum ft_nak {
	FT_NAK_PSN_SEQ,
	FT_NAK_RNR,
	FT_NAK_REM_ACCESS,
	FT_NAK_INV_REQ,
	FT_NAK_REM_OP,
	FT_NAK_OTHER,
	FT_NAK_MAX
};

/* Counter slots per direction: the classes, the NAK class by syndrome. */
#define FT_SLOT_MAX	(FT_CLS_NAK + FT_NAK_MAX)

/* ft_pkt.flags: what the accounting branches on, found once by the parse */
#define FT_PKT_REQ	0x01	/* a request: its PSN is the requester's */
#define FT_PKT_RESP	0x02	/* a read response: responder's PSN space */
#define FT_PKT_ACK	0x04	/* an ACK opcode: an ACK or a NAK */
#define FT_PKT_CNP	0x08
#define FT_PKT_IPV6	0x10
#define FT_PKT_READ	0x20	/* a READ request */
#define FT_PKT_NAK	0x40	/* an ACK opcode whose syndrome is a NAK */
#define FT_PKT_ACKREQ	0x80	/* BTH AckReq: answer at once (the PSN word's top bit) */

/* The ECN field of the IP header: 0 not ECT, 1 ECT(1), 2 ECT(0), 3 CE. */
#define FT_ECN_CE	3

/* What the accounting needs to know about one packet. */
struct ft_pkt {
	u32 qpn;	/* BTH destination QP */
	u32 psn;	/* BTH PSN */
	u32 payload;	/* payload bytes: no headers, pad or ICRC */
	u8 opcode;	/* BTH opcode */
	u8 cls;		/* enum ft_cls */
	u8 slot;	/* counter: cls, for a NAK FT_CLS_NAK + enum ft_nak */
	u8 flags;	/* FT_PKT_* */
	u8 tclass;	/* IPv4 TOS or IPv6 traffic class: DSCP << 2 | ECN */
};

/* The syndrome of a NAK (pkt->cls == FT_CLS_NAK): enum ft_nak. */
static inline unsigned int ft_pkt_nak(const struct ft_pkt *pkt)
{
	return pkt->slot - FT_CLS_NAK;
}

/* Parse failures, counted as malformed packets. */
enum ft_parse_err {
	FT_PARSE_OK,
	FT_PARSE_SHORT,		/* fewer bytes than the headers claim */
	FT_PARSE_NOT_IP,	/* not IPv4/IPv6 over UDP */
	FT_PARSE_NOT_ROCE,	/* UDP, but not to port 4791 */
	FT_PARSE_BAD_LEN,	/* lengths inconsistent with the opcode */
};

/*
 * One entry per BTH opcode: class, extended transport header bytes after
 * the BTH, and flags: the packet's FT_PKT_* (FT_PKT_REQ or FT_PKT_RESP:
 * the PSN space of the opcode) in the low byte, what the parse must do
 * above it.  Reserved or vendor opcodes are not FT_OP_VALID: "other", no
 * payload.  Four bytes an entry: one scaled index reaches every field.
 */
#define FT_OP_VALID	0x0100
#define FT_OP_AETH	0x0200	/* an AETH follows the BTH */
#define FT_OP_PLAIN	0x0400	/* valid, no AETH: nothing more to parse */

struct ft_op {
	u8 cls;
	u8 ext;
	u16 flags;
};

extern const struct ft_op ft_ops[256];

/*
 * What an ACK's AETH syndrome says: its counter slot less FT_CLS_ACK, and
 * FT_AETH_NAK for a NAK.
 */
#define FT_AETH_NAK	FT_PKT_NAK
extern const u8 ft_aeth[256];

/* The rest of the packet once the IP header, @iphl bytes, is known. */
static __always_inline enum ft_parse_err ft_parse_udp(const u8 *ip, u32 iphl,
						      u32 avail, u32 len,
						      struct ft_pkt *pkt)
{
	const struct ft_op *op;
	const u8 *udp = ip + iphl, *bth = udp + 8;
	u32 udplen, hdrs, w, a32;
	u8 a;

	if (unlikely(ft_get_be16(udp + 2) != FT_ROCE_UDP_PORT))
		return FT_PARSE_NOT_ROCE;
	udplen = ft_get_be16(udp + 4);
	if (unlikely(udplen > len - iphl))
		return FT_PARSE_SHORT;

	w = ft_get_be32(bth);			/* opcode, flags, pad, P_Key */
	pkt->opcode = w >> 24;
	pkt->qpn = ft_get_be32(bth + 4) & 0xffffff;
	a32 = ft_get_be32(bth + 8);
	pkt->psn = a32 & 0xffffff;
	op = &ft_ops[w >> 24];
	pkt->flags |= (op->flags & 0xff) | ((a32 >> 24) & FT_PKT_ACKREQ);
	pkt->cls = op->cls;
	pkt->slot = op->cls;

	hdrs = 8 + FT_BTH_LEN + op->ext + FT_ICRC_LEN + ((w >> 20) & 3);
	if (unlikely(udplen < hdrs))
		return FT_PARSE_BAD_LEN;
	pkt->payload = udplen - hdrs;
	if (likely(op->flags & FT_OP_PLAIN))
		return FT_PARSE_OK;

	if (unlikely(!(op->flags & FT_OP_VALID))) {
		/* reserved or vendor opcodes: no payload is claimed for them */
		pkt->cls = FT_CLS_OTHER;
		pkt->slot = FT_CLS_OTHER;
		pkt->payload = 0;
	}
	if (op->flags & FT_OP_AETH) {
		if (unlikely(avail < iphl + 8 + FT_BTH_LEN + 1))
			return FT_PARSE_SHORT;
		if (op->flags & FT_PKT_ACK) {
			/* FT_CLS_NAK follows FT_CLS_ACK */
			a = ft_aeth[bth[FT_BTH_LEN]];
			pkt->cls = FT_CLS_ACK + (a >> 6);
			pkt->slot = FT_CLS_ACK + (a & (FT_AETH_NAK - 1));
			pkt->flags |= a & FT_AETH_NAK;
		}
	}
	return FT_PARSE_OK;
}

/*
 * The IP header, the slow path: IPv6, or IPv4 with options.  rxe sends
 * IPv4 without options, which ft_parse() handles first.
 */
static __always_inline enum ft_parse_err ft_parse_ip(const u8 *ip, u32 avail,
						     u32 len,
						     struct ft_pkt *pkt)
{
	u32 iphl;

	if (unlikely(!avail))
		return FT_PARSE_SHORT;
	switch (ip[0] >> 4) {
	case 4:
		iphl = (ip[0] & 0xf) * 4;
		if (unlikely(iphl < 20 || avail < iphl + 8 + FT_BTH_LEN))
			return FT_PARSE_SHORT;
		if (unlikely(ip[9] != 17))
			return FT_PARSE_NOT_IP;
		pkt->tclass = ip[1];
		pkt->flags = 0;
		return ft_parse_udp(ip, iphl, avail, len, pkt);
	case 6:
		if (unlikely(avail < 40 + 8 + FT_BTH_LEN))
			return FT_PARSE_SHORT;
		if (unlikely(ip[6] != 17))
			return FT_PARSE_NOT_IP;
		pkt->tclass = (ip[0] & 0xf) << 4 | ip[1] >> 4;
		pkt->flags = FT_PKT_IPV6;
		return ft_parse_udp(ip, 40, avail, len, pkt);
	default:
		return FT_PARSE_NOT_IP;
	}
}

/* The common case, IPv4 without options over UDP: a constant header length. */
static __always_inline bool ft_ip_plain(const u8 *ip, u32 avail)
{
	return avail >= 20 + 8 + FT_BTH_LEN && ip[0] == 0x45 && ip[9] == 17;
}

/**
 * ft_parse() - parse a RoCEv2 packet from its IP header on
 * @ip: the IPv4 or IPv6 header
 * @avail: bytes readable at @ip, at most @len; FT_HDR_MAX (or the whole
 *	packet) suffices
 * @len: length of the packet from the IP header to its end
 * @pkt: filled in on success
 *
 * Return: FT_PARSE_OK, or why the packet is not a well-formed RoCEv2 packet.
 */
static __always_inline enum ft_parse_err ft_parse(const u8 *ip, u32 avail,
						  u32 len, struct ft_pkt *pkt)
{
	if (unlikely(avail > len))
		return FT_PARSE_SHORT;
	if (likely(ft_ip_plain(ip, avail))) {
		pkt->tclass = ip[1];
		pkt->flags = 0;
		return ft_parse_udp(ip, 20, avail, len, pkt);
	}
	return ft_parse_ip(ip, avail, len, pkt);
}

/*
 * Whether a packet leaving with IP DS field @ds (DSCP and ECN) is to be
 * marked ECT(0): it is Not-ECT and its DSCP is in @ect, bit d for DSCP d,
 * the DSCPs whose priority the policy makes ECN-capable.  A packet the
 * application marked already (ECT or CE) is left as it is.
 */
static __always_inline bool ft_ect_wanted(u8 ds, u64 ect)
{
	return !(ds & 3) && ((ect >> (ds >> 2)) & 1);
}

/*
 * Mark the packet whose IP header (IPv4 or IPv6) is @ip, @len bytes of it
 * at hand, ECT(0) if ft_ect_wanted() says so.  Only the ECN bits change,
 * from 00 to 10; an IPv4 header checksum is left to whoever sends it.
 */
static inline void ft_mark_ect(u8 *ip, u32 len, u64 ect)
{
	if (len >= 20 && ip[0] >> 4 == 4) {
		if (ft_ect_wanted(ip[1], ect))
			ip[1] |= 2;
	} else if (len >= 40 && ip[0] >> 4 == 6) {
		/* the traffic class straddles bytes 0 and 1 */
		if (ft_ect_wanted((u8)(ip[0] << 4 | ip[1] >> 4), ect))
			ip[1] |= 2 << 4;
	}
}

/*
 * A CNP over IPv4, as fabtrace sends them: IPv4 (no options), UDP, BTH,
 * 16 reserved bytes, ICRC.
 */
#define FT_CNP_LEN		(20 + 8 + FT_BTH_LEN + 16 + FT_ICRC_LEN)

u32 ft_icrc(const u8 *ip, u32 len);
u32 ft_cnp_build(u8 *cnp, const u8 *ip, u32 avail, u32 dqpn, u8 dscp);

/*
 * Why rxe dropped a packet it received, in the order its receive path
 * checks (a device's rx-drops; the UAPI numbers them alike).
 */
enum ft_drop {
	FT_DROP_MALFORMED,	/* rxe cannot parse it: lengths, opcode, version */
	FT_DROP_UNKNOWN_QP,	/* no QP of that number */
	FT_DROP_QP_STATE,	/* the QP's type or state takes no such packet */
	FT_DROP_ADDRESS,	/* not from the connected QP's peer */
	FT_DROP_KEY,		/* P_Key, or the GSI's Q_Key */
	FT_DROP_ICRC,
	FT_DROP_MCAST,		/* to the multicast QP, with no group to take it */
	FT_DROP_OTHER,		/* rxe's reason, none of the above */
	FT_DROP_MAX
};

/* What the classifier knows of the QP a dropped packet names. */
struct ft_drop_qp {
	u8 found;		/* 0: no QP has that number */
	u8 type;		/* enum ib_qp_type */
	u8 state;		/* enum ib_qp_state */
	u8 err_refuses;		/* rxe refuses a QP in error everything (6.1) */
	const u8 *peer;		/* 16 bytes; IPv4 ones v4-mapped */
};

enum ft_drop ft_drop_reason(const u8 *ip, u32 avail, u32 len,
			    const struct ft_pkt *pkt, const struct ft_drop_qp *qp);
bool ft_rxe_takes(const u8 *ip, u32 avail, u32 len, const struct ft_pkt *pkt,
		  const struct ft_drop_qp *qp);

#define FT_PSN_MASK	0x00ffffffu
/* The PSN trackers keep a 24-bit PSN; this bit says one is known. */
#define FT_PSN_VALID	0x80000000u

/* 24-bit PSN arithmetic: signed distance from b to a, in [-2^23, 2^23). */
static inline s32 ft_psn_diff(u32 a, u32 b)
{
	return (s32)((a - b) << 8) >> 8;
}

static inline u32 ft_psn_add(u32 psn, u32 n)
{
	return (psn + n) & 0xffffff;
}

#endif /* _FABTRACE_ROCE_H */
