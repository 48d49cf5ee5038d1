// SPDX-License-Identifier: GPL-2.0
/* Requests to the RDMA core's own netlink interface (nldev), from the module. */

#include <linux/mutex.h>
#include <linux/net.h>
#include <linux/netlink.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <net/netlink.h>
#include <net/sock.h>
#include <rdma/rdma_netlink.h>

#include "nldev.h"

/*
 * The RDMA core exports no function that binds a QP to a counter set or
 * reads the sets: rdma(8) does both through nldev (RDMA_NLDEV_CMD_STAT_*),
 * and so does fabtrace, from a kernel netlink socket of its own.  A
 * request is handled in the sender's context, synchronously: its replies
 * are queued on this socket before kernel_sendmsg() returns (a dump's
 * further parts as they are read).  A request from a kernel socket is
 * taken only with its destination given (NETLINK_SKB_DST): without one
 * nldev would read the socket's file, which a kernel socket has not.
 * With it, nldev's admin check (RDMA_NL_ADMIN_PERM: CAP_NET_ADMIN, for a
 * bind or an unbind) is made against the sender's own capabilities, and
 * the sender is a kernel worker, which has them all (or, for the unbinds
 * as a device goes, whoever removes it or unloads fabtrace): every request
 * passes it, whoever's QP it is for, and an LSM's audit names the
 * kworker.  That is why binding is opt-in (hw.c, hw_bind).  One request
 * at a time: replies are matched by their sequence number.
 */
static struct socket *nl_sock;
static DEFINE_MUTEX(nl_lock);
static u32 nl_seq;
#define FT_NLDEV_BUF	(64 * 1024)
static void *nl_buf;

/**
 * ft_nldev_new() - start an nldev request
 * @cmd: RDMA_NLDEV_CMD_*
 * @flags: NLM_F_DUMP, or 0 for a do (an ack is asked for either way)
 *
 * Return: the request, to add attributes to and give ft_nldev_talk(), or NULL.
 */
struct sk_buff *ft_nldev_new(u32 cmd, u16 flags)
{
	struct sk_buff *skb = nlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);

	if (!skb)
		return NULL;
	if (!nlmsg_put(skb, 0, 0, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd), 0,
		       NLM_F_REQUEST | NLM_F_ACK | flags)) {
		nlmsg_free(skb);
		return NULL;
	}
	return skb;
}

/* Every message of @buf (@len bytes): to @cb, the end of the answer noted. */
static int walk(const void *buf, int len, u32 seq,
		int (*cb)(const struct nlmsghdr *nlh, void *arg), void *arg,
		bool *done)
{
	const struct nlmsghdr *nlh = buf;
	int err;

	for (; nlmsg_ok(nlh, len); nlh = nlmsg_next(nlh, &len)) {
		if (nlh->nlmsg_seq != seq)
			continue;		/* an answer to an earlier request */
		if (nlh->nlmsg_type == NLMSG_ERROR) {
			const struct nlmsgerr *e = nlmsg_data(nlh);

			if (nlh->nlmsg_len < nlmsg_msg_size(sizeof(*e)))
				return -EBADMSG;
			*done = true;
			return e->error;
		}
		if (nlh->nlmsg_type == NLMSG_DONE) {
			*done = true;
			if (nlh->nlmsg_len >= nlmsg_msg_size(sizeof(int)))
				return *(const int *)nlmsg_data(nlh);
			return 0;
		}
		if (cb) {
			err = cb(nlh, arg);
			if (err)
				return err;
		}
	}
	return 0;
}

/**
 * ft_nldev_talk() - send @req to nldev, hand each answer to @cb
 * @req: from ft_nldev_new(), consumed
 * @cb: gets each data message (not the ack or the dump's end); a non-zero
 *	return ends the exchange with it
 * @arg: its argument
 *
 * Context: process, may sleep; takes no lock of fabtrace's but its own.
 * Return: 0, nldev's error, or @cb's.
 */
int ft_nldev_talk(struct sk_buff *req, int (*cb)(const struct nlmsghdr *nlh, void *arg),
		  void *arg)
{
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };
	struct nlmsghdr *nlh = nlmsg_hdr(req);
	struct msghdr msg = {};
	struct kvec iov;
	bool done = false;
	int err, len;

	nlmsg_end(req, nlh);
	mutex_lock(&nl_lock);
	if (!nl_sock) {
		err = -ENOTCONN;
		goto out;
	}
	nlh->nlmsg_seq = ++nl_seq ?: ++nl_seq;
	msg.msg_name = &to;
	msg.msg_namelen = sizeof(to);
	iov.iov_base = req->data;
	iov.iov_len = req->len;
	err = kernel_sendmsg(nl_sock, &msg, &iov, 1, req->len);
	if (err < 0)
		goto out;
	err = 0;
	while (!done && !err) {
		memset(&msg, 0, sizeof(msg));
		iov.iov_base = nl_buf;
		iov.iov_len = FT_NLDEV_BUF;
		len = kernel_recvmsg(nl_sock, &msg, &iov, 1, FT_NLDEV_BUF, 0);
		if (len < 0) {
			err = len;
			break;
		}
		err = walk(nl_buf, len, nlh->nlmsg_seq, cb, arg, &done);
	}
	/* a callback that stopped a dump early: the rest is read and dropped */
	while (!done) {
		memset(&msg, 0, sizeof(msg));
		len = kernel_recvmsg(nl_sock, &msg, &iov, 1, FT_NLDEV_BUF, 0);
		if (len < 0 || walk(nl_buf, len, nlh->nlmsg_seq, NULL, NULL, &done))
			break;
	}
out:
	mutex_unlock(&nl_lock);
	nlmsg_free(req);
	return err;
}

int ft_nldev_init(void)
{
	struct socket *sock;
	int err;

	nl_buf = kvmalloc(FT_NLDEV_BUF, GFP_KERNEL);
	if (!nl_buf)
		return -ENOMEM;
	/* rdma devices are the initial namespace's in rdma's shared mode */
	err = sock_create_kern(&init_net, AF_NETLINK, SOCK_RAW, NETLINK_RDMA, &sock);
	if (err) {
		kvfree(nl_buf);
		return err;
	}
	/* a reply never waits long; one that does is lost, not waited for */
	sock->sk->sk_rcvtimeo = 10 * HZ;
	sock->sk->sk_rcvbuf = FT_NLDEV_BUF * 4;
	mutex_lock(&nl_lock);
	nl_sock = sock;
	mutex_unlock(&nl_lock);
	return 0;
}

void ft_nldev_exit(void)
{
	mutex_lock(&nl_lock);
	sock_release(nl_sock);
	nl_sock = NULL;
	mutex_unlock(&nl_lock);
	kvfree(nl_buf);
}
