// SPDX-License-Identifier: GPL-2.0
/* Unit tests: strict numbers, QP number lists, event lists, keywords. */

#include <linux/fabtrace.h>

#include "harness.h"

#include "parse.h"

TEST(u32_accepts_plain_decimal)
{
	uint32_t v = 7;

	EXPECT_EQ(parse_u32("0", 10, &v), 0);
	EXPECT_EQ(v, 0);
	EXPECT_EQ(parse_u32("17", 100, &v), 0);
	EXPECT_EQ(v, 17);
	EXPECT_EQ(parse_u32("007", 100, &v), 0);
	EXPECT_EQ(v, 7);
	EXPECT_EQ(parse_u32("4294967295", UINT32_MAX, &v), 0);
	EXPECT_EQ(v, 4294967295u);
}

TEST(u32_rejects_everything_else)
{
	static const char *const bad[] = {
		"", "-1", "+1", " 1", "1 ", "0x10", "1a", "1.0", "4294967296",
		"99999999999999999999999", "1e3",
	};
	uint32_t v = 42;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (parse_u32(bad[i], UINT32_MAX, &v) != -1)
			ft_fail(__FILE__, __LINE__, "accepted \"%s\"", bad[i]);
	}
	EXPECT_EQ(parse_u32(NULL, 10, &v), -1);
	EXPECT_EQ(parse_u32("11", 10, &v), -1);	/* above max */
	EXPECT_EQ(v, 42);			/* untouched on error */
}

TEST(u64_bounds)
{
	uint64_t v;

	EXPECT_EQ(parse_u64("18446744073709551615", UINT64_MAX, &v), 0);
	EXPECT_EQ(v, UINT64_MAX);
	EXPECT_EQ(parse_u64("18446744073709551616", UINT64_MAX, &v), -1);
}

static void expect_ranges(struct __test_metadata *_metadata, const char *s,
			  const uint32_t *want, size_t nwant, int line)
{
	struct qpn_range *r = NULL;
	const char *why;
	size_t n = 0, i;

	why = parse_qpn_list(s, &r, &n);
	if (why) {
		ft_fail(__FILE__, line, "\"%s\" rejected: %s", s, why);
		return;
	}
	if (n != nwant / 2)
		ft_fail(__FILE__, line, "\"%s\": %zu ranges, want %zu", s, n, nwant / 2);
	for (i = 0; i < n && i < nwant / 2; i++)
		if (r[i].min != want[2 * i] || r[i].max != want[2 * i + 1])
			ft_fail(__FILE__, line, "\"%s\" range %zu: %u-%u, want %u-%u",
				 s, i, r[i].min, r[i].max, want[2 * i], want[2 * i + 1]);
	free(r);
}

#define RANGES(s, ...) do {						\
	static const uint32_t w[] = { __VA_ARGS__ };			\
	expect_ranges(_metadata, s, w, sizeof(w) / sizeof(w[0]), __LINE__);	\
} while (0)

TEST(qpn_list_valid)
{
	RANGES("17", 17, 17);
	RANGES("1,3,10-20", 1, 1, 3, 3, 10, 20);
	RANGES("0-16777215", 0, 16777215);
	RANGES("5-5", 5, 5);
	/* sorted, overlaps and neighbours merged: no QP is asked for twice */
	RANGES("20,10-15,1", 1, 1, 10, 15, 20, 20);
	RANGES("10-20,15-30,1", 1, 1, 10, 30);
	RANGES("5,5,5", 5, 5);
	RANGES("1,2,3", 1, 3);
	RANGES("1-10,2-3", 1, 10);
}

