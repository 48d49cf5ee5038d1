// SPDX-License-Identifier: GPL-2.0
/* RDMA device tracking: an ib_client that follows add, remove and rename. */

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "dcb.h"
#include "dev.h"
#include "pfc.h"
#include "qp.h"

/* Serializes device add, remove and the lists' other writers. */
DEFINE_MUTEX(ft_devs_lock);
LIST_HEAD(ft_devs);
/* the map while no device is known: the taps never test for no map */
static struct ft_devmap_slot devmap_empty[FT_DEVMAP_SIZE];
struct ft_devmap ft_devmap = { .slots = RCU_INITIALIZER(devmap_empty) };

static struct ib_client ft_client;

static void devmap_free(struct ft_devmap_slot *slots)
{
	if (slots != devmap_empty)
		kfree(slots);
}

static const char *driver_name(const struct ib_device *ibdev)
{
	if (ibdev->ops.owner)
		return module_name(ibdev->ops.owner);
	return ibdev->dev.parent && ibdev->dev.parent->driver ?
	       ibdev->dev.parent->driver->name : "unknown";
}

/*
 * The device map is copied, changed and republished whole: devices come
 * and go rarely, and readers on the packet path never wait.
 */
static int devmap_update(struct ft_dev *add, const struct ft_dev *del)
{
	struct ft_devmap_slot *old, *slots;
	struct ft_dev *dev;
	unsigned int i, n = 0;

	lockdep_assert_held(&ft_devs_lock);
	/* no device left: the static empty map, which is never freed */
	list_for_each_entry(dev, &ft_devs, list)
		n += dev != del;
	if (!n && !add) {
		slots = devmap_empty;
		goto publish;
	}
	n = 0;
	slots = kcalloc(FT_DEVMAP_SIZE, sizeof(*slots), GFP_KERNEL);
	if (!slots)
		return -ENOMEM;

	list_for_each_entry(dev, &ft_devs, list) {
		if (dev == del)
			continue;
		if (++n > FT_DEVMAP_SIZE / 2)
			goto err_full;
		for (i = ft_devmap_hash(dev->ibdev); slots[i].key;
		     i = (i + 1) & (FT_DEVMAP_SIZE - 1))
			;
		slots[i].key = dev->ibdev;
		slots[i].dev = dev;
	}
	if (add) {
		if (++n > FT_DEVMAP_SIZE / 2)
			goto err_full;
		for (i = ft_devmap_hash(add->ibdev); slots[i].key;
		     i = (i + 1) & (FT_DEVMAP_SIZE - 1))
			;
		slots[i].key = add->ibdev;
		slots[i].dev = add;
	}

publish:
	old = rcu_replace_pointer(ft_devmap.slots, slots,
				  lockdep_is_held(&ft_devs_lock));
	synchronize_rcu();
	devmap_free(old);
	return 0;

err_full:
	kfree(slots);
	return -ENOSPC;
}

static struct ft_dev *dev_alloc(struct ib_device *ibdev)
{
	struct ft_dev *dev;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return NULL;
	dev->idx = kvmalloc(sizeof(*dev->idx), GFP_KERNEL);
	if (!dev->idx)
		goto err_free_dev;
	ft_qpidx_init(dev->idx);
	dev->pcpu = alloc_percpu(struct ft_dev_pcpu);
	if (!dev->pcpu)
		goto err_free_idx;
	dev->nr_port_qps = FT_PORT_QPS * (rdma_end_port(ibdev) - rdma_start_port(ibdev) + 1);
	dev->port_qps = kcalloc(dev->nr_port_qps, sizeof(*dev->port_qps), GFP_KERNEL);
	if (!dev->port_qps)
		goto err_free_pcpu;

