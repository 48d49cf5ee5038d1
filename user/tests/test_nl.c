// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: what nl_process() makes of acks, errors with extack, ends of
 * dumps and interrupted dumps, from buffers shaped like the kernel's.
 */

#include <errno.h>
#include <linux/netlink.h>

#include "harness.h"
#include "nlbuild.h"

#include "nl.h"
#include "util.h"

#define SEQ	7

static char buf[8192] __attribute__((aligned(8)));
static size_t used;

static struct nlmsghdr *next_msg(uint16_t type, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf + used);

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = flags;
	nlh->nlmsg_seq = SEQ;
	return nlh;
}

static void done_msg(struct nlmsghdr *nlh)
{
	used += MNL_ALIGN(nlh->nlmsg_len);
}

static struct nlmsghdr *data_msg(uint32_t qpn, uint16_t flags)
{
	struct nlmsghdr *nlh = next_msg(NLB_FAMILY, NLM_F_MULTI | flags);
	struct genlmsghdr *g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));

	g->cmd = FABTRACE_CMD_QP_GET;
	mnl_attr_put_u32(nlh, FABTRACE_A_QP_QPN, qpn);
	done_msg(nlh);
	return nlh;
}

/* NLMSG_DONE with @err and, if @msg, an extack message. */
static void end_msg(int err, const char *msg, uint16_t flags)
{
	struct nlmsghdr *nlh = next_msg(NLMSG_DONE, NLM_F_MULTI | flags);
	int *e = mnl_nlmsg_put_extra_header(nlh, sizeof(int));

	*e = err;
	if (msg) {
		nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
		mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, msg);
	}
	done_msg(nlh);
}

/* NLMSG_ERROR, capped (NETLINK_CAP_ACK), with an extack message if @msg. */
static void err_msg(int err, const char *msg)
{
	struct nlmsghdr *nlh = next_msg(NLMSG_ERROR, NLM_F_CAPPED);
	struct nlmsgerr *e = mnl_nlmsg_put_extra_header(nlh, sizeof(*e));

	e->error = err;
	e->msg.nlmsg_len = sizeof(struct nlmsghdr) + 64;	/* not echoed */
	e->msg.nlmsg_seq = SEQ;
	if (msg) {
		nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
		mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, msg);
		mnl_attr_put_u32(nlh, NLMSGERR_ATTR_OFFS, 20);
	}
	done_msg(nlh);
}

static int seen[8], nseen;

static int count_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *a;

	(void)data;
	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr))
		if (mnl_attr_get_type(a) == FABTRACE_A_QP_QPN && nseen < 8)
			seen[nseen++] = mnl_attr_get_u32(a);
	return MNL_CB_OK;
}

static struct nl nl;

static void reset(void)
{
	memset(&nl, 0, sizeof(nl));
	used = 0;
	nseen = 0;
}

TEST(dump_parts_and_end)
{
	reset();
	data_msg(17, 0);
	data_msg(18, 0);
	EXPECT_EQ(nl_process(&nl, buf, used, SEQ, count_cb, NULL), MNL_CB_OK);
	used = 0;
	data_msg(19, 0);
	end_msg(0, NULL, 0);
	EXPECT_EQ(nl_process(&nl, buf, used, SEQ, count_cb, NULL), MNL_CB_STOP);
	EXPECT_EQ(nseen, 3);
	EXPECT_EQ(seen[2], 19);
	EXPECT_FALSE(nl.intr);
}

/* libmnl alone would stop at the flagged message with EINTR, losing 18 and 19. */
TEST(interrupted_dump_keeps_its_data)
{
	reset();
	data_msg(17, 0);
	data_msg(18, NLM_F_DUMP_INTR);
	data_msg(19, 0);
	end_msg(0, NULL, NLM_F_DUMP_INTR);
	EXPECT_EQ(nl_process(&nl, buf, used, SEQ, count_cb, NULL), MNL_CB_STOP);
	EXPECT_EQ(nseen, 3);
	EXPECT_TRUE(nl.intr);
}

TEST(ack_and_error_with_extack)
{
	char *text = NULL;
	size_t len;
	FILE *fp;

	reset();
	err_msg(0, NULL);
	EXPECT_EQ(nl_process(&nl, buf, used, SEQ, NULL, NULL), MNL_CB_STOP);
	EXPECT_FALSE(nl.kernel_err);

	reset();
	err_msg(-ENODEV, "no such RDMA device");
	EXPECT_EQ(nl_process(&nl, buf, used, SEQ, NULL, NULL), -ENODEV);
	EXPECT_TRUE(nl.kernel_err);
	EXPECT_STREQ(nl.extack, "no such RDMA device");

	/* the message the user sees */
	fp = open_memstream(&text, &len);
	ASSERT_TRUE(fp);
	stderr = fp;
	nl_perror(&nl, -ENODEV, "dev show");
	reset();
	err_msg(-EPERM, NULL);
	nl_process(&nl, buf, used, SEQ, NULL, NULL);
	nl_perror(&nl, -EPERM, "qp reset");
	fclose(fp);
	EXPECT_STREQ(text, "fabtrace: no such RDMA device: No such device\n"
			   "fabtrace: qp reset: Operation not permitted (needs CAP_NET_ADMIN)\n");
	free(text);
}

/* The kernel's message goes to a terminal too: escaped like every string. */
TEST(extack_escaped)
{
	reset();
	err_msg(-EINVAL, "bad name \"\x1b[2J\xff\"");
	EXPECT_EQ(nl_process(&nl, buf, used, SEQ, NULL, NULL), -EINVAL);
	EXPECT_STREQ(nl.extack, "bad name \"\\x1b[2J\\xff\"");
}

TEST(dump_error_at_the_end)
{
	reset();
	data_msg(17, 0);
	end_msg(-EINVAL, "QP numbers are 24 bits", 0);
	EXPECT_EQ(nl_process(&nl, buf, used, SEQ, count_cb, NULL), -EINVAL);
	EXPECT_STREQ(nl.extack, "QP numbers are 24 bits");
	EXPECT_EQ(nseen, 1);
}

TEST(stale_answer_rejected)
{
	reset();
	data_msg(17, 0);
	EXPECT_EQ(nl_process(&nl, buf, used, SEQ + 1, count_cb, NULL), -EPROTO);
	EXPECT_EQ(nseen, 0);
}

TEST_HARNESS_MAIN
