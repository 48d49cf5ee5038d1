// SPDX-License-Identifier: GPL-2.0
/* RoCEv2 header parsing (pure C, kernel and userspace). */

#include "roce.h"

/* ft_op.flags: which PSN space the opcode's PSN belongs to, AETH present */
#define OP_REQ		FT_PKT_REQ
#define OP_RESP		FT_PKT_RESP
#define OP_AETH		0x80
#define OP_VALID	0x40

/*
 * One entry per BTH opcode: class, extended transport header bytes after
 * the BTH, flags.  Opcodes the table leaves zero are reserved or
 * manufacturer specific; they count as "other" with no payload.
 */
struct ft_op {
	u8 cls;
	u8 ext;
	u8 flags;
};

#define RC(op, c, e, f) [0x00 | (op)] = { (c), (e), (f) | OP_VALID }
#define UC(op, c, e, f) [0x20 | (op)] = { (c), (e), (f) | OP_VALID }
#define UD(op, c, e, f) [0x60 | (op)] = { (c), (e) + 8, (f) | OP_VALID }
/* XRC requests carry an XRCETH (4 bytes); XRC responses do not. */
#define XQ(op, c, e, f) [0xa0 | (op)] = { (c), (e) + 4, (f) | OP_VALID }
#define XR(op, c, e, f) [0xa0 | (op)] = { (c), (e), (f) | OP_VALID }

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

#define REQUESTS(T)							\
	T(SEND_FIRST, FT_CLS_SEND, 0, OP_REQ),				\
	T(SEND_MIDDLE, FT_CLS_SEND, 0, OP_REQ),				\
	T(SEND_LAST, FT_CLS_SEND, 0, OP_REQ),				\
	T(SEND_LAST_IMM, FT_CLS_SEND, IMMDT, OP_REQ),			\
	T(SEND_ONLY, FT_CLS_SEND, 0, OP_REQ),				\
	T(SEND_ONLY_IMM, FT_CLS_SEND, IMMDT, OP_REQ),			\
	T(WRITE_FIRST, FT_CLS_WRITE, RETH, OP_REQ),			\
	T(WRITE_MIDDLE, FT_CLS_WRITE, 0, OP_REQ),			\
	T(WRITE_LAST, FT_CLS_WRITE, 0, OP_REQ),				\
	T(WRITE_LAST_IMM, FT_CLS_WRITE, IMMDT, OP_REQ),			\
	T(WRITE_ONLY, FT_CLS_WRITE, RETH, OP_REQ),			\
	T(WRITE_ONLY_IMM, FT_CLS_WRITE, RETH + IMMDT, OP_REQ)

#define RELIABLE(T)							\
	T(READ_REQ, FT_CLS_READ_REQ, RETH, OP_REQ),			\
	T(CMP_SWAP, FT_CLS_ATOMIC, ATMETH, OP_REQ),			\
	T(FETCH_ADD, FT_CLS_ATOMIC, ATMETH, OP_REQ),			\
	T(SEND_LAST_INV, FT_CLS_SEND, IETH, OP_REQ),			\
	T(SEND_ONLY_INV, FT_CLS_SEND, IETH, OP_REQ),			\
	T(FLUSH, FT_CLS_OTHER, FETH + RETH, OP_REQ),			\
	T(ATOMIC_WRITE, FT_CLS_ATOMIC, RETH, OP_REQ)

#define RESPONSES(T)							\
	T(READ_RESP_FIRST, FT_CLS_READ_RESP, AETH, OP_RESP | OP_AETH),	\
	T(READ_RESP_MIDDLE, FT_CLS_READ_RESP, 0, OP_RESP),		\
	T(READ_RESP_LAST, FT_CLS_READ_RESP, AETH, OP_RESP | OP_AETH),	\
	T(READ_RESP_ONLY, FT_CLS_READ_RESP, AETH, OP_RESP | OP_AETH),	\
	T(ACK, FT_CLS_ACK, AETH, OP_AETH),				\
	T(ATOMIC_ACK, FT_CLS_ATOMIC, AETH + ATMACK, OP_RESP | OP_AETH)

static const struct ft_op ft_ops[256] = {
	REQUESTS(RC), RELIABLE(RC), RESPONSES(RC),
	REQUESTS(UC),
	UD(SEND_ONLY, FT_CLS_SEND, 0, OP_REQ),
	UD(SEND_ONLY_IMM, FT_CLS_SEND, IMMDT, OP_REQ),
	REQUESTS(XQ), RELIABLE(XQ), RESPONSES(XR),
	/* A CNP carries 16 reserved bytes and no payload. */
	[FT_OPCODE_CNP] = { FT_CLS_CNP, 16, OP_VALID },
};

