// SPDX-License-Identifier: GPL-2.0
/* Netlink: what fabtrace reads from hardware NICs, in qp-get and dev-get. */

#include <net/genetlink.h>

#include "dev.h"
#include "fabtrace-nl-gen.h"
#include "hw.h"
#include "nl.h"

/*
 * Where a driver's counter means what one of fabtrace's does, it fills it
 * (mlx5's names; a driver with others fills none, and shows its own).
 * What none fills is left out of the reply, never sent as 0.
 */
static const struct {
	int attr;
	const char *name[2];		/* summed */
} cong_map[] = {
	{ FABTRACE_A_CONG_RETRANSMITS, { "roce_adp_retrans" } },
	{ FABTRACE_A_CONG_TIMEOUTS, { "local_ack_timeout_err" } },
	{ FABTRACE_A_CONG_RX_DUP, { "duplicate_request" } },
	{ FABTRACE_A_CONG_RX_OOS, { "out_of_sequence" } },
	{ FABTRACE_A_CONG_RETRY_EXHAUSTED,
	  { "req_transport_retries_exceeded", "req_rnr_retries_exceeded" } },
};

/* NAKs received, by syndrome, and sent */
static const struct {
	int nest, attr;
	const char *name;
} nak_map[] = {
	{ FABTRACE_A_CONG_RX_NAK, FABTRACE_A_NAK_PSN_SEQ, "packet_seq_err" },
	{ FABTRACE_A_CONG_RX_NAK, FABTRACE_A_NAK_RNR, "rnr_nak_retry_err" },
	{ FABTRACE_A_CONG_RX_NAK, FABTRACE_A_NAK_REM_ACCESS, "req_remote_access_errors" },
	{ FABTRACE_A_CONG_RX_NAK, FABTRACE_A_NAK_INV_REQ, "req_remote_invalid_request" },
	{ FABTRACE_A_CONG_TX_NAK, FABTRACE_A_NAK_REM_ACCESS, "resp_remote_access_errors" },
};

/* The value of @name in @set, if the device has it.  Context: RCU read side. */
static bool set_value(const struct ft_hw *hw, const struct ft_hw_set *set,
		      const char *name, u64 *v)
{
	/* pairs with hw.c's release as it adds a name */
	u32 i, n = smp_load_acquire(&hw->set_names.n);

	for (i = 0; i < n; i++)
		if (!strncmp(hw->set_names.name[i], name, FT_HW_NAME)) {
			*v += READ_ONCE(set->total[i]);
			return true;
		}
	return false;
}

static int put_naks(struct sk_buff *skb, const struct ft_hw *hw,
		    const struct ft_hw_set *set, int nest_type)
{
	struct nlattr *nest = NULL;
	unsigned int i;
	u64 v;

	for (i = 0; i < ARRAY_SIZE(nak_map); i++) {
		v = 0;
		if (nak_map[i].nest != nest_type || !set_value(hw, set, nak_map[i].name, &v))
			continue;
		if (!nest)
			nest = nla_nest_start(skb, nest_type);
		if (!nest || ft_nl_put_u64(skb, nak_map[i].attr, v, FABTRACE_A_NAK_PAD))
			return -EMSGSIZE;
	}
	if (nest)
		nla_nest_end(skb, nest);
	return 0;
}

/* The contract counters a set fills: a cong nest of those alone. */
static int put_cong(struct sk_buff *skb, const struct ft_hw *hw,
		    const struct ft_hw_set *set)
{
	struct nlattr *nest;
	unsigned int i, k;
	bool have;
	u64 v;

	nest = nla_nest_start(skb, FABTRACE_A_QP_CONG);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < ARRAY_SIZE(cong_map); i++) {
		v = 0;
		have = false;
		for (k = 0; k < ARRAY_SIZE(cong_map[i].name) && cong_map[i].name[k]; k++)
			have |= set_value(hw, set, cong_map[i].name[k], &v);
		if (have && ft_nl_put_u64(skb, cong_map[i].attr, v, FABTRACE_A_CONG_PAD))
			goto err_cancel;
	}
	if (put_naks(skb, hw, set, FABTRACE_A_CONG_TX_NAK) ||
	    put_naks(skb, hw, set, FABTRACE_A_CONG_RX_NAK))
		goto err_cancel;
	nla_nest_end(skb, nest);
	return 0;

err_cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

/* The counters of a table: a nest of each, by name. */
static int put_counters(struct sk_buff *skb, int type, const struct ft_hw_names *t,
			const u64 *v, u32 n)
{
	struct nlattr *nest;
	u32 i;

	/* pairs with hw.c's release as it adds a name */
	n = min(n, smp_load_acquire(&t->n));
	for (i = 0; i < n; i++) {
		nest = nla_nest_start(skb, type);
		if (!nest ||
		    nla_put_string(skb, FABTRACE_A_HW_COUNTER_NAME, t->name[i]) ||
		    ft_nl_put_u64(skb, FABTRACE_A_HW_COUNTER_VALUE, READ_ONCE(v[i]),
				  FABTRACE_A_HW_COUNTER_PAD))
			return -EMSGSIZE;
		nla_nest_end(skb, nest);
	}
	return 0;
}

