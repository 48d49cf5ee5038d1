// SPDX-License-Identifier: GPL-2.0
/* ft_wirefuzz: malformed RoCEv2 frames at a node's rxe, from an AF_PACKET socket. */

/*
 * Every frame goes to --dst-mac / --dst-ip (IPv6: --dst-ip6), UDP 4791 unless
 * the category says otherwise, from --src-ip (default: the interface's
 * address), which is the peer of every QP --live-qpn names.  Each category
 * knows, by how it built its frames, what the receiving kernel does with
 * them, and so what fabtrace must count there.  Its fate is one of
 *
 *   stack    dropped by the Ethernet/IP/UDP stack before rxe_rcv(): fabtrace
 *            sees nothing
 *   drop     reaches rxe_rcv(), which drops it: counted on the device, never
 *            on a QP, by the first of rxe's checks it fails (fabtrace's
 *            rx-drops, in this order):
 *              malformed   too short for its headers or its pad, an opcode
 *                          rxe does not know (reserved, vendor, XRC, CNP),
 *                          BTH version not 0
 *              unknown_qp  QPN 0, or a QPN no QP has (--live-qpn lists them)
 *              qp_state    a live (RC, RTS) QP, an opcode of another transport
 *              address     a live QP, not from its peer (IPv6 to an IPv4 QP)
 *              key         a live QP, a P_Key outside the default partition
 *              icrc        a bad ICRC, every check before passed
 *              mcast       QPN 0xffffff with a good ICRC: rxe counts it in
 *                          rcvd_pkts ("rxe_accept"), finds no multicast
 *                          group and drops it
 *              other       none of the above: no category makes one
 *   qp       a CNP rxe drops (it has no such opcode) that its checks would
 *            take (a live QP, from its peer, default P_Key, good ICRC):
 *            counted on its QP as received, in class cnp
 *
 * No injected frame is ever counted on a QP but those CNPs.  Frame i is a
 * pure function of --seed and i.  --check (host, with --pcap or without
 * sending) runs fabtrace's own parser and drop classifier (kmod/roce.c) on
 * every frame predicted to reach rxe, with --live-qpn's QPs as RC QPs in
 * RTS whose peer is --src-ip, and fails on any disagreement.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "icrc.h"
#include "raw.h"
#include "../../kmod/roce.h"

#define PORT		4791
#define MAX_LIVE	64
#define FMAX		512

enum fate { F_STACK, F_DROP, F_QP, F_MAX };
static const char *const fate_names[F_MAX] = { "stack", "drop", "qp" };

/* rx-drops reasons (enum ft_drop), as the JSON names them */
static const char *const why_names[FT_DROP_MAX] = {
	"malformed", "unknown_qp", "qp_state", "address", "key", "icrc", "mcast", "other"
};

/* fabtrace's rx classes, as fabtrace -j qp show names them */
static const char *const cls_names[FT_CLS_MAX] = {
	"send", "write", "read_req", "read_resp", "atomic", "cnp", "other", "ack", "nak"
};
static const char *const nak_names[FT_NAK_MAX] = {
	"psn_seq", "rnr", "rem_access", "inv_req", "rem_op", "other"
};

static struct {
	struct raw_link l;
	const char *only;
	uint8_t src_ip6[16], dst_ip6[16];
	bool have_dst_ip6;
	bool check, no_ipv6, vlan0_reaches;
	long count, rate;
	int dscp;			/* of the CE-marked live_ce_* frames */
	uint64_t seed;
	double timeout_s;
	int nlive;
	uint32_t live_qpn[MAX_LIVE], live_rq_psn[MAX_LIVE], live_sq_psn[MAX_LIVE];
	bool live_psn[MAX_LIVE];
} c = { .count = 100000, .seed = 1, .timeout_s = 600 };

/* Per live QP: what fabtrace must add to its rx counters (its CNPs alone). */
static struct live_acct {
	uint64_t pkts, bytes, cls[FT_CLS_MAX], nak[FT_NAK_MAX];
} live[MAX_LIVE];

/* ---- categories ------------------------------------------------------- */

struct frame {
	uint8_t b[FMAX];
	int len;
	enum fate fate;
	enum ft_drop why;	/* F_DROP: the reason fabtrace must count */
	int live;		/* index into live[], F_QP only */
	uint8_t cls, slot;	/* F_QP: fabtrace's class and slot */
	uint32_t payload;	/* F_QP: payload bytes fabtrace counts */
	int l3;			/* offset of the IP header */
	int rx_len;		/* bytes from the IP header rxe_rcv() sees (after trims) */
	struct frame *next;	/* a second frame sent right after (fragments) */
};

struct cat {
	const char *name;
	int weight;		/* per 10000 frames */
	void (*gen)(struct frame *f, uint64_t i, uint64_t n);
	uint64_t sent, fate[F_MAX], why[FT_DROP_MAX];
};

/* ---- deterministic randomness: splitmix64 of (seed, frame index) ------ */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint32_t rndn(uint32_t n)
{
	return n ? rnd() % n : 0;
}

/* ---- headers ------------------------------------------------------------ */

