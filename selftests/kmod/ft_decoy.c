// SPDX-License-Identifier: GPL-2.0
/* Functions named like the rdma_rxe ones fabtrace hooks, in another module. */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

/*
 * fabtrace_load.sh loads this before fabtrace: a hook found by bare name
 * would attach here too, and hand these functions' callers fabtrace's taps.
 * They are never called; noinline and __used keep them traceable, and
 * bodies that differ keep them apart (identical ones could be folded).
 */
static noinline __used int rxe_icrc_generate(void *arg)
{
	return !arg + 1;
}

static noinline __used int rxe_resp_queue_pkt(void *arg)
{
	return !arg + 2;
}

static noinline __used int rxe_comp_queue_pkt(void *arg)
{
	return !arg + 7;
}

static noinline __used int rxe_rcv(void *arg)
{
	return !arg + 8;
}

static noinline __used int rxe_qp_error(void *arg)
{
	return !arg + 3;
}

static noinline __used int retransmit_timer(void *arg)
{
	return !arg + 4;
}

static noinline __used int rnr_nak_timer(void *arg)
{
	return !arg + 5;
}

static noinline __used int rxe_cq_post(void *arg)
{
	return !arg + 6;
}

static int __init ft_decoy_init(void)
{
	return 0;
}

static void __exit ft_decoy_exit(void)
{
}

module_init(ft_decoy_init);
module_exit(ft_decoy_exit);
MODULE_DESCRIPTION("fabtrace selftest: rdma_rxe's function names elsewhere");
MODULE_LICENSE("GPL");
