/* SPDX-License-Identifier: GPL-2.0 */
/* A hardware port's congestion counters in fabtrace's terms, from its driver's names. */
#ifndef _FABTRACE_HWTERM_H
#define _FABTRACE_HWTERM_H

#include <stdbool.h>
#include <stdint.h>

#include "rec.h"

enum hw_term {
	HW_ECN_MARKED,		/* RoCE packets received CE-marked */
	HW_CNP_SENT,		/* CNPs sent for them (notification point) */
	HW_CNP_HANDLED,		/* CNPs received that slowed a QP (reaction point) */
	HW_CNP_IGNORED,		/* CNPs received and not acted on */
	HW_NTERMS
};

struct hw_term_def {
	const char *key;	/* JSON and text */
	const char *rate_key;	/* top's JSON: its rate */
	const char *metric;	/* Prometheus, after fabtrace_port_ */
	const char *help;
	const char *names[4];	/* the drivers' names for it, NULL-ended */
};

extern const struct hw_term_def hw_terms[HW_NTERMS];

/* @p's value of @t, by the first of its drivers' names @p counts: false if none. */
bool hw_term_value(const struct ft_dev_hw_port *p, enum hw_term t, uint64_t *v);

#endif /* _FABTRACE_HWTERM_H */
