// SPDX-License-Identifier: GPL-2.0
/* The fabtrace generic netlink family: devices, QPs, statistics, events. */

#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/timekeeping.h>
#include <net/genetlink.h>
#include <rdma/ib_verbs.h>

#include "compat.h"
#include "dev.h"
#include "events.h"
#include "fabtrace-nl-gen.h"
#include "hook.h"
#include "netlink.h"
#include "qp.h"

/*
 * Entries keep CLOCK_MONOTONIC nanoseconds (what retain_ms and the event
 * intervals are measured in); userspace gets CLOCK_REALTIME.  One offset
 * read makes the same instant read the same in every reply.
 */
static u64 realtime_of(u64 mono_ns)
{
	return ktime_to_ns(ktime_mono_to_real(ns_to_ktime(mono_ns)));
}

static int put_u64(struct sk_buff *skb, int type, u64 val, int pad)
{
	return nla_put_u64_64bit(skb, type, val, pad);
}

static int put_traffic(struct sk_buff *skb, int type, u64 bytes,
		       const u64 *cls)
{
	/* the class of each attribute, in the UAPI's order */
	static const u8 attr_cls[FT_CLS_MAX] = {
		FT_CLS_SEND, FT_CLS_WRITE, FT_CLS_READ_REQ, FT_CLS_READ_RESP,
		FT_CLS_ATOMIC, FT_CLS_ACK, FT_CLS_NAK, FT_CLS_CNP, FT_CLS_OTHER,
	};
	struct nlattr *nest;
	unsigned int i;
	u64 packets = 0;

	for (i = 0; i < FT_CLS_MAX; i++)
		packets += cls[i];
	nest = nla_nest_start(skb, type);
	if (!nest)
		return -EMSGSIZE;
	if (put_u64(skb, FABTRACE_A_TRAFFIC_PACKETS, packets, FABTRACE_A_TRAFFIC_PAD) ||
	    put_u64(skb, FABTRACE_A_TRAFFIC_BYTES, bytes, FABTRACE_A_TRAFFIC_PAD))
		goto err_cancel;
	for (i = 0; i < FT_CLS_MAX; i++)
		if (put_u64(skb, FABTRACE_A_TRAFFIC_SEND + i, cls[attr_cls[i]],
			    FABTRACE_A_TRAFFIC_PAD))
			goto err_cancel;
	nla_nest_end(skb, nest);
	return 0;

err_cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

static int put_naks(struct sk_buff *skb, int type, const u64 *nak)
{
	struct nlattr *nest;
	unsigned int i;

	nest = nla_nest_start(skb, type);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < FT_NAK_MAX; i++)
		if (put_u64(skb, FABTRACE_A_NAK_PSN_SEQ + i, nak[i],
			    FABTRACE_A_NAK_PAD))
			goto err_cancel;
	nla_nest_end(skb, nest);
	return 0;

err_cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

static int put_cong(struct sk_buff *skb, int type, const struct ft_snap *s)
{
	const u64 counts[] = {
		s->retrans, s->timeouts, s->rnr_timeouts, s->rx_dup,
		s->rx_oos, s->retry_exh, s->errors,
	};
	struct nlattr *nest;
	unsigned int i;

	nest = nla_nest_start(skb, type);
	if (!nest)
		return -EMSGSIZE;
	if (put_u64(skb, FABTRACE_A_CONG_RX_ECT, s->rx_ect, FABTRACE_A_CONG_PAD) ||
	    put_u64(skb, FABTRACE_A_CONG_RX_CE, s->rx_ce, FABTRACE_A_CONG_PAD) ||
	    put_naks(skb, FABTRACE_A_CONG_TX_NAK, s->nak[FT_TX]) ||
	    put_naks(skb, FABTRACE_A_CONG_RX_NAK, s->nak[FT_RX]))
		goto err_cancel;
	for (i = 0; i < ARRAY_SIZE(counts); i++)
		if (put_u64(skb, FABTRACE_A_CONG_RETRANSMITS + i, counts[i],
			    FABTRACE_A_CONG_PAD))
			goto err_cancel;
	for (i = 0; i < FT_LAST_MAX; i++)
		if (s->last[i] &&
		    put_u64(skb, FABTRACE_A_CONG_LAST_CE + i,
			    realtime_of(s->last[i]), FABTRACE_A_CONG_PAD))
			goto err_cancel;
	nla_nest_end(skb, nest);
	return 0;

err_cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

static int put_counters(struct sk_buff *skb, const struct ft_snap *s,
			int tx, int rx, int cong)
{
	if (put_traffic(skb, tx, s->bytes[FT_TX], s->cls[FT_TX]) ||
	    put_traffic(skb, rx, s->bytes[FT_RX], s->cls[FT_RX]) ||
	    put_cong(skb, cong, s))
		return -EMSGSIZE;
	return 0;
}

/* --- devices ------------------------------------------------------------- */

static int put_port(struct sk_buff *skb, struct ib_device *ibdev, u32 port)
{
	struct ib_port_attr attr = {};
	struct net_device *ndev;
	struct nlattr *nest;
	int err;

	nest = nla_nest_start(skb, FABTRACE_A_DEV_PORT);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, FABTRACE_A_PORT_INDEX, port) ||
	    nla_put_u32(skb, FABTRACE_A_PORT_LINK_LAYER,
			rdma_port_get_link_layer(ibdev, port)))
		goto err_cancel;
	if (!ib_query_port(ibdev, port, &attr) &&
	    (nla_put_u32(skb, FABTRACE_A_PORT_STATE, attr.state) ||
	     nla_put_u32(skb, FABTRACE_A_PORT_PHYS_STATE, attr.phys_state) ||
	     nla_put_u32(skb, FABTRACE_A_PORT_ACTIVE_MTU,
			 ib_mtu_enum_to_int(attr.active_mtu))))
		goto err_cancel;

	err = 0;
	rcu_read_lock();
	ndev = rcu_dereference(ibdev->port_data[port].netdev);
	if (ndev)
		err = nla_put_string(skb, FABTRACE_A_PORT_NETDEV_NAME, ndev->name) ||
		      nla_put_u32(skb, FABTRACE_A_PORT_NETDEV_IFINDEX,
				  ndev->ifindex);
	rcu_read_unlock();
	if (err)
		goto err_cancel;
	nla_nest_end(skb, nest);
	return 0;

err_cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

static int dev_fill(struct sk_buff *skb, struct ft_dev *dev, u32 portid,
		    u32 seq, int flags)
{
	struct ft_dev_pcpu tot_buf, *tot = &tot_buf;
	char name[IB_DEVICE_NAME_MAX];
	u32 port, nr_live, nr_retired;
	void *hdr;

	ft_dev_totals(dev, tot);
	spin_lock(&dev->lock);
	memcpy(name, dev->name, sizeof(name));
	nr_live = dev->nr_live;
	nr_retired = dev->nr_retired;
	spin_unlock(&dev->lock);

	hdr = genlmsg_put(skb, portid, seq, &fabtrace_nl_family, flags,
			  FABTRACE_CMD_DEV_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, FABTRACE_A_DEV_INDEX, dev->index) ||
	    nla_put_string(skb, FABTRACE_A_DEV_NAME, name) ||
	    nla_put_string(skb, FABTRACE_A_DEV_DRIVER, dev->driver) ||
	    nla_put_be64(skb, FABTRACE_A_DEV_NODE_GUID, dev->ibdev->node_guid,
			 FABTRACE_A_DEV_PAD) ||
	    nla_put_u32(skb, FABTRACE_A_DEV_QPS, nr_live) ||
	    nla_put_u32(skb, FABTRACE_A_DEV_RETAINED, nr_retired) ||
	    put_traffic(skb, FABTRACE_A_DEV_TX, tot->bytes[FT_TX], tot->pkts[FT_TX]) ||
	    put_traffic(skb, FABTRACE_A_DEV_RX, tot->bytes[FT_RX], tot->pkts[FT_RX]) ||
	    put_u64(skb, FABTRACE_A_DEV_UNKNOWN_TX, tot->unknown[FT_TX],
		    FABTRACE_A_DEV_PAD) ||
	    put_u64(skb, FABTRACE_A_DEV_UNKNOWN_RX, tot->unknown[FT_RX],
		    FABTRACE_A_DEV_PAD) ||
	    put_u64(skb, FABTRACE_A_DEV_MALFORMED, tot->malformed,
		    FABTRACE_A_DEV_PAD) ||
	    nla_put_u8(skb, FABTRACE_A_DEV_HOOKED,
		       dev->hooked && ft_hook_rxe_attached()))
		goto err_cancel;
	rdma_for_each_port(dev->ibdev, port)
		if (put_port(skb, dev->ibdev, port))
			goto err_cancel;
	genlmsg_end(skb, hdr);
	return 0;

err_cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/* Resolve the device a request names by index or name (either, or both). */
static struct ft_dev *req_dev(struct nlattr **tb, int a_index, int a_name,
			      struct netlink_ext_ack *extack)
{
	struct ft_dev *dev;
	const char *name = tb[a_name] ? nla_data(tb[a_name]) : NULL;
	u32 index = tb[a_index] ? nla_get_u32(tb[a_index]) : 0;

	dev = ft_dev_get(index, name, false);
	if (!dev) {
		NL_SET_ERR_MSG_ATTR(extack, tb[a_name] ?: tb[a_index],
				    "no such RDMA device");
		return ERR_PTR(-ENODEV);
	}
	if (tb[a_name] && tb[a_index] && dev->index != index) {
		ft_dev_put(dev);
		NL_SET_ERR_MSG_ATTR(extack, tb[a_index],
				    "device index and name do not match");
		return ERR_PTR(-EINVAL);
	}
	return dev;
}

int fabtrace_nl_dev_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ft_dev *dev;
	struct sk_buff *msg;
	int err;

	if (!info->attrs[FABTRACE_A_DEV_INDEX] && !info->attrs[FABTRACE_A_DEV_NAME]) {
		NL_SET_ERR_MSG(info->extack, "missing device index or name");
		return -EINVAL;
	}
	dev = req_dev(info->attrs, FABTRACE_A_DEV_INDEX, FABTRACE_A_DEV_NAME,
		      info->extack);
	if (IS_ERR(dev))
		return PTR_ERR(dev);

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg) {
		err = -ENOMEM;
		goto err_put_dev;
	}
	err = dev_fill(msg, dev, info->snd_portid, info->snd_seq, 0);
	if (err)
		goto err_free_msg;
	ft_dev_put(dev);
	return genlmsg_reply(msg, info);

