// SPDX-License-Identifier: GPL-2.0
/* PFC a NIC's MAC counted: its driver's per-priority pause statistics. */

#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <linux/pm_runtime.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>

#include "pfc-drv.h"

/*
 * The names drivers give their per-priority pause counters, as their
 * sources print them (ethtool -S).  A driver's netdev matches the first
 * family with a frame count for any priority.
 */
static const struct ft_pfc_names pfc_names[] = {
	/* mlx5e: a priority's counters are listed while PFC is on for it */
	{ "mlx5", {
		[FT_PFC_STAT_FRAMES] = { "rx_prio", "_pause" },
		[FT_PFC_STAT_PAUSED_US] = { "rx_prio", "_pause_duration" } } },
	/*
	 * bnxt_en: PFs' port statistics, the time with the extended ones;
	 * the driver's timer refreshes them once a second
	 */
	{ "bnxt", {
		[FT_PFC_STAT_FRAMES] = { "rx_pfc_ena_frames_pri", "" },
		[FT_PFC_STAT_PAUSED_US] = { "pfc_pri", "_rx_duration_us" } },
	  .min_poll_ms = 1000 },
	/* ice (irdma's E810): XON and XOFF apart, no time */
	{ "ice", {
		[FT_PFC_STAT_XOFF] = { "rx_priority_", "_xoff.nic" },
		[FT_PFC_STAT_XON] = { "rx_priority_", "_xon.nic" } } },
	/* i40e (irdma's X722): likewise, in 32 bits */
	{ "i40e", {
		[FT_PFC_STAT_XOFF] = { "port.rx_priority_", "_xoff_rx" },
		[FT_PFC_STAT_XON] = { "port.rx_priority_", "_xon_rx" } },
	  .wrap32 = true },
};

/* A cap on what one driver lists: mlx5 with 256 channels lists some 20,000. */
#define FT_PFC_DRV_MAX_STATS	65536
/*
 * Room past the count: mlx5 asks its firmware which priorities have PFC
 * again while it fills the list, and PFC set by the switch (DCBX in the
 * firmware) changes that without the RTNL.  What a list grown meanwhile
 * writes past the count lands here, and the read is dropped.
 */
#define FT_PFC_DRV_SLACK	64
/* The driver's names are read again this often: a priority swapped for another keeps the count. */
#define FT_PFC_DRV_RELOOK	(10 * HZ)

/* Where one link's driver keeps the counters, and what they were. */
struct ft_pfc_drv {
	const struct ft_pfc_names *names;	/* NULL: none of a family (yet) */
	int n;					/* the statistics at the last look; 0: none */
	unsigned long looked;			/* jiffies of the last look */
	bool stale;				/* a read found the names moved: look again */
	s32 idx[FT_PFC_STATS][FT_PAUSE_PRIOS];	/* -1: none */
	u64 last[FT_PFC_STATS][FT_PAUSE_PRIOS];
	u64 *vals;				/* n + FT_PFC_DRV_SLACK of them, with names */
};

/*
 * Context: RTNL.  Call the driver as ethtool does: its parent awake,
 * begin() and complete() around.  Return: 0 or a negative errno.
 */
static int ops_begin(struct net_device *ndev)
{
	const struct ethtool_ops *ops = ndev->ethtool_ops;
	int err;

	/* a NIC its driver let sleep has nothing to count: not woken for it */
	if (ndev->dev.parent && pm_runtime_suspended(ndev->dev.parent))
		return -EAGAIN;
	if (ndev->dev.parent)
		pm_runtime_get_sync(ndev->dev.parent);
	err = -ENODEV;
	if (!ops || !ops->get_sset_count || !ops->get_strings ||
	    !ops->get_ethtool_stats || !netif_device_present(ndev))
		goto err_put;
	if (ops->begin) {
		err = ops->begin(ndev);
		if (err < 0)
			goto err_put;
	}
	return 0;

err_put:
	if (ndev->dev.parent)
		pm_runtime_put(ndev->dev.parent);
	return err;
}

static void ops_end(struct net_device *ndev)
{
	if (ndev->ethtool_ops->complete)
		ndev->ethtool_ops->complete(ndev);
	if (ndev->dev.parent)
		pm_runtime_put(ndev->dev.parent);
}

