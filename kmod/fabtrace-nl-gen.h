/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/fabtrace.yaml */
/* YNL-GEN kernel header */

#ifndef _LINUX_FABTRACE_GEN_H
#define _LINUX_FABTRACE_GEN_H

#include <net/netlink.h>
#include <net/genetlink.h>

#include <uapi/linux/fabtrace.h>

/* Common nested types */
extern const struct nla_policy fabtrace_policy_cfg_nl_policy[FABTRACE_A_POLICY_CFG_WD_ACTION + 1];

int fabtrace_nl_dev_get_doit(struct sk_buff *skb, struct genl_info *info);
int fabtrace_nl_dev_get_dumpit(struct sk_buff *skb,
			       struct netlink_callback *cb);
int fabtrace_nl_qp_get_doit(struct sk_buff *skb, struct genl_info *info);
int fabtrace_nl_qp_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int fabtrace_nl_qp_reset_doit(struct sk_buff *skb, struct genl_info *info);
int fabtrace_nl_stats_get_doit(struct sk_buff *skb, struct genl_info *info);
int fabtrace_nl_policy_get_doit(struct sk_buff *skb, struct genl_info *info);
int fabtrace_nl_policy_get_dumpit(struct sk_buff *skb,
				  struct netlink_callback *cb);
int fabtrace_nl_policy_set_doit(struct sk_buff *skb, struct genl_info *info);
int fabtrace_nl_pfc_get_doit(struct sk_buff *skb, struct genl_info *info);
int fabtrace_nl_pfc_get_dumpit(struct sk_buff *skb,
			       struct netlink_callback *cb);

enum {
	FABTRACE_NLGRP_EVENTS,
};

extern struct genl_family fabtrace_nl_family;

#endif /* _LINUX_FABTRACE_GEN_H */
