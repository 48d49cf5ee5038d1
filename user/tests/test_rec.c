// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: parsing messages shaped like kmod/netlink.c's, and every
 * output format of QPs, devices, statistics and events (JSON checked with
 * a real parser).
 */

#include <errno.h>

#include "harness.h"
#include "nlbuild.h"

#include "out.h"
#include "print.h"
#include "rec.h"

static char buf[16384] __attribute__((aligned(8)));

static const struct nlb_qp qp17 = {
	.dev_index = 1, .dev = "rxe0", .qpn = 17, .type = FABTRACE_QP_TYPE_RC,
	.state = FABTRACE_QP_STATE_RTS, .pid = 4242, .comm = "ib_write_bw",
	.flags = FABTRACE_QP_FLAGS_CONGESTED, .rqpn = 18, .peer = nlb_peer_v4,
	.ctime = 1700000000000000000ull, .base = 1000, .last = 1700000001000000000ull,
};

TEST(qp_parse_every_field)
{
	struct ft_qp_rec r;
	unsigned int i;

	ASSERT_TRUE(ft_parse_qp(nlb_qp(buf, &qp17), &r) == 0);
	EXPECT_EQ(r.dev_index, 1);
	EXPECT_STREQ(r.dev, "rxe0");
	EXPECT_EQ(r.qpn, 17);
	EXPECT_EQ(r.type, FABTRACE_QP_TYPE_RC);
	EXPECT_EQ(r.state, FABTRACE_QP_STATE_RTS);
	EXPECT_EQ(r.port, 1);
	EXPECT_EQ(r.tclass, 106);
	EXPECT_EQ(r.sl, 3);
	EXPECT_EQ(r.pid, 4242);
	EXPECT_STREQ(r.comm, "ib_write_bw");
	EXPECT_EQ(r.create_time, 1700000000000000000ull);
	EXPECT_EQ(r.remote_qpn, 18);
	EXPECT_TRUE(!memcmp(r.peer, nlb_peer_v4, 16));
	EXPECT_EQ(r.have, FT_QP_HAVE_RQPN | FT_QP_HAVE_PEER | FT_QP_HAVE_PORT |
			  FT_QP_HAVE_TX | FT_QP_HAVE_RX);
	for (i = FABTRACE_A_TRAFFIC_PACKETS; i <= FABTRACE_A_TRAFFIC_OTHER; i++) {
		EXPECT_EQ(r.tx.v[i], 1000 + i - 1);
		EXPECT_EQ(r.rx.v[i], 2000 + i - 1);
	}
	EXPECT_EQ(r.cong.v[FABTRACE_A_CONG_RX_ECT], 1001);
	EXPECT_EQ(r.cong.v[FABTRACE_A_CONG_RX_CE], 1002);
	EXPECT_EQ(r.cong.tx_nak.v[FABTRACE_A_NAK_PSN_SEQ], 1100);
	EXPECT_EQ(r.cong.rx_nak.v[FABTRACE_A_NAK_OTHER], 1205);
	EXPECT_EQ(r.cong.v[FABTRACE_A_CONG_RETRANSMITS], 1000 + FABTRACE_A_CONG_RETRANSMITS);
	EXPECT_EQ(r.cong.v[FABTRACE_A_CONG_ERRORS], 1000 + FABTRACE_A_CONG_ERRORS);
	EXPECT_EQ(r.cong.have_last, 1u | 4u);	/* last_ce, last_nak */
	EXPECT_EQ(r.cong.v[FABTRACE_A_CONG_LAST_NAK], 1700000001000000001ull);
}

TEST(qp_parse_skips_bad_and_unknown)
{
	struct nlmsghdr *nlh = nlb_msg(buf, FABTRACE_CMD_QP_GET, 0);
	struct ft_qp_rec r;
	uint16_t short_qpn = 5;

	mnl_attr_put(nlh, FABTRACE_A_QP_QPN, sizeof(short_qpn), &short_qpn);
	mnl_attr_put_u32(nlh, 250, 1);
	mnl_attr_put(nlh, FABTRACE_A_QP_PEER_ADDR, 4, "abcd");	/* not a GID */
	mnl_attr_put_strz(nlh, FABTRACE_A_QP_COMM,
			  "a-very-long-command-name-that-the-kernel-would-never-send");
	ASSERT_TRUE(ft_parse_qp(nlh, &r) == 0);
	EXPECT_EQ(r.qpn, 0);
	EXPECT_EQ(r.have, 0);
	EXPECT_EQ(strlen(r.comm), FT_COMM_LEN - 1);

	/* a message too short for the generic netlink header */
	nlh = mnl_nlmsg_put_header(buf);
	EXPECT_EQ(ft_parse_qp(nlh, &r), -1);
}

/* Print @r with a fresh output of the given kind; returns the text. */
static char *print_qp(const struct ft_qp_rec *r, bool json, bool numeric, int what)
{
	char *text = NULL;
	size_t len;
	FILE *fp = open_memstream(&text, &len);
	struct out *o = out_new(fp, json, false, numeric);

	if (json)
		out_list_begin(o);
	if (what == 0)
		print_qp_full(o, r);
	else
		print_qp_row(o, r);
	if (json)
		out_list_end(o);
	out_free(o);
	fclose(fp);
	return text;
}

TEST(qp_json_has_every_counter)
{
	static const char *const top[] = {
		"dev", "dev_index", "qpn", "type", "state", "port", "remote_qpn",
		"peer", "tclass", "sl", "pid", "comm", "create_time", "flags",
		"tx", "rx", "cong",
	};
	struct json_object *v, *q, *f;
	struct ft_qp_rec r;
	unsigned int i;
	char *text;

	ft_parse_qp(nlb_qp(buf, &qp17), &r);
	text = print_qp(&r, true, false, 0);
	v = json_strict(text);
	ASSERT_TRUE(v && json_object_array_length(v) == 1);
	q = json_object_array_get_idx(v, 0);
	for (i = 0; i < sizeof(top) / sizeof(top[0]); i++)
		if (!JGET(q, top[i]))
			ft_fail(__FILE__, __LINE__, "no \"%s\" in %s", top[i], text);
	EXPECT_TRUE(JGET(q, "destroy_time") == NULL);
	EXPECT_STREQ(json_object_get_string(JGET(q, "type")), "rc");
	EXPECT_STREQ(json_object_get_string(JGET(q, "state")), "rts");
	EXPECT_STREQ(json_object_get_string(JGET(q, "peer")), "10.99.0.2");
	EXPECT_EQ(json_object_get_uint64(JGET(q, "remote_qpn")), 18);
	EXPECT_EQ(json_object_get_uint64(JGET(q, "create_time")), 1700000000000000000ull);
	f = JGET(q, "flags");
	EXPECT_TRUE(f && json_object_array_length(f) == 1);
	EXPECT_STREQ(json_object_get_string(json_object_array_get_idx(f, 0)), "congested");
	for (i = FABTRACE_A_TRAFFIC_PACKETS; i <= FABTRACE_A_TRAFFIC_OTHER; i++) {
		EXPECT_EQ(json_object_get_uint64(JGET(q, "tx", ft_traffic_keys[i])), 1000 + i - 1);
		EXPECT_EQ(json_object_get_uint64(JGET(q, "rx", ft_traffic_keys[i])), 2000 + i - 1);
	}
	for (i = FABTRACE_A_NAK_PSN_SEQ; i <= FABTRACE_A_NAK_OTHER; i++) {
		EXPECT_TRUE(JGET(q, "cong", "tx_nak", ft_nak_keys[i]) != NULL);
		EXPECT_TRUE(JGET(q, "cong", "rx_nak", ft_nak_keys[i]) != NULL);
	}
	for (i = FABTRACE_A_CONG_RX_ECT; i <= FABTRACE_A_CONG_ERRORS; i++)
		if (ft_cong_keys[i] && !JGET(q, "cong", ft_cong_keys[i]))
			ft_fail(__FILE__, __LINE__, "no cong.%s", ft_cong_keys[i]);
	/* last_* only when set */
	EXPECT_EQ(json_object_get_uint64(JGET(q, "cong", "last_ce")), 1700000001000000000ull);
	EXPECT_TRUE(JGET(q, "cong", "last_nak") != NULL);
	EXPECT_TRUE(JGET(q, "cong", "last_cnp") == NULL);
	EXPECT_TRUE(JGET(q, "cong", "last_timeout") == NULL);
	json_object_put(v);
	free(text);
}

