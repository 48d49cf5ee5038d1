// SPDX-License-Identifier: GPL-2.0
/* The fabtrace generic netlink socket: family lookup, requests, dumps, errors. */

#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "nl.h"
#include "out.h"
#include "util.h"

/* How often an interrupted dump is run again before it is accepted. */
#define NL_DUMP_RETRIES	3

struct run {
	struct nl *nl;
	mnl_cb_t cb;
	void *data;
};

static int extack_cb(const struct nlattr *a, void *data)
{
	struct nl *nl = data;

	switch (mnl_attr_get_type(a)) {
	case NLMSGERR_ATTR_MSG:
		/* it goes to a terminal too: escaped like every kernel string */
		if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) >= 0)
			out_esc(nl->extack, sizeof(nl->extack), mnl_attr_get_str(a));
		break;
#ifdef NLMSGERR_ATTR_MISS_TYPE
	case NLMSGERR_ATTR_MISS_TYPE:
		if (!nl->extack[0] && mnl_attr_validate(a, MNL_TYPE_U32) >= 0)
			snprintf(nl->extack, sizeof(nl->extack),
				 "missing attribute %u", mnl_attr_get_u32(a));
		break;
#endif
	}
	return MNL_CB_OK;
}

static void extack_parse(struct nl *nl, const char *p, size_t len)
{
	mnl_attr_parse_payload(p, len, extack_cb, nl);
}

static int err_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	size_t len = mnl_nlmsg_get_payload_len(nlh), off = sizeof(*e);
	struct run *r = arg;

	if (len < sizeof(*e)) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS) {
		/* with NETLINK_CAP_ACK the request's payload is not echoed */
		if (!(nlh->nlmsg_flags & NLM_F_CAPPED) &&
		    e->msg.nlmsg_len >= sizeof(struct nlmsghdr))
			off += e->msg.nlmsg_len - sizeof(struct nlmsghdr);
		if (off < len)
			extack_parse(r->nl, (const char *)e + off, len - off);
	}
	/* the ack: its extack, if any, is a warning (nl_do()) */
	if (!e->error)
		return MNL_CB_STOP;
	r->nl->kernel_err = true;
	errno = e->error < 0 ? -e->error : e->error;
	return MNL_CB_ERROR;
}

/* The end of a dump: it carries the dump's error, if any, and its extack. */
static int done_cb(const struct nlmsghdr *nlh, void *arg)
{
	size_t len = mnl_nlmsg_get_payload_len(nlh);
	const char *p = mnl_nlmsg_get_payload(nlh);
	struct run *r = arg;
	int err;

	if (len < sizeof(err))
		return MNL_CB_STOP;
	memcpy(&err, p, sizeof(err));
	if (err >= 0)
		return MNL_CB_STOP;
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS)
		extack_parse(r->nl, p + sizeof(err), len - sizeof(err));
	r->nl->kernel_err = true;
	errno = -err;
	return MNL_CB_ERROR;
}

static int data_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct run *r = arg;

	return r->cb ? r->cb(nlh, r->data) : MNL_CB_OK;
}

/*
 * libmnl turns NLM_F_DUMP_INTR into an error (EINTR) and drops the rest of
 * the buffer.  fabtrace wants the data and decides itself what an
 * interrupted dump means (nl_dump() runs it again), so the flag is taken
 * off here and remembered.
 */
static void take_dump_intr(struct nl *nl, void *buf, size_t len)
{
	struct nlmsghdr *nlh = buf;
	int rem = (int)len;

	for (; mnl_nlmsg_ok(nlh, rem); nlh = mnl_nlmsg_next(nlh, &rem)) {
		if (nlh->nlmsg_flags & NLM_F_DUMP_INTR) {
			nlh->nlmsg_flags &= ~NLM_F_DUMP_INTR;
			nl->intr = true;
		}
	}
}

int nl_process(struct nl *nl, void *buf, size_t len, unsigned int seq,
	       mnl_cb_t cb, void *data)
{
	/* libmnl takes a non-const table */
	static mnl_cb_t ctl[NLMSG_MIN_TYPE] = {
		[NLMSG_ERROR] = err_cb,
		[NLMSG_DONE] = done_cb,
	};
	struct run r = { nl, cb, data };
	int ret;

	take_dump_intr(nl, buf, len);
	errno = 0;
	ret = mnl_cb_run2(buf, len, seq, nl->portid, data_cb, &r, ctl,
			  ARRAY_SIZE(ctl));
	if (ret < MNL_CB_STOP)
		return errno ? -errno : -EPROTO;
	return ret;
}