err_free_msg:
	nlmsg_free(msg);
err_put_dev:
	ft_dev_put(dev);
	return err;
}

struct ft_dev_dump_ctx {
	u32 next_index;
};

int fabtrace_nl_dev_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct ft_dev_dump_ctx *ctx = (void *)cb->ctx;
	struct nlattr **tb = ft_dump_attrs(cb);
	struct ft_dev *dev;
	int err = 0;

	BUILD_BUG_ON(sizeof(*ctx) > sizeof(cb->ctx));
	while ((dev = ft_dev_get(ctx->next_index, NULL, true))) {
		bool match = (!tb[FABTRACE_A_DEV_INDEX] ||
			      nla_get_u32(tb[FABTRACE_A_DEV_INDEX]) == dev->index) &&
			     (!tb[FABTRACE_A_DEV_NAME] ||
			      !nla_strcmp(tb[FABTRACE_A_DEV_NAME], dev->name));

		if (match)
			err = dev_fill(skb, dev, NETLINK_CB(cb->skb).portid,
				       cb->nlh->nlmsg_seq, NLM_F_MULTI);
		if (!err)
			ctx->next_index = dev->index + 1;
		ft_dev_put(dev);
		if (err)
			break;
	}
	/* A device that did not fit resumes the next dump; others ended it. */
	return err == -EMSGSIZE && skb->len ? skb->len : err;
}

