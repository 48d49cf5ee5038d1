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
 * as fabtrace unloads, whoever unloads it): every request
 * passes it, whoever's QP it is for, and an LSM's audit names the
 * kworker.  That is why binding is opt-in (hw.c, hw_bind).  One request
 * at a time: replies are matched by their sequence number.
 *
 * nldev's dumps do not always end: an entry larger than a dump's message
 * (a counter set of some 2,500 QPs, each listed in it) is sent as an
 * empty part, again and again.  So an exchange has a deadline, and one
 * left unfinished (by it, or by a callback that saw no progress) closes
 * the socket, which ends nldev's dump, and opens another.  The deadline
 * bounds the waits, not nldev's own work in our calls: a port's counters
 * read in sendmsg() cost a firmware command a set and a counter.
 */
static struct socket *nl_sock;
static DEFINE_MUTEX(nl_lock);
static bool nl_up;		/* between init and exit */
static u32 nl_seq;
#define FT_NLDEV_BUF	(64 * 1024)
#define FT_NLDEV_TIME	(10 * HZ)	/* an exchange, at most */
static void *nl_buf;

/* Context: nl_lock. */
static int sock_open(void)
{
	struct socket *sock;
	int err;

	/* rdma devices are the initial namespace's in rdma's shared mode */
	err = sock_create_kern(&init_net, AF_NETLINK, SOCK_RAW, NETLINK_RDMA, &sock);
	if (err)
		return err;
	/* a reply never waits long; one that does is lost, not waited for */
	sock->sk->sk_rcvtimeo = FT_NLDEV_TIME;
	sock->sk->sk_rcvbuf = FT_NLDEV_BUF * 4;
	nl_sock = sock;
	return 0;
}

/* Context: nl_lock. */
static void sock_close(void)
{
	if (nl_sock)
		sock_release(nl_sock);
	nl_sock = NULL;
}

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
 *	return ends the exchange with it (-EFBIG: a dump that does not progress)
 * @arg: its argument
 *
 * Context: process, may sleep; takes no lock of fabtrace's but its own.
 * Return: 0, nldev's error, @cb's, or -ETIMEDOUT past FT_NLDEV_TIME.
 */
int ft_nldev_talk(struct sk_buff *req, int (*cb)(const struct nlmsghdr *nlh, void *arg),
		  void *arg)
{
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };
	struct nlmsghdr *nlh = nlmsg_hdr(req);
	unsigned long deadline;
	struct msghdr msg = {};
	struct kvec iov;
	bool done = false;
	int err, len;

	nlmsg_end(req, nlh);
	mutex_lock(&nl_lock);
	err = -ENOTCONN;
	if (!nl_up)
		goto out;
	/* one closed on an unfinished exchange and not opened again then */
	err = nl_sock ? 0 : sock_open();
	if (err)
		goto out;
	nlh->nlmsg_seq = ++nl_seq ?: ++nl_seq;
	msg.msg_name = &to;
	msg.msg_namelen = sizeof(to);
	iov.iov_base = req->data;
	iov.iov_len = req->len;
	/* nldev answers a do in this call, and a dump's first part */
	err = kernel_sendmsg(nl_sock, &msg, &iov, 1, req->len);
	if (err < 0)
		goto out;
	err = 0;
	deadline = jiffies + FT_NLDEV_TIME;
	while (!done && !err) {
		long left = deadline - jiffies;

		if (left <= 0) {
			err = -ETIMEDOUT;
			break;
		}
		WRITE_ONCE(nl_sock->sk->sk_rcvtimeo, left);
		memset(&msg, 0, sizeof(msg));
		iov.iov_base = nl_buf;
		iov.iov_len = FT_NLDEV_BUF;
		len = kernel_recvmsg(nl_sock, &msg, &iov, 1, FT_NLDEV_BUF, 0);
		if (len < 0) {
			/* no answer within the time left */
			err = len == -EAGAIN ? -ETIMEDOUT : len;
			break;
		}
		err = walk(nl_buf, len, nlh->nlmsg_seq, cb, arg, &done);
	}
	/*
	 * Stopped early (a callback, the deadline, a lost reply): what is
	 * left of the answer, if it ever ends, is not read but dropped with
	 * the socket, and a dump nldev runs for it ends with it.
	 */
	if (!done) {
		sock_close();
		sock_open();
	}
out:
	mutex_unlock(&nl_lock);
	nlmsg_free(req);
	return err;
}

int ft_nldev_init(void)
{
	int err;

	nl_buf = kvmalloc(FT_NLDEV_BUF, GFP_KERNEL);
	if (!nl_buf)
		return -ENOMEM;
	mutex_lock(&nl_lock);
	err = sock_open();
	nl_up = !err;
	mutex_unlock(&nl_lock);
	if (err)
		kvfree(nl_buf);
	return err;
}

void ft_nldev_exit(void)
{
	mutex_lock(&nl_lock);
	nl_up = false;
	sock_close();
	mutex_unlock(&nl_lock);
	kvfree(nl_buf);
}
