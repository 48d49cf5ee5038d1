// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: PAUSE/PFC parsing and the per-priority pause state on arbitrary bytes. */

/*
 * The input is read twice.  As a frame, by ft_pause_parse().  And as a run
 * of pause frames at one port, driving ft_pfc_frame():
 *
 *   bytes 0-3  the port's speed, Mb/s, big-endian, modulo 400001 (0: unknown)
 *   byte 4     the watchdog's detection time, ms (0: off)
 *   byte 5     its restoration time, ms
 *   then 6 bytes an event:
 *     0-1      time since the previous event, big-endian, in units of
 *              1 << (0, 10, 20, 26) ns by bits 1-2 of byte 5
 *     2-3      quanta, big-endian (0: XON)
 *     4        bits 0-2: the priority; bit 3: every priority (a PAUSE)
 *     5        bit 0: PFC is on for the priority
 *
 * The watchdog's part is played here: a storm ends (storm_start cleared)
 * at the first event at or after ft_pfc_storm_ends().
 */

#include <stdlib.h>

#include "../../kmod/pause.h"

#define T_BASE		1000000000ULL	/* 0 is "none" to pause.h */
#define EV_LEN		6

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_parse(const uint8_t *data, size_t size)
{
	static const u8 dst[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 };
	struct ft_pause out, again;
	enum ft_pause_err err;
	unsigned int p;

	err = ft_pause_parse(data, size, &out);
	/* padding and FCS are not read: the first 34 bytes decide */
	if (ft_pause_parse(data, size < FT_PAUSE_FRAME_LEN ? size : FT_PAUSE_FRAME_LEN,
			   &again) != err)
		__builtin_trap();
	if (err != FT_PAUSE_OK) {
		/* the output need not be written; the reason must be true */
		if (err > FT_PAUSE_BAD_VECTOR)
			__builtin_trap();
		if (err == FT_PAUSE_SHORT && size >= FT_PAUSE_FRAME_LEN)
			__builtin_trap();
		if (err == FT_PAUSE_NOT_MACCTL && ft_get_be16(data + 12) == FT_ETH_P_MACCTL)
			__builtin_trap();
		if (err == FT_PAUSE_BAD_DST && !memcmp(data, dst, 6))
			__builtin_trap();
		if (err == FT_PAUSE_BAD_OPCODE && (ft_get_be16(data + 14) == FT_PAUSE_OPC ||
						   ft_get_be16(data + 14) == FT_PFC_OPC))
			__builtin_trap();
		if (err == FT_PAUSE_BAD_VECTOR && !(ft_get_be16(data + 16) & 0xff00))
			__builtin_trap();
		return;
	}
	if (size < 18 || ft_get_be16(data + 12) != FT_ETH_P_MACCTL || memcmp(data, dst, 6))
		__builtin_trap();
	if (memcmp(&out, &again, sizeof(out)))
		__builtin_trap();
	if (out.global) {
		if (out.global != 1 || out.enable != 0xff ||
		    ft_get_be16(data + 14) != FT_PAUSE_OPC)
			__builtin_trap();
		for (p = 0; p < FT_PAUSE_PRIOS; p++)
			if (out.quanta[p] != out.quanta[0] ||
			    out.quanta[p] != ft_get_be16(data + 16))
				__builtin_trap();
		return;
	}
	if (size < FT_PAUSE_FRAME_LEN || ft_get_be16(data + 14) != FT_PFC_OPC ||
	    out.enable != ft_get_be16(data + 16))
		__builtin_trap();
	for (p = 0; p < FT_PAUSE_PRIOS; p++)
		if (out.quanta[p] != ft_get_be16(data + 18 + 2 * p))
			__builtin_trap();
}

/* What a priority's history allows its state to be. */
struct shadow {
	u64 first;		/* time of the first frame; 0: none yet */
	u64 frames, quanta, unexpected;
	u64 paused_ns;		/* the last value seen */
	u64 max_ns;		/* the sum of every XOFF's full duration */
};

