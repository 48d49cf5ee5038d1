/* SPDX-License-Identifier: GPL-2.0 */
/* 802.3x PAUSE and 802.1Qbb PFC frames: parse, and pause time per priority (pure C). */
#ifndef _FABTRACE_PAUSE_H
#define _FABTRACE_PAUSE_H

#include "pure.h"

#define FT_ETH_P_MACCTL		0x8808	/* MAC Control */
#define FT_PAUSE_OPC		0x0001	/* 802.3x PAUSE: the whole link */
#define FT_PFC_OPC		0x0101	/* 802.1Qbb: per priority */
#define FT_PAUSE_PRIOS		8
/* Ethernet header, opcode, class-enable vector, eight quanta */
#define FT_PAUSE_FRAME_LEN	(14 + 2 + 2 + 2 * FT_PAUSE_PRIOS)
/* a quantum is 512 bit times */
#define FT_PAUSE_QUANTUM_BITS	512

/* Why a MAC Control frame is not a pause fabtrace can trust. */
enum ft_pause_err {
	FT_PAUSE_OK,
	FT_PAUSE_SHORT,		/* shorter than a PFC frame */
	FT_PAUSE_NOT_MACCTL,	/* not ethertype 0x8808 */
	FT_PAUSE_BAD_DST,	/* not to 01-80-C2-00-00-01 */
	FT_PAUSE_BAD_OPCODE,	/* neither PAUSE nor PFC */
	FT_PAUSE_BAD_VECTOR,	/* reserved class-enable bits set */
};

/* A parsed pause: the priorities it names and their quanta. */
struct ft_pause {
	u8 enable;		/* bit p: priority p's quanta apply */
	u8 global;		/* an 802.3x PAUSE: every priority */
	u16 quanta[FT_PAUSE_PRIOS];
};

/**
 * ft_pause_parse() - parse a MAC Control frame
 * @f: the frame, from its destination MAC on
 * @len: bytes at @f
 * @out: the pause, if FT_PAUSE_OK
 *
 * An 802.3x PAUSE names every priority with one quanta.  The frame's
 * padding and FCS are not read.
 */
static inline enum ft_pause_err ft_pause_parse(const u8 *f, u32 len,
					       struct ft_pause *out)
{
	static const u8 dst[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 };
	unsigned int p, opc, vec;

	if (len < 14 + 4)
		return FT_PAUSE_SHORT;
	if (ft_get_be16(f + 12) != FT_ETH_P_MACCTL)
		return FT_PAUSE_NOT_MACCTL;
	if (__builtin_memcmp(f, dst, sizeof(dst)))
		return FT_PAUSE_BAD_DST;
	opc = ft_get_be16(f + 14);
	if (opc == FT_PAUSE_OPC) {
		out->enable = 0xff;
		out->global = 1;
		for (p = 0; p < FT_PAUSE_PRIOS; p++)
			out->quanta[p] = ft_get_be16(f + 16);
		return FT_PAUSE_OK;
	}
	if (opc != FT_PFC_OPC)
		return FT_PAUSE_BAD_OPCODE;
	if (len < FT_PAUSE_FRAME_LEN)
		return FT_PAUSE_SHORT;
	vec = ft_get_be16(f + 16);
	if (vec & 0xff00)
		return FT_PAUSE_BAD_VECTOR;
	out->enable = vec;
	out->global = 0;
	for (p = 0; p < FT_PAUSE_PRIOS; p++)
		out->quanta[p] = ft_get_be16(f + 18 + 2 * p);
	return FT_PAUSE_OK;
}

/* The time @quanta pause a link of @mbps Mb/s, in ns; 0 if the speed is unknown. */
static inline u64 ft_pause_ns(u32 quanta, u32 mbps)
{
	if (!mbps)
		return 0;
	/* a bit takes 1000 / mbps ns */
	return (u64)quanta * FT_PAUSE_QUANTUM_BITS * 1000 / mbps;
}

