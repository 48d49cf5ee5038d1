/* SPDX-License-Identifier: GPL-2.0 */
/* Printing of records the commands share: counters, QPs, devices, ports, events. */
#ifndef _FABTRACE_PRINT_H
#define _FABTRACE_PRINT_H

#include <stddef.h>
#include <stdint.h>

#include "out.h"
#include "rec.h"
#include "units.h"

struct kw;

/* The name of @val in @table, or its decimal value (a newer kernel's). */
const char *kw_text(const struct kw *table, uint32_t val, char *buf, size_t len);

/* One direction's counters: "<indent>tx: packets 1 bytes 2 ..." / {"tx": {...}}. */
void print_traffic(struct out *o, const char *key, const char *indent,
		   const struct ft_traffic *t);
/* Congestion counters, NAKs by syndrome and the last_* times (when set). */
void print_cong(struct out *o, const char *indent, const struct ft_cong *c);

/* Where a QP's numbers come from: "tap", "set", "set-shared(N)", "psn", "none". */
const char *fmt_source(char *buf, size_t len, const struct ft_qp_rec *r);

/* Every field of a QP: a JSON object, or the multi-line text block of -s. */
void print_qp_full(struct out *o, const struct ft_qp_rec *r);
/*
 * The text cells of a QP that a table row shows (qp show, top): pid "-"
 * and comm "[name]" for a kernel consumer, the kernel's strings escaped
 * as out_str() would, the peer as fmt_peer() writes it.
 */
struct qp_cells {
	char qpn[16], pid[16];
	char dev[OUT_ESC_SIZE(FT_NAME_LEN)];
	char comm[OUT_ESC_SIZE(FT_COMM_LEN) + 2];
	char peer[FT_FMT_LEN];
};
void fmt_qp_cells(struct qp_cells *c, const struct ft_qp_rec *r);
/* The table header and one table row (text only). */
void print_qp_header(struct out *o);
void print_qp_row(struct out *o, const struct ft_qp_rec *r);

/* A device: JSON object, or its text block (@stats: every counter). */
void print_dev(struct out *o, const struct ft_dev_rec *r, int stats);

/* Module statistics: JSON object or three text lines. */
void print_stats(struct out *o, const struct ft_stats_rec *r);

/* A port's policy: JSON object, or its text block (@all_map: every dscp-map entry). */
void print_policy(struct out *o, const struct ft_policy_rec *r, bool all_map);
/* One "policy set" line that gives the port this policy (text, or {"command": ...}). */
void print_policy_command(struct out *o, const struct ft_policy_rec *r);

/* A policy-change's fields: " ecn none->3" in text, "old" and "new" in JSON. */
void print_policy_change(struct out *o, const struct ft_policy_cfg *old,
			 const struct ft_policy_cfg *new);

/* A policy-drift's fields: where the hardware (@hw) differs from @c. */
struct ft_policy_hw;
void print_policy_drift(struct out *o, const struct ft_policy_hw *hw,
			const struct ft_policy_cfg *c);

/* A port's PFC counters (@all: every priority, not only the busy ones, in text). */
void print_pfc(struct out *o, const struct ft_pfc_rec *r, bool all);

/* One event: a JSON line or one text line. */
void print_event(struct out *o, const struct ft_event_rec *e);

#endif /* _FABTRACE_PRINT_H */
