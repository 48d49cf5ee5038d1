// SPDX-License-Identifier: GPL-2.0
/* A test NIC's DCBNL operations, recorded, and its MAC's PFC counters, for fabtrace's tests. */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/ethtool.h>
#include <linux/if_ether.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/version.h>
#include <net/dcbnl.h>

/* the module's own parser, copied in beside this file by the Makefile */
#include "pause.h"

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

static bool pause_stats;
module_param(pause_stats, bool, 0444);
MODULE_PARM_DESC(pause_stats, "the NIC's MAC counts PFC frames, as mlx5's ethtool statistics name them");

static struct net_device *ndev;
/* PFC as the hardware holds it; RTNL, as every DCBNL operation runs */
static struct ieee_pfc pfc = { .pfc_cap = 8 };

/*
 * With pause_stats, the NIC's MAC: it counts the PFC frames it receives
 * per priority, and the time each priority was paused (an XOFF pauses
 * for its quanta at the link's speed, until the next frame for it), and
 * lists them as mlx5 does: rx_prioN_pause and rx_prioN_pause_duration
 * (microseconds), for the priorities PFC is on for (the list grows and
 * shrinks with it).  The frames still reach the host, as they would not
 * on hardware: fabtrace must count from these counters, not them.
 */
static const struct ethtool_ops *orig_ops;
/* a copy of the netdev's own, with the statistics extended */
static void *stats_ops;
static DEFINE_SPINLOCK(mac_lock);
static u32 mac_mbps;
static struct mac_prio {
	u64 frames;
	u64 paused_ns;		/* of pauses that ended */
	u64 start, until;	/* the pause in progress; start 0: none */
} mac[8];

static u8 listed(void)
{
	return READ_ONCE(pfc.pfc_en);
}

static int mac_rcv(struct sk_buff *skb, struct net_device *dev,
		   struct packet_type *pt, struct net_device *orig)
{
	u8 f[FT_PAUSE_FRAME_LEN];
	struct ft_pause pause;
	unsigned int i, len;
	u64 now;

	len = min_t(unsigned int, skb->len, FT_PAUSE_FRAME_LEN - ETH_HLEN);
	if (orig != ndev || !skb_mac_header_was_set(skb) ||
	    skb->data - skb_mac_header(skb) != ETH_HLEN)
		goto out;
	memcpy(f, skb_mac_header(skb), ETH_HLEN);
	if (skb_copy_bits(skb, 0, f + ETH_HLEN, len) ||
	    ft_pause_parse(f, ETH_HLEN + len, &pause) != FT_PAUSE_OK || pause.global)
		goto out;
	spin_lock_bh(&mac_lock);
	now = ktime_get_ns();
	for (i = 0; i < 8; i++) {
		struct mac_prio *m = &mac[i];

		if (!(pause.enable & BIT(i)))
			continue;
		m->frames++;
		if (m->start)
			m->paused_ns += min(now, m->until) - m->start;
		m->start = 0;
		if (pause.quanta[i] && mac_mbps) {
			m->start = now;
			m->until = now + ft_pause_ns(pause.quanta[i], mac_mbps);
		}
	}
	spin_unlock_bh(&mac_lock);
out:
	consume_skb(skb);
	return NET_RX_SUCCESS;
}

static struct packet_type mac_pt = {
	.type = cpu_to_be16(ETH_P_PAUSE),
	.func = mac_rcv,
};

static int stats_count(struct net_device *dev, int sset)
{
	int n = orig_ops->get_sset_count ? orig_ops->get_sset_count(dev, sset) : 0;

	if (sset != ETH_SS_STATS || n < 0)
		return n;
	return n + 2 * hweight8(listed());
}

static void stats_strings(struct net_device *dev, u32 sset, u8 *data)
{
	int n = orig_ops->get_sset_count ? orig_ops->get_sset_count(dev, sset) : 0;
	u8 on = listed();
	unsigned int i;

	if (n > 0 && orig_ops->get_strings)
		orig_ops->get_strings(dev, sset, data);
	if (sset != ETH_SS_STATS)
		return;
	data += max(n, 0) * ETH_GSTRING_LEN;
	for (i = 0; i < 8; i++) {
		if (!(on & BIT(i)))
			continue;
		snprintf(data, ETH_GSTRING_LEN, "rx_prio%u_pause", i);
		data += ETH_GSTRING_LEN;
		snprintf(data, ETH_GSTRING_LEN, "rx_prio%u_pause_duration", i);
		data += ETH_GSTRING_LEN;
	}
}

static void stats_values(struct net_device *dev, struct ethtool_stats *st, u64 *v)
{
	int n = orig_ops->get_sset_count ? orig_ops->get_sset_count(dev, ETH_SS_STATS) : 0;
	struct ethtool_stats mine = { .n_stats = max(n, 0) };
	u8 on = listed();
	unsigned int i;
	u64 now;

	if (n > 0 && orig_ops->get_ethtool_stats)
		orig_ops->get_ethtool_stats(dev, &mine, v);
	v += max(n, 0);
	spin_lock_bh(&mac_lock);
	now = ktime_get_ns();
	for (i = 0; i < 8; i++) {
		const struct mac_prio *m = &mac[i];

		if (!(on & BIT(i)))
			continue;
		*v++ = m->frames;
		*v++ = div_u64(m->paused_ns +
			       (m->start ? min(now, m->until) - m->start : 0), NSEC_PER_USEC);
	}
	spin_unlock_bh(&mac_lock);
}

/* Context: RTNL.  The netdev's speed paces its pauses, as a MAC's link does. */
static int mac_start(void)
{
	struct ethtool_link_ksettings ks;
	struct ethtool_ops *ops;

	if (!__ethtool_get_link_ksettings(ndev, &ks) && ks.base.speed != SPEED_UNKNOWN)
		mac_mbps = ks.base.speed;
	orig_ops = ndev->ethtool_ops;
	/* a copy of the netdev's operations, to extend */
	ops = kmemdup(orig_ops, sizeof(*orig_ops), GFP_KERNEL);
	if (!ops)
		return -ENOMEM;
	ops->get_sset_count = stats_count;
	ops->get_strings = stats_strings;
	ops->get_ethtool_stats = stats_values;
	stats_ops = ops;
	ndev->ethtool_ops = ops;
	mac_pt.dev = ndev;
	dev_add_pack(&mac_pt);
	return 0;
}

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
	} else if (pause_stats && mac_start()) {
		err = -ENOMEM;
	} else {
		dev_hold(ndev);
		ndev->dcbnl_ops = &rec_ops;
		/* as a NIC's DCB coming up would: listeners read it */
		dcbnl_ieee_notify(ndev, RTM_SETDCB, DCB_CMD_IEEE_SET, 0, 0);
	}
	rtnl_unlock();
	if (err)
		pr_err("%s: %s\n", ifname, err == -ENODEV ? "no such netdev" :
		       err == -EBUSY ? "has DCBNL already" : "no memory");
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
	if (pause_stats)
		ndev->ethtool_ops = orig_ops;
	rtnl_unlock();
	if (pause_stats) {
		/* and a grace period: no frame handler, no caller of the copy */
		dev_remove_pack(&mac_pt);
		kfree(stats_ops);
	}
	dev_put(ndev);
}

module_init(ft_dcbnl_init);
module_exit(ft_dcbnl_exit);
MODULE_DESCRIPTION("fabtrace selftest: recording DCBNL operations on a test NIC");
MODULE_LICENSE("GPL");
