/* SPDX-License-Identifier: GPL-2.0 */
/* The fabtrace generic netlink family: what the rest of the module calls. */
#ifndef _FABTRACE_NETLINK_H
#define _FABTRACE_NETLINK_H

struct ft_event;

int ft_nl_init(void);
void ft_nl_exit(void);
int ft_nl_event_send(const struct ft_event *e);

#endif /* _FABTRACE_NETLINK_H */
