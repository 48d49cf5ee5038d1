// SPDX-License-Identifier: GPL-2.0
/* Host unit tests of the module's pure code: PAUSE/PFC parsing and pause time. */

#include <stdlib.h>

#include "kselftest_harness.h"

#include "../../kmod/pause.h"

/* Times are ns of a monotonic clock; 0 means "none" to pause.h. */
#define T0	1000000000ULL
#define MS	1000000ULL
/* 65535 quanta at 10 Gb/s: 65535 * 512 bit times of 0.1 ns */
#define MAXQ_10G	3355392ULL

static const uint8_t pfc_dst[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 };

/*
 * A 60-byte MAC Control frame (no FCS): dst, a source, 0x8808, @opc, then
 * for PFC the vector and eight quanta, for PAUSE one quanta (q[0]).
 */
static unsigned int frame(uint8_t *f, unsigned int opc, unsigned int vec,
			  const uint16_t q[FT_PAUSE_PRIOS])
{
	static const uint8_t src[6] = { 0x52, 0x54, 0x00, 0xfa, 0x00, 0x01 };
	unsigned int p;

	memset(f, 0, 60);
	memcpy(f, pfc_dst, 6);
	memcpy(f + 6, src, 6);
	f[12] = 0x88;
	f[13] = 0x08;
	f[14] = opc >> 8;
	f[15] = opc;
	if (opc == FT_PAUSE_OPC) {
		f[16] = q[0] >> 8;
		f[17] = q[0];
		return 60;
	}
	f[16] = vec >> 8;
	f[17] = vec;
	for (p = 0; p < FT_PAUSE_PRIOS; p++) {
		f[18 + 2 * p] = q[p] >> 8;
		f[19 + 2 * p] = q[p];
	}
	return 60;
}

static const uint16_t some_q[FT_PAUSE_PRIOS] = {
	0x0000, 0x0001, 0x00ff, 0x0100, 0x1234, 0x8000, 0xfffe, 0xffff,
};

TEST(pfc_frame)
{
	uint8_t f[60];
	struct ft_pause out;
	unsigned int len = frame(f, FT_PFC_OPC, 0xa5, some_q), p;

	memset(&out, 0x5a, sizeof(out));
	ASSERT_EQ(FT_PAUSE_OK, ft_pause_parse(f, len, &out));
	EXPECT_EQ(0xa5, out.enable);
	EXPECT_EQ(0, out.global);
	for (p = 0; p < FT_PAUSE_PRIOS; p++)
		EXPECT_EQ(some_q[p], out.quanta[p]) TH_LOG("prio %u", p);

	/* every vector without reserved bits, 0 and 0xff included */
	for (p = 0; p < 256; p++) {
		frame(f, FT_PFC_OPC, p, some_q);
		ASSERT_EQ(FT_PAUSE_OK, ft_pause_parse(f, len, &out)) TH_LOG("vector %#x", p);
		EXPECT_EQ(p, out.enable);
	}
}

TEST(pause_frame)
{
	uint16_t q[FT_PAUSE_PRIOS] = { 0xbeef };
	uint8_t f[60];
	struct ft_pause out;
	unsigned int len = frame(f, FT_PAUSE_OPC, 0, q), p;

	/* the bytes where a PFC vector and quanta would be are not read */
	memset(f + 18, 0xff, 60 - 18);
	memset(&out, 0x5a, sizeof(out));
	ASSERT_EQ(FT_PAUSE_OK, ft_pause_parse(f, len, &out));
	EXPECT_EQ(1, out.global);
	EXPECT_EQ(0xff, out.enable);
	for (p = 0; p < FT_PAUSE_PRIOS; p++)
		EXPECT_EQ(0xbeef, out.quanta[p]) TH_LOG("prio %u", p);
	/* an 802.3x PAUSE needs only its opcode and one quanta: 18 bytes */
	ASSERT_EQ(FT_PAUSE_OK, ft_pause_parse(f, 18, &out));
	EXPECT_EQ(0xbeef, out.quanta[7]);
	for (p = 0; p <= 17; p++)
		EXPECT_EQ(FT_PAUSE_SHORT, ft_pause_parse(f, p, &out)) TH_LOG("len %u", p);
	/* quanta 0: an XON for the whole link */
	q[0] = 0;
	frame(f, FT_PAUSE_OPC, 0, q);
	ASSERT_EQ(FT_PAUSE_OK, ft_pause_parse(f, len, &out));
	for (p = 0; p < FT_PAUSE_PRIOS; p++)
		EXPECT_EQ(0, out.quanta[p]);
}

