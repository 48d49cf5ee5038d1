/* SPDX-License-Identifier: GPL-2.0 */
/* Text forms of values: human units, GIDs, GUIDs, peers and timestamps. */
#ifndef _FABTRACE_UNITS_H
#define _FABTRACE_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Big enough for any of the strings below. */
#define FT_FMT_LEN	64

/*
 * Counts in powers of 1000 (K, M, G, T, P, E), bytes in powers of 1024
 * (KiB, MiB, ...; "B" below 1 KiB), three significant digits: "999",
 * "1.23K", "45.6MiB", "512B".  Exact integers below the first unit.
 */
const char *fmt_count(char *buf, size_t len, uint64_t v);
const char *fmt_bytes(char *buf, size_t len, uint64_t v);
/* The same for rates (per second), where fractions below 1000 matter; 0 is "0". */
const char *fmt_rate(char *buf, size_t len, double v);
const char *fmt_byte_rate(char *buf, size_t len, double v);

/* A duration in ns, three significant digits: "0", "512ns", "3.36ms", "1.2s". */
const char *fmt_duration(char *buf, size_t len, uint64_t ns);

/* A GID: dotted IPv4 when it is IPv4-mapped (::ffff:a.b.c.d), else IPv6. */
const char *fmt_gid(char *buf, size_t len, const uint8_t gid[16]);
/* "10.99.0.2:18", "[fe80::1]:18"; "-" without a peer. */
const char *fmt_peer(char *buf, size_t len, const uint8_t *gid, bool has_rqpn,
		     uint32_t rqpn);
/* A node GUID (host order) as rdma(8) prints it: "5054:00ff:fe00:0001". */
const char *fmt_guid(char *buf, size_t len, uint64_t guid);
/*
 * Nanoseconds since the epoch as ISO-8601 local time with @digits (0..9)
 * fractional digits and the UTC offset: "2025-11-29T18:03:12.123+01:00".
 */
const char *fmt_time(char *buf, size_t len, uint64_t ns, unsigned int digits);

#endif /* _FABTRACE_UNITS_H */
