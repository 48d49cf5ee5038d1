// SPDX-License-Identifier: GPL-2.0
/* Kernel-version shims that need code: the 6.1 genetlink ops merge. */

#include <net/genetlink.h>

#include "compat.h"

#ifdef FT_GENL_MERGE_OPS
static struct genl_ops merged_ops[8];

/* Linux 6.1: one genl_ops per command, holding both do and dump. */
int ft_compat_merge_ops(struct genl_family *family)
{
	const struct genl_ops *in = family->ops;
	unsigned int i, j, n = 0;
	struct genl_ops *m;

	for (i = 0; i < family->n_ops; i++) {
		for (j = 0; j < n; j++)
			if (merged_ops[j].cmd == in[i].cmd)
				break;
		m = &merged_ops[j];
		if (j == n) {
			if (n == ARRAY_SIZE(merged_ops))
				return -E2BIG;
			*m = in[i];
			n++;
		} else {
			if (m->maxattr != in[i].maxattr ||
			    (m->policy && memcmp(m->policy, in[i].policy,
						 (m->maxattr + 1) * sizeof(*m->policy))))
				return -EINVAL;
			m->doit = m->doit ?: in[i].doit;
			m->dumpit = m->dumpit ?: in[i].dumpit;
			m->flags |= in[i].flags;
		}
		m->flags &= ~(GENL_CMD_CAP_DO | GENL_CMD_CAP_DUMP);
	}
	family->ops = merged_ops;
	family->n_ops = n;
	return 0;
}
#endif