/* --- QPs ----------------------------------------------------------------- */

/* What a reader may see: rdma's own rule for restrack resources. */
static bool qp_visible(const struct ft_qp *qp, struct pid_namespace *ns)
{
	if (ns == &init_pid_ns)
		return true;
	return qp->owner && pid_nr_ns(qp->owner, ns);
}

struct qp_filter {
	struct pid_namespace *ns;
	u32 qpn_min, qpn_max;
	u32 pid;
	u32 type;
	u32 state;
	u32 flags;
	bool has_pid, has_type, has_state;
};

static u32 qp_flags(const struct ft_qp *qp)
{
	u32 flags = READ_ONCE(qp->flags) & FT_QP_UAPI_FLAGS;

	if (ft_qp_congested(qp))
		flags |= FT_QP_CONGESTED;
	return flags;
}

static bool qp_match(const struct ft_qp *qp, const struct qp_filter *f)
{
	/* given up for a live QP: no longer counted, so no longer shown */
	if (READ_ONCE(qp->flags) & FT_QP_EVICTED)
		return false;
	if (!qp_visible(qp, f->ns))
		return false;
	if (qp->qpn < f->qpn_min || qp->qpn > f->qpn_max)
		return false;
	if (f->has_type && qp->type != f->type)
		return false;
	if (f->has_state && READ_ONCE(qp->state) != f->state)
		return false;
	if (f->has_pid && (!qp->owner || pid_nr_ns(qp->owner, f->ns) != f->pid))
		return false;
	if (f->flags && (qp_flags(qp) & f->flags) != f->flags)
		return false;
	return true;
}

/* Copy a device's name, which a rename may change under us. */
static void dev_name_copy(struct ft_dev *dev, char *name)
{
	spin_lock(&dev->lock);
	memcpy(name, dev->name, IB_DEVICE_NAME_MAX);
	spin_unlock(&dev->lock);
}

/* Fill one QP; @cb is the dump's, to flag it interrupted, or NULL. */
static int qp_fill(struct sk_buff *skb, const struct ft_dev *dev,
		   const struct ft_qp *qp, const char *dev_name,
		   struct pid_namespace *ns, u32 portid, u32 seq,
		   struct netlink_callback *cb)
{
	static const u8 zero[16];
	struct ft_snap snap, *s = &snap;
	u32 qflags = qp_flags(qp);
	void *hdr;

