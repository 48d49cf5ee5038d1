// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: the module's parse and account steps on arbitrary bytes. */

#include <stdlib.h>

#include "../../kmod/acct.h"
#include "../../kmod/roce.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ft_qp qp = { .type = 2, .flags = FT_QP_PSN };
	uint8_t cnp[FT_CNP_LEN];
	struct ft_pkt p, c;
	uint32_t avail = size < FT_HDR_MAX ? size : FT_HDR_MAX;

	if (size > 65535)
		return 0;
	if (ft_parse(data, avail, size, &p) != FT_PARSE_OK)
		return 0;
	/* What the kernel relies on, for every input the parser accepts */
	if (p.cls >= FT_CLS_MAX || p.slot >= FT_SLOT_MAX || p.payload > size ||
	    (p.cls == FT_CLS_NAK ? p.slot < FT_CLS_NAK : p.slot != p.cls) ||
	    p.qpn > 0xffffff || p.psn > 0xffffff)
		abort();
	ft_acct_tx(&qp, &p);
	ft_acct_rx(&qp, &p);
	if (ft_dir_packets(&qp.dir_tx) != ft_dir_packets(&qp.dir_rx))
		abort();
	/* the CNP answering it, as the receive tap builds one on a CE mark */
	if (ft_cnp_build(cnp, data, avail, p.qpn, p.tclass >> 2)) {
		if (ft_parse(cnp, sizeof(cnp), sizeof(cnp), &c) != FT_PARSE_OK ||
		    c.cls != FT_CLS_CNP || c.qpn != p.qpn || c.payload ||
		    (c.tclass & 3))
			abort();
	}
	return 0;
}
