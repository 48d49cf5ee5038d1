// SPDX-License-Identifier: GPL-2.0
/* One print layer for text and JSON, in the spirit of iproute2's json_print. */

#include <json-c/json.h>
#include <json-c/printbuf.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "out.h"
#include "units.h"
#include "util.h"

#define OUT_DEPTH	16

enum out_shape {
	SHAPE_DOC,		/* one JSON value per call sequence */
	SHAPE_LIST,		/* a streamed JSON array */
	SHAPE_LINES,		/* one JSON object per line */
};

struct out {
	FILE *fp;
	bool json, pretty, numeric;
	enum out_shape shape;
	unsigned long elems;		/* list elements written */
	/* JSON containers being built; stack[0] is the top-level value */
	struct json_object *stack[OUT_DEPTH];
	/*
	 * Per reused object: the entry its next key most likely has.  Values
	 * come in the same order for every element, so following the previous
	 * element's order finds them without hashing the key; keys are
	 * literals, so comparing pointers is enough.
	 */
	struct lh_entry *cursor[OUT_DEPTH];
	int depth;
	/*
	 * List elements reuse the previous element's tree.  Every value set
	 * while building one element is stamped (json-c userdata) with the
	 * next number of @stamp; values older than @start were absent from
	 * this element and go, and objects whose values are out of stamp
	 * order (a key new to the tree went to the end) are put back in the
	 * order they were printed.
	 */
	struct json_object *spare;
	uintptr_t stamp, start;
	bool reusing;
};

struct out *out_new(FILE *fp, bool json, bool pretty, bool numeric)
{
	struct out *o = xcalloc(1, sizeof(*o));

	o->fp = fp;
	o->json = json;
	o->pretty = pretty;
	o->numeric = numeric;
	o->depth = -1;
	/* rates are the only doubles: two decimals are plenty, never 1e+06 */
	json_c_set_serialization_double_format("%.2f", JSON_C_OPTION_GLOBAL);
	return o;
}

void out_free(struct out *o)
{
	if (!o)
		return;
	if (o->json && o->shape == SHAPE_LIST && o->elems)
		fputs(o->pretty ? "\n]\n" : "]\n", o->fp);
	while (o->depth >= 0) {
		if (o->depth == 0 && o->stack[0] != o->spare)
			json_object_put(o->stack[0]);
		o->depth--;
	}
	json_object_put(o->spare);
	free(o);
}

bool out_is_json(const struct out *o)
{
	return o->json;
}

FILE *out_fp(const struct out *o)
{
	return o->fp;
}

int out_flush(struct out *o)
{
	return fflush(o->fp);
}

void out_list_begin(struct out *o)
{
	o->shape = SHAPE_LIST;
	o->elems = 0;
}

void out_list_end(struct out *o)
{
	if (o->json && o->shape == SHAPE_LIST)
		fputs(o->elems ? (o->pretty ? "\n]\n" : "]\n") : "[]\n", o->fp);
	o->shape = SHAPE_DOC;
	o->elems = 0;
}

void out_lines(struct out *o)
{
	o->shape = SHAPE_LINES;
}

static int to_string_flags(const struct out *o)
{
	int flags = JSON_C_TO_STRING_NOSLASHESCAPE;

	if (o->pretty && o->shape != SHAPE_LINES)
		return flags | JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED;
	return flags | JSON_C_TO_STRING_PLAIN;
}

struct slot {
	const char *key;
	struct json_object *val;
	uintptr_t stamp;
};

static int slot_cmp(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;

	return x->stamp < y->stamp ? -1 : x->stamp > y->stamp;
}

/* Re-insert the members of @obj in the order they were set. */
static void reorder(struct json_object *obj)
{
	size_t n = 0, i, len = json_object_object_length(obj);
	struct slot *v = xcalloc(len, sizeof(*v));

	json_object_object_foreach(obj, key, val) {
		v[n].key = key;
		v[n].val = json_object_get(val);
		v[n].stamp = (uintptr_t)json_object_get_userdata(val);
		n++;
	}
	qsort(v, n, sizeof(*v), slot_cmp);
	for (i = 0; i < n; i++)
		json_object_object_del(obj, v[i].key);
	for (i = 0; i < n; i++)
		json_object_object_add_ex(obj, v[i].key, v[i].val,
					  JSON_C_OBJECT_KEY_IS_CONSTANT);
	free(v);
}

/* Drop what the previous element had and this one did not set; fix order. */
static void prune(struct json_object *obj, uintptr_t start)
{
	uintptr_t last = 0, s;
	bool ordered = true;

	json_object_object_foreach(obj, key, val) {
		s = (uintptr_t)json_object_get_userdata(val);
		if (s < start) {
			json_object_object_del(obj, key);
			continue;
		}
		if (s < last)
			ordered = false;
		last = s;
		if (json_object_is_type(val, json_type_object))
			prune(val, start);
	}
	if (!ordered)
		reorder(obj);
}

