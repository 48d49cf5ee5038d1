// SPDX-License-Identifier: GPL-2.0
/* Hot-path benchmark: the module's parse + lookup + account, against a naive design. */
/*
 * Both designs run the same packets through the same parser and the same
 * accounting; they differ in how a QP is found and how counters are made
 * safe: fabtrace's lock-free device map and two-level radix with atomic
 * counters, or one global mutex around a chained hash table of 1024
 * buckets (the size a fixed DEFINE_HASHTABLE would pick) with plain
 * counters.  Run it under callgrind with --toggle-collect=run_* to count
 * instructions per packet, or alone for nanoseconds.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../kmod/acct.h"
#include "../../kmod/roce.h"
#include "../../kmod/table.h"
#include "../pure/pkt.h"

#define MIX 64

struct tmpl {
	uint8_t buf[FT_HDR_MAX + 2048];
	unsigned int len;
	int dir;			/* FT_TX or FT_RX */
};

static struct tmpl mix[MIX];
struct ft_leaf ft_leaf_none;		/* the module's is in qp.c */

/* What per-CPU device totals cost: plain adds to this CPU's copy. */
struct dev_totals {
	u64 bytes[2];
	u64 pkts[2][FT_SLOT_MAX];
	u64 unknown[2];
	u64 malformed;
	u64 rtt[FT_RTT_DEV_BUCKETS];
	u64 rtt_ns, ad_samples, ad_ns;
};

struct bdev {
	struct ft_qpidx *idx;
	struct dev_totals tot;
};

static struct ft_devmap map;
static struct bdev bdev;
static int ibdev_key;			/* stands for a struct ib_device */
static u64 events;

/*
 * The module's tap(), minus the skb: find device, parse, find QP, account.
 * Like tap(), it is inlined into one function per direction.
 */
/*
 * The policy's ECN-capable DSCPs (HOTPATH_ECT, 0: ECN off), as the
 * transmit tap reads them from the device, and its marking: the module's
 * ft_mark_ect().
 */
static u64 bench_ect;

/*
 * HOTPATH_CNP=1: a CE-marked packet is answered as kmod/cnp.c answers it,
 * its CNP built by kmod/roce.c (the kernel then takes one skb and sends it
 * through the IP stack, which is not counted here).
 */
static int bench_cnp;
static uint8_t cnp_buf[64];

static __attribute__((noinline)) void answer_ce(const uint8_t *ip, unsigned int len,
						uint32_t rqpn)
{
	if (!ft_cnp_build(cnp_buf, ip, len, rqpn, 48))
		abort();
}

/* As kmod/tap.c's: out of line, the marking of kmod/roce.h. */
static __attribute__((noinline)) void mark_ect(uint8_t *ip, unsigned int len, u64 ect)
{
	ft_mark_ect(ip, len, ect);
}

/*
 * Round-trip timing, as kmod/tap.c's tap_rtt(): out of line, the clock
 * read once to start or end a sample.  The module's switch is a static
 * key, decided at load: here the build's (bench.sh builds hotpath twice,
 * -DHOTPATH_RTT=0 for timing off).
 */
#ifndef HOTPATH_RTT
#define HOTPATH_RTT 1
#endif

static __attribute__((noinline)) void tap_rtt(struct bdev *dev, struct ft_qp *qp,
					      u32 psn, unsigned int t, u32 v)
{
	struct timespec ts;
	u32 ns;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ns = ft_rtt_clocked(&qp->rtt, psn, t, v, (u64)ts.tv_sec * 1000000000ull + (u64)ts.tv_nsec);
	if (t == FT_RTT_END) {
		dev->tot.rtt[ft_rtt_dev_bucket(ns)]++;
		dev->tot.rtt_ns += ns;
	} else if (t == FT_RTT_AD_END) {
		dev->tot.ad_samples++;
		dev->tot.ad_ns += ns;
	}
}