	kref_init(&dev->ref);
	dev->ibdev = ibdev;
	if (ft_pfc_dev_add(dev))
		goto err_free_port_qps;
	if (ft_dcb_dev_add(dev))
		goto err_free_pfc;
	dev->index = ibdev->index;
	strscpy(dev->name, dev_name(&ibdev->dev), sizeof(dev->name));
	strscpy(dev->driver, driver_name(ibdev), sizeof(dev->driver));
	dev->hooked = !strcmp(dev->driver, "rdma_rxe");
	spin_lock_init(&dev->lock);
	dev->retired_tail = &dev->retired;
	INIT_DELAYED_WORK(&dev->audit, ft_qp_audit_fn);
	return dev;

err_free_pfc:
	ft_pfc_dev_free(dev);
err_free_port_qps:
	kfree(dev->port_qps);
err_free_pcpu:
	free_percpu(dev->pcpu);
err_free_idx:
	kvfree(dev->idx);
err_free_dev:
	kfree(dev);
	return NULL;
}

static void dev_free(struct ft_dev *dev)
{
	ft_qp_free_all(dev);
	ft_policy_free(dev);
	ft_dcb_dev_free(dev);
	ft_pfc_dev_free(dev);
	kfree(dev->port_qps);
	free_percpu(dev->pcpu);
	kvfree(dev->idx);
	kfree(dev);
}

static void dev_release(struct kref *ref)
{
	dev_free(container_of(ref, struct ft_dev, ref));
}

/**
 * ft_dev_put() - drop a reference taken by ft_dev_get()
 * @dev: the device
 */
void ft_dev_put(struct ft_dev *dev)
{
	ib_device_put(dev->ibdev);
	kref_put(&dev->ref, dev_release);
}

/**
 * ft_dev_get() - find a device and hold it and its ib_device
 * @index: RDMA device index (the lowest index at or above it, if @next)
 * @name: device name, or NULL to find by index
 * @next: find the first device whose index is at least @index
 *
 * The holder may sleep and call into the driver (ib_query_port() takes the
 * RTNL in rxe): the references keep both structures alive without holding
 * ft_devs_lock, which device registration takes.
 *
 * Return: the device, or NULL.  Release with ft_dev_put().
 */
struct ft_dev *ft_dev_get(u32 index, const char *name, bool next)
{
	struct ft_dev *dev, *found = NULL;

	mutex_lock(&ft_devs_lock);
	if (next) {
		/* one being unregistered is skipped, not the end of a dump */
		list_for_each_entry(dev, &ft_devs, list) {
			if (dev->index >= index && ib_device_try_get(dev->ibdev)) {
				found = dev;
				break;
			}
		}
	} else {
		found = ft_dev_find(index, name);
		if (found && !ib_device_try_get(found->ibdev))
			found = NULL;
	}
	if (found)
		kref_get(&found->ref);
	mutex_unlock(&ft_devs_lock);
	return found;
}

/**
 * ft_dev_totals() - sum the per-CPU totals of @dev
 * @dev: the device
 * @sum: the sums, whose pkts[] then count packets per class: the NAK
 *	syndromes are folded into FT_CLS_NAK, the slots after it zero
 */
void ft_dev_totals(const struct ft_dev *dev, struct ft_dev_pcpu *sum)
{
	const u64 *src;
	u64 *dst = (u64 *)sum;
	unsigned int cpu, d, i, n = sizeof(*sum) / sizeof(u64);

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		src = (const u64 *)per_cpu_ptr(dev->pcpu, cpu);
		for (i = 0; i < n; i++)
			dst[i] += READ_ONCE(src[i]);
	}
	for (d = 0; d < 2; d++)
		for (i = FT_CLS_NAK + 1; i < FT_SLOT_MAX; i++) {
			sum->pkts[d][FT_CLS_NAK] += sum->pkts[d][i];
			sum->pkts[d][i] = 0;
		}
}