/*
 * The pause state of one priority of one port, and its counters.  Times
 * are ns of one monotonic clock.  A pause runs from @start to @until; a
 * later frame cuts it short (XON, or XOFF renewing it before it expires),
 * so the time paused is only known once the next frame or the clock says
 * where it ended.
 */
struct ft_pfc_prio {
	u64 frames;		/* frames naming this priority */
	u64 xoff;		/* quanta > 0 */
	u64 xon;		/* quanta 0 */
	u64 quanta;		/* of every XOFF */
	u64 unexpected;		/* frames naming it while PFC is off for it */
	u64 paused_ns;		/* of pauses that ended */
	u64 storms;
	u64 start;		/* of the pause in progress; 0: none */
	u64 until;		/* when the last pause ends, or ended */
	u64 since;		/* of the continuous pause in progress */
	u64 storm_start;	/* of the storm in progress; 0: none */
};

/* ft_pfc_frame() returns what happened to the priority */
#define FT_PFC_STORM_START	0x1

/* The paused time of @s up to @now, the pause in progress included. */
static inline u64 ft_pfc_paused(const struct ft_pfc_prio *s, u64 now)
{
	u64 end = s->until < now ? s->until : now;

	return s->paused_ns + (s->start && end > s->start ? end - s->start : 0);
}

/* Whether @s is paused at @now. */
static inline bool ft_pfc_is_paused(const struct ft_pfc_prio *s, u64 now)
{
	return s->start && s->until > now;
}

/**
 * ft_pfc_frame() - account one pause frame for one priority
 * @s: the priority
 * @now: the frame's arrival
 * @quanta: its quanta for the priority
 * @mbps: the port's speed (0: unknown, no time is accrued)
 * @pfc_on: PFC is enabled for the priority
 * @detect_ns: the watchdog's detection time; 0: off
 *
 * A storm starts when an XOFF finds the priority paused without a break
 * for @detect_ns or longer: a single long pause is none, nor is an XOFF
 * that comes the instant the last pause expires.  @now is never 0 (0
 * stands for "none" in @s).
 *
 * Return: FT_PFC_* flags.
 */
static inline unsigned int ft_pfc_frame(struct ft_pfc_prio *s, u64 now,
					u32 quanta, u32 mbps, bool pfc_on,
					u64 detect_ns)
{
	bool paused = ft_pfc_is_paused(s, now);
	unsigned int ret = 0;

	s->frames++;
	if (!pfc_on)
		s->unexpected++;
	/* the pause in progress ends here, or ended at its expiry */
	s->paused_ns = ft_pfc_paused(s, now);
	if (paused)
		s->until = now;
	s->start = 0;
	if (!quanta) {
		s->xon++;
		return 0;
	}
	s->xoff++;
	s->quanta += quanta;
	if (!paused)
		s->since = now;
	s->until = now + ft_pause_ns(quanta, mbps);
	/* the speed unknown: no time to accrue */
	if (s->until != now)
		s->start = now;
	/* a pause of unknown length (no speed) renews nothing */
	if (detect_ns && paused && s->start && !s->storm_start &&
	    now - s->since >= detect_ns) {
		s->storm_start = s->since;
		s->storms++;
		ret |= FT_PFC_STORM_START;
	}
	return ret;
}

/*
 * When the storm of @s ends: @restore_ns after the end of its last pause
 * (which may be still to come); 0 if it has no storm.
 */
static inline u64 ft_pfc_storm_ends(const struct ft_pfc_prio *s,
				    u64 restore_ns)
{
	return s->storm_start ? s->until + restore_ns : 0;
}

/* --- pause a NIC's MAC counted (its driver's ethtool statistics) ---------- */

/*
 * On a NIC that implements PFC, the MAC consumes the frames: the host sees
 * none, and only the driver's per-priority counters tell.  What one of
 * them counts, for one priority:
 */
