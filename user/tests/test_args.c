// SPDX-License-Identifier: GPL-2.0
/* Unit tests: the argument table parser (args_parse()) and its messages. */

#include "tap.h"

#include "cmd.h"
#include "parse.h"

#define CTX	"t"
#define HELP	"fabtrace t help"

/*
 * Run args_parse() on @line, words split at blanks ('' is an empty word),
 * with stderr caught: returns what it returned, *err what it printed.
 */
static char words[512], *err_text;
static size_t err_len;

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
	ret = args_parse(CTX, HELP, table, argc, argv);
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

/*
 * The "policy set" grammar to come, as a table: a keyword per knob, lists
 * and maps by parsers, a two-word value, a keyword that may repeat.
 */
enum { TRUST_PCP, TRUST_DSCP };

static const struct kw trust_kw[] = {
	{ "pcp", TRUST_PCP },
	{ "dscp", TRUST_DSCP },
	{ NULL, 0 }
};

static const struct kw on_off[] = {
	{ "on", 1 },
	{ "off", 0 },
	{ NULL, 0 }
};

struct policy {
	uint32_t trust, ecn, cnp, cnp_interval;
	uint8_t pfc;			/* 1 << priority */
	uint8_t dscp_prio[64];		/* 0xff: not mapped */
	bool watchdog_off, has_watchdog, has_pfc;
	uint32_t detect_ms, restore_ms;
};

