// SPDX-License-Identifier: GPL-2.0
/* Unit tests: the argument table parser (args_parse()) and its messages. */

#include "harness.h"

#include "cmd.h"
#include "objects.h"
#include "parse.h"

#define CTX	"t"
#define HELP	"fabtrace t help"

/*
 * Run args_parse() on @line, words split at blanks ('' is an empty word),
 * with stderr caught: returns what it returned, *err what it printed.
 */
static char words[512], *err_text;
static size_t err_len;

static struct policy_req pr;

/* The parser run() drives: args_parse() with @table, or "policy set"'s. */
static int parse_with(const struct arg *table, int argc, char **argv)
{
	return table ? args_parse(CTX, HELP, table, argc, argv) :
		       policy_parse_set(argc, argv, &pr);
}

static int run(const struct arg *table, const char *line, const char **err)
{
	char *argv[64], *p;
	FILE *fp, *saved = stderr;
	int argc = 0, ret;

	snprintf(words, sizeof(words), "%s", line);
	for (p = strtok(words, " "); p && argc < 63; p = strtok(NULL, " "))
		argv[argc++] = strcmp(p, "''") ? p : p + 2;
	argv[argc] = NULL;
	free(err_text);
	err_text = NULL;
	fp = open_memstream(&err_text, &err_len);
	if (!fp)
		return -100;
	stderr = fp;
	ret = parse_with(table, argc, argv);
	stderr = saved;
	fclose(fp);
	*err = err_text;
	return ret;
}

/* -1 and exactly @msg (one line) on stderr. */
#define EXPECT_REJECT(table, line, msg) do {				\
	const char *_e;							\
	EXPECT_EQ(run(table, line, &_e), -1);				\
	EXPECT_STREQ(_e, "fabtrace: " msg "\n");			\
} while (0)

/* 0 and nothing on stderr. */
#define EXPECT_ACCEPT(table, line) do {					\
	const char *_e;							\
	EXPECT_EQ(run(table, line, &_e), 0);				\
	EXPECT_STREQ(_e, "");						\
} while (0)

static const struct kw colours[] = {
	{ "red", 1 },
	{ "green", 2 },
	{ "blue", 7 },
	{ NULL, 0 }
};

/* One state for the tables below, filled by them. */
static struct {
	bool flag, seen_str, seen_num, seen_kw, seen_fn;
	const char *str;
	uint32_t num, kw;
	unsigned int fn_calls;
	char fn_word[32];
} s;

/* "even N": takes one word, an even number. */
static int even_arg(struct arg_val *v, void *dst)
{
	uint32_t n;

	s.fn_calls++;
	if (parse_u32(v->argv[0], UINT32_MAX, &n))
		return ARG_INVALID;			/* no why: a default one */
	if (n % 2) {
		snprintf(v->buf, sizeof(v->buf), "%u is odd", n);
		v->why = v->buf;
		return ARG_INVALID;
	}
	*(uint32_t *)dst = n;
	snprintf(s.fn_word, sizeof(s.fn_word), "%s", v->argv[0]);
	return 1;
}

static void table_of_each(struct arg *t)
{
	const struct arg each[] = {
		{ .key = "help", .kind = ARG_HELP },
		{ .key = "flag", .kind = ARG_FLAG, .dst = &s.flag },
		{ .key = "str", .kind = ARG_STR, .min = 1, .max = 4, .dst = &s.str,
		  .seen = &s.seen_str, .why = "not a short word" },
		{ .key = "num", .kind = ARG_U32, .min = 10, .max = 20, .dst = &s.num,
		  .seen = &s.seen_num, .why = "not from 10 to 20" },
		{ .key = "colour", .kind = ARG_KW, .kw = colours, .dst = &s.kw,
		  .seen = &s.seen_kw },
		{ .key = "even", .kind = ARG_FN, .fn = even_arg, .dst = &s.num,
		  .seen = &s.seen_fn },
		{ .key = NULL }
	};

	memcpy(t, each, sizeof(each));
	memset(&s, 0, sizeof(s));
}

