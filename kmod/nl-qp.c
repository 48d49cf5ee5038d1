// SPDX-License-Identifier: GPL-2.0
/* Netlink: QP entries (qp-get do and dump, qp-reset). */

#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <net/genetlink.h>

#include "compat.h"
#include "dev.h"
#include "fabtrace-nl-gen.h"
#include "nl.h"
#include "pfc.h"
#include "qp.h"
#include "tap.h"

/* --- QPs ----------------------------------------------------------------- */

/*
 * The path of the last cgroup a reply named: a job's QPs share theirs, and
 * a path costs a lookup and a walk up the tree.
 */
struct cg_cache {
	u64 id;
	int len;			/* < 0: no path (gone, or not visible) */
	bool all;			/* reader sees every cgroup */
	char path[PATH_MAX];
};

struct qp_filter {
	struct pid_namespace *ns;
	u32 qpn_min, qpn_max;
	u32 pid;
	u32 type;
	u32 state;
	u32 flags;
	bool has_pid, has_type, has_state;
	struct cg_cache *cg;		/* NULL: no memory for paths */
};

static u32 qp_flags(const struct ft_dev *dev, const struct ft_qp *qp)
{
	u32 flags = READ_ONCE(qp->flags) & FT_QP_UAPI_FLAGS;

	if (ft_qp_congested(qp))
		flags |= FT_QP_CONGESTED;
	/* a destroyed QP sends nothing: its traffic class goes against nothing */
	if (!(flags & FT_QP_DESTROYED) && ft_qp_misconfigured_now(dev, qp))
		flags |= FT_QP_MISCONFIGURED;
	return flags;
}

static bool qp_match(const struct ft_dev *dev, const struct ft_qp *qp,
		     const struct qp_filter *f)
{
	/* given up for a live QP: no longer counted, so no longer shown */
	if (READ_ONCE(qp->flags) & FT_QP_EVICTED)
		return false;
	if (!ft_qp_visible(qp, f->ns))
		return false;
	if (qp->qpn < f->qpn_min || qp->qpn > f->qpn_max)
		return false;
	if (f->has_type && qp->type != f->type)
		return false;
	if (f->has_state && READ_ONCE(qp->state) != f->state)
		return false;
	if (f->has_pid && (!qp->owner || pid_nr_ns(qp->owner, f->ns) != f->pid))
		return false;
	if (f->flags && (qp_flags(dev, qp) & f->flags) != f->flags)
		return false;
	return true;
}

/*
 * A user QP's cgroup: its id, and its path as the reader's cgroup
 * namespace sees it, if the cgroup still exists and lies in it.  Context:
 * RCU read side: cgroup_path_ns() takes the cgroup mutex, so the path
 * comes from kernfs, below the namespace's root, as it builds it.
 */
static int put_cgroup(struct sk_buff *skb, u64 id, struct cg_cache *cg)
{
#ifdef CONFIG_CGROUPS
	struct cgroup *cgrp, *top = NULL;

	if (!id || !cg)
		return 0;
	if (cg->id != id) {
		cg->id = id;
		cg->len = -1;
		if (current->nsproxy)
			top = current->nsproxy->cgroup_ns->root_cset->dfl_cgrp;
		/* found only in the reader's cgroup namespace, which it reads */
		cgrp = top ? cgroup_get_from_id(id) : ERR_PTR(-ENOENT);
		if (!IS_ERR(cgrp)) {
			cg->len = kernfs_path_from_node(cgrp->kn, top->kn, cg->path,
							sizeof(cg->path));
			cgroup_put(cgrp);
		}
		/* rooted at the hierarchy's top: sees every cgroup, gone ones too */
		cg->all = top && !cgroup_parent(top);
		/* 6.12's kernfs cuts a path short without saying: one that fills it is */
		if (cg->len >= (int)sizeof(cg->path) - 1)
			cg->len = -1;
	}
	/*
	 * The id too only for a cgroup the reader's namespace holds: a reader
	 * in another cgroup namespace learns nothing of it.
	 */
	if ((cg->len >= 0 || cg->all) &&
	    ft_nl_put_u64(skb, FABTRACE_A_QP_CGROUP_ID, id, FABTRACE_A_QP_PAD))
		return -EMSGSIZE;
	if (cg->len >= 0 && nla_put_string(skb, FABTRACE_A_QP_CGROUP, cg->path))
		return -EMSGSIZE;
#endif
	return 0;
}

