// SPDX-License-Identifier: GPL-2.0
/* The state of one fabtrace invocation, and the requests its commands share. */

#include <errno.h>
#include <linux/genetlink.h>
#include <stdlib.h>

#include "ft.h"
#include "rec.h"
#include "util.h"

struct nl *ft_nl(struct ft *ft)
{
	if (ft->nl_open)
		return &ft->nl;
	if (nl_open(&ft->nl, ft->rcvbuf ? ft->rcvbuf : FT_RCVBUF, false))
		return NULL;
	ft->nl_open = true;
	return &ft->nl;
}

int ft_check_dev(struct ft *ft, const char *dev)
{
	struct nl *nl = ft_nl(ft);
	struct nlmsghdr *nlh;

	if (!nl)
		return -1;
	nlh = nl_req(nl, FABTRACE_CMD_DEV_GET, false);
	mnl_attr_put_strz(nlh, FABTRACE_A_DEV_NAME, dev);
	return nl_do(nl, nlh, NULL, NULL, "dev show");
}

static int parse_dev(const struct nlmsghdr *nlh, void *rec)
{
	return ft_parse_dev(nlh, rec);
}

static int parse_policy(const struct nlmsghdr *nlh, void *rec)
{
	return ft_parse_policy(nlh, rec);
}

static int parse_pfc(const struct nlmsghdr *nlh, void *rec)
{
	return ft_parse_pfc(nlh, rec);
}

const struct ft_rec_kind ft_dev_recs = {
	.cmd = FABTRACE_CMD_DEV_GET, .a_dev = FABTRACE_A_DEV_NAME,
	.parse = parse_dev, .size = sizeof(struct ft_dev_rec),
};

const struct ft_rec_kind ft_policy_recs = {
	.cmd = FABTRACE_CMD_POLICY_GET, .a_dev = FABTRACE_A_POLICY_DEV_NAME,
	.a_port = FABTRACE_A_POLICY_PORT, .parse = parse_policy,
	.size = sizeof(struct ft_policy_rec),
};

const struct ft_rec_kind ft_pfc_recs = {
	.cmd = FABTRACE_CMD_PFC_GET, .a_dev = FABTRACE_A_PFC_DEV_NAME,
	.a_port = FABTRACE_A_PFC_PORT, .parse = parse_pfc,
	.size = sizeof(struct ft_pfc_rec),
};

struct nlmsghdr *ft_recs_req(struct nl *nl, const struct ft_recs *p,
			     uint8_t cmd, bool dump)
{
	struct nlmsghdr *nlh = nl_req(nl, cmd, dump);

	if (p->dev)
		mnl_attr_put_strz(nlh, p->kind->a_dev, p->dev);
	if (p->has_port)
		mnl_attr_put_u32(nlh, p->kind->a_port, p->port);
	return nlh;
}

static int recs_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);
	struct ft_recs *p = data;
	const struct ft_rec_kind *k = p->kind;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*g) || g->cmd != k->cmd)
		return MNL_CB_OK;
	p->v = xrealloc(p->v, (p->n + 1) * k->size);
	if (k->parse(nlh, (char *)p->v + p->n * k->size)) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	p->n++;
	return MNL_CB_OK;
}

static void recs_restart(void *data)
{
	((struct ft_recs *)data)->n = 0;
}

static struct nlmsghdr *recs_build(struct nl *nl, void *data)
{
	const struct ft_recs *p = data;

	return ft_recs_req(nl, p, p->kind->cmd, true);
}

int ft_recs_dump(struct nl *nl, struct ft_recs *p, const char *what)
{
	p->n = 0;
	return nl_dump(nl, recs_build, recs_cb, recs_restart, p, what);
}

int ft_recs_get(struct ft *ft, struct ft_recs *p, bool dump, const char *what)
{
	struct nl *nl = ft_nl(ft);
	int ret;

	if (!nl)
		return -1;
	if (!dump)
		return nl_do(nl, ft_recs_req(nl, p, p->kind->cmd, false), recs_cb, p, what);
	ret = ft_recs_dump(nl, p, what);
	if (ret || !p->dev || p->n)
		return ret;
	/* the kernel's word on the device; else the port is wrong */
	if (ft_check_dev(ft, p->dev))
		return -1;
	ft_err("%s: device %s has no port %u", what, p->dev, p->port);
	return -1;
}

int ft_recs_show(struct ft *ft, struct ft_recs *p, bool dump, const char *what,
		 void (*print)(struct out *o, const void *rec, bool all))
{
	size_t i;
	int ret;

	ret = ft_recs_get(ft, p, dump, what);
	if (!ret) {
		if (ft->json)
			out_list_begin(ft->out);
		for (i = 0; i < p->n; i++)
			print(ft->out, (const char *)p->v + i * p->kind->size, ft->stats);
		if (ft->json)
			out_list_end(ft->out);
	}
	free(p->v);
	p->v = NULL;
	return ret;
}