static void nl_reset(struct nl *nl)
{
	nl->intr = false;
	nl->kernel_err = false;
	nl->extack[0] = '\0';
}

int nl_talk(struct nl *nl, struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	unsigned int seq = nlh->nlmsg_seq;
	ssize_t len;
	int ret;

	nl_reset(nl);
	if (mnl_socket_sendto(nl->sk, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	for (;;) {
		len = mnl_socket_recvfrom(nl->sk, nl->rbuf, MNL_SOCKET_DUMP_SIZE);
		if (len < 0) {
			if (errno == EINTR && !ft_stop)
				continue;
			if (errno == ENOBUFS) {
				/* a message was dropped: the answer is incomplete */
				nl->intr = true;
				continue;
			}
			return -errno;
		}
		ret = nl_process(nl, nl->rbuf, len, seq, cb, data);
		if (ret == MNL_CB_STOP)
			return 0;
		if (ret < 0)
			return ret;
	}
}

void nl_perror(const struct nl *nl, int err, const char *what)
{
	if (err < 0)
		err = -err;
	if (nl->kernel_err && nl->extack[0])
		ft_err("%s: %s", nl->extack, strerror(err));
	else if (err == EPERM)
		ft_err("%s: %s (needs CAP_NET_ADMIN)", what, strerror(err));
	else
		ft_err("%s: %s", what, strerror(err));
}

static struct nlmsghdr *put_req(struct nl *nl, uint16_t type, uint8_t cmd,
				uint8_t version, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(nl->sbuf);
	struct genlmsghdr *g;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = ++nl->seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = version;
	return nlh;
}

struct nlmsghdr *nl_req(struct nl *nl, uint8_t cmd, bool dump)
{
	/* a do request asks for the ack, which ends the exchange */
	return put_req(nl, nl->family, cmd, FABTRACE_FAMILY_VERSION,
		       dump ? NLM_F_DUMP : NLM_F_ACK);
}

int nl_dump(struct nl *nl, struct nlmsghdr *(*build)(struct nl *nl, void *data),
	    mnl_cb_t cb, void (*restart)(void *data), void *data, const char *what)
{
	int attempt, err;

	for (attempt = 0; ; attempt++) {
		err = nl_talk(nl, build(nl, data), cb, data);
		if (err == -EINTR && ft_stop)
			return -1;	/* asked to stop: not an error to report */
		if (err) {
			nl_perror(nl, err, what);
			return -1;
		}
		if (!nl->intr)
			return 0;
		if (attempt == NL_DUMP_RETRIES) {
			ft_err("dump was interrupted, results may be inconsistent");
			return 0;
		}
		if (restart)
			restart(data);
	}
}

int nl_do(struct nl *nl, struct nlmsghdr *nlh, mnl_cb_t cb, void *data,
	  const char *what)
{
	int err = nl_talk(nl, nlh, cb, data);

	if (err) {
		if (!(err == -EINTR && ft_stop))
			nl_perror(nl, err, what);
		return -1;
	}
	if (nl->extack[0]) {
		ft_err("warning: %s", nl->extack);
		return 1;
	}
	return 0;
}

bool nl_supports(const struct nl *nl, uint8_t cmd, uint32_t cap)
{
	/* an old kernel that lists no ops: just try */
	if (!nl->ops_known)
		return true;
	return cmd <= FABTRACE_CMD_MAX && (nl->op_flags[cmd] & cap);
}

/* --- family lookup through nlctrl ----------------------------------------- */

static int grp_cb(const struct nlattr *a, void *data)
{
	struct nl *nl = data;
	const struct nlattr *g;
	const char *name = NULL;
	uint32_t id = 0;

	mnl_attr_for_each_nested(g, a) {
		switch (mnl_attr_get_type(g)) {
		case CTRL_ATTR_MCAST_GRP_NAME:
			if (mnl_attr_validate(g, MNL_TYPE_NUL_STRING) >= 0)
				name = mnl_attr_get_str(g);
			break;
		case CTRL_ATTR_MCAST_GRP_ID:
			if (mnl_attr_validate(g, MNL_TYPE_U32) >= 0)
				id = mnl_attr_get_u32(g);
			break;
		}
	}
	if (name && !strcmp(name, FABTRACE_MCGRP_EVENTS))
		nl->events_grp = id;
	return MNL_CB_OK;
}

static int op_cb(const struct nlattr *a, void *data)
{
	struct nl *nl = data;
	const struct nlattr *o;
	uint32_t id = 0, flags = 0;

	mnl_attr_for_each_nested(o, a) {
		switch (mnl_attr_get_type(o)) {
		case CTRL_ATTR_OP_ID:
			if (mnl_attr_validate(o, MNL_TYPE_U32) >= 0)
				id = mnl_attr_get_u32(o);
			break;
		case CTRL_ATTR_OP_FLAGS:
			if (mnl_attr_validate(o, MNL_TYPE_U32) >= 0)
				flags = mnl_attr_get_u32(o);
			break;
		}
	}
	if (id <= FABTRACE_CMD_MAX)
		nl->op_flags[id] |= flags;
	nl->ops_known = true;
	return MNL_CB_OK;
}

static int family_attr_cb(const struct nlattr *a, void *data)
{
	struct nl *nl = data;

	switch (mnl_attr_get_type(a)) {
	case CTRL_ATTR_FAMILY_ID:
		if (mnl_attr_validate(a, MNL_TYPE_U16) >= 0)
			nl->family = mnl_attr_get_u16(a);
		break;
	case CTRL_ATTR_VERSION:
		if (mnl_attr_validate(a, MNL_TYPE_U32) >= 0)
			nl->version = mnl_attr_get_u32(a);
		break;
	case CTRL_ATTR_MCAST_GROUPS:
		mnl_attr_parse_nested(a, grp_cb, nl);
		break;
	case CTRL_ATTR_OPS:
		mnl_attr_parse_nested(a, op_cb, nl);
		break;
	}
	return MNL_CB_OK;
}

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr), family_attr_cb,
			      data) < 0 ? MNL_CB_ERROR : MNL_CB_OK;
}

