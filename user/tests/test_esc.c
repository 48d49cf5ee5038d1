// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: the escaping of the kernel's strings (a comm is whatever its
 * owner chose) in text and in JSON, byte by byte.
 */

#include <stdint.h>

#include "harness.h"

#include "out.h"

/* s printed by out_str() in text or JSON (a one-string array). */
static char *print_str(const char *s, bool json)
{
	char *text = NULL;
	size_t len;
	FILE *fp = open_memstream(&text, &len);
	struct out *o = out_new(fp, json, false, false);

	out_arr_begin(o, NULL);
	out_str(o, PRINT_ANY, NULL, "%s", s);
	out_arr_end(o);
	out_free(o);
	fclose(fp);
	return text;
}

TEST(text_every_byte)
{
	char s[2] = { 0, 0 }, want[8], got[OUT_ESC_SIZE(1)], *text;
	int b;

	for (b = 1; b < 256; b++) {
		s[0] = (char)b;
		if (b == '\\')
			snprintf(want, sizeof(want), "\\\\");
		else if (b >= 0x20 && b <= 0x7e)
			snprintf(want, sizeof(want), "%c", b);
		else
			snprintf(want, sizeof(want), "\\x%02x", b);
		EXPECT_STREQ(out_esc(got, sizeof(got), s), want);
		/* and out_str(), which every printer's text goes through */
		text = print_str(s, false);
		EXPECT_STREQ(text, want);
		free(text);
	}
	/* NUL ends a C string: nothing to escape */
	EXPECT_STREQ(out_esc(got, sizeof(got), ""), "");
}

TEST(text_sequences)
{
	char got[OUT_ESC_SIZE(32)];

	EXPECT_STREQ(out_esc(got, sizeof(got), "\xff"), "\\xff");
	EXPECT_STREQ(out_esc(got, sizeof(got), "\x1b[2J"), "\\x1b[2J");
	EXPECT_STREQ(out_esc(got, sizeof(got), "\xff\x1b[31m"), "\\xff\\x1b[31m");
	/* UTF-8 too: one rule, and no terminal ever mis-decodes it */
	EXPECT_STREQ(out_esc(got, sizeof(got), "caf\xc3\xa9"), "caf\\xc3\\xa9");
	EXPECT_STREQ(out_esc(got, sizeof(got), "a\\x41"), "a\\\\x41");
	EXPECT_STREQ(out_esc(got, sizeof(got), "tab\there\nDEL\x7f"),
		     "tab\\x09here\\x0aDEL\\x7f");
	EXPECT_STREQ(out_esc(got, sizeof(got), "kworker/0:1 [x] ~"), "kworker/0:1 [x] ~");
}

TEST(text_truncates_to_whole_escapes)
{
	char got[8];

	memset(got, '#', sizeof(got));
	EXPECT_STREQ(out_esc(got, 6, "\xff\xff"), "\\xff");
	EXPECT_STREQ(out_esc(got, 5, "\xff"), "\\xff");		/* exactly fits */
	EXPECT_STREQ(out_esc(got, 4, "\xff"), "");
	EXPECT_STREQ(out_esc(got, 4, "a\\"), "a\\\\");
	EXPECT_STREQ(out_esc(got, 3, "a\\"), "a");
	EXPECT_STREQ(out_esc(got, 1, "abc"), "");
	got[0] = '#';
	out_esc(got, 0, "abc");
	EXPECT_EQ(got[0], '#');				/* no room: untouched */
}

/* The JSON of s, as out_str() prints it: ["..."]\n */
static void expect_json(struct __test_metadata *_metadata, const char *file, int line,
			const char *s, const char *want)
{
	char *text = print_str(s, true);
	struct json_object *v = json_strict(text);
	size_t n = strlen(text);

	/* ["..."]\n around the string */
	if (!v || n < 5 || strncmp(text, "[\"", 2) || strcmp(text + n - 3, "\"]\n") ||
	    strlen(want) != n - 5 || strncmp(text + 2, want, n - 5))
		ft_fail(file, line, "JSON of \"%s\": %s, not [\"%s\"]", s, text, want);
	json_object_put(v);
	free(text);
}

#define EXPECT_JSON(s, want) expect_json(_metadata, __FILE__, __LINE__, s, want)

TEST(json_valid_utf8_passes)
{
	EXPECT_JSON("ib_write_bw", "ib_write_bw");
	EXPECT_JSON("caf\xc3\xa9", "caf\xc3\xa9");			/* é */
	EXPECT_JSON("\xc2\xa0", "\xc2\xa0");				/* NBSP */
	EXPECT_JSON("\xe2\x82\xac", "\xe2\x82\xac");			/* € */
	EXPECT_JSON("\xed\x9f\xbf", "\xed\x9f\xbf");			/* U+D7FF */
	EXPECT_JSON("\xef\xbf\xbd", "\xef\xbf\xbd");			/* U+FFFD */
	EXPECT_JSON("\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80");		/* U+1F600 */
	EXPECT_JSON("\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf");		/* U+10FFFF */
	/* json-c's spelling of what it escapes, unchanged */
	EXPECT_JSON("q\"b\\s/n\nt\tr\rb\bf\f", "q\\\"b\\\\s/n\\nt\\tr\\rb\\bf\\f");
}

TEST(json_controls_escaped)
{
	EXPECT_JSON("\x1b[2J", "\\u001b[2J");
	EXPECT_JSON("\x01\x1f", "\\u0001\\u001f");
	EXPECT_JSON("\x7f", "\\u007f");
	/* C1 controls, UTF-8 encoded: U+0080, U+009B (CSI), U+009F */
	EXPECT_JSON("\xc2\x80\xc2\x9b\xc2\x9f", "\\u0080\\u009b\\u009f");
}

