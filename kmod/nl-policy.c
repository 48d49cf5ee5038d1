// SPDX-License-Identifier: GPL-2.0
/* Netlink: the PFC/ECN policy of each port (policy-get do and dump, policy-set). */

#include <linux/netdevice.h>
#include <net/genetlink.h>
#include <rdma/ib_verbs.h>

#include "dcb.h"
#include "dev.h"
#include "fabtrace-nl-gen.h"
#include "nl.h"
#include "policy.h"

/* --- helpers ------------------------------------------------------------- */

int ft_nl_put_policy(struct sk_buff *skb, int type, const struct ft_port_policy *p)
{
	struct nlattr *nest;

	nest = nla_nest_start(skb, type);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, FABTRACE_A_POLICY_CFG_TRUST, p->trust) ||
	    nla_put(skb, FABTRACE_A_POLICY_CFG_DSCP_MAP, sizeof(p->dscp_prio),
		    p->dscp_prio) ||
	    nla_put_u32(skb, FABTRACE_A_POLICY_CFG_PFC, p->pfc) ||
	    nla_put_u32(skb, FABTRACE_A_POLICY_CFG_ECN, p->ecn) ||
	    nla_put_u32(skb, FABTRACE_A_POLICY_CFG_CNP, p->cnp) ||
	    nla_put_u32(skb, FABTRACE_A_POLICY_CFG_CNP_INTERVAL, p->cnp_interval_us) ||
	    nla_put_u32(skb, FABTRACE_A_POLICY_CFG_CNP_DSCP, p->cnp_dscp) ||
	    nla_put_u32(skb, FABTRACE_A_POLICY_CFG_WD_DETECT, p->wd_detect_ms) ||
	    nla_put_u32(skb, FABTRACE_A_POLICY_CFG_WD_RESTORE, p->wd_restore_ms) ||
	    nla_put_u32(skb, FABTRACE_A_POLICY_CFG_WD_ACTION, p->wd_action)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/*
 * What the hardware reports (@hw; NULL: not known, a read failed), and how
 * the last push ended (@err, @op).
 */
int ft_nl_put_policy_hw(struct sk_buff *skb, int type, const struct ft_dcb_hw *hw,
			int err, const char *op)
{
	struct nlattr *nest;

	nest = nla_nest_start(skb, type);
	if (!nest)
		return -EMSGSIZE;
	if ((hw && (nla_put_u32(skb, FABTRACE_A_POLICY_HW_PFC, hw->pfc) ||
		    nla_put_u32(skb, FABTRACE_A_POLICY_HW_PFC_CAP, hw->pfc_cap) ||
		    nla_put(skb, FABTRACE_A_POLICY_HW_DSCP_PRIO, sizeof(hw->dscp),
			    hw->dscp) ||
		    (hw->has_trust && hw->trust != FT_DCB_TRUST_OTHER &&
		     nla_put_u32(skb, FABTRACE_A_POLICY_HW_TRUST, hw->trust)))) ||
	    (err && (nla_put_u32(skb, FABTRACE_A_POLICY_HW_ERROR, -err) ||
		     nla_put_string(skb, FABTRACE_A_POLICY_HW_ERROR_OP, op)))) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

static int policy_fill(struct sk_buff *skb, struct ft_dev *dev, u32 port,
		       const struct net *net, u32 portid, u32 seq, int flags)
{
	char name[IB_DEVICE_NAME_MAX];
	struct ft_port_policy p;
	struct ft_dcb_snap dcb;
	void *hdr;

	ft_nl_dev_name(dev, name);
	ft_policy_read(dev, port, &p);
	ft_dcb_snap(dev, port, net, &dcb);
	hdr = genlmsg_put(skb, portid, seq, &fabtrace_nl_family, flags,
			  FABTRACE_CMD_POLICY_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, FABTRACE_A_POLICY_DEV_INDEX, dev->index) ||
	    nla_put_string(skb, FABTRACE_A_POLICY_DEV_NAME, name) ||
	    nla_put_u32(skb, FABTRACE_A_POLICY_PORT, port) ||
	    ft_nl_put_policy(skb, FABTRACE_A_POLICY_CONFIG, &p) ||
	    ft_nl_put_netdev(skb, dev->ibdev, port, net, FABTRACE_A_POLICY_NETDEV_NAME,
			     FABTRACE_A_POLICY_NETDEV_IFINDEX) ||
	    nla_put_u32(skb, FABTRACE_A_POLICY_DCB, dcb.state) ||
	    ((dcb.have_hw || dcb.err) &&
	     ft_nl_put_policy_hw(skb, FABTRACE_A_POLICY_HW, dcb.have_hw ? &dcb.hw : NULL,
				 dcb.err, dcb.err_op))) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/* --- policy-get ---------------------------------------------------------- */

static const struct ft_nl_port_get policy_get = {
	.a_index = FABTRACE_A_POLICY_DEV_INDEX,
	.a_name = FABTRACE_A_POLICY_DEV_NAME,
	.a_port = FABTRACE_A_POLICY_PORT,
	.fill = policy_fill,
};

int fabtrace_nl_policy_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	return ft_nl_port_doit(&policy_get, info);
}

