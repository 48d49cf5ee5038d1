// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark: parse and print 100,000 QP messages shaped like the kernel's,
 * packed into 32 KiB dump buffers, as "fabtrace -j qp show" and "fabtrace
 * qp show" would; output to /dev/null.  Prints timings, never fails on them.
 */

#include <time.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nlbuild.h"

#include "nl.h"
#include "out.h"
#include "print.h"
#include "rec.h"
#include "util.h"

#ifndef NQP
#define NQP	100000
#endif

struct sink {
	struct out *o;
	int mode;		/* 0: JSON, 1: table, 2: -s blocks */
	struct ft_qp_rec r;
	unsigned long n;
};

static int cb(const struct nlmsghdr *nlh, void *data)
{
	struct sink *s = data;

	if (ft_parse_qp(nlh, &s->r))
		return MNL_CB_ERROR;
	if (s->mode == 1)
		print_qp_row(s->o, &s->r);
	else
		print_qp_full(s->o, &s->r);
	s->n++;
	return MNL_CB_OK;
}

int main(int argc, char **argv)
{
	static const char *const names[] = { "JSON (-j)", "table", "blocks (-s)" };
	char *bufs, *p;
	size_t nbufs = 0, *lens, cap = 0;
	struct nlb_qp q = {
		.dev_index = 1, .dev = "rxe0", .type = FABTRACE_QP_TYPE_RC,
		.state = FABTRACE_QP_STATE_RTS, .pid = 4242, .comm = "ib_write_bw",
		.rqpn = 18, .peer = nlb_peer_v4, .ctime = 1700000000000000000ull,
		.last = 1700000001000000000ull,
	};
	char one[4096] __attribute__((aligned(8)));
	size_t used = MNL_SOCKET_DUMP_SIZE, msgsize = 0;
	uint32_t i;
	int mode;

	lens = NULL;
	bufs = NULL;
	for (i = 0; i < NQP; i++) {
		struct nlmsghdr *nlh;

		q.qpn = i + 2;
		q.base = (uint64_t)i * 977;
		nlh = nlb_qp(one, &q);
		msgsize = nlh->nlmsg_len;
		if (used + nlh->nlmsg_len > MNL_SOCKET_DUMP_SIZE) {
			if (nbufs == cap) {
				cap = cap ? 2 * cap : 1024;
				bufs = xrealloc(bufs, cap * MNL_SOCKET_DUMP_SIZE);
				lens = xrealloc(lens, cap * sizeof(*lens));
			}
			lens[nbufs++] = 0;
			used = 0;
		}
		p = bufs + (nbufs - 1) * MNL_SOCKET_DUMP_SIZE + used;
		memcpy(p, nlh, nlh->nlmsg_len);
		used += MNL_ALIGN(nlh->nlmsg_len);
		lens[nbufs - 1] = used;
	}
	printf("# %d QPs, %zu bytes per message, %zu dump buffers\n", NQP, msgsize, nbufs);

	for (mode = 0; mode < 3; mode++) {
		if (argc > 1 && atoi(argv[1]) != mode)
			continue;
		FILE *fp = fopen("/dev/null", "w");
		struct sink s = { .o = out_new(fp, mode == 0, false, false), .mode = mode };
		struct timespec a, b, ca, cb2;
		size_t k;

		setvbuf(fp, NULL, _IOFBF, 1 << 16);
		clock_gettime(CLOCK_MONOTONIC, &a);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ca);
		if (mode == 0)
			out_list_begin(s.o);
		for (k = 0; k < nbufs; k++)
			mnl_cb_run(bufs + k * MNL_SOCKET_DUMP_SIZE, lens[k], 0, 0, cb, &s);
		if (mode == 0)
			out_list_end(s.o);
		out_free(s.o);
		fclose(fp);
		clock_gettime(CLOCK_MONOTONIC, &b);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cb2);
		/* CPU time too: on a loaded host wall time says little */
		printf("# %-12s %lu QPs in %.3f s (%.3f s CPU)\n", names[mode], s.n,
		       (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9,
		       (cb2.tv_sec - ca.tv_sec) + (cb2.tv_nsec - ca.tv_nsec) / 1e9);
	}
	free(bufs);
	free(lens);
	return 0;
}
