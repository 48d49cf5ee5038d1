/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CLI's unit tests use the kernel's kselftest harness, as selftests/
 * nl_test.c and selftests/pure/ do (kselftest_harness.h, extracted from
 * Debian's linux-source-6.12 by the top Makefile into build/tools):
 *
 *	TEST(name) { EXPECT_EQ(2, 1 + 1); ASSERT_TRUE(p); ... }
 *	TEST_HARNESS_MAIN
 *
 * This adds what those tests share beyond the harness: a failure a helper
 * function reports for the line of the test that called it (the helper
 * takes the test's _metadata), doubles compared to 1e-6, and the strict
 * JSON validation every JSON output of the CLI must pass.
 */
#ifndef _FABTRACE_HARNESS_H
#define _FABTRACE_HARNESS_H

#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"

/* user/util.h has its own (the same) */
#undef ARRAY_SIZE

/*
 * The harness gives a test 30 s.  Every JSON check starts python3 (below):
 * test_esc's 16 in one test took 4.4 s on a host whose cores ran QEMU nodes
 * (through pyenv's python3 shim, over 30 s: /usr/bin/python3 it is).
 * TEST() reads the limit where it is used, so this one holds for every test.
 */
#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT 120

/* ft_fail(FILE, LINE, fmt, ...): the test fails, at FILE:LINE, and goes on. */
#define ft_fail(file, line, fmt, ...) do {				\
	fprintf(TH_LOG_STREAM, "# %s:%d:%s: " fmt "\n", file, line,	\
		_metadata->name, ##__VA_ARGS__);			\
	_metadata->exit_code = KSFT_FAIL;				\
} while (0)

#define EXPECT_DBL(a, b) do {						\
	double _a = (a), _b = (b);					\
	if (_a - _b > 1e-6 || _b - _a > 1e-6)				\
		ft_fail(__FILE__, __LINE__, "%s == %s: %f != %f",	\
			#a, #b, _a, _b);				\
} while (0)

/* Reads one JSON document on stdin as any strict consumer does. */
#define FT_PY_JSON \
	"/usr/bin/python3 -c 'import json, sys; json.loads(sys.stdin.buffer.read().decode(\"utf-8\"))'"

/*
 * Strict validation of a JSON text: json-c in strict mode, validating UTF-8,
 * must consume all of it (trailing blanks aside), and, when python3 is
 * there, so must Python's json module after a strict UTF-8 decode of the
 * bytes (what any consumer does; "python3 -m json.tool" reads stdin with
 * surrogateescape, in the C and C.UTF-8 locales at least, and passes
 * invalid UTF-8).  Returns the parsed value (put it) or NULL.
 */
static inline struct json_object *json_strict(const char *text)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *v;
	size_t len = strlen(text), used;
	FILE *py;

	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	v = json_tokener_parse_ex(tok, text, (int)len);
	used = json_tokener_get_parse_end(tok);
	if (!v || json_tokener_get_error(tok) != json_tokener_success)
		goto bad;
	for (; used < len; used++)
		if (!strchr(" \t\r\n", text[used]))
			goto bad;
	json_tokener_free(tok);
	if (access("/usr/bin/python3", X_OK) == 0) {
		py = popen(FT_PY_JSON " >/dev/null 2>&1", "w");
		if (py) {
			fputs(text, py);
			if (pclose(py) != 0) {
				printf("# python3 json.loads(utf-8) rejects: %s\n", text);
				json_object_put(v);
				return NULL;
			}
		}
	}
	return v;
bad:
	printf("# invalid JSON: %s\n", text);
	json_tokener_free(tok);
	json_object_put(v);
	return NULL;
}

/* obj["a"]["b"]... (NULL-terminated path), or NULL. */
static inline struct json_object *json_path(struct json_object *obj, ...)
{
	const char *key;
	va_list ap;

	va_start(ap, obj);
	while (obj && (key = va_arg(ap, const char *)))
		if (!json_object_object_get_ex(obj, key, &obj))
			obj = NULL;
	va_end(ap);
	return obj;
}

#define JGET(obj, ...) json_path(obj, __VA_ARGS__, (const char *)NULL)

#endif /* _FABTRACE_HARNESS_H */