int fabtrace_nl_policy_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return ft_nl_port_dumpit(&policy_get, skb, cb);
}

/* --- policy-set ---------------------------------------------------------- */

struct set_req {
	struct nlattr **tb;
	struct netlink_ext_ack *extack;
	struct ft_dev *dev;
	u32 port;
};

/* Say which attribute is wrong and why; true, for the chain below. */
#define bad(req, type, msg) ({					\
	struct set_req *__r = (req);					\
									\
	NL_SET_ERR_MSG_ATTR(__r->extack, __r->tb[type], msg);		\
	true;								\
})

/* Validate every attribute given, then change the fields they name. */
static int set_edit(struct ft_port_policy *p, void *arg)
{
	struct set_req *r = arg;
	struct nlattr **tb = r->tb;
	u32 v[FABTRACE_A_POLICY_CFG_MAX + 1] = {};
	const u8 *map = NULL;
	unsigned int i;

	for (i = 1; i <= FABTRACE_A_POLICY_CFG_MAX; i++)
		if (tb[i] && i != FABTRACE_A_POLICY_CFG_DSCP_MAP)
			v[i] = nla_get_u32(tb[i]);

	if (tb[FABTRACE_A_POLICY_CFG_DSCP_MAP]) {
		if (nla_len(tb[FABTRACE_A_POLICY_CFG_DSCP_MAP]) != FT_DSCP_MAX &&
		    bad(r, FABTRACE_A_POLICY_CFG_DSCP_MAP,
			"dscp-map: must hold 64 priorities, one byte per DSCP 0-63"))
			return -EINVAL;
		map = nla_data(tb[FABTRACE_A_POLICY_CFG_DSCP_MAP]);
		for (i = 0; i < FT_DSCP_MAX; i++)
			if (map[i] >= FT_PRIO_MAX &&
			    bad(r, FABTRACE_A_POLICY_CFG_DSCP_MAP,
				"dscp-map: priorities are 0-7"))
				return -EINVAL;
	}
	if ((tb[FABTRACE_A_POLICY_CFG_TRUST] &&
	     v[FABTRACE_A_POLICY_CFG_TRUST] > FABTRACE_TRUST_DSCP &&
	     bad(r, FABTRACE_A_POLICY_CFG_TRUST, "trust: must be 0 (pcp) or 1 (dscp)")) ||
	    (v[FABTRACE_A_POLICY_CFG_PFC] > 0xff &&
	     bad(r, FABTRACE_A_POLICY_CFG_PFC, "pfc: a set of priorities 0-7 (bits 0-7)")) ||
	    (v[FABTRACE_A_POLICY_CFG_ECN] > 0xff &&
	     bad(r, FABTRACE_A_POLICY_CFG_ECN, "ecn: a set of priorities 0-7 (bits 0-7)")) ||
	    (v[FABTRACE_A_POLICY_CFG_CNP] > 1 &&
	     bad(r, FABTRACE_A_POLICY_CFG_CNP, "cnp: must be 0 (off) or 1 (on)")) ||
	    (tb[FABTRACE_A_POLICY_CFG_CNP_INTERVAL] &&
	     (!v[FABTRACE_A_POLICY_CFG_CNP_INTERVAL] ||
	      v[FABTRACE_A_POLICY_CFG_CNP_INTERVAL] > FT_CNP_INTERVAL_MAX) &&
	     bad(r, FABTRACE_A_POLICY_CFG_CNP_INTERVAL,
		 "cnp-interval: must be 1-1000000 us")) ||
	    (v[FABTRACE_A_POLICY_CFG_CNP_DSCP] >= FT_DSCP_MAX &&
	     bad(r, FABTRACE_A_POLICY_CFG_CNP_DSCP, "cnp-dscp: must be 0-63")) ||
	    (v[FABTRACE_A_POLICY_CFG_WD_DETECT] &&
	     (v[FABTRACE_A_POLICY_CFG_WD_DETECT] < FT_WD_DETECT_MIN ||
	      v[FABTRACE_A_POLICY_CFG_WD_DETECT] > FT_WD_DETECT_MAX) &&
	     bad(r, FABTRACE_A_POLICY_CFG_WD_DETECT,
		 "wd-detect: must be 0 (off) or 100-5000 ms")) ||
	    (tb[FABTRACE_A_POLICY_CFG_WD_RESTORE] &&
	     (v[FABTRACE_A_POLICY_CFG_WD_RESTORE] < FT_WD_RESTORE_MIN ||
	      v[FABTRACE_A_POLICY_CFG_WD_RESTORE] > FT_WD_RESTORE_MAX) &&
	     bad(r, FABTRACE_A_POLICY_CFG_WD_RESTORE,
		 "wd-restore: must be 100-60000 ms")) ||
	    (v[FABTRACE_A_POLICY_CFG_WD_ACTION] != FABTRACE_WD_ACTION_ALERT &&
	     bad(r, FABTRACE_A_POLICY_CFG_WD_ACTION, "wd-action: only 0 (alert) exists")))
		return -EINVAL;

	if (tb[FABTRACE_A_POLICY_CFG_TRUST])
		p->trust = v[FABTRACE_A_POLICY_CFG_TRUST];
	if (map)
		memcpy(p->dscp_prio, map, FT_DSCP_MAX);
	if (tb[FABTRACE_A_POLICY_CFG_PFC])
		p->pfc = v[FABTRACE_A_POLICY_CFG_PFC];
	if (tb[FABTRACE_A_POLICY_CFG_ECN])
		p->ecn = v[FABTRACE_A_POLICY_CFG_ECN];
	if (tb[FABTRACE_A_POLICY_CFG_CNP])
		p->cnp = v[FABTRACE_A_POLICY_CFG_CNP];
	if (tb[FABTRACE_A_POLICY_CFG_CNP_INTERVAL])
		p->cnp_interval_us = v[FABTRACE_A_POLICY_CFG_CNP_INTERVAL];
	if (tb[FABTRACE_A_POLICY_CFG_CNP_DSCP])
		p->cnp_dscp = v[FABTRACE_A_POLICY_CFG_CNP_DSCP];
	if (tb[FABTRACE_A_POLICY_CFG_WD_DETECT]) {
		p->wd_detect_ms = v[FABTRACE_A_POLICY_CFG_WD_DETECT];
		p->wd_restore_ms = 2 * p->wd_detect_ms;
	}
	if (tb[FABTRACE_A_POLICY_CFG_WD_RESTORE])
		p->wd_restore_ms = v[FABTRACE_A_POLICY_CFG_WD_RESTORE];
	if (!p->wd_detect_ms) {
		if (tb[FABTRACE_A_POLICY_CFG_WD_RESTORE] &&
		    bad(r, FABTRACE_A_POLICY_CFG_WD_RESTORE,
			"wd-restore: the watchdog is off (wd-detect 0)"))
			return -EINVAL;
		p->wd_restore_ms = 0;
	}
	if (tb[FABTRACE_A_POLICY_CFG_WD_ACTION])
		p->wd_action = v[FABTRACE_A_POLICY_CFG_WD_ACTION];
	return 0;
}

