// SPDX-License-Identifier: GPL-2.0
/* A hardware port's congestion counters in fabtrace's terms, from its driver's names. */

#include <string.h>

#include "hwterm.h"

/*
 * No NIC counts ECN or CNPs per QP, each counts them per port under its
 * own names (mlx5, bnxt_re, irdma, in Linux 6.12's sources; efa and rxe
 * count neither).  mlx5's optional cc_* counters are the same events; its
 * np_/rp_ ones are always there and come first.
 */
const struct hw_term_def hw_terms[HW_NTERMS] = {
	[HW_ECN_MARKED] = { "ecn_marked", "ecn_marked_ps", "ecn_marked_packets_total",
			    "RoCE packets the NIC received CE-marked (its driver's counter)",
			    { "np_ecn_marked_roce_packets", "rx_ecn_marked_pkts", "RxECNMrkd" } },
	[HW_CNP_SENT] = { "cnp_sent", "cnp_sent_ps", "cnp_sent_total",
			  "CNPs the NIC sent for CE-marked packets (its driver's counter)",
			  { "np_cnp_sent", "tx_cnp_pkts", "cnpSent" } },
	[HW_CNP_HANDLED] = { "cnp_handled", "cnp_handled_ps", "cnp_handled_total",
			     "CNPs the NIC received and slowed a QP for (its driver's counter)",
			     { "rp_cnp_handled", "rx_cnp_pkts", "cnpHandled" } },
	[HW_CNP_IGNORED] = { "cnp_ignored", "cnp_ignored_ps", "cnp_ignored_total",
			     "CNPs the NIC received and did not act on (its driver's counter)",
			     { "rp_cnp_ignored", "cnpIgnored" } },
};

bool hw_term_value(const struct ft_dev_hw_port *p, enum hw_term t, uint64_t *v)
{
	const char *const *name;
	unsigned int i;

	for (name = hw_terms[t].names; *name; name++)
		for (i = 0; i < p->ncounters; i++)
			if (!strcmp(p->c[i].name, *name)) {
				*v = p->c[i].value;
				return true;
			}
	return false;
}