static void one_frame(struct ft_pfc_prio *s, struct shadow *h, u64 now, u32 quanta,
		      u32 mbps, bool pfc_on, u64 detect_ns, u64 restore_ns)
{
	u64 before = ft_pfc_paused(s, now), storms = s->storms, ns;
	unsigned int ret;

	/* the watchdog: a storm ended restore_ns after its last pause */
	if (s->storm_start && now >= ft_pfc_storm_ends(s, restore_ns))
		s->storm_start = 0;
	ret = ft_pfc_frame(s, now, quanta, mbps, pfc_on, detect_ns);
	ns = ft_pause_ns(quanta, mbps);
	if (!h->first)
		h->first = now;
	h->frames++;
	h->quanta += quanta;
	h->unexpected += !pfc_on;
	h->max_ns += ns;

	if (s->frames != h->frames || s->frames != s->xon + s->xoff ||
	    s->quanta != h->quanta || s->unexpected != h->unexpected)
		__builtin_trap();
	/* the frame accrues what ft_pfc_paused() said before it */
	if (s->paused_ns != before || s->paused_ns < h->paused_ns)
		__builtin_trap();
	h->paused_ns = s->paused_ns;
	if (s->paused_ns > now - h->first || ft_pfc_paused(s, now) != s->paused_ns)
		__builtin_trap();
	/* at most the full length of every pause, and no more ever after */
	if (ft_pfc_paused(s, ~0ULL) > h->max_ns || ft_pfc_paused(s, ~0ULL) < s->paused_ns)
		__builtin_trap();
	if (ft_pfc_paused(s, s->until) > s->until - h->first)
		__builtin_trap();
	/* paused until the frame's quanta run out, or not at all */
	if (ft_pfc_is_paused(s, now) != (quanta && ns) ||
	    (quanta && s->until != now + ns) || (!quanta && s->until > now))
		__builtin_trap();
	if (s->storms > s->xoff || s->storms < storms || s->storms > storms + 1)
		__builtin_trap();
	if (!!(ret & FT_PFC_STORM_START) != (s->storms != storms) || (ret & ~FT_PFC_STORM_START))
		__builtin_trap();
	if (ret && (!s->storm_start || !detect_ns || !quanta ||
		    now - s->storm_start < detect_ns || s->storm_start < h->first))
		__builtin_trap();
	if (!mbps && (s->paused_ns || s->storms || ft_pfc_paused(s, ~0ULL)))
		__builtin_trap();
	if (s->storm_start && ft_pfc_storm_ends(s, restore_ns) != s->until + restore_ns)
		__builtin_trap();
	if (!s->storm_start && ft_pfc_storm_ends(s, restore_ns))
		__builtin_trap();
}

static void check_state(const uint8_t *data, size_t size)
{
	static const unsigned int unit_shift[4] = { 0, 10, 20, 26 };
	struct ft_pfc_prio s[FT_PAUSE_PRIOS] = {};
	struct shadow h[FT_PAUSE_PRIOS] = {};
	u64 now = T_BASE, detect_ns, restore_ns;
	unsigned int shift, p;
	u32 mbps;
	size_t off;

	if (size < 6)
		return;
	mbps = ft_get_be32(data) % 400001;
	detect_ns = data[4] * 1000000ULL;
	restore_ns = data[5] * 1000000ULL;
	shift = unit_shift[data[5] >> 1 & 3];
	for (off = 6; off + EV_LEN <= size; off += EV_LEN) {
		const uint8_t *e = data + off;
		u32 quanta = ft_get_be16(e + 2);
		bool pfc_on = e[5] & 1;

		now += (u64)ft_get_be16(e) << shift;
		if (e[4] & 8) {
			for (p = 0; p < FT_PAUSE_PRIOS; p++)
				one_frame(&s[p], &h[p], now, quanta, mbps, pfc_on,
					  detect_ns, restore_ns);
		} else {
			p = e[4] & 7;
			one_frame(&s[p], &h[p], now, quanta, mbps, pfc_on, detect_ns,
				  restore_ns);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 65535)
		return 0;
	check_parse(data, size);
	check_state(data, size);
	return 0;
}
