// SPDX-License-Identifier: GPL-2.0
/* The Prometheus text exposition format (0.0.4): families, samples, labels. */

#include <string.h>

#include "out.h"
#include "prom.h"

#define REPLACEMENT	"\xef\xbf\xbd"	/* U+FFFD */

void prom_init(struct prom *p, FILE *fp)
{
	p->fp = fp;
	p->series = 0;
}

/* HELP text escapes '\' and newline; ours are literals without them. */
void prom_family(struct prom *p, const char *name, const char *type, const char *help)
{
	fprintf(p->fp, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A control character (C0, DEL, C1) of @n bytes at @s. */
static int is_ctl(const unsigned char *s, size_t n)
{
	return (n == 1 && (s[0] < 0x20 || s[0] == 0x7f)) ||
	       (n == 2 && s[0] == 0xc2 && s[1] < 0xa0);
}

char *prom_clean(char *buf, size_t size, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t o = 0, n, bad = 0;

	if (!size)
		return buf;
	while (*s) {
		n = out_utf8_len(s, &bad);
		if (!n || is_ctl(s, n)) {
			if (o + 3 >= size)
				break;
			memcpy(buf + o, REPLACEMENT, 3);
			o += 3;
			s += n ? n : bad;
			continue;
		}
		if (o + n >= size)
			break;
		memcpy(buf + o, s, n);
		o += n;
		s += n;
	}
	buf[o] = '\0';
	return buf;
}

static void put_value(FILE *fp, const char *v)
{
	const unsigned char *s = (const unsigned char *)v;
	size_t n, bad = 0;

	while (*s) {
		n = out_utf8_len(s, &bad);
		if (!n || is_ctl(s, n)) {
			/* a newline would be "\n"; like every control it goes */
			fputs(REPLACEMENT, fp);
			s += n ? n : bad;
			continue;
		}
		if (*s == '\\' || *s == '"')
			fputc('\\', fp);
		fwrite(s, 1, n, fp);
		s += n;
	}
}

static void put_name(struct prom *p, const char *name, const struct prom_label *l,
		     size_t n)
{
	size_t i;

	fputs(name, p->fp);
	if (n) {
		fputc('{', p->fp);
		for (i = 0; i < n; i++) {
			fprintf(p->fp, "%s%s=\"", i ? "," : "", l[i].name);
			put_value(p->fp, l[i].value);
			fputc('"', p->fp);
		}
		fputc('}', p->fp);
	}
	p->series++;
}

void prom_u64(struct prom *p, const char *name, const struct prom_label *l, size_t n,
	      uint64_t v)
{
	put_name(p, name, l, n);
	fprintf(p->fp, " %llu\n", (unsigned long long)v);
}

void prom_frac(struct prom *p, const char *name, const struct prom_label *l, size_t n,
	       uint64_t v, uint64_t div)
{
	char frac[16];
	int digits = 0, i;
	uint64_t d, f;

	for (d = div; d > 1 && digits < 9; d /= 10)
		digits++;
	put_name(p, name, l, n);
	f = div > 1 ? v % div : 0;
	fprintf(p->fp, " %llu", (unsigned long long)(div > 1 ? v / div : v));
	if (!f) {
		fputc('\n', p->fp);
		return;
	}
	for (i = digits - 1; i >= 0; i--, f /= 10)
		frac[i] = '0' + f % 10;
	while (digits > 0 && frac[digits - 1] == '0')
		digits--;
	frac[digits] = '\0';
	fprintf(p->fp, ".%s\n", frac);
}
