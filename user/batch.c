// SPDX-License-Identifier: GPL-2.0
/* fabtrace -b FILE: run commands from a file, as ip -b does. */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "ft.h"
#include "objects.h"
#include "util.h"

#define BATCH_WORDS	256

/*
 * Split @line into words in place: blanks separate them, '...' and "..."
 * quote (no escapes), a word starting with '#' starts a comment.  Returns
 * the number of words, or -1 with @why set.
 */
int batch_split(char *line, char **argv, int max, const char **why)
{
	char *r = line, *w;
	int argc = 0;

	for (;;) {
		while (*r == ' ' || *r == '\t' || *r == '\n' || *r == '\r')
			r++;
		if (!*r || *r == '#')
			return argc;
		if (argc == max) {
			*why = "too many words";
			return -1;
		}
		argv[argc++] = w = r;
		while (*r && *r != ' ' && *r != '\t' && *r != '\n' && *r != '\r') {
			if (*r == '"' || *r == '\'') {
				char q = *r++;

				while (*r && *r != q)
					*w++ = *r++;
				if (!*r) {
					*why = "unterminated quote";
					return -1;
				}
				r++;
				continue;
			}
			*w++ = *r++;
		}
		if (*r)
			r++;
		*w = '\0';
	}
}

int ft_batch(struct ft *ft, const struct cmd *objects, const char *path)
{
	FILE *fp = strcmp(path, "-") ? fopen(path, "r") : stdin;
	char *line = NULL, *argv[BATCH_WORDS + 1];
	const char *why = NULL;
	size_t cap = 0;
	unsigned long n = 0;
	int argc, rc, ret = 0;

	if (!fp) {
		ft_err("-b %s: %s", path, strerror(errno));
		return -1;
	}
	while (getline(&line, &cap, fp) > 0) {
		n++;
		argc = batch_split(line, argv, BATCH_WORDS, &why);
		if (argc < 0) {
			ft_err("%s:%lu: %s", path, n, why);
			ret = -1;
			break;
		}
		if (!argc)
			continue;
		argv[argc] = NULL;
		rc = cmd_dispatch(ft, objects, "object", "fabtrace help", argc, argv);
		if (rc < 0) {
			ft_err("%s:%lu: command failed, stopping", path, n);
			ret = -1;
			break;
		}
		/* a warning (a driver refused a policy): the next line still runs */
		if (rc > 0)
			ret = 1;
	}
	if (!ret && ferror(fp)) {
		ft_err("-b %s: read error", path);
		ret = -1;
	}
	free(line);
	if (fp != stdin)
		fclose(fp);
	return ret;
}