static inline __attribute__((always_inline)) void fabtrace(const void *ibdev,
							  const uint8_t *h,
							  unsigned int len,
							  const int dir)
{
	struct ft_pkt pkt;
	struct bdev *dev;
	struct ft_qp *qp;
	unsigned int ev, t;
	u32 v;

	if (unlikely(!ft_devmap_get(&map, ibdev, (struct ft_dev **)&dev)))
		return;
	if (dir == FT_TX) {
		u64 ect = *(volatile u64 *)&bench_ect;

		if (unlikely(ect))
			mark_ect((uint8_t *)h, len, ect);
	}
	/* a linear skb: all of it is at hand */
	if (unlikely(ft_parse(h, len, len, &pkt) != FT_PARSE_OK)) {
		dev->tot.malformed++;
		return;
	}
	dev->tot.bytes[dir] += pkt.payload;
	dev->tot.pkts[dir][pkt.slot]++;
	qp = ft_qpidx_find(dev->idx, pkt.qpn);
	if (unlikely(!qp)) {
		dev->tot.unknown[dir]++;
		return;
	}
	ev = dir == FT_TX ? ft_acct_tx(qp, &pkt) : ft_acct_rx(qp, &pkt);
	if (HOTPATH_RTT) {
		t = dir == FT_TX ? ft_rtt_tx(&qp->rtt, &pkt, ev & FT_EV_RETRANS, &v) :
				   ft_rtt_rx(&qp->rtt, &pkt, &qp->tx_req_psn, &qp->rx_req_psn, &v);
		if (unlikely(t))
			tap_rtt(dev, qp, pkt.psn, t, v);
	}
	if (unlikely(ev)) {
		events++;	/* the module stamps a time and maybe queues an event */
		if (dir == FT_RX && (ev & FT_EV_CE) && *(volatile int *)&bench_cnp)
			answer_ce(h, len, pkt.qpn);
	}
}

/* --- the naive design ------------------------------------------------------ */

#define NAIVE_BUCKETS 1024

struct nqp {
	struct nqp *next;
	const void *ibdev;
	u32 qpn;
	u64 bytes[2];
	u64 cls[2][FT_CLS_MAX];
	u64 rx_ect, rx_ce, nak[2][FT_NAK_MAX];
};

static struct nqp *naive_table[NAIVE_BUCKETS];
static pthread_mutex_t naive_lock = PTHREAD_MUTEX_INITIALIZER;
static struct dev_totals naive_tot;

static unsigned int naive_hash(const void *ibdev, u32 qpn)
{
	return (unsigned int)(((uintptr_t)ibdev >> 4) ^ qpn) % NAIVE_BUCKETS;
}

static inline __attribute__((always_inline)) void naive(const void *ibdev,
							const uint8_t *h,
							unsigned int len,
							const int dir)
{
	struct ft_pkt pkt;
	struct nqp *qp;

	if (ft_parse(h, len, len, &pkt) != FT_PARSE_OK)
		return;
	pthread_mutex_lock(&naive_lock);
	naive_tot.bytes[dir] += pkt.payload;
	naive_tot.pkts[dir][pkt.slot]++;
	for (qp = naive_table[naive_hash(ibdev, pkt.qpn)]; qp; qp = qp->next)
		if (qp->ibdev == ibdev && qp->qpn == pkt.qpn)
			break;
	if (qp) {
		qp->bytes[dir] += pkt.payload;
		qp->cls[dir][pkt.cls]++;
		if (dir == FT_RX && (pkt.tclass & 3)) {
			qp->rx_ect++;
			qp->rx_ce += (pkt.tclass & 3) == FT_ECN_CE;
		}
		if (pkt.cls == FT_CLS_NAK)
			qp->nak[dir][ft_pkt_nak(&pkt)]++;
	}
	pthread_mutex_unlock(&naive_lock);
}

static inline __attribute__((always_inline)) void empty(const void *ibdev,
							const uint8_t *h,
							unsigned int len,
							const int dir)
{
	__asm__ volatile("" : : "r"(ibdev), "r"(h), "r"(len), "r"(dir));
}

#define PER_DIRECTION(name)						\
static __attribute__((noinline)) void name##_tx(const void *ibdev,	\
						const uint8_t *h,	\
						unsigned int len)	\
{									\
	name(ibdev, h, len, FT_TX);					\
}									\
static __attribute__((noinline)) void name##_rx(const void *ibdev,	\
						const uint8_t *h,	\
						unsigned int len)	\
{									\
	name(ibdev, h, len, FT_RX);					\
}

PER_DIRECTION(fabtrace)
PER_DIRECTION(naive)
PER_DIRECTION(empty)

/* --- driver ---------------------------------------------------------------- */

static void add_tmpl(unsigned int *n, unsigned int count, uint8_t op,
		     unsigned int payload, uint8_t tos, uint8_t syn, int dir, int ackreq)
{
	while (count--) {
		struct tpkt t = { .opcode = op, .payload = payload, .tos = tos,
				  .syndrome = syn, .ackreq = ackreq };

		mix[*n].len = tpkt_build(mix[*n].buf, &t);
		mix[*n].dir = dir;
		(*n)++;
	}
}