#define EACH_N	7

TEST(each_kind_fills_its_destination)
{
	struct arg t[EACH_N];

	table_of_each(t);
	EXPECT_ACCEPT(t, "");
	EXPECT_FALSE(s.flag || s.str || s.seen_str || s.seen_num || s.seen_kw);

	table_of_each(t);
	EXPECT_ACCEPT(t, "flag str ab num 15 colour blue");
	EXPECT_TRUE(s.flag);
	EXPECT_STREQ(s.str, "ab");
	EXPECT_EQ(s.num, 15);
	EXPECT_EQ(s.kw, 7);
	EXPECT_TRUE(s.seen_str && s.seen_num && s.seen_kw && !s.seen_fn);

	/* any order; values may look like keywords */
	table_of_each(t);
	EXPECT_ACCEPT(t, "colour red str num flag");
	EXPECT_STREQ(s.str, "num");
	EXPECT_EQ(s.kw, 1);
	EXPECT_TRUE(s.flag && !s.seen_num);

	table_of_each(t);
	EXPECT_ACCEPT(t, "even 42");
	EXPECT_EQ(s.num, 42);
	EXPECT_EQ(s.fn_calls, 1);
	EXPECT_STREQ(s.fn_word, "42");
	EXPECT_TRUE(s.seen_fn);

	/* the bounds are inclusive */
	table_of_each(t);
	EXPECT_ACCEPT(t, "num 10 str abcd");
	EXPECT_EQ(s.num, 10);
	table_of_each(t);
	EXPECT_ACCEPT(t, "num 20 str a");
	EXPECT_EQ(s.num, 20);
}

TEST(seen_is_cleared_first)
{
	struct arg t[EACH_N];

	table_of_each(t);
	s.seen_str = s.seen_num = s.seen_kw = s.seen_fn = true;
	EXPECT_ACCEPT(t, "num 11");
	EXPECT_TRUE(s.seen_num);
	EXPECT_FALSE(s.seen_str || s.seen_kw || s.seen_fn);
}

TEST(help_stops_the_scan)
{
	struct arg t[EACH_N];
	const char *e;

	table_of_each(t);
	EXPECT_EQ(run(t, "help", &e), ARGS_HELP);
	EXPECT_STREQ(e, "");
	/* anywhere a keyword can be; what follows is not looked at */
	table_of_each(t);
	EXPECT_EQ(run(t, "num 12 help bogus num x", &e), ARGS_HELP);
	EXPECT_STREQ(e, "");
	EXPECT_EQ(s.num, 12);
	/* a value "help" is a value */
	table_of_each(t);
	EXPECT_ACCEPT(t, "str help");
	EXPECT_STREQ(s.str, "help");
	/* help only where a table has it */
	EXPECT_REJECT(t + 1, "help", "t: unknown argument \"help\", try \"fabtrace t help\"");
}

TEST(unknown_and_abbreviated)
{
	struct arg t[EACH_N];
	static const struct arg empty[] = { { .key = NULL } };

	table_of_each(t);
	EXPECT_REJECT(t, "bogus", "t: unknown argument \"bogus\", try \"fabtrace t help\"");
	/* exact matching: no prefix, no longer word, no other case */
	EXPECT_REJECT(t, "fla", "t: unknown argument \"fla\", try \"fabtrace t help\"");
	EXPECT_REJECT(t, "flags", "t: unknown argument \"flags\", try \"fabtrace t help\"");
	EXPECT_REJECT(t, "FLAG", "t: unknown argument \"FLAG\", try \"fabtrace t help\"");
	EXPECT_REJECT(t, "n 12", "t: unknown argument \"n\", try \"fabtrace t help\"");
	EXPECT_REJECT(t, "hel", "t: unknown argument \"hel\", try \"fabtrace t help\"");
	EXPECT_REJECT(t, "''", "t: unknown argument \"\", try \"fabtrace t help\"");
	/* the first thing wrong is reported, after what went well */
	table_of_each(t);
	EXPECT_REJECT(t, "num 12 flag bogus num x",
		      "t: unknown argument \"bogus\", try \"fabtrace t help\"");
	EXPECT_TRUE(s.flag && s.num == 12);
	/* a value that is taken is not a keyword: the word after it is */
	EXPECT_REJECT(t, "str flag flag2", "t: unknown argument \"flag2\", try \"fabtrace t help\"");
	/* no table entries: every word is unknown */
	EXPECT_REJECT(empty, "x", "t: unknown argument \"x\", try \"fabtrace t help\"");
	EXPECT_ACCEPT(empty, "");
}

