// SPDX-License-Identifier: GPL-2.0
/* Table-driven dispatch of objects and commands, and argument helpers. */

#include <string.h>

#include "cmd.h"
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

const char *arg_value(int *argc, char ***argv, const char *ctx)
{
	const char *key = (*argv)[0], *val;

	if (*argc < 2) {
		ft_err("%s: \"%s\" needs a value", ctx, key);
		return NULL;
	}
	val = (*argv)[1];
	*argc -= 2;
	*argv += 2;
	return val;
}

int arg_unknown(const char *ctx, const char *arg, const char *help)
{
	ft_err("%s: unknown argument \"%s\", try \"%s\"", ctx, arg, help);
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
