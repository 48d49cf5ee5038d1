/* SPDX-License-Identifier: GPL-2.0 */
/* Soft-RoCE data path taps: every packet rxe sends or receives. */
#ifndef _FABTRACE_TAP_H
#define _FABTRACE_TAP_H

#include <linux/ftrace.h>

struct ib_qp;
struct sk_buff;

/* The taps, with the arguments of rxe_icrc_generate() and rxe_rcv(). */
void ft_tap_icrc(const struct sk_buff *skb, const void *pkt);
void ft_tap_rcv(const struct sk_buff *skb);

/* The same, as ftrace callbacks. */
void ft_tap_tx(unsigned long ip, unsigned long parent_ip,
	       struct ftrace_ops *op, struct ftrace_regs *fregs);
void ft_tap_rx(unsigned long ip, unsigned long parent_ip,
	       struct ftrace_ops *op, struct ftrace_regs *fregs);

#endif /* _FABTRACE_TAP_H */