	ft_snap_take(qp, s);
	hdr = genlmsg_put(skb, portid, seq, &fabtrace_nl_family,
			  cb ? NLM_F_MULTI : 0, FABTRACE_CMD_QP_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (cb)
		genl_dump_check_consistent(cb, hdr);
	if (nla_put_u32(skb, FABTRACE_A_QP_DEV_INDEX, dev->index) ||
	    nla_put_string(skb, FABTRACE_A_QP_DEV_NAME, dev_name) ||
	    nla_put_u32(skb, FABTRACE_A_QP_QPN, qp->qpn) ||
	    nla_put_u32(skb, FABTRACE_A_QP_TYPE, qp->type) ||
	    nla_put_u32(skb, FABTRACE_A_QP_STATE, READ_ONCE(qp->state)) ||
	    nla_put_u32(skb, FABTRACE_A_QP_PORT, qp->port) ||
	    nla_put_u32(skb, FABTRACE_A_QP_TCLASS, READ_ONCE(qp->tclass)) ||
	    nla_put_u32(skb, FABTRACE_A_QP_SL, READ_ONCE(qp->sl)) ||
	    nla_put_u32(skb, FABTRACE_A_QP_PID,
			qp->owner ? pid_nr_ns(qp->owner, ns) : 0) ||
	    nla_put_string(skb, FABTRACE_A_QP_COMM, qp->comm) ||
	    put_u64(skb, FABTRACE_A_QP_CREATE_TIME, realtime_of(qp->ctime),
		    FABTRACE_A_QP_PAD) ||
	    nla_put_u32(skb, FABTRACE_A_QP_FLAGS, qflags))
		goto err_cancel;
	if (READ_ONCE(qp->rqpn) &&
	    nla_put_u32(skb, FABTRACE_A_QP_REMOTE_QPN, READ_ONCE(qp->rqpn)))
		goto err_cancel;
	if (memcmp(qp->peer, zero, sizeof(zero)) &&
	    nla_put(skb, FABTRACE_A_QP_PEER_ADDR, sizeof(qp->peer), qp->peer))
		goto err_cancel;
	if ((qflags & FT_QP_DESTROYED) &&
	    put_u64(skb, FABTRACE_A_QP_DESTROY_TIME, realtime_of(qp->dtime),
		    FABTRACE_A_QP_PAD))
		goto err_cancel;
	if (put_counters(skb, s, FABTRACE_A_QP_TX, FABTRACE_A_QP_RX,
			 FABTRACE_A_QP_CONG))
		goto err_cancel;
	genlmsg_end(skb, hdr);
	return 0;

err_cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/*
 * QP numbers are 24 bits.  The policy cannot say so on 6.1 without a
 * range table, so the handlers do.  @tb holds @maxattr + 1 entries: the
 * operation's policy decides how many.
 */
static int check_qpns(struct nlattr **tb, int maxattr,
		      struct netlink_ext_ack *extack)
{
	static const int attrs[] = {
		FABTRACE_A_QP_QPN, FABTRACE_A_QP_QPN_MIN, FABTRACE_A_QP_QPN_MAX,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(attrs) && attrs[i] <= maxattr; i++) {
		if (tb[attrs[i]] && nla_get_u32(tb[attrs[i]]) > 0xffffff) {
			NL_SET_ERR_MSG_ATTR(extack, tb[attrs[i]],
					    "QP numbers are 24 bits");
			return -EINVAL;
		}
	}
	return 0;
}

static const int qp_dump_only[] = {
	FABTRACE_A_QP_QPN_MIN, FABTRACE_A_QP_QPN_MAX, FABTRACE_A_QP_PID,
	FABTRACE_A_QP_TYPE, FABTRACE_A_QP_STATE, FABTRACE_A_QP_MATCH_FLAGS,
};

/* The newest entry for @qpn: the live one, else the last destroyed one. */
static struct ft_qp *qp_lookup(struct ft_dev *dev, u32 qpn)
{
	struct ft_qp *qp, *found;

	found = ft_qpidx_find(dev->idx, qpn);
	if (found)
		return found;
	for (qp = ft_retired_first(dev); qp; qp = ft_retired_next(qp))
		if (qp->qpn == qpn && !(READ_ONCE(qp->flags) & FT_QP_EVICTED))
			found = qp;
	return found;
}

int fabtrace_nl_qp_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **tb = info->attrs;
	struct pid_namespace *ns = task_active_pid_ns(current);
	char name[IB_DEVICE_NAME_MAX];
	struct sk_buff *msg;
	struct ft_dev *dev;
	struct ft_qp *qp;
	unsigned int i;
	int err;

	if (check_qpns(tb, FABTRACE_A_QP_MATCH_FLAGS, info->extack))
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(qp_dump_only); i++) {
		if (tb[qp_dump_only[i]]) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[qp_dump_only[i]],
					    "filter valid only in a dump");
			return -EINVAL;
		}
	}
	if (!tb[FABTRACE_A_QP_DEV_INDEX] && !tb[FABTRACE_A_QP_DEV_NAME]) {
		NL_SET_ERR_MSG(info->extack, "missing device index or name");
		return -EINVAL;
	}
	if (GENL_REQ_ATTR_CHECK(info, FABTRACE_A_QP_QPN)) {
		NL_SET_ERR_MSG(info->extack, "missing QP number");
		return -EINVAL;
	}

	dev = req_dev(tb, FABTRACE_A_QP_DEV_INDEX, FABTRACE_A_QP_DEV_NAME,
		      info->extack);
	if (IS_ERR(dev))
		return PTR_ERR(dev);

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg) {
		err = -ENOMEM;
		goto err_put_dev;
	}
	dev_name_copy(dev, name);
	rcu_read_lock();
	qp = qp_lookup(dev, nla_get_u32(tb[FABTRACE_A_QP_QPN]));
	if (qp && qp_visible(qp, ns))
		err = qp_fill(msg, dev, qp, name, ns, info->snd_portid,
			      info->snd_seq, NULL);
	else
		err = -ENOENT;
	rcu_read_unlock();
	if (err == -ENOENT)
		NL_SET_ERR_MSG_ATTR(info->extack, tb[FABTRACE_A_QP_QPN],
				    "no such QP");
	if (err)
		goto err_free_msg;
	ft_dev_put(dev);
	return genlmsg_reply(msg, info);

