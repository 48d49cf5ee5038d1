/* SPDX-License-Identifier: GPL-2.0 */
/* One print layer for text and JSON, in the spirit of iproute2's json_print. */
#ifndef _FABTRACE_OUT_H
#define _FABTRACE_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Which outputs a print call feeds. */
enum {
	PRINT_FP = 1,		/* text only */
	PRINT_JSON = 2,		/* JSON only */
	PRINT_ANY = 3,		/* both: the key for JSON, the format for text */
};

struct out;

/*
 * Text goes straight to @fp with the call's printf format.  JSON is built
 * with json-c, one top-level value at a time, and written when it is
 * complete, so a dump of any size streams: memory stays bounded by one
 * element.  Keys must be string literals (json-c keeps the pointer).
 */
struct out *out_new(FILE *fp, bool json, bool pretty, bool numeric);
/*
 * Finish: a JSON list that was started and has elements is closed, so that
 * stdout holds valid JSON even when an error cut the output short.
 */
void out_free(struct out *o);
bool out_is_json(const struct out *o);
FILE *out_fp(const struct out *o);
/* -n: exact numbers instead of human units. */
bool out_numeric(const struct out *o);
int out_flush(struct out *o);

/*
 * A JSON array whose elements (top-level objects) are written one by one.
 * "[" comes with the first element, so an error before any output leaves
 * stdout empty; out_list_end() writes "[]" for an empty list.  The tree of
 * one element is reused for the next one (values updated in place), which
 * keeps per-element heap churn near zero for large dumps.
 */
void out_list_begin(struct out *o);
void out_list_end(struct out *o);
/* JSON lines: every top-level object is one line, flushed (monitor, top). */
void out_lines(struct out *o);

void out_obj_begin(struct out *o, const char *key);
void out_obj_end(struct out *o);
void out_arr_begin(struct out *o, const char *key);
void out_arr_end(struct out *o);

/*
 * Every string the kernel hands over is hostile: a QP's comm is whatever its
 * owner set with prctl(PR_SET_NAME), any bytes but NUL, and it reaches the
 * operator's terminal and every JSON consumer of the node.  So:
 *
 * Text: printable ASCII (0x20-0x7e) goes as it is, except '\', which
 * becomes "\\"; every other byte becomes "\xHH" (lowercase), UTF-8
 * included.  No name can move the cursor, clear the screen, recolour or
 * break a table row, and the mapping can be undone.
 *
 * JSON: the output is valid UTF-8 whatever the string holds.  Well-formed
 * UTF-8 goes as it is; each maximal ill-formed subpart (Unicode ch. 3.9, what
 * Python's bytes.decode("utf-8", "replace") does) becomes U+FFFD.  The C0
 * and C1 controls and DEL become \u00XX: -j output is read on terminals
 * too, and some act on C1 controls such as U+009B (CSI) even when they come
 * UTF-8 encoded.
 *
 * out_str() applies both, so printers get this for free.  A printer that
 * formats a kernel string itself (fixed-width table rows) escapes it with
 * out_esc() first.
 */
/* Room for the text escape of a string of @n bytes, NUL included. */
#define OUT_ESC_SIZE(n)	(4 * (n) + 1)
/*
 * The text escape of @s into @buf (@size bytes; OUT_ESC_SIZE(strlen(s))
 * always fits).  Truncated to whole escapes if @buf is smaller.  Returns
 * @buf.
 */
char *out_esc(char *buf, size_t size, const char *s);

/*
 * The length of the well-formed UTF-8 sequence at @p (Unicode table 3-7),
 * or 0 with *@bad set to the length of its maximal ill-formed subpart: the
 * bytes one U+FFFD stands for.  Never reads past a NUL, which no
 * continuation byte matches.  (Also for the Prometheus labels, prom.c.)
 */
size_t out_utf8_len(const unsigned char *p, size_t *bad);

/* The text format takes the value as: unsigned long long. */
void out_u64(struct out *o, int type, const char *key, const char *fmt, uint64_t v);
/*
 * ... as const char *, escaped (above); a NULL string prints "-" and is
 * skipped in JSON.
 */
void out_str(struct out *o, int type, const char *key, const char *fmt, const char *s);
/* ... as const char *, "yes" or "no". */
void out_bool(struct out *o, int type, const char *key, const char *fmt, bool v);
/* ... as double. */
void out_double(struct out *o, int type, const char *key, const char *fmt, double v);
/* Counters and byte counts: human units in text unless numeric (as const char *). */
void out_count(struct out *o, int type, const char *key, const char *fmt, uint64_t v);
void out_bytes(struct out *o, int type, const char *key, const char *fmt, uint64_t v);
/* The text of those two into @buf, for a table's cells (FT_FMT_LEN bytes). */
const char *out_fmt_count(const struct out *o, char *buf, size_t len, uint64_t v);
const char *out_fmt_bytes(const struct out *o, char *buf, size_t len, uint64_t v);
/* Nanoseconds since the epoch: a number in JSON, ISO-8601 local time in text. */
void out_time(struct out *o, int type, const char *key, const char *fmt, uint64_t ns);
/* Text only. */
void out_text(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* _FABTRACE_OUT_H */