TEST(missing_value)
{
	struct arg t[EACH_N];

	table_of_each(t);
	EXPECT_REJECT(t, "str", "t: \"str\" needs a value");
	EXPECT_REJECT(t, "flag num", "t: \"num\" needs a value");
	EXPECT_REJECT(t, "colour", "t: \"colour\" needs a value");
	EXPECT_REJECT(t, "even", "t: \"even\" needs a value");
	/* before the repetition: the value is what is missing first */
	EXPECT_REJECT(t, "num 12 num", "t: \"num\" needs a value");
	EXPECT_EQ(s.fn_calls, 0);
}

TEST(given_twice)
{
	struct arg t[EACH_N];

	table_of_each(t);
	EXPECT_REJECT(t, "flag flag", "t: \"flag\" given twice");
	EXPECT_REJECT(t, "str a num 12 str b", "t: \"str\" given twice");
	EXPECT_REJECT(t, "num 12 num 13", "t: \"num\" given twice");
	EXPECT_REJECT(t, "colour red colour red", "t: \"colour\" given twice");
	/* the second value is not looked at, nor is the parser called */
	table_of_each(t);
	EXPECT_REJECT(t, "even 2 even 3", "t: \"even\" given twice");
	EXPECT_EQ(s.fn_calls, 1);
	EXPECT_REJECT(t, "num 12 num x", "t: \"num\" given twice");
}

TEST(invalid_values)
{
	struct arg t[EACH_N];

	table_of_each(t);
	EXPECT_REJECT(t, "str ''", "t: invalid str \"\": not a short word");
	EXPECT_REJECT(t, "str abcde", "t: invalid str \"abcde\": not a short word");
	EXPECT_REJECT(t, "num 9", "t: invalid num \"9\": not from 10 to 20");
	EXPECT_REJECT(t, "num 21", "t: invalid num \"21\": not from 10 to 20");
	/* decimal only: no sign, no blank, no hex, no leading "+" */
	EXPECT_REJECT(t, "num -12", "t: invalid num \"-12\": not from 10 to 20");
	EXPECT_REJECT(t, "num +12", "t: invalid num \"+12\": not from 10 to 20");
	EXPECT_REJECT(t, "num 0xc", "t: invalid num \"0xc\": not from 10 to 20");
	EXPECT_REJECT(t, "num 12x", "t: invalid num \"12x\": not from 10 to 20");
	EXPECT_REJECT(t, "num ''", "t: invalid num \"\": not from 10 to 20");
	EXPECT_REJECT(t, "num 99999999999999999999999",
		      "t: invalid num \"99999999999999999999999\": not from 10 to 20");
	EXPECT_REJECT(t, "colour Red", "t: invalid colour \"Red\": not one of red|green|blue");
	EXPECT_REJECT(t, "colour gree", "t: invalid colour \"gree\": not one of red|green|blue");
	EXPECT_REJECT(t, "even 3", "t: invalid even \"3\": 3 is odd");
	/* a parser that gives no reason */
	EXPECT_REJECT(t, "even x", "t: invalid even \"x\": not valid");
	/* nothing is set by an invalid value */
	table_of_each(t);
	EXPECT_REJECT(t, "num 9", "t: invalid num \"9\": not from 10 to 20");
	EXPECT_TRUE(s.num == 0 && !s.seen_num);
}