err_free_msg:
	nlmsg_free(msg);
err_put_dev:
	ft_dev_put(dev);
	return err;
}

/*
 * A QP dump walks devices by index, then each device's live QPs by number,
 * then its destroyed QPs oldest first; it resumes from where the previous
 * message filled up.  Entries come and go meanwhile: the generation
 * counter in cb->seq flags such dumps NLM_F_DUMP_INTR.
 */
/* cb->seq of a dump; netlink ignores a 0, so the generation never gives one */
static u32 dump_generation(void)
{
	return atomic_read(&ft_qp_stats.generation) ?: 1;
}

struct ft_qp_dump_ctx {
	u32 dev_index;
	u32 qpn;		/* next live QP number to look at */
	u32 retired;		/* destroyed entries already dumped */
	u8 phase;		/* 0: live, 1: destroyed */
};

static int qp_dump_dev(struct sk_buff *skb, struct netlink_callback *cb,
		       struct ft_dev *dev, const struct qp_filter *f,
		       struct ft_qp_dump_ctx *ctx)
{
	u32 portid = NETLINK_CB(cb->skb).portid, seq = cb->nlh->nlmsg_seq;
	char name[IB_DEVICE_NAME_MAX];
	struct ft_qp *qp;
	u32 n = 0, qpn;
	int err = 0;

	dev_name_copy(dev, name);
	rcu_read_lock();
	if (ctx->phase == 0) {
		if (ctx->qpn < f->qpn_min)
			ctx->qpn = f->qpn_min;
		for (qpn = ctx->qpn; qpn <= f->qpn_max; qpn++) {
			const struct ft_leaf *leaf;

			leaf = rcu_dereference(dev->idx->root[qpn >> FT_LEAF_BITS]);
			if (leaf == &ft_leaf_none) {
				qpn |= FT_LEAF_SIZE - 1;	/* skip the range */
				continue;
			}
			qp = rcu_dereference(leaf->slot[qpn & (FT_LEAF_SIZE - 1)]);
			if (!qp || !qp_match(qp, f))
				continue;
			err = qp_fill(skb, dev, qp, name, f->ns, portid, seq, cb);
			if (err)
				break;
		}
		ctx->qpn = qpn;
		if (err)
			goto out;
		ctx->phase = 1;
		ctx->retired = 0;
	}
	for (qp = ft_retired_first(dev); qp; qp = ft_retired_next(qp)) {
		if (n++ < ctx->retired || !qp_match(qp, f))
			continue;
		err = qp_fill(skb, dev, qp, name, f->ns, portid, seq, cb);
		if (err) {
			n--;
			break;
		}
	}
	ctx->retired = n;
out:
	rcu_read_unlock();
	return err;
}

