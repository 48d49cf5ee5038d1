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

/* Opcode classes, as the counter contract names them. */
enum ft_cls {
	FT_CLS_SEND,
	FT_CLS_WRITE,
	FT_CLS_READ_REQ,
	FT_CLS_READ_RESP,
	FT_CLS_ATOMIC,
	FT_CLS_ACK,
	FT_CLS_NAK,
	FT_CLS_CNP,
	FT_CLS_OTHER,
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

/* ft_pkt.flags */
#define FT_PKT_REQ	0x01	/* a request: its PSN is the requester's */
#define FT_PKT_RESP	0x02	/* a read response: responder's PSN space */
#define FT_PKT_ECT	0x04	/* IP ECN field is ECT(0), ECT(1) or CE */
#define FT_PKT_CE	0x08	/* IP ECN field is CE */
#define FT_PKT_IPV6	0x10

/* What the accounting needs to know about one packet. */
struct ft_pkt {
	u32 qpn;	/* BTH destination QP */
	u32 psn;	/* BTH PSN */
	u32 payload;	/* payload bytes: no headers, pad or ICRC */
	u8 opcode;	/* BTH opcode */
	u8 cls;		/* enum ft_cls */
	u8 nak;		/* enum ft_nak, when cls is FT_CLS_NAK */
	u8 flags;	/* FT_PKT_* */
	u8 tclass;	/* IPv4 TOS or IPv6 traffic class, ECN included */
};

/* Parse failures, counted as malformed packets. */
enum ft_parse_err {
	FT_PARSE_OK,
	FT_PARSE_SHORT,		/* fewer bytes than the headers claim */
	FT_PARSE_NOT_IP,	/* not IPv4/IPv6 over UDP */
	FT_PARSE_NOT_ROCE,	/* UDP, but not to port 4791 */
	FT_PARSE_BAD_LEN,	/* lengths inconsistent with the opcode */
};

enum ft_parse_err ft_parse(const u8 *ip, u32 avail, u32 len,
			   struct ft_pkt *pkt);

/* 24-bit PSN arithmetic: signed distance from b to a, in [-2^23, 2^23). */
static inline s32 ft_psn_diff(u32 a, u32 b)
{
	return (s32)((a - b) << 8) >> 8;
}

static inline u32 ft_psn_add(u32 psn, u32 n)
{
	return (psn + n) & 0xffffff;
}

const char *ft_cls_name(unsigned int cls);

#endif /* _FABTRACE_ROCE_H */