/* One kind of packet only, to see what each costs: NAME from kinds[]. */
static const struct kind {
	const char *name;
	uint8_t op, tos, syn;
	unsigned int payload;
	int dir, ackreq;
} kinds[] = {
	{ "tx-write", 0x07, 2, 0, 1024, FT_TX, 0 },
	{ "rx-write", 0x07, 0, 0, 1024, FT_RX, 0 },
	{ "rx-write-ect", 0x07, 2, 0, 1024, FT_RX, 0 },
	{ "tx-ack", 0x11, 0, 0x1f, 0, FT_TX, 0 },
	{ "rx-ack", 0x11, 0, 0x1f, 0, FT_RX, 0 },
	{ "rx-read-resp", 0x0e, 2, 0, 1024, FT_RX, 0 },
	{ "rx-write-ce", 0x07, 3, 0, 1024, FT_RX, 0 },
	/* a message's last WRITE, asking for its ACK: it starts a sample */
	{ "tx-write-last", 0x08, 2, 0, 1024, FT_TX, 1 },
};

static int build_kind(const char *name)
{
	unsigned int i, n = 0;

	for (i = 0; i < ARRAY_SIZE(kinds); i++) {
		if (strcmp(kinds[i].name, name))
			continue;
		add_tmpl(&n, MIX, kinds[i].op, kinds[i].payload, kinds[i].tos,
			 kinds[i].syn, kinds[i].dir, kinds[i].ackreq);
		return 0;
	}
	return -1;
}

/* A stream as a busy RC QP sees it: data, its ACKs, a little congestion. */
static void build_mix(void)
{
	unsigned int n = 0;

	add_tmpl(&n, 22, 0x07, 1024, 2, 0, FT_TX, 0);	/* WRITE middle, ECT(0) */
	add_tmpl(&n, 20, 0x07, 1024, 2, 0, FT_RX, 0);
	add_tmpl(&n, 2, 0x07, 1024, 3, 0, FT_RX, 0);	/* CE-marked */
	add_tmpl(&n, 6, 0x11, 0, 0, 0x1f, FT_TX, 0);	/* ACKs */
	add_tmpl(&n, 6, 0x11, 0, 0, 0x1f, FT_RX, 0);
	add_tmpl(&n, 2, 0x0e, 1024, 2, 0, FT_RX, 0);	/* READ response */
	add_tmpl(&n, 2, 0x04, 256, 2, 0, FT_TX, 0);	/* SEND only */
	add_tmpl(&n, 1, 0x81, 0, 0, 0, FT_RX, 0);		/* CNP */
	add_tmpl(&n, 1, 0x81, 0, 0, 0, FT_TX, 0);
	add_tmpl(&n, 1, 0x11, 0, 0, 0x60, FT_RX, 0);	/* NAK: PSN sequence */
	add_tmpl(&n, 1, 0x11, 0, 0, 0x20, FT_TX, 0);	/* RNR NAK */
	if (n != MIX)
		abort();
}

static int rtt_prime;

static void setup(unsigned int nqps)
{
	static struct ft_devmap_slot slots[FT_DEVMAP_SIZE];
	unsigned int i, qpn;

	bdev.idx = malloc(sizeof(*bdev.idx));
	ft_qpidx_init(bdev.idx);
	slots[ft_devmap_hash(&ibdev_key)].key = &ibdev_key;
	slots[ft_devmap_hash(&ibdev_key)].dev = (struct ft_dev *)&bdev;
	map.slots = slots;
	for (i = 0; i < nqps; i++) {
		struct ft_qp *qp = calloc(1, sizeof(*qp));
		struct nqp *n = calloc(1, sizeof(*n));
		struct ft_leaf *leaf;

		qpn = 16 + i;
		qp->qpn = qpn;
		qp->type = 2;
		qp->flags = FT_QP_PSN;
		leaf = bdev.idx->root[qpn >> FT_LEAF_BITS];
		if (leaf == &ft_leaf_none) {
			leaf = calloc(1, sizeof(*leaf));
			bdev.idx->root[qpn >> FT_LEAF_BITS] = leaf;
		}
		leaf->slot[qpn & (FT_LEAF_SIZE - 1)] = qp;
		/*
		 * HOTPATH_RTT_PRIME=1: each QP times its PSN 0, and has sent
		 * requests well past it: an ACK ends the sample
		 */
		if (rtt_prime) {
			qp->rtt.slot = FT_RTT_ON;
			qp->tx_req_psn = (1u << 22) | FT_PSN_VALID;
		}

		n->ibdev = &ibdev_key;
		n->qpn = qpn;
		n->next = naive_table[naive_hash(&ibdev_key, qpn)];
		naive_table[naive_hash(&ibdev_key, qpn)] = n;
	}
}

