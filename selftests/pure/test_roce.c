// SPDX-License-Identifier: GPL-2.0
/* Host unit tests of the module's pure code: RoCEv2 parsing, PSNs, accounting. */

#include <stdlib.h>

#include "kselftest_harness.h"

#include "../../kmod/acct.h"
#include "../../kmod/roce.h"
#include "../../kmod/rtt.h"
#include "../../kmod/table.h"
#include "pkt.h"
#include "../progs/icrc.h"

static enum ft_parse_err parse(const struct tpkt *t, struct ft_pkt *p)
{
	static uint8_t buf[9000];
	unsigned int len = tpkt_build(buf, t);

	return ft_parse(buf, len < FT_HDR_MAX ? len : FT_HDR_MAX, len, p);
}

/*
 * The CNP answering a CE-marked WRITE: back to its sender, fields as
 * RoCEv2 has them, a good IPv4 checksum, and an ICRC that the test
 * programs' own implementation (selftests/progs/icrc.c, written apart from
 * this one) computes too.  crc32_le() itself against CRC-32's check value.
 */
TEST(cnp_build)
{
	struct tpkt t = { .opcode = 0x0a, .qpn = 0x11, .psn = 5, .payload = 64,
			  .tos = 26 << 2 | 3 };
	uint8_t in[256], cnp[FT_CNP_LEN];
	const char *err;
	uint32_t sum = 0, icrc, i;
	struct ft_pkt p;
	unsigned int len;

	EXPECT_EQ(0xcbf43926, ~crc32_le(0xffffffff, (const u8 *)"123456789", 9));
	len = tpkt_build(in, &t);
	memcpy(in + 12, "\x0a\x63\x00\x02", 4);	/* from 10.99.0.2 */
	memcpy(in + 16, "\x0a\x63\x00\x01", 4);	/* to 10.99.0.1 */
	in[20] = 0xc1;
	in[21] = 0x23;
	in[30] = 0x7f;				/* P_Key 0x7fff */
	ASSERT_EQ(FT_CNP_LEN, ft_cnp_build(cnp, in, len, 0xabcdef, 48));
	EXPECT_EQ(60, FT_CNP_LEN);
	EXPECT_EQ(0x45, cnp[0]);
	EXPECT_EQ(48 << 2, cnp[1]);			/* DSCP 48, Not-ECT */
	EXPECT_EQ(0, memcmp(cnp + 12, in + 16, 4));	/* from the receiver */
	EXPECT_EQ(0, memcmp(cnp + 16, in + 12, 4));	/* to the sender */
	for (i = 0; i < 20; i += 2)
		sum += cnp[i] << 8 | cnp[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	EXPECT_EQ(0xffff, sum);
	EXPECT_EQ(0xc1, cnp[20]);
	EXPECT_EQ(0x23, cnp[21]);
	EXPECT_EQ(4791, cnp[22] << 8 | cnp[23]);
	EXPECT_EQ(40, cnp[24] << 8 | cnp[25]);
	EXPECT_EQ(0, cnp[26] | cnp[27]);		/* UDP checksum 0 */

	/* fabtrace's own parser reads it as a CNP to that QP */
	ASSERT_EQ(FT_PARSE_OK, ft_parse(cnp, FT_CNP_LEN, FT_CNP_LEN, &p));
	EXPECT_EQ(FT_CLS_CNP, p.cls);
	EXPECT_EQ(0xabcdef, p.qpn);
	EXPECT_EQ(0, p.payload);
	EXPECT_EQ(0x7fff, cnp[30] << 8 | cnp[31]);
	EXPECT_EQ(0x40, cnp[32]);			/* BECN */

	icrc = ft_roce_icrc(cnp, FT_CNP_LEN - 4, &err);
	ASSERT_EQ(NULL, err);
	EXPECT_EQ(icrc, (uint32_t)(cnp[56] | cnp[57] << 8 | cnp[58] << 16 |
				   (uint32_t)cnp[59] << 24));
	EXPECT_EQ(icrc, ft_icrc(cnp, FT_CNP_LEN - 4));

	/* not IPv4 RoCE: no CNP */
	t.ipv6 = 1;
	len = tpkt_build(in, &t);
	EXPECT_EQ(0, ft_cnp_build(cnp, in, len, 1, 48));
	EXPECT_EQ(0, ft_cnp_build(cnp, in, 39, 1, 48));
}

TEST(rc_opcodes_classes_and_payload)
{
	static const struct {
		uint8_t op, cls, flags;
	} want[] = {
		{ 0x00, FT_CLS_SEND, FT_PKT_REQ }, { 0x04, FT_CLS_SEND, FT_PKT_REQ },
		{ 0x05, FT_CLS_SEND, FT_PKT_REQ }, { 0x17, FT_CLS_SEND, FT_PKT_REQ },
		{ 0x06, FT_CLS_WRITE, FT_PKT_REQ }, { 0x0b, FT_CLS_WRITE, FT_PKT_REQ },
		{ 0x0c, FT_CLS_READ_REQ, FT_PKT_REQ },
		{ 0x0d, FT_CLS_READ_RESP, FT_PKT_RESP },
		{ 0x0e, FT_CLS_READ_RESP, FT_PKT_RESP },
		{ 0x10, FT_CLS_READ_RESP, FT_PKT_RESP },
		{ 0x11, FT_CLS_ACK, 0 }, { 0x12, FT_CLS_ATOMIC, FT_PKT_RESP },
		{ 0x13, FT_CLS_ATOMIC, FT_PKT_REQ }, { 0x14, FT_CLS_ATOMIC, FT_PKT_REQ },
		{ 0x1c, FT_CLS_OTHER, FT_PKT_REQ }, { 0x1d, FT_CLS_ATOMIC, FT_PKT_REQ },
		{ 0x24, FT_CLS_SEND, FT_PKT_REQ }, { 0x2a, FT_CLS_WRITE, FT_PKT_REQ },
		{ 0x64, FT_CLS_SEND, FT_PKT_REQ }, { 0x65, FT_CLS_SEND, FT_PKT_REQ },
		{ 0xa4, FT_CLS_SEND, FT_PKT_REQ }, { 0xb1, FT_CLS_ACK, 0 },
		{ 0x81, FT_CLS_CNP, 0 },
		{ 0x15, FT_CLS_OTHER, 0 }, { 0x4c, FT_CLS_OTHER, 0 },
		{ 0xff, FT_CLS_OTHER, 0 },
	};
	struct ft_pkt p;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(want); i++) {
		struct tpkt t = { .opcode = want[i].op, .qpn = 0x123456,
				  .psn = 0xabcdef, .payload = 1000 + i, .pad = i % 4 };
		int valid = want[i].op != 0x15 && want[i].op != 0x4c &&
			    want[i].op != 0xff;

		ASSERT_EQ(FT_PARSE_OK, parse(&t, &p)) TH_LOG("opcode %#x", want[i].op);
		EXPECT_EQ(want[i].cls, p.cls) TH_LOG("opcode %#x", want[i].op);
		EXPECT_EQ(want[i].flags, p.flags & (FT_PKT_REQ | FT_PKT_RESP));
		EXPECT_EQ(0x123456, p.qpn);
		EXPECT_EQ(0xabcdef, p.psn);
		EXPECT_EQ(want[i].op, p.opcode);
		/* unknown opcodes: no payload is claimed for them */
		EXPECT_EQ(valid ? 1000 + i : 0, p.payload) TH_LOG("opcode %#x", want[i].op);
	}
}