TEST(errors)
{
	uint8_t f[60];
	struct ft_pause out;
	unsigned int len, i;

	len = frame(f, FT_PFC_OPC, 0x08, some_q);
	/* shorter than the Ethernet header, opcode and a vector / one quanta */
	for (i = 0; i <= 17; i++)
		EXPECT_EQ(FT_PAUSE_SHORT, ft_pause_parse(f, i, &out)) TH_LOG("len %u", i);
	/* PFC: shorter than the vector and eight quanta, up to 33 bytes */
	for (i = 18; i <= 33; i++)
		EXPECT_EQ(FT_PAUSE_SHORT, ft_pause_parse(f, i, &out)) TH_LOG("len %u", i);
	EXPECT_EQ(34, FT_PAUSE_FRAME_LEN);
	EXPECT_EQ(FT_PAUSE_OK, ft_pause_parse(f, 34, &out));
	EXPECT_EQ(FT_PAUSE_OK, ft_pause_parse(f, len, &out));

	/* not MAC Control: IPv4, and a byte off each way */
	f[12] = 0x08;
	f[13] = 0x00;
	EXPECT_EQ(FT_PAUSE_NOT_MACCTL, ft_pause_parse(f, len, &out));
	f[12] = 0x88;
	f[13] = 0x09;
	EXPECT_EQ(FT_PAUSE_NOT_MACCTL, ft_pause_parse(f, len, &out));
	f[13] = 0x08;
	f[12] = 0x89;
	EXPECT_EQ(FT_PAUSE_NOT_MACCTL, ft_pause_parse(f, len, &out));
	f[12] = 0x88;

	/* the destination: every byte matters */
	for (i = 0; i < 6; i++) {
		f[i] ^= i == 5 ? 0x03 : 0x40;	/* byte 5: ...:01 -> ...:02 */
		EXPECT_EQ(FT_PAUSE_BAD_DST, ft_pause_parse(f, len, &out)) TH_LOG("byte %u", i);
		f[i] ^= i == 5 ? 0x03 : 0x40;
	}
	EXPECT_EQ(FT_PAUSE_OK, ft_pause_parse(f, len, &out));

	/* opcodes other than 0x0001 and 0x0101 */
	{
		static const unsigned int bad[] = { 0x0000, 0x0002, 0x0003, 0x0100,
						    0x0102, 0x0201, 0x1001, 0xffff };

		for (i = 0; i < ARRAY_SIZE(bad); i++) {
			f[14] = bad[i] >> 8;
			f[15] = bad[i];
			EXPECT_EQ(FT_PAUSE_BAD_OPCODE, ft_pause_parse(f, len, &out))
				TH_LOG("opcode %#x", bad[i]);
		}
		frame(f, 0x0002, 0x08, some_q);
		EXPECT_EQ(FT_PAUSE_BAD_OPCODE, ft_pause_parse(f, len, &out));
	}

	/* reserved vector bits 8..15, each alone and with valid ones */
	for (i = 8; i < 16; i++) {
		frame(f, FT_PFC_OPC, 1u << i, some_q);
		EXPECT_EQ(FT_PAUSE_BAD_VECTOR, ft_pause_parse(f, len, &out)) TH_LOG("bit %u", i);
		frame(f, FT_PFC_OPC, 1u << i | 0xff, some_q);
		EXPECT_EQ(FT_PAUSE_BAD_VECTOR, ft_pause_parse(f, len, &out)) TH_LOG("bit %u", i);
	}
	frame(f, FT_PFC_OPC, 0x0108, some_q);
	EXPECT_EQ(FT_PAUSE_BAD_VECTOR, ft_pause_parse(f, len, &out));
	/* a short PFC frame is short before its vector is looked at */
	EXPECT_EQ(FT_PAUSE_SHORT, ft_pause_parse(f, 33, &out));
}

TEST(pause_ns)
{
	EXPECT_EQ(MAXQ_10G, ft_pause_ns(65535, 10000));
	/* 1 quantum at 100 Gb/s is 5.12 ns: integer division */
	EXPECT_EQ(5, ft_pause_ns(1, 100000));
	EXPECT_EQ(51, ft_pause_ns(1, 10000));
	EXPECT_EQ(512, ft_pause_ns(1, 1000));
	EXPECT_EQ(33553920000ULL, ft_pause_ns(65535, 1));
	EXPECT_EQ(0, ft_pause_ns(0, 10000));
	/* the speed unknown */
	EXPECT_EQ(0, ft_pause_ns(65535, 0));
	EXPECT_EQ(0, ft_pause_ns(1, 0));
}

/* One frame for @s at @now at 10 Gb/s, PFC on, no watchdog. */
static unsigned int pfc(struct ft_pfc_prio *s, u64 now, u32 quanta)
{
	return ft_pfc_frame(s, now, quanta, 10000, true, 0);
}

