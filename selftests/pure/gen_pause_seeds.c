// SPDX-License-Identifier: GPL-2.0
/* Write fuzz_pause's seeds: PFC and PAUSE frames, malformed ones, pause runs. */

/*
 * The frames are built here from 802.1Qbb and 802.3 Annex 31B, not with
 * kmod/pause.h.  fuzz_pause.c reads its input both as a frame and as a run
 * of events (its header comment): the last seeds are runs.
 */

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define FRAME	60		/* the minimum frame, FCS left out */

static const char *dir;

static int put(const char *name, const uint8_t *buf, unsigned int len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, len, f) != len || fclose(f)) {
		perror(path);
		return 1;
	}
	return 0;
}

static void be16(uint8_t *p, unsigned int v)
{
	p[0] = v >> 8;
	p[1] = v;
}

/* dst 01:80:c2:00:00:01, a source, 0x8808, OPC; the rest zero. */
static void macctl(uint8_t *f, unsigned int opc)
{
	static const uint8_t hdr[14] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01,
					 0x52, 0x54, 0x00, 0xfa, 0x00, 0x01,
					 0x88, 0x08 };

	memset(f, 0, FRAME);
	memcpy(f, hdr, sizeof(hdr));
	be16(f + 14, opc);
}

static void pfc(uint8_t *f, unsigned int vec, const uint16_t q[8])
{
	int p;

	macctl(f, 0x0101);
	be16(f + 16, vec);
	for (p = 0; p < 8; p++)
		be16(f + 18 + 2 * p, q[p]);
}

/* A run: speed, detection and restoration (ms; byte 5 also picks the unit). */
static unsigned int run_hdr(uint8_t *b, uint32_t mbps, uint8_t detect, uint8_t b5)
{
	b[0] = mbps >> 24;
	b[1] = mbps >> 16;
	b[2] = mbps >> 8;
	b[3] = mbps;
	b[4] = detect;
	b[5] = b5;
	return 6;
}

static unsigned int ev(uint8_t *b, unsigned int dt, unsigned int quanta, uint8_t prio,
		       uint8_t pfc_on)
{
	be16(b, dt);
	be16(b + 2, quanta);
	b[4] = prio;
	b[5] = pfc_on;
	return 6;
}

int main(int argc, char **argv)
{
	static const uint16_t q3[8] = { [3] = 0xffff };
	static const uint16_t qall[8] = { 1, 0x10, 0x100, 0xffff, 0, 0x8000, 0x7fff, 2 };
	static const uint16_t qnone[8];
	uint8_t f[FRAME], run[6 + 6 * 400];
	unsigned int n, i;
	int err = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 1;
	}
	dir = argv[1];

	pfc(f, 0x08, q3);
	err |= put("pfc_prio3", f, FRAME);
	err |= put("pfc_exact34", f, 34);
	pfc(f, 0xff, qall);
	err |= put("pfc_all", f, FRAME);
	pfc(f, 0x08, qnone);
	err |= put("pfc_xon", f, FRAME);
	macctl(f, 0x0001);
	be16(f + 16, 0xffff);
	err |= put("pause", f, FRAME);
	err |= put("pause_18", f, 18);

	/* malformed, one fault each */
	pfc(f, 0x08, q3);
	err |= put("short17", f, 17);
	err |= put("pfc_short33", f, 33);
	f[13] = 0x00;
	f[12] = 0x08;
	err |= put("ethertype_ipv4", f, FRAME);
	pfc(f, 0x08, q3);
	f[5] = 0x02;
	err |= put("dst_02", f, FRAME);
	pfc(f, 0x08, q3);
	be16(f + 14, 0x0002);
	err |= put("opcode_0002", f, FRAME);
	pfc(f, 0x0108, q3);
	err |= put("vector_0108", f, FRAME);

	/*
	 * A storm: 10 Gb/s, detection 100 ms, units of 2^20 ns (byte 5 = 4:
	 * restoration 4 ms), XOFFs of 3.36 ms every 1.05 ms on priority 3,
	 * then an XON and a quiet gap.
	 */
	n = run_hdr(run, 10000, 100, 4);
	for (i = 0; i < 120; i++)
		n += ev(run + n, 1, 0xffff, 3, 1);
	n += ev(run + n, 1, 0, 3, 1);
	n += ev(run + n, 200, 0xffff, 3, 1);
	err |= put("run_storm", run, n);

	/* spaced, renewed at half, XON mid-pause, PAUSE to all, PFC off: 25G, ns */
	n = run_hdr(run, 25000, 1, 0);
	n += ev(run + n, 1, 0xffff, 0, 1);
	n += ev(run + n, 60000, 0xffff, 0, 1);
	n += ev(run + n, 655, 0xffff, 0, 1);
	n += ev(run + n, 100, 0, 0, 1);
	n += ev(run + n, 10, 1000, 8, 0);
	n += ev(run + n, 10, 0, 8, 1);
	n += ev(run + n, 10, 0xffff, 7, 0);
	err |= put("run_mixed", run, n);

	/* the speed unknown */
	n = run_hdr(run, 0, 100, 4);
	for (i = 0; i < 120; i++)
		n += ev(run + n, 1, 0xffff, 5, 1);
	err |= put("run_unknown_speed", run, n);
	return err;
}
