/* SPDX-License-Identifier: GPL-2.0 */
/* Attaching fabtrace to ib_core and to rdma_rxe, whenever it is loaded. */
#ifndef _FABTRACE_HOOK_H
#define _FABTRACE_HOOK_H

#include <linux/ftrace.h>
#include <linux/types.h>

/*
 * Hooks read their target's arguments from the ftrace frame.  6.12 has an
 * accessor; 6.1's x86 frame is a pt_regs holding the argument registers.
 */
#ifdef ftrace_regs_get_argument
#define ft_arg(fregs, n)	ftrace_regs_get_argument(fregs, n)
#else
#define ft_arg(fregs, n)	regs_get_kernel_argument(&(fregs)->regs, n)
#endif

/*
 * rxe's hot functions call these trampolines (hook.c) directly, where
 * ftrace has direct calls; this is their x86-64 form.
 */
#if defined(CONFIG_X86_64) && defined(CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS)
#define FT_HOOK_DIRECT	1
void ft_tramp_icrc(void);
void ft_tramp_rcv(void);
void ft_tramp_cqe(void);
#else
#define ft_tramp_icrc	NULL
#define ft_tramp_rcv	NULL
#define ft_tramp_cqe	NULL
#endif

int ft_hook_on(struct ftrace_ops *ops, const char *sym);
void ft_hook_off(struct ftrace_ops *ops);
int ft_hook_init(void);
void ft_hook_exit(void);
bool ft_hook_rxe_attached(void);
u64 ft_hook_missed(void);

#endif /* _FABTRACE_HOOK_H */