/* Fill one QP; @cb is the dump's, to flag it interrupted, or NULL. */
static int qp_fill(struct sk_buff *skb, const struct ft_dev *dev,
		   const struct ft_qp *qp, const char *dev_name,
		   struct pid_namespace *ns, struct cg_cache *cg, u32 portid,
		   u32 seq, struct netlink_callback *cb)
{
	static const u8 zero[16];
	struct ft_snap snap, *s = &snap;
	u32 qflags = qp_flags(dev, qp);
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
	    nla_put_u32(skb, FABTRACE_A_QP_SL, ft_qp_sl(qp)) ||
	    nla_put_u32(skb, FABTRACE_A_QP_PRIO, ft_qp_prio(dev, qp)) ||
	    ft_nl_put_u64(skb, FABTRACE_A_QP_PAUSED_US,
			  ft_pfc_qp_paused_us((struct ft_dev *)dev, qp),
			  FABTRACE_A_QP_PAD) ||
	    nla_put_u32(skb, FABTRACE_A_QP_PID,
			qp->owner ? pid_nr_ns(qp->owner, ns) : 0) ||
	    nla_put_string(skb, FABTRACE_A_QP_COMM, qp->comm) ||
	    ft_nl_put_u64(skb, FABTRACE_A_QP_CREATE_TIME, ft_nl_realtime(qp->ctime),
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
	    ft_nl_put_u64(skb, FABTRACE_A_QP_DESTROY_TIME, ft_nl_realtime(qp->dtime),
			  FABTRACE_A_QP_PAD))
		goto err_cancel;
	if (put_cgroup(skb, qp->cgroup, cg))
		goto err_cancel;
	/* a hardware NIC's QP: what the NIC counted, and nothing else */
	if (dev->hw ? ft_nl_put_qp_hw(skb, dev, qp) :
	    ft_nl_put_counters(skb, s, FABTRACE_A_QP_TX, FABTRACE_A_QP_RX,
			       FABTRACE_A_QP_CONG))
		goto err_cancel;
	/* timed from the taps: a QP whose answers are in its PSN space */
	if (dev->hooked && ft_psn_tracked(qp) && ft_tap_rtt() &&
	    ft_nl_put_qp_rtt(skb, FABTRACE_A_QP_RTT, &qp->rtt))
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

/*
 * The newest entry for @qpn: the live one, else the last destroyed one.
 * QP numbers 0 and 1: the first port's (SMI or GSI first); a multi-port
 * HCA's others, and mlx5's own QP 1 beside the GSI, are in dumps.
 */
static struct ft_qp *qp_lookup(struct ft_dev *dev, u32 qpn)
{
	struct ft_qp *qp, *found;
	u32 key = FT_KEY_PORTS + qpn;

	found = ft_qpidx_find(dev->idx, qpn);
	if (!found && qpn <= 1)
		found = ft_qp_next(dev, &key, qpn);
	if (found && found->qpn == qpn)
		return found;
	found = NULL;
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
	struct cg_cache *cg;
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

	dev = ft_nl_req_dev(info, FABTRACE_A_QP_DEV_INDEX, FABTRACE_A_QP_DEV_NAME, true);
	if (IS_ERR(dev))
		return PTR_ERR(dev);

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg) {
		err = -ENOMEM;
		goto err_put_dev;
	}
	ft_nl_dev_name(dev, name);
	cg = kzalloc(sizeof(*cg), GFP_KERNEL);
	rcu_read_lock();
	qp = qp_lookup(dev, nla_get_u32(tb[FABTRACE_A_QP_QPN]));
	if (qp && ft_qp_visible(qp, ns))
		err = qp_fill(msg, dev, qp, name, ns, cg, info->snd_portid,
			      info->snd_seq, NULL);
	else
		err = -ENOENT;
	rcu_read_unlock();
	kfree(cg);
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
	u32 qpn;		/* next live entry's key to look at (ft_qp_next()) */
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
	u32 n = 0, key;
	int err = 0;

	ft_nl_dev_name(dev, name);
	rcu_read_lock();
	if (ctx->phase == 0) {
		if (ctx->qpn < f->qpn_min)
			ctx->qpn = f->qpn_min;
		for (key = ctx->qpn; (qp = ft_qp_next(dev, &key, f->qpn_max)); key++) {
			if (!qp_match(dev, qp, f))
				continue;
			err = qp_fill(skb, dev, qp, name, f->ns, f->cg, portid, seq, cb);
			if (err)
				break;
		}
		ctx->qpn = key;
		if (err)
			goto out;
		ctx->phase = 1;
		ctx->retired = 0;
	}
	for (qp = ft_retired_first(dev); qp; qp = ft_retired_next(qp)) {
		if (n++ < ctx->retired || !qp_match(dev, qp, f))
			continue;
		err = qp_fill(skb, dev, qp, name, f->ns, f->cg, portid, seq, cb);
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

	f.cg = kzalloc(sizeof(*f.cg), GFP_KERNEL);
	cb->seq = dump_generation();
	while ((dev = ft_nl_dev_next(ctx->dev_index, sock_net(cb->skb->sk)))) {
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
	kfree(f.cg);
	return err == -EMSGSIZE && skb->len ? skb->len : err;
}

static void reset_one(struct ft_dev *dev, struct ft_qp *qp)
{
	ft_qp_reset(qp);
	spin_lock(&dev->lock);
	ft_pfc_qp_reset(dev, qp);
	spin_unlock(&dev->lock);
}

static void reset_dev(struct ft_dev *dev, const u32 *qpn)
{
	struct ft_qp *qp;
	u32 key;

	rcu_read_lock();
	for (key = qpn ? *qpn : 0; (qp = ft_qp_next(dev, &key, qpn ? *qpn : 0xffffff)); key++)
		if (!qpn || qp->qpn == *qpn)
			reset_one(dev, qp);
	for (qp = ft_retired_first(dev); qp; qp = ft_retired_next(qp))
		if (!qpn || qp->qpn == *qpn)
			reset_one(dev, qp);
	rcu_read_unlock();
}

/*
 * The ports of @dev's entries of QP number @qpn, live and retained, as
 * bits; a port past the bits, or none yet (0), as bit 0: every port.
 */
static unsigned long qpn_ports(const struct ft_dev *dev, u32 qpn)
{
	unsigned long ports = 0;
	struct ft_qp *qp;
	u32 key, port;

	rcu_read_lock();
	/* as reset_dev() finds them: the port QPs come last, by any number */
	for (key = qpn; (qp = ft_qp_next(dev, &key, qpn)); key++) {
		port = READ_ONCE(qp->port);
		if (qp->qpn == qpn)
			ports |= BIT(port < BITS_PER_LONG ? port : 0);
	}
	for (qp = ft_retired_first(dev); qp; qp = ft_retired_next(qp)) {
		port = qp->port;
		if (qp->qpn == qpn)
			ports |= BIT(port < BITS_PER_LONG ? port : 0);
	}
	rcu_read_unlock();
	return ports;
}

int fabtrace_nl_qp_reset_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct nlattr **tb = info->attrs;
	unsigned long ports, port;
	struct ft_qp *qp;
	struct ft_dev *dev;
	u32 qpn, index = 0;
	int err = 0;

	if (check_qpns(tb, FABTRACE_A_QP_QPN, info->extack))
		return -EINVAL;
	if (tb[FABTRACE_A_QP_QPN] && !tb[FABTRACE_A_QP_DEV_INDEX] &&
	    !tb[FABTRACE_A_QP_DEV_NAME]) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[FABTRACE_A_QP_QPN],
				    "a QP number needs a device");
		return -EINVAL;
	}
	dev = ft_nl_req_dev(info, FABTRACE_A_QP_DEV_INDEX, FABTRACE_A_QP_DEV_NAME, false);
	if (IS_ERR(dev))
		return PTR_ERR(dev);
	if (!dev) {
		/* every device this namespace owns; the others are not its to zero */
		while ((dev = ft_nl_dev_next(index, net))) {
			if (!ft_nl_dev_writable(dev, FT_NL_ALL_PORTS, net, NULL))
				reset_dev(dev, NULL);
			index = dev->index + 1;
			ft_dev_put(dev);
		}
		return 0;
	}
	if (!tb[FABTRACE_A_QP_QPN]) {
		err = ft_nl_dev_writable(dev, FT_NL_ALL_PORTS, net, info->extack);
		if (!err)
			reset_dev(dev, NULL);
		goto out_put;
	}
	qpn = nla_get_u32(tb[FABTRACE_A_QP_QPN]);
	rcu_read_lock();
	qp = qp_lookup(dev, qpn);
	rcu_read_unlock();
	if (!qp) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[FABTRACE_A_QP_QPN], "no such QP");
		err = -ENOENT;
		goto out_put;
	}
	/* every entry it zeroes, the retained ones of that number too */
	ports = qpn_ports(dev, qpn);
	for_each_set_bit(port, &ports, BITS_PER_LONG) {
		err = ft_nl_dev_writable(dev, port, net, info->extack);
		if (err)
			goto out_put;
	}
	reset_dev(dev, &qpn);
out_put:
	ft_dev_put(dev);
	return err;
}
