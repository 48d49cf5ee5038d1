// SPDX-License-Identifier: GPL-2.0
/* Netlink: fabtrace's statistics about itself (stats-get). */

#include <linux/slab.h>
#include <net/genetlink.h>

#include "cnp.h"
#include "dev.h"
#include "events.h"
#include "fabtrace-nl-gen.h"
#include "hook.h"
#include "nl.h"
#include "qp.h"

/* --- statistics ---------------------------------------------------------- */

int fabtrace_nl_stats_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ft_dev_pcpu *tot;
	struct sk_buff *msg;
	struct ft_dev *dev;
	u64 malformed = 0, unknown = 0, index_bytes = 0;
	int live;
	u32 index = 0;
	void *hdr;

	/*
	 * No request attributes, so no policy: 6.12's split ops then leave
	 * the attributes unparsed, where 6.1's merged ops reject them.
	 */
	if (nlmsg_attrlen(info->nlhdr, GENL_HDRLEN)) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    nlmsg_attrdata(info->nlhdr, GENL_HDRLEN),
				    "stats-get takes no attributes");
		return -EINVAL;
	}
	/* a device's totals outgrew a stack frame (the round trips' histogram) */
	tot = kmalloc(sizeof(*tot), GFP_KERNEL);
	if (!tot)
		return -ENOMEM;
	while ((dev = ft_nl_dev_next(index, genl_info_net(info)))) {
		ft_dev_totals(dev, tot);
		malformed += tot->malformed;
		unknown += tot->unknown[FT_TX] + tot->unknown[FT_RX];
		index_bytes += sizeof(*dev->idx) +
			       (u64)READ_ONCE(dev->nr_leaves) * sizeof(struct ft_leaf);
		index = dev->index + 1;
		ft_dev_put(dev);
	}
	kfree(tot);

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
	    ft_nl_put_u64(msg, FABTRACE_A_STATS_OVERFLOW,
			  atomic64_read(&ft_qp_stats.overflow), FABTRACE_A_STATS_PAD) ||
	    ft_nl_put_u64(msg, FABTRACE_A_STATS_ALLOC_FAIL,
			  atomic64_read(&ft_qp_stats.alloc_fail), FABTRACE_A_STATS_PAD) ||
	    ft_nl_put_u64(msg, FABTRACE_A_STATS_MALFORMED, malformed,
			  FABTRACE_A_STATS_PAD) ||
	    ft_nl_put_u64(msg, FABTRACE_A_STATS_UNKNOWN, unknown, FABTRACE_A_STATS_PAD) ||
	    ft_nl_put_u64(msg, FABTRACE_A_STATS_HOOK_MISSED, ft_hook_missed(),
			  FABTRACE_A_STATS_PAD) ||
	    ft_nl_put_u64(msg, FABTRACE_A_STATS_EVENTS_SENT,
			  atomic64_read(&ft_ev_stats.sent), FABTRACE_A_STATS_PAD) ||
	    ft_nl_put_u64(msg, FABTRACE_A_STATS_EVENTS_SUPPRESSED,
			  atomic64_read(&ft_ev_stats.suppressed), FABTRACE_A_STATS_PAD) ||
	    ft_nl_put_u64(msg, FABTRACE_A_STATS_EVENTS_LOST,
			  atomic64_read(&ft_ev_stats.lost), FABTRACE_A_STATS_PAD) ||
	    nla_put_u32(msg, FABTRACE_A_STATS_GENERATION,
			atomic_read(&ft_qp_stats.generation)) ||
	    ft_nl_put_u64(msg, FABTRACE_A_STATS_INDEX_BYTES, index_bytes,
			  FABTRACE_A_STATS_PAD) ||
	    ft_nl_put_u64(msg, FABTRACE_A_STATS_EVICTED,
			  atomic64_read(&ft_qp_stats.evicted), FABTRACE_A_STATS_PAD) ||
	    ft_nl_put_u64(msg, FABTRACE_A_STATS_CNP_SENT,
			  atomic64_read(&ft_cnp_stats.sent), FABTRACE_A_STATS_PAD) ||
	    ft_nl_put_u64(msg, FABTRACE_A_STATS_CNP_LIMITED,
			  atomic64_read(&ft_cnp_stats.limited), FABTRACE_A_STATS_PAD) ||
	    ft_nl_put_u64(msg, FABTRACE_A_STATS_CNP_FAILED,
			  atomic64_read(&ft_cnp_stats.failed), FABTRACE_A_STATS_PAD) ||
	    ft_nl_put_u64(msg, FABTRACE_A_STATS_CNP_SKIPPED,
			  atomic64_read(&ft_cnp_stats.skipped), FABTRACE_A_STATS_PAD) ||
	    ft_nl_put_u64(msg, FABTRACE_A_STATS_LOAD_TIME, ft_nl_load_time,
			  FABTRACE_A_STATS_PAD))
		goto err_free_msg;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_free_msg:
	nlmsg_free(msg);
	return -EMSGSIZE;
}
