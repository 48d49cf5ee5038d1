// SPDX-License-Identifier: GPL-2.0
/* Unit tests: dispatch tables and the "qp show" argument grammar. */

#include "harness.h"

#include "cmd.h"
#include "objects.h"
#include "parse.h"

static int ran;

static int fn_show(struct ft *ft, int argc, char **argv)
{
	(void)ft;
	(void)argv;
	ran = 1 + argc;
	return 0;
}

static int fn_reset(struct ft *ft, int argc, char **argv)
{
	(void)ft;
	(void)argc;
	(void)argv;
	ran = 100;
	return 0;
}

static const struct cmd table[] = {
	{ "show", fn_show },
	{ "reset", fn_reset },
	{ NULL, NULL }
};

TEST(dispatch_exact_and_default)
{
	char *none[] = { NULL };
	char *show[] = { "show", "x", NULL };
	char *reset[] = { "reset", NULL };
	char *abbrev[] = { "sh", NULL };
	char *longer[] = { "shows", NULL };
	char *upper[] = { "SHOW", NULL };

	ran = 0;
	EXPECT_EQ(cmd_dispatch(NULL, table, "cmd", "help", 0, none), 0);
	EXPECT_EQ(ran, 1);		/* the first entry is the default */
	EXPECT_EQ(cmd_dispatch(NULL, table, "cmd", "help", 2, show), 0);
	EXPECT_EQ(ran, 2);		/* it got its argument */
	EXPECT_EQ(cmd_dispatch(NULL, table, "cmd", "help", 1, reset), 0);
	EXPECT_EQ(ran, 100);
	ran = 0;
	ASSERT_TRUE(freopen("/dev/null", "w", stderr) != NULL);
	EXPECT_EQ(cmd_dispatch(NULL, table, "cmd", "help", 1, abbrev), -1);
	EXPECT_EQ(cmd_dispatch(NULL, table, "cmd", "help", 1, longer), -1);
	EXPECT_EQ(cmd_dispatch(NULL, table, "cmd", "help", 1, upper), -1);
	EXPECT_EQ(ran, 0);
	EXPECT_TRUE(cmd_find(table, "reset") == &table[1]);
	EXPECT_TRUE(cmd_find(table, "r") == NULL);
	EXPECT_TRUE(cmd_find(table, "") == NULL);
}

static int parse(struct qp_query *q, const char *line)
{
	char copy[256], *argv[32], *p;
	int argc = 0;

	snprintf(copy, sizeof(copy), "%s", line);
	for (p = strtok(copy, " "); p && argc < 31; p = strtok(NULL, " "))
		argv[argc++] = p;
	argv[argc] = NULL;
	return qp_parse_show(argc, argv, q);
}

TEST(qp_show_arguments)
{
	struct qp_query q;

	ASSERT_TRUE(parse(&q, "") == 0);
	EXPECT_TRUE(!q.dev && !q.ranges && !q.match_flags && !q.has_sort);
	EXPECT_FALSE(qp_query_is_do(&q));

	ASSERT_TRUE(parse(&q, "dev rxe0 qpn 17") == 0);
	EXPECT_STREQ(q.dev, "rxe0");
	EXPECT_EQ(q.nranges, 1);
	EXPECT_TRUE(qp_query_is_do(&q));	/* one QP: a do request */
	qp_query_free(&q);

	ASSERT_TRUE(parse(&q, "qpn 17") == 0);	/* no device: a dump */
	EXPECT_FALSE(qp_query_is_do(&q));
	qp_query_free(&q);

	ASSERT_TRUE(parse(&q, "dev rxe0 qpn 17 congested") == 0);
	EXPECT_FALSE(qp_query_is_do(&q));	/* a filter: only a dump has it */
	qp_query_free(&q);

	ASSERT_TRUE(parse(&q, "qpn 1,3,10-20 pid 42 type ud state rts congested "
			      "destroyed sort retrans limit 5") == 0);
	EXPECT_EQ(q.nranges, 3);
	EXPECT_TRUE(q.has_pid && q.pid == 42);
	EXPECT_TRUE(q.has_type && q.type == FABTRACE_QP_TYPE_UD);
	EXPECT_TRUE(q.has_state && q.state == FABTRACE_QP_STATE_RTS);
	EXPECT_EQ(q.match_flags, FABTRACE_QP_FLAGS_CONGESTED | FABTRACE_QP_FLAGS_DESTROYED);
	EXPECT_TRUE(q.has_sort && q.sort == QP_SORT_RETRANS);
	EXPECT_TRUE(q.has_limit && q.limit == 5);
	qp_query_free(&q);

	ASSERT_TRUE(parse(&q, "misconfigured dev rxe0") == 0);
	EXPECT_EQ(q.match_flags, FABTRACE_QP_FLAGS_MISCONFIGURED);
	qp_query_free(&q);

	ASSERT_TRUE(parse(&q, "dev rxe0 qpn 17 cgroup /a/b/") == 0);
	EXPECT_TRUE(q.has_cgroup);
	EXPECT_STREQ(q.cgroup, "/a/b");		/* the trailing "/" goes */
	EXPECT_FALSE(qp_query_is_do(&q));	/* filtered here, from a dump */
	qp_query_free(&q);
	ASSERT_TRUE(parse(&q, "cgroup /") == 0);
	EXPECT_STREQ(q.cgroup, "/");
	qp_query_free(&q);

	ASSERT_TRUE(parse(&q, "slow sort rtt") == 0);
	EXPECT_TRUE(q.slow && q.rtt_above_us == QP_SLOW_US);
	EXPECT_TRUE(q.has_sort && q.sort == QP_SORT_RTT);
	qp_query_free(&q);
	ASSERT_TRUE(parse(&q, "dev rxe0 slow rtt-above 250") == 0);
	EXPECT_TRUE(q.slow && q.rtt_above_us == 250);
	qp_query_free(&q);

	EXPECT_EQ(parse(&q, "help"), ARGS_HELP);
}

TEST(qp_show_rejects)
{
	static const char *const bad[] = {
		"qpn 1-", "qpn", "dev", "dev rxe0 dev rxe1", "qpn 1 qpn 2",
		"congested congested", "limit 0", "limit -1", "limit x",
		"sort", "sort tx", "sort tx_bytes", "type RC", "type xrc-ini",
		"state rt", "pid 1.5", "pid -1", "bogus", "de rxe0", "qp 1",
		"congest", "sort qpn sort ce", "misconfigure", "misconfigured misconfigured",
		"cgroup", "cgroup a/b", "cgroup //", "cgroup /a//b", "cgroup / cgroup /",
		"cgroup /a/b//",
		"cgroups /", "dev 0123456789012345678901234567890123456789012345678901234567890123",
		"rtt-above 100", "slow rtt-above", "slow rtt-above x", "slow rtt-above -1",
		"slow slow", "sort srtt",
	};
	struct qp_query q;
	size_t i;

	/* each rejection prints its one-line reason: not wanted in TAP */
	ASSERT_TRUE(freopen("/dev/null", "w", stderr) != NULL);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (parse(&q, bad[i]) != -1)
			ft_fail(__FILE__, __LINE__, "accepted \"%s\"", bad[i]);
}

TEST_HARNESS_MAIN
