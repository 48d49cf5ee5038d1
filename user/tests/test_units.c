// SPDX-License-Identifier: GPL-2.0
/* Unit tests: human units, GIDs, peers, GUIDs, ISO-8601 times. */

#include <time.h>

#include "harness.h"

#include "units.h"

#define FMT(fn, v, want) do {					\
	char _b[FT_FMT_LEN];					\
	EXPECT_STREQ(fn(_b, sizeof(_b), v), want);		\
} while (0)

TEST(counts_in_powers_of_1000)
{
	FMT(fmt_count, 0, "0");
	FMT(fmt_count, 999, "999");
	FMT(fmt_count, 1000, "1.00K");
	FMT(fmt_count, 1234, "1.23K");
	FMT(fmt_count, 12345, "12.3K");
	FMT(fmt_count, 123456, "123K");
	FMT(fmt_count, 999499, "999K");
	FMT(fmt_count, 999500, "1.00M");	/* rounding carries into the next unit */
	FMT(fmt_count, 9995, "10.0K");
	FMT(fmt_count, 1000000000ull, "1.00G");
	FMT(fmt_count, UINT64_MAX, "18.4E");
}

TEST(bytes_in_powers_of_1024)
{
	FMT(fmt_bytes, 0, "0B");
	FMT(fmt_bytes, 999, "999B");
	FMT(fmt_bytes, 1000, "0.98KiB");
	FMT(fmt_bytes, 1024, "1.00KiB");
	FMT(fmt_bytes, 1536, "1.50KiB");
	FMT(fmt_bytes, 9830400, "9.38MiB");
	FMT(fmt_bytes, 1047552, "1.00MiB");	/* 1023 KiB: never "1023KiB" */
	FMT(fmt_bytes, 1ull << 30, "1.00GiB");
	FMT(fmt_bytes, UINT64_MAX, "16.0EiB");
}

TEST(rates_keep_fractions)
{
	FMT(fmt_rate, 0.0, "0");
	FMT(fmt_rate, 0.5, "0.50");
	FMT(fmt_rate, 12.34, "12.3");
	FMT(fmt_rate, 999.0, "999");
	FMT(fmt_rate, 1500.0, "1.50K");
	FMT(fmt_rate, -3.0, "0");
	FMT(fmt_byte_rate, 0.0, "0B");
	FMT(fmt_byte_rate, 512.4, "512B");
	FMT(fmt_byte_rate, 17.0 * 1024 * 1024, "17.0MiB");
}

TEST(gid_text)
{
	static const uint8_t v4[16] = { [10] = 0xff, [11] = 0xff, 10, 99, 0, 2 };
	static const uint8_t v6[16] = { 0xfe, 0x80, [15] = 1 };
	static const uint8_t zero[16];
	char b[FT_FMT_LEN];

	EXPECT_STREQ(fmt_gid(b, sizeof(b), v4), "10.99.0.2");
	EXPECT_STREQ(fmt_gid(b, sizeof(b), v6), "fe80::1");
	EXPECT_STREQ(fmt_gid(b, sizeof(b), zero), "::");
	EXPECT_STREQ(fmt_peer(b, sizeof(b), v4, true, 18), "10.99.0.2:18");
	EXPECT_STREQ(fmt_peer(b, sizeof(b), v6, true, 18), "[fe80::1]:18");
	EXPECT_STREQ(fmt_peer(b, sizeof(b), v4, false, 0), "10.99.0.2");
	EXPECT_STREQ(fmt_peer(b, sizeof(b), NULL, false, 0), "-");
	EXPECT_STREQ(fmt_peer(b, sizeof(b), NULL, true, 5), "-:5");
}

TEST(guid_text)
{
	char b[FT_FMT_LEN];

	EXPECT_STREQ(fmt_guid(b, sizeof(b), 0x505400fffe000001ull), "5054:00ff:fe00:0001");
	EXPECT_STREQ(fmt_guid(b, sizeof(b), 0), "0000:0000:0000:0000");
}

TEST(iso_times)
{
	char b[FT_FMT_LEN];
	uint64_t ns = 1700000000123456789ull;

	setenv("TZ", "UTC", 1);
	tzset();
	EXPECT_STREQ(fmt_time(b, sizeof(b), ns, 3), "2023-11-14T22:13:20.123+00:00");
	EXPECT_STREQ(fmt_time(b, sizeof(b), ns, 6), "2023-11-14T22:13:20.123456+00:00");
	EXPECT_STREQ(fmt_time(b, sizeof(b), ns, 9), "2023-11-14T22:13:20.123456789+00:00");
	EXPECT_STREQ(fmt_time(b, sizeof(b), ns, 0), "2023-11-14T22:13:20+00:00");
	/* POSIX TZ signs are inverted: this zone is UTC+05:30 */
	setenv("TZ", "IST-5:30", 1);
	tzset();
	EXPECT_STREQ(fmt_time(b, sizeof(b), ns, 3), "2023-11-15T03:43:20.123+05:30");
	setenv("TZ", "XXX3", 1);
	tzset();
	EXPECT_STREQ(fmt_time(b, sizeof(b), ns, 0), "2023-11-14T19:13:20-03:00");
}

TEST_HARNESS_MAIN
