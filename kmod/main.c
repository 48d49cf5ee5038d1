// SPDX-License-Identifier: GPL-2.0
/* fabtrace: per-QP RDMA traffic and congestion accounting. */

#include <linux/module.h>

#include "bench.h"
#include "dcb.h"
#include "dev.h"
#include "events.h"
#include "hook.h"
#include "netlink.h"
#include "pfc.h"
#include "qp.h"

module_param_named(max_qps, ft_max_qps, uint, 0644);
MODULE_PARM_DESC(max_qps, "QP entries kept at most, live and retained (default 262144)");
/* A new retain_ms applies to the QPs already retained, at once. */
static int retain_ms_set(const char *val, const struct kernel_param *kp)
{
	int err = param_set_uint(val, kp);

	if (!err)
		ft_qp_retain_changed();
	return err;
}

static const struct kernel_param_ops retain_ms_ops = {
	.set = retain_ms_set,
	.get = param_get_uint,
};

module_param_cb(retain_ms, &retain_ms_ops, &ft_retain_ms, 0644);
MODULE_PARM_DESC(retain_ms, "how long a destroyed QP's final counters stay readable (default 60000)");
module_param_named(event_rate, ft_ev_rate, uint, 0644);
MODULE_PARM_DESC(event_rate, "events sent per second at most, over all QPs (default 1000)");
module_param_named(event_qp_interval_ms, ft_ev_qp_interval_ms, uint, 0644);
MODULE_PARM_DESC(event_qp_interval_ms, "least time between two congestion events of one QP (default 100)");
module_param_named(event_quiet_ms, ft_ev_quiet_ms, uint, 0644);
MODULE_PARM_DESC(event_quiet_ms, "quiet time after which a congestion signal is an onset (default 1000)");

static int __init ft_init(void)
{
	int err;

	err = ft_qp_init();
	if (err)
		return err;
	err = ft_nl_init();
	if (err)
		goto err_qp_exit;
	err = ft_events_init();
	if (err)
		goto err_nl_exit;
	/*
	 * Hooks before devices: a QP created while the devices' existing QPs
	 * are walked is then caught by one or the other, never by neither.
	 */
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
	err = ft_dev_init();
	if (err)
		goto err_dcb_exit;
	ft_bench_init();
	return 0;

err_dcb_exit:
	ft_dcb_exit();
err_pfc_exit:
	ft_pfc_exit();
err_hook_exit:
	ft_hook_exit();
err_events_exit:
	ft_events_exit();
err_nl_exit:
	ft_nl_exit();
err_qp_exit:
	ft_qp_exit();
	return err;
}

/*
 * Devices go first: each leaves the device map, and the hooks see nothing
 * of it, before it is freed.  No event is queued once the hooks are off.
 */
static void __exit ft_exit(void)
{
	ft_bench_exit();
	ft_dev_exit();
	ft_dcb_exit();
	ft_pfc_exit();
	ft_hook_exit();
	ft_events_exit();
	ft_nl_exit();
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