TEST(qp_text_table_and_block)
{
	struct nlb_qp d = qp17;
	struct ft_qp_rec r;
	char *text;

	setenv("TZ", "UTC", 1);
	d.flags = FABTRACE_QP_FLAGS_DESTROYED | FABTRACE_QP_FLAGS_KERNEL;
	d.dtime = 1700000002500000000ull;
	d.peer = nlb_peer_v6;
	d.comm = "ib_core";
	d.base = 1500000;
	ft_parse_qp(nlb_qp(buf, &d), &r);

	text = print_qp(&r, false, false, 1);
	/* destroyed QPs say so; kernel QPs have no pid; human units */
	EXPECT_STREQ(text, "rxe0           17 rc    destroyed       - [ib_core]       "
			   "[fe80::1]:18             1.50M   1.43MiB    1.50M   1.43MiB"
			   "  1.50M  3.00M  3.00M  1.50M       - tap\n");
	free(text);
	text = print_qp(&r, false, true, 1);
	EXPECT_TRUE(strstr(text, " 1500000   1500001 ") != NULL);
	free(text);

	text = print_qp(&r, false, false, 0);
	EXPECT_STREQ(text,
		"rxe0 qpn 17 type rc state rts port 1 source tap\n"
		"    rqpn 18 peer fe80::1 tclass 106 sl 3\n"
		"    comm [ib_core] created 2023-11-14T22:13:20.000+00:00"
		" destroyed 2023-11-14T22:13:22.500+00:00 flags destroyed,kernel\n"
		"    tx: packets 1500000 bytes 1500001 send 1500002 write 1500003"
		" read_req 1500004 read_resp 1500005 atomic 1500006 ack 1500007"
		" nak 1500008 cnp 1500009 other 1500010\n"
		"    rx: packets 1501000 bytes 1501001 send 1501002 write 1501003"
		" read_req 1501004 read_resp 1501005 atomic 1501006 ack 1501007"
		" nak 1501008 cnp 1501009 other 1501010\n"
		"    cong: rx_ect 1500001 rx_ce 1500002 retransmits 1500005"
		" timeouts 1500006 rnr_timeouts 1500007 rx_dup 1500008 rx_oos 1500009"
		" retry_exhausted 1500010 errors 1500011\n"
		"    tx_nak: psn_seq 1500100 rnr 1500101 rem_access 1500102"
		" inv_req 1500103 rem_op 1500104 other 1500105\n"
		"    rx_nak: psn_seq 1500200 rnr 1500201 rem_access 1500202"
		" inv_req 1500203 rem_op 1500204 other 1500205\n"
		"    last_ce 2023-11-14T22:13:21.000+00:00\n"
		"    last_nak 2023-11-14T22:13:21.000+00:00\n"
		"    rtt: -\n"
		"\n");
	free(text);

	text = print_qp(&r, true, false, 0);
	{
		struct json_object *v = json_strict(text), *q;

		ASSERT_TRUE(v);
		q = json_object_array_get_idx(v, 0);
		EXPECT_STREQ(json_object_get_string(JGET(q, "peer")), "fe80::1");
		EXPECT_EQ(json_object_get_uint64(JGET(q, "destroy_time")), 1700000002500000000ull);
		EXPECT_EQ(json_object_get_uint64(JGET(q, "pid")), 4242);
		EXPECT_EQ(json_object_array_length(JGET(q, "flags")), 2);
		json_object_put(v);
	}
	free(text);
}

static struct nlmsghdr *dev_msg(void)
{
	struct nlmsghdr *nlh = nlb_msg(buf, FABTRACE_CMD_DEV_GET, 0);
	struct nlattr *port;

	mnl_attr_put_u32(nlh, FABTRACE_A_DEV_INDEX, 0);
	mnl_attr_put_strz(nlh, FABTRACE_A_DEV_NAME, "rxe0");
	mnl_attr_put_strz(nlh, FABTRACE_A_DEV_DRIVER, "rdma_rxe");
	/* nla_put_be64: the GUID's bytes in network order */
	nlb_u64(nlh, FABTRACE_A_DEV_NODE_GUID, htobe64(0x505400fffe000001ull),
		FABTRACE_A_DEV_PAD);
	mnl_attr_put_u32(nlh, FABTRACE_A_DEV_QPS, 3);
	mnl_attr_put_u32(nlh, FABTRACE_A_DEV_RETAINED, 1);
	nlb_traffic(nlh, FABTRACE_A_DEV_TX, 1200);
	nlb_traffic(nlh, FABTRACE_A_DEV_RX, 9830400);
	nlb_u64(nlh, FABTRACE_A_DEV_UNKNOWN_TX, 4, FABTRACE_A_DEV_PAD);
	nlb_u64(nlh, FABTRACE_A_DEV_UNKNOWN_RX, 5, FABTRACE_A_DEV_PAD);
	nlb_u64(nlh, FABTRACE_A_DEV_MALFORMED, 6, FABTRACE_A_DEV_PAD);
	mnl_attr_put_u8(nlh, FABTRACE_A_DEV_HOOKED, 1);
	port = mnl_attr_nest_start(nlh, FABTRACE_A_DEV_PORT);
	mnl_attr_put_u32(nlh, FABTRACE_A_PORT_INDEX, 1);
	mnl_attr_put_u32(nlh, FABTRACE_A_PORT_LINK_LAYER, FABTRACE_LINK_LAYER_ETHERNET);
	mnl_attr_put_u32(nlh, FABTRACE_A_PORT_STATE, FABTRACE_PORT_STATE_ACTIVE);
	mnl_attr_put_u32(nlh, FABTRACE_A_PORT_PHYS_STATE, 5);
	mnl_attr_put_u32(nlh, FABTRACE_A_PORT_ACTIVE_MTU, 1024);
	mnl_attr_put_strz(nlh, FABTRACE_A_PORT_NETDEV_NAME, "eth0");
	mnl_attr_put_u32(nlh, FABTRACE_A_PORT_NETDEV_IFINDEX, 2);
	mnl_attr_nest_end(nlh, port);
	return nlh;
}

