// SPDX-License-Identifier: GPL-2.0
/* Unit tests: monitor's event handling: seq gaps, overruns, filters, count. */

#include "harness.h"
#include "nlbuild.h"

#include "ft.h"
#include "objects.h"
#include "out.h"

static char buf[4096] __attribute__((aligned(8)));

static struct nlmsghdr *event(uint32_t kind, uint64_t seq, const char *dev)
{
	struct nlmsghdr *nlh = nlb_msg(buf, FABTRACE_CMD_QP_EVENT, 0);

	nlb_u64(nlh, FABTRACE_A_EVENT_SEQ, seq, FABTRACE_A_EVENT_PAD);
	mnl_attr_put_u32(nlh, FABTRACE_A_EVENT_KIND, kind);
	nlb_u64(nlh, FABTRACE_A_EVENT_TIME, 1700000000000000000ull, FABTRACE_A_EVENT_PAD);
	nlb_u64(nlh, FABTRACE_A_EVENT_COUNT, 1, FABTRACE_A_EVENT_PAD);
	if (dev) {
		mnl_attr_put_strz(nlh, FABTRACE_A_EVENT_DEV_NAME, dev);
		mnl_attr_put_u32(nlh, FABTRACE_A_EVENT_QPN, 17);
	}
	return nlh;
}

struct rig {
	struct ft ft;
	struct monitor m;
	char *out, *err;
	size_t outlen, errlen;
	FILE *outfp, *errfp;
};

static void rig_open(struct rig *r)
{
	memset(r, 0, sizeof(*r));
	setenv("TZ", "UTC", 1);
	r->outfp = open_memstream(&r->out, &r->outlen);
	r->errfp = open_memstream(&r->err, &r->errlen);
	r->ft.json = true;
	r->ft.out = out_new(r->outfp, true, false, false);
	out_lines(r->ft.out);
	r->m.ft = &r->ft;
	stderr = r->errfp;
}

static void rig_close(struct rig *r)
{
	out_free(r->ft.out);
	fclose(r->outfp);
	fclose(r->errfp);
}

static int lines(const char *s)
{
	int n = 0;

	for (; s && *s; s++)
		n += *s == '\n';
	return n;
}

TEST(gaps_and_overruns_reported)
{
	struct rig r;

	rig_open(&r);
	monitor_msg(event(FABTRACE_EVENT_KIND_CE, 10, "rxe0"), &r.m);	/* first: no gap */
	monitor_msg(event(FABTRACE_EVENT_KIND_CE, 11, "rxe0"), &r.m);
	monitor_msg(event(FABTRACE_EVENT_KIND_CE, 15, "rxe0"), &r.m);	/* 12..14 missed */
	r.m.overrun = true;						/* ENOBUFS ... */
	monitor_msg(event(FABTRACE_EVENT_KIND_NAK, 16, "rxe0"), &r.m);	/* ... still queued: no gap yet */
	EXPECT_TRUE(r.m.overrun);
	monitor_msg(event(FABTRACE_EVENT_KIND_NAK, 20, "rxe0"), &r.m);	/* the gap says how many */
	monitor_msg(event(FABTRACE_EVENT_KIND_NAK, 3, "rxe0"), &r.m);	/* reloaded: no report */
	rig_close(&r);
	EXPECT_STREQ(r.err, "fabtrace: monitor fell behind, 3 events lost\n"
			    "fabtrace: monitor fell behind, 3 events lost\n");
	EXPECT_EQ(lines(r.out), 6);
	EXPECT_FALSE(r.m.overrun);
	free(r.out);
	free(r.err);
}

TEST(filters_and_count)
{
	struct json_object *v;
	struct rig r;
	char *line, *save = NULL;
	int n = 0;

	rig_open(&r);
	r.m.dev = "rxe1";
	r.m.kinds = 1u << FABTRACE_EVENT_KIND_QP_CREATE;
	r.m.count = 3;
	EXPECT_EQ(monitor_msg(event(FABTRACE_EVENT_KIND_QP_CREATE, 1, "rxe0"), &r.m), MNL_CB_OK);
	EXPECT_EQ(monitor_msg(event(FABTRACE_EVENT_KIND_CE, 2, "rxe1"), &r.m), MNL_CB_OK);
	EXPECT_EQ(monitor_msg(event(FABTRACE_EVENT_KIND_QP_CREATE, 3, "rxe1"), &r.m), MNL_CB_OK);
	/* dropped has no device and is always shown */
	EXPECT_EQ(monitor_msg(event(FABTRACE_EVENT_KIND_DROPPED, 4, NULL), &r.m), MNL_CB_OK);
	EXPECT_EQ(monitor_msg(event(FABTRACE_EVENT_KIND_QP_CREATE, 5, "rxe1"), &r.m), MNL_CB_STOP);
	rig_close(&r);
	EXPECT_STREQ(r.err, "");
	for (line = strtok_r(r.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		static const char *const kinds[] = { "qp-create", "dropped", "qp-create" };
		static const int seqs[] = { 3, 4, 5 };

		v = json_strict(line);
		ASSERT_TRUE(v && n < 3);
		EXPECT_STREQ(json_object_get_string(JGET(v, "kind")), kinds[n]);
		EXPECT_EQ(json_object_get_uint64(JGET(v, "seq")), seqs[n]);
		json_object_put(v);
		n++;
	}
	EXPECT_EQ(n, 3);
	free(r.out);
	free(r.err);
}

TEST_HARNESS_MAIN
