/* SPDX-License-Identifier: GPL-2.0 */
/* Lock-free lookup of a device by pointer and of a QP by number (pure C). */
#ifndef _FABTRACE_TABLE_H
#define _FABTRACE_TABLE_H

#include "pure.h"

struct ft_qp;
struct ft_dev;

/*
 * QP numbers are 24 bits.  A two-level radix gives an O(1) lookup of two
 * dependent loads: a root of 32768 pointers per device (256 KiB), and
 * leaves of 512 slots, one page each, allocated when the first QP of their
 * range appears (a page allocation never fails where a larger one might)
 * and kept until the device goes.  Drivers hand out QP numbers densely
 * (rxe counts up from 16), so 100k QPs take 196 leaves: 8 bytes per QP.
 */
#define FT_QPN_BITS	24
#define FT_LEAF_BITS	9
#define FT_LEAF_SIZE	BIT(FT_LEAF_BITS)
#define FT_ROOT_SIZE	BIT(FT_QPN_BITS - FT_LEAF_BITS)

struct ft_leaf {
	struct ft_qp __rcu *slot[FT_LEAF_SIZE];
};

struct ft_qpidx {
	struct ft_leaf __rcu *root[FT_ROOT_SIZE];
};

/*
 * The leaf of every range without QPs, all its slots NULL and never
 * written, so that a lookup tests nothing on its way to the slot.
 */
extern struct ft_leaf ft_leaf_none;

static inline void ft_qpidx_init(struct ft_qpidx *idx)
{
	unsigned int i;

	for (i = 0; i < FT_ROOT_SIZE; i++)
		RCU_INIT_POINTER(idx->root[i], &ft_leaf_none);
}

static inline struct ft_qp *ft_qpidx_find(const struct ft_qpidx *idx, u32 qpn)
{
	const struct ft_leaf *leaf;

	leaf = ft_deref(idx->root[(qpn >> FT_LEAF_BITS) & (FT_ROOT_SIZE - 1)]);
	return ft_deref(leaf->slot[qpn & (FT_LEAF_SIZE - 1)]);
}

/*
 * Devices are found by the ib_device pointer the hooks see, in a small
 * open-addressed table: one probe in the common case, never a lock.
 */
#define FT_DEVMAP_SIZE	64

/*
 * A slot whose device went while there was no memory for a new map: its
 * key no pointer can equal, its device left in place, so a reader that
 * matched the old key still finds the device it matched.
 */
#define FT_DEVMAP_GONE	((const void *)1)

struct ft_devmap_slot {
	const void *key;		/* struct ib_device * */
	struct ft_dev *dev;		/* never NULL once key is set */
};

struct ft_devmap {
	/* FT_DEVMAP_SIZE entries, never NULL: the taps test nothing else */
	struct ft_devmap_slot __rcu *slots;
};

static inline unsigned int ft_devmap_hash(const void *key)
{
	/* ib_device structures are kilobytes large: drop the low bits */
	return (unsigned int)((uintptr_t)key >> 12) & (FT_DEVMAP_SIZE - 1);
}

/*
 * ft_devmap_get() - find @key's device
 *
 * Return: whether @key was found, its device then in @dev.  A hit in the
 * first slot returns true without testing the device, which a slot with
 * a key always has, so a caller's test of the result costs nothing there.
 */
static __always_inline bool ft_devmap_get(const struct ft_devmap *map,
					  const void *key, struct ft_dev **dev)
{
	const struct ft_devmap_slot *slots = ft_deref(map->slots), *s;
	unsigned int i, h;

	/* &slots[ft_devmap_hash(key)], the hash scaled in one step */
	BUILD_BUG_ON(sizeof(*slots) != 16);
	s = (const void *)((const char *)slots +
			   (((uintptr_t)key >> (12 - 4)) &
			    ((FT_DEVMAP_SIZE - 1) << 4)));
	if (likely(s->key == key)) {
		*dev = s->dev;
		return true;
	}
	h = ft_devmap_hash(key);
	for (i = 1; i < FT_DEVMAP_SIZE; i++) {
		s = &slots[(h + i) & (FT_DEVMAP_SIZE - 1)];
		if (s->key == key) {
			*dev = s->dev;
			return true;
		}
		if (!s->key)
			break;
	}
	*dev = NULL;
	return false;
}

static inline struct ft_dev *ft_devmap_find(const struct ft_devmap *map,
					    const void *key)
{
	struct ft_dev *dev;

	ft_devmap_get(map, key, &dev);
	return dev;
}

#endif /* _FABTRACE_TABLE_H */
