// SPDX-License-Identifier: GPL-2.0
/* RoCEv2 header parsing (pure C, kernel and userspace). */

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
