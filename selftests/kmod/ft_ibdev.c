// SPDX-License-Identifier: GPL-2.0
/* A do-nothing InfiniBand device with several ports, for fabtrace's multi-port tests. */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <linux/version.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_verbs.h>

/*
 * Soft-RoCE and siw have one port each; multi-port HCAs (mlx4, qib) give
 * every port its own QP0 and QP1, which is what fabtrace must keep apart.
 * This registers an IB device with nports ports whose operations accept
 * everything and do nothing: the MAD layer then creates and moves to RTS
 * one QP0 and one QP1 per port, as on hardware, and destroys them on
 * unload.  No packet ever flows.  The ports stay down.
 *
 * For the race between a QP moving to another port and a policy change of
 * its old one (multiport.sh), netdevs= gives the ports netdevs (whose PFC
 * frames fabtrace then counts), and movers= makes that many RC QPs, which
 * a thread moves between ports 1 and 2 (ib_modify_qp, IB_QP_PORT) every
 * move_us microseconds until the module goes.
 */
static unsigned int nports = 2;
module_param(nports, uint, 0444);
MODULE_PARM_DESC(nports, "ports of the device (1-8)");

static char *netdevs = "";
module_param(netdevs, charp, 0444);
MODULE_PARM_DESC(netdevs, "comma-separated netdevs of ports 1, 2, ... (none by default)");

static unsigned int movers;
module_param(movers, uint, 0444);
MODULE_PARM_DESC(movers, "RC QPs moved between ports 1 and 2 (0-64)");

static unsigned int move_us = 200;
module_param(move_us, uint, 0444);
MODULE_PARM_DESC(move_us, "time between two moves of the movers");

static unsigned long moves;
module_param(moves, ulong, 0444);
MODULE_PARM_DESC(moves, "moves made so far");

struct ftib_pd { struct ib_pd ibpd; };
struct ftib_cq { struct ib_cq ibcq; };
struct ftib_qp { struct ib_qp ibqp; };
struct ftib_ah { struct ib_ah ibah; };

static struct ib_device *ftib;
static atomic_t next_qpn = ATOMIC_INIT(16);

static int ftib_query_device(struct ib_device *dev, struct ib_device_attr *a,
			     struct ib_udata *udata)
{
	a->max_qp = 64;
	a->max_qp_wr = 1024;
	a->max_send_sge = 4;
	a->max_recv_sge = 4;
	a->max_sge_rd = 4;
	a->max_cq = 64;
	a->max_cqe = 4096;
	a->max_pd = 64;
	a->max_mr = 64;
	a->max_ah = 64;
	a->max_pkeys = 1;
	a->kernel_cap_flags = IBK_LOCAL_DMA_LKEY;
	return 0;
}

static int ftib_query_port(struct ib_device *dev, u32 port, struct ib_port_attr *a)
{
	/* down: no SA or CM agent has anything to send */
	a->state = IB_PORT_DOWN;
	a->phys_state = IB_PORT_PHYS_STATE_DISABLED;
	a->max_mtu = IB_MTU_4096;
	a->active_mtu = IB_MTU_4096;
	a->gid_tbl_len = 1;
	a->pkey_tbl_len = 1;
	a->max_msg_sz = 1 << 20;
	a->lid = port;
	a->active_width = IB_WIDTH_4X;
	a->active_speed = IB_SPEED_EDR;
	return 0;
}

static int ftib_modify_port(struct ib_device *dev, u32 port, int mask,
			    struct ib_port_modify *pm)
{
	return 0;
}

static int ftib_port_immutable(struct ib_device *dev, u32 port,
			       struct ib_port_immutable *im)
{
	im->pkey_tbl_len = 1;
	im->gid_tbl_len = 1;
	im->core_cap_flags = RDMA_CORE_PORT_IBA_IB;
	im->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

static int ftib_query_pkey(struct ib_device *dev, u32 port, u16 index, u16 *pkey)
{
	*pkey = 0xffff;
	return 0;
}

static int ftib_query_gid(struct ib_device *dev, u32 port, int index, union ib_gid *gid)
{
	memset(gid, 0, sizeof(*gid));
	gid->global.subnet_prefix = cpu_to_be64(0xfe80000000000000ULL);
	gid->global.interface_id = cpu_to_be64(port);
	return 0;
}

static int ftib_alloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	return 0;
}

static int ftib_dealloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	return 0;
}

