/* SPDX-License-Identifier: GPL-2.0 */
/* RoCEv2 invariant CRC (ICRC), computed the way rdma_rxe computes it. */
#ifndef FT_ICRC_H
#define FT_ICRC_H

#include <stddef.h>
#include <stdint.h>

/* The reflected CRC-32 (poly 0xEDB88320) without pre/post inversion: the
 * kernel's crc32_le(). */
uint32_t ft_crc32_le(uint32_t crc, const void *buf, size_t len);

/*
 * ICRC of a RoCEv2 packet.  L3 points at the IPv4 (IHL 5) or IPv6 header;
 * LEN covers the headers, BTH and everything after it up to, not including,
 * the 4 ICRC bytes.  Returns the value the packet carries, to be stored
 * little-endian (rxe stores ~crc as a CPU word; on the wire that is LE).
 * Returns 0 and sets *ERR for a packet that is not IPv4/IPv6 + UDP + BTH.
 */
uint32_t ft_roce_icrc(const uint8_t *l3, size_t len, const char **err);

#endif