enum ft_pfc_stat {
	FT_PFC_STAT_FRAMES,	/* pause frames received, XOFF and XON */
	FT_PFC_STAT_XOFF,	/* XOFF frames received */
	FT_PFC_STAT_XON,	/* XON frames received */
	FT_PFC_STAT_PAUSED_US,	/* time the priority was paused, microseconds */
	FT_PFC_STATS,
};

/* A driver family's names: "<prefix><prio><suffix>"; a NULL prefix: none. */
struct ft_pfc_names {
	const char *family;
	const char *affix[FT_PFC_STATS][2];
	bool wrap32;		/* its values wrap at 2^32 (i40e's) */
	unsigned int min_poll_ms;	/* it refreshes them this often (bnxt: 1 s) */
};

/* What a counter counted from @last to @v: a wrap, or from 0 after a reset. */
static inline u64 ft_pfc_stat_delta(u64 last, u64 v, bool wrap32)
{
	if (v >= last)
		return v - last;
	if (wrap32 && last <= 0xffffffffULL && v <= 0xffffffffULL)
		return (v - last) & 0xffffffffULL;
	return v;
}

/*
 * Whether the statistic @name (at most @len bytes, NUL-padded as ethtool's
 * strings are) is one of @t's; its priority in @prio.
 * Return: its enum ft_pfc_stat, or -1.
 */
static inline int ft_pfc_stat_match(const struct ft_pfc_names *t,
				    const char *name, unsigned int len,
				    unsigned int *prio)
{
	unsigned int k, n, pre, suf;

	for (n = 0; n < len && name[n]; n++)
		;
	for (k = 0; k < FT_PFC_STATS; k++) {
		const char *p = t->affix[k][0], *s = t->affix[k][1];

		if (!p)
			continue;
		pre = __builtin_strlen(p);
		suf = __builtin_strlen(s);
		if (n != pre + 1 + suf || __builtin_memcmp(name, p, pre) ||
		    name[pre] < '0' || name[pre] >= '0' + FT_PAUSE_PRIOS ||
		    __builtin_memcmp(name + pre + 1, s, suf))
			continue;
		*prio = name[pre] - '0';
		return k;
	}
	return -1;
}

/*
 * Read the driver's counters every @next_ns, @s's pauses are known only
 * as the time they added up to between two reads: s->paused_ns grows by
 * the driver's count and s->start stays 0 (no pause in progress to add);
 * s->since is the start of an unbroken pause (0: none; the time counted
 * back from the read that saw it held), and s->until when it is believed
 * to end.  A priority paused at least 7/8 of the time
 * between two reads was paused all of it (a storm sends XOFFs faster than
 * they expire); without a time counter, XOFFs in every read stand for it.
 * A pause seen is believed to last until the next read (and a read
 * more, for a read that comes late), as an XOFF's quanta would say; one
 * not seen again ended after the time counted.
 */
#define FT_PFC_NO_TIME	(~0ULL)

/* What one read of a driver's counters found for one priority. */
struct ft_pfc_read {
	u64 frames;		/* pause frames, where XOFF and XON are not apart */
	u64 xoff, xon;		/* where they are */
	u64 paused_ns;		/* FT_PFC_NO_TIME: not counted */
	/*
	 * The time the driver's counters stand for, if shorter than the
	 * span between the reads (bnxt's are a second's, refreshed by its
	 * timer); 0: the span.
	 */
	u64 window_ns;
	/*
	 * How far the span's ends may be from when the driver took its
	 * values: half of each read's duration (a read preempted, or a
	 * firmware command, takes its values somewhere inside it).  A
	 * pause held but for this much was held.
	 */
	u64 slack_ns;
};

/* ft_pfc_poll() also returns: a pause held through the reads before ended */
#define FT_PFC_PAUSE_ENDED	0x2

/**
 * ft_pfc_poll() - account one priority from its driver's counters
 * @s: the priority
 * @last: the previous read
 * @now: this read
 * @r: what the driver counted in between
 * @pfc_on: PFC is enabled for the priority
 * @detect_ns: the watchdog's detection time; 0: off
 * @next_ns: the time to the next read
 *
 * The driver's time is added whole (a driver that refreshes its counters
 * less often than it is read gives a second's pause in one read); only
 * the judgement of a pause held through is bounded by the span, or the
 * window the counters stand for.
 * Return: FT_PFC_* flags, as ft_pfc_frame().
 */