static const u8 ft_nak_code[32] = {
	[0] = FT_NAK_PSN_SEQ,
	[1] = FT_NAK_INV_REQ,
	[2] = FT_NAK_REM_ACCESS,
	[3] = FT_NAK_REM_OP,
	[4 ... 31] = FT_NAK_OTHER,
};

static inline u32 get_be16(const u8 *p)
{
	return (u32)p[0] << 8 | p[1];
}

static inline u32 get_be24(const u8 *p)
{
	return (u32)p[0] << 16 | (u32)p[1] << 8 | p[2];
}

/**
 * ft_parse() - parse a RoCEv2 packet from its IP header on
 * @ip: the IPv4 or IPv6 header
 * @avail: bytes readable at @ip; FT_HDR_MAX (or the whole packet) suffices
 * @len: length of the packet from the IP header to its end
 * @pkt: filled in on success
 *
 * Return: FT_PARSE_OK, or why the packet is not a well-formed RoCEv2 packet.
 */
enum ft_parse_err ft_parse(const u8 *ip, u32 avail, u32 len,
			   struct ft_pkt *pkt)
{
	const struct ft_op *op;
	const u8 *udp, *bth;
	u32 iphl, udplen, hdrs, pad;
	u8 ecn, syn;

	if (unlikely(avail < 1 || avail > len))
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
		break;
	case 6:
		iphl = 40;
		if (unlikely(avail < iphl + 8 + FT_BTH_LEN))
			return FT_PARSE_SHORT;
		if (unlikely(ip[6] != 17))
			return FT_PARSE_NOT_IP;
		pkt->tclass = (ip[0] & 0xf) << 4 | ip[1] >> 4;
		pkt->flags = FT_PKT_IPV6;
		break;
	default:
		return FT_PARSE_NOT_IP;
	}

	udp = ip + iphl;
	if (unlikely(get_be16(udp + 2) != FT_ROCE_UDP_PORT))
		return FT_PARSE_NOT_ROCE;
	udplen = get_be16(udp + 4);
	if (unlikely(udplen > len - iphl))
		return FT_PARSE_SHORT;

	bth = udp + 8;
	pkt->opcode = bth[0];
	pkt->qpn = get_be24(bth + 5);
	pkt->psn = get_be24(bth + 9);
	op = &ft_ops[bth[0]];
	pkt->flags |= op->flags & (FT_PKT_REQ | FT_PKT_RESP);
	pkt->cls = (op->flags & OP_VALID) ? op->cls : FT_CLS_OTHER;
	pkt->nak = 0;

	pad = (bth[1] >> 4) & 3;
	hdrs = 8 + FT_BTH_LEN + op->ext + FT_ICRC_LEN;
	if (unlikely(udplen < hdrs + pad))
		return FT_PARSE_BAD_LEN;
	pkt->payload = (op->flags & OP_VALID) ? udplen - hdrs - pad : 0;

	if (op->flags & OP_AETH) {
		if (unlikely(avail < iphl + 8 + FT_BTH_LEN + 1))
			return FT_PARSE_SHORT;
		syn = bth[FT_BTH_LEN];
		switch (syn >> 5) {
		case 0:		/* ACK */
			break;
		case 1:		/* RNR NAK */
			if (pkt->cls == FT_CLS_ACK) {
				pkt->cls = FT_CLS_NAK;
				pkt->nak = FT_NAK_RNR;
			}
			break;
		case 3:		/* NAK */
			if (pkt->cls == FT_CLS_ACK) {
				pkt->cls = FT_CLS_NAK;
				pkt->nak = ft_nak_code[syn & 0x1f];
			}
			break;
		default:	/* reserved syndrome: not an ACK we know */
			if (pkt->cls == FT_CLS_ACK) {
				pkt->cls = FT_CLS_NAK;
				pkt->nak = FT_NAK_OTHER;
			}
			break;
		}
	}

	ecn = pkt->tclass & 3;
	if (ecn)
		pkt->flags |= FT_PKT_ECT;
	if (ecn == 3)
		pkt->flags |= FT_PKT_CE;
	return FT_PARSE_OK;
}

const char *ft_cls_name(unsigned int cls)
{
	static const char * const names[FT_CLS_MAX] = {
		"send", "write", "read-req", "read-resp", "atomic",
		"ack", "nak", "cnp", "other",
	};

	return cls < FT_CLS_MAX ? names[cls] : "?";
}
