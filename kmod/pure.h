/* SPDX-License-Identifier: GPL-2.0 */
/* The few kernel primitives fabtrace's pure code needs, for both builds. */
/*
 * roce.[ch], acct.[ch] and table.h are the parse, account and lookup steps
 * of every packet.  They build unchanged in userspace, so the host unit
 * tests, the fuzzer and the benchmark run the very code the module runs.
 */
#ifndef _FABTRACE_PURE_H
#define _FABTRACE_PURE_H

#ifdef __KERNEL__

#include <linux/types.h>
#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/compiler.h>
#include <linux/crc32.h>
#include <linux/list.h>
#include <linux/rcupdate.h>

#else
/*
 * Userspace builds (the host tests, the fuzzer, the benchmark, the test
 * programs) bring their stand-ins for these with -include.
 */
#ifndef _FABTRACE_SHIM_H
#error "build fabtrace's pure code in userspace with -include selftests/pure/shim.h"
#endif
#endif /* __KERNEL__ */

/*
 * The packet taps read the tables as RCU-sched readers (preemption off:
 * two instructions, where a preemptible RCU read side is two calls), the
 * netlink readers under rcu_read_lock().  Since the RCU flavours merged,
 * synchronize_rcu(), which every free of a table entry waits for, covers
 * both.
 */
#define ft_deref(p)	rcu_dereference_check(p, rcu_read_lock_sched_held())

/* Big-endian loads from packet bytes at any alignment: one move and a swap. */
static inline u32 ft_get_be32(const u8 *p)
{
	u32 v;

	__builtin_memcpy(&v, p, sizeof(v));
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	v = __builtin_bswap32(v);
#endif
	return v;
}

static inline u32 ft_get_be16(const u8 *p)
{
	u16 v;

	__builtin_memcpy(&v, p, sizeof(v));
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	v = __builtin_bswap16(v);
#endif
	return v;
}

#endif /* _FABTRACE_PURE_H */