TEST(spaced_xoffs)
{
	struct ft_pfc_prio s = {};
	const u64 d = MAXQ_10G;
	unsigned int i, n = 10;

	for (i = 0; i < n; i++) {
		u64 now = T0 + i * 10 * MS;

		EXPECT_EQ(0, pfc(&s, now, 65535));
		/* the ones before have ended, each after exactly d */
		EXPECT_EQ(i * d, s.paused_ns);
		EXPECT_TRUE(ft_pfc_is_paused(&s, now));
		EXPECT_TRUE(ft_pfc_is_paused(&s, now + d - 1));
		EXPECT_FALSE(ft_pfc_is_paused(&s, now + d));
		EXPECT_EQ(now, s.since);
		EXPECT_EQ(now + d, s.until);
	}
	EXPECT_EQ(n * d, ft_pfc_paused(&s, T0 + n * 10 * MS));
	EXPECT_EQ(n * d, ft_pfc_paused(&s, ~0ULL));
	EXPECT_EQ(n, s.frames);
	EXPECT_EQ(n, s.xoff);
	EXPECT_EQ(0, s.xon);
	EXPECT_EQ(n * 65535ULL, s.quanta);
	EXPECT_EQ(0, s.unexpected);
	EXPECT_EQ(0, s.storms);
	/* a later XON accrues the last one, and no more */
	EXPECT_EQ(0, pfc(&s, T0 + 200 * MS, 0));
	EXPECT_EQ(n * d, s.paused_ns);
	EXPECT_EQ(n * d, ft_pfc_paused(&s, ~0ULL));
	EXPECT_EQ(1, s.xon);
}

TEST(renewed_at_half)
{
	struct ft_pfc_prio s = {};
	const u64 d = MAXQ_10G, half = d / 2;

	pfc(&s, T0, 65535);
	pfc(&s, T0 + half, 65535);
	EXPECT_EQ(half, s.paused_ns);
	EXPECT_EQ(T0 + half, s.start);
	EXPECT_EQ(T0 + half + d, s.until);
	EXPECT_EQ(T0, s.since);		/* the pause never broke */
	EXPECT_TRUE(ft_pfc_is_paused(&s, T0 + d + 1));
	EXPECT_EQ(half + d, ft_pfc_paused(&s, T0 + 10 * d));
	EXPECT_EQ(2, s.xoff);
}

TEST(xon_while_paused)
{
	struct ft_pfc_prio s = {};
	const u64 d = MAXQ_10G;

	pfc(&s, T0, 65535);
	EXPECT_EQ(0, pfc(&s, T0 + 1000, 0));
	EXPECT_EQ(1000, s.paused_ns);
	EXPECT_FALSE(ft_pfc_is_paused(&s, T0 + 1000));
	EXPECT_FALSE(ft_pfc_is_paused(&s, T0 + 1001));
	EXPECT_EQ(1000, ft_pfc_paused(&s, T0 + d));
	EXPECT_EQ(1000, ft_pfc_paused(&s, ~0ULL));
	EXPECT_EQ(T0 + 1000, s.until);
	EXPECT_EQ(2, s.frames);
	EXPECT_EQ(1, s.xoff);
	EXPECT_EQ(1, s.xon);
	EXPECT_EQ(65535, s.quanta);
	/* a second XON changes no time */
	pfc(&s, T0 + 2000, 0);
	EXPECT_EQ(1000, s.paused_ns);
	EXPECT_EQ(2, s.xon);
}

TEST(paused_so_far)
{
	struct ft_pfc_prio s = {};
	const u64 d = MAXQ_10G;

	pfc(&s, T0, 65535);
	EXPECT_EQ(0, s.paused_ns);
	EXPECT_EQ(0, ft_pfc_paused(&s, T0));
	EXPECT_EQ(1, ft_pfc_paused(&s, T0 + 1));
	EXPECT_EQ(d / 3, ft_pfc_paused(&s, T0 + d / 3));
	EXPECT_EQ(d, ft_pfc_paused(&s, T0 + d));
	EXPECT_EQ(d, ft_pfc_paused(&s, T0 + 5 * d));
	/* before the pause started: nothing */
	EXPECT_EQ(0, ft_pfc_paused(&s, T0 - 1));
	/* with an ended pause behind it */
	pfc(&s, T0 + 2 * d, 65535);
	EXPECT_EQ(d, s.paused_ns);
	EXPECT_EQ(d + 100, ft_pfc_paused(&s, T0 + 2 * d + 100));
}

