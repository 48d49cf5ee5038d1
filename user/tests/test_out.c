// SPDX-License-Identifier: GPL-2.0
/* Unit tests: the text/JSON print layer, streamed lists and tree reuse. */

#include "harness.h"

#include "out.h"

struct cap {
	char *buf;
	size_t len;
	FILE *fp;
};

static struct out *cap_open(struct cap *c, bool json, bool pretty, bool numeric)
{
	c->buf = NULL;
	c->fp = open_memstream(&c->buf, &c->len);
	return out_new(c->fp, json, pretty, numeric);
}

/* Close the stream; the captured text stays in c->buf. */
static const char *cap_close(struct cap *c, struct out *o)
{
	out_free(o);
	fclose(c->fp);
	return c->buf;
}

TEST(text_goes_through_formats)
{
	struct cap c;
	struct out *o = cap_open(&c, false, false, false);

	out_u64(o, PRINT_ANY, "qpn", "qpn %llu", 17);
	out_str(o, PRINT_ANY, "dev", " dev %s", "rxe0");
	out_str(o, PRINT_ANY, "peer", " peer %s", NULL);
	out_bool(o, PRINT_ANY, "hooked", " hooked %s", true);
	out_u64(o, PRINT_JSON, "hidden", " hidden %llu", 1);
	out_count(o, PRINT_ANY, "packets", " packets %s", 1234);
	out_bytes(o, PRINT_ANY, "bytes", " bytes %s", 1536);
	out_double(o, PRINT_ANY, "rate", " rate %.1f", 2.25);
	out_text(o, "\n");
	EXPECT_STREQ(cap_close(&c, o),
		     "qpn 17 dev rxe0 peer - hooked yes packets 1.23K bytes 1.50KiB rate 2.2\n");
	free(c.buf);
}

TEST(numeric_disables_units)
{
	struct cap c;
	struct out *o = cap_open(&c, false, false, true);

	out_count(o, PRINT_FP, NULL, "%s", 1234);
	out_bytes(o, PRINT_FP, NULL, " %s", 1536);
	EXPECT_STREQ(cap_close(&c, o), "1234 1536");
	free(c.buf);
}

TEST(json_document_types)
{
	struct json_object *v;
	struct cap c;
	struct out *o = cap_open(&c, true, false, false);

	out_obj_begin(o, NULL);
	out_text(o, "never in JSON");
	out_u64(o, PRINT_ANY, "big", "%llu", UINT64_MAX);
	out_count(o, PRINT_ANY, "count", "%s", 1234);	/* raw in JSON */
	out_str(o, PRINT_ANY, "comm", "%s", "kworker/0:1 \"x\"\\\n");
	out_str(o, PRINT_ANY, "absent", "%s", NULL);
	out_bool(o, PRINT_JSON, "hooked", NULL, false);
	out_u64(o, PRINT_FP, "text_only", "%llu", 3);
	out_obj_begin(o, "tx");
	out_u64(o, PRINT_ANY, "packets", "%llu", 5);
	out_obj_end(o);
	out_arr_begin(o, "flags");
	out_str(o, PRINT_ANY, NULL, "%s", "destroyed");
	out_str(o, PRINT_ANY, NULL, "%s", "kernel");
	out_arr_end(o);
	out_obj_end(o);
	cap_close(&c, o);

	/* "/" stays as it is; quotes, backslash and newline are escaped */
	EXPECT_TRUE(strstr(c.buf, "kworker/0:1") != NULL);
	EXPECT_TRUE(c.buf[strlen(c.buf) - 1] == '\n');
	v = json_strict(c.buf);
	ASSERT_TRUE(v);
	EXPECT_EQ(json_object_get_uint64(JGET(v, "big")), UINT64_MAX);
	EXPECT_EQ(json_object_get_uint64(JGET(v, "count")), 1234);
	EXPECT_STREQ(json_object_get_string(JGET(v, "comm")), "kworker/0:1 \"x\"\\\n");
	EXPECT_TRUE(JGET(v, "absent") == NULL);
	EXPECT_TRUE(JGET(v, "text_only") == NULL);
	EXPECT_TRUE(json_object_is_type(JGET(v, "hooked"), json_type_boolean));
	EXPECT_EQ(json_object_get_uint64(JGET(v, "tx", "packets")), 5);
	EXPECT_EQ(json_object_array_length(JGET(v, "flags")), 2);
	EXPECT_STREQ(json_object_get_string(json_object_array_get_idx(JGET(v, "flags"), 1)),
		     "kernel");
	json_object_put(v);
	free(c.buf);
}