static char *print_dev_as(const struct ft_dev_rec *r, bool json, int stats)
{
	char *text = NULL;
	size_t len;
	FILE *fp = open_memstream(&text, &len);
	struct out *o = out_new(fp, json, false, false);

	if (json)
		out_list_begin(o);
	print_dev(o, r, stats);
	if (json)
		out_list_end(o);
	out_free(o);
	fclose(fp);
	return text;
}

TEST(qp_cgroup_parsed_and_printed)
{
	struct nlb_qp c = qp17;
	struct json_object *v, *q;
	struct ft_qp_rec r;
	char *text;

	c.cgroup_id = 0x100000004ull;	/* 64 bits: more than an inode of 32 */
	c.cgroup = "/slurm.slice/job_42.scope";
	ASSERT_TRUE(ft_parse_qp(nlb_qp(buf, &c), &r) == 0);
	EXPECT_EQ(r.cgroup_id, 0x100000004ull);
	EXPECT_STREQ(r.cgroup, "/slurm.slice/job_42.scope");
	EXPECT_EQ(r.have & (FT_QP_HAVE_CGROUP_ID | FT_QP_HAVE_CGROUP),
		  FT_QP_HAVE_CGROUP_ID | FT_QP_HAVE_CGROUP);

	text = print_qp(&r, true, false, 0);
	v = json_strict(text);
	ASSERT_TRUE(v);
	q = json_object_array_get_idx(v, 0);
	EXPECT_EQ(json_object_get_uint64(JGET(q, "cgroup_id")), 0x100000004ull);
	EXPECT_STREQ(json_object_get_string(JGET(q, "cgroup")), "/slurm.slice/job_42.scope");
	json_object_put(v);
	free(text);
	/* -s: the path; the table row stays as it was */
	text = print_qp(&r, false, false, 0);
	EXPECT_TRUE(strstr(text, " comm ib_write_bw cgroup /slurm.slice/job_42.scope created ") != NULL);
	EXPECT_TRUE(strstr(text, "cgroup_id") == NULL);
	free(text);
	text = print_qp(&r, false, false, 1);
	EXPECT_TRUE(strstr(text, "slurm") == NULL);
	free(text);

	/* the cgroup is gone: the id alone, in text too */
	c.cgroup = NULL;
	ASSERT_TRUE(ft_parse_qp(nlb_qp(buf, &c), &r) == 0);
	EXPECT_EQ(r.have & (FT_QP_HAVE_CGROUP_ID | FT_QP_HAVE_CGROUP), FT_QP_HAVE_CGROUP_ID);
	EXPECT_TRUE(r.cgroup == NULL);
	text = print_qp(&r, false, false, 0);
	EXPECT_TRUE(strstr(text, " cgroup_id 4294967300 created ") != NULL);
	free(text);
	text = print_qp(&r, true, false, 0);
	v = json_strict(text);
	ASSERT_TRUE(v);
	q = json_object_array_get_idx(v, 0);
	EXPECT_TRUE(JGET(q, "cgroup_id") != NULL);
	EXPECT_TRUE(JGET(q, "cgroup") == NULL);
	json_object_put(v);
	free(text);

	/* a kernel QP: neither */
	ASSERT_TRUE(ft_parse_qp(nlb_qp(buf, &qp17), &r) == 0);
	text = print_qp(&r, true, false, 0);
	EXPECT_TRUE(strstr(text, "cgroup") == NULL);
	free(text);
}

TEST(cgroup_paths_interned)
{
	char a[] = "/slurm/job_1", b[] = "/slurm/job_1";
	const char *p = ft_intern(a), *q;
	char name[32];
	int i;

	EXPECT_TRUE(p != a);
	EXPECT_TRUE(ft_intern(b) == p);		/* one copy per path */
	a[1] = 'x';
	EXPECT_STREQ(p, "/slurm/job_1");	/* a copy, not the caller's */
	for (i = 0; i < 1000; i++) {		/* the table grows */
		snprintf(name, sizeof(name), "/job_%d", i);
		q = ft_intern(name);
		EXPECT_STREQ(q, name);
	}
	EXPECT_TRUE(ft_intern("/slurm/job_1") == p);
	EXPECT_TRUE(ft_intern("/job_999") == ft_intern("/job_999"));
}

TEST(qp_in_cgroup_by_component)
{
	struct ft_qp_rec r;

	memset(&r, 0, sizeof(r));
	EXPECT_FALSE(ft_qp_in_cgroup(&r, "/"));	/* no path: in none */
	r.have = FT_QP_HAVE_CGROUP;
	r.cgroup = "/a/b/c";
	EXPECT_TRUE(ft_qp_in_cgroup(&r, "/"));
	EXPECT_TRUE(ft_qp_in_cgroup(&r, "/a"));
	EXPECT_TRUE(ft_qp_in_cgroup(&r, "/a/b"));
	EXPECT_TRUE(ft_qp_in_cgroup(&r, "/a/b/c"));
	EXPECT_FALSE(ft_qp_in_cgroup(&r, "/a/b/c/d"));
	EXPECT_FALSE(ft_qp_in_cgroup(&r, "/a/b/"));	/* callers normalise */
	EXPECT_FALSE(ft_qp_in_cgroup(&r, "/a/bc"));
	r.cgroup = "/a/bc";
	EXPECT_FALSE(ft_qp_in_cgroup(&r, "/a/b"));
	r.cgroup = "/";
	EXPECT_TRUE(ft_qp_in_cgroup(&r, "/"));
	EXPECT_FALSE(ft_qp_in_cgroup(&r, "/a"));
}

