/* SPDX-License-Identifier: GPL-2.0 */
/* PFC a NIC's MAC counted: its driver's per-priority pause statistics. */
#ifndef _FABTRACE_PFC_DRV_H
#define _FABTRACE_PFC_DRV_H

#include "pause.h"

struct net_device;
struct ft_pfc_drv;

int ft_pfc_drv_look(struct ft_pfc_drv **drv, struct net_device *ndev);
int ft_pfc_drv_read(struct ft_pfc_drv *drv, struct net_device *ndev,
		    struct ft_pfc_read r[FT_PAUSE_PRIOS]);
const struct ft_pfc_names *ft_pfc_drv_names(const struct ft_pfc_drv *drv);
void ft_pfc_drv_free(struct ft_pfc_drv *drv);

#endif /* _FABTRACE_PFC_DRV_H */