int fabtrace_nl_qp_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct ft_qp_dump_ctx *ctx = (void *)cb->ctx;
	struct nlattr **tb = ft_dump_attrs(cb);
	struct qp_filter f = {
		.ns = task_active_pid_ns(current),
		.qpn_max = 0xffffff,
	};
	const char *name = NULL;
	struct ft_dev *dev;
	u32 index;
	int err = 0;

	BUILD_BUG_ON(sizeof(*ctx) > sizeof(cb->ctx));
	err = check_qpns(tb, FABTRACE_A_QP_MATCH_FLAGS, cb->extack);
	if (err)
		return err;
	if (tb[FABTRACE_A_QP_QPN]) {
		f.qpn_min = nla_get_u32(tb[FABTRACE_A_QP_QPN]);
		f.qpn_max = f.qpn_min;
	}
	if (tb[FABTRACE_A_QP_QPN_MIN])
		f.qpn_min = max(f.qpn_min, nla_get_u32(tb[FABTRACE_A_QP_QPN_MIN]));
	if (tb[FABTRACE_A_QP_QPN_MAX])
		f.qpn_max = min(f.qpn_max, nla_get_u32(tb[FABTRACE_A_QP_QPN_MAX]));
	if (tb[FABTRACE_A_QP_PID]) {
		f.has_pid = true;
		f.pid = nla_get_u32(tb[FABTRACE_A_QP_PID]);
	}
	if (tb[FABTRACE_A_QP_TYPE]) {
		f.has_type = true;
		f.type = nla_get_u32(tb[FABTRACE_A_QP_TYPE]);
	}
	if (tb[FABTRACE_A_QP_STATE]) {
		f.has_state = true;
		f.state = nla_get_u32(tb[FABTRACE_A_QP_STATE]);
	}
	if (tb[FABTRACE_A_QP_MATCH_FLAGS])
		f.flags = nla_get_u32(tb[FABTRACE_A_QP_MATCH_FLAGS]);
	if (tb[FABTRACE_A_QP_DEV_NAME])
		name = nla_data(tb[FABTRACE_A_QP_DEV_NAME]);

	cb->seq = dump_generation();
	while ((dev = ft_dev_get(ctx->dev_index, NULL, true))) {
		bool match = (!tb[FABTRACE_A_QP_DEV_INDEX] ||
			      nla_get_u32(tb[FABTRACE_A_QP_DEV_INDEX]) == dev->index) &&
			     (!name || !strcmp(name, dev->name));

		if (dev->index != ctx->dev_index) {
			/* the device we stopped in is gone: start this one */
			memset(ctx, 0, sizeof(*ctx));
			ctx->dev_index = dev->index;
		}
		if (match)
			err = qp_dump_dev(skb, cb, dev, &f, ctx);
		index = dev->index;
		ft_dev_put(dev);
		if (err)
			break;
		memset(ctx, 0, sizeof(*ctx));
		ctx->dev_index = index + 1;
	}
	/*
	 * Sampled again at the end, so that a change during the last part
	 * (a QP destroyed after its live entry was sent, and sent again as
	 * retired) flags the NLMSG_DONE that follows, even in a one-part dump.
	 */
	cb->seq = dump_generation();
	return err == -EMSGSIZE && skb->len ? skb->len : err;
}

static void reset_dev(struct ft_dev *dev, const u32 *qpn)
{
	struct ft_qp *qp;
	u32 i;

	rcu_read_lock();
	for (i = qpn ? *qpn : 0; i <= (qpn ? *qpn : 0xffffff); i++) {
		const struct ft_leaf *leaf;

		leaf = rcu_dereference(dev->idx->root[i >> FT_LEAF_BITS]);
		if (leaf == &ft_leaf_none) {
			i |= FT_LEAF_SIZE - 1;
			continue;
		}
		qp = rcu_dereference(leaf->slot[i & (FT_LEAF_SIZE - 1)]);
		if (qp)
			ft_qp_reset(qp);
	}
	for (qp = ft_retired_first(dev); qp; qp = ft_retired_next(qp))
		if (!qpn || qp->qpn == *qpn)
			ft_qp_reset(qp);
	rcu_read_unlock();
}

int fabtrace_nl_qp_reset_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **tb = info->attrs;
	struct ft_dev *dev;
	u32 qpn, index = 0;

	if (check_qpns(tb, FABTRACE_A_QP_QPN, info->extack))
		return -EINVAL;
	if (tb[FABTRACE_A_QP_QPN] && !tb[FABTRACE_A_QP_DEV_INDEX] &&
	    !tb[FABTRACE_A_QP_DEV_NAME]) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[FABTRACE_A_QP_QPN],
				    "a QP number needs a device");
		return -EINVAL;
	}
	if (tb[FABTRACE_A_QP_DEV_INDEX] || tb[FABTRACE_A_QP_DEV_NAME]) {
		dev = req_dev(tb, FABTRACE_A_QP_DEV_INDEX,
			      FABTRACE_A_QP_DEV_NAME, info->extack);
		if (IS_ERR(dev))
			return PTR_ERR(dev);
		if (tb[FABTRACE_A_QP_QPN]) {
			qpn = nla_get_u32(tb[FABTRACE_A_QP_QPN]);
			rcu_read_lock();
			if (!qp_lookup(dev, qpn)) {
				rcu_read_unlock();
				ft_dev_put(dev);
				NL_SET_ERR_MSG_ATTR(info->extack,
						    tb[FABTRACE_A_QP_QPN],
						    "no such QP");
				return -ENOENT;
			}
			rcu_read_unlock();
			reset_dev(dev, &qpn);
		} else {
			reset_dev(dev, NULL);
		}
		ft_dev_put(dev);
		return 0;
	}
	while ((dev = ft_dev_get(index, NULL, true))) {
		reset_dev(dev, NULL);
		index = dev->index + 1;
		ft_dev_put(dev);
	}
	return 0;
}

/* --- statistics ---------------------------------------------------------- */