TEST(aeth_syndromes)
{
	static const struct {
		uint8_t syn, cls, nak;
	} want[] = {
		{ 0x00, FT_CLS_ACK, 0 }, { 0x1f, FT_CLS_ACK, 0 },
		{ 0x20, FT_CLS_NAK, FT_NAK_RNR }, { 0x3f, FT_CLS_NAK, FT_NAK_RNR },
		{ 0x60, FT_CLS_NAK, FT_NAK_PSN_SEQ },
		{ 0x61, FT_CLS_NAK, FT_NAK_INV_REQ },
		{ 0x62, FT_CLS_NAK, FT_NAK_REM_ACCESS },
		{ 0x63, FT_CLS_NAK, FT_NAK_REM_OP },
		{ 0x64, FT_CLS_NAK, FT_NAK_OTHER },
		{ 0x40, FT_CLS_NAK, FT_NAK_OTHER },
	};
	struct ft_pkt p;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(want); i++) {
		struct tpkt t = { .opcode = 0x11, .syndrome = want[i].syn };

		ASSERT_EQ(FT_PARSE_OK, parse(&t, &p));
		EXPECT_EQ(want[i].cls, p.cls) TH_LOG("syndrome %#x", want[i].syn);
		if (want[i].cls == FT_CLS_NAK)
			EXPECT_EQ(want[i].nak, ft_pkt_nak(&p)) TH_LOG("syndrome %#x", want[i].syn);
		EXPECT_EQ(0, p.payload);
	}
	/* a read response's AETH never makes it a NAK */
	{
		struct tpkt t = { .opcode = 0x10, .syndrome = 0x60, .payload = 64 };

		ASSERT_EQ(FT_PARSE_OK, parse(&t, &p));
		EXPECT_EQ(FT_CLS_READ_RESP, p.cls);
	}
}

static struct ft_qp *new_qp(void);

struct ft_leaf ft_leaf_none;		/* the module's is in qp.c */