/**
 * ft_nl_put_qp_hw() - a hardware NIC's QP: its cong counters and hw nest
 * @skb: the reply
 * @dev: its device (not tapped)
 * @qp: the entry
 *
 * Context: RCU read side.
 * Return: 0 or -EMSGSIZE.
 */
int ft_nl_put_qp_hw(struct sk_buff *skb, const struct ft_dev *dev,
		    const struct ft_qp *qp)
{
	const struct ft_hw *hw = dev->hw;
	const struct ft_hw_qp *h = rcu_dereference(qp->hw);
	const struct ft_hw_set *set = h ? rcu_dereference(h->set) : NULL;
	struct nlattr *nest;

	if (set && put_cong(skb, hw, set))
		return -EMSGSIZE;
	nest = nla_nest_start(skb, FABTRACE_A_QP_HW);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, FABTRACE_A_QP_HW_SOURCE, ft_hw_qp_source(dev, qp)))
		goto err_cancel;
	if (set && (nla_put_u32(skb, FABTRACE_A_QP_HW_SET_ID, set->id) ||
		    nla_put_u32(skb, FABTRACE_A_QP_HW_SET_QPS, READ_ONCE(set->nqps)) ||
		    put_counters(skb, FABTRACE_A_QP_HW_COUNTER, &hw->set_names, set->total,
				 FT_HW_MAX)))
		goto err_cancel;
	if (h && (READ_ONCE(h->sq_psn) & FT_PSN_VALID) &&
	    (ft_nl_put_u64(skb, FABTRACE_A_QP_HW_PSN_TX, READ_ONCE(h->psn_tx),
			   FABTRACE_A_QP_HW_PAD) ||
	     ft_nl_put_u64(skb, FABTRACE_A_QP_HW_PSN_RX, READ_ONCE(h->psn_rx),
			   FABTRACE_A_QP_HW_PAD)))
		goto err_cancel;
	if (h && READ_ONCE(h->bind_err) &&
	    nla_put_u32(skb, FABTRACE_A_QP_HW_BIND_ERROR, -READ_ONCE(h->bind_err)))
		goto err_cancel;
	nla_nest_end(skb, nest);
	return 0;

err_cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

/**
 * ft_nl_dev_hw_size() - the most ft_nl_put_dev_hw() may put for @dev
 * @dev: the device (not tapped)
 *
 * Return: bytes, for a reply's size.
 */
size_t ft_nl_dev_hw_size(const struct ft_dev *dev)
{
	/* a counter: its nest, its name (NUL included) and its value */
	size_t counter = nla_total_size(0) + nla_total_size(FT_HW_NAME) +
			 nla_total_size_64bit(sizeof(u64));
	size_t port = nla_total_size(0) + 2 * nla_total_size(sizeof(u32)) +
		      nla_total_size(sizeof(u8)) + FT_HW_MAX * counter;

	return nla_total_size(0) + 2 * nla_total_size(sizeof(u8)) +
	       2 * nla_total_size_64bit(sizeof(u64)) + nla_total_size(sizeof(u32)) +
	       dev->hw->nports * port;
}

/**
 * ft_nl_put_dev_hw() - what fabtrace reads from a hardware NIC
 * @skb: the reply
 * @dev: the device (not tapped)
 *
 * Return: 0 or -EMSGSIZE.
 */
int ft_nl_put_dev_hw(struct sk_buff *skb, const struct ft_dev *dev)
{
	const struct ft_hw *hw = dev->hw;
	struct nlattr *nest, *pn;
	u32 port;

	nest = nla_nest_start(skb, FABTRACE_A_DEV_HW);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u8(skb, FABTRACE_A_DEV_HW_SETS, hw->sets) ||
	    nla_put_u8(skb, FABTRACE_A_DEV_HW_PORT_STATS, hw->port_stats) ||
	    ft_nl_put_u64(skb, FABTRACE_A_DEV_HW_READS, READ_ONCE(hw->reads),
			  FABTRACE_A_DEV_HW_PAD) ||
	    ft_nl_put_u64(skb, FABTRACE_A_DEV_HW_READ_NS, READ_ONCE(hw->read_ns),
			  FABTRACE_A_DEV_HW_PAD) ||
	    nla_put_u32(skb, FABTRACE_A_DEV_HW_READ_ERR, -READ_ONCE(hw->read_err)))
		goto err_cancel;
	rdma_for_each_port(dev->ibdev, port) {
		const struct ft_hw_port *p = &hw->port[port];

		pn = nla_nest_start(skb, FABTRACE_A_DEV_HW_PORT);
		if (!pn ||
		    nla_put_u32(skb, FABTRACE_A_DEV_HW_PORT_PORT, port) ||
		    nla_put_u32(skb, FABTRACE_A_DEV_HW_PORT_MODE, READ_ONCE(p->mode)) ||
		    nla_put_u8(skb, FABTRACE_A_DEV_HW_PORT_THEIRS, READ_ONCE(p->theirs)) ||
		    put_counters(skb, FABTRACE_A_DEV_HW_PORT_COUNTER, &hw->port_names,
				 p->value, READ_ONCE(p->nvalues)))
			goto err_cancel;
		nla_nest_end(skb, pn);
	}
	nla_nest_end(skb, nest);
	return 0;

err_cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}
