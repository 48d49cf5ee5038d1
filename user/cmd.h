/* SPDX-License-Identifier: GPL-2.0 */
/* Table-driven dispatch of objects and commands, and of their arguments. */
#ifndef _FABTRACE_CMD_H
#define _FABTRACE_CMD_H

#include <stdbool.h>
#include <stdint.h>

struct ft;

/* Commands return 0 on success, -1 after printing what went wrong. */
typedef int (*cmd_fn)(struct ft *ft, int argc, char **argv);

/*
 * A keyword and what it runs.  In a table the first entry is also the
 * default, run when no keyword is given ("fabtrace dev" = "fabtrace dev
 * show"); a table ends with a NULL name.
 */
struct cmd {
	const char *name;
	cmd_fn fn;
};

/* Exact (strcmp) lookup: abbreviations are unknown keywords. */
const struct cmd *cmd_find(const struct cmd *table, const char *name);

/*
 * Run the command argv[0] names, with the rest of argv, or the default one
 * without arguments.  @what says what the keyword is for the message about
 * an unknown one, e.g. "object" or "dev command"; @help is the command line
 * that shows the usage ("fabtrace dev help").
 */
int cmd_dispatch(struct ft *ft, const struct cmd *table, const char *what,
		 const char *help, int argc, char **argv);

/*
 * Argument lists: "keyword [value...]" in any order, as one table per
 * command says; a keyword comes once unless its entry may repeat.  Keywords
 * match exactly (strcmp), as commands do.  A table ends with a NULL key,
 * has at most ARGS_MAX entries, and is usually built on the stack, its dst
 * pointing into the command's own state.
 */
struct kw;
struct arg_val;

/* args_parse() returns this when "help" was asked for instead. */
#define ARGS_HELP	1
#define ARGS_MAX	64

enum arg_kind {
	ARG_HELP,	/* the keyword alone: args_parse() returns ARGS_HELP */
	ARG_FLAG,	/* the keyword alone: *(bool *)dst = true (dst may be NULL) */
	ARG_STR,	/* a word of min..max bytes: *(const char **)dst, not copied */
	ARG_U32,	/* a decimal number from min to max: *(uint32_t *)dst */
	ARG_KW,		/* a keyword of kw: *(uint32_t *)dst = its value */
	ARG_FN,		/* fn parses the value (or values) into dst */
};

/*
 * An ARG_FN parser.  It returns how many words it took (at least 1); or
 * ARG_INVALID with @v->why set, and @v->bad when the word at fault is not
 * argv[0]; or ARG_MISSING when it needs more words than there are.
 */
#define ARG_INVALID	(-1)
#define ARG_MISSING	(-2)
typedef int (*arg_fn)(struct arg_val *v, void *dst);

struct arg_val {
	char **argv;		/* argv[0]: the first word after the keyword */
	int argc;		/* at least 1: argv[0] and the words after it */
	const char *bad;	/* ARG_INVALID: the word at fault (NULL: argv[0]) */
	const char *why;	/* ARG_INVALID: what is wrong with it */
	char buf[320];		/* room to compose why in */
};

struct arg {
	const char *key;
	enum arg_kind kind;
	void *dst;
	uint32_t min, max;	/* ARG_U32: the range; ARG_STR: of the length. max 0: none */
	const char *why;	/* ARG_STR, ARG_U32: what an invalid value is not */
	const struct kw *kw;	/* ARG_KW */
	arg_fn fn;		/* ARG_FN */
	/*
	 * Set when the keyword is given (args_parse() clears it first).
	 * Entries that share one are spellings of one argument: only one of
	 * them may be given, once ("count" and "--count").
	 */
	bool *seen;
	bool repeat;		/* may be given again: the last value wins */
};

/*
 * Parse @argv by @table into the destinations.  @ctx names the command for
 * messages ("qp show"), @help is the command line that shows its usage
 * ("fabtrace qp help").  Returns 0, ARGS_HELP (an ARG_HELP keyword: nothing
 * after it is looked at), or -1 after one line on stderr, the first of:
 *   fabtrace: qp show: unknown argument "x", try "fabtrace qp help"
 *   fabtrace: qp show: "dev" needs a value
 *   fabtrace: qp show: "dev" given twice
 *   fabtrace: qp show: invalid qpn "x": why
 * The destinations of keywords given before an error or "help" are set
 * (an ARG_FN may have allocated): the caller frees them on every return.
 */
int args_parse(const char *ctx, const char *help, const struct arg *table,
	       int argc, char **argv);

/* The messages args_parse() prints, for checks it cannot make.  All -1. */
/* "fabtrace: qp show: unknown argument "x", try "fabtrace qp help"" */
int arg_unknown(const char *ctx, const char *arg, const char *help);
/* "fabtrace: qp show: "dev" needs a value" */
int arg_missing(const char *ctx, const char *key);
/* "fabtrace: qp show: "dev" given twice" */
int arg_twice(const char *ctx, const char *key);
/* "fabtrace: qp show: invalid qpn "x": why" */
int arg_invalid(const char *ctx, const char *key, const char *val, const char *why);

#endif /* _FABTRACE_CMD_H */