TEST(qpn_list_invalid)
{
	static const char *const bad[] = {
		"", "1-", "-1", "1,,2", ",1", "1,", "5-3", "16777216",
		"0-16777216", "1-2-3", "a", "1 ,2", "0x1", "+1", "1--2", "-",
		",", "1,2-", "99999999999",
	};
	struct qpn_range *r;
	size_t i, n;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		r = NULL;
		if (!parse_qpn_list(bad[i], &r, &n))
			ft_fail(__FILE__, __LINE__, "accepted \"%s\"", bad[i]);
		free(r);
	}
	EXPECT_STREQ(parse_qpn_list("1-", &r, &n), "range without an end");
	EXPECT_STREQ(parse_qpn_list("5-3", &r, &n), "range whose start is above its end");
	EXPECT_STREQ(parse_qpn_list("16777216", &r, &n), "QP number above 16777215");
	EXPECT_STREQ(parse_qpn_list("1,,2", &r, &n), "empty item");
}

TEST(event_list)
{
	uint32_t m = 0;

	EXPECT_TRUE(parse_event_list("ce,cnp", &m) == NULL);
	EXPECT_EQ(m, (1u << FABTRACE_EVENT_KIND_CE) | (1u << FABTRACE_EVENT_KIND_CNP));
	EXPECT_TRUE(parse_event_list("qp-create,retry-exhausted,dropped", &m) == NULL);
	EXPECT_EQ(m, (1u << FABTRACE_EVENT_KIND_QP_CREATE) |
		     (1u << FABTRACE_EVENT_KIND_RETRY_EXHAUSTED) |
		     (1u << FABTRACE_EVENT_KIND_DROPPED));
	EXPECT_TRUE(parse_event_list("ce,,cnp", &m) != NULL);
	EXPECT_TRUE(parse_event_list("ce,", &m) != NULL);
	EXPECT_TRUE(parse_event_list("", &m) != NULL);
	EXPECT_TRUE(parse_event_list("CE", &m) != NULL);
	EXPECT_TRUE(parse_event_list("qp", &m) != NULL);	/* no abbreviations */
	EXPECT_TRUE(parse_event_list("retransmits", &m) != NULL);
}

TEST(keywords_exact_only)
{
	uint32_t v;
	char buf[256];

	EXPECT_EQ(kw_lookup(ft_kw_qp_type, "rc", &v), 0);
	EXPECT_EQ(v, FABTRACE_QP_TYPE_RC);
	EXPECT_EQ(kw_lookup(ft_kw_qp_type, "xrc_ini", &v), 0);
	EXPECT_EQ(v, FABTRACE_QP_TYPE_XRC_INI);
	EXPECT_EQ(kw_lookup(ft_kw_qp_type, "driver", &v), 0);
	EXPECT_EQ(v, 255);
	EXPECT_EQ(kw_lookup(ft_kw_qp_type, "r", &v), -1);
	EXPECT_EQ(kw_lookup(ft_kw_qp_type, "RC", &v), -1);
	EXPECT_EQ(kw_lookup(ft_kw_qp_type, "rcx", &v), -1);
	EXPECT_EQ(kw_lookup(ft_kw_qp_state, "rts", &v), 0);
	EXPECT_EQ(v, FABTRACE_QP_STATE_RTS);
	EXPECT_EQ(kw_lookup(ft_kw_qp_state, "rt", &v), -1);
	EXPECT_STREQ(kw_name(ft_kw_port_state, FABTRACE_PORT_STATE_ACTIVE), "ACTIVE");
	EXPECT_STREQ(kw_name(ft_kw_phys_state, 5), "LINK_UP");
	EXPECT_TRUE(kw_name(ft_kw_qp_state, 99) == NULL);
	EXPECT_STREQ(kw_list(ft_kw_qp_state, buf, sizeof(buf)),
		     "reset|init|rtr|rts|sqd|sqe|err");
	EXPECT_STREQ(kw_expect(ft_kw_link_layer, buf, sizeof(buf)),
		     "not one of unspecified|infiniband|ethernet");
	/* a short buffer truncates at a whole name */
	EXPECT_STREQ(kw_list(ft_kw_qp_state, buf, 12), "reset|init");
}

TEST_HARNESS_MAIN