typedef void (*process_fn)(const void *, const uint8_t *, unsigned int);

static inline uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * Packets go to random QPs, each QP's PSNs in order; patching the
 * template happens outside the measured function.  burst > 1 sends that
 * many packets in a row to one QP, as a message of several MTUs does:
 * random QP per packet (burst 1) is the worst case for the caches.
 */
static unsigned int burst = 1;

static void drive(process_fn tx, process_fn rx, unsigned int nqps,
		  unsigned int npkts, uint32_t *psn)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	uint32_t q = 0;
	unsigned int i;

	for (i = 0; i < npkts; i++) {
		struct tmpl *t = &mix[i % MIX];
		uint32_t qpn;

		if (i % burst == 0)
			q = (uint32_t)(xorshift(&seed) % nqps);
		qpn = 16 + q;
		uint8_t *bth = t->buf + 20 + 8;
		uint32_t p = psn[q]++ & 0xffffff;

		bth[5] = qpn >> 16;
		bth[6] = qpn >> 8;
		bth[7] = qpn;
		bth[9] = p >> 16;
		bth[10] = p >> 8;
		bth[11] = p;
		/* with ECN on, every sent packet is Not-ECT again: each is marked */
		if (bench_ect && t->dir == FT_TX)
			t->buf[1] &= (uint8_t)~3;
		(t->dir == FT_TX ? tx : rx)(&ibdev_key, t->buf, t->len);
	}
}

/* Entry points callgrind toggles on, one per design. */
__attribute__((noinline)) void run_fabtrace(unsigned int n, unsigned int p, uint32_t *psn);
__attribute__((noinline)) void run_naive(unsigned int n, unsigned int p, uint32_t *psn);
__attribute__((noinline)) void run_empty(unsigned int n, unsigned int p, uint32_t *psn);

void run_fabtrace(unsigned int n, unsigned int p, uint32_t *psn)
{
	drive(fabtrace_tx, fabtrace_rx, n, p, psn);
}

void run_naive(unsigned int n, unsigned int p, uint32_t *psn)
{
	drive(naive_tx, naive_rx, n, p, psn);
}

void run_empty(unsigned int n, unsigned int p, uint32_t *psn)
{
	drive(empty_tx, empty_rx, n, p, psn);
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	unsigned int nqps, npkts;
	uint32_t *psn;
	double t0, t1, t2, t3;
	int only = argc > 3 ? argv[3][0] : 0;
	const char *b = getenv("HOTPATH_BURST");
	const char *ect = getenv("HOTPATH_ECT");
	const char *cnp = getenv("HOTPATH_CNP");
	const char *prime = getenv("HOTPATH_RTT_PRIME");

	if (argc < 3) {
		fprintf(stderr, "usage: %s NQPS NPKTS [f|n|e [KIND]]\n", argv[0]);
		return 1;
	}
	if (b)
		burst = strtoul(b, NULL, 0) ?: 1;
	if (ect)
		bench_ect = strtoull(ect, NULL, 0);
	if (cnp)
		bench_cnp = atoi(cnp);
	if (prime)
		rtt_prime = atoi(prime);
	nqps = strtoul(argv[1], NULL, 0);
	npkts = strtoul(argv[2], NULL, 0);
	if (!nqps || nqps > 0xffffff - 16 || !npkts)
		return 1;
	if (argc > 4) {
		if (build_kind(argv[4])) {
			fprintf(stderr, "unknown packet kind %s\n", argv[4]);
			return 1;
		}
	} else {
		build_mix();
	}
	setup(nqps);
	psn = calloc(nqps, sizeof(*psn));

	/* Under callgrind, only one design runs per process: [f|n|e]. */
	if (only == 'f' || only == 'n' || only == 'e') {
		(only == 'f' ? run_fabtrace : only == 'n' ? run_naive : run_empty)(nqps, npkts, psn);
		printf("events %llu\n", (unsigned long long)events);
		return 0;
	}
	t0 = now_ns();
	run_empty(nqps, npkts, psn);
	t1 = now_ns();
	run_fabtrace(nqps, npkts, psn);
	t2 = now_ns();
	run_naive(nqps, npkts, psn);
	t3 = now_ns();
	printf("qps %u packets %u ns/pkt fabtrace %.1f naive %.1f (driver %.1f subtracted)\n",
	       nqps, npkts, (t2 - t1 - (t1 - t0)) / npkts,
	       (t3 - t2 - (t1 - t0)) / npkts, (t1 - t0) / npkts);
	return 0;
}