/* An element whose optional parts come and go, as QPs' do. */
static void element(struct out *o, unsigned int i)
{
	out_obj_begin(o, NULL);
	out_u64(o, PRINT_ANY, "qpn", "%llu", i);
	if (i % 2)
		out_str(o, PRINT_ANY, "peer", "%s", "10.99.0.2");
	/* the same key changing type must not confuse reuse */
	if (i == 2)
		out_str(o, PRINT_ANY, "state", "%s", "rts");
	else
		out_u64(o, PRINT_ANY, "state", "%llu", i);
	out_obj_begin(o, "cong");
	out_u64(o, PRINT_ANY, "rx_ce", "%llu", 10 * i);
	if (i == 1)
		out_u64(o, PRINT_ANY, "last_ce", "%llu", 99);
	out_obj_end(o);
	if (i != 3) {
		out_obj_begin(o, "tx");
		out_u64(o, PRINT_ANY, "packets", "%llu", i);
		out_obj_end(o);
	}
	out_arr_begin(o, "flags");
	if (i == 1)
		out_str(o, PRINT_ANY, NULL, "%s", "destroyed");
	out_str(o, PRINT_ANY, NULL, "%s", "kernel");
	out_arr_end(o);
	out_obj_end(o);
}

TEST(json_list_streams_and_reuses)
{
	struct json_object *v, *e;
	struct cap c;
	struct out *o = cap_open(&c, true, false, false);
	unsigned int i;

	out_list_begin(o);
	for (i = 1; i <= 4; i++)
		element(o, i);
	out_list_end(o);
	cap_close(&c, o);

	/* keys keep the order they were printed in, even those new to the tree */
	EXPECT_TRUE(strstr(c.buf, "{\"qpn\":3,\"peer\":\"10.99.0.2\",\"state\":3,\"cong\":"
			   "{\"rx_ce\":30},\"flags\":[\"kernel\"]}") != NULL);
	EXPECT_TRUE(strstr(c.buf, "{\"qpn\":4,\"state\":4,\"cong\":{\"rx_ce\":40},"
			   "\"tx\":{\"packets\":4},\"flags\":[\"kernel\"]}") != NULL);
	v = json_strict(c.buf);
	ASSERT_TRUE(v);
	ASSERT_TRUE(json_object_is_type(v, json_type_array));
	EXPECT_EQ(json_object_array_length(v), 4);
	for (i = 1; i <= 4; i++) {
		e = json_object_array_get_idx(v, i - 1);
		EXPECT_EQ(json_object_get_uint64(JGET(e, "qpn")), i);
		/* nothing of the previous element may leak into this one */
		EXPECT_EQ(JGET(e, "peer") != NULL, i % 2);
		EXPECT_EQ(JGET(e, "cong", "last_ce") != NULL, i == 1);
		EXPECT_EQ(json_object_get_uint64(JGET(e, "cong", "rx_ce")), 10 * i);
		EXPECT_EQ(JGET(e, "tx") != NULL, i != 3);
		EXPECT_EQ(json_object_array_length(JGET(e, "flags")), i == 1 ? 2 : 1);
		EXPECT_EQ(json_object_is_type(JGET(e, "state"), json_type_string), i == 2);
	}
	json_object_put(v);
	free(c.buf);
}

TEST(json_list_empty_and_cut_short)
{
	struct json_object *v;
	struct cap c;
	struct out *o;

	o = cap_open(&c, true, false, false);
	out_list_begin(o);
	out_list_end(o);
	EXPECT_STREQ(cap_close(&c, o), "[]\n");
	free(c.buf);

	/* an error before any element: stdout stays empty */
	o = cap_open(&c, true, false, false);
	out_list_begin(o);
	EXPECT_STREQ(cap_close(&c, o), "");
	free(c.buf);

	/* an error after some elements: the list is still closed */
	o = cap_open(&c, true, false, false);
	out_list_begin(o);
	element(o, 1);
	element(o, 2);
	cap_close(&c, o);
	v = json_strict(c.buf);
	EXPECT_TRUE(v != NULL);
	json_object_put(v);
	free(c.buf);
}

TEST(json_pretty_list)
{
	struct json_object *v;
	struct cap c;
	struct out *o = cap_open(&c, true, true, false);

	out_list_begin(o);
	element(o, 1);
	element(o, 2);
	out_list_end(o);
	cap_close(&c, o);
	EXPECT_TRUE(strstr(c.buf, "\n    \"qpn\": 1") != NULL);
	v = json_strict(c.buf);
	EXPECT_TRUE(v && json_object_array_length(v) == 2);
	json_object_put(v);
	free(c.buf);
}

TEST(json_lines_one_object_each)
{
	struct json_object *v;
	struct cap c;
	struct out *o = cap_open(&c, true, true, false);	/* -p ignored */
	char *line, *save = NULL;
	int n = 0;

	out_lines(o);
	element(o, 1);
	out_obj_begin(o, NULL);
	out_double(o, PRINT_JSON, "rate", NULL, 1.0 / 3);
	out_obj_end(o);
	cap_close(&c, o);
	for (line = strtok_r(c.buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		v = json_strict(line);
		EXPECT_TRUE(v != NULL);
		if (n == 1)
			EXPECT_STREQ(json_object_to_json_string_ext(JGET(v, "rate"), 0), "0.33");
		json_object_put(v);
		n++;
	}
	EXPECT_EQ(n, 2);
	free(c.buf);
}

TEST_HARNESS_MAIN