TEST(unknown_speed)
{
	struct ft_pfc_prio s = {};
	unsigned int i;

	for (i = 0; i < 300; i++)
		EXPECT_EQ(0, ft_pfc_frame(&s, T0 + i * MS, 65535, 0, true, 100 * MS));
	EXPECT_EQ(0, ft_pfc_frame(&s, T0 + 300 * MS, 0, 0, true, 100 * MS));
	EXPECT_EQ(301, s.frames);
	EXPECT_EQ(300, s.xoff);
	EXPECT_EQ(1, s.xon);
	EXPECT_EQ(300 * 65535ULL, s.quanta);
	EXPECT_EQ(0, s.paused_ns);
	EXPECT_EQ(0, ft_pfc_paused(&s, T0 + 400 * MS));
	EXPECT_FALSE(ft_pfc_is_paused(&s, T0 + 299 * MS));
	EXPECT_EQ(0, s.storms);
	EXPECT_EQ(0, s.storm_start);
	EXPECT_EQ(0, ft_pfc_storm_ends(&s, 200 * MS));
}

/* the speed lost in an unbroken pause: that XOFF starts no storm */
TEST(speed_lost_in_a_pause)
{
	struct ft_pfc_prio s = {};
	unsigned int k;

	for (k = 0; k < 100; k++)
		EXPECT_EQ(0, ft_pfc_frame(&s, T0 + k * MS, 65535, 10000, true, 100 * MS));
	EXPECT_EQ(0, ft_pfc_frame(&s, T0 + 100 * MS, 65535, 0, true, 100 * MS));
	EXPECT_EQ(0, s.storms);
	EXPECT_EQ(0, s.storm_start);
}

TEST(unexpected)
{
	struct ft_pfc_prio s = {};

	ft_pfc_frame(&s, T0, 100, 10000, false, 0);
	ft_pfc_frame(&s, T0 + MS, 0, 10000, false, 0);
	ft_pfc_frame(&s, T0 + 2 * MS, 100, 10000, true, 0);
	EXPECT_EQ(3, s.frames);
	EXPECT_EQ(2, s.unexpected);
	/* still accounted as any other frame */
	EXPECT_EQ(2, s.xoff);
	EXPECT_EQ(1, s.xon);
	EXPECT_EQ(2 * ft_pause_ns(100, 10000), ft_pfc_paused(&s, T0 + 3 * MS));
}

TEST(storm)
{
	struct ft_pfc_prio s = {};
	const u64 detect = 100 * MS, restore = 200 * MS, d = MAXQ_10G;
	unsigned int k, ret;

	EXPECT_EQ(0, ft_pfc_storm_ends(&s, restore));
	/* renewed every 1 ms, each for 3.355 ms: paused without a break */
	for (k = 0; k < 100; k++) {
		ret = ft_pfc_frame(&s, T0 + k * MS, 65535, 10000, true, detect);
		EXPECT_EQ(0, ret) TH_LOG("XOFF %u ms into the pause", k);
		EXPECT_EQ(T0, s.since);
	}
	EXPECT_EQ(0, s.storms);
	EXPECT_EQ(0, s.storm_start);
	EXPECT_EQ(0, ft_pfc_storm_ends(&s, restore));
	/* the first XOFF at since + 100 ms */
	ret = ft_pfc_frame(&s, T0 + 100 * MS, 65535, 10000, true, detect);
	EXPECT_EQ(FT_PFC_STORM_START, ret);
	EXPECT_EQ(1, s.storms);
	EXPECT_EQ(T0, s.storm_start);
	EXPECT_EQ(T0 + 100 * MS + d + restore, ft_pfc_storm_ends(&s, restore));
	/* not again while it lasts */
	for (k = 101; k < 300; k++) {
		ret = ft_pfc_frame(&s, T0 + k * MS, 65535, 10000, true, detect);
		EXPECT_EQ(0, ret) TH_LOG("XOFF %u", k);
	}
	EXPECT_EQ(1, s.storms);
	EXPECT_EQ(T0, s.storm_start);
	EXPECT_EQ(300, s.xoff);
	/* paused the whole time: 299 ms, then the last pause */
	EXPECT_EQ(299 * MS, s.paused_ns);
	EXPECT_EQ(299 * MS + d, ft_pfc_paused(&s, T0 + 400 * MS));
	EXPECT_EQ(T0 + 299 * MS + d + restore, ft_pfc_storm_ends(&s, restore));
	/* an XON ends the last pause, and the storm restore_ns after it */
	EXPECT_EQ(0, ft_pfc_frame(&s, T0 + 299 * MS + 10, 0, 10000, true, detect));
	EXPECT_EQ(1, s.xon);
	EXPECT_EQ(299 * MS + 10, s.paused_ns);
	EXPECT_EQ(T0 + 299 * MS + 10 + restore, ft_pfc_storm_ends(&s, restore));
}