static void emit_list_elem(struct out *o, struct json_object *v)
{
	const char *s = json_object_to_json_string_ext(v, to_string_flags(o));

	if (!o->pretty) {
		fputs(o->elems ? "," : "[", o->fp);
		fputs(s, o->fp);
	} else {
		/* indent the element inside the array; strings never hold raw \n */
		fputs(o->elems ? ",\n  " : "[\n  ", o->fp);
		for (; *s; s++) {
			fputc(*s, o->fp);
			if (*s == '\n')
				fputs("  ", o->fp);
		}
	}
	o->elems++;
}

/* A top-level value is complete: write it. */
static void emit(struct out *o, struct json_object *v)
{
	switch (o->shape) {
	case SHAPE_LIST:
		if (o->reusing)
			prune(v, o->start);
		emit_list_elem(o, v);
		/* keep the tree: the next element overwrites it */
		if (o->spare != v) {
			json_object_put(o->spare);
			o->spare = v;
		}
		o->reusing = false;
		return;
	case SHAPE_LINES:
		fputs(json_object_to_json_string_ext(v, to_string_flags(o)), o->fp);
		fputc('\n', o->fp);
		fflush(o->fp);
		break;
	case SHAPE_DOC:
		fputs(json_object_to_json_string_ext(v, to_string_flags(o)), o->fp);
		fputc('\n', o->fp);
		break;
	}
	json_object_put(v);
}

/* Mark @v as set by the element being built, in print order. */
static void stamp(struct out *o, struct json_object *v)
{
	o->stamp++;
	json_object_set_userdata(v, (void *)o->stamp, NULL);
}

static struct json_object *top(const struct out *o)
{
	return o->depth >= 0 ? o->stack[o->depth] : NULL;
}

/*
 * The value under @key of the container being built, if this element reuses
 * a tree that has one of @type; NULL when a new value must be made.
 */
static struct json_object *reuse(struct out *o, const char *key, enum json_type type)
{
	struct json_object *parent = top(o), *v;
	struct lh_entry *e;

	if (!o->reusing || !key || !parent ||
	    !json_object_is_type(parent, json_type_object))
		return NULL;
	e = o->cursor[o->depth];
	if (e && lh_entry_k(e) == key) {
		v = (struct json_object *)lh_entry_v(e);
		o->cursor[o->depth] = lh_entry_next(e);
	} else if (!json_object_object_get_ex(parent, key, &v)) {
		return NULL;
	}
	if (!json_object_is_type(v, type))
		return NULL;
	stamp(o, v);
	return v;
}

/* Attach a new value to the container being built. */
static void attach(struct out *o, const char *key, struct json_object *v)
{
	struct json_object *parent = top(o);

	if (o->reusing)
		stamp(o, v);
	if (!parent) {
		emit(o, v);		/* a lone scalar document */
	} else if (json_object_is_type(parent, json_type_array)) {
		json_object_array_add(parent, v);
	} else {
		/* keys are literals: json-c need not copy them */
		json_object_object_add_ex(parent, key ? key : "", v,
					  JSON_C_OBJECT_KEY_IS_CONSTANT);
	}
}

static void push(struct out *o, struct json_object *v)
{
	if (o->depth + 1 >= OUT_DEPTH) {
		/* a programming error, not a runtime condition */
		ft_err("internal error: JSON nesting too deep");
		abort();
	}
	o->stack[++o->depth] = v;
	o->cursor[o->depth] = o->reusing && json_object_is_type(v, json_type_object) ?
			      lh_table_head(json_object_get_object(v)) : NULL;
}

static void begin(struct out *o, const char *key, enum json_type type)
{
	struct json_object *v;

	if (!o->json)
		return;
	if (o->depth < 0) {
		/* a new top-level value; list elements take the spare tree */
		if (o->shape == SHAPE_LIST && o->spare &&
		    json_object_is_type(o->spare, type)) {
			v = o->spare;
			o->start = ++o->stamp;
			o->reusing = true;
		} else {
			v = type == json_type_array ? json_object_new_array() :
						      json_object_new_object();
			o->reusing = false;
		}
		push(o, v);
		return;
	}
	v = reuse(o, key, type);
	if (v) {
		/* an array's elements are never reused: start it empty */
		if (type == json_type_array && json_object_array_length(v))
			json_object_array_del_idx(v, 0, json_object_array_length(v));
	} else {
		v = type == json_type_array ? json_object_new_array() :
					      json_object_new_object();
		attach(o, key, v);
	}
	push(o, v);
}