TEST(dev_formats)
{
	struct json_object *v, *d, *p;
	struct ft_dev_rec r;
	char *text;

	ASSERT_TRUE(ft_parse_dev(dev_msg(), &r) == 0);
	EXPECT_EQ(r.node_guid, 0x505400fffe000001ull);
	EXPECT_EQ(r.nports, 1);
	EXPECT_TRUE(r.hooked);

	text = print_dev_as(&r, false, 0);
	EXPECT_STREQ(text,
		"0: rxe0  driver rdma_rxe  node_guid 5054:00ff:fe00:0001  qps 3 retained 1"
		"  sources tap\n"
		"    port 1 state ACTIVE phys LINK_UP mtu 1024 link_layer ethernet"
		" netdev eth0 (ifindex 2)\n"
		"    tx packets 1.20K bytes 1.17KiB  rx packets 9.83M bytes 9.38MiB\n");
	free(text);

	text = print_dev_as(&r, false, 1);
	EXPECT_TRUE(strstr(text, "    tx: packets 1200 bytes 1201 send 1202") != NULL);
	EXPECT_TRUE(strstr(text, "    unknown_tx 4 unknown_rx 5 malformed 6 hooked yes\n") != NULL);
	free(text);

	text = print_dev_as(&r, true, 0);
	v = json_strict(text);
	ASSERT_TRUE(v && json_object_array_length(v) == 1);
	d = json_object_array_get_idx(v, 0);
	EXPECT_EQ(json_object_get_uint64(JGET(d, "index")), 0);
	EXPECT_STREQ(json_object_get_string(JGET(d, "name")), "rxe0");
	EXPECT_STREQ(json_object_get_string(JGET(d, "driver")), "rdma_rxe");
	EXPECT_STREQ(json_object_get_string(JGET(d, "node_guid")), "5054:00ff:fe00:0001");
	EXPECT_EQ(json_object_get_uint64(JGET(d, "qps")), 3);
	EXPECT_EQ(json_object_get_uint64(JGET(d, "retained")), 1);
	EXPECT_TRUE(json_object_get_boolean(JGET(d, "hooked")));
	EXPECT_EQ(json_object_get_uint64(JGET(d, "tx", "cnp")), 1209);
	EXPECT_EQ(json_object_get_uint64(JGET(d, "rx", "other")), 9830410);
	EXPECT_EQ(json_object_get_uint64(JGET(d, "unknown_tx")), 4);
	EXPECT_EQ(json_object_get_uint64(JGET(d, "unknown_rx")), 5);
	EXPECT_EQ(json_object_get_uint64(JGET(d, "malformed")), 6);
	p = json_object_array_get_idx(JGET(d, "ports"), 0);
	EXPECT_EQ(json_object_get_uint64(JGET(p, "port")), 1);
	EXPECT_STREQ(json_object_get_string(JGET(p, "state")), "ACTIVE");
	EXPECT_STREQ(json_object_get_string(JGET(p, "phys_state")), "LINK_UP");
	EXPECT_EQ(json_object_get_uint64(JGET(p, "mtu")), 1024);
	EXPECT_STREQ(json_object_get_string(JGET(p, "link_layer")), "ethernet");
	EXPECT_STREQ(json_object_get_string(JGET(p, "netdev")), "eth0");
	EXPECT_EQ(json_object_get_uint64(JGET(p, "ifindex")), 2);
	json_object_put(v);
	free(text);

	r.hooked = false;
	text = print_dev_as(&r, false, 0);
	EXPECT_TRUE(strstr(text, "retained 1  (not hooked)\n") != NULL);
	free(text);
}

/* --- a hardware NIC's QPs and devices (hw nests) --------------------------- */

static void hw_counter(struct nlmsghdr *nlh, uint16_t type, const char *name, uint64_t v)
{
	struct nlattr *c = mnl_attr_nest_start(nlh, type);

	mnl_attr_put_strz(nlh, FABTRACE_A_HW_COUNTER_NAME, name);
	nlb_u64(nlh, FABTRACE_A_HW_COUNTER_VALUE, v, FABTRACE_A_HW_COUNTER_PAD);
	mnl_attr_nest_end(nlh, c);
}

/* As kmod/nl-hw.c sends a QP in a shared set: no tx, rx; cong has what the set counts. */
static struct nlmsghdr *hw_qp_msg(void)
{
	struct nlmsghdr *nlh = nlb_msg(buf, FABTRACE_CMD_QP_GET, NLM_F_MULTI);
	struct nlattr *cong, *nak, *hw;

	mnl_attr_put_u32(nlh, FABTRACE_A_QP_DEV_INDEX, 0);
	mnl_attr_put_strz(nlh, FABTRACE_A_QP_DEV_NAME, "mlx5_0");
	mnl_attr_put_u32(nlh, FABTRACE_A_QP_QPN, 17);
	mnl_attr_put_u32(nlh, FABTRACE_A_QP_TYPE, FABTRACE_QP_TYPE_RC);
	mnl_attr_put_u32(nlh, FABTRACE_A_QP_STATE, FABTRACE_QP_STATE_RTS);
	mnl_attr_put_u32(nlh, FABTRACE_A_QP_PID, 4242);
	mnl_attr_put_strz(nlh, FABTRACE_A_QP_COMM, "ib_write_bw");
	cong = mnl_attr_nest_start(nlh, FABTRACE_A_QP_CONG);
	nlb_u64(nlh, FABTRACE_A_CONG_RETRANSMITS, 5, FABTRACE_A_CONG_PAD);
	nlb_u64(nlh, FABTRACE_A_CONG_RX_DUP, 0, FABTRACE_A_CONG_PAD);
	nlb_u64(nlh, FABTRACE_A_CONG_RX_OOS, 3, FABTRACE_A_CONG_PAD);
	nak = mnl_attr_nest_start(nlh, FABTRACE_A_CONG_RX_NAK);
	nlb_u64(nlh, FABTRACE_A_NAK_PSN_SEQ, 1, FABTRACE_A_NAK_PAD);
	mnl_attr_nest_end(nlh, nak);
	mnl_attr_nest_end(nlh, cong);
	hw = mnl_attr_nest_start(nlh, FABTRACE_A_QP_HW);
	mnl_attr_put_u32(nlh, FABTRACE_A_QP_HW_SOURCE, FABTRACE_SOURCE_SET_SHARED);
	mnl_attr_put_u32(nlh, FABTRACE_A_QP_HW_SET_ID, 4);
	mnl_attr_put_u32(nlh, FABTRACE_A_QP_HW_SET_QPS, 3);
	hw_counter(nlh, FABTRACE_A_QP_HW_COUNTER, "rx_write_requests", 200);
	hw_counter(nlh, FABTRACE_A_QP_HW_COUNTER, "duplicate_request", 0);
	/* a driver's name is the kernel's string: escaped like any other */
	hw_counter(nlh, FABTRACE_A_QP_HW_COUNTER, "bad\x1b[2J\"name", 7);
	mnl_attr_put_u32(nlh, FABTRACE_A_QP_HW_MAX + 2, 1);
	mnl_attr_nest_end(nlh, hw);
	return nlh;
}

