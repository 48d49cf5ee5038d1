/* SPDX-License-Identifier: GPL-2.0 */
/* Attaching fabtrace to ib_core and to rdma_rxe, whenever it is loaded. */
#ifndef _FABTRACE_HOOK_H
#define _FABTRACE_HOOK_H

#include <linux/ftrace.h>
#include <linux/types.h>

/*
 * rxe's hot functions call these trampolines (hook.c) directly, where
 * ftrace has direct calls; this is their x86-64 form.
 */
#if defined(CONFIG_X86_64) && defined(CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS)
#define FT_HOOK_DIRECT	1
void ft_tramp_icrc(void);
void ft_tramp_queue(void);
void ft_tramp_cqe(void);
#else
#define ft_tramp_icrc	NULL
#define ft_tramp_queue	NULL
#define ft_tramp_cqe	NULL
#endif

/* A callback on a kernel function's entry, by name (ft_hooks_on()). */
struct ft_hook {
	const char *sym;
	struct ftrace_ops ops;
};

int ft_hooks_on(struct ft_hook *hooks, unsigned int n);
void ft_hooks_off(struct ft_hook *hooks, unsigned int n);
int ft_hook_init(void);
void ft_hook_exit(void);
bool ft_hook_rxe_attached(void);
u64 ft_hook_missed(void);
u64 ft_hook_modify_missed(void);

#endif /* _FABTRACE_HOOK_H */