static void end(struct out *o)
{
	struct json_object *v;

	if (!o->json || o->depth < 0)
		return;
	v = o->stack[o->depth--];
	if (o->depth < 0)
		emit(o, v);
}

void out_obj_begin(struct out *o, const char *key)
{
	begin(o, key, json_type_object);
}

void out_obj_end(struct out *o)
{
	end(o);
}

void out_arr_begin(struct out *o, const char *key)
{
	begin(o, key, json_type_array);
}

void out_arr_end(struct out *o)
{
	end(o);
}

/* --- hostile strings (out.h) ------------------------------------------------- */

static const char hex[] = "0123456789abcdef";

char *out_esc(char *buf, size_t size, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 0, need;

	if (!size)
		return buf;
	for (; *p; p++) {
		need = *p == '\\' ? 2 : (*p >= 0x20 && *p < 0x7f) ? 1 : 4;
		if (n + need >= size)
			break;
		if (need == 1) {
			buf[n++] = *p;
			continue;
		}
		buf[n++] = '\\';
		if (need == 2) {
			buf[n++] = '\\';
			continue;
		}
		buf[n++] = 'x';
		buf[n++] = hex[*p >> 4];
		buf[n++] = hex[*p & 0xf];
	}
	buf[n] = '\0';
	return buf;
}

size_t out_utf8_len(const unsigned char *p, size_t *bad)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (p[0] < 0x80)
		return 1;
	if (p[0] < 0xc2 || p[0] > 0xf4) {
		*bad = 1;		/* a continuation byte, or never valid */
		return 0;
	}
	if (p[0] < 0xe0) {
		n = 2;
	} else if (p[0] < 0xf0) {
		n = 3;
		if (p[0] == 0xe0)
			lo = 0xa0;	/* overlong */
		else if (p[0] == 0xed)
			hi = 0x9f;	/* surrogates */
	} else {
		n = 4;
		if (p[0] == 0xf0)
			lo = 0x90;	/* overlong */
		else if (p[0] == 0xf4)
			hi = 0x8f;	/* above U+10FFFF */
	}
	for (i = 1; i < n; i++) {
		if (p[i] < lo || p[i] > hi) {
			*bad = i;
			return 0;
		}
		lo = 0x80;
		hi = 0xbf;
	}
	return n;
}

/* The code point of a control JSON output escapes (C0, DEL, C1), or -1. */
static int json_ctl(const unsigned char *p, size_t n)
{
	if (n == 1 && (p[0] < 0x20 || p[0] == 0x7f))
		return p[0];
	if (n == 2 && p[0] == 0xc2 && p[1] < 0xa0)
		return p[1];
	return -1;
}

/* One escaped character, spelt as json-c spells it. */
static void json_esc_char(struct printbuf *pb, int c, int flags)
{
	char u[] = "\\u00XX";

	switch (c) {
	case '"':
		printbuf_strappend(pb, "\\\"");
		break;
	case '\\':
		printbuf_strappend(pb, "\\\\");
		break;
	case '/':
		if (flags & JSON_C_TO_STRING_NOSLASHESCAPE)
			printbuf_strappend(pb, "/");
		else
			printbuf_strappend(pb, "\\/");
		break;
	case '\b':
		printbuf_strappend(pb, "\\b");
		break;
	case '\f':
		printbuf_strappend(pb, "\\f");
		break;
	case '\n':
		printbuf_strappend(pb, "\\n");
		break;
	case '\r':
		printbuf_strappend(pb, "\\r");
		break;
	case '\t':
		printbuf_strappend(pb, "\\t");
		break;
	default:
		u[4] = hex[c >> 4];
		u[5] = hex[c & 0xf];
		printbuf_memappend(pb, u, 6);
	}
}

/*
 * The serializer of every string out_str() makes.  json-c's own escapes
 * the C0 controls but passes every byte >= 0x80 through unchecked: one 0xff
 * in a comm would make the whole document invalid for every consumer.
 */
static int json_str_serialize(struct json_object *j, struct printbuf *pb,
			      int level, int flags)
{
	const unsigned char *s = (const unsigned char *)json_object_get_string(j);
	size_t len = json_object_get_string_len(j), i = 0, run, n = 0, bad = 0;
	int c = -1;

	(void)level;
	printbuf_strappend(pb, "\"");
	while (i < len) {
		/* the longest run that goes out as it is, in one append */
		for (run = i; i < len; i += n) {
			n = out_utf8_len(s + i, &bad);
			if (!n)
				break;
			c = json_ctl(s + i, n);
			if (c < 0 && n == 1 && (s[i] == '"' || s[i] == '\\' || s[i] == '/'))
				c = s[i];
			if (c >= 0)
				break;
		}
		printbuf_memappend(pb, (const char *)s + run, i - run);
		if (i >= len)
			break;
		if (!n) {
			printbuf_strappend(pb, "\xef\xbf\xbd");	/* U+FFFD */
			i += bad;
		} else {
			json_esc_char(pb, c, flags);
			i += n;
		}
	}
	printbuf_strappend(pb, "\"");
	return 0;
}