TEST(qp_hw_source_and_counters)
{
	struct json_object *v, *q, *c;
	struct ft_qp_rec r;
	char *text;

	ASSERT_TRUE(ft_parse_qp(hw_qp_msg(), &r) == 0);
	EXPECT_TRUE(r.hw.present);
	EXPECT_EQ(ft_qp_source(&r), FABTRACE_SOURCE_SET_SHARED);
	EXPECT_EQ(r.hw.set_id, 4);
	EXPECT_EQ(r.hw.ncounters, 3);
	EXPECT_STREQ(r.hw.c[0].name, "rx_write_requests");
	EXPECT_EQ(r.hw.c[0].value, 200);
	EXPECT_EQ(r.have & (FT_QP_HAVE_TX | FT_QP_HAVE_RX), 0);

	/* what the NIC does not count is "-", what it counted is shown, 0 too */
	text = print_qp(&r, false, true, 1);
	EXPECT_TRUE(strstr(text, " -         -        -         -      -      -      1      5"
			   "       - set-shared(3)\n") != NULL);
	free(text);
	text = print_qp(&r, false, true, 0);
	EXPECT_TRUE(strstr(text, " source set-shared(3)\n") != NULL);
	EXPECT_TRUE(strstr(text, "\n    tx: -\n    rx: -\n") != NULL);
	EXPECT_TRUE(strstr(text, "    cong: rx_ect - rx_ce - retransmits 5 timeouts - rnr_timeouts -"
			   " rx_dup 0 rx_oos 3 retry_exhausted - errors -\n") != NULL);
	EXPECT_TRUE(strstr(text, "    rx_nak: psn_seq 1 rnr - rem_access -") != NULL);
	EXPECT_TRUE(strstr(text, "    hw: source set-shared set_id 4 set_qps 3\n"
			   "    counters: rx_write_requests 200 duplicate_request 0"
			   " bad\\x1b[2J\"name 7\n") != NULL);
	free(text);

	text = print_qp(&r, true, false, 0);
	v = json_strict(text);
	ASSERT_TRUE(v);
	q = json_object_array_get_idx(v, 0);
	EXPECT_STREQ(json_object_get_string(JGET(q, "source")), "set-shared");
	EXPECT_TRUE(JGET(q, "tx") == NULL && JGET(q, "rx") == NULL);
	EXPECT_TRUE(JGET(q, "cong", "rx_ce") == NULL && JGET(q, "cong", "tx_nak") == NULL);
	EXPECT_EQ(json_object_get_uint64(JGET(q, "cong", "rx_dup")), 0);
	EXPECT_EQ(json_object_get_uint64(JGET(q, "cong", "rx_nak", "psn_seq")), 1);
	EXPECT_TRUE(JGET(q, "cong", "rx_nak", "rnr") == NULL);
	EXPECT_EQ(json_object_get_uint64(JGET(q, "hw", "set_qps")), 3);
	c = JGET(q, "hw", "counters");
	ASSERT_TRUE(c && json_object_array_length(c) == 3);
	EXPECT_STREQ(json_object_get_string(JGET(json_object_array_get_idx(c, 2), "name")),
		     "bad\x1b[2J\"name");
	EXPECT_EQ(json_object_get_uint64(JGET(json_object_array_get_idx(c, 0), "value")), 200);
	EXPECT_TRUE(strstr(text, "\\u001b") != NULL);
	json_object_put(v);
	free(text);
}

/* A QP fabtrace times: its round trips in the row, the block and JSON. */
TEST(qp_rtt)
{
	struct nlb_qp d = qp17;
	struct json_object *v, *q, *b;
	struct ft_qp_rec r;
	char *text;

	d.rtt = 412000;
	ft_parse_qp(nlb_qp(buf, &d), &r);
	EXPECT_TRUE(r.rtt.present);
	EXPECT_EQ(r.rtt.samples, 10);
	EXPECT_EQ(r.rtt.nbuckets, 7);

	text = print_qp(&r, false, false, 1);
	EXPECT_TRUE(strstr(text, "  1.00K   412us tap\n") != NULL);
	free(text);
	text = print_qp(&r, false, true, 1);
	EXPECT_TRUE(strstr(text, "   1005  412000 tap\n") != NULL);
	free(text);
	text = print_qp(&r, false, false, 0);
	EXPECT_TRUE(strstr(text, "    rtt: samples 10 last 413us min 411us srtt 412us"
			   " rttvar 41.2us ack_delay 5us\n"
			   "    rtt_hist: <16us 0 <64us 0 <256us 1 <1.02ms 9 <4.1ms 0 <16.4ms 0"
			   " >=16.4ms 0\n") != NULL);
	free(text);
	text = print_qp(&r, true, false, 0);
	v = json_strict(text);
	ASSERT_TRUE(v);
	q = json_object_array_get_idx(v, 0);
	EXPECT_EQ(json_object_get_uint64(JGET(q, "rtt", "srtt_ns")), 412000);
	EXPECT_EQ(json_object_get_uint64(JGET(q, "rtt", "ack_delay_ns")), 5000);
	b = JGET(q, "rtt", "buckets");
	ASSERT_TRUE(b && json_object_array_length(b) == 7);
	EXPECT_EQ(json_object_get_uint64(json_object_array_get_idx(b, 3)), 9);
	b = JGET(q, "rtt", "bounds_ns");
	ASSERT_TRUE(b && json_object_array_length(b) == 6);
	EXPECT_EQ(json_object_get_uint64(json_object_array_get_idx(b, 5)), 16384000);
	json_object_put(v);
	free(text);
}

/* A QP in no set (the NIC had none left): its PSNs' progress, and why. */
TEST(qp_hw_psn_source)
{
	struct nlmsghdr *nlh = nlb_msg(buf, FABTRACE_CMD_QP_GET, NLM_F_MULTI);
	struct json_object *v, *q;
	struct ft_qp_rec r;
	struct nlattr *hw;
	char *text;

	mnl_attr_put_strz(nlh, FABTRACE_A_QP_DEV_NAME, "mlx5_0");
	mnl_attr_put_u32(nlh, FABTRACE_A_QP_QPN, 19);
	mnl_attr_put_u32(nlh, FABTRACE_A_QP_TYPE, FABTRACE_QP_TYPE_RC);
	hw = mnl_attr_nest_start(nlh, FABTRACE_A_QP_HW);
	mnl_attr_put_u32(nlh, FABTRACE_A_QP_HW_SOURCE, FABTRACE_SOURCE_PSN);
	nlb_u64(nlh, FABTRACE_A_QP_HW_PSN_TX, 0, FABTRACE_A_QP_HW_PAD);
	nlb_u64(nlh, FABTRACE_A_QP_HW_PSN_RX, 240, FABTRACE_A_QP_HW_PAD);
	mnl_attr_put_u32(nlh, FABTRACE_A_QP_HW_BIND_ERROR, 12);
	mnl_attr_nest_end(nlh, hw);
	ASSERT_TRUE(ft_parse_qp(nlh, &r) == 0);
	EXPECT_EQ(ft_qp_source(&r), FABTRACE_SOURCE_PSN);

	text = print_qp(&r, false, true, 1);
	EXPECT_TRUE(strstr(text, "      -      -      -      -       - psn\n") != NULL);
	free(text);
	text = print_qp(&r, false, true, 0);
	EXPECT_TRUE(strstr(text, "    cong: rx_ect - rx_ce - retransmits -") != NULL);
	EXPECT_TRUE(strstr(text, "    hw: source psn psn_tx 0 psn_rx 240 bind_error ENOMEM\n") != NULL);
	EXPECT_TRUE(strstr(text, "counters:") == NULL);
	free(text);
	text = print_qp(&r, true, false, 0);
	v = json_strict(text);
	ASSERT_TRUE(v);
	q = json_object_array_get_idx(v, 0);
	EXPECT_STREQ(json_object_get_string(JGET(q, "source")), "psn");
	EXPECT_EQ(json_object_get_uint64(JGET(q, "hw", "psn_rx")), 240);
	EXPECT_EQ(json_object_get_uint64(JGET(q, "hw", "bind_error")), 12);
	EXPECT_TRUE(JGET(q, "hw", "counters") == NULL && JGET(q, "cong", "retransmits") == NULL);
	json_object_put(v);
	free(text);
}

