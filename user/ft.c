// SPDX-License-Identifier: GPL-2.0
/* The state of one fabtrace invocation, and the requests its commands share. */

#include <errno.h>
#include <linux/genetlink.h>

#include "ft.h"
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

struct nlmsghdr *ft_ports_req(struct nl *nl, const struct ft_ports *p,
			      uint8_t cmd, bool dump)
{
	struct nlmsghdr *nlh = nl_req(nl, cmd, dump);

	if (p->dev)
		mnl_attr_put_strz(nlh, p->a_dev, p->dev);
	if (p->has_port)
		mnl_attr_put_u32(nlh, p->a_port, p->port);
	return nlh;
}

static int ports_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);
	struct ft_ports *p = data;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*g) || g->cmd != p->cmd)
		return MNL_CB_OK;
	p->v = xrealloc(p->v, (p->n + 1) * p->size);
	if (p->parse(nlh, (char *)p->v + p->n * p->size)) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	p->n++;
	return MNL_CB_OK;
}

static void ports_restart(void *data)
{
	((struct ft_ports *)data)->n = 0;
}

static struct nlmsghdr *ports_build(struct nl *nl, void *data)
{
	const struct ft_ports *p = data;

	return ft_ports_req(nl, p, p->cmd, true);
}

int ft_ports_get(struct ft *ft, struct ft_ports *p, bool dump, const char *what)
{
	struct nl *nl = ft_nl(ft);
	int ret;

	if (!nl)
		return -1;
	if (!dump)
		return nl_do(nl, ft_ports_req(nl, p, p->cmd, false), ports_cb, p, what);
	ret = nl_dump(nl, ports_build, ports_cb, ports_restart, p, what);
	if (ret || !p->dev || p->n)
		return ret;
	/* the kernel's word on the device; else the port is wrong */
	if (ft_check_dev(ft, p->dev))
		return -1;
	ft_err("%s: device %s has no port %u", what, p->dev, p->port);
	return -1;
}
