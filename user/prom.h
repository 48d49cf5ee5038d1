/* SPDX-License-Identifier: GPL-2.0 */
/* The Prometheus text exposition format (0.0.4): families, samples, labels. */
#ifndef _FABTRACE_PROM_H
#define _FABTRACE_PROM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * A family is its HELP and TYPE lines, then all of its samples, before the
 * next family starts.  Label values come from the kernel and so from users
 * (process names, cgroup paths): the writer makes every value valid UTF-8
 * with no control character (prom_clean()), then escapes '\', '"' and
 * newline as the format wants.  No timestamps: node_exporter's textfile
 * collector refuses them.
 */
struct prom {
	FILE *fp;
	unsigned long series;	/* samples written */
};

struct prom_label {
	const char *name;	/* [a-z_]+, a literal */
	const char *value;	/* any bytes; cleaned and escaped when written */
};

void prom_init(struct prom *p, FILE *fp);

/* "# HELP name help" and "# TYPE name type" (type: "counter", "gauge"). */
void prom_family(struct prom *p, const char *name, const char *type, const char *help);

/* name{labels} v; @n labels (0: none). */
void prom_u64(struct prom *p, const char *name, const struct prom_label *l, size_t n,
	      uint64_t v);
/*
 * name{labels} v / div, written exactly in decimal (div a power of ten up
 * to 10^9): 1500000000 / 10^9 is "1.5".
 */
void prom_frac(struct prom *p, const char *name, const struct prom_label *l, size_t n,
	       uint64_t v, uint64_t div);

/* Room prom_clean() may need for a string of @n bytes, NUL included. */
#define PROM_CLEAN_SIZE(n)	(3 * (n) + 1)
/*
 * The label value @s will be: well-formed UTF-8 kept, each maximal
 * ill-formed subpart and each control character (C0, DEL, C1) replaced by
 * U+FFFD.  Into @buf (@size bytes, PROM_CLEAN_SIZE(strlen(s)) always
 * fits; else cut at a character boundary).  Two values that clean alike
 * are one series, so callers that group by a label clean it first.
 * Returns @buf.
 */
char *prom_clean(char *buf, size_t size, const char *s);

#endif /* _FABTRACE_PROM_H */