int fabtrace_nl_stats_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ft_dev_pcpu tot;
	struct sk_buff *msg;
	struct ft_dev *dev;
	u64 malformed = 0, unknown = 0, index_bytes = 0;
	int live;
	u32 index = 0;
	void *hdr;

	while ((dev = ft_dev_get(index, NULL, true))) {
		ft_dev_totals(dev, &tot);
		malformed += tot.malformed;
		unknown += tot.unknown[FT_TX] + tot.unknown[FT_RX];
		index_bytes += sizeof(*dev->idx) +
			       (u64)READ_ONCE(dev->nr_leaves) * sizeof(struct ft_leaf);
		index = dev->index + 1;
		ft_dev_put(dev);
	}

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &fabtrace_nl_family, 0,
				FABTRACE_CMD_STATS_GET);
	if (!hdr)
		goto err_free_msg;
	/* two reads apart: a QP destroyed between them must not wrap it */
	live = atomic_read(&ft_qp_stats.entries) -
	       atomic_read(&ft_qp_stats.retained);
	if (nla_put_u32(msg, FABTRACE_A_STATS_QPS, max(live, 0)) ||
	    nla_put_u32(msg, FABTRACE_A_STATS_RETAINED,
			atomic_read(&ft_qp_stats.retained)) ||
	    nla_put_u32(msg, FABTRACE_A_STATS_MAX_QPS, READ_ONCE(ft_max_qps)) ||
	    nla_put_u32(msg, FABTRACE_A_STATS_RETAIN_MS, READ_ONCE(ft_retain_ms)) ||
	    nla_put_u32(msg, FABTRACE_A_STATS_ENTRY_SIZE, ft_qp_entry_size()) ||
	    put_u64(msg, FABTRACE_A_STATS_OVERFLOW,
		    atomic64_read(&ft_qp_stats.overflow), FABTRACE_A_STATS_PAD) ||
	    put_u64(msg, FABTRACE_A_STATS_ALLOC_FAIL,
		    atomic64_read(&ft_qp_stats.alloc_fail), FABTRACE_A_STATS_PAD) ||
	    put_u64(msg, FABTRACE_A_STATS_MALFORMED, malformed,
		    FABTRACE_A_STATS_PAD) ||
	    put_u64(msg, FABTRACE_A_STATS_UNKNOWN, unknown, FABTRACE_A_STATS_PAD) ||
	    put_u64(msg, FABTRACE_A_STATS_HOOK_MISSED, ft_hook_missed(),
		    FABTRACE_A_STATS_PAD) ||
	    put_u64(msg, FABTRACE_A_STATS_EVENTS_SENT,
		    atomic64_read(&ft_ev_stats.sent), FABTRACE_A_STATS_PAD) ||
	    put_u64(msg, FABTRACE_A_STATS_EVENTS_SUPPRESSED,
		    atomic64_read(&ft_ev_stats.suppressed), FABTRACE_A_STATS_PAD) ||
	    put_u64(msg, FABTRACE_A_STATS_EVENTS_LOST,
		    atomic64_read(&ft_ev_stats.lost), FABTRACE_A_STATS_PAD) ||
	    nla_put_u32(msg, FABTRACE_A_STATS_GENERATION,
			atomic_read(&ft_qp_stats.generation)) ||
	    put_u64(msg, FABTRACE_A_STATS_INDEX_BYTES, index_bytes,
		    FABTRACE_A_STATS_PAD) ||
	    put_u64(msg, FABTRACE_A_STATS_EVICTED,
		    atomic64_read(&ft_qp_stats.evicted), FABTRACE_A_STATS_PAD))
		goto err_free_msg;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_free_msg:
	nlmsg_free(msg);
	return -EMSGSIZE;
}

/* --- events -------------------------------------------------------------- */

static atomic64_t ev_seq;

/**
 * ft_nl_notify() - send one event to the events group
 * @e: the event
 *
 * Context: process.
 * Return: 1 if sent, 0 if nobody listens, or a negative error.
 */
int ft_nl_notify(const struct ft_event *e)
{
	static const u8 zero[16];
	struct sk_buff *skb;
	void *hdr;
	int err;

	if (!genl_has_listeners(&fabtrace_nl_family, &init_net,
				FABTRACE_NLGRP_EVENTS))
		return 0;
	skb = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!skb)
		return -ENOMEM;
	hdr = genlmsg_put(skb, 0, 0, &fabtrace_nl_family, 0,
			  FABTRACE_CMD_QP_EVENT);
	if (!hdr)
		goto err_free;
	if (put_u64(skb, FABTRACE_A_EVENT_SEQ, atomic64_inc_return(&ev_seq),
		    FABTRACE_A_EVENT_PAD) ||
	    nla_put_u32(skb, FABTRACE_A_EVENT_KIND, e->kind) ||
	    put_u64(skb, FABTRACE_A_EVENT_TIME, realtime_of(e->time),
		    FABTRACE_A_EVENT_PAD) ||
	    put_u64(skb, FABTRACE_A_EVENT_COUNT, e->count, FABTRACE_A_EVENT_PAD))
		goto err_free;
	if (e->kind != FABTRACE_EVENT_KIND_DROPPED &&
	    (nla_put_u32(skb, FABTRACE_A_EVENT_DEV_INDEX, e->dev_index) ||
	     nla_put_string(skb, FABTRACE_A_EVENT_DEV_NAME, e->dev_name) ||
	     nla_put_u32(skb, FABTRACE_A_EVENT_QPN, e->qpn) ||
	     nla_put_u32(skb, FABTRACE_A_EVENT_PID, e->pid) ||
	     nla_put_string(skb, FABTRACE_A_EVENT_COMM, e->comm) ||
	     put_u64(skb, FABTRACE_A_EVENT_SUPPRESSED, e->suppressed,
		     FABTRACE_A_EVENT_PAD)))
		goto err_free;
	if (e->rqpn && nla_put_u32(skb, FABTRACE_A_EVENT_REMOTE_QPN, e->rqpn))
		goto err_free;
	if (memcmp(e->peer, zero, sizeof(zero)) &&
	    nla_put(skb, FABTRACE_A_EVENT_PEER_ADDR, sizeof(e->peer), e->peer))
		goto err_free;
	if (e->has_snap &&
	    put_counters(skb, &e->snap, FABTRACE_A_EVENT_TX, FABTRACE_A_EVENT_RX,
			 FABTRACE_A_EVENT_CONG))
		goto err_free;
	genlmsg_end(skb, hdr);
	err = genlmsg_multicast(&fabtrace_nl_family, skb, 0,
				FABTRACE_NLGRP_EVENTS, GFP_KERNEL);
	if (err == -ESRCH)
		return 0;
	/*
	 * A listener whose socket is full misses this one, and only that
	 * listener: it gets ENOBUFS and sees the gap in the sequence numbers.
	 * The event was sent; counting it lost would tell every other
	 * listener that it missed something it received.
	 */
	if (err == -ENOBUFS)
		err = 0;
	return err ? err : 1;