TEST(qp_tap_source)
{
	struct ft_qp_rec r;

	ft_parse_qp(nlb_qp(buf, &qp17), &r);
	EXPECT_EQ(ft_qp_source(&r), FABTRACE_SOURCE_TAP);
	EXPECT_EQ(r.have & (FT_QP_HAVE_TX | FT_QP_HAVE_RX), FT_QP_HAVE_TX | FT_QP_HAVE_RX);
}

TEST(dev_hw_formats)
{
	struct nlmsghdr *nlh = dev_msg();
	struct nlattr *hw, *port;
	struct json_object *v, *d, *p;
	struct ft_dev_rec r;
	char *text;

	hw = mnl_attr_nest_start(nlh, FABTRACE_A_DEV_HW);
	mnl_attr_put_u8(nlh, FABTRACE_A_DEV_HW_SETS, 1);
	mnl_attr_put_u8(nlh, FABTRACE_A_DEV_HW_PORT_STATS, 1);
	nlb_u64(nlh, FABTRACE_A_DEV_HW_READS, 9, FABTRACE_A_DEV_HW_PAD);
	nlb_u64(nlh, FABTRACE_A_DEV_HW_READ_NS, 90000, FABTRACE_A_DEV_HW_PAD);
	mnl_attr_put_u32(nlh, FABTRACE_A_DEV_HW_READ_ERR, 0);
	port = mnl_attr_nest_start(nlh, FABTRACE_A_DEV_HW_PORT);
	mnl_attr_put_u32(nlh, FABTRACE_A_DEV_HW_PORT_PORT, 1);
	mnl_attr_put_u32(nlh, FABTRACE_A_DEV_HW_PORT_MODE, 1);
	mnl_attr_put_u8(nlh, FABTRACE_A_DEV_HW_PORT_THEIRS, 1);
	hw_counter(nlh, FABTRACE_A_DEV_HW_PORT_COUNTER, "rx_write_requests", 5);
	hw_counter(nlh, FABTRACE_A_DEV_HW_PORT_COUNTER, "np_cnp_sent", 0);
	mnl_attr_nest_end(nlh, port);
	mnl_attr_nest_end(nlh, hw);
	ASSERT_TRUE(ft_parse_dev(nlh, &r) == 0);
	r.hooked = false;
	EXPECT_TRUE(r.hw.present && r.hw.sets && r.hw.port_stats);
	EXPECT_EQ(r.hw.nports, 1);
	EXPECT_EQ(r.hw.ports[0].ncounters, 2);
	EXPECT_EQ(r.hw.read_err, 0);

	text = print_dev_as(&r, false, 0);
	EXPECT_TRUE(strstr(text, "retained 1  sources sets, port counters\n") != NULL);
	EXPECT_TRUE(strstr(text, "(ifindex 2) counter_mode auto (operator's)\n") != NULL);
	EXPECT_TRUE(strstr(text, "rx_write_requests") == NULL);
	/* the taps' totals, which the kernel sends at 0: not counted here */
	EXPECT_TRUE(strstr(text, "\n    tx -  rx -\n") != NULL);
	free(text);
	text = print_dev_as(&r, false, 1);
	/* mlx5's np_cnp_sent under fabtrace's name, before the driver's own list */
	EXPECT_TRUE(strstr(text, "(operator's)\n      congestion: cnp_sent 0\n"
			   "      counters: rx_write_requests 5 np_cnp_sent 0\n") != NULL);
	free(text);

	text = print_dev_as(&r, true, 0);
	v = json_strict(text);
	ASSERT_TRUE(v);
	d = json_object_array_get_idx(v, 0);
	EXPECT_EQ(json_object_array_length(JGET(d, "sources")), 2);
	EXPECT_STREQ(json_object_get_string(json_object_array_get_idx(JGET(d, "sources"), 1)),
		     "port_counters");
	EXPECT_EQ(json_object_get_uint64(JGET(d, "hw", "reads")), 9);
	EXPECT_TRUE(JGET(d, "tx") == NULL && JGET(d, "malformed") == NULL);
	p = json_object_array_get_idx(JGET(d, "ports"), 0);
	EXPECT_STREQ(json_object_get_string(JGET(p, "counter_mode")), "auto");
	EXPECT_TRUE(json_object_get_boolean(JGET(p, "counter_mode_operator")));
	EXPECT_EQ(json_object_array_length(JGET(p, "counters")), 2);
	EXPECT_TRUE(JGET(p, "congestion", "cnp_sent") != NULL);
	EXPECT_EQ(json_object_get_uint64(JGET(p, "congestion", "cnp_sent")), 0);
	EXPECT_TRUE(JGET(p, "congestion", "ecn_marked") == NULL);
	/* sets that were read: no error, in text or JSON */
	EXPECT_TRUE(JGET(d, "hw", "read_error") == NULL);
	json_object_put(v);
	free(text);

	/* the last read of the sets failed: said, in words */
	r.hw.read_err = EFBIG;
	text = print_dev_as(&r, false, 0);
	EXPECT_TRUE(strstr(text, "port counters  (sets not read: a set too large for nldev to list)\n")
		    != NULL);
	free(text);
	text = print_dev_as(&r, true, 0);
	v = json_strict(text);
	ASSERT_TRUE(v);
	d = json_object_array_get_idx(v, 0);
	EXPECT_STREQ(json_object_get_string(JGET(d, "hw", "read_error")),
		     "a set too large for nldev to list");
	json_object_put(v);
	free(text);
}