static void put16(uint8_t *p, unsigned int v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

static uint32_t csum_add(uint32_t sum, const uint8_t *p, int len)
{
	int i;

	for (i = 0; i + 1 < len; i += 2)
		sum += p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += p[len - 1] << 8;
	return sum;
}

static void ip4_csum(uint8_t *ip)
{
	int hl = (ip[0] & 0xf) * 4;

	ip[10] = ip[11] = 0;
	put16(ip + 10, (uint16_t)~csum_fold(csum_add(0, ip, hl)));
}

/* UDP checksum over IPv6 (mandatory there); @len is the UDP length. */
static void udp6_csum(uint8_t *ip6, uint8_t *udp, int len)
{
	uint32_t sum = 0;
	uint8_t ph[8] = { 0, 0, len >> 8, len, 0, 0, 0, 17 };
	uint16_t cs;

	udp[6] = udp[7] = 0;
	sum = csum_add(sum, ip6 + 8, 32);
	sum = csum_add(sum, ph, 8);
	sum = csum_add(sum, udp, len);
	cs = ~csum_fold(sum);
	put16(udp + 6, cs ? cs : 0xffff);
}

static void udp4_csum(uint8_t *ip, uint8_t *udp, int len)
{
	uint32_t sum = 0;
	uint8_t ph[4] = { 0, 17, len >> 8, len };
	uint16_t cs;

	udp[6] = udp[7] = 0;
	sum = csum_add(sum, ip + 12, 8);
	sum = csum_add(sum, ph, 4);
	sum = csum_add(sum, udp, len);
	cs = ~csum_fold(sum);
	put16(udp + 6, cs ? cs : 0xffff);
}

/* What a RoCE frame is made of. */
struct spec {
	bool ipv6, vlan;
	uint16_t vid;
	int ihl;		/* IPv4 header words, 5..15 */
	uint8_t opcode, bth1, fb;	/* bth1: SE M pad TVer; fb: FECN/BECN byte */
	uint8_t tos;		/* IPv4 TOS or IPv6 traffic class: DSCP << 2 | ECN */
	uint16_t pkey, sport, dport;
	uint32_t qpn, psn;
	int ext, payload, pad;
	uint8_t syndrome;	/* first ext byte (AETH) when ext > 0 */
	bool bad_icrc;
};

static void spec_init(struct spec *s)
{
	memset(s, 0, sizeof(*s));
	s->ihl = 5;
	s->pkey = 0xffff;
	s->sport = 0xc000 | rndn(0x4000);
	s->dport = PORT;
	s->psn = rndn(1 << 24);
}

/* Build a complete, consistent frame from @s. */
static void build(struct frame *f, const struct spec *s)
{
	uint8_t *p = f->b, *ip, *udp, *bth;
	int l2 = 14 + (s->vlan ? 4 : 0), iphl = s->ipv6 ? 40 : s->ihl * 4;
	int udplen = 8 + 12 + s->ext + s->payload + s->pad + 4, i;
	uint32_t icrc;
	const char *err;

	memset(f, 0, sizeof(*f));
	f->live = -1;
	memcpy(p, c.l.dst_mac, 6);
	memcpy(p + 6, c.l.src_mac, 6);
	if (s->vlan) {
		put16(p + 12, 0x8100);
		put16(p + 14, s->vid);
	}
	put16(p + l2 - 2, s->ipv6 ? 0x86dd : 0x0800);
	ip = p + l2;
	f->l3 = l2;
	if (s->ipv6) {
		ip[0] = 0x60 | s->tos >> 4;
		ip[1] = s->tos << 4;
		put16(ip + 4, udplen);
		ip[6] = 17;
		ip[7] = 64;
		memcpy(ip + 8, c.src_ip6, 16);
		memcpy(ip + 24, c.dst_ip6, 16);
	} else {
		ip[0] = 0x40 | s->ihl;
		ip[1] = s->tos;
		put16(ip + 2, iphl + udplen);
		put16(ip + 4, rndn(0x10000));
		ip[6] = 0x40;			/* DF */
		ip[8] = 64;
		ip[9] = 17;
		memcpy(ip + 12, &c.l.src_ip, 4);
		memcpy(ip + 16, &c.l.dst_ip, 4);
		for (i = 20; i < iphl; i++)
			ip[i] = 1;		/* NOP options */
		ip4_csum(ip);
	}
	udp = ip + iphl;
	put16(udp, s->sport);
	put16(udp + 2, s->dport);
	put16(udp + 4, udplen);
	bth = udp + 8;
	bth[0] = s->opcode;
	bth[1] = s->bth1 | (s->pad & 3) << 4;
	put16(bth + 2, s->pkey);
	bth[4] = s->fb;
	bth[5] = s->qpn >> 16;
	bth[6] = s->qpn >> 8;
	bth[7] = s->qpn;
	bth[8] = 0;
	bth[9] = s->psn >> 16;
	bth[10] = s->psn >> 8;
	bth[11] = s->psn;
	for (i = 0; i < s->ext + s->payload + s->pad; i++)
		bth[12 + i] = rnd();
	if (s->ext)
		bth[12] = s->syndrome;
	f->len = l2 + iphl + udplen;
	f->rx_len = iphl + udplen;
	/* rxe's ICRC covers a 20-byte IPv4 header; with options it is garbage anyway */
	if (s->ipv6 || s->ihl == 5) {
		icrc = ft_roce_icrc(ip, iphl + udplen - 4, &err);
		if (err) {
			fprintf(stderr, "%s: internal error: %s\n", raw_prog, err);
			exit(1);
		}
	} else {
		icrc = rnd();
	}
	if (s->bad_icrc)
		icrc ^= 1u + rndn(0xfffffffe);
	for (i = 0; i < 4; i++)
		p[f->len - 4 + i] = icrc >> (8 * i);
	if (s->ipv6)
		udp6_csum(ip, udp, udplen);
}

/* The IP header's offset within the frame, and its length. */
static uint8_t *l3(struct frame *f)
{
	return f->b + f->l3;
}

/* ---- opcodes ------------------------------------------------------------ */

/* Templates for truncation: one per kind of extended header. */
static const struct { uint8_t op; int ext, payload; } tmpl[] = {
	{ 0x04, 0, 24 },	/* RC SEND ONLY: BTH, payload, ICRC */
	{ 0x0a, 16, 24 },	/* RC WRITE ONLY: RETH */
	{ 0x06, 16, 24 },	/* RC WRITE FIRST: RETH */
	{ 0x0c, 16, 0 },	/* RC READ REQUEST: RETH, no payload */
	{ 0x11, 4, 0 },		/* RC ACK: AETH */
	{ 0x10, 4, 24 },	/* RC READ RESPONSE ONLY: AETH */
	{ 0x13, 28, 0 },	/* RC CMP_SWAP: AtomicETH */
	{ 0x64, 8, 24 },	/* UD SEND ONLY: DETH */
	{ 0x65, 12, 16 },	/* UD SEND ONLY IMM: DETH + ImmDt */
	{ 0x81, 16, 0 },	/* CNP: 16 reserved bytes */
};
#define NTMPL	(sizeof(tmpl) / sizeof(tmpl[0]))

static int n_valid, n_reserved, n_rc_reserved;
static uint8_t valid_ops[256], reserved_ops[256], rc_reserved_ops[32];

static void init_ops(void)
{
	int o;

	for (o = 0; o < 256; o++) {
		if (o == FT_OPCODE_CNP)
			continue;
		if (ft_ops[o].flags & FT_OP_VALID)
			valid_ops[n_valid++] = o;
		else
			reserved_ops[n_reserved++] = o;
		if (o < 0x20 && !(ft_ops[o].flags & FT_OP_VALID))
			rc_reserved_ops[n_rc_reserved++] = o;
	}
}

/* A QPN no live QP has: above every rxe QP index, never 0xffffff. */
static uint32_t dead_qpn(void)
{
	uint32_t q;
	int i;

again:
	q = 0x100000 + rndn(0xefffff);		/* 0x100000..0xfffffe */
	for (i = 0; i < c.nlive; i++)
		if (c.live_qpn[i] == q)
			goto again;
	return q;
}

/* A valid opcode with its ext length from fabtrace's table (independent
 * of the parser's verdict: the table is the contract's list of opcodes). */
static void spec_valid(struct spec *s, uint8_t op)
{
	s->opcode = op;
	s->ext = op == FT_OPCODE_CNP ? 16 : ft_ops[op].ext;
	if (ft_ops[op].flags & FT_OP_AETH)
		s->syndrome = rndn(0x20);	/* an ACK */
}

/* ---- what the receiver does with a frame, by how it was built ----------- */

static void drop(struct frame *f, enum ft_drop why)
{
	f->fate = F_DROP;
	f->why = why;
}

/* Whether rxe knows opcode @op: RC, UC or UD, and in the contract's table. */
static bool op_known(uint8_t op)
{
	return (op & 0xe0) <= 0x60 && (ft_ops[op].flags & FT_OP_VALID);
}

/*
 * A frame of spec @s, whole (its lengths consistent, its ICRC where it
 * belongs, right unless @s says bad), to live QP @li (-1: a QPN no QP has),
 * from --src-ip, its peer, over IPv4 (over IPv6 never from its peer): the
 * first of rxe's checks that it fails, in rx-drops' order, or a CNP rxe's
 * checks would take, counted on its QP.  The live QPs are RC QPs in RTS:
 * they take RC requests and responses alike.
 */
static void predict(struct frame *f, const struct spec *s, int li)
{
	bool pkey_ok = (s->pkey & 0x7fff) == 0x7fff;

	/* rxe's order: the BTH version, then the QP, then the opcode */
	if (s->opcode == FT_OPCODE_CNP) {
		if (li < 0 && s->qpn != 0xffffff && !(s->bth1 & 0xf))
			return drop(f, FT_DROP_UNKNOWN_QP);
		/* rxe knows no CNP: malformed, unless its other checks pass */
		if (li < 0 || s->ipv6 || !pkey_ok || s->bad_icrc)
			return drop(f, FT_DROP_MALFORMED);
		f->fate = F_QP;
		f->live = li;
		f->cls = f->slot = FT_CLS_CNP;
		f->payload = 0;
		return;
	}
	if (s->bth1 & 0xf)
		return drop(f, FT_DROP_MALFORMED);
	if (s->qpn == 0xffffff) {
		if (!op_known(s->opcode))
			return drop(f, FT_DROP_MALFORMED);
		return drop(f, s->bad_icrc ? FT_DROP_ICRC : FT_DROP_MCAST);
	}
	if (li < 0)
		return drop(f, FT_DROP_UNKNOWN_QP);
	if (!op_known(s->opcode))
		return drop(f, FT_DROP_MALFORMED);
	if ((s->opcode & 0xe0) != 0)
		return drop(f, FT_DROP_QP_STATE);
	if (s->ipv6)
		return drop(f, FT_DROP_ADDRESS);
	if (!pkey_ok)
		return drop(f, FT_DROP_KEY);
	if (s->bad_icrc)
		return drop(f, FT_DROP_ICRC);
	/* rxe would take it: an injected frame at a QP, which none may be */
	fprintf(stderr, "%s: internal error: frame of opcode 0x%02x to live QP %u accepted\n",
		raw_prog, s->opcode, c.live_qpn[li]);
	exit(1);
}

/* Bytes of UDP payload the headers of @s need: BTH, its ext headers, pad, ICRC. */
static int udp_need(const struct spec *s)
{
	int ext = s->opcode == FT_OPCODE_CNP ? 16 : ft_ops[s->opcode].ext;

	if (!(ft_ops[s->opcode].flags & FT_OP_VALID) && s->opcode != FT_OPCODE_CNP)
		ext = 0;
	return 12 + ext + 4 + s->pad;
}

/*
 * A frame of spec @s to live QP @li (or -1) whose UDP payload the receiver
 * sees cut to @u bytes (lengths claiming no more): too short for its
 * headers is malformed; a longer cut has its ICRC elsewhere than where it
 * belongs.
 */
static void predict_cut(struct frame *f, const struct spec *s, int li, int u)
{
	struct spec t = *s;
	int full = 12 + s->ext + s->payload + s->pad + 4;

	if (u < udp_need(s))
		return drop(f, FT_DROP_MALFORMED);
	t.bad_icrc |= u != full;
	predict(f, &t, li);
}

/* ---- the categories ------------------------------------------------------- */

/* A template frame, to a dead QPN, good ICRC. */
static void tmpl_spec(struct spec *s, uint64_t t)
{
	spec_init(s);
	s->opcode = tmpl[t].op;
	s->ext = tmpl[t].ext;
	s->payload = tmpl[t].payload;
	s->qpn = dead_qpn();
	if (s->opcode == 0x11 || s->opcode == 0x10)
		s->syndrome = 0;
}

/* Every cut point of every template, lengths left claiming the whole frame. */
static void g_trunc_raw(struct frame *f, uint64_t i, uint64_t n)
{
	struct spec s;
	int full, cut;

	(void)n;
	tmpl_spec(&s, i % NTMPL);
	build(f, &s);
	full = f->len;
	cut = 1 + (i / NTMPL) % (full - 1);	/* 1 .. full-1 */
	/* under 14 bytes, what AF_PACKET would send anyway: zeros to 14 */
	if (cut < 14)
		memset(f->b + cut, 0, 14 - cut);
	f->len = cut < 14 ? 14 : cut;
	f->fate = F_STACK;
}

/* Every cut point from the UDP header on, IP and UDP lengths rewritten. */
static void g_trunc_fixed(struct frame *f, uint64_t i, uint64_t n)
{
	struct spec s;
	uint8_t *ip;
	int full, cut, u;

	(void)n;
	tmpl_spec(&s, i % NTMPL);
	build(f, &s);
	full = f->len;
	cut = 34 + (i / NTMPL) % (full - 34);	/* 34 .. full-1 */
	ip = l3(f);
	put16(ip + 2, cut - 14);
	ip4_csum(ip);
	f->len = cut;
	f->rx_len = cut - 14;
	if (cut < 42) {
		f->fate = F_STACK;	/* UDP header cut: udp_rcv drops it */
		return;
	}
	put16(ip + 24, cut - 34);
	u = cut - 42;
	predict_cut(f, &s, -1, u);
}

/* The same cuts at a live QP, always short of its headers: malformed. */
static void g_live_trunc(struct frame *f, uint64_t i, uint64_t n)
{
	struct spec s;
	uint8_t *ip;
	int need, u, li;

	(void)n;
	if (!c.nlive)
		return g_trunc_fixed(f, i, n);
	tmpl_spec(&s, i % NTMPL);
	li = (i / NTMPL) % c.nlive;
	s.qpn = c.live_qpn[li];
	build(f, &s);
	need = 12 + tmpl[i % NTMPL].ext + 4;
	u = (i / NTMPL / c.nlive) % need;	/* 0 .. need-1: always short */
	ip = l3(f);
	put16(ip + 2, 28 + u);
	ip4_csum(ip);
	put16(ip + 24, 8 + u);
	f->len = 42 + u;
	f->rx_len = 28 + u;
	predict_cut(f, &s, li, u);
}

/* UDP length shorter than the datagram: the UDP stack trims to it. */
static void g_udp_short(struct frame *f, uint64_t i, uint64_t n)
{
	struct spec s;
	int ulen, full;

	(void)n;
	tmpl_spec(&s, i % NTMPL);
	build(f, &s);
	full = f->len - 34;
	ulen = (i / NTMPL) % full;		/* 0 .. full-1 */
	put16(l3(f) + 24, ulen);
	f->rx_len = 20 + ulen;
	if (ulen < 8)
		f->fate = F_STACK;
	else
		predict_cut(f, &s, -1, ulen - 8);
}

/* UDP length longer than the datagram: udp_rcv drops it. */
static void g_udp_long(struct frame *f, uint64_t i, uint64_t n)
{
	struct spec s;
	int full;

	(void)n;
	tmpl_spec(&s, i % NTMPL);
	build(f, &s);
	full = f->len - 34;
	put16(l3(f) + 24, full + 1 + rndn(65535 - full));
	f->fate = F_STACK;
}

/* IP total length shorter (UDP length then exceeds it) or longer than the frame. */
static void g_ip_short(struct frame *f, uint64_t i, uint64_t n)
{
	struct spec s;
	int full;

	(void)n;
	tmpl_spec(&s, i % NTMPL);
	build(f, &s);
	full = f->len - 14;
	put16(l3(f) + 2, (i / NTMPL) % full);	/* 0 .. full-1 */
	ip4_csum(l3(f));
	f->fate = F_STACK;
}

static void g_ip_long(struct frame *f, uint64_t i, uint64_t n)
{
	struct spec s;
	int full;

	(void)n;
	tmpl_spec(&s, i % NTMPL);
	build(f, &s);
	full = f->len - 14;
	put16(l3(f) + 2, full + 1 + rndn(65535 - full));
	ip4_csum(l3(f));
	f->fate = F_STACK;
}

static void g_ip_bad_csum(struct frame *f, uint64_t i, uint64_t n)
{
	struct spec s;

	(void)n;
	tmpl_spec(&s, i % NTMPL);
	build(f, &s);
	l3(f)[10] ^= 1 + rndn(0xff);
	f->fate = F_STACK;
}

static void g_udp_bad_csum(struct frame *f, uint64_t i, uint64_t n)
{
	struct spec s;
	uint8_t *ip;
	uint16_t cs;

	(void)n;
	tmpl_spec(&s, i % NTMPL);
	build(f, &s);
	ip = l3(f);
	udp4_csum(ip, ip + 20, f->len - 34);
	cs = (ip[26] << 8 | ip[27]) ^ (1 + rndn(0xfffe));
	if (!cs)
		cs = 0x1234 ^ (ip[26] << 8 | ip[27]);	/* 0 would mean "none" */
	put16(ip + 26, cs);
	f->fate = F_STACK;
}

/* IPv4 options: NOPs reach rxe (the parser takes them); a bad option does not. */
static void g_ip_opts(struct frame *f, uint64_t i, uint64_t n)
{
	struct spec s;

	(void)n;
	tmpl_spec(&s, i % NTMPL);
	s.ihl = 6 + (i / NTMPL) % 10;
	build(f, &s);
	predict(f, &s, -1);
}

static void g_ip_opts_bad(struct frame *f, uint64_t i, uint64_t n)
{
	struct spec s;
	uint8_t *ip;

	(void)n;
	tmpl_spec(&s, i % NTMPL);
	s.ihl = 6 + (i / NTMPL) % 10;
	build(f, &s);
	ip = l3(f);
	ip[20] = 7;		/* record route, length 2 < 3: ip_options_compile() fails */
	ip[21] = 2;
	ip4_csum(ip);
	f->fate = F_STACK;
}

/* RoCEv2 over IPv6 to a dead QPN, any template. */
static void g_ipv6(struct frame *f, uint64_t i, uint64_t n)
{
	struct spec s;

	(void)n;
	tmpl_spec(&s, i % NTMPL);
	s.ipv6 = true;
	s.bad_icrc = i & 1;
	build(f, &s);
	if (c.no_ipv6)
		f->fate = F_STACK;
	else
		predict(f, &s, -1);
}

/*
 * IPv6 cut inside the ext headers or ICRC, lengths and checksum consistent:
 * malformed.  Never inside the BTH: rdma_rxe (6.1 and 6.12) then takes its
 * drop path before it has set pkt->qp, and puts whatever IPv6 left in
 * skb->cb (a panic on 6.12; IPv4 happens to leave zeros there).
 */
static void g_ipv6_trunc(struct frame *f, uint64_t i, uint64_t n)
{
	struct spec s;
	uint8_t *ip;
	int need, u;

	(void)n;
	tmpl_spec(&s, i % NTMPL);
	s.ipv6 = true;
	build(f, &s);
	need = tmpl[i % NTMPL].ext + 4;
	u = 12 + (i / NTMPL) % need;
	ip = l3(f);
	put16(ip + 4, 8 + u);
	put16(ip + 44, 8 + u);
	udp6_csum(ip, ip + 40, 8 + u);
	f->len = 14 + 48 + u;
	f->rx_len = 48 + u;
	if (c.no_ipv6)
		f->fate = F_STACK;
	else
		predict_cut(f, &s, -1, u);
}

/* IPv6 payload length longer than the frame: ipv6_rcv drops it. */
static void g_ipv6_long(struct frame *f, uint64_t i, uint64_t n)
{
	struct spec s;
	int full;

	(void)n;
	tmpl_spec(&s, i % NTMPL);
	s.ipv6 = true;
	build(f, &s);
	full = f->len - 54;
	put16(l3(f) + 4, full + 1 + rndn(65535 - full));
	f->fate = F_STACK;
}

/* 802.1Q tags: a VID the node has no VLAN device for never reaches IP. */
static void g_vlan(struct frame *f, uint64_t i, uint64_t n)
{
	struct spec s;

	(void)n;
	tmpl_spec(&s, i % NTMPL);
	s.vlan = true;
	s.vid = (rndn(8) << 13) | (1 + rndn(4094));
	build(f, &s);
	f->fate = F_STACK;
}

/* Priority-tagged (VID 0): delivered untagged if the NIC lets it through. */
static void g_vlan0(struct frame *f, uint64_t i, uint64_t n)
{
	struct spec s;

	(void)n;
	tmpl_spec(&s, i % NTMPL);
	s.vlan = true;
	s.vid = rndn(8) << 13;
	build(f, &s);
	if (c.vlan0_reaches)
		predict(f, &s, -1);
	else
		f->fate = F_STACK;
}

/*
 * Fragments.  Lone first (MF, offset 0) and lone later ones wait in the
 * reassembly queue until they expire; IDs come from disjoint ranges so no
 * two ever complete each other.  A pair (first + last of one datagram)
 * reassembles and reaches rxe as one packet.
 */
static void frag_hdr(uint8_t *ip, int id, int off8, bool mf, int tot)
{
	put16(ip + 2, tot);
	put16(ip + 4, id);
	put16(ip + 6, (mf ? 0x2000 : 0) | off8);
	ip4_csum(ip);
}

static void g_frag_lone(struct frame *f, uint64_t i, uint64_t n)
{
	struct spec s;
	int data;

	(void)n;
	tmpl_spec(&s, i % NTMPL);
	build(f, &s);
	data = f->len - 34;
	if (i & 1) {
		/* a first fragment: the first 8-byte multiple, more to come */
		int d = data & ~7;

		if (d == data)
			d -= 8;
		frag_hdr(l3(f), 0x0000 + (i / 2) % 0x4000, 0, true, 20 + d);
		f->len = 34 + d;
	} else {
		/* a later fragment, last or not */
		frag_hdr(l3(f), 0x4000 + (i / 2) % 0x4000, 1 + rndn(100), rndn(2), 20 + data);
	}
	f->fate = F_STACK;
}

static struct frame frag2;

static void g_frag_pair(struct frame *f, uint64_t i, uint64_t n)
{
	struct spec s;
	int data, d, id = 0x8000 + i % 0x8000;

	(void)n;
	tmpl_spec(&s, i % NTMPL);
	build(f, &s);
	data = f->len - 34;
	d = 8 * (1 + rndn((data - 1) / 8));	/* first fragment's data, < data */
	frag2 = *f;
	memmove(frag2.b + 34, f->b + 34 + d, data - d);
	frag_hdr(l3(&frag2), id, d / 8, false, 20 + data - d);
	frag2.len = 34 + data - d;
	frag2.fate = F_STACK;		/* counted once, with the first */
	frag_hdr(l3(f), id, 0, true, 20 + d);
	f->len = 34 + d;
	predict(f, &s, -1);
	f->rx_len = 20 + data;
	/* what rxe sees is the whole datagram: rebuild it for --check */
	f->next = &frag2;
}

/* UDP ports other than 4791 (no socket: ICMP port unreachable). */
static void g_bad_port(struct frame *f, uint64_t i, uint64_t n)
{
	static const uint16_t ports[] = { 4790, 4792, 9, 7, 5000, 14791, 47910, 61000, 4791 ^ 0x100 };
	struct spec s;

	(void)n;
	tmpl_spec(&s, i % NTMPL);
	s.dport = ports[(i / NTMPL) % (sizeof(ports) / sizeof(ports[0]))];
	if (i & 1)
		s.sport = PORT;
	build(f, &s);
	f->fate = F_STACK;
}

/* Reserved and vendor opcodes, good ICRC, dead QPN. */
static void g_bad_opcode(struct frame *f, uint64_t i, uint64_t n)
{
	struct spec s;

	(void)n;
	spec_init(&s);
	s.opcode = reserved_ops[i % n_reserved];
	s.payload = rndn(64);
	s.qpn = dead_qpn();
	s.bad_icrc = rndn(2);
	build(f, &s);
	predict(f, &s, -1);
}

/* CNPs (0x81) to dead QPNs: rxe has no such opcode, and no QP would take them. */
static void g_cnp(struct frame *f, uint64_t i, uint64_t n)
{
	struct spec s;

	(void)n; (void)i;
	spec_init(&s);
	spec_valid(&s, FT_OPCODE_CNP);
	s.fb = 0x40;
	s.qpn = dead_qpn();
	build(f, &s);
	predict(f, &s, -1);
}

/* ACKs with every syndrome, reserved ones included, to dead QPNs. */
static void g_bad_nak(struct frame *f, uint64_t i, uint64_t n)
{
	struct spec s;

	(void)n;
	spec_init(&s);
	spec_valid(&s, (i & 1) ? 0x11 : 0xb1);	/* RC or XRC ACK */
	s.syndrome = (i / 2) % 256;
	s.qpn = dead_qpn();
	build(f, &s);
	predict(f, &s, -1);
}

/* Valid opcodes, random flags and P_Key, random dead QPNs (and QPN 0). */
static void g_rand_qpn(struct frame *f, uint64_t i, uint64_t n)
{
	struct spec s;

	(void)n;
	spec_init(&s);
	spec_valid(&s, valid_ops[i % n_valid]);
	s.payload = rndn(80);
	s.pad = rndn(4);
	s.bth1 = rnd() & 0xc0;			/* SE, M: anything */
	if (!rndn(4))
		s.bth1 |= rnd() & 0xf;		/* TVer, a fourth of the time: anything */
	s.fb = rnd();
	s.pkey = rndn(4) ? 0xffff : rnd();
	s.qpn = (i % 97 == 0) ? 0 : dead_qpn();
	s.bad_icrc = rndn(2);
	if (ft_ops[s.opcode].flags & FT_OP_AETH)
		s.syndrome = rnd();
	build(f, &s);
	predict(f, &s, -1);
}

/*
 * QPN 0xffffff with a good ICRC and TVer 0: rxe's multicast path counts it
 * in rcvd_pkts, then finds no group (mcast).  Bad ICRC: dropped before
 * counting (icrc).
 */
static void g_mcast(struct frame *f, uint64_t i, uint64_t n)
{
	struct spec s;

	(void)n;
	spec_init(&s);
	spec_valid(&s, (i & 1) ? 0x64 : 0x04);	/* UD SEND ONLY, RC SEND ONLY */
	s.payload = rndn(64);
	s.qpn = 0xffffff;
	s.bad_icrc = (i / 2) & 1;
	build(f, &s);
	predict(f, &s, -1);
}

/* Pad count larger than the bytes after the headers: malformed. */
static void g_bad_pad(struct frame *f, uint64_t i, uint64_t n)
{
	struct spec s;
	uint8_t *ip;
	int pad = 1 + i % 3, p = (i / 3) % pad;	/* p < pad bytes of pad+payload */

	(void)n;
	spec_init(&s);
	spec_valid(&s, 0x04);
	s.qpn = c.nlive && (i & 1) ? c.live_qpn[(i / 6) % c.nlive] : dead_qpn();
	build(f, &s);
	/* the UDP payload is BTH + p + ICRC: shorter than BTH + pad + ICRC */
	ip = l3(f);
	ip[42 - 14 + 1] |= pad << 4;
	put16(ip + 2, 20 + 8 + 12 + p + 4);
	ip4_csum(ip);
	put16(ip + 24, 8 + 12 + p + 4);
	f->len = 14 + 20 + 8 + 12 + p + 4;
	f->rx_len = f->len - 14;
	drop(f, FT_DROP_MALFORMED);
}

static int live_pick(uint64_t i)
{
	return i % c.nlive;
}

/*
 * A request PSN far ahead of what the live QP expects: were the frame
 * counted on the QP, its PSN tracker would count it out of sequence.
 */
static uint32_t live_req_psn(int li)
{
	if (!c.live_psn[li])
		return rndn(1 << 24);
	return (c.live_rq_psn[li] + 0x400000 + rndn(0x100000)) & 0xffffff;
}

/*
 * Valid RC requests to live QPs with a bad ICRC: icrc; a seventh with a bad
 * P_Key too (key, checked first), a seventh with TVer 1 (malformed).
 */
static void g_live_bad_icrc(struct frame *f, uint64_t i, uint64_t n)
{
	static const uint8_t ops[] = { 0x0a, 0x04, 0x06, 0x0b, 0x05, 0x00, 0x02 };
	struct spec s;
	int li;

	if (!c.nlive)
		return g_rand_qpn(f, i, n);
	li = live_pick(i);
	spec_init(&s);
	spec_valid(&s, ops[(i / c.nlive) % sizeof(ops)]);
	s.payload = rndn(128);
	s.qpn = c.live_qpn[li];
	s.psn = live_req_psn(li);
	s.bad_icrc = true;
	switch (i % 7) {
	case 0: s.pkey = 0x1234; break;	/* no match: rxe's bad_pkey_cntr */
	case 1: s.bth1 = 1; break;		/* TVer 1 */
	}
	build(f, &s);
	predict(f, &s, li);
}

/* Reserved RC opcodes at live QPs: rxe drops them unparsed: malformed. */
static void g_live_reserved(struct frame *f, uint64_t i, uint64_t n)
{
	struct spec s;
	int li;

	if (!c.nlive)
		return g_bad_opcode(f, i, n);
	li = live_pick(i);
	spec_init(&s);
	s.opcode = rc_reserved_ops[(i / c.nlive) % n_rc_reserved];
	s.payload = rndn(64);
	s.qpn = c.live_qpn[li];
	build(f, &s);
	predict(f, &s, li);
}

static void g_live_cnp(struct frame *f, uint64_t i, uint64_t n)
{
	struct spec s;
	int li;

	if (!c.nlive)
		return g_cnp(f, i, n);
	li = live_pick(i);
	spec_init(&s);
	spec_valid(&s, FT_OPCODE_CNP);
	s.fb = 0x40;
	s.psn = 0;
	s.qpn = c.live_qpn[li];
	s.bad_icrc = (i / c.nlive) & 1;
	build(f, &s);
	predict(f, &s, li);
}

/* UD opcodes (DETH) to RC QPs, good ICRC: rxe's type check drops them (qp_state). */
static void g_live_ud(struct frame *f, uint64_t i, uint64_t n)
{
	struct spec s;
	int li;

	if (!c.nlive)
		return g_rand_qpn(f, i, n);
	li = live_pick(i);
	spec_init(&s);
	spec_valid(&s, ((i / c.nlive) & 1) ? 0x65 : 0x64);
	s.payload = rndn(256);
	s.qpn = c.live_qpn[li];
	s.psn = live_req_psn(li);
	build(f, &s);
	predict(f, &s, li);
}

/* NAKs and ACKs, every syndrome, bad ICRC (icrc), PSN long acknowledged. */
static void g_live_nak(struct frame *f, uint64_t i, uint64_t n)
{
	struct spec s;
	int li;

	if (!c.nlive)
		return g_bad_nak(f, i, n);
	li = live_pick(i);
	spec_init(&s);
	spec_valid(&s, 0x11);
	s.syndrome = 0x20 + (i / c.nlive) % 0xe0;	/* RNR, reserved, NAK codes */
	s.qpn = c.live_qpn[li];
	if (c.live_psn[li])
		s.psn = (c.live_sq_psn[li] - 0x400000 - rndn(0x100000)) & 0xffffff;
	s.bad_icrc = true;
	build(f, &s);
	predict(f, &s, li);
}

/* IPv6 frames carrying a live IPv4 QP's number: rxe's address check drops them (address). */
static void g_live_ipv6(struct frame *f, uint64_t i, uint64_t n)
{
	struct spec s;
	int li;

	if (!c.nlive)
		return g_ipv6(f, i, n);
	li = live_pick(i);
	spec_init(&s);
	spec_valid(&s, 0x0a);
	s.ipv6 = true;
	s.payload = rndn(64);
	s.qpn = c.live_qpn[li];
	s.psn = live_req_psn(li);
	build(f, &s);
	if (c.no_ipv6)
		f->fate = F_STACK;
	else
		predict(f, &s, li);
}

/*
 * Forged congestion: an RDMA WRITE ONLY to a live QP, from its peer, at the
 * PSN it expects, CE-marked with --dscp, which rxe drops: with a bad ICRC
 * (icrc), or a good one and a P_Key outside the default partition (key).
 * Never counted on the QP, so never answered with a CNP.
 */
static void live_ce(struct frame *f, uint64_t i, uint64_t n, bool bad_pkey)
{
	struct spec s;
	int li;

	if (!c.nlive)
		return g_rand_qpn(f, i, n);
	li = live_pick(i);
	spec_init(&s);
	spec_valid(&s, 0x0a);
	s.payload = 1 + rndn(256);
	s.tos = c.dscp << 2 | FT_ECN_CE;
	s.qpn = c.live_qpn[li];
	if (c.live_psn[li])
		s.psn = c.live_rq_psn[li];
	if (bad_pkey)
		s.pkey = 0x8000 | rndn(0x7fff);		/* full member of 0x0000..0x7ffe */
	else
		s.bad_icrc = true;
	build(f, &s);
	predict(f, &s, li);
}

static void g_live_ce_icrc(struct frame *f, uint64_t i, uint64_t n)
{
	live_ce(f, i, n, false);
}

static void g_live_ce_pkey(struct frame *f, uint64_t i, uint64_t n)
{
	live_ce(f, i, n, true);
}

static struct cat cats[] = {
	{ .name = "trunc_raw", .weight = 900, .gen = g_trunc_raw },
	{ .name = "trunc_fixed", .weight = 900, .gen = g_trunc_fixed },
	{ .name = "live_trunc", .weight = 300, .gen = g_live_trunc },
	{ .name = "udp_len_short", .weight = 500, .gen = g_udp_short },
	{ .name = "udp_len_long", .weight = 300, .gen = g_udp_long },
	{ .name = "ip_len_short", .weight = 300, .gen = g_ip_short },
	{ .name = "ip_len_long", .weight = 300, .gen = g_ip_long },
	{ .name = "ip_bad_csum", .weight = 300, .gen = g_ip_bad_csum },
	{ .name = "udp_bad_csum", .weight = 300, .gen = g_udp_bad_csum },
	{ .name = "ip_options", .weight = 300, .gen = g_ip_opts },
	{ .name = "ip_options_bad", .weight = 200, .gen = g_ip_opts_bad },
	{ .name = "ipv6", .weight = 400, .gen = g_ipv6 },
	{ .name = "ipv6_trunc", .weight = 300, .gen = g_ipv6_trunc },
	{ .name = "ipv6_len_long", .weight = 200, .gen = g_ipv6_long },
	{ .name = "vlan", .weight = 300, .gen = g_vlan },
	{ .name = "vlan0", .weight = 100, .gen = g_vlan0 },
	{ .name = "frag_lone", .weight = 30, .gen = g_frag_lone },
	{ .name = "frag_pair", .weight = 200, .gen = g_frag_pair },
	{ .name = "bad_port", .weight = 300, .gen = g_bad_port },
	{ .name = "bad_opcode", .weight = 600, .gen = g_bad_opcode },
	{ .name = "cnp", .weight = 200, .gen = g_cnp },
	{ .name = "bad_nak", .weight = 400, .gen = g_bad_nak },
	{ .name = "rand_qpn", .weight = 800, .gen = g_rand_qpn },
	{ .name = "mcast_qpn", .weight = 100, .gen = g_mcast },
	{ .name = "bad_pad", .weight = 100, .gen = g_bad_pad },
	{ .name = "live_bad_icrc", .weight = 300, .gen = g_live_bad_icrc },
	{ .name = "live_reserved", .weight = 200, .gen = g_live_reserved },
	{ .name = "live_cnp", .weight = 100, .gen = g_live_cnp },
	{ .name = "live_ud_opcode", .weight = 200, .gen = g_live_ud },
	{ .name = "live_nak", .weight = 200, .gen = g_live_nak },
	{ .name = "live_ipv6", .weight = 100, .gen = g_live_ipv6 },
	{ .name = "live_ce_icrc", .weight = 100, .gen = g_live_ce_icrc },
	{ .name = "live_ce_pkey", .weight = 100, .gen = g_live_ce_pkey },
};
#define NCATS	(sizeof(cats) / sizeof(cats[0]))

/* ---- --check: fabtrace's parser and classifier on what rxe_rcv() sees --- */

static uint64_t check_fail;

/* A live QP's number: its index, else -1. */
static int live_index(uint32_t qpn)
{
	int li;

	for (li = 0; li < c.nlive; li++)
		if (c.live_qpn[li] == qpn)
			return li;
	return -1;
}

/*
 * What fabtrace's receive path makes of a frame rxe_rcv() drops (its drop
 * tap, kmod/tap.c): the whole packet, from its IP header, goes to the parser,
 * then to the classifier, which knows --live-qpn's QPs as RC QPs in RTS
 * whose peer is --src-ip; a CNP the classifier's rxe would take is counted
 * on its QP.
 */
static void check_frame(struct cat *k, struct frame *f)
{
	static const uint8_t v4mapped[12] = { [10] = 0xff, [11] = 0xff };
	uint8_t whole[FMAX], peer[16];
	const uint8_t *ip = l3(f);
	struct ft_drop_qp dq = { 0 };
	struct ft_pkt pkt = { 0 };
	enum ft_parse_err e;
	enum ft_drop why = FT_DROP_MAX;
	enum fate fate = F_DROP;
	uint32_t len = f->rx_len;
	int li = -1;

	if (f->fate == F_STACK)
		return;
	if (f->next) {
		/* a reassembled datagram: the first fragment's header, both data */
		int d1 = f->len - 34, d2 = f->next->len - 34;

		memcpy(whole, ip, 20 + d1);
		memcpy(whole + 20 + d1, l3(f->next) + 20, d2);
		ip = whole;
	}
	memcpy(peer, v4mapped, 12);
	memcpy(peer + 12, &c.l.src_ip, 4);
	e = ft_parse(ip, len, len, &pkt);
	if (e != FT_PARSE_OK) {
		why = ft_drop_reason(ip, len, len, NULL, &dq);
	} else {
		li = live_index(pkt.qpn);
		if (li >= 0) {
			dq.found = 1;
			dq.type = 2;		/* IB_QPT_RC */
			dq.state = 3;		/* IB_QPS_RTS */
			dq.peer = peer;
		}
		if (pkt.opcode == FT_OPCODE_CNP && ft_rxe_takes(ip, len, len, &pkt, &dq))
			fate = F_QP;
		else
			why = ft_drop_reason(ip, len, len, &pkt, &dq);
	}
	if (fate == f->fate && (fate == F_DROP ? why == f->why :
	    li == f->live && pkt.slot == f->slot && pkt.payload == f->payload))
		return;
	if (check_fail++ < 20)
		fprintf(stderr, "%s: check: %s frame (%d bytes) predicted %s %s, fabtrace says %s %s "
			"(parse err %d, QP %d/%d, slot %d/%d, payload %u/%u)\n", raw_prog, k->name,
			f->len, fate_names[f->fate], f->fate == F_DROP ? why_names[f->why] : "",
			fate_names[fate], fate == F_DROP ? why_names[why] : "", e, f->live, li,
			f->slot, pkt.slot, f->payload, pkt.payload);
}

/* ---- options ------------------------------------------------------------ */

static void usage(void)
{
	printf("Usage: %s --ifname IF --dst-ip A.B.C.D [options]\n"
"  --ifname IF            interface to send on (its MAC and addresses are defaults)\n"
"  --dst-ip A.B.C.D       the receiving node's RoCE address\n"
"  --dst-mac MAC          default: IF's neighbour entry for --dst-ip\n"
"  --src-ip A.B.C.D       default: IF's address\n"
"  --dst-ip6 ADDR         IPv6 destination (the receiver's link-local); without it\n"
"                         IPv6 frames go to fe80::1 and count as dropped by the stack\n"
"  --src-ip6 ADDR         IPv6 source (default fe80::2)\n"
"  --live-qpn Q[:RQ:SQ]   an RC QP of the receiver in RTS, whose peer is --src-ip\n"
"                         (repeat, up to %d), with its expected request PSN and send\n"
"                         PSN (rdma resource show qp); every other QPN is no QP's\n"
"  --vlan0-reaches        priority-tagged (VID 0) frames reach IP on the receiver\n"
"  --seed S               frame i is a function of S and i (default 1)\n"
"  --count N              frames to send (default 100000)\n"
"  --rate R               frames per second (default 0: as fast as the NIC takes them)\n"
"  --only NAME            only category NAME (see the summary's \"categories\")\n"
"  --dscp D               DSCP of the CE-marked frames of live_ce_icrc and\n"
"                         live_ce_pkey (default 0)\n"
"  --pcap FILE            write the frames to FILE instead of sending\n"
"  --check                run fabtrace's parser and drop classifier on every frame\n"
"                         predicted to reach rxe\n"
"                         (no sending unless --ifname is given too); exit 1 on a miss\n"
"  --timeout-s S          deadline (default 600; 0 = none)\n"
"Prints one JSON line: frames sent and their predicted fate (stack, drop, qp), the\n"
"drops by reason, by category and in total, and what each live QP must add to\n"
"its rx counters (the CNPs its checks take).\n"
"Exit: 0 ok, 1 failure, 2 usage, 3 deadline.\n", raw_prog, MAX_LIVE);
}

static unsigned long long parse_u(const char *opt, const char *s, unsigned long long max)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end || *s == '-' || v > max)
		raw_usage_error("%s: '%s' is not an integer in [0, %llu]", opt, s, max);
	return v;
}