TEST(ecn_ipv4_ipv6)
{
	struct ft_pkt p;
	int v6, ecn;

	for (v6 = 0; v6 < 2; v6++) {
		for (ecn = 0; ecn < 4; ecn++) {
			struct tpkt t = { .opcode = 0x0a, .payload = 64,
					  .tos = 26 << 2 | ecn, .ipv6 = v6 };

			ASSERT_EQ(FT_PARSE_OK, parse(&t, &p));
			struct ft_qp *qp = new_qp();

			EXPECT_EQ(26 << 2 | ecn, p.tclass);
			EXPECT_EQ(v6, !!(p.flags & FT_PKT_IPV6));
			EXPECT_EQ(ecn == 3 ? FT_EV_CE : 0, ft_acct_rx(qp, &p));
			EXPECT_EQ(!!ecn, atomic64_read(&qp->cong.rx_ect));
			EXPECT_EQ(ecn == 3, atomic64_read(&qp->cong.rx_ce));
			free(qp);
		}
	}
}

TEST(malformed)
{
	uint8_t buf[256];
	struct tpkt t = { .opcode = 0x0a, .payload = 32 };
	struct ft_pkt p;
	unsigned int len = tpkt_build(buf, &t), i;

	/* every truncation of the headers is caught */
	for (i = 0; i < 20 + 8 + 12; i++)
		EXPECT_EQ(FT_PARSE_SHORT, ft_parse(buf, i, i, &p)) TH_LOG("len %u", i);
	/* the UDP length may not run past the packet */
	EXPECT_EQ(FT_PARSE_SHORT, ft_parse(buf, len - 1, len - 1, &p));
	buf[9] = 6;			/* TCP */
	EXPECT_EQ(FT_PARSE_NOT_IP, ft_parse(buf, len, len, &p));
	buf[9] = 17;
	buf[0] = 0x55;			/* IP version 5 */
	EXPECT_EQ(FT_PARSE_NOT_IP, ft_parse(buf, len, len, &p));
	buf[0] = 0x44;			/* IHL below 5 */
	EXPECT_EQ(FT_PARSE_SHORT, ft_parse(buf, len, len, &p));
	buf[0] = 0x45;
	buf[23] = 0x99;			/* UDP port 4761 */
	EXPECT_EQ(FT_PARSE_NOT_ROCE, ft_parse(buf, len, len, &p));
	buf[23] = 4791 & 0xff;
	/* a UDP length too small for the opcode's headers */
	buf[24] = 0;
	buf[25] = 8 + 12 + 16 + 4 - 1;
	EXPECT_EQ(FT_PARSE_BAD_LEN, ft_parse(buf, len, len, &p));
	buf[25] = 8 + 12 + 16 + 4;
	EXPECT_EQ(FT_PARSE_OK, ft_parse(buf, len, len, &p));
	EXPECT_EQ(0, p.payload);
	/* more bytes available than the packet has is a caller bug */
	EXPECT_EQ(FT_PARSE_SHORT, ft_parse(buf, len + 1, len, &p));
}

TEST(psn_arithmetic)
{
	EXPECT_EQ(1, ft_psn_diff(0, 0xffffff));
	EXPECT_EQ(-1, ft_psn_diff(0xffffff, 0));
	EXPECT_EQ(0, ft_psn_diff(0x123456, 0x123456));
	EXPECT_EQ(0x7fffff, ft_psn_diff(0x7fffff, 0));
	EXPECT_EQ(-0x800000, ft_psn_diff(0x800000, 0));
	EXPECT_EQ(0, ft_psn_add(0xffffff, 1));
	EXPECT_EQ(0xfffffe, ft_psn_add(0xffffff, 0xffffff));
	/* only the low 24 bits of a PSN count */
	EXPECT_EQ(1, ft_psn_diff(0x1000000, 0xffffff));
}

static struct ft_qp *new_qp(void)
{
	struct ft_qp *qp = calloc(1, sizeof(*qp));

	qp->type = 2;	/* RC */
	qp->flags = FT_QP_PSN;
	return qp;
}

static unsigned int tx(struct ft_qp *qp, uint8_t op, uint32_t psn,
		       uint8_t syn, uint32_t payload)
{
	struct tpkt t = { .opcode = op, .psn = psn, .syndrome = syn,
			  .payload = payload };
	struct ft_pkt p;

	if (parse(&t, &p) != FT_PARSE_OK)
		abort();
	return ft_acct_tx(qp, &p);
}

static unsigned int rx(struct ft_qp *qp, uint8_t op, uint32_t psn,
		       uint8_t syn, uint8_t tos)
{
	struct tpkt t = { .opcode = op, .psn = psn, .syndrome = syn, .tos = tos };
	struct ft_pkt p;

	if (parse(&t, &p) != FT_PARSE_OK)
		abort();
	return ft_acct_rx(qp, &p);
}

/* NAKs of one direction and syndrome, as replies report them */
static u64 naks(const struct ft_qp *qp, unsigned int dir, unsigned int nak)
{
	struct ft_snap s;

	ft_snap_take(qp, &s);
	return s.nak[dir][nak];
}