static int resolve(struct nl *nl, bool quiet)
{
	struct nlmsghdr *nlh;
	int err;

	nlh = put_req(nl, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, NLM_F_ACK);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, FABTRACE_FAMILY_NAME);
	err = nl_talk(nl, nlh, family_cb, nl);
	if (err == -ENOENT) {
		if (!quiet)
			ft_err("kernel module not loaded (run: modprobe fabtrace)");
		return -1;
	}
	if (err || !nl->family) {
		if (!quiet)
			nl_perror(nl, err ? err : -EPROTO,
				  "cannot look up the fabtrace netlink family");
		return -1;
	}
	/* a newer kernel is fine (new attributes are skipped), an older one is not */
	if (nl->version < FABTRACE_FAMILY_VERSION) {
		if (!quiet)
			ft_err("kernel module speaks protocol version %u, this fabtrace needs %u (update fabtrace.ko)",
			       nl->version, FABTRACE_FAMILY_VERSION);
		return -1;
	}
	return 0;
}

int nl_open(struct nl *nl, int rcvbuf, bool quiet)
{
	int one = 1, fd;

	memset(nl, 0, sizeof(*nl));
	nl->rbuf = xmalloc(MNL_SOCKET_DUMP_SIZE);
	nl->sk = mnl_socket_open(NETLINK_GENERIC);
	if (!nl->sk || mnl_socket_bind(nl->sk, 0, MNL_SOCKET_AUTOPID) < 0) {
		if (!quiet)
			ft_err("cannot open a generic netlink socket: %s",
			       strerror(errno));
		nl_close(nl);
		return -1;
	}
	nl->portid = mnl_socket_get_portid(nl->sk);
	/*
	 * Capped acks keep error replies small; extended acks carry the
	 * kernel's message.  Kernels without them still work, less helpfully.
	 */
	mnl_socket_setsockopt(nl->sk, NETLINK_CAP_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl->sk, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl->sk, NETLINK_GET_STRICT_CHK, &one, sizeof(one));
	/* a big buffer lets large dumps and event bursts through (root: FORCE) */
	fd = mnl_socket_get_fd(nl->sk);
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (resolve(nl, quiet)) {
		nl_close(nl);
		return -1;
	}
	return 0;
}

void nl_close(struct nl *nl)
{
	if (nl->sk)
		mnl_socket_close(nl->sk);
	nl->sk = NULL;
	free(nl->rbuf);
	nl->rbuf = NULL;
}

int nl_join_events(struct nl *nl)
{
	uint32_t grp = nl->events_grp;

	if (!grp) {
		ft_err("the loaded fabtrace module has no \"%s\" multicast group",
		       FABTRACE_MCGRP_EVENTS);
		return -1;
	}
	if (mnl_socket_setsockopt(nl->sk, NETLINK_ADD_MEMBERSHIP, &grp,
				  sizeof(grp)) < 0) {
		if (errno == EPERM)
			ft_err("cannot join the events group: it needs CAP_NET_ADMIN "
			       "(events show every tenant's QPs; \"qp show\" shows yours)");
		else
			ft_err("cannot join the events group: %s", strerror(errno));
		return -1;
	}
	return 0;
}