static bool want_text(const struct out *o, int type)
{
	return !o->json && (type & PRINT_FP);
}

static bool want_json(const struct out *o, int type)
{
	return o->json && (type & PRINT_JSON);
}

void out_u64(struct out *o, int type, const char *key, const char *fmt, uint64_t v)
{
	struct json_object *j;

	if (want_text(o, type)) {
		fprintf(o->fp, fmt, (unsigned long long)v);
	} else if (want_json(o, type)) {
		j = reuse(o, key, json_type_int);
		if (j)
			json_object_set_uint64(j, v);
		else
			attach(o, key, json_object_new_uint64(v));
	}
}

static void text_str(struct out *o, const char *fmt, const char *s)
{
	/* the kernel's strings are device names and comms: under 64 bytes */
	char small[OUT_ESC_SIZE(64)], *buf = small;
	size_t size = OUT_ESC_SIZE(strlen(s));

	if (size > sizeof(small))
		buf = xmalloc(size);
	fprintf(o->fp, fmt, out_esc(buf, size, s));
	if (buf != small)
		free(buf);
}

void out_str(struct out *o, int type, const char *key, const char *fmt, const char *s)
{
	struct json_object *j;

	if (want_text(o, type)) {
		text_str(o, fmt, s ? s : "-");
	} else if (want_json(o, type) && s) {
		/* a reused string keeps the serializer it was made with */
		j = reuse(o, key, json_type_string);
		if (j) {
			json_object_set_string(j, s);
			return;
		}
		j = json_object_new_string(s);
		/* before attach(): the serializer's userdata is the stamp's slot */
		json_object_set_serializer(j, json_str_serialize, NULL, NULL);
		attach(o, key, j);
	}
}

void out_bool(struct out *o, int type, const char *key, const char *fmt, bool v)
{
	struct json_object *j;

	if (want_text(o, type)) {
		fprintf(o->fp, fmt, v ? "yes" : "no");
	} else if (want_json(o, type)) {
		j = reuse(o, key, json_type_boolean);
		if (j)
			json_object_set_boolean(j, v);
		else
			attach(o, key, json_object_new_boolean(v));
	}
}

void out_double(struct out *o, int type, const char *key, const char *fmt, double v)
{
	struct json_object *j;

	if (want_text(o, type)) {
		fprintf(o->fp, fmt, v);
	} else if (want_json(o, type)) {
		j = reuse(o, key, json_type_double);
		if (j)
			json_object_set_double(j, v);
		else
			attach(o, key, json_object_new_double(v));
	}
}

/* @v as text shows a counter: exact when numeric, else as @human writes it. */
static const char *count_text(const struct out *o, char *buf, size_t len, uint64_t v,
			      const char *(*human)(char *buf, size_t len, uint64_t v))
{
	if (!o->numeric)
		return human(buf, len, v);
	snprintf(buf, len, "%llu", (unsigned long long)v);
	return buf;
}

const char *out_fmt_count(const struct out *o, char *buf, size_t len, uint64_t v)
{
	return count_text(o, buf, len, v, fmt_count);
}

const char *out_fmt_bytes(const struct out *o, char *buf, size_t len, uint64_t v)
{
	return count_text(o, buf, len, v, fmt_bytes);
}

static void out_human(struct out *o, int type, const char *key, const char *fmt, uint64_t v,
		      const char *(*human)(char *buf, size_t len, uint64_t v))
{
	char buf[FT_FMT_LEN];

	if (want_text(o, type))
		fprintf(o->fp, fmt, count_text(o, buf, sizeof(buf), v, human));
	else
		out_u64(o, type, key, fmt, v);
}

void out_count(struct out *o, int type, const char *key, const char *fmt, uint64_t v)
{
	out_human(o, type, key, fmt, v, fmt_count);
}

void out_bytes(struct out *o, int type, const char *key, const char *fmt, uint64_t v)
{
	out_human(o, type, key, fmt, v, fmt_bytes);
}

void out_time(struct out *o, int type, const char *key, const char *fmt, uint64_t ns)
{
	char buf[FT_FMT_LEN];

	if (want_text(o, type))
		fprintf(o->fp, fmt, fmt_time(buf, sizeof(buf), ns, 3));
	else
		out_u64(o, type, key, fmt, ns);
}

void out_text(struct out *o, const char *fmt, ...)
{
	va_list ap;

	if (o->json)
		return;
	va_start(ap, fmt);
	vfprintf(o->fp, fmt, ap);
	va_end(ap);
}

bool out_numeric(const struct out *o)
{
	return o->numeric;
}