TEST(a_nak_counts_once_in_its_syndrome_and_class)
{
	static const struct {
		uint8_t syn, nak;
	} naks_sent[] = {
		{ 0x60, FT_NAK_PSN_SEQ }, { 0x21, FT_NAK_RNR },
		{ 0x60, FT_NAK_PSN_SEQ }, { 0x63, FT_NAK_REM_OP },
		{ 0x7f, FT_NAK_OTHER },
	};
	struct ft_qp *qp = new_qp();
	struct ft_snap s;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(naks_sent); i++)
		EXPECT_EQ(FT_EV_NAK, tx(qp, 0x11, 7, naks_sent[i].syn, 0));
	EXPECT_EQ(0, tx(qp, 0x11, 8, 0x00, 0));		/* an ACK */
	EXPECT_EQ(0, tx(qp, 0x0a, 9, 0, 100));
	ft_snap_take(qp, &s);
	EXPECT_EQ(ARRAY_SIZE(naks_sent), s.cls[FT_TX][FT_CLS_NAK]);
	EXPECT_EQ(1, s.cls[FT_TX][FT_CLS_ACK]);
	EXPECT_EQ(1, s.cls[FT_TX][FT_CLS_WRITE]);
	EXPECT_EQ(2, s.nak[FT_TX][FT_NAK_PSN_SEQ]);
	EXPECT_EQ(1, s.nak[FT_TX][FT_NAK_RNR]);
	EXPECT_EQ(0, s.nak[FT_TX][FT_NAK_REM_ACCESS]);
	EXPECT_EQ(0, s.nak[FT_TX][FT_NAK_INV_REQ]);
	EXPECT_EQ(1, s.nak[FT_TX][FT_NAK_REM_OP]);
	EXPECT_EQ(1, s.nak[FT_TX][FT_NAK_OTHER]);
	EXPECT_EQ(7, ft_snap_packets(&s, FT_TX));
	EXPECT_EQ(7, ft_dir_packets(&qp->dir_tx));
	EXPECT_EQ(0, ft_snap_packets(&s, FT_RX));
	free(qp);
}

TEST(retransmits_across_the_psn_wrap)
{
	struct ft_qp *qp = new_qp();
	uint32_t psns[] = { 0xfffffe, 0xffffff, 0, 1 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(psns); i++)
		EXPECT_EQ(0, tx(qp, 0x0a, psns[i], 0, 100));
	EXPECT_EQ(FT_EV_RETRANS, tx(qp, 0x0a, 0xffffff, 0, 100));
	EXPECT_EQ(FT_EV_RETRANS, tx(qp, 0x0a, 1, 0, 100));
	EXPECT_EQ(0, tx(qp, 0x0a, 2, 0, 100));
	EXPECT_EQ(2, atomic64_read(&qp->cong.retrans));
	EXPECT_EQ(7, atomic64_read(&qp->dir_tx.pkts[FT_CLS_WRITE]));
	EXPECT_EQ(700, atomic64_read(&qp->dir_tx.bytes));
	/* ACKs repeat PSNs by design and are no retransmissions */
	EXPECT_EQ(0, tx(qp, 0x11, 1, 0, 0));
	EXPECT_EQ(0, tx(qp, 0x11, 1, 0, 0));
	/* read responses are tracked apart from requests */
	EXPECT_EQ(0, tx(qp, 0x10, 50, 0, 64));
	EXPECT_EQ(FT_EV_RETRANS, tx(qp, 0x10, 50, 0, 64));
	EXPECT_EQ(3, atomic64_read(&qp->cong.retrans));
	free(qp);
}

TEST(unreliable_qps_never_retransmit)
{
	struct ft_qp *qp = new_qp();

	qp->type = 4;	/* UD */
	qp->flags = 0;
	EXPECT_EQ(0, tx(qp, 0x64, 5, 0, 10));
	EXPECT_EQ(0, tx(qp, 0x64, 5, 0, 10));
	EXPECT_EQ(0, atomic64_read(&qp->cong.retrans));
	free(qp);
}

TEST(duplicates_out_of_sequence_and_nak_resync)
{
	struct ft_qp *qp = new_qp();

	rx(qp, 0x0a, 5, 0, 0);			/* first: accepted, expect 6 */
	rx(qp, 0x0a, 6, 0, 0);
	rx(qp, 0x0a, 8, 0, 0);			/* 7 lost: out of sequence */
	EXPECT_EQ(1, atomic64_read(&qp->cong.rx_oos));
	rx(qp, 0x0a, 6, 0, 0);			/* duplicate */
	EXPECT_EQ(1, atomic64_read(&qp->cong.rx_dup));
	/* the responder NAKs naming 7: that is the next in-order PSN */
	EXPECT_EQ(FT_EV_NAK, tx(qp, 0x11, 7, 0x60, 0));
	EXPECT_EQ(1, naks(qp, FT_TX, FT_NAK_PSN_SEQ));
	rx(qp, 0x0a, 7, 0, 0);
	rx(qp, 0x0a, 8, 0, 0);
	EXPECT_EQ(1, atomic64_read(&qp->cong.rx_oos));
	EXPECT_EQ(1, atomic64_read(&qp->cong.rx_dup));
	/* an RNR NAK names the request that will come again */
	EXPECT_EQ(FT_EV_NAK, tx(qp, 0x11, 8, 0x21, 0));
	rx(qp, 0x0a, 8, 0, 0);
	EXPECT_EQ(1, atomic64_read(&qp->cong.rx_dup));
	EXPECT_EQ(1, naks(qp, FT_TX, FT_NAK_RNR));
	/* after a read request any later PSN is in order once */
	rx(qp, 0x0c, 9, 0, 0);
	rx(qp, 0x0a, 14, 0, 0);
	rx(qp, 0x0a, 16, 0, 0);
	EXPECT_EQ(2, atomic64_read(&qp->cong.rx_oos));
	free(qp);
}

