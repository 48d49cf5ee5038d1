// SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause)
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/fabtrace.yaml */
/* YNL-GEN kernel source */

#include <net/netlink.h>
#include <net/genetlink.h>

#include "fabtrace-nl-gen.h"

#include <uapi/linux/fabtrace.h>

/* Common nested types */
const struct nla_policy fabtrace_policy_cfg_nl_policy[FABTRACE_A_POLICY_CFG_WD_ACTION + 1] = {
	[FABTRACE_A_POLICY_CFG_TRUST] = { .type = NLA_U32, },
	[FABTRACE_A_POLICY_CFG_DSCP_MAP] = { .type = NLA_BINARY, },
	[FABTRACE_A_POLICY_CFG_PFC] = { .type = NLA_U32, },
	[FABTRACE_A_POLICY_CFG_ECN] = { .type = NLA_U32, },
	[FABTRACE_A_POLICY_CFG_CNP] = { .type = NLA_U32, },
	[FABTRACE_A_POLICY_CFG_CNP_INTERVAL] = { .type = NLA_U32, },
	[FABTRACE_A_POLICY_CFG_CNP_DSCP] = { .type = NLA_U32, },
	[FABTRACE_A_POLICY_CFG_WD_DETECT] = { .type = NLA_U32, },
	[FABTRACE_A_POLICY_CFG_WD_RESTORE] = { .type = NLA_U32, },
	[FABTRACE_A_POLICY_CFG_WD_ACTION] = { .type = NLA_U32, },
};

/* FABTRACE_CMD_DEV_GET - do */
static const struct nla_policy fabtrace_dev_get_do_nl_policy[FABTRACE_A_DEV_NAME + 1] = {
	[FABTRACE_A_DEV_INDEX] = { .type = NLA_U32, },
	[FABTRACE_A_DEV_NAME] = { .type = NLA_NUL_STRING, .len = 63, },
};

/* FABTRACE_CMD_DEV_GET - dump */
static const struct nla_policy fabtrace_dev_get_dump_nl_policy[FABTRACE_A_DEV_NAME + 1] = {
	[FABTRACE_A_DEV_INDEX] = { .type = NLA_U32, },
	[FABTRACE_A_DEV_NAME] = { .type = NLA_NUL_STRING, .len = 63, },
};

/* FABTRACE_CMD_QP_GET - do */
static const struct nla_policy fabtrace_qp_get_do_nl_policy[FABTRACE_A_QP_MATCH_FLAGS + 1] = {
	[FABTRACE_A_QP_DEV_INDEX] = { .type = NLA_U32, },
	[FABTRACE_A_QP_DEV_NAME] = { .type = NLA_NUL_STRING, .len = 63, },
	[FABTRACE_A_QP_QPN] = { .type = NLA_U32, },
	[FABTRACE_A_QP_QPN_MIN] = { .type = NLA_U32, },
	[FABTRACE_A_QP_QPN_MAX] = { .type = NLA_U32, },
	[FABTRACE_A_QP_PID] = { .type = NLA_U32, },
	[FABTRACE_A_QP_TYPE] = NLA_POLICY_MAX(NLA_U32, 255),
	[FABTRACE_A_QP_STATE] = NLA_POLICY_MAX(NLA_U32, 6),
	[FABTRACE_A_QP_MATCH_FLAGS] = NLA_POLICY_MASK(NLA_U32, 0x1f),
};

/* FABTRACE_CMD_QP_GET - dump */
static const struct nla_policy fabtrace_qp_get_dump_nl_policy[FABTRACE_A_QP_MATCH_FLAGS + 1] = {
	[FABTRACE_A_QP_DEV_INDEX] = { .type = NLA_U32, },
	[FABTRACE_A_QP_DEV_NAME] = { .type = NLA_NUL_STRING, .len = 63, },
	[FABTRACE_A_QP_QPN] = { .type = NLA_U32, },
	[FABTRACE_A_QP_QPN_MIN] = { .type = NLA_U32, },
	[FABTRACE_A_QP_QPN_MAX] = { .type = NLA_U32, },
	[FABTRACE_A_QP_PID] = { .type = NLA_U32, },
	[FABTRACE_A_QP_TYPE] = NLA_POLICY_MAX(NLA_U32, 255),
	[FABTRACE_A_QP_STATE] = NLA_POLICY_MAX(NLA_U32, 6),
	[FABTRACE_A_QP_MATCH_FLAGS] = NLA_POLICY_MASK(NLA_U32, 0x1f),
};

/* FABTRACE_CMD_QP_RESET - do */
static const struct nla_policy fabtrace_qp_reset_nl_policy[FABTRACE_A_QP_QPN + 1] = {
	[FABTRACE_A_QP_DEV_INDEX] = { .type = NLA_U32, },
	[FABTRACE_A_QP_DEV_NAME] = { .type = NLA_NUL_STRING, .len = 63, },
	[FABTRACE_A_QP_QPN] = { .type = NLA_U32, },
};

/* FABTRACE_CMD_POLICY_GET - do */
static const struct nla_policy fabtrace_policy_get_do_nl_policy[FABTRACE_A_POLICY_PORT + 1] = {
	[FABTRACE_A_POLICY_DEV_INDEX] = { .type = NLA_U32, },
	[FABTRACE_A_POLICY_DEV_NAME] = { .type = NLA_NUL_STRING, .len = 63, },
	[FABTRACE_A_POLICY_PORT] = { .type = NLA_U32, },
};

/* FABTRACE_CMD_POLICY_GET - dump */
static const struct nla_policy fabtrace_policy_get_dump_nl_policy[FABTRACE_A_POLICY_PORT + 1] = {
	[FABTRACE_A_POLICY_DEV_INDEX] = { .type = NLA_U32, },
	[FABTRACE_A_POLICY_DEV_NAME] = { .type = NLA_NUL_STRING, .len = 63, },
	[FABTRACE_A_POLICY_PORT] = { .type = NLA_U32, },
};