/* Context: ops_begin().  The number of statistics the driver lists; <= 0: none. */
static int stats_count(struct net_device *ndev)
{
	int n = ndev->ethtool_ops->get_sset_count(ndev, ETH_SS_STATS);

	return n > FT_PFC_DRV_MAX_STATS ? 0 : n;
}

/* Find which of the @n statistics named at @str are pause counters. */
static void stats_match(struct ft_pfc_drv *drv, const char *str, int n)
{
	unsigned int f, prio;
	int i, k;

	drv->names = NULL;
	for (f = 0; f < ARRAY_SIZE(pfc_names) && !drv->names; f++) {
		memset(drv->idx, 0xff, sizeof(drv->idx));
		for (i = 0; i < n; i++) {
			k = ft_pfc_stat_match(&pfc_names[f], str + i * ETH_GSTRING_LEN,
					      ETH_GSTRING_LEN, &prio);
			if (k < 0)
				continue;
			drv->idx[k][prio] = i;
			if (k != FT_PFC_STAT_PAUSED_US)
				drv->names = &pfc_names[f];
		}
	}
	if (!drv->names)
		memset(drv->idx, 0xff, sizeof(drv->idx));
}

/*
 * Context: ops_begin().  The driver's values into drv->vals.
 * Return: 0, or -EAGAIN if its list changed meanwhile.
 */
static int stats_read(struct ft_pfc_drv *drv, struct net_device *ndev)
{
	struct ethtool_stats st = { .n_stats = drv->n };

	memset(drv->vals, 0, sizeof(*drv->vals) * (drv->n + FT_PFC_DRV_SLACK));
	ndev->ethtool_ops->get_ethtool_stats(ndev, &st, drv->vals);
	return stats_count(ndev) == drv->n ? 0 : -EAGAIN;
}

/*
 * Context: ops_begin().  Read the driver's names (@n of them) again.  A
 * list that names the same counters at the same places keeps counting;
 * another counts from this look on.  Return: 1 if it does, 0 if the
 * counting goes on (or there is nothing to count), or a negative errno.
 */
static int relook(struct ft_pfc_drv *drv, struct net_device *ndev, int n)
{
	s32 idx[FT_PFC_STATS][FT_PAUSE_PRIOS];
	const struct ft_pfc_names *names;
	size_t room = (size_t)n + FT_PFC_DRV_SLACK;
	char *str;
	int k, p, err = -ENOMEM;

	drv->looked = jiffies;
	str = kvcalloc(room, ETH_GSTRING_LEN, GFP_KERNEL);
	if (!str)
		goto err_forget;
	if (n != drv->n || !drv->vals) {
		kvfree(drv->vals);
		drv->vals = kvcalloc(room, sizeof(*drv->vals), GFP_KERNEL);
		if (!drv->vals)
			goto err_free;
	}
	ndev->ethtool_ops->get_strings(ndev, ETH_SS_STATS, str);
	err = -EAGAIN;
	if (stats_count(ndev) != n)
		goto err_free;
	names = drv->names;
	memcpy(idx, drv->idx, sizeof(idx));
	drv->n = n;
	stats_match(drv, str, n);
	kvfree(str);
	if (!drv->names) {
		/* nothing to read: no room kept for it */
		kvfree(drv->vals);
		drv->vals = NULL;
		return 0;
	}
	if (names == drv->names && !memcmp(idx, drv->idx, sizeof(idx)) && !drv->stale)
		return 0;
	err = stats_read(drv, ndev);
	if (err)
		goto err_forget;
	for (k = 0; k < FT_PFC_STATS; k++)
		for (p = 0; p < FT_PAUSE_PRIOS; p++)
			if (drv->idx[k][p] >= 0)
				drv->last[k][p] = drv->vals[drv->idx[k][p]];
	drv->stale = false;
	/* counted from here */
	return 1;

err_free:
	kvfree(str);
err_forget:
	/* the next look starts afresh */
	drv->names = NULL;
	drv->n = 0;
	return err;
}

/**
 * ft_pfc_drv_look() - whether @ndev's driver counts PFC, and from what base
 * @drv: the link's state, allocated at the first look; NULL while the
 *	driver lists no statistics
 * @ndev: the link's netdev
 *
 * Context: RTNL.  Drivers change their list (mlx5 adds a priority's
 * counters when PFC is turned on for it): it is read again when its
 * length changed, or FT_PFC_DRV_RELOOK after the last look.  What was
 * counted before a look that changed where the counters are is not
 * counted.
 * Return: 1 if the driver counts PFC, 2 if it does from this look on (a
 * new base), 0 if not, or a negative errno (-EAGAIN: look again later).
 */