TEST(congestion_signals_received)
{
	struct ft_qp *qp = new_qp();

	EXPECT_EQ(0, rx(qp, 0x0a, 1, 0, 2));		/* ECT(0) */
	EXPECT_EQ(FT_EV_CE, rx(qp, 0x0a, 2, 0, 3));	/* CE */
	EXPECT_EQ(FT_EV_CNP, rx(qp, 0x81, 0, 0, 0));
	EXPECT_EQ(FT_EV_NAK, rx(qp, 0x11, 3, 0x62, 0));
	EXPECT_EQ(2, atomic64_read(&qp->cong.rx_ect));
	EXPECT_EQ(1, atomic64_read(&qp->cong.rx_ce));
	EXPECT_EQ(1, atomic64_read(&qp->dir_rx.pkts[FT_CLS_CNP]));
	EXPECT_EQ(1, naks(qp, FT_RX, FT_NAK_REM_ACCESS));
	EXPECT_EQ(4, ft_dir_packets(&qp->dir_rx));
	free(qp);
}

TEST(outstanding_requests)
{
	struct ft_qp *qp = new_qp();

	EXPECT_FALSE(ft_acct_outstanding(qp));
	tx(qp, 0x0a, 100, 0, 10);
	EXPECT_TRUE(ft_acct_outstanding(qp));
	rx(qp, 0x11, 99, 0, 0);
	EXPECT_TRUE(ft_acct_outstanding(qp));
	rx(qp, 0x11, 100, 0, 0);
	EXPECT_FALSE(ft_acct_outstanding(qp));
	tx(qp, 0x0a, 101, 0, 10);
	rx(qp, 0x11, 101, 0x60, 0);	/* NAK naming 101: 100 acknowledged */
	EXPECT_TRUE(ft_acct_outstanding(qp));
	free(qp);
}

TEST(qp_index_and_device_map)
{
	static struct ft_qpidx idx;
	static struct ft_leaf leaf;
	struct ft_devmap_slot slots[FT_DEVMAP_SIZE] = {};
	struct ft_devmap map = { .slots = slots };
	struct ft_qp qp = {};
	int key1, key2;

	ft_qpidx_init(&idx);
	EXPECT_EQ(NULL, ft_qpidx_find(&idx, 0x345));
	EXPECT_EQ(NULL, ft_qpidx_find(&idx, 0xffffff));
	idx.root[0x345 >> FT_LEAF_BITS] = &leaf;
	leaf.slot[0x345 & (FT_LEAF_SIZE - 1)] = &qp;
	EXPECT_EQ(&qp, ft_qpidx_find(&idx, 0x345));
	EXPECT_EQ(NULL, ft_qpidx_find(&idx, 0x346));
	/* numbers above 24 bits never reach past the root */
	EXPECT_EQ(&qp, ft_qpidx_find(&idx, 0x1000345));

	slots[ft_devmap_hash(&key1)].key = &key1;
	slots[ft_devmap_hash(&key1)].dev = (struct ft_dev *)&key1;
	EXPECT_EQ((struct ft_dev *)&key1, ft_devmap_find(&map, &key1));
	EXPECT_EQ(NULL, ft_devmap_find(&map, &key2));

	/* a gone device's slot stops no probe and matches nothing */
	slots[ft_devmap_hash(&key2)].key = FT_DEVMAP_GONE;
	slots[ft_devmap_hash(&key2)].dev = (struct ft_dev *)&key1;
	slots[(ft_devmap_hash(&key2) + 1) % FT_DEVMAP_SIZE].key = &key2;
	slots[(ft_devmap_hash(&key2) + 1) % FT_DEVMAP_SIZE].dev = (struct ft_dev *)&key2;
	EXPECT_EQ((struct ft_dev *)&key2, ft_devmap_find(&map, &key2));
}

/* Sign @buf (@len bytes from the IP header on) with the ICRC rxe expects. */
static void sign(uint8_t *buf, unsigned int len)
{
	uint32_t c = ft_icrc(buf, len - 4);

	buf[len - 4] = c;
	buf[len - 3] = c >> 8;
	buf[len - 2] = c >> 16;
	buf[len - 1] = c >> 24;
}