static void parse_live(const char *s)
{
	char buf[128], *a, *b;
	int n = c.nlive;

	if (n >= MAX_LIVE)
		raw_usage_error("--live-qpn: at most %d", MAX_LIVE);
	snprintf(buf, sizeof(buf), "%s", s);
	a = strchr(buf, ':');
	if (a) {
		*a++ = 0;
		b = strchr(a, ':');
		if (!b)
			raw_usage_error("--live-qpn: '%s' is not QPN or QPN:RQPSN:SQPSN", s);
		*b++ = 0;
		c.live_rq_psn[n] = parse_u("--live-qpn", a, 0xffffff);
		c.live_sq_psn[n] = parse_u("--live-qpn", b, 0xffffff);
		c.live_psn[n] = true;
	}
	c.live_qpn[n] = parse_u("--live-qpn", buf, 0xffffff);
	if (c.live_qpn[n] == 0 || c.live_qpn[n] == 0xffffff)
		raw_usage_error("--live-qpn: %u is not a QP's number", c.live_qpn[n]);
	if (live_index(c.live_qpn[n]) >= 0)
		raw_usage_error("--live-qpn: %u given twice", c.live_qpn[n]);
	c.nlive++;
}

static void parse(int argc, char **argv)
{
	enum { O_DIP6 = RAW_O_PROG, O_SIP6, O_LIVE, O_V0, O_SEED, O_COUNT, O_RATE, O_ONLY,
	       O_DSCP, O_CHECK, O_TIMEOUT };
	static const struct option opts[] = {
		RAW_LINK_OPTIONS,
		RAW_IPV4_OPTIONS,
		{ "dst-ip6", required_argument, NULL, O_DIP6 },
		{ "src-ip6", required_argument, NULL, O_SIP6 },
		{ "live-qpn", required_argument, NULL, O_LIVE },
		{ "vlan0-reaches", no_argument, NULL, O_V0 },
		{ "seed", required_argument, NULL, O_SEED },
		{ "count", required_argument, NULL, O_COUNT },
		{ "rate", required_argument, NULL, O_RATE },
		{ "only", required_argument, NULL, O_ONLY },
		{ "dscp", required_argument, NULL, O_DSCP },
		{ "check", no_argument, NULL, O_CHECK },
		{ "timeout-s", required_argument, NULL, O_TIMEOUT },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	bool have_sip6 = false;
	size_t k;
	int o;

	while ((o = raw_getopt(argc, argv, opts, usage, &c.l)) != -1) {
		switch (o) {
		case O_DIP6:
			if (inet_pton(AF_INET6, optarg, c.dst_ip6) != 1)
				raw_usage_error("--dst-ip6: '%s' is not an IPv6 address", optarg);
			c.have_dst_ip6 = true;
			break;
		case O_SIP6:
			if (inet_pton(AF_INET6, optarg, c.src_ip6) != 1)
				raw_usage_error("--src-ip6: '%s' is not an IPv6 address", optarg);
			have_sip6 = true;
			break;
		case O_LIVE: parse_live(optarg); break;
		case O_V0: c.vlan0_reaches = true; break;
		case O_SEED: c.seed = parse_u("--seed", optarg, ~0ull); break;
		case O_COUNT: c.count = parse_u("--count", optarg, 1000000000); break;
		case O_RATE: c.rate = parse_u("--rate", optarg, 10000000); break;
		case O_ONLY:
			for (k = 0; k < NCATS && strcmp(cats[k].name, optarg); k++)
				;
			if (k == NCATS)
				raw_usage_error("--only: no category '%s'", optarg);
			c.only = optarg;
			break;
		case O_DSCP: c.dscp = parse_u("--dscp", optarg, 63); break;
		case O_CHECK: c.check = true; break;
		case O_TIMEOUT: c.timeout_s = raw_parse_timeout(optarg); break;
		}
	}
	if (!c.l.have_dst_ip)
		raw_usage_error("--dst-ip is required");
	if (!c.l.ifname && !c.l.pcap && !c.check)
		raw_usage_error("--ifname is required (or --pcap / --check)");
	if (!c.have_dst_ip6) {
		inet_pton(AF_INET6, "fe80::1", c.dst_ip6);
		c.no_ipv6 = true;
	}
	if (!have_sip6)
		inet_pton(AF_INET6, "fe80::2", c.src_ip6);
}

/* ---- sending ------------------------------------------------------------ */

static struct raw_out out;

static int emit(const struct frame *f)
{
	int w;

	/* a full device queue is back-pressure, not failure */
	while ((w = raw_out_send(&out, f->b, f->len)) > 0 && !raw_stop)
		usleep(200);
	if (w && !c.l.pcap)
		fprintf(stderr, "%s: sendto %s (%d bytes): %s\n", raw_prog, c.l.ifname, f->len,
			strerror(errno));
	return w ? -1 : 0;
}

/*
 * Frames by fate; "rxe_accept", those rxe counts in rcvd_pkts (and drops:
 * mcast); the drops by reason, every one (@all) or those that happened.
 */
static void json_fates(const uint64_t *fate, const uint64_t *why, bool all)
{
	int k, m = 0;

	for (k = 0; k < F_MAX; k++)
		printf("\"%s\":%llu,", fate_names[k], (unsigned long long)fate[k]);
	printf("\"rxe_accept\":%llu,\"drops\":{", (unsigned long long)why[FT_DROP_MCAST]);
	for (k = 0; k < FT_DROP_MAX; k++)
		if (all || why[k])
			printf("%s\"%s\":%llu", m++ ? "," : "", why_names[k],
			       (unsigned long long)why[k]);
	printf("}");
}

int main(int argc, char **argv)
{
	uint64_t tot[F_MAX] = { 0 }, why[FT_DROP_MAX] = { 0 }, frames = 0, i, cum, pick;
	uint64_t idx[NCATS] = { 0 };
	int wsum = 0, rc = 0, li, k;
	const char *error = NULL;
	struct timespec next;
	double t0, deadline;
	struct frame f;
	size_t n;

	raw_prog = "ft_wirefuzz";
	parse(argc, argv);
	init_ops();
	raw_signals_init();
	t0 = raw_now();
	deadline = c.timeout_s > 0 ? t0 + c.timeout_s : 0;

	if (raw_setup(&out, &c.l, RAW_IPV4, 0, CLOCK_MONOTONIC, deadline))
		return 1;

	for (n = 0; n < NCATS; n++)
		if (!c.only || !strcmp(c.only, cats[n].name))
			wsum += cats[n].weight;
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (i = 0; i < (uint64_t)c.count; i++) {
		if (raw_stop) {
			error = "interrupted";
			rc = 1;
			break;
		}
		if (deadline && (i & 255) == 0 && raw_now() >= deadline) {
			error = "timed out";
			rc = 3;
			break;
		}
		/* category: a weighted choice, then that category's own index */
		rng_state = c.seed * 0x100000001b3ull ^ i;
		pick = rndn(wsum);
		for (n = 0, cum = 0; n < NCATS; n++) {
			if (c.only && strcmp(c.only, cats[n].name))
				continue;
			cum += cats[n].weight;
			if (pick < cum)
				break;
		}
		memset(&f, 0, sizeof(f));
		cats[n].gen(&f, idx[n]++, i);
		if (c.check)
			check_frame(&cats[n], &f);
		if (emit(&f) || (f.next && emit(f.next))) {
			error = "send failed";
			rc = 1;
			break;
		}
		frames += 1 + !!f.next;
		cats[n].sent += 1 + !!f.next;
		cats[n].fate[f.fate]++;
		if (f.next)
			cats[n].fate[F_STACK]++;	/* the second fragment is not a packet */
		tot[f.fate]++;
		if (f.next)
			tot[F_STACK]++;
		if (f.fate == F_DROP) {
			cats[n].why[f.why]++;
			why[f.why]++;
		}
		if (f.fate == F_QP) {
			struct live_acct *a = &live[f.live];

			a->pkts++;
			a->bytes += f.payload;
			a->cls[f.cls]++;
			if (f.cls == FT_CLS_NAK)
				a->nak[f.slot - FT_CLS_NAK]++;
		}
		if (c.rate) {
			long step = 1000000000L / c.rate;

			next.tv_nsec += step;
			next.tv_sec += next.tv_nsec / 1000000000L;
			next.tv_nsec %= 1000000000L;
			while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR &&
			       !raw_stop)
				;
		}
	}
	if (raw_out_close(&out))
		rc = rc ? rc : 1;
	if (error)
		fprintf(stderr, "%s: %s after %llu of %ld\n", raw_prog, error, (unsigned long long)i,
			c.count);
	if (c.check && check_fail) {
		fprintf(stderr, "%s: check: %llu frames predicted wrongly\n", raw_prog,
			(unsigned long long)check_fail);
		rc = rc ? rc : 1;
	}

	printf("{\"prog\":\"ft_wirefuzz\",\"seed\":%llu,\"count\":%ld,\"iterations\":%llu,"
	       "\"frames\":%llu,", (unsigned long long)c.seed, c.count, (unsigned long long)i,
	       (unsigned long long)frames);
	json_fates(tot, why, true);
	printf(",\"reach_rxe\":%llu,\"ipv6\":%s,\"vlan0_reaches\":%s,\"check_fail\":%llu,\"categories\":{",
	       (unsigned long long)(tot[F_DROP] + tot[F_QP]),
	       c.no_ipv6 ? "false" : "true", c.vlan0_reaches ? "true" : "false",
	       (unsigned long long)check_fail);
	for (n = 0, k = 0; n < NCATS; n++) {
		if (!cats[n].sent)
			continue;
		printf("%s\"%s\":{\"sent\":%llu,", k++ ? "," : "", cats[n].name,
		       (unsigned long long)cats[n].sent);
		json_fates(cats[n].fate, cats[n].why, false);
		printf("}");
	}
	printf("},\"live_qps\":{");
	for (li = 0; li < c.nlive; li++) {
		struct live_acct *a = &live[li];

		printf("%s\"%u\":{\"packets\":%llu,\"bytes\":%llu", li ? "," : "",
		       c.live_qpn[li], (unsigned long long)a->pkts, (unsigned long long)a->bytes);
		for (k = 0; k < FT_CLS_MAX; k++)
			printf(",\"%s\":%llu", cls_names[k], (unsigned long long)a->cls[k]);
		printf(",\"rx_nak\":{");
		for (k = 0; k < FT_NAK_MAX; k++)
			printf("%s\"%s\":%llu", k ? "," : "", nak_names[k], (unsigned long long)a->nak[k]);
		printf("}}");
	}
	printf("},\"rate\":%ld,\"elapsed_s\":%.3f,\"error\":%s%s%s}\n", c.rate, raw_now() - t0,
	       error ? "\"" : "", error ? error : "null", error ? "\"" : "");
	return rc;
}