static int ftib_create_ah(struct ib_ah *ah, struct rdma_ah_init_attr *attr,
			  struct ib_udata *udata)
{
	return 0;
}

static int ftib_destroy_ah(struct ib_ah *ah, u32 flags)
{
	return 0;
}

#if KERNEL_VERSION(6, 10, 0) <= LINUX_VERSION_CODE
static int ftib_create_cq(struct ib_cq *cq, const struct ib_cq_init_attr *attr,
			  struct uverbs_attr_bundle *attrs)
#else
static int ftib_create_cq(struct ib_cq *cq, const struct ib_cq_init_attr *attr,
			  struct ib_udata *udata)
#endif
{
	cq->cqe = attr->cqe;
	return 0;
}

static int ftib_destroy_cq(struct ib_cq *cq, struct ib_udata *udata)
{
	return 0;
}

static int ftib_poll_cq(struct ib_cq *cq, int n, struct ib_wc *wc)
{
	return 0;
}

static int ftib_req_notify_cq(struct ib_cq *cq, enum ib_cq_notify_flags flags)
{
	return 0;
}

static int ftib_create_qp(struct ib_qp *qp, struct ib_qp_init_attr *attr,
			  struct ib_udata *udata)
{
	switch (attr->qp_type) {
	case IB_QPT_SMI:
		qp->qp_num = 0;
		break;
	case IB_QPT_GSI:
		qp->qp_num = 1;
		break;
	default:
		qp->qp_num = atomic_inc_return(&next_qpn) & 0xffffff;
		break;
	}
	return 0;
}

static int ftib_modify_qp(struct ib_qp *qp, struct ib_qp_attr *attr, int mask,
			  struct ib_udata *udata)
{
	return 0;
}

static int ftib_query_qp(struct ib_qp *qp, struct ib_qp_attr *attr, int mask,
			 struct ib_qp_init_attr *init)
{
	attr->qp_state = IB_QPS_RTS;
	attr->port_num = qp->port;
	return 0;
}

static int ftib_destroy_qp(struct ib_qp *qp, struct ib_udata *udata)
{
	return 0;
}

/* Receives the MAD layer posts are never completed: no packet comes. */
static int ftib_post_send(struct ib_qp *qp, const struct ib_send_wr *wr,
			  const struct ib_send_wr **bad)
{
	*bad = wr;
	return -EOPNOTSUPP;
}

static int ftib_post_recv(struct ib_qp *qp, const struct ib_recv_wr *wr,
			  const struct ib_recv_wr **bad)
{
	return 0;
}

static struct ib_mr *ftib_get_dma_mr(struct ib_pd *pd, int access)
{
	struct ib_mr *mr = kzalloc(sizeof(*mr), GFP_KERNEL);

	return mr ?: ERR_PTR(-ENOMEM);
}

static struct ib_mr *ftib_reg_user_mr(struct ib_pd *pd, u64 start, u64 len,
				      u64 virt, int access, struct ib_udata *udata)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static int ftib_dereg_mr(struct ib_mr *mr, struct ib_udata *udata)
{
	kfree(mr);
	return 0;
}

static const struct ib_device_ops ftib_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,
	.uverbs_abi_ver = 1,
	.query_device = ftib_query_device,
	.query_port = ftib_query_port,
	.modify_port = ftib_modify_port,
	.get_port_immutable = ftib_port_immutable,
	.query_pkey = ftib_query_pkey,
	.query_gid = ftib_query_gid,
	.alloc_pd = ftib_alloc_pd,
	.dealloc_pd = ftib_dealloc_pd,
	.create_ah = ftib_create_ah,
	.destroy_ah = ftib_destroy_ah,
	.create_cq = ftib_create_cq,
	.destroy_cq = ftib_destroy_cq,
	.poll_cq = ftib_poll_cq,
	.req_notify_cq = ftib_req_notify_cq,
	.create_qp = ftib_create_qp,
	.modify_qp = ftib_modify_qp,
	.query_qp = ftib_query_qp,
	.destroy_qp = ftib_destroy_qp,
	.post_send = ftib_post_send,
	.post_recv = ftib_post_recv,
	.get_dma_mr = ftib_get_dma_mr,
	.reg_user_mr = ftib_reg_user_mr,
	.dereg_mr = ftib_dereg_mr,
	INIT_RDMA_OBJ_SIZE(ib_ah, ftib_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, ftib_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_pd, ftib_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, ftib_qp, ibqp),
};

