/* SPDX-License-Identifier: GPL-2.0 */
/* Strict parsing of command-line values: numbers, QP number lists, keywords. */
#ifndef _FABTRACE_PARSE_H
#define _FABTRACE_PARSE_H

#include <stddef.h>
#include <stdint.h>

#define FT_QPN_MAX	0xffffffu

/* A keyword and the protocol value it stands for; tables end with a NULL name. */
struct kw {
	const char *name;
	uint32_t val;
};

extern const struct kw ft_kw_qp_type[];
extern const struct kw ft_kw_qp_state[];
extern const struct kw ft_kw_qp_flag[];
extern const struct kw ft_kw_port_state[];
extern const struct kw ft_kw_phys_state[];
extern const struct kw ft_kw_link_layer[];
extern const struct kw ft_kw_trust[];		/* policy: trust */
extern const struct kw ft_kw_dcb[];		/* policy: dcb state */
extern const struct kw ft_kw_event[];
extern const struct kw ft_kw_source[];		/* where a QP's numbers come from */
extern const struct kw ft_kw_counter_mode[];	/* a hardware port's counter sets */

/* Exact match only (strcmp): 0 and *val set, or -1. */
int kw_lookup(const struct kw *table, const char *name, uint32_t *val);
/* The name of @val, or NULL when the table has none (newer kernel). */
const char *kw_name(const struct kw *table, uint32_t val);
/* "a|b|c" into @buf, for usage messages. */
const char *kw_list(const struct kw *table, char *buf, size_t len);
/* "not one of a|b|c" into @buf, for the message about a bad keyword. */
const char *kw_expect(const struct kw *table, char *buf, size_t len);

/*
 * Decimal only, no sign, no blanks, no empty string, nothing after the
 * digits, at most @max.  0 on success, -1 otherwise (*out untouched).
 */
int parse_u32(const char *s, uint32_t max, uint32_t *out);
int parse_u64(const char *s, uint64_t max, uint64_t *out);

/* An inclusive QP number range. */
struct qpn_range {
	uint32_t min, max;
};

/*
 * "1,3,10-20": items are a number or a range a-b with a <= b, every value at
 * most FT_QPN_MAX, no empty item.  The result is sorted and overlapping or
 * adjacent items are merged, so a QP is never asked for twice.
 * Returns NULL on success (*ranges malloc'ed), else what is wrong.
 */
const char *parse_qpn_list(const char *s, struct qpn_range **ranges, size_t *n);

/* Comma list of event kinds into a bit mask (1 << kind); NULL or what is wrong. */
const char *parse_event_list(const char *s, uint32_t *mask);

#endif /* _FABTRACE_PARSE_H */