TEST(stats_formats)
{
	struct nlmsghdr *nlh = nlb_msg(buf, FABTRACE_CMD_STATS_GET, 0);
	struct json_object *v;
	struct ft_stats_rec r;
	char *text = NULL;
	size_t len;
	FILE *fp;
	struct out *o;
	uint16_t i;

	for (i = FABTRACE_A_STATS_QPS; i <= FABTRACE_A_STATS_INDEX_BYTES; i++) {
		if (i <= FABTRACE_A_STATS_ENTRY_SIZE || i == FABTRACE_A_STATS_GENERATION)
			mnl_attr_put_u32(nlh, i, 10 * i);
		else
			nlb_u64(nlh, i, 10 * i, FABTRACE_A_STATS_PAD);
	}
	ASSERT_TRUE(ft_parse_stats(nlh, &r) == 0);
	fp = open_memstream(&text, &len);
	o = out_new(fp, false, false, false);
	print_stats(o, &r);
	out_free(o);
	fclose(fp);
	EXPECT_STREQ(text,
		"qps 10 retained 20 max_qps 30 retain_ms 40 entry_size 50 index_bytes 150\n"
		"overflow 60 alloc_fail 70 malformed 80 unknown 90 hook_missed 100\n"
		"events_sent 110 events_suppressed 120 events_lost 130 generation 140\n");
	free(text);

	fp = open_memstream(&text, &len);
	o = out_new(fp, true, false, false);
	print_stats(o, &r);
	out_free(o);
	fclose(fp);
	v = json_strict(text);
	ASSERT_TRUE(v);
	EXPECT_EQ(json_object_object_length(v), 15);
	EXPECT_EQ(json_object_get_uint64(JGET(v, "hook_missed")), 100);
	EXPECT_EQ(json_object_get_uint64(JGET(v, "generation")), 140);
	json_object_put(v);
	free(text);

	/* the load time: nanoseconds in JSON, a date of its own line in text */
	setenv("TZ", "UTC", 1);
	nlb_u64(nlh, FABTRACE_A_STATS_LOAD_TIME, 1700000000500000000ull, FABTRACE_A_STATS_PAD);
	ASSERT_TRUE(ft_parse_stats(nlh, &r) == 0);
	EXPECT_EQ(r.v[FABTRACE_A_STATS_LOAD_TIME], 1700000000500000000ull);
	fp = open_memstream(&text, &len);
	o = out_new(fp, false, false, false);
	print_stats(o, &r);
	out_free(o);
	fclose(fp);
	EXPECT_TRUE(strstr(text, "generation 140\nload_time 2023-11-14T22:13:20.500+00:00\n") != NULL);
	free(text);
	fp = open_memstream(&text, &len);
	o = out_new(fp, true, false, false);
	print_stats(o, &r);
	out_free(o);
	fclose(fp);
	v = json_strict(text);
	ASSERT_TRUE(v);
	EXPECT_EQ(json_object_get_uint64(JGET(v, "load_time")), 1700000000500000000ull);
	json_object_put(v);
	free(text);
}

static struct nlmsghdr *event_msg(uint32_t kind, uint64_t seq)
{
	struct nlmsghdr *nlh = nlb_msg(buf, FABTRACE_CMD_QP_EVENT, 0);

	nlb_u64(nlh, FABTRACE_A_EVENT_SEQ, seq, FABTRACE_A_EVENT_PAD);
	mnl_attr_put_u32(nlh, FABTRACE_A_EVENT_KIND, kind);
	nlb_u64(nlh, FABTRACE_A_EVENT_TIME, 1700000000250000000ull, FABTRACE_A_EVENT_PAD);
	nlb_u64(nlh, FABTRACE_A_EVENT_COUNT, kind == FABTRACE_EVENT_KIND_DROPPED ? 9 : 3,
		FABTRACE_A_EVENT_PAD);
	if (kind == FABTRACE_EVENT_KIND_DROPPED)
		return nlh;
	mnl_attr_put_u32(nlh, FABTRACE_A_EVENT_DEV_INDEX, 1);
	mnl_attr_put_strz(nlh, FABTRACE_A_EVENT_DEV_NAME, "rxe0");
	mnl_attr_put_u32(nlh, FABTRACE_A_EVENT_QPN, 17);
	mnl_attr_put_u32(nlh, FABTRACE_A_EVENT_PID, 123);
	mnl_attr_put_strz(nlh, FABTRACE_A_EVENT_COMM, "ib_write_bw");
	nlb_u64(nlh, FABTRACE_A_EVENT_SUPPRESSED, 2, FABTRACE_A_EVENT_PAD);
	mnl_attr_put_u32(nlh, FABTRACE_A_EVENT_REMOTE_QPN, 18);
	mnl_attr_put(nlh, FABTRACE_A_EVENT_PEER_ADDR, 16, nlb_peer_v4);
	if (kind == FABTRACE_EVENT_KIND_QP_DESTROY) {
		nlb_traffic(nlh, FABTRACE_A_EVENT_TX, 1200);
		nlb_traffic(nlh, FABTRACE_A_EVENT_RX, 600);
		nlb_cong(nlh, FABTRACE_A_EVENT_CONG, 0, 0);
	}
	return nlh;
}

static char *print_ev(const struct ft_event_rec *e, bool json)
{
	char *text = NULL;
	size_t len;
	FILE *fp = open_memstream(&text, &len);
	struct out *o = out_new(fp, json, false, false);

	if (json)
		out_lines(o);
	print_event(o, e);
	out_free(o);
	fclose(fp);
	return text;
}

TEST(event_formats)
{
	struct ft_event_rec e;
	struct json_object *v;
	char *text;

	setenv("TZ", "UTC", 1);
	ASSERT_TRUE(ft_parse_event(event_msg(FABTRACE_EVENT_KIND_CE, 41), &e) == 0);
	EXPECT_EQ(e.seq, 41);
	text = print_ev(&e, false);
	EXPECT_STREQ(text, "2023-11-14T22:13:20.250000+00:00 dev rxe0 qpn 17 ce count 3"
			   " peer 10.99.0.2 rqpn 18 pid 123 comm ib_write_bw suppressed 2\n");
	free(text);
	text = print_ev(&e, true);
	v = json_strict(text);
	ASSERT_TRUE(v);
	EXPECT_EQ(json_object_get_uint64(JGET(v, "seq")), 41);
	EXPECT_EQ(json_object_get_uint64(JGET(v, "time")), 1700000000250000000ull);
	EXPECT_STREQ(json_object_get_string(JGET(v, "kind")), "ce");
	EXPECT_STREQ(json_object_get_string(JGET(v, "dev")), "rxe0");
	EXPECT_EQ(json_object_get_uint64(JGET(v, "dev_index")), 1);
	EXPECT_EQ(json_object_get_uint64(JGET(v, "qpn")), 17);
	EXPECT_EQ(json_object_get_uint64(JGET(v, "remote_qpn")), 18);
	EXPECT_STREQ(json_object_get_string(JGET(v, "peer")), "10.99.0.2");
	EXPECT_EQ(json_object_get_uint64(JGET(v, "pid")), 123);
	EXPECT_STREQ(json_object_get_string(JGET(v, "comm")), "ib_write_bw");
	EXPECT_EQ(json_object_get_uint64(JGET(v, "count")), 3);
	EXPECT_EQ(json_object_get_uint64(JGET(v, "suppressed")), 2);
	EXPECT_TRUE(JGET(v, "tx") == NULL);
	json_object_put(v);
	free(text);

	ft_parse_event(event_msg(FABTRACE_EVENT_KIND_QP_DESTROY, 42), &e);
	text = print_ev(&e, false);
	EXPECT_STREQ(text, "2023-11-14T22:13:20.250000+00:00 dev rxe0 qpn 17 qp-destroy"
			   " peer 10.99.0.2 rqpn 18 pid 123 comm ib_write_bw suppressed 2"
			   " tx packets 1.20K bytes 1.17KiB rx packets 600 bytes 601B\n");
	free(text);
	text = print_ev(&e, true);
	v = json_strict(text);
	ASSERT_TRUE(v);
	EXPECT_EQ(json_object_get_uint64(JGET(v, "tx", "packets")), 1200);
	EXPECT_EQ(json_object_get_uint64(JGET(v, "rx", "bytes")), 601);
	EXPECT_TRUE(JGET(v, "cong", "tx_nak", "rnr") != NULL);
	json_object_put(v);
	free(text);

	ft_parse_event(event_msg(FABTRACE_EVENT_KIND_DROPPED, 43), &e);
	text = print_ev(&e, false);
	EXPECT_STREQ(text, "2023-11-14T22:13:20.250000+00:00 dropped count 9\n");
	free(text);
	text = print_ev(&e, true);
	v = json_strict(text);
	ASSERT_TRUE(v);
	EXPECT_STREQ(json_object_get_string(JGET(v, "kind")), "dropped");
	EXPECT_TRUE(JGET(v, "dev") == NULL);
	json_object_put(v);
	free(text);
}

