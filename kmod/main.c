// SPDX-License-Identifier: GPL-2.0
/* fabtrace: per-QP RDMA traffic and congestion accounting. */

#include <linux/module.h>

#include "bench.h"
#include "dcb.h"
#include "dev.h"
#include "events.h"
#include "hook.h"
#include "hw.h"
#include "netlink.h"
#include "pfc.h"
#include "policy.h"
#include "qp.h"
#include "tap.h"

/*
 * What every RDMA device is made of, set up in this order and torn down
 * in the reverse (dev.c).  The QP index comes first: the others' state
 * follows QPs (the PFC watcher keeps their paused time).
 */
static const struct ft_dev_part *const ft_parts[] = {
	&ft_qp_part,
	&ft_policy_part,
	&ft_pfc_part,
	&ft_dcb_part,
	&ft_hw_part,
};

/*
 * The family is registered last and unregistered first: genetlink waits
 * for the requests in flight when it unregisters (they hold its lock for
 * reading), and pins the module only for dumps, so no request can run
 * into what is being taken down.  Events stop before it goes.
 */
static int __init ft_init(void)
{
	int err;

	err = ft_qp_init();
	if (err)
		return err;
	err = ft_events_init();
	if (err)
		goto err_qp_exit;
	/*
	 * Hooks before devices: a QP created while the devices' existing QPs
	 * are walked is then caught by one or the other, never by neither.
	 */
	ft_tap_init();
	err = ft_hook_init();
	if (err)
		goto err_events_exit;
	/* the PFC frame handler before devices, whose ports it then finds */
	err = ft_pfc_init();
	if (err)
		goto err_hook_exit;
	/* listening for DCB changes, which it checks devices' ports against */
	err = ft_dcb_init();
	if (err)
		goto err_pfc_exit;
	/* the RDMA core's netlink, for hardware NICs' counter sets */
	err = ft_hw_init();
	if (err)
		goto err_dcb_exit;
	err = ft_dev_init(ft_parts, ARRAY_SIZE(ft_parts));
	if (err)
		goto err_hw_exit;
	err = ft_nl_init();
	if (err)
		goto err_dev_exit;
	ft_events_open(ft_nl_event_send);
	ft_bench_init();
	return 0;

err_dev_exit:
	ft_dev_exit();
err_hw_exit:
	ft_hw_exit();
err_dcb_exit:
	ft_dcb_exit();
err_pfc_exit:
	ft_pfc_exit();
err_hook_exit:
	ft_hook_exit();
err_events_exit:
	ft_events_exit();
err_qp_exit:
	ft_qp_exit();
	return err;
}

/*
 * Devices go before hooks: each leaves the device map, and the hooks see
 * nothing of it, before it is freed.
 */
static void __exit ft_exit(void)
{
	ft_bench_exit();
	ft_events_close();
	ft_nl_exit();
	ft_dev_exit();
	ft_hw_exit();
	ft_dcb_exit();
	ft_pfc_exit();
	ft_hook_exit();
	ft_events_exit();
	ft_qp_exit();
}

module_init(ft_init);
module_exit(ft_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Per-queue-pair RDMA traffic and congestion accounting");
MODULE_AUTHOR("fabtrace developers");
MODULE_SOFTDEP("pre: ib_core");
/* The release the build names (make and DKMS pass it; Kbuild defines it). */
#ifdef FT_VERSION
MODULE_VERSION(FT_VERSION);
#endif
