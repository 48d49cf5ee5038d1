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

static inline struct ft_qp *ft_qpidx_find(const struct ft_qpidx *idx, u32 qpn)
{
	const struct ft_leaf *leaf;

	leaf = ft_deref(idx->root[(qpn >> FT_LEAF_BITS) & (FT_ROOT_SIZE - 1)]);
	if (unlikely(!leaf))
		return NULL;
	return ft_deref(leaf->slot[qpn & (FT_LEAF_SIZE - 1)]);
}

/*
 * Devices are found by the ib_device pointer the hooks see, in a small
 * open-addressed table: one probe in the common case, never a lock.
 */
#define FT_DEVMAP_SIZE	64

struct ft_devmap_slot {
	const void *key;		/* struct ib_device * */
	struct ft_dev *dev;
};

struct ft_devmap {
	struct ft_devmap_slot __rcu *slots;	/* FT_DEVMAP_SIZE entries */
};

static inline unsigned int ft_devmap_hash(const void *key)
{
	/* ib_device structures are kilobytes large: drop the low bits */
	return (unsigned int)((uintptr_t)key >> 12) & (FT_DEVMAP_SIZE - 1);
}

static inline struct ft_dev *ft_devmap_find(const struct ft_devmap *map,
					    const void *key)
{
	const struct ft_devmap_slot *slots = ft_deref(map->slots), *s;
	unsigned int i, h;

	if (unlikely(!slots))
		return NULL;
	/* &slots[ft_devmap_hash(key)], the hash scaled in one step */
	BUILD_BUG_ON(sizeof(*slots) != 16);
	s = (const void *)((const char *)slots +
			   (((uintptr_t)key >> (12 - 4)) &
			    ((FT_DEVMAP_SIZE - 1) << 4)));
	if (likely(s->key == key))
		return s->dev;
	h = ft_devmap_hash(key);
	for (i = 1; i < FT_DEVMAP_SIZE; i++) {
		s = &slots[(h + i) & (FT_DEVMAP_SIZE - 1)];
		if (likely(s->key == key))
			return s->dev;
		if (!s->key)
			return NULL;
	}
	return NULL;
}

#endif /* _FABTRACE_TABLE_H */