/* FABTRACE_CMD_POLICY_SET - do */
static const struct nla_policy fabtrace_policy_set_nl_policy[FABTRACE_A_POLICY_CONFIG + 1] = {
	[FABTRACE_A_POLICY_DEV_INDEX] = { .type = NLA_U32, },
	[FABTRACE_A_POLICY_DEV_NAME] = { .type = NLA_NUL_STRING, .len = 63, },
	[FABTRACE_A_POLICY_PORT] = { .type = NLA_U32, },
	[FABTRACE_A_POLICY_CONFIG] = NLA_POLICY_NESTED(fabtrace_policy_cfg_nl_policy),
};

/* FABTRACE_CMD_PFC_GET - do */
static const struct nla_policy fabtrace_pfc_get_do_nl_policy[FABTRACE_A_PFC_PORT + 1] = {
	[FABTRACE_A_PFC_DEV_INDEX] = { .type = NLA_U32, },
	[FABTRACE_A_PFC_DEV_NAME] = { .type = NLA_NUL_STRING, .len = 63, },
	[FABTRACE_A_PFC_PORT] = { .type = NLA_U32, },
};

/* FABTRACE_CMD_PFC_GET - dump */
static const struct nla_policy fabtrace_pfc_get_dump_nl_policy[FABTRACE_A_PFC_PORT + 1] = {
	[FABTRACE_A_PFC_DEV_INDEX] = { .type = NLA_U32, },
	[FABTRACE_A_PFC_DEV_NAME] = { .type = NLA_NUL_STRING, .len = 63, },
	[FABTRACE_A_PFC_PORT] = { .type = NLA_U32, },
};

/* Ops table for fabtrace */
static const struct genl_split_ops fabtrace_nl_ops[] = {
	{
		.cmd		= FABTRACE_CMD_DEV_GET,
		.doit		= fabtrace_nl_dev_get_doit,
		.policy		= fabtrace_dev_get_do_nl_policy,
		.maxattr	= FABTRACE_A_DEV_NAME,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd		= FABTRACE_CMD_DEV_GET,
		.dumpit		= fabtrace_nl_dev_get_dumpit,
		.policy		= fabtrace_dev_get_dump_nl_policy,
		.maxattr	= FABTRACE_A_DEV_NAME,
		.flags		= GENL_CMD_CAP_DUMP,
	},
	{
		.cmd		= FABTRACE_CMD_QP_GET,
		.doit		= fabtrace_nl_qp_get_doit,
		.policy		= fabtrace_qp_get_do_nl_policy,
		.maxattr	= FABTRACE_A_QP_MATCH_FLAGS,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd		= FABTRACE_CMD_QP_GET,
		.dumpit		= fabtrace_nl_qp_get_dumpit,
		.policy		= fabtrace_qp_get_dump_nl_policy,
		.maxattr	= FABTRACE_A_QP_MATCH_FLAGS,
		.flags		= GENL_CMD_CAP_DUMP,
	},
	{
		.cmd		= FABTRACE_CMD_QP_RESET,
		.doit		= fabtrace_nl_qp_reset_doit,
		.policy		= fabtrace_qp_reset_nl_policy,
		.maxattr	= FABTRACE_A_QP_QPN,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd	= FABTRACE_CMD_STATS_GET,
		.doit	= fabtrace_nl_stats_get_doit,
		.flags	= GENL_CMD_CAP_DO,
	},
	{
		.cmd		= FABTRACE_CMD_POLICY_GET,
		.doit		= fabtrace_nl_policy_get_doit,
		.policy		= fabtrace_policy_get_do_nl_policy,
		.maxattr	= FABTRACE_A_POLICY_PORT,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd		= FABTRACE_CMD_POLICY_GET,
		.dumpit		= fabtrace_nl_policy_get_dumpit,
		.policy		= fabtrace_policy_get_dump_nl_policy,
		.maxattr	= FABTRACE_A_POLICY_PORT,
		.flags		= GENL_CMD_CAP_DUMP,
	},
	{
		.cmd		= FABTRACE_CMD_POLICY_SET,
		.doit		= fabtrace_nl_policy_set_doit,
		.policy		= fabtrace_policy_set_nl_policy,
		.maxattr	= FABTRACE_A_POLICY_CONFIG,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= FABTRACE_CMD_PFC_GET,
		.doit		= fabtrace_nl_pfc_get_doit,
		.policy		= fabtrace_pfc_get_do_nl_policy,
		.maxattr	= FABTRACE_A_PFC_PORT,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd		= FABTRACE_CMD_PFC_GET,
		.dumpit		= fabtrace_nl_pfc_get_dumpit,
		.policy		= fabtrace_pfc_get_dump_nl_policy,
		.maxattr	= FABTRACE_A_PFC_PORT,
		.flags		= GENL_CMD_CAP_DUMP,
	},
};

static const struct genl_multicast_group fabtrace_nl_mcgrps[] = {
	[FABTRACE_NLGRP_EVENTS] = { "events", },
};

struct genl_family fabtrace_nl_family __ro_after_init = {
	.name		= FABTRACE_FAMILY_NAME,
	.version	= FABTRACE_FAMILY_VERSION,
	.netnsok	= true,
	.parallel_ops	= true,
	.module		= THIS_MODULE,
	.split_ops	= fabtrace_nl_ops,
	.n_split_ops	= ARRAY_SIZE(fabtrace_nl_ops),
	.mcgrps		= fabtrace_nl_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(fabtrace_nl_mcgrps),
};
