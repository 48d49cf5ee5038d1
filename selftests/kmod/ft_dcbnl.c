// SPDX-License-Identifier: GPL-2.0
/* Recording DCBNL operations on a NIC that has none, for fabtrace's DCB tests. */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/version.h>
#include <net/dcbnl.h>

/*
 * No software netdev in the kernel has DCBNL (netdevsim neither), and no
 * NIC QEMU emulates does: this gives one (virtio-net in the test bed) a
 * set of operations that keep what they are told, as hardware would, so
 * that fabtrace's push can be read back through the kernel by dcb(8).
 * The app table is the kernel's own (dcb_ieee_setapp), as in mlx5.
 * Every call is counted; writes to fail_setpfc make the next ones fail,
 * and slow_ms makes each PFC read and write take that long (as a NIC that
 * asks its firmware), with the RTNL held, as DCBNL calls them.
 */
static char *ifname = "eth1";
module_param(ifname, charp, 0444);
MODULE_PARM_DESC(ifname, "the netdev to give DCBNL operations");

static int fail_setpfc;
module_param(fail_setpfc, int, 0644);
MODULE_PARM_DESC(fail_setpfc, "ieee_setpfc fails with -EIO while set");

static unsigned int slow_ms;
module_param(slow_ms, uint, 0644);
MODULE_PARM_DESC(slow_ms, "each ieee_getpfc and ieee_setpfc sleeps this long");

static unsigned int setpfc_calls, setapp_calls, delapp_calls, apptrust_calls;
module_param(setpfc_calls, uint, 0444);
module_param(setapp_calls, uint, 0444);
module_param(delapp_calls, uint, 0444);
module_param(apptrust_calls, uint, 0444);

static struct net_device *ndev;
/* PFC as the hardware holds it; RTNL, as every DCBNL operation runs */
static struct ieee_pfc pfc = { .pfc_cap = 8 };

static void firmware(void)
{
	unsigned int ms = READ_ONCE(slow_ms);

	if (ms)
		msleep(ms);
}

static int rec_getpfc(struct net_device *dev, struct ieee_pfc *p)
{
	firmware();
	*p = pfc;
	return 0;
}

static int rec_setpfc(struct net_device *dev, struct ieee_pfc *p)
{
	setpfc_calls++;
	firmware();
	if (READ_ONCE(fail_setpfc))
		return -EIO;
	pfc.pfc_en = p->pfc_en;
	pfc.mbc = p->mbc;
	pfc.delay = p->delay;
	return 0;
}

static int rec_setapp(struct net_device *dev, struct dcb_app *app)
{
	setapp_calls++;
	return dcb_ieee_setapp(dev, app);
}

static int rec_delapp(struct net_device *dev, struct dcb_app *app)
{
	delapp_calls++;
	return dcb_ieee_delapp(dev, app);
}

static u8 rec_getdcbx(struct net_device *dev)
{
	return DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE;
}

static u8 rec_setdcbx(struct net_device *dev, u8 mode)
{
	return mode != (DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE);
}

#if KERNEL_VERSION(6, 2, 0) <= LINUX_VERSION_CODE
/* apptrust (6.2 on): what the NIC trusts, most trusted first */
static u8 trust[IEEE_8021QAZ_APP_SEL_MAX + 1] = { DCB_APP_SEL_PCP };
static int ntrust = 1;

static int rec_setapptrust(struct net_device *dev, u8 *sel, int n)
{
	apptrust_calls++;
	if (n < 0 || n > ARRAY_SIZE(trust))
		return -EINVAL;
	memcpy(trust, sel, n);
	ntrust = n;
	return 0;
}

static int rec_getapptrust(struct net_device *dev, u8 *sel, int *n)
{
	memcpy(sel, trust, ntrust);
	*n = ntrust;
	return 0;
}
#endif

static const struct dcbnl_rtnl_ops rec_ops = {
	.ieee_getpfc = rec_getpfc,
	.ieee_setpfc = rec_setpfc,
	.ieee_setapp = rec_setapp,
	.ieee_delapp = rec_delapp,
	.getdcbx = rec_getdcbx,
	.setdcbx = rec_setdcbx,
#if KERNEL_VERSION(6, 2, 0) <= LINUX_VERSION_CODE
	.dcbnl_setapptrust = rec_setapptrust,
	.dcbnl_getapptrust = rec_getapptrust,
#endif
};

static int __init ft_dcbnl_init(void)
{
	int err = 0;

	rtnl_lock();
	ndev = __dev_get_by_name(&init_net, ifname);
	if (!ndev) {
		err = -ENODEV;
	} else if (ndev->dcbnl_ops) {
		err = -EBUSY;
	} else {
		dev_hold(ndev);
		ndev->dcbnl_ops = &rec_ops;
		/* as a NIC's DCB coming up would: listeners read it */
		dcbnl_ieee_notify(ndev, RTM_SETDCB, DCB_CMD_IEEE_SET, 0, 0);
	}
	rtnl_unlock();
	if (err)
		pr_err("%s: %s\n", ifname, err == -ENODEV ? "no such netdev" : "has DCBNL already");
	return err;
}

/* The netdev goes back as it was: no operations, no app entries. */
static void __exit ft_dcbnl_exit(void)
{
	struct dcb_ieee_app_dscp_map map;
	struct dcb_app app = { .selector = IEEE_8021QAZ_APP_SEL_DSCP };
	unsigned long prios;
	unsigned int d, p;

	rtnl_lock();
	dcb_ieee_getapp_dscp_prio_mask_map(ndev, &map);
	for (d = 0; d < ARRAY_SIZE(map.map); d++) {
		prios = map.map[d];
		app.protocol = d;
		for_each_set_bit(p, &prios, 8) {
			app.priority = p;
			dcb_ieee_delapp(ndev, &app);
		}
	}
	ndev->dcbnl_ops = NULL;
	rtnl_unlock();
	dev_put(ndev);
}

module_init(ft_dcbnl_init);
module_exit(ft_dcbnl_exit);
MODULE_DESCRIPTION("fabtrace selftest: recording DCBNL operations on a test NIC");
MODULE_LICENSE("GPL");