TEST(default_reasons_and_bounds)
{
	uint32_t n = 5;
	const char *str = NULL;
	const struct arg t[] = {
		{ .key = "any", .kind = ARG_U32, .dst = &n },
		{ .key = "from", .kind = ARG_U32, .min = 3, .dst = &n },
		{ .key = "range", .kind = ARG_U32, .min = 3, .max = 7, .dst = &n },
		{ .key = "word", .kind = ARG_STR, .dst = &str },
		{ .key = "short", .kind = ARG_STR, .max = 2, .dst = &str },
		{ .key = NULL }
	};

	/* max 0: no bound but the type's */
	EXPECT_ACCEPT(t, "any 0");
	EXPECT_EQ(n, 0);
	EXPECT_ACCEPT(t, "any 4294967295");
	EXPECT_EQ(n, UINT32_MAX);
	EXPECT_REJECT(t, "any 4294967296",
		      "t: invalid any \"4294967296\": not a number from 0 to 4294967295");
	EXPECT_REJECT(t, "from 2", "t: invalid from \"2\": not a number from 3 to 4294967295");
	EXPECT_REJECT(t, "range 8", "t: invalid range \"8\": not a number from 3 to 7");
	EXPECT_ACCEPT(t, "word ''");
	EXPECT_STREQ(str, "");
	EXPECT_REJECT(t, "short abc", "t: invalid short \"abc\": not a length from 0 to 2");
}

TEST(spellings_and_repeats)
{
	bool seen = false, b = false;
	uint32_t count = 0, last = 0;
	const struct arg t[] = {
		{ .key = "count", .kind = ARG_U32, .min = 1, .dst = &count, .seen = &seen },
		{ .key = "--count", .kind = ARG_U32, .min = 1, .dst = &count, .seen = &seen },
		{ .key = "-b", .kind = ARG_FLAG, .dst = &b, .repeat = true },
		{ .key = "last", .kind = ARG_U32, .dst = &last, .repeat = true },
		{ .key = "none", .kind = ARG_FLAG },	/* no destination */
		{ .key = NULL }
	};

	EXPECT_ACCEPT(t, "--count 3");
	EXPECT_TRUE(seen && count == 3);
	/* one argument, two spellings: the message names the one given again */
	EXPECT_REJECT(t, "--count 2 count 3", "t: \"count\" given twice");
	EXPECT_REJECT(t, "count 2 --count 3", "t: \"--count\" given twice");
	EXPECT_REJECT(t, "count 2 count 3", "t: \"count\" given twice");
	EXPECT_REJECT(t, "--count 0", "t: invalid --count \"0\": not a number from 1 to 4294967295");
	/* repeat: again and again, the last value wins */
	EXPECT_ACCEPT(t, "-b -b last 1 -b last 2");
	EXPECT_TRUE(b && last == 2);
	EXPECT_ACCEPT(t, "none");
	EXPECT_REJECT(t, "none none", "t: \"none\" given twice");
}

/* "policy set" itself: its table, its parsers and its own checks. */
static int run_policy(const char *line, const char **err)
{
	return run(NULL, line, err);
}

#define POLICY_OK(line) do {						\
	const char *_e;							\
	EXPECT_EQ(run_policy(line, &_e), 0);				\
	EXPECT_STREQ(_e, "");						\
} while (0)

#define POLICY_BAD(line, msg) do {					\
	const char *_e;							\
	EXPECT_EQ(run_policy(line, &_e), -1);				\
	EXPECT_STREQ(_e, "fabtrace: policy set: " msg "\n");		\
} while (0)

#define HAS(a)	(pr.cfg.have & (1u << FABTRACE_A_POLICY_CFG_##a))
#define VAL(a)	(pr.cfg.v[FABTRACE_A_POLICY_CFG_##a])