static inline unsigned int ft_pfc_poll(struct ft_pfc_prio *s, u64 last, u64 now,
				       const struct ft_pfc_read *r, bool pfc_on,
				       u64 detect_ns, u64 next_ns)
{
	u64 span = now > last ? now - last : 0, frames = r->frames + r->xoff + r->xon;
	u64 w = r->window_ns && r->window_ns < span ? r->window_ns : span, t = 0;
	bool held;

	s->frames += frames;
	s->xoff += r->xoff;
	s->xon += r->xon;
	if (!pfc_on)
		s->unexpected += frames;
	if (r->paused_ns != FT_PFC_NO_TIME) {
		s->paused_ns += r->paused_ns;
		t = r->paused_ns < w ? r->paused_ns : w;
		held = t * 8 >= w * 7 || t + r->slack_ns >= w;
	} else {
		held = r->xoff || r->frames;
	}
	/* no time between the reads to judge a pause by */
	if (!span)
		return 0;
	if (!held) {
		if (!s->since)
			return 0;
		s->until = last + t;
		s->since = 0;
		return FT_PFC_PAUSE_ENDED;
	}
	/* the pause began as long before this read as it lasted, if known */
	if (!s->since)
		s->since = r->paused_ns != FT_PFC_NO_TIME ? now - t : last;
	/* until the next read, and as long again: a read may come late */
	s->until = now + 2 * next_ns;
	if (detect_ns && !s->storm_start && now - s->since >= detect_ns) {
		s->storm_start = s->since;
		s->storms++;
		return FT_PFC_STORM_START;
	}
	return 0;
}

/*
 * @s is counted another way from @now on: what it counted stays, no
 * pause is in progress for the new way, nor an unbroken one.
 */
static inline void ft_pfc_switch(struct ft_pfc_prio *s, u64 now)
{
	s->paused_ns = ft_pfc_paused(s, now);
	s->start = 0;
	s->since = 0;
	if (s->until > now)
		s->until = now;
}

/* Whether @s, counted by ft_pfc_poll(), is paused at @now. */
static inline bool ft_pfc_poll_paused(const struct ft_pfc_prio *s, u64 now)
{
	return s->since && s->until > now;
}

/*
 * Add what @s counted to @sum, its paused time up to @now: a port's
 * figures are its links' sums, and a link dropped from a port leaves its
 * figures in the port's.  @sum is a priority no frame reaches: it has no
 * pause in progress nor storm, so ft_pfc_paused(sum, t) is its paused_ns
 * at any t, and a link's pause cut at @now stays as long as it was then.
 */
static inline void ft_pfc_fold(struct ft_pfc_prio *sum,
			       const struct ft_pfc_prio *s, u64 now)
{
	sum->frames += s->frames;
	sum->xoff += s->xoff;
	sum->xon += s->xon;
	sum->quanta += s->quanta;
	sum->unexpected += s->unexpected;
	sum->paused_ns += ft_pfc_paused(s, now);
	sum->storms += s->storms;
}

/*
 * A QP's share of its priority's paused time (pfc.c).  While the QP lives,
 * its base is what the priority's total was when the QP took it, and its
 * share what the total grew by since; once the QP is gone (@frozen), the
 * base holds the share itself.  Nanoseconds in 64 bits, which no QP's life
 * wraps (32-bit microseconds wrapped after 71.6 minutes of pause).
 */
static inline u64 ft_pfc_share(u64 base, u64 total, bool frozen)
{
	return frozen ? base : total - base;
}

/* The base that gives a QP @share while its priority's total is @total. */
static inline u64 ft_pfc_share_base(u64 share, u64 total)
{
	return total - share;
}

#endif /* _FABTRACE_PAUSE_H */
