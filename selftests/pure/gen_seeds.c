// SPDX-License-Identifier: GPL-2.0
/* Write one seed packet per opcode for the fuzzer's corpus. */

#include <stdio.h>

#include "pkt.h"

int main(int argc, char **argv)
{
	uint8_t buf[2048];
	unsigned int op, len;
	char path[4096];
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 1;
	}
	for (op = 0; op < 256; op++) {
		struct tpkt t = { .opcode = op, .qpn = op * 7, .psn = op * 13,
				  .payload = op % 5 ? 64 : 0, .pad = op % 4,
				  .tos = op % 4, .syndrome = op, .ipv6 = op & 1 };

		len = tpkt_build(buf, &t);
		snprintf(path, sizeof(path), "%s/op%02x", argv[1], op);
		f = fopen(path, "wb");
		if (!f || fwrite(buf, 1, len, f) != len || fclose(f)) {
			perror(path);
			return 1;
		}
	}
	return 0;
}
