/* SPDX-License-Identifier: GPL-2.0 */
/* The few kernel primitives fabtrace's pure code needs, for both builds. */
/*
 * roce.c, acct.c and table.h are the parse, account and lookup steps of
 * every packet.  They build unchanged in userspace, so the host unit tests,
 * the fuzzer and the benchmark run the very code the module runs.
 */
#ifndef _FABTRACE_PURE_H
#define _FABTRACE_PURE_H

#ifdef __KERNEL__

#include <linux/types.h>
#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/list.h>
#include <linux/rcupdate.h>

#else /* userspace */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef int64_t s64;

typedef struct {
	s64 counter;
} atomic64_t;

/* Relaxed, like the kernel's: only the sum has to be right. */
static inline void atomic64_add(s64 i, atomic64_t *v)
{
	__atomic_fetch_add(&v->counter, i, __ATOMIC_RELAXED);
}

static inline void atomic64_inc(atomic64_t *v)
{
	atomic64_add(1, v);
}

static inline s64 atomic64_read(const atomic64_t *v)
{
	return __atomic_load_n(&v->counter, __ATOMIC_RELAXED);
}

static inline void atomic64_set(atomic64_t *v, s64 i)
{
	__atomic_store_n(&v->counter, i, __ATOMIC_RELAXED);
}

struct list_head {
	struct list_head *next, *prev;
};

#define READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, val) (*(volatile __typeof__(x) *)&(x) = (val))
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define __rcu
#define rcu_dereference(p) READ_ONCE(p)
#define rcu_access_pointer(p) READ_ONCE(p)
#define rcu_assign_pointer(p, v) __atomic_store_n(&(p), (v), __ATOMIC_RELEASE)
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif
#define BUILD_BUG_ON(c) _Static_assert(!(c), #c)

#endif /* __KERNEL__ */

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