/*
 * Why rxe dropped a packet, as its receive path checks in order: each
 * case breaks one check of a packet that passes them all (an RC WRITE from
 * the QP's peer, default P_Key, right ICRC) and names that check alone.
 */
TEST(drop_reasons)
{
	static const uint8_t peer[16] = { [10] = 0xff, [11] = 0xff, 10, 99, 0, 2 };
	const struct ft_drop_qp rc_rts = { .found = 1, .type = 2, .state = 3, .peer = peer };
	struct tpkt t = { .opcode = 0x0a, .qpn = 0x11, .psn = 5, .payload = 64 };
	struct ft_drop_qp q = rc_rts;
	uint8_t b[256];
	struct ft_pkt p;
	unsigned int len;

#define BUILD() do {							\
		len = tpkt_build(b, &t);				\
		memcpy(b + 12, "\x0a\x63\x00\x02", 4);		\
		sign(b, len);						\
		ASSERT_EQ(FT_PARSE_OK, ft_parse(b, len, len, &p));	\
	} while (0)
#define WHY()	ft_drop_reason(b, len, len, &p, &q)

	BUILD();
	/* all checks pass: rxe dropped it for a reason fabtrace cannot see */
	EXPECT_EQ(FT_DROP_OTHER, WHY());
	EXPECT_EQ(FT_DROP_MALFORMED, ft_drop_reason(b, len, len, NULL, &q));
	b[len - 1] ^= 1;
	EXPECT_EQ(FT_DROP_ICRC, WHY());
	/* an ICRC not at hand (a paged skb) cannot be blamed on anything else */
	EXPECT_EQ(FT_DROP_OTHER, ft_drop_reason(b, len - 8, len, &p, &q));
	BUILD();
	b[20 + 8 + 2] = 0x12;			/* P_Key 0x12ff */
	sign(b, len);
	EXPECT_EQ(FT_DROP_KEY, WHY());
	b[20 + 8 + 2] = 0x7f;			/* 0x7fff: a limited member */
	sign(b, len);
	EXPECT_EQ(FT_DROP_OTHER, WHY());
	BUILD();
	b[12] = 11;				/* not from the peer */
	EXPECT_EQ(FT_DROP_ADDRESS, WHY());
	BUILD();
	q.state = 2;				/* RTR: takes requests... */
	EXPECT_EQ(FT_DROP_OTHER, WHY());
	q.state = 1;				/* INIT: takes nothing */
	EXPECT_EQ(FT_DROP_QP_STATE, WHY());
	q.state = 6;				/* ERR: 6.12's rxe takes it... */
	EXPECT_EQ(FT_DROP_OTHER, WHY());
	q.err_refuses = 1;			/* ...6.1's does not */
	EXPECT_EQ(FT_DROP_QP_STATE, WHY());
	q = rc_rts;
	q.type = 3;				/* a UC QP, an RC opcode */
	EXPECT_EQ(FT_DROP_QP_STATE, WHY());
	q = rc_rts;
	q.found = 0;
	EXPECT_EQ(FT_DROP_UNKNOWN_QP, WHY());
	q = rc_rts;
	t.opcode = 0x11;			/* an ACK: responses need RTS */
	BUILD();
	q.state = 2;
	EXPECT_EQ(FT_DROP_QP_STATE, WHY());
	q = rc_rts;
	t.opcode = 0x1e;			/* reserved RC opcode */
	t.payload = 0;
	BUILD();
	EXPECT_EQ(FT_DROP_MALFORMED, WHY());
	/* rxe looks the QP up first: an opcode it does not know, to no QP */
	q.found = 0;
	EXPECT_EQ(FT_DROP_UNKNOWN_QP, WHY());
	q = rc_rts;
	t.opcode = 0x81;			/* a CNP, to no QP of this node */
	t.payload = 16;
	BUILD();
	q.found = 0;
	EXPECT_EQ(FT_DROP_UNKNOWN_QP, WHY());
	q = rc_rts;
	t.opcode = 0x0a;
	t.payload = 64;
	t.qpn = 0xffffff;			/* multicast: no group took it */
	BUILD();
	EXPECT_EQ(FT_DROP_MCAST, WHY());
	b[len - 1] ^= 1;
	EXPECT_EQ(FT_DROP_ICRC, WHY());
#undef WHY
#undef BUILD
}

