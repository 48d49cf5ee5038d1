// SPDX-License-Identifier: GPL-2.0
/* Text forms of values: human units, GIDs, GUIDs, peers and timestamps. */

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "units.h"
#include "util.h"

static const char *const count_units[] = { "", "K", "M", "G", "T", "P", "E" };
static const char *const byte_units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };

/*
 * Scale @v until it shows in at most three digits, then print three
 * significant digits.  Rounding can carry into a fourth digit (999.7 ->
 * "1000"), so the carry is checked against the printed text itself.
 */
static const char *human(char *buf, size_t len, double v, double base,
			 const char *const *units, unsigned int nunits)
{
	unsigned int u = 0;

	for (;;) {
		while (v >= 999.5 && u + 1 < nunits) {
			v /= base;
			u++;
		}
		if (v < 9.995)
			snprintf(buf, len, "%.2f%s", v, units[u]);
		else if (v < 99.95)
			snprintf(buf, len, "%.1f%s", v, units[u]);
		else
			snprintf(buf, len, "%.0f%s", v, units[u]);
		/* "1000KiB" is not three digits: move to the next unit */
		if (strncmp(buf, "1000", 4) || u + 1 >= nunits)
			return buf;
		v = 1000;
	}
}

/* A whole number: exact below 1000 ("999", "999B"), else as human() writes it. */
static const char *human_u64(char *buf, size_t len, uint64_t v, double base,
			     const char *const *units, unsigned int nunits)
{
	if (v >= 1000)
		return human(buf, len, (double)v, base, units, nunits);
	snprintf(buf, len, "%llu%s", (unsigned long long)v, units[0]);
	return buf;
}

const char *fmt_count(char *buf, size_t len, uint64_t v)
{
	return human_u64(buf, len, v, 1000, count_units, ARRAY_SIZE(count_units));
}

const char *fmt_bytes(char *buf, size_t len, uint64_t v)
{
	return human_u64(buf, len, v, 1024, byte_units, ARRAY_SIZE(byte_units));
}

const char *fmt_rate(char *buf, size_t len, double v)
{
	/* an idle QP reads "0", not "0.00" */
	if (v <= 0) {
		snprintf(buf, len, "0");
		return buf;
	}
	return human(buf, len, v, 1000, count_units,
		     ARRAY_SIZE(count_units));
}

const char *fmt_byte_rate(char *buf, size_t len, double v)
{
	if (v < 0)
		v = 0;
	if (v < 999.5) {
		snprintf(buf, len, "%.0fB", v);
		return buf;
	}
	return human(buf, len, v, 1024, byte_units,
		     ARRAY_SIZE(byte_units));
}

const char *fmt_gid(char *buf, size_t len, const uint8_t gid[16])
{
	static const uint8_t v4mapped[12] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
	};

	if (!memcmp(gid, v4mapped, sizeof(v4mapped))) {
		if (!inet_ntop(AF_INET, gid + 12, buf, len))
			snprintf(buf, len, "?");
	} else if (!inet_ntop(AF_INET6, gid, buf, len)) {
		snprintf(buf, len, "?");
	}
	return buf;
}

const char *fmt_peer(char *buf, size_t len, const uint8_t *gid, bool has_rqpn,
		     uint32_t rqpn)
{
	char addr[INET6_ADDRSTRLEN];
	bool v6;

	if (!gid) {
		if (has_rqpn)
			snprintf(buf, len, "-:%u", rqpn);
		else
			snprintf(buf, len, "-");
		return buf;
	}
	fmt_gid(addr, sizeof(addr), gid);
	v6 = strchr(addr, ':') != NULL;
	if (has_rqpn)
		snprintf(buf, len, "%s%s%s:%u", v6 ? "[" : "", addr,
			 v6 ? "]" : "", rqpn);
	else
		snprintf(buf, len, "%s", addr);
	return buf;
}

const char *fmt_guid(char *buf, size_t len, uint64_t guid)
{
	snprintf(buf, len, "%04x:%04x:%04x:%04x",
		 (unsigned int)(guid >> 48) & 0xffff,
		 (unsigned int)(guid >> 32) & 0xffff,
		 (unsigned int)(guid >> 16) & 0xffff,
		 (unsigned int)guid & 0xffff);
	return buf;
}

const char *fmt_time(char *buf, size_t len, uint64_t ns, unsigned int digits)
{
	time_t sec = (time_t)(ns / 1000000000ull);
	unsigned long frac = ns % 1000000000ull;
	char date[32], frac_s[16] = "";
	long off, i;
	struct tm tm;

	if (!localtime_r(&sec, &tm)) {
		snprintf(buf, len, "%llu", (unsigned long long)ns);
		return buf;
	}
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm);
	if (digits > 9)
		digits = 9;
	if (digits) {
		for (i = 9; i > (long)digits; i--)
			frac /= 10;
		snprintf(frac_s, sizeof(frac_s), ".%0*lu", (int)digits, frac);
	}
	off = tm.tm_gmtoff / 60;
	snprintf(buf, len, "%s%s%c%02ld:%02ld", date, frac_s, off < 0 ? '-' : '+',
		 (off < 0 ? -off : off) / 60, (off < 0 ? -off : off) % 60);
	return buf;
}

const char *fmt_duration(char *buf, size_t len, uint64_t ns)
{
	static const char *const unit[] = { "ns", "us", "ms", "s" };
	double v = (double)ns;
	unsigned int u = 0;

	if (!ns) {
		snprintf(buf, len, "0");
		return buf;
	}
	while (u < 3 && v >= 999.5) {
		v /= 1000;
		u++;
	}
	snprintf(buf, len, "%.3g%s", v, unit[u]);
	return buf;
}
