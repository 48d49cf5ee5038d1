/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-ins for the kernel primitives of kmod's pure code. */
#ifndef _FABTRACE_SHIM_H
#define _FABTRACE_SHIM_H

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

typedef struct {
	s32 counter;
} atomic_t;

static inline s32 atomic_read(const atomic_t *v)
{
	return __atomic_load_n(&v->counter, __ATOMIC_RELAXED);
}

static inline void atomic_inc(atomic_t *v)
{
	__atomic_fetch_add(&v->counter, 1, __ATOMIC_RELAXED);
}

#define U32_MAX ((u32)~0U)
#define cmpxchg(p, o, n) ({						\
	__typeof__(*(p)) __old = (o);					\
	__atomic_compare_exchange_n((p), &__old, (n), false,		\
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);	\
	__old;								\
})
#define smp_load_acquire(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define smp_store_release(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)

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
#define rcu_dereference_check(p, c) READ_ONCE(p)
#define RCU_INIT_POINTER(p, v) ((p) = (v))
#define rcu_assign_pointer(p, v) __atomic_store_n(&(p), (v), __ATOMIC_RELEASE)
#define BIT(n) (1UL << (n))
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif
#define BUILD_BUG_ON(c) _Static_assert(!(c), #c)


/*
 * The reflected CRC-32 (0xedb88320) of lib/crc32.c's crc32_le(), eight
 * bytes a step through eight tables, as the kernel's generic one goes, so
 * that make bench counts about what the kernel spends on an ICRC.
 */
static inline u32 crc32_le(u32 crc, const u8 *p, size_t len)
{
	static u32 t[8][256];
	static int ready;
	u32 c, lo, hi;
	int i, k;

	if (!ready) {
		for (i = 0; i < 256; i++) {
			c = i;
			for (k = 0; k < 8; k++)
				c = c & 1 ? 0xedb88320 ^ (c >> 1) : c >> 1;
			t[0][i] = c;
		}
		for (i = 0; i < 256; i++)
			for (k = 1; k < 8; k++)
				t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xff];
		ready = 1;
	}
	for (; len >= 8; len -= 8, p += 8) {
		lo = crc ^ (p[0] | p[1] << 8 | p[2] << 16 | (u32)p[3] << 24);
		hi = p[4] | p[5] << 8 | p[6] << 16 | (u32)p[7] << 24;
		crc = t[7][lo & 0xff] ^ t[6][(lo >> 8) & 0xff] ^
		      t[5][(lo >> 16) & 0xff] ^ t[4][lo >> 24] ^
		      t[3][hi & 0xff] ^ t[2][(hi >> 8) & 0xff] ^
		      t[1][(hi >> 16) & 0xff] ^ t[0][hi >> 24];
	}
	while (len--)
		crc = (crc >> 8) ^ t[0][(crc ^ *p++) & 0xff];
	return crc;
}

#endif /* _FABTRACE_SHIM_H */