#define FFFD "\xef\xbf\xbd"

TEST(json_invalid_utf8_replaced)
{
	EXPECT_JSON("\xff", FFFD);
	EXPECT_JSON("\xff\x1b[31m", FFFD "\\u001b[31m");
	EXPECT_JSON("a\x80" "b", "a" FFFD "b");			/* lone continuation */
	EXPECT_JSON("\xc0\xaf", FFFD FFFD);				/* overlong '/' */
	EXPECT_JSON("\xc1\xbf", FFFD FFFD);
	EXPECT_JSON("\xe0\x80\xaf", FFFD FFFD FFFD);			/* overlong */
	EXPECT_JSON("\xed\xa0\x80", FFFD FFFD FFFD);			/* surrogate */
	EXPECT_JSON("\xf0\x80\x80\xaf", FFFD FFFD FFFD FFFD);		/* overlong */
	EXPECT_JSON("\xf4\x90\x80\x80", FFFD FFFD FFFD FFFD);		/* > U+10FFFF */
	EXPECT_JSON("\xf5\x80", FFFD FFFD);
	/* a sequence cut short is one U+FFFD, what follows is itself */
	EXPECT_JSON("\xe2\x82x", FFFD "x");
	EXPECT_JSON("\xf0\x9f\x98" "a", FFFD "a");
	EXPECT_JSON("\xc3\xc3\xa9", FFFD "\xc3\xa9");
	/* ... and at the very end (comms are cut to 15 bytes mid-character) */
	EXPECT_JSON("ab\xc3", "ab" FFFD);
	EXPECT_JSON("ab\xe2\x82", "ab" FFFD);
	EXPECT_JSON("ab\xf0\x9f\x98", "ab" FFFD);
}

/* List elements reuse the previous element's string objects: same rules. */
TEST(json_list_reuse_keeps_escaping)
{
	static const char *const comms[] = { "ib_write_bw", "\xff\x1b[31m", "caf\xc3\xa9" };
	static const char *const want[] = { "ib_write_bw", FFFD "\x1b[31m", "caf\xc3\xa9" };
	struct json_object *v;
	char *text = NULL;
	size_t len, i;
	FILE *fp = open_memstream(&text, &len);
	struct out *o = out_new(fp, true, false, false);

	out_list_begin(o);
	for (i = 0; i < 3; i++) {
		out_obj_begin(o, NULL);
		out_str(o, PRINT_JSON, "comm", NULL, comms[i]);
		out_obj_end(o);
	}
	out_list_end(o);
	out_free(o);
	fclose(fp);
	v = json_strict(text);
	ASSERT_TRUE(v && json_object_array_length(v) == 3);
	for (i = 0; i < 3; i++)
		EXPECT_STREQ(json_object_get_string(JGET(json_object_array_get_idx(v, i), "comm")),
			     want[i]);
	EXPECT_TRUE(strstr(text, "\\u001b[31m") != NULL);
	json_object_put(v);
	free(text);
}

/* xorshift: the same strings on every run */
static uint32_t rnd(uint32_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

/*
 * Thousands of random byte strings, mostly bytes >= 0x80 and controls:
 * Python's strict UTF-8 decoder reads the JSON, and every string equals
 * Python's own bytes.decode("utf-8", "replace") of the original: the
 * documented contract, checked against an independent implementation.
 * No raw control byte reaches the output either.
 */
TEST(json_matches_python_decode_replace)
{
	char tmpl[] = "/tmp/ft-esc.XXXXXX", cmd[256], s[16];
	uint32_t x = 0x1234567;
	unsigned int i, j, n;
	char *text = NULL;
	size_t len, k;
	FILE *fp, *hex;
	struct out *o;
	int fd, rc;

	if (access("/usr/bin/python3", X_OK)) {
		printf("# no python3: skipped\n");
		return;
	}
	fd = mkstemp(tmpl);
	ASSERT_TRUE(fd >= 0);
	hex = fdopen(fd, "w");
	fp = open_memstream(&text, &len);
	o = out_new(fp, true, false, false);
	out_arr_begin(o, NULL);
	for (i = 0; i < 5000; i++) {
		n = rnd(&x) % sizeof(s);
		for (j = 0; j < n; j++) {
			/* a third ASCII (controls included), the rest 0x80-0xff */
			s[j] = rnd(&x) % 3 ? 0x80 + rnd(&x) % 0x80 : 1 + rnd(&x) % 0x7f;
			fprintf(hex, "%02x", (unsigned char)s[j]);
		}
		s[n] = '\0';
		fputc('\n', hex);
		out_str(o, PRINT_JSON, NULL, NULL, s);
	}
	out_arr_end(o);
	out_free(o);
	fclose(fp);
	fclose(hex);
	for (k = 0; k < len; k++) {
		unsigned char c = text[k];

		if ((c < 0x20 && c != '\n') || c == 0x7f)
			break;
		if (c == 0xc2 && k + 1 < len && (unsigned char)text[k + 1] < 0xa0)
			break;
	}
	EXPECT_EQ(k, len);
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import json, sys\n"
		 "got = json.loads(sys.stdin.buffer.read().decode(\"utf-8\"))\n"
		 "want = [bytes.fromhex(l.strip()).decode(\"utf-8\", \"replace\")"
		 " for l in open(sys.argv[1])]\n"
		 "sys.exit(got != want)' %s", tmpl);
	fp = popen(cmd, "w");
	ASSERT_TRUE(fp);
	fwrite(text, 1, len, fp);
	rc = pclose(fp);
	EXPECT_EQ(rc, 0);
	unlink(tmpl);
	free(text);
}

TEST_HARNESS_MAIN