TEST(policy_set_every_field)
{
	POLICY_OK("dev rxe0 port 1 trust dscp dscp-map 26:3,46:5 pfc 3,4 ecn 3 cnp off "
		  "cnp-interval 50 cnp-dscp 48 pfc-watchdog detect 200 restore 900");
	EXPECT_STREQ(pr.dev, "rxe0");
	EXPECT_TRUE(pr.has_port && pr.port == 1);
	EXPECT_TRUE(HAS(TRUST) && VAL(TRUST) == FABTRACE_TRUST_DSCP);
	EXPECT_TRUE(HAS(DSCP_MAP) && !pr.map_default);
	EXPECT_EQ(pr.map_set, (1ull << 26) | (1ull << 46));
	EXPECT_TRUE(pr.cfg.dscp[26] == 3 && pr.cfg.dscp[46] == 5);
	EXPECT_TRUE(HAS(PFC) && VAL(PFC) == 0x18);
	EXPECT_TRUE(HAS(ECN) && VAL(ECN) == 0x08);
	EXPECT_TRUE(HAS(CNP) && VAL(CNP) == 0);
	EXPECT_TRUE(HAS(CNP_INTERVAL) && VAL(CNP_INTERVAL) == 50);
	EXPECT_TRUE(HAS(CNP_DSCP) && VAL(CNP_DSCP) == 48);
	EXPECT_TRUE(HAS(WD_DETECT) && VAL(WD_DETECT) == 200);
	EXPECT_TRUE(HAS(WD_RESTORE) && VAL(WD_RESTORE) == 900);
	EXPECT_FALSE(HAS(WD_ACTION));
}

TEST(policy_set_partial)
{
	unsigned int d;

	/* only what is given goes to the kernel */
	POLICY_OK("dev rxe0 ecn none");
	EXPECT_EQ(pr.cfg.have, 1u << FABTRACE_A_POLICY_CFG_ECN);
	EXPECT_EQ(VAL(ECN), 0);
	EXPECT_FALSE(pr.has_port);
	/* detection alone: the kernel doubles it for the restoration time */
	POLICY_OK("pfc-watchdog detect 100 dev rxe0");
	EXPECT_TRUE(HAS(WD_DETECT) && !HAS(WD_RESTORE) && VAL(WD_DETECT) == 100);
	POLICY_OK("dev rxe0 pfc-watchdog off cnp on");
	EXPECT_TRUE(HAS(WD_DETECT) && VAL(WD_DETECT) == 0 && VAL(CNP) == 1);
	/* default resets the map before the entries after it */
	POLICY_OK("dev rxe0 dscp-map default,10:7");
	EXPECT_TRUE(pr.map_default);
	for (d = 0; d < 64; d++)
		if (pr.cfg.dscp[d] != (d == 10 ? 7 : d >> 3))
			break;
	EXPECT_EQ(d, 64);
	POLICY_OK("dev rxe0 pfc 0,1,2,3,4,5,6,7");
	EXPECT_EQ(VAL(PFC), 0xff);
}