TEST(storm_needs_unbroken_pause)
{
	struct ft_pfc_prio s = {};
	const u64 detect = 100 * MS;
	unsigned int k;

	/* XOFFs every 5 ms of 3.355 ms each: a break before every one */
	for (k = 0; k < 100; k++) {
		EXPECT_EQ(0, ft_pfc_frame(&s, T0 + k * 5 * MS, 65535, 10000, true, detect));
		EXPECT_EQ(T0 + k * 5 * MS, s.since);
	}
	EXPECT_EQ(0, s.storms);
	/* an XON breaks an unbroken run of XOFFs */
	memset(&s, 0, sizeof(s));
	for (k = 0; k < 99; k++)
		ft_pfc_frame(&s, T0 + k * MS, 65535, 10000, true, detect);
	ft_pfc_frame(&s, T0 + 99 * MS, 0, 10000, true, detect);
	EXPECT_EQ(0, ft_pfc_frame(&s, T0 + 100 * MS, 65535, 10000, true, detect));
	EXPECT_EQ(T0 + 100 * MS, s.since);
	EXPECT_EQ(0, s.storms);
	/* the watchdog off: never a storm */
	memset(&s, 0, sizeof(s));
	for (k = 0; k < 300; k++)
		EXPECT_EQ(0, ft_pfc_frame(&s, T0 + k * MS, 65535, 10000, true, 0));
	EXPECT_EQ(0, s.storms);
}

TEST(xon_counts)
{
	struct ft_pfc_prio s = {};

	EXPECT_EQ(0, pfc(&s, T0, 0));
	EXPECT_EQ(1, s.frames);
	EXPECT_EQ(1, s.xon);
	EXPECT_EQ(0, s.xoff);
	EXPECT_EQ(0, s.quanta);
	EXPECT_EQ(0, s.paused_ns);
	EXPECT_FALSE(ft_pfc_is_paused(&s, T0));
	EXPECT_EQ(0, ft_pfc_paused(&s, T0 + MS));
}

/*
 * Two links of one port (slaves of a bond) at their own speeds: an XON on
 * one does not end the other's pause, each pause lasts what its link's
 * speed gives, and the port's sum, a link dropped into it included, never
 * goes back.
 */
TEST(links_of_a_port)
{
	struct ft_pfc_prio a = {}, b = {}, gone = {}, sum;
	/* 65535 quanta at 1 Gb/s and at 10 Mb/s */
	const u64 da = 33553920ULL, db = 3355392000ULL;
	u64 before;

	ft_pfc_frame(&b, T0, 65535, 10, true, 0);
	ft_pfc_frame(&a, T0 + MS, 0, 1000, true, 0);
	ft_pfc_frame(&a, T0 + 2 * MS, 0, 1000, true, 0);
	EXPECT_TRUE(ft_pfc_is_paused(&b, T0 + 2 * MS));
	EXPECT_FALSE(ft_pfc_is_paused(&a, T0 + 2 * MS));
	ft_pfc_frame(&a, T0 + 3 * MS, 65535, 1000, true, 0);
	EXPECT_EQ(da, ft_pfc_paused(&a, T0 + 4000 * MS));
	EXPECT_EQ(db, ft_pfc_paused(&b, T0 + 4000 * MS));

	/* the port's sum: link-time, both pauses in full */
	sum = gone;
	ft_pfc_fold(&sum, &a, T0 + 4000 * MS);
	ft_pfc_fold(&sum, &b, T0 + 4000 * MS);
	EXPECT_EQ(da + db, sum.paused_ns);
	EXPECT_EQ(4, sum.frames);
	EXPECT_EQ(2, sum.xoff);
	EXPECT_EQ(2, sum.xon);
	EXPECT_EQ(2 * 65535ULL, sum.quanta);
	EXPECT_EQ(da + db, ft_pfc_paused(&sum, ~0ULL));

	/* b leaves in the middle of a pause: it is cut there, and stays */
	ft_pfc_frame(&b, T0 + 5000 * MS, 65535, 10, true, 0);
	sum = gone;
	ft_pfc_fold(&sum, &a, T0 + 5001 * MS);
	ft_pfc_fold(&sum, &b, T0 + 5001 * MS);
	before = sum.paused_ns;
	EXPECT_EQ(da + db + MS, before);
	ft_pfc_fold(&gone, &b, T0 + 5001 * MS);
	EXPECT_EQ(db + MS, ft_pfc_paused(&gone, T0 + 9000 * MS));
	sum = gone;
	ft_pfc_fold(&sum, &a, T0 + 9000 * MS);
	EXPECT_EQ(before, sum.paused_ns);
	EXPECT_EQ(0, gone.storms);
	EXPECT_EQ(0, gone.start);
}

