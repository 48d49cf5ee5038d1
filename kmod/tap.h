/* SPDX-License-Identifier: GPL-2.0 */
/* Soft-RoCE data path taps: every packet rxe sends or receives. */
#ifndef _FABTRACE_TAP_H
#define _FABTRACE_TAP_H

#include <linux/ftrace.h>

struct ib_qp;
struct sk_buff;

/* Before the taps are hooked: round-trip timing on or off (module parameter rtt). */
void ft_tap_init(void);
/* Are round trips timed (rtt=1)? */
bool ft_tap_rtt(void);

/*
 * The taps, with the arguments of rxe_icrc_generate(), of
 * rxe_resp_queue_pkt() and rxe_comp_queue_pkt(), and of a packet
 * rxe_rcv() dropped.
 */
void ft_tap_icrc(const struct sk_buff *skb, const void *pkt);
void ft_tap_queue(const void *rxe_qp, const struct sk_buff *skb);
void ft_tap_drop(const struct sk_buff *skb);

/* The same, as ftrace callbacks. */
void ft_tap_tx(unsigned long ip, unsigned long parent_ip,
	       struct ftrace_ops *op, struct ftrace_regs *fregs);
void ft_tap_rx(unsigned long ip, unsigned long parent_ip,
	       struct ftrace_ops *op, struct ftrace_regs *fregs);

#endif /* _FABTRACE_TAP_H */
