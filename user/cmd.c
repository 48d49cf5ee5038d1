// SPDX-License-Identifier: GPL-2.0
/* Table-driven dispatch of objects and commands, and of their arguments. */

#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "parse.h"
#include "util.h"

const struct cmd *cmd_find(const struct cmd *table, const char *name)
{
	for (; table->name; table++)
		if (!strcmp(table->name, name))
			return table;
	return NULL;
}

int cmd_dispatch(struct ft *ft, const struct cmd *table, const char *what,
		 const char *help, int argc, char **argv)
{
	const struct cmd *c;

	if (argc < 1)
		return table[0].fn(ft, 0, argv);
	c = cmd_find(table, argv[0]);
	if (!c) {
		ft_err("unknown %s \"%s\", try \"%s\"", what, argv[0], help);
		return -1;
	}
	return c->fn(ft, argc - 1, argv + 1);
}

int arg_unknown(const char *ctx, const char *arg, const char *help)
{
	ft_err("%s: unknown argument \"%s\", try \"%s\"", ctx, arg, help);
	return -1;
}

int arg_missing(const char *ctx, const char *key)
{
	ft_err("%s: \"%s\" needs a value", ctx, key);
	return -1;
}

int arg_twice(const char *ctx, const char *key)
{
	ft_err("%s: \"%s\" given twice", ctx, key);
	return -1;
}

int arg_invalid(const char *ctx, const char *key, const char *val, const char *why)
{
	ft_err("%s: invalid %s \"%s\": %s", ctx, key, val, why);
	return -1;
}

static const struct arg *arg_find(const struct arg *table, const char *key)
{
	for (; table->key; table++)
		if (!strcmp(table->key, key))
			return table;
	return NULL;
}

/* ARG_STR, ARG_U32: a->why, or the bounds when the table gives no reason. */
static int out_of_range(const struct arg *a, struct arg_val *v, const char *what)
{
	v->why = a->why;
	if (!v->why) {
		snprintf(v->buf, sizeof(v->buf), "not %s from %u to %u", what, a->min,
			 a->max ? a->max : UINT32_MAX);
		v->why = v->buf;
	}
	return ARG_INVALID;
}

/* The value of a keyword that takes one: the words taken, or ARG_INVALID/MISSING. */
static int arg_take(const struct arg *a, struct arg_val *v)
{
	const char *s = v->argv[0];
	size_t len;
	uint32_t n;

	switch (a->kind) {
	case ARG_STR:
		len = strlen(s);
		if (len < a->min || (a->max && len > a->max))
			return out_of_range(a, v, "a length");
		*(const char **)a->dst = s;
		return 1;
	case ARG_U32:
		if (parse_u32(s, a->max ? a->max : UINT32_MAX, &n) || n < a->min)
			return out_of_range(a, v, "a number");
		*(uint32_t *)a->dst = n;
		return 1;
	case ARG_KW:
		if (kw_lookup(a->kw, s, &n)) {
			v->why = kw_expect(a->kw, v->buf, sizeof(v->buf));
			return ARG_INVALID;
		}
		*(uint32_t *)a->dst = n;
		return 1;
	case ARG_FN:
		return a->fn(v, a->dst);
	default:
		return 0;	/* ARG_HELP, ARG_FLAG take no value */
	}
}

int args_parse(const char *ctx, const char *help, const struct arg *table,
	       int argc, char **argv)
{
	uint64_t given = 0, bit;
	const struct arg *a;
	size_t n;

	for (n = 0; table[n].key; n++)
		if (table[n].seen)
			*table[n].seen = false;
	if (n > ARGS_MAX) {
		ft_err("%s: more than %d arguments in the table", ctx, ARGS_MAX);
		return -1;
	}
	while (argc > 0) {
		const char *key = argv[0];
		struct arg_val v;
		int used = 0;

		a = arg_find(table, key);
		if (!a)
			return arg_unknown(ctx, key, help);
		if (a->kind == ARG_HELP)
			return ARGS_HELP;
		argc--;
		argv++;
		/* "dev a dev": the missing value is the first thing wrong */
		if (a->kind != ARG_FLAG && argc < 1)
			return arg_missing(ctx, key);
		bit = 1ull << (a - table);
		if (!a->repeat && ((given & bit) || (a->seen && *a->seen)))
			return arg_twice(ctx, key);
		if (a->kind == ARG_FLAG) {
			if (a->dst)
				*(bool *)a->dst = true;
		} else {
			v.argv = argv;
			v.argc = argc;
			v.bad = NULL;
			v.why = NULL;
			used = arg_take(a, &v);
			if (used == ARG_MISSING || used > argc)
				return arg_missing(ctx, key);
			if (used < 1)
				return arg_invalid(ctx, key, v.bad ? v.bad : argv[0],
						   v.why ? v.why : "not valid");
		}
		given |= bit;
		if (a->seen)
			*a->seen = true;
		argc -= used;
		argv += used;
	}
	return 0;
}