/*
 * The kernel's strings are hostile: a comm is whatever the QP's owner set
 * with prctl(PR_SET_NAME), here an invalid UTF-8 byte and a recolouring
 * escape; device names are treated the same.
 */
#define HOSTILE_COMM	"\xff\x1b[31m"
#define HOSTILE_DEV	"rxe\x1b]0;pwned\x07"
#define ESCAPED_COMM	"\\xff\\x1b[31m"
#define ESCAPED_DEV	"rxe\\x1b]0;pwned\\x07"
/* what JSON carries: U+FFFD for the 0xff, the rest as it is (\u-escaped) */
#define DECODED_COMM	"\xef\xbf\xbd\x1b[31m"

/* A raw control byte (newlines aside), or with @high any byte >= 0x80. */
static bool has_raw(const char *text, bool high)
{
	const unsigned char *p;

	for (p = (const unsigned char *)text; *p; p++)
		if ((*p < 0x20 && *p != '\n') || *p == 0x7f || (high && *p >= 0x80))
			return true;
	return false;
}

TEST(qp_hostile_strings_escaped)
{
	struct nlb_qp q = qp17;
	struct json_object *v, *e;
	struct ft_qp_rec r;
	char *text;
	int what;

	q.comm = HOSTILE_COMM;
	q.dev = HOSTILE_DEV;
	ASSERT_TRUE(ft_parse_qp(nlb_qp(buf, &q), &r) == 0);
	for (what = 0; what < 2; what++) {
		text = print_qp(&r, false, false, what);
		EXPECT_FALSE(has_raw(text, true));
		EXPECT_TRUE(strstr(text, " " ESCAPED_COMM " ") != NULL);
		EXPECT_TRUE(strncmp(text, ESCAPED_DEV " ", strlen(ESCAPED_DEV) + 1) == 0);
		free(text);
	}
	r.flags |= FABTRACE_QP_FLAGS_KERNEL;
	text = print_qp(&r, false, false, 1);
	EXPECT_TRUE(strstr(text, " [" ESCAPED_COMM "] ") != NULL);
	free(text);

	/* json_strict(): json-c and Python, both decoding UTF-8 strictly */
	text = print_qp(&r, true, false, 0);
	EXPECT_FALSE(has_raw(text, false));
	v = json_strict(text);
	ASSERT_TRUE(v);
	e = json_object_array_get_idx(v, 0);
	EXPECT_STREQ(json_object_get_string(JGET(e, "comm")), DECODED_COMM);
	EXPECT_STREQ(json_object_get_string(JGET(e, "dev")), HOSTILE_DEV);
	json_object_put(v);
	free(text);
}

TEST(dev_hostile_strings_escaped)
{
	struct json_object *v, *d;
	struct ft_dev_rec r;
	char *text;
	int stats;

	ASSERT_TRUE(ft_parse_dev(dev_msg(), &r) == 0);
	snprintf(r.name, sizeof(r.name), "%s", HOSTILE_DEV);
	snprintf(r.driver, sizeof(r.driver), "%s", HOSTILE_COMM);
	snprintf(r.ports[0].netdev, sizeof(r.ports[0].netdev), "%s", "eth\x9b" "0");
	for (stats = 0; stats < 2; stats++) {
		text = print_dev_as(&r, false, stats);
		EXPECT_FALSE(has_raw(text, true));
		EXPECT_TRUE(strstr(text, "0: " ESCAPED_DEV "  driver " ESCAPED_COMM "  ") != NULL);
		EXPECT_TRUE(strstr(text, " netdev eth\\x9b0 ") != NULL);
		free(text);
	}
	text = print_dev_as(&r, true, 0);
	EXPECT_FALSE(has_raw(text, false));
	v = json_strict(text);
	ASSERT_TRUE(v);
	d = json_object_array_get_idx(v, 0);
	EXPECT_STREQ(json_object_get_string(JGET(d, "driver")), DECODED_COMM);
	EXPECT_STREQ(json_object_get_string(JGET(json_object_array_get_idx(JGET(d, "ports"), 0),
						"netdev")), "eth\xef\xbf\xbd" "0");
	json_object_put(v);
	free(text);
}

TEST(event_hostile_strings_escaped)
{
	struct ft_event_rec e;
	struct json_object *v;
	char *text;

	ASSERT_TRUE(ft_parse_event(event_msg(FABTRACE_EVENT_KIND_QP_CREATE, 44), &e) == 0);
	snprintf(e.dev, sizeof(e.dev), "%s", HOSTILE_DEV);
	snprintf(e.comm, sizeof(e.comm), "%s", HOSTILE_COMM);
	text = print_ev(&e, false);
	EXPECT_FALSE(has_raw(text, true));
	EXPECT_TRUE(strstr(text, " dev " ESCAPED_DEV " qpn 17 ") != NULL);
	EXPECT_TRUE(strstr(text, " comm " ESCAPED_COMM " ") != NULL);
	free(text);
	text = print_ev(&e, true);
	EXPECT_FALSE(has_raw(text, false));
	v = json_strict(text);
	ASSERT_TRUE(v);
	EXPECT_STREQ(json_object_get_string(JGET(v, "comm")), DECODED_COMM);
	EXPECT_STREQ(json_object_get_string(JGET(v, "dev")), HOSTILE_DEV);
	json_object_put(v);
	free(text);
}

TEST_HARNESS_MAIN