/* CNPs rxe drops as an unknown opcode: its checks would take a good one. */
TEST(cnps_rxe_would_take)
{
	static const uint8_t peer[16] = { [10] = 0xff, [11] = 0xff, 10, 99, 0, 2 };
	struct ft_drop_qp q = { .found = 1, .type = 2, .state = 3, .peer = peer };
	struct tpkt t = { .opcode = 0x81, .qpn = 0x11 };
	uint8_t b[128];
	struct ft_pkt p;
	unsigned int len = tpkt_build(b, &t);

	memcpy(b + 12, "\x0a\x63\x00\x02", 4);
	sign(b, len);
	ASSERT_EQ(FT_PARSE_OK, ft_parse(b, len, len, &p));
	EXPECT_TRUE(ft_rxe_takes(b, len, len, &p, &q));
	b[len - 2] ^= 0x40;			/* forged: bad ICRC */
	EXPECT_FALSE(ft_rxe_takes(b, len, len, &p, &q));
	sign(b, len);
	b[20 + 8 + 3] = 0xfe;			/* P_Key 0xfffe */
	sign(b, len);
	EXPECT_FALSE(ft_rxe_takes(b, len, len, &p, &q));
	b[20 + 8 + 3] = 0xff;
	b[15] = 3;				/* from 10.99.0.3, not the peer */
	sign(b, len);
	EXPECT_FALSE(ft_rxe_takes(b, len, len, &p, &q));
	b[15] = 2;
	sign(b, len);
	q.type = 4;				/* a UD QP has no peer to slow */
	EXPECT_FALSE(ft_rxe_takes(b, len, len, &p, &q));
	q.type = 2;
	q.state = 2;				/* RTR: it sends nothing yet */
	EXPECT_FALSE(ft_rxe_takes(b, len, len, &p, &q));
	q.state = 4;				/* SQD: it still does */
	EXPECT_TRUE(ft_rxe_takes(b, len, len, &p, &q));
	q.state = 3;
	q.type = 2;
	q.found = 0;
	EXPECT_FALSE(ft_rxe_takes(b, len, len, &p, &q));
}


/*
 * One packet through ft_rtt_tx() or ft_rtt_rx(): what it does to the
 * sample.  The QP has sent requests up to rtt_sent and expects rtt_expect.
 */
static u32 rtt_sent = 60 | FT_PSN_VALID, rtt_expect = 41 | FT_PSN_VALID;

static unsigned int rtt_step(struct ft_rtt *r, int dir, uint8_t op, uint32_t psn, int ackreq,
			     uint8_t syndrome, bool again, u32 *v)
{
	struct tpkt t = { .opcode = op, .qpn = 0x11, .psn = psn, .ackreq = ackreq,
			  .syndrome = syndrome };
	struct ft_pkt p;

	if (parse(&t, &p) != FT_PARSE_OK)
		return ~0u;
	return dir == FT_TX ? ft_rtt_tx(r, &p, again, v) :
	       ft_rtt_rx(r, &p, &rtt_sent, &rtt_expect, v);
}

/*
 * Which packets start and end a round trip: a request asking for an
 * answer (AckReq, or a READ) while none is timed; the answer that covers
 * it (an ACK or response at or past it, a NAK past it); Karn's rule; the
 * responder's ack delay in the same slot; the buckets' bounds.
 */
