/* SPDX-License-Identifier: GPL-2.0 */
/* Test-only debugfs files that time the module's own paths. */
#ifndef _FABTRACE_BENCH_H
#define _FABTRACE_BENCH_H

#ifdef CONFIG_FABTRACE_BENCH
void ft_bench_init(void);
void ft_bench_exit(void);
#else
static inline void ft_bench_init(void) { }
static inline void ft_bench_exit(void) { }
#endif

#endif /* _FABTRACE_BENCH_H */