static int ft_client_add(struct ib_device *ibdev)
{
	struct ft_dev *dev, *pos;
	struct list_head *at;
	int err;

	dev = dev_alloc(ibdev);
	if (!dev)
		return -ENOMEM;

	mutex_lock(&ft_devs_lock);
	err = devmap_update(dev, NULL);
	if (err)
		goto err_unlock;
	/* keep the list ordered by index, so dumps can resume by index */
	at = &ft_devs;
	list_for_each_entry(pos, &ft_devs, list) {
		if (pos->index > dev->index) {
			at = &pos->list;
			break;
		}
	}
	list_add_tail_rcu(&dev->list, at);
	ib_set_client_data(ibdev, &ft_client, dev);
	mutex_unlock(&ft_devs_lock);
	/* on the list: the netdev notifier sees its ports from here on */
	ft_pfc_dev_attach(dev);
	ft_dcb_dev_attach(dev);

	/*
	 * Published first, walked second: a QP created meanwhile is added by
	 * the create hook, and the walk skips what is already there.
	 */
	ft_qp_discover(dev);
	pr_debug("tracking %s (%s)\n", dev->name, dev->driver);
	return 0;

err_unlock:
	mutex_unlock(&ft_devs_lock);
	dev_free(dev);
	return err;
}

static void ft_client_remove(struct ib_device *ibdev, void *data)
{
	struct ft_dev *dev = data;

	mutex_lock(&ft_devs_lock);
	list_del_rcu(&dev->list);
	/* devmap_update() waits for every packet-path reader to finish */
	if (devmap_update(NULL, dev)) {
		/* no memory for a new map: retire the slot in place */
		struct ft_devmap_slot *slots;
		unsigned int i;

		slots = rcu_dereference_protected(ft_devmap.slots,
						  lockdep_is_held(&ft_devs_lock));
		for (i = 0; i < FT_DEVMAP_SIZE; i++)
			if (slots[i].key == dev->ibdev)
				WRITE_ONCE(slots[i].key, FT_DEVMAP_GONE);
		synchronize_rcu();
	}
	mutex_unlock(&ft_devs_lock);
	/* the ib_device's restrack is about to go */
	cancel_delayed_work_sync(&dev->audit);
	ft_pfc_dev_detach(dev);
	pr_debug("forgetting %s\n", dev->name);
	kref_put(&dev->ref, dev_release);
}

static void ft_client_rename(struct ib_device *ibdev, void *data)
{
	struct ft_dev *dev = data;

	spin_lock(&dev->lock);
	strscpy(dev->name, dev_name(&ibdev->dev), sizeof(dev->name));
	spin_unlock(&dev->lock);
}

static struct ib_client ft_client = {
	.name	= "fabtrace",
	.add	= ft_client_add,
	.remove	= ft_client_remove,
	.rename	= ft_client_rename,
};

/**
 * ft_dev_find() - find a tracked device by index or, if @name, by name
 * @index: RDMA device index, used when @name is NULL
 * @name: device name, or NULL
 *
 * Context: RCU read side or ft_devs_lock held.
 * Return: the device, or NULL.
 */
struct ft_dev *ft_dev_find(u32 index, const char *name)
{
	struct ft_dev *dev;

	list_for_each_entry_rcu(dev, &ft_devs, list,
				lockdep_is_held(&ft_devs_lock)) {
		if (name ? !strcmp(dev->name, name) : dev->index == index)
			return dev;
	}
	return NULL;
}

int ft_dev_init(void)
{
	return ib_register_client(&ft_client);
}

/*
 * The hooks still run after the client is gone (main.c removes them
 * later): the last map is unpublished, and its readers waited for, before
 * it is freed.
 */
void ft_dev_exit(void)
{
	struct ft_devmap_slot *old;

	ib_unregister_client(&ft_client);
	mutex_lock(&ft_devs_lock);
	old = rcu_replace_pointer(ft_devmap.slots, &devmap_empty[0],
				  lockdep_is_held(&ft_devs_lock));
	mutex_unlock(&ft_devs_lock);
	if (old != devmap_empty) {
		synchronize_rcu();
		devmap_free(old);
	}
}
