/* SPDX-License-Identifier: GPL-2.0 */
/* A tiny TAP 13 harness for the CLI's unit tests, kselftest_harness.h style. */
#ifndef _FABTRACE_TAP_H
#define _FABTRACE_TAP_H

#include <json-c/json.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 *	TEST(name) { EXPECT_EQ(1 + 1, 2); ASSERT_TRUE(p); ... }
 *	TEST_HARNESS_MAIN
 *
 * Each test runs in a child process, so one that crashes fails alone.
 * EXPECT_* records a failure and goes on; ASSERT_* ends the test.
 */
struct tap_test {
	const char *name;
	void (*fn)(void);
};

#define TAP_MAX 256
static struct tap_test tap_tests[TAP_MAX];
static int tap_ntests;
static int tap_failed;		/* in the child: this test failed */

static inline void tap_register(const char *name, void (*fn)(void))
{
	if (tap_ntests < TAP_MAX)
		tap_tests[tap_ntests++] = (struct tap_test){ name, fn };
}

#define TEST(name)							\
	static void test_##name(void);					\
	__attribute__((constructor)) static void tap_reg_##name(void)	\
	{								\
		tap_register(#name, test_##name);			\
	}								\
	static void test_##name(void)

static inline void tap_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	printf("# %s:%d: ", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	tap_failed = 1;
}

#define EXPECT_TRUE(c) do {						\
	if (!(c))							\
		tap_fail(__FILE__, __LINE__, "expected %s", #c);	\
} while (0)

#define EXPECT_FALSE(c) EXPECT_TRUE(!(c))

#define EXPECT_EQ(a, b) do {						\
	unsigned long long _a = (unsigned long long)(a);		\
	unsigned long long _b = (unsigned long long)(b);		\
	if (_a != _b)							\
		tap_fail(__FILE__, __LINE__, "%s == %s: %llu != %llu",	\
			 #a, #b, _a, _b);				\
} while (0)

#define EXPECT_STREQ(a, b) do {						\
	const char *_a = (a), *_b = (b);				\
	if (!_a || !_b || strcmp(_a, _b))				\
		tap_fail(__FILE__, __LINE__, "%s == %s: \"%s\" != \"%s\"", \
			 #a, #b, _a ? _a : "(null)", _b ? _b : "(null)"); \
} while (0)

#define EXPECT_DBL(a, b) do {						\
	double _a = (a), _b = (b);					\
	if (_a - _b > 1e-6 || _b - _a > 1e-6)				\
		tap_fail(__FILE__, __LINE__, "%s == %s: %f != %f",	\
			 #a, #b, _a, _b);				\
} while (0)

#define ASSERT_TRUE(c) do {						\
	if (!(c)) {							\
		tap_fail(__FILE__, __LINE__, "expected %s", #c);	\
		return;							\
	}								\
} while (0)

/*
 * Strict validation of a JSON text: json-c in strict mode, validating UTF-8,
 * must consume all of it (trailing blanks aside), and, when python3 is
 * there, so must Python's json module after a strict UTF-8 decode of the
 * bytes (what any consumer does; "python3 -m json.tool" reads stdin with
 * surrogateescape, in the C and C.UTF-8 locales at least, and passes
 * invalid UTF-8).  Returns the parsed value (put it) or NULL.
 */
/* Reads one JSON document on stdin as any strict consumer does. */
#define TAP_PY_JSON \
	"python3 -c 'import json, sys; json.loads(sys.stdin.buffer.read().decode(\"utf-8\"))'"

static inline struct json_object *tap_json(const char *text)
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
		py = popen(TAP_PY_JSON " >/dev/null 2>&1", "w");
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
static inline struct json_object *tap_jget(struct json_object *obj, ...)
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

#define JGET(obj, ...) tap_jget(obj, __VA_ARGS__, (const char *)NULL)

static inline int tap_main(void)
{
	int i, failed = 0, status;

	setvbuf(stdout, NULL, _IONBF, 0);
	printf("TAP version 13\n1..%d\n", tap_ntests);
	for (i = 0; i < tap_ntests; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			tap_tests[i].fn();
			fflush(NULL);
			_exit(tap_failed);
		}
		if (pid < 0 || waitpid(pid, &status, 0) < 0) {
			printf("Bail out! fork: %m\n");
			return 1;
		}
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
			printf("ok %d %s\n", i + 1, tap_tests[i].name);
		} else {
			if (WIFSIGNALED(status))
				printf("# killed by signal %d\n", WTERMSIG(status));
			printf("not ok %d %s\n", i + 1, tap_tests[i].name);
			failed++;
		}
	}
	printf("# %d passed, %d failed\n", tap_ntests - failed, failed);
	return failed ? 1 : 0;
}

#define TEST_HARNESS_MAIN int main(void) { return tap_main(); }

#endif /* _FABTRACE_TAP_H */
