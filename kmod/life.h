/* SPDX-License-Identifier: GPL-2.0 */
/* QP lifecycle hooks: create, modify, error, timers, failed completions. */
#ifndef _FABTRACE_LIFE_H
#define _FABTRACE_LIFE_H

#include <linux/ftrace.h>
#include <linux/kprobes.h>

struct ib_cq;

void ft_life_del(unsigned long ip, unsigned long parent_ip,
		 struct ftrace_ops *op, struct ftrace_regs *fregs);
void ft_life_qp_error(unsigned long ip, unsigned long parent_ip,
		      struct ftrace_ops *op, struct ftrace_regs *fregs);
void ft_life_retrans_timer(unsigned long ip, unsigned long parent_ip,
			   struct ftrace_ops *op, struct ftrace_regs *fregs);
void ft_life_rnr_timer(unsigned long ip, unsigned long parent_ip,
		       struct ftrace_ops *op, struct ftrace_regs *fregs);
void ft_life_cqe(const struct ib_cq *cq, const void *cqe);
void ft_life_cq_post(unsigned long ip, unsigned long parent_ip,
		     struct ftrace_ops *op, struct ftrace_regs *fregs);

int ft_life_add_entry(struct kretprobe_instance *ri, struct pt_regs *regs);
int ft_life_add_return(struct kretprobe_instance *ri, struct pt_regs *regs);
int ft_life_modify_entry(struct kretprobe_instance *ri, struct pt_regs *regs);
int ft_life_modify_return(struct kretprobe_instance *ri, struct pt_regs *regs);
size_t ft_life_probe_data_size(void);

void ft_life_rxe_gone(void);

#endif /* _FABTRACE_LIFE_H */