int fabtrace_nl_policy_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[FABTRACE_A_POLICY_CFG_MAX + 1];
	struct set_req req = { .tb = tb, .extack = info->extack };
	const struct ft_policy_edit edit = { .edit = set_edit, .arg = &req };
	struct nlattr **attrs = info->attrs;
	unsigned int i;
	int err;

	req.dev = ft_nl_req_dev(info, FABTRACE_A_POLICY_DEV_INDEX,
				FABTRACE_A_POLICY_DEV_NAME, true);
	if (IS_ERR(req.dev))
		return PTR_ERR(req.dev);
	err = -EINVAL;
	if (!attrs[FABTRACE_A_POLICY_CONFIG]) {
		NL_SET_ERR_MSG(info->extack, "missing config: nothing to set");
		goto out_put;
	}
	/* validated against the policy already, with the request */
	err = nla_parse_nested(tb, FABTRACE_A_POLICY_CFG_MAX,
			       attrs[FABTRACE_A_POLICY_CONFIG],
			       fabtrace_policy_cfg_nl_policy, info->extack);
	if (err)
		goto out_put;
	for (i = 1; i <= FABTRACE_A_POLICY_CFG_MAX && !tb[i]; i++)
		;
	if (i > FABTRACE_A_POLICY_CFG_MAX) {
		NL_SET_ERR_MSG_ATTR(info->extack, attrs[FABTRACE_A_POLICY_CONFIG],
				    "config: nothing to set");
		err = -EINVAL;
		goto out_put;
	}
	err = ft_nl_req_port(req.dev, attrs[FABTRACE_A_POLICY_PORT], &req.port,
			     info->extack);
	if (err)
		goto out_put;
	err = ft_nl_dev_writable(req.dev, req.port, genl_info_net(info), info->extack);
	if (err)
		goto out_put;
	/* the push follows the change it pushes, before the next change */
	ft_dcb_lock();
	err = ft_policy_edit(req.dev, req.port, &edit);
	/*
	 * The policy is set.  A push the driver refused does not undo it: the
	 * request succeeds, with a warning naming the refusal (the CLI exits 2).
	 */
	if (!err)
		ft_dcb_apply(req.dev, req.port, info->extack);
	ft_dcb_unlock();
out_put:
	ft_dev_put(req.dev);
	return err;
}
