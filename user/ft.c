// SPDX-License-Identifier: GPL-2.0
/* The state of one fabtrace invocation, handed to every command. */

#include "ft.h"

struct nl *ft_nl(struct ft *ft)
{
	if (ft->nl_open)
		return &ft->nl;
	if (nl_open(&ft->nl, ft->rcvbuf ? ft->rcvbuf : FT_RCVBUF, false))
		return NULL;
	ft->nl_open = true;
	return &ft->nl;
}