/*
 * A QP's share of its priority's paused time past 2^32 us (71.6 minutes,
 * where the 32-bit microseconds it was kept in wrapped), across a move to
 * another priority and its destruction.
 */
TEST(qp_share_past_71_minutes)
{
	const u64 us = 1000, wrap = (1ULL << 32) * us;
	u64 base, share, t0 = 123456789ULL * us;

	base = t0;				/* the QP takes priority 3 */
	share = ft_pfc_share(base, t0 + wrap + 5 * us, false);
	EXPECT_EQ(wrap + 5 * us, share);
	/* it moves to priority 5, whose total is 7 ms, and keeps what it had */
	base = ft_pfc_share_base(share, 7000 * us);
	EXPECT_EQ(wrap + 5 * us + 3000 * us,
		  ft_pfc_share(base, 10000 * us, false));
	/* destroyed: the share is frozen into the base */
	base = ft_pfc_share(base, 10000 * us, false);
	EXPECT_EQ(wrap + 3005 * us, ft_pfc_share(base, 0, true));
	EXPECT_EQ(4294970301ULL, ft_pfc_share(base, 0, true) / us);
}

/* --- a NIC's own counters, read by a poll --------------------------------- */

static const struct ft_pfc_names mlx5_like = {
	"mlx5", {
		[FT_PFC_STAT_FRAMES] = { "rx_prio", "_pause" },
		[FT_PFC_STAT_PAUSED_US] = { "rx_prio", "_pause_duration" } },
	.wrap32 = false };

static const struct ft_pfc_names ice_like = {
	"ice", {
		[FT_PFC_STAT_XOFF] = { "rx_priority_", "_xoff.nic" },
		[FT_PFC_STAT_XON] = { "rx_priority_", "_xon.nic" } },
	.wrap32 = false };

TEST(driver_names)
{
	/* ethtool's strings: 32 bytes, NUL-padded, and one that fills them */
	char full[32];
	unsigned int prio = 99;

	EXPECT_EQ(FT_PFC_STAT_FRAMES, ft_pfc_stat_match(&mlx5_like, "rx_prio3_pause", 32, &prio));
	EXPECT_EQ(3, prio);
	EXPECT_EQ(FT_PFC_STAT_PAUSED_US,
		  ft_pfc_stat_match(&mlx5_like, "rx_prio7_pause_duration", 32, &prio));
	EXPECT_EQ(7, prio);
	/* near misses: another counter, priority 8, two digits, tx, a bare prefix */
	EXPECT_EQ(-1, ft_pfc_stat_match(&mlx5_like, "rx_prio3_pause_transition", 32, &prio));
	EXPECT_EQ(-1, ft_pfc_stat_match(&mlx5_like, "rx_prio8_pause", 32, &prio));
	EXPECT_EQ(-1, ft_pfc_stat_match(&mlx5_like, "rx_prio13_pause", 32, &prio));
	EXPECT_EQ(-1, ft_pfc_stat_match(&mlx5_like, "tx_prio3_pause", 32, &prio));
	EXPECT_EQ(-1, ft_pfc_stat_match(&mlx5_like, "rx_prio", 32, &prio));
	EXPECT_EQ(-1, ft_pfc_stat_match(&mlx5_like, "rx_prio3_bytes", 32, &prio));
	EXPECT_EQ(FT_PFC_STAT_XOFF, ft_pfc_stat_match(&ice_like, "rx_priority_5_xoff.nic", 32, &prio));
	EXPECT_EQ(5, prio);
	EXPECT_EQ(FT_PFC_STAT_XON, ft_pfc_stat_match(&ice_like, "rx_priority_0_xon.nic", 32, &prio));
	/* no NUL in 32 bytes: read no further */
	memset(full, 'x', sizeof(full));
	memcpy(full, "rx_prio1_pause", 14);
	EXPECT_EQ(-1, ft_pfc_stat_match(&mlx5_like, full, sizeof(full), &prio));
	/* the length bounds the name: what follows is not read */
	EXPECT_EQ(FT_PFC_STAT_FRAMES, ft_pfc_stat_match(&mlx5_like, full, 14, &prio));
}