/* "3,4": priorities 0..7 */
static int pfc_arg(struct arg_val *v, void *dst)
{
	char copy[64], *p, *save = NULL;
	uint8_t *mask = dst, m = 0;
	uint32_t prio;

	snprintf(copy, sizeof(copy), "%s", v->argv[0]);
	for (p = strtok_r(copy, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		if (parse_u32(p, 7, &prio)) {
			v->why = "not a list of priorities 0..7";
			return ARG_INVALID;
		}
		m |= 1u << prio;
	}
	*mask = m;
	return 1;
}

/* "26:3": DSCP 0..63 to priority 0..7; one map a time, the keyword repeats */
static int dscp_map_arg(struct arg_val *v, void *dst)
{
	struct policy *p = dst;
	const char *colon = strchr(v->argv[0], ':');
	char dscp_s[8];
	uint32_t dscp, prio;

	if (!colon || colon - v->argv[0] >= (long)sizeof(dscp_s)) {
		v->why = "not DSCP:PRIO";
		return ARG_INVALID;
	}
	memcpy(dscp_s, v->argv[0], colon - v->argv[0]);
	dscp_s[colon - v->argv[0]] = '\0';
	if (parse_u32(dscp_s, 63, &dscp) || parse_u32(colon + 1, 7, &prio)) {
		v->why = "not DSCP:PRIO (0..63:0..7)";
		return ARG_INVALID;
	}
	p->dscp_prio[dscp] = prio;
	return 1;
}

/* "off", or "DETECT RESTORE" (milliseconds): one word or two */
static int watchdog_arg(struct arg_val *v, void *dst)
{
	struct policy *p = dst;

	if (!strcmp(v->argv[0], "off")) {
		p->watchdog_off = true;
		return 1;
	}
	if (parse_u32(v->argv[0], 60000, &p->detect_ms)) {
		v->why = "not off or milliseconds up to 60000";
		return ARG_INVALID;
	}
	if (v->argc < 2)
		return ARG_MISSING;
	if (parse_u32(v->argv[1], 60000, &p->restore_ms)) {
		v->bad = v->argv[1];
		v->why = "not milliseconds up to 60000";
		return ARG_INVALID;
	}
	return 2;
}

static void policy_table(struct arg *t, struct policy *p)
{
	const struct arg policy[] = {
		{ .key = "help", .kind = ARG_HELP },
		{ .key = "trust", .kind = ARG_KW, .kw = trust_kw, .dst = &p->trust },
		{ .key = "pfc", .kind = ARG_FN, .fn = pfc_arg, .dst = &p->pfc,
		  .seen = &p->has_pfc },
		{ .key = "ecn", .kind = ARG_U32, .max = 7, .dst = &p->ecn,
		  .why = "not a priority 0..7" },
		{ .key = "cnp", .kind = ARG_KW, .kw = on_off, .dst = &p->cnp },
		{ .key = "cnp-interval", .kind = ARG_U32, .min = 1, .max = 1000000,
		  .dst = &p->cnp_interval, .why = "not microseconds from 1 to 1000000" },
		{ .key = "dscp-map", .kind = ARG_FN, .fn = dscp_map_arg, .dst = p,
		  .repeat = true },
		{ .key = "watchdog", .kind = ARG_FN, .fn = watchdog_arg, .dst = p,
		  .seen = &p->has_watchdog },
		{ .key = NULL }
	};

	memcpy(t, policy, sizeof(policy));
	memset(p, 0, sizeof(*p));
	memset(p->dscp_prio, 0xff, sizeof(p->dscp_prio));
}

#define POLICY_N	9

TEST(a_policy_set_grammar)
{
	struct arg t[POLICY_N];
	struct policy p;

	policy_table(t, &p);
	EXPECT_ACCEPT(t, "trust dscp pfc 3,4 ecn 3 cnp on cnp-interval 50 "
			 "dscp-map 26:3 dscp-map 46:5 watchdog 100 500");
	EXPECT_EQ(p.trust, TRUST_DSCP);
	EXPECT_EQ(p.pfc, 0x18);
	EXPECT_TRUE(p.has_pfc);
	EXPECT_EQ(p.ecn, 3);
	EXPECT_EQ(p.cnp, 1);
	EXPECT_EQ(p.cnp_interval, 50);
	EXPECT_EQ(p.dscp_prio[26], 3);
	EXPECT_EQ(p.dscp_prio[46], 5);
	EXPECT_EQ(p.dscp_prio[0], 0xff);
	EXPECT_TRUE(p.has_watchdog && !p.watchdog_off);
	EXPECT_TRUE(p.detect_ms == 100 && p.restore_ms == 500);

	/* a one-word value, then the next keyword */
	policy_table(t, &p);
	EXPECT_ACCEPT(t, "watchdog off cnp off");
	EXPECT_TRUE(p.watchdog_off && p.cnp == 0);

	policy_table(t, &p);
	EXPECT_REJECT(t, "trust pc", "t: invalid trust \"pc\": not one of pcp|dscp");
	EXPECT_REJECT(t, "pfc 3,8", "t: invalid pfc \"3,8\": not a list of priorities 0..7");
	EXPECT_REJECT(t, "ecn 8", "t: invalid ecn \"8\": not a priority 0..7");
	EXPECT_REJECT(t, "cnp yes", "t: invalid cnp \"yes\": not one of on|off");
	EXPECT_REJECT(t, "cnp-interval 0",
		      "t: invalid cnp-interval \"0\": not microseconds from 1 to 1000000");
	EXPECT_REJECT(t, "dscp-map 64:1", "t: invalid dscp-map \"64:1\": not DSCP:PRIO (0..63:0..7)");
	EXPECT_REJECT(t, "dscp-map 26", "t: invalid dscp-map \"26\": not DSCP:PRIO");
	/* the second word of two: missing, or the one named as wrong */
	EXPECT_REJECT(t, "watchdog 100", "t: \"watchdog\" needs a value");
	EXPECT_REJECT(t, "watchdog 100 soon", "t: invalid watchdog \"soon\": not milliseconds up to 60000");
	EXPECT_REJECT(t, "watchdog on", "t: invalid watchdog \"on\": not off or milliseconds up to 60000");
	EXPECT_REJECT(t, "watchdog off watchdog 1 2", "t: \"watchdog\" given twice");
	EXPECT_REJECT(t, "cnp-intervall 5",
		      "t: unknown argument \"cnp-intervall\", try \"fabtrace t help\"");
	EXPECT_REJECT(t, "cnp-int 5", "t: unknown argument \"cnp-int\", try \"fabtrace t help\"");
}

TEST(table_too_long)
{
	struct arg t[ARGS_MAX + 2];
	const char *e;
	int i;

	memset(t, 0, sizeof(t));
	for (i = 0; i <= ARGS_MAX; i++) {
		t[i].key = "k";
		t[i].kind = ARG_FLAG;
	}
	EXPECT_EQ(run(t, "", &e), -1);
	EXPECT_STREQ(e, "fabtrace: t: more than 64 arguments in the table\n");
	/* ARGS_MAX entries are fine, the last one included */
	t[ARGS_MAX].key = NULL;
	t[ARGS_MAX - 1].key = "last";
	EXPECT_ACCEPT(t, "last");
	EXPECT_REJECT(t, "last last", "t: \"last\" given twice");
}

TEST_HARNESS_MAIN