TEST(policy_set_rejects)
{
	POLICY_BAD("trust dscp", "\"dev\" is required");
	POLICY_BAD("dev rxe0", "nothing to set, try \"fabtrace policy help\"");
	POLICY_BAD("dev rxe0 port 1", "nothing to set, try \"fabtrace policy help\"");
	POLICY_BAD("dev rxe0 trust pc", "invalid trust \"pc\": not one of pcp|dscp");
	POLICY_BAD("dev rxe0 pfc 3,8", "invalid pfc \"3,8\": not none or a list of priorities 0..7");
	POLICY_BAD("dev rxe0 ecn 3,", "invalid ecn \"3,\": not none or a list of priorities 0..7");
	POLICY_BAD("dev rxe0 ecn ,3", "invalid ecn \",3\": not none or a list of priorities 0..7");
	POLICY_BAD("dev rxe0 cnp yes", "invalid cnp \"yes\": not one of on|off");
	POLICY_BAD("dev rxe0 cnp-interval 0",
		   "invalid cnp-interval \"0\": not microseconds from 1 to 1000000");
	POLICY_BAD("dev rxe0 cnp-interval 1000001",
		   "invalid cnp-interval \"1000001\": not microseconds from 1 to 1000000");
	POLICY_BAD("dev rxe0 cnp-dscp 64", "invalid cnp-dscp \"64\": not a DSCP 0..63");
	POLICY_BAD("dev rxe0 dscp-map 64:1",
		   "invalid dscp-map \"64:1\": not a list of DSCP:PRIO (0..63:0..7) or default");
	POLICY_BAD("dev rxe0 dscp-map 26:8",
		   "invalid dscp-map \"26:8\": not a list of DSCP:PRIO (0..63:0..7) or default");
	POLICY_BAD("dev rxe0 dscp-map 26",
		   "invalid dscp-map \"26\": not a list of DSCP:PRIO (0..63:0..7) or default");
	POLICY_BAD("dev rxe0 dscp-map 26:3,26:4", "invalid dscp-map \"26:3,26:4\": DSCP 26 given twice");
	POLICY_BAD("dev rxe0 dscp-map 26:3,default",
		   "invalid dscp-map \"26:3,default\": default must come first, once");
	POLICY_BAD("dev rxe0 pfc-watchdog 50", "invalid pfc-watchdog \"50\": not off or detect MS [restore MS]");
	POLICY_BAD("dev rxe0 pfc-watchdog detect", "\"pfc-watchdog\" needs a value");
	POLICY_BAD("dev rxe0 pfc-watchdog detect 50",
		   "invalid pfc-watchdog \"50\": not a detection time of 100..5000 ms");
	POLICY_BAD("dev rxe0 pfc-watchdog detect 5001",
		   "invalid pfc-watchdog \"5001\": not a detection time of 100..5000 ms");
	POLICY_BAD("dev rxe0 pfc-watchdog detect 200 restore", "\"pfc-watchdog\" needs a value");
	POLICY_BAD("dev rxe0 pfc-watchdog detect 200 restore 99",
		   "invalid pfc-watchdog \"99\": not a restoration time of 100..60000 ms");
	POLICY_BAD("dev rxe0 pfc-watchdog off pfc-watchdog detect 200",
		   "\"pfc-watchdog\" given twice");
	POLICY_BAD("dev rxe0 port 0 ecn 3", "invalid port \"0\": not a port number 1..255");
	POLICY_BAD("dev rxe0 cnp-int 5",
		   "unknown argument \"cnp-int\", try \"fabtrace policy help\"");
	POLICY_BAD("dev rxe0 ecn 3 ecn 4", "\"ecn\" given twice");
	/* help wins, before the checks of what is missing */
	{
		const char *e;

		EXPECT_EQ(run_policy("help", &e), ARGS_HELP);
	}
}

TEST(batch_lines_split_into_words)
{
	char line[128], *argv[8];
	const char *why = NULL;

	strcpy(line, "  policy set dev rxe0\tecn 3 # a comment\n");
	EXPECT_EQ(batch_split(line, argv, 8, &why), 6);
	EXPECT_STREQ(argv[0], "policy");
	EXPECT_STREQ(argv[4], "ecn");
	EXPECT_STREQ(argv[5], "3");
	strcpy(line, "qp show dev 'rx e0' \"a\"b\n");
	EXPECT_EQ(batch_split(line, argv, 8, &why), 5);
	EXPECT_STREQ(argv[3], "rx e0");
	EXPECT_STREQ(argv[4], "ab");
	strcpy(line, "# only a comment\n");
	EXPECT_EQ(batch_split(line, argv, 8, &why), 0);
	strcpy(line, "\n");
	EXPECT_EQ(batch_split(line, argv, 8, &why), 0);
	strcpy(line, "dev show 'rxe0\n");
	EXPECT_EQ(batch_split(line, argv, 8, &why), -1);
	EXPECT_STREQ(why, "unterminated quote");
	strcpy(line, "a b c d e f g h i\n");
	EXPECT_EQ(batch_split(line, argv, 8, &why), -1);
	EXPECT_STREQ(why, "too many words");
}

TEST_HARNESS_MAIN