TEST(driver_deltas)
{
	/* 64-bit counters go up; one lower was reset: it counted from 0 */
	EXPECT_EQ(5, ft_pfc_stat_delta(10, 15, false));
	EXPECT_EQ(3, ft_pfc_stat_delta(10, 3, false));
	/* 32-bit ones wrap */
	EXPECT_EQ(6, ft_pfc_stat_delta(0xfffffffeULL, 4, true));
	EXPECT_EQ(0, ft_pfc_stat_delta(7, 7, true));
}

/* What a read found: frames (not apart) and a time; FT_PFC_NO_TIME: none. */
static struct ft_pfc_read rd(u64 frames, u64 paused_ns)
{
	return (struct ft_pfc_read){ .frames = frames, .paused_ns = paused_ns };
}

/* Reads every 100 ms of a priority paused the whole time, with a time counter. */
TEST(poll_storm)
{
	struct ft_pfc_prio s = {};
	const u64 detect = 200 * MS, restore = 2000 * MS, next = 100 * MS;
	struct ft_pfc_read r;
	unsigned int k, ret, storms = 0;
	u64 t = T0;

	/* a short pause: 10 ms of 100 */
	r = rd(3, 10 * MS);
	EXPECT_EQ(0, ft_pfc_poll(&s, t, t + next, &r, true, detect, next));
	t += next;
	EXPECT_EQ(3, s.frames);
	EXPECT_EQ(10 * MS, s.paused_ns);
	EXPECT_EQ(0, s.since);
	EXPECT_FALSE(ft_pfc_poll_paused(&s, t));
	/*
	 * then paused through, 95 ms of each read's 100: from 95 ms before
	 * the first such read (T0 + 105 ms), a storm at the read 200 ms after
	 */
	for (k = 0; k < 6; k++) {
		r = rd(20, 95 * MS);
		ret = ft_pfc_poll(&s, t, t + next, &r, true, detect, next);
		t += next;
		if (ret & FT_PFC_STORM_START) {
			storms++;
			EXPECT_EQ(2, k) TH_LOG("the storm started at read %u", k);
		}
		EXPECT_TRUE(ft_pfc_poll_paused(&s, t));
	}
	EXPECT_EQ(1, storms);
	EXPECT_EQ(1, s.storms);
	EXPECT_EQ(T0 + 105 * MS, s.storm_start);
	/* believed paused until a read after the next: a read may come late */
	EXPECT_EQ(t + 2 * next + restore, ft_pfc_storm_ends(&s, restore));
	/* the pause ends 40 ms into the next read: the storm, restore after */
	r = rd(2, 40 * MS);
	EXPECT_EQ(FT_PFC_PAUSE_ENDED, ft_pfc_poll(&s, t, t + next, &r, true, detect, next));
	EXPECT_EQ(0, s.since);
	EXPECT_EQ(t + 40 * MS, s.until);
	EXPECT_EQ(t + 40 * MS + restore, ft_pfc_storm_ends(&s, restore));
	EXPECT_EQ(10 * MS + 6 * 95 * MS + 40 * MS, s.paused_ns);
	EXPECT_EQ(3 + 6 * 20 + 2, s.frames);
	EXPECT_EQ(0, s.xoff);
	EXPECT_EQ(0, s.start);
}

/*
 * A read's values are taken somewhere inside it: a read that took long
 * (preempted; a firmware command) widens the span it seems to cover.
 */
TEST(poll_slack_of_slow_reads)
{
	struct ft_pfc_prio s = {};
	const u64 next = 100 * MS;
	struct ft_pfc_read r = rd(20, 80 * MS);

	/* paused 80 ms of a span of 100: not held, unless the reads' ends may be 20 ms off */
	EXPECT_EQ(0, ft_pfc_poll(&s, T0, T0 + next, &r, true, 0, next));
	EXPECT_EQ(0, s.since);
	r.slack_ns = 10 * MS;
	EXPECT_EQ(0, ft_pfc_poll(&s, T0 + next, T0 + 2 * next, &r, true, 0, next));
	EXPECT_EQ(0, s.since);
	r.slack_ns = 20 * MS;
	EXPECT_EQ(0, ft_pfc_poll(&s, T0 + 2 * next, T0 + 3 * next, &r, true, 0, next));
	EXPECT_EQ(T0 + 3 * next - 80 * MS, s.since);
	EXPECT_TRUE(ft_pfc_poll_paused(&s, T0 + 3 * next));
	/* slack never makes an idle read held */
	r = rd(0, 0);
	r.slack_ns = 20 * MS;
	EXPECT_EQ(FT_PFC_PAUSE_ENDED, ft_pfc_poll(&s, T0 + 3 * next, T0 + 4 * next, &r, true, 0,
						  next));
	EXPECT_EQ(240 * MS, s.paused_ns);
}

