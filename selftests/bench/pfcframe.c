// SPDX-License-Identifier: GPL-2.0
/* Instructions per PFC frame: the module's parse and per-priority account, in userspace. */

/*
 * Run under callgrind with --toggle-collect=run_*: run_frames() parses and
 * accounts N frames (one priority each, XOFF renewed every microsecond of
 * the fake clock, as a storm sends them), run_empty() is the same loop
 * without them; the difference over N is one frame's cost.  What the frame
 * handler adds in the kernel (finding the port among the devices' ports,
 * one spinlock) does not depend on QPs either: a QP's paused time is
 * derived when it is read, so no QP is touched per frame.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../kmod/pause.h"

static u8 frame[64];
static struct ft_pfc_prio prio[FT_PAUSE_PRIOS];

__attribute__((noinline)) void run_frames(unsigned long n);
__attribute__((noinline)) void run_empty(unsigned long n);

void run_frames(unsigned long n)
{
	struct ft_pause p;
	unsigned long i;
	unsigned int q;

	for (i = 0; i < n; i++) {
		/* what pfc_rcv() does for every frame */
		if (ft_pause_parse(frame, sizeof(frame), &p) != FT_PAUSE_OK)
			abort();
		for (q = 0; q < FT_PAUSE_PRIOS; q++)
			if (p.enable & (1u << q))
				ft_pfc_frame(&prio[q], 1000000 + i * 1000, p.quanta[q],
					     100000, true, 100000000);
	}
}

void run_empty(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		__asm__ volatile("" : : "r"(i) : "memory");
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 100000;
	int only = argc > 2 ? argv[2][0] : 'f';

	memcpy(frame, "\x01\x80\xc2\x00\x00\x01\x52\x54\x00\x00\x00\x02\x88\x08"
	       "\x01\x01\x00\x08", 18);
	frame[18 + 6] = 0xff;		/* priority 3: 65535 quanta */
	frame[18 + 7] = 0xff;
	if (only == 'e')
		run_empty(n);
	else
		run_frames(n);
	printf("frames %lu xoff %llu storms %llu\n", n,
	       (unsigned long long)prio[3].xoff, (unsigned long long)prio[3].storms);
	return 0;
}