static struct ib_pd *move_pd;
static struct ib_cq *move_cq;
static struct ib_qp *move_qp[64];
static struct task_struct *mover;

static int move_fn(void *arg)
{
	struct ib_qp_attr attr = {};
	unsigned int i;

	while (!kthread_should_stop()) {
		attr.port_num = attr.port_num == 1 ? 2 : 1;
		for (i = 0; i < movers; i++)
			if (!ib_modify_qp(move_qp[i], &attr, IB_QP_PORT))
				WRITE_ONCE(moves, moves + 1);
		usleep_range(move_us, move_us + 50);
	}
	return 0;
}

static void movers_stop(void)
{
	unsigned int i;

	if (mover)
		kthread_stop(mover);
	for (i = 0; i < ARRAY_SIZE(move_qp) && move_qp[i]; i++)
		ib_destroy_qp(move_qp[i]);
	if (move_cq)
		ib_destroy_cq(move_cq);
	if (move_pd)
		ib_dealloc_pd(move_pd);
}

static int movers_start(void)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	struct ib_cq_init_attr cq = { .cqe = 4 };
	unsigned int i;

	move_pd = ib_alloc_pd(ftib, 0);
	if (IS_ERR(move_pd)) {
		move_pd = NULL;
		return -ENOMEM;
	}
	move_cq = ib_create_cq(ftib, NULL, NULL, NULL, &cq);
	if (IS_ERR(move_cq)) {
		move_cq = NULL;
		goto err;
	}
	init.send_cq = move_cq;
	init.recv_cq = move_cq;
	for (i = 0; i < movers; i++) {
		move_qp[i] = ib_create_qp(move_pd, &init);
		if (IS_ERR(move_qp[i])) {
			move_qp[i] = NULL;
			goto err;
		}
	}
	mover = kthread_run(move_fn, NULL, "ftib_mover");
	if (IS_ERR(mover)) {
		mover = NULL;
		goto err;
	}
	return 0;

err:
	movers_stop();
	return -ENOMEM;
}

/* Give port 1, 2, ... the netdevs netdevs= names, held until unload. */
static struct net_device *port_ndev[8];

static int set_netdevs(void)
{
	char *list, *name, *rest;
	u32 port = 1;
	int err = 0;

	list = kstrdup(netdevs, GFP_KERNEL);
	if (!list)
		return -ENOMEM;
	rest = list;
	while ((name = strsep(&rest, ",")) && *name && port <= nports) {
		port_ndev[port - 1] = dev_get_by_name(&init_net, name);
		if (!port_ndev[port - 1]) {
			err = -ENODEV;
			break;
		}
		err = ib_device_set_netdev(ftib, port_ndev[port - 1], port);
		if (err)
			break;
		port++;
	}
	kfree(list);
	return err;
}

static void put_netdevs(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(port_ndev); i++)
		if (port_ndev[i])
			dev_put(port_ndev[i]);
}

static int __init ftib_init(void)
{
	int err;

	if (!nports || nports > 8 || movers > ARRAY_SIZE(move_qp) ||
	    (movers && nports < 2))
		return -EINVAL;
	ftib = _ib_alloc_device(sizeof(*ftib));
	if (!ftib)
		return -ENOMEM;
	ftib->node_type = RDMA_NODE_IB_CA;
	ftib->phys_port_cnt = nports;
	ftib->num_comp_vectors = 1;
	ib_set_device_ops(ftib, &ftib_ops);
	err = set_netdevs();
	if (err)
		goto err_put;
	/* no DMA device: ib_core maps with virtual addresses, as for rxe */
	err = ib_register_device(ftib, "ftib%d", NULL);
	if (err)
		goto err_put;
	if (movers) {
		err = movers_start();
		if (err)
			goto err_unregister;
	}
	return 0;

err_unregister:
	ib_unregister_device(ftib);
err_put:
	put_netdevs();
	ib_dealloc_device(ftib);
	return err;
}

static void __exit ftib_exit(void)
{
	movers_stop();
	ib_unregister_device(ftib);
	put_netdevs();
	ib_dealloc_device(ftib);
}

module_init(ftib_init);
module_exit(ftib_exit);
MODULE_DESCRIPTION("fabtrace selftest: a multi-port InfiniBand device that does nothing");
MODULE_LICENSE("GPL");