TEST(poll_unexpected_and_no_time)
{
	struct ft_pfc_prio s = {};
	const u64 next = 100 * MS;
	struct ft_pfc_read r = { .xoff = 3, .xon = 1, .paused_ns = FT_PFC_NO_TIME };

	/* ice: XOFF and XON apart, no time; PFC off: every frame is unexpected */
	EXPECT_EQ(0, ft_pfc_poll(&s, T0, T0 + next, &r, false, 0, next));
	EXPECT_EQ(4, s.frames);
	EXPECT_EQ(3, s.xoff);
	EXPECT_EQ(1, s.xon);
	EXPECT_EQ(4, s.unexpected);
	EXPECT_EQ(0, s.paused_ns);
	/* XOFFs stand for a pause held */
	EXPECT_TRUE(ft_pfc_poll_paused(&s, T0 + next));
	EXPECT_EQ(T0, s.since);
	/* XONs alone do not */
	r = (struct ft_pfc_read){ .xon = 5, .paused_ns = FT_PFC_NO_TIME };
	EXPECT_EQ(FT_PFC_PAUSE_ENDED, ft_pfc_poll(&s, T0 + next, T0 + 2 * next, &r, true, 0, next));
	EXPECT_FALSE(ft_pfc_poll_paused(&s, T0 + 2 * next));
	EXPECT_EQ(0, s.since);
	/* the watchdog off: no storm however long */
	r = (struct ft_pfc_read){ .xoff = 1, .paused_ns = FT_PFC_NO_TIME };
	EXPECT_EQ(0, ft_pfc_poll(&s, T0 + 2 * next, T0 + 50 * next, &r, true, 0, next));
	EXPECT_EQ(0, s.storms);
}

/* bnxt refreshes its counters once a second: reads 1.2 s apart see 1 s */
TEST(poll_window)
{
	struct ft_pfc_prio s = {};
	const u64 next = 1200 * MS;
	struct ft_pfc_read r = rd(40, 1000 * MS);

	/* judged against the span, 1 s of 1.2 is no pause held through */
	EXPECT_EQ(0, ft_pfc_poll(&s, T0, T0 + next, &r, true, 0, next));
	EXPECT_EQ(0, s.since);
	/* against the second the counters stand for, it is: from 1 s before */
	r.window_ns = 1000 * MS;
	EXPECT_EQ(0, ft_pfc_poll(&s, T0 + next, T0 + 2 * next, &r, true, 0, next));
	EXPECT_EQ(T0 + 2 * next - 1000 * MS, s.since);
	EXPECT_EQ(2000 * MS, s.paused_ns);
}

/* bnxt refreshes its counters once a second: a second's pause in one read */
TEST(poll_time_past_the_span)
{
	struct ft_pfc_prio s = {};
	const u64 next = 100 * MS;
	struct ft_pfc_read r = rd(1, 1000 * MS);

	/* all of it counted, the span judged by what fits in it */
	EXPECT_EQ(0, ft_pfc_poll(&s, T0, T0 + next, &r, true, 0, next));
	EXPECT_EQ(1000 * MS, s.paused_ns);
	EXPECT_TRUE(ft_pfc_poll_paused(&s, T0 + next));
	/* no span (two reads at one instant): counted, not judged */
	r = rd(1, 5 * MS);
	EXPECT_EQ(0, ft_pfc_poll(&s, T0 + next, T0 + next, &r, true, 1, next));
	EXPECT_EQ(1005 * MS, s.paused_ns);
	EXPECT_EQ(T0, s.since);
	EXPECT_EQ(0, s.storms);
}

/* A link that turns to its driver's counters keeps what it counted, and no pause. */
TEST(switch_to_driver)
{
	struct ft_pfc_prio s = {};
	struct ft_pfc_read r = rd(0, 0);

	/* an XOFF of 3.355 ms at 10 Gb/s, 1 ms before the switch */
	ft_pfc_frame(&s, T0, 65535, 10000, true, 0);
	ft_pfc_switch(&s, T0 + MS);
	EXPECT_EQ(MS, s.paused_ns);
	EXPECT_EQ(0, s.start);
	EXPECT_EQ(0, s.since);
	EXPECT_EQ(T0 + MS, s.until);
	/* the paused time no longer grows with the clock, nor goes back */
	EXPECT_EQ(MS, ft_pfc_paused(&s, T0 + 100 * MS));
	EXPECT_EQ(0, ft_pfc_poll(&s, T0 + MS, T0 + 101 * MS, &r, true, 50 * MS, 100 * MS));
	EXPECT_EQ(MS, ft_pfc_paused(&s, T0 + 200 * MS));
	EXPECT_EQ(0, s.storms);
}

TEST_HARNESS_MAIN
