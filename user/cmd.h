/* SPDX-License-Identifier: GPL-2.0 */
/* Table-driven dispatch of objects and commands, and argument helpers. */
#ifndef _FABTRACE_CMD_H
#define _FABTRACE_CMD_H

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
 * Argument scanning for "keyword value" lists.  @ctx names the command for
 * messages ("qp show").  arg_value() takes the value that follows argv[0]:
 * it advances past both and returns the value, or prints an error and
 * returns NULL.
 */
const char *arg_value(int *argc, char ***argv, const char *ctx);
/* "fabtrace: qp show: unknown argument "x", try "fabtrace qp help""; -1 */
int arg_unknown(const char *ctx, const char *arg, const char *help);
/* "fabtrace: qp show: "dev" given twice"; -1 */
int arg_twice(const char *ctx, const char *key);
/* "fabtrace: qp show: invalid qpn "x": why"; -1 */
int arg_invalid(const char *ctx, const char *key, const char *val, const char *why);

#endif /* _FABTRACE_CMD_H */
