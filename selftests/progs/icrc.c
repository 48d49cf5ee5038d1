// SPDX-License-Identifier: GPL-2.0
/* RoCEv2 invariant CRC (ICRC), computed the way rdma_rxe computes it. */

/*
 * Follows drivers/infiniband/sw/rxe/rxe_icrc.c (6.1 and 6.12 are the same):
 * the CRC starts as if 8 bytes of 0xff (the LRH an InfiniBand packet would
 * have) had been fed to it, then runs over a copy of the IP, UDP and BTH
 * headers with the fields routers may change set to all ones -- IPv4 TOS,
 * TTL and header checksum; IPv6 traffic class, flow label and hop limit;
 * the UDP checksum; BTH byte 4 (resv8a, which holds FECN/BECN) -- and then
 * over the rest of the packet unchanged.  The packet carries the inverted
 * result.
 */
#include <string.h>

#include "icrc.h"

static uint32_t table[256];

static void crc_init(void)
{
	uint32_t c;
	int i, k;

	for (i = 0; i < 256; i++) {
		c = i;
		for (k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320 ^ (c >> 1) : c >> 1;
		table[i] = c;
	}
}

uint32_t ft_crc32_le(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	if (!table[1])
		crc_init();
	while (len--)
		crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}

#define UDP_LEN 8
#define BTH_LEN 12

uint32_t ft_roce_icrc(const uint8_t *l3, size_t len, const char **err)
{
	static const uint8_t lrh[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint8_t h[40 + UDP_LEN + BTH_LEN];
	size_t ip_len;
	uint32_t crc;

	*err = NULL;
	if (len < 1) {
		*err = "empty packet";
		return 0;
	}
	switch (l3[0] >> 4) {
	case 4:
		ip_len = 20;
		if ((l3[0] & 0xf) != 5) {
			*err = "IPv4 header with options (rxe never sends those)";
			return 0;
		}
		break;
	case 6:
		ip_len = 40;
		break;
	default:
		*err = "not IPv4 or IPv6";
		return 0;
	}
	if (len < ip_len + UDP_LEN + BTH_LEN) {
		*err = "too short for IP + UDP + BTH";
		return 0;
	}
	memcpy(h, l3, ip_len + UDP_LEN + BTH_LEN);
	if (ip_len == 20) {
		h[1] = 0xff;			/* TOS: DSCP and ECN */
		h[8] = 0xff;			/* TTL */
		h[10] = h[11] = 0xff;		/* header checksum */
	} else {
		h[0] |= 0x0f;			/* traffic class, high nibble */
		h[1] = h[2] = h[3] = 0xff;	/* TC low nibble, flow label */
		h[7] = 0xff;			/* hop limit */
	}
	h[ip_len + 6] = h[ip_len + 7] = 0xff;	/* UDP checksum */
	h[ip_len + UDP_LEN + 4] = 0xff;		/* BTH resv8a (FECN, BECN) */

	crc = ft_crc32_le(0xffffffff, lrh, sizeof(lrh));
	crc = ft_crc32_le(crc, h, ip_len + UDP_LEN + BTH_LEN);
	crc = ft_crc32_le(crc, l3 + ip_len + UDP_LEN + BTH_LEN,
			  len - (ip_len + UDP_LEN + BTH_LEN));
	return ~crc;
}