TEST(rtt_samples)
{
	struct ft_rtt r = { 0 };
	u64 ms = 1000000;
	u32 v = 0;

	/* a WRITE's middle packet asks nothing; its last does */
	EXPECT_EQ(0, rtt_step(&r, FT_TX, 0x07, 10, 0, 0, false, &v));
	ASSERT_EQ(FT_RTT_START, rtt_step(&r, FT_TX, 0x08, 11, 1, 0, false, &v));
	ft_rtt_start(&r, v, 11, 0, 5 * ms);
	/* one runs: no other starts; an ACK short of it does not end it */
	EXPECT_EQ(0, rtt_step(&r, FT_TX, 0x0a, 12, 1, 0, false, &v));
	EXPECT_EQ(0, rtt_step(&r, FT_RX, 0x11, 10, 0, 0, false, &v));
	ASSERT_EQ(FT_RTT_END, rtt_step(&r, FT_RX, 0x11, 12, 0, 0, false, &v));
	ft_rtt_record(&r, ft_rtt_since(v, 5 * ms + 412000));
	EXPECT_EQ(411968, r.last);	/* the start's 64 ns unit */
	EXPECT_EQ(r.last, r.min);
	EXPECT_EQ(r.last, r.srtt);
	EXPECT_EQ(r.last / 2, r.rttvar);
	EXPECT_EQ(1, atomic_read(&r.hist[3]));
	EXPECT_EQ(0, r.slot & FT_RTT_ON);

	/* Karn: sent again while timed, the sample is dropped; a copy starts none */
	ASSERT_EQ(FT_RTT_START, rtt_step(&r, FT_TX, 0x0c, 20, 0, 0, false, &v));	/* READ */
	ft_rtt_start(&r, v, 20, 0, 6 * ms);
	EXPECT_EQ(0, rtt_step(&r, FT_TX, 0x0c, 20, 0, 0, true, &v));
	EXPECT_EQ(0, r.slot & FT_RTT_ON);
	EXPECT_EQ(0, rtt_step(&r, FT_RX, 0x10, 20, 0, 0, false, &v));	/* its response */
	EXPECT_EQ(0, rtt_step(&r, FT_TX, 0x0c, 20, 0, 0, true, &v));

	/* a NAK naming the timed PSN does not end it; one past it does */
	ASSERT_EQ(FT_RTT_START, rtt_step(&r, FT_TX, 0x0c, 30, 0, 0, false, &v));
	ft_rtt_start(&r, v, 30, 0, 7 * ms);
	EXPECT_EQ(0, rtt_step(&r, FT_RX, 0x11, 30, 0, 0x60, false, &v));
	ASSERT_EQ(FT_RTT_END, rtt_step(&r, FT_RX, 0x11, 31, 0, 0x60, false, &v));
	ft_rtt_record(&r, ft_rtt_since(v, 7 * ms + 2 * ms));
	EXPECT_EQ(1, atomic_read(&r.hist[4]));
	EXPECT_EQ(411968, r.min);
	EXPECT_EQ(411968 - 411968 / 8 + 2000000 / 8, r.srtt);

	/* the responder: a request taken in order asking for an answer, then its ACK */
	EXPECT_EQ(0, rtt_step(&r, FT_RX, 0x0a, 39, 1, 0, false, &v));	/* not in order */
	ASSERT_EQ(FT_RTT_AD_START, rtt_step(&r, FT_RX, 0x0a, 40, 1, 0, false, &v));
	ft_rtt_start(&r, v, 40, FT_RTT_AD, 8 * ms);
	/* the slot is the responder's: the requester's answers do not end it */
	EXPECT_EQ(0, rtt_step(&r, FT_TX, 0x0a, 33, 1, 0, false, &v));
	EXPECT_EQ(0, rtt_step(&r, FT_RX, 0x11, 40, 0, 0, false, &v));
	EXPECT_EQ(0, rtt_step(&r, FT_TX, 0x11, 39, 0, 0, false, &v));
	ASSERT_EQ(FT_RTT_AD_END, rtt_step(&r, FT_TX, 0x11, 40, 0, 0, false, &v));
	ft_rtt_record_ad(&r, ft_rtt_since(v, 8 * ms + 30000));
	EXPECT_EQ(29952, r.ack_delay);

	/* an answer past every request sent (forged) ends nothing */
	ASSERT_EQ(FT_RTT_START, rtt_step(&r, FT_TX, 0x0c, 55, 0, 0, false, &v));
	ft_rtt_start(&r, v, 55, 0, 9 * ms);
	EXPECT_EQ(0, rtt_step(&r, FT_RX, 0x11, 61, 0, 0, false, &v));
	ASSERT_EQ(FT_RTT_END, rtt_step(&r, FT_RX, 0x10, 55, 0, 0, false, &v));
	/* a QP that tracks no PSNs (UC, UD) times nothing */
	rtt_expect = 0;
	EXPECT_EQ(0, rtt_step(&r, FT_RX, 0x0a, 40, 1, 0, false, &v));
	rtt_expect = 41 | FT_PSN_VALID;

	/* a claim lost to the other tap starts nothing */
	ASSERT_EQ(FT_RTT_START, rtt_step(&r, FT_TX, 0x0a, 50, 1, 0, false, &v));
	ft_rtt_start(&r, v, 60, FT_RTT_AD, 9 * ms);
	ft_rtt_start(&r, v, 50, 0, 9 * ms);
	EXPECT_EQ(60 | FT_RTT_ON | FT_RTT_AD, r.slot);

	/* the bounds: 16 us x 4^k a QP, 1 us x 2^k a device; the last unbounded */
	EXPECT_EQ(0, ft_rtt_qp_bucket(15999));
	EXPECT_EQ(1, ft_rtt_qp_bucket(16000));
	EXPECT_EQ(1, ft_rtt_qp_bucket(63999));
	EXPECT_EQ(2, ft_rtt_qp_bucket(64000));
	EXPECT_EQ(5, ft_rtt_qp_bucket(16383999));
	EXPECT_EQ(6, ft_rtt_qp_bucket(16384000));
	EXPECT_EQ(6, ft_rtt_qp_bucket(U32_MAX));
	EXPECT_EQ(0, ft_rtt_dev_bucket(999));
	EXPECT_EQ(1, ft_rtt_dev_bucket(1000));
	EXPECT_EQ(2, ft_rtt_dev_bucket(2000));
	EXPECT_EQ(22, ft_rtt_dev_bucket(4194303999u));
	EXPECT_EQ(23, ft_rtt_dev_bucket(4194304000u));
	EXPECT_EQ(23, ft_rtt_dev_bucket(U32_MAX));
	/* a length across the start's 32-bit wrap; one past 4.29 s saturates */
	EXPECT_EQ(64, ft_rtt_since(0xffffffffu, 0));
	EXPECT_EQ(U32_MAX, ft_rtt_since(0, 5000000000ull));
}

TEST_HARNESS_MAIN