int ft_pfc_drv_look(struct ft_pfc_drv **drv, struct net_device *ndev)
{
	int n, err;

	ASSERT_RTNL();
	err = ops_begin(ndev);
	if (err)
		return err;
	n = stats_count(ndev);
	err = 0;
	if (n <= 0) {
		/* none listed now (or too many): nothing to read from it */
		if (*drv) {
			(*drv)->names = NULL;
			(*drv)->n = 0;
		}
		goto out_end;
	}
	if (!*drv) {
		*drv = kzalloc(sizeof(**drv), GFP_KERNEL);
		err = -ENOMEM;
		if (!*drv)
			goto out_end;
		err = 0;
	}
	if (n != (*drv)->n || (*drv)->stale ||
	    time_after(jiffies, (*drv)->looked + FT_PFC_DRV_RELOOK))
		err = relook(*drv, ndev, n);
out_end:
	ops_end(ndev);
	if (err < 0)
		return err;
	if (!*drv || !(*drv)->names)
		return 0;
	return err ? 2 : 1;
}

/**
 * ft_pfc_drv_read() - what the pause counters counted since the last read
 * @drv: a link whose driver counts PFC
 * @ndev: its netdev
 * @r: the counts, per priority
 *
 * A 32-bit counter lower than it was wrapped; a 64-bit one was reset, or
 * names another priority now: the read is dropped, to look again.
 * Context: RTNL.
 * Return: 0; -EAGAIN when the driver's list changed or is to be read
 * again (look again), or another negative errno.
 */
int ft_pfc_drv_read(struct ft_pfc_drv *drv, struct net_device *ndev,
		    struct ft_pfc_read r[FT_PAUSE_PRIOS])
{
	u64 d[FT_PFC_STATS][FT_PAUSE_PRIOS] = {}, v;
	int k, p, err;

	ASSERT_RTNL();
	/* a look that failed: only another can tell */
	if (!drv->names)
		return -EAGAIN;
	err = ops_begin(ndev);
	if (err)
		return err;
	err = -EAGAIN;
	if (stats_count(ndev) != drv->n ||
	    time_after(jiffies, drv->looked + FT_PFC_DRV_RELOOK))
		goto out_end;
	err = stats_read(drv, ndev);
	if (err)
		goto out_end;
	for (k = 0; k < FT_PFC_STATS; k++)
		for (p = 0; p < FT_PAUSE_PRIOS; p++) {
			if (drv->idx[k][p] < 0)
				continue;
			v = drv->vals[drv->idx[k][p]];
			/*
			 * A 64-bit counter that went back was reset, or is
			 * another priority's now (PFC moved by the switch,
			 * the list as long): its names first, then a base.
			 */
			if (v < drv->last[k][p] && !drv->names->wrap32) {
				drv->stale = true;
				err = -EAGAIN;
				goto out_end;
			}
			d[k][p] = ft_pfc_stat_delta(drv->last[k][p], v, drv->names->wrap32);
		}
	for (k = 0; k < FT_PFC_STATS; k++)
		for (p = 0; p < FT_PAUSE_PRIOS; p++)
			if (drv->idx[k][p] >= 0)
				drv->last[k][p] = drv->vals[drv->idx[k][p]];
	for (p = 0; p < FT_PAUSE_PRIOS; p++)
		r[p] = (struct ft_pfc_read){
			.frames = d[FT_PFC_STAT_FRAMES][p],
			.xoff = d[FT_PFC_STAT_XOFF][p],
			.xon = d[FT_PFC_STAT_XON][p],
			.paused_ns = drv->idx[FT_PFC_STAT_PAUSED_US][p] < 0 ? FT_PFC_NO_TIME :
				     d[FT_PFC_STAT_PAUSED_US][p] * NSEC_PER_USEC,
		};
out_end:
	ops_end(ndev);
	return err;
}

/* The family of names @drv matched; NULL: none. */
const struct ft_pfc_names *ft_pfc_drv_names(const struct ft_pfc_drv *drv)
{
	return drv ? drv->names : NULL;
}

void ft_pfc_drv_free(struct ft_pfc_drv *drv)
{
	if (!drv)
		return;
	kvfree(drv->vals);
	kfree(drv);
}