err_free:
	nlmsg_free(skb);
	return -EMSGSIZE;
}

#ifdef FT_GENL_MERGE_OPS
static struct genl_ops merged_ops[8];

/* Linux 6.1: one genl_ops per command, holding both do and dump. */
static int merge_ops(void)
{
	const struct genl_ops *in = fabtrace_nl_family.ops;
	unsigned int i, j, n = 0;
	struct genl_ops *m;

	for (i = 0; i < fabtrace_nl_family.n_ops; i++) {
		for (j = 0; j < n; j++)
			if (merged_ops[j].cmd == in[i].cmd)
				break;
		m = &merged_ops[j];
		if (j == n) {
			if (n == ARRAY_SIZE(merged_ops))
				return -E2BIG;
			*m = in[i];
			n++;
		} else {
			if (m->maxattr != in[i].maxattr ||
			    (m->policy && memcmp(m->policy, in[i].policy,
						 (m->maxattr + 1) * sizeof(*m->policy))))
				return -EINVAL;
			m->doit = m->doit ?: in[i].doit;
			m->dumpit = m->dumpit ?: in[i].dumpit;
			m->flags |= in[i].flags;
		}
		m->flags &= ~(GENL_CMD_CAP_DO | GENL_CMD_CAP_DUMP);
	}
	fabtrace_nl_family.ops = merged_ops;
	fabtrace_nl_family.n_ops = n;
	return 0;
}
#else
static int merge_ops(void)
{
	return 0;
}
#endif

/*
 * The generated group, with the flag the spec gives it and the generator
 * drops: events carry every tenant's PIDs, commands and peers, where the
 * dumps show a reader only its own PID namespace's QPs.
 */
static const struct genl_multicast_group mcgrps[] = {
	[FABTRACE_NLGRP_EVENTS] = { .name = "events",
				    .flags = GENL_MCAST_CAP_NET_ADMIN },
};

int ft_nl_init(void)
{
	int err;

	BUILD_BUG_ON(FT_QP_DESTROYED != FABTRACE_QP_FLAGS_DESTROYED);
	BUILD_BUG_ON(FT_QP_KERNEL != FABTRACE_QP_FLAGS_KERNEL);
	BUILD_BUG_ON(FT_QP_DISCOVERED != FABTRACE_QP_FLAGS_DISCOVERED);
	BUILD_BUG_ON(FT_QP_CONGESTED != FABTRACE_QP_FLAGS_CONGESTED);
	BUILD_BUG_ON(FABTRACE_A_TRAFFIC_OTHER - FABTRACE_A_TRAFFIC_SEND !=
		     FT_CLS_MAX - 1);
	BUILD_BUG_ON(FABTRACE_A_NAK_OTHER - FABTRACE_A_NAK_PSN_SEQ !=
		     FT_NAK_MAX - 1);
	BUILD_BUG_ON(FABTRACE_A_CONG_ERRORS - FABTRACE_A_CONG_RETRANSMITS != 6);
	BUILD_BUG_ON(FABTRACE_A_CONG_LAST_RNR_TIMEOUT - FABTRACE_A_CONG_LAST_CE !=
		     FT_LAST_RNR_TIMEOUT - FT_LAST_CE);

	err = merge_ops();
	if (err)
		return err;
	if (WARN_ON(fabtrace_nl_family.n_mcgrps != ARRAY_SIZE(mcgrps)))
		return -EINVAL;
	fabtrace_nl_family.mcgrps = mcgrps;
	return genl_register_family(&fabtrace_nl_family);
}

void ft_nl_exit(void)
{
	genl_unregister_family(&fabtrace_nl_family);
}
