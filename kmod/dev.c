// SPDX-License-Identifier: GPL-2.0
/* RDMA device tracking: an ib_client that follows add, remove and rename. */

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "dev.h"

/* Serializes device add, remove and the lists' other writers. */
DEFINE_MUTEX(ft_devs_lock);
LIST_HEAD(ft_devs);
/* the map while no device is known: the taps never test for no map */
static struct ft_devmap_slot devmap_empty[FT_DEVMAP_SIZE];
struct ft_devmap ft_devmap = { .slots = RCU_INITIALIZER(devmap_empty) };

static struct ib_client ft_client;
/* What every device is made of (main.c), in order. */
static const struct ft_dev_part *const *parts;
static unsigned int nparts;

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

/* Free what dev_alloc() allocated, and the first @n parts. */
static void dev_free(struct ft_dev *dev, unsigned int n)
{
	while (n--)
		if (parts[n]->free)
			parts[n]->free(dev);
	free_percpu(dev->pcpu);
	kfree(dev);
}

static struct ft_dev *dev_alloc(struct ib_device *ibdev)
{
	struct ft_dev *dev;
	unsigned int i;
	int err;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return NULL;
	dev->pcpu = alloc_percpu(struct ft_dev_pcpu);
	if (!dev->pcpu)
		goto err_free_dev;
	kref_init(&dev->ref);
	dev->ibdev = ibdev;
	dev->index = ibdev->index;
	strscpy(dev->name, dev_name(&ibdev->dev), sizeof(dev->name));
	strscpy(dev->driver, driver_name(ibdev), sizeof(dev->driver));
	dev->hooked = !strcmp(dev->driver, "rdma_rxe");
	spin_lock_init(&dev->lock);

	for (i = 0; i < nparts; i++) {
		err = parts[i]->add ? parts[i]->add(dev) : 0;
		if (err) {
			pr_err("%s: no %s: %d\n", dev->name, parts[i]->name, err);
			dev_free(dev, i);
			return NULL;
		}
	}
	return dev;

err_free_dev:
	kfree(dev);
	return NULL;
}

static void dev_release(struct kref *ref)
{
	dev_free(container_of(ref, struct ft_dev, ref), nparts);
}

/**
 * ft_dev_unref() - drop a reference to the entry alone (kref_get(&dev->ref))
 * @dev: the device; the last reference frees it, and its parts
 */
void ft_dev_unref(struct ft_dev *dev)
{
	kref_put(&dev->ref, dev_release);
}

/**
 * ft_dev_put() - drop a reference taken by ft_dev_get()
 * @dev: the device
 */
void ft_dev_put(struct ft_dev *dev)
{
	ib_device_put(dev->ibdev);
	ft_dev_unref(dev);
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
	unsigned int i;
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
	/*
	 * Published first, attached second: a QP created meanwhile is added
	 * by the create hook, and the discovery walk skips what is there.
	 */
	for (i = 0; i < nparts; i++)
		if (parts[i]->attach)
			parts[i]->attach(dev);
	pr_debug("tracking %s (%s)\n", dev->name, dev->driver);
	return 0;

err_unlock:
	mutex_unlock(&ft_devs_lock);
	dev_free(dev, nparts);
	return err;
}

static void ft_client_remove(struct ib_device *ibdev, void *data)
{
	struct ft_dev *dev = data;
	unsigned int i;

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
	/* before the ib_device's restrack and ports go */
	for (i = nparts; i--;)
		if (parts[i]->detach)
			parts[i]->detach(dev);
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

/**
 * ft_dev_policy_changed() - tell @dev's parts that @port's policy changed
 * @dev: the device
 * @port: its port
 * @old: the policy before
 * @new: and after
 *
 * Context: the policy lock (ft_policy_edit()).
 */
void ft_dev_policy_changed(const struct ft_dev *dev, u32 port,
			   const struct ft_port_policy *old,
			   const struct ft_port_policy *new)
{
	unsigned int i;

	for (i = 0; i < nparts; i++)
		if (parts[i]->policy_changed)
			parts[i]->policy_changed(dev, port, old, new);
}

/* Tell @dev's parts of a QP entry's publication; dev->lock held. */
void ft_dev_qp_added(const struct ft_dev *dev, struct ft_qp *qp)
{
	unsigned int i;

	lockdep_assert_held(&dev->lock);
	for (i = 0; i < nparts; i++)
		if (parts[i]->qp_added)
			parts[i]->qp_added(dev, qp);
}

/* ... of a change of its path, from @old_port; dev->lock held. */
void ft_dev_qp_moved(const struct ft_dev *dev, struct ft_qp *qp, u32 old_port)
{
	unsigned int i;

	lockdep_assert_held(&dev->lock);
	for (i = 0; i < nparts; i++)
		if (parts[i]->qp_moved)
			parts[i]->qp_moved(dev, qp, old_port);
}

/* ... and of its retirement; dev->lock held. */
void ft_dev_qp_retired(const struct ft_dev *dev, struct ft_qp *qp)
{
	unsigned int i;

	lockdep_assert_held(&dev->lock);
	for (i = 0; i < nparts; i++)
		if (parts[i]->qp_retired)
			parts[i]->qp_retired(dev, qp);
}

/* ... and of its entry being freed, its device perhaps gone. */
void ft_dev_qp_freed(struct ft_qp *qp)
{
	unsigned int i;

	for (i = 0; i < nparts; i++)
		if (parts[i]->qp_freed)
			parts[i]->qp_freed(qp);
}

/**
 * ft_dev_init() - track RDMA devices, each made of the parts of @table
 * @table: the parts of a device, in the order they are set up
 * @n: how many
 *
 * Return: 0 or -errno.
 */
int ft_dev_init(const struct ft_dev_part *const *table, unsigned int n)
{
	parts = table;
	nparts = n;
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
	struct ft_dev *dev;
	unsigned int i;
	u32 index = 0;

	/*
	 * What fabtrace did to the devices that stay is undone first, from
	 * this task: the client's removal of a device can run inside nldev
	 * (a device's own, beside this), where that would wait for nldev.
	 */
	while ((dev = ft_dev_get(index, NULL, true))) {
		for (i = 0; i < nparts; i++)
			if (parts[i]->unload)
				parts[i]->unload(dev);
		index = dev->index + 1;
		ft_dev_put(dev);
	}
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
