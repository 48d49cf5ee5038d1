// SPDX-License-Identifier: GPL-2.0
/* fabtrace policy: show and set the PFC/ECN policy of RDMA ports. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "ft.h"
#include "objects.h"
#include "out.h"
#include "parse.h"
#include "print.h"
#include "util.h"

#define POLICY_HELP	"fabtrace policy help"

#define CFG(a)		FABTRACE_A_POLICY_CFG_##a
#define HAS(c, a)	((c)->have & (1u << CFG(a)))

static int policy_help(struct ft *ft, int argc, char **argv)
{
	(void)ft;
	(void)argc;
	(void)argv;
	printf("Usage: fabtrace policy [ show [ dev DEV ] [ port N ] [ commands ] ]\n"
	       "       fabtrace policy set dev DEV [ port N ] [ trust { pcp | dscp } ]\n"
	       "               [ dscp-map MAP ] [ pfc PRIOS ] [ ecn PRIOS ] [ cnp { on | off } ]\n"
	       "               [ cnp-interval US ] [ cnp-dscp DSCP ]\n"
	       "               [ pfc-watchdog { off | detect MS [ restore MS ] } ]\n"
	       "       fabtrace policy help\n"
	       "where  PRIOS := { none | PRIO[,PRIOS] }     PRIO := 0..7\n"
	       "       MAP   := { default | DSCP:PRIO }[,MAP]   DSCP := 0..63\n"
	       "\n"
	       "The policy of an RDMA port says how its RoCE traffic handles congestion:\n"
	       "which header gives a packet its priority (trust: the VLAN PCP, or the\n"
	       "DSCP through dscp-map), which priorities are lossless (pfc) and ECN-capable\n"
	       "(ecn), whether CE-marked packets are answered with CNPs (cnp, at most one\n"
	       "per QP every cnp-interval microseconds, sent with cnp-dscp), and the PFC\n"
	       "watchdog's pause-storm detection and restoration times (milliseconds,\n"
	       "detect 100..5000, restore 100..60000, twice detect if not given).\n"
	       "\n"
	       "set changes the fields given and leaves the others (needs CAP_NET_ADMIN).\n"
	       "dscp-map entries change those DSCPs; \"default\" first resets every DSCP d\n"
	       "to priority d>>3.  Ports start with the defaults: trust pcp, dscp-map\n"
	       "default, pfc none, ecn none, cnp on, cnp-interval 50, cnp-dscp 48,\n"
	       "pfc-watchdog off.  The policy lives until the module is unloaded.\n"
	       "\n"
	       "show prints each port's policy and where its hardware part stands\n"
	       "(dcb): unsupported when the port's netdev has no DCBNL.  -s lists every\n"
	       "dscp-map entry.  \"commands\" prints \"policy set\" lines that restore the\n"
	       "policy shown, with \"fabtrace -b FILE\".\n"
	       "\n"
	       "Examples:\n"
	       "  fabtrace policy\n"
	       "  fabtrace policy set dev rxe0 trust dscp dscp-map 26:3 pfc 3 ecn 3\n"
	       "  fabtrace policy set dev rxe0 pfc-watchdog detect 200\n"
	       "  fabtrace policy show commands > policy.saved\n"
	       "  fabtrace -b policy.saved\n");
	return 0;
}

/* --- arguments ----------------------------------------------------------- */

static const struct kw on_off_kw[] = {
	{ "on", 1 },
	{ "off", 0 },
	{ NULL, 0 }
};

/* A comma-separated list that fits in @size bytes, without empty items. */
static bool list_fits(const char *s, size_t size)
{
	size_t n = strlen(s);

	return n && n < size && s[0] != ',' && s[n - 1] != ',' && !strstr(s, ",,");
}

/* PRIOS: "none" or "3,4" (priorities 0..7) */
static int prios_arg(struct arg_val *v, void *dst)
{
	char copy[64], *p, *save = NULL;
	uint32_t *mask = dst, m = 0, prio;

	if (!strcmp(v->argv[0], "none")) {
		*mask = 0;
		return 1;
	}
	if (!list_fits(v->argv[0], sizeof(copy)))
		goto bad;
	strcpy(copy, v->argv[0]);
	for (p = strtok_r(copy, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		if (parse_u32(p, 7, &prio))
			goto bad;
		m |= 1u << prio;
	}
	*mask = m;
	return 1;
bad:
	v->why = "not none or a list of priorities 0..7";
	return ARG_INVALID;
}

/* MAP: "default" and DSCP:PRIO entries, comma-separated */
static int dscp_map_arg(struct arg_val *v, void *dst)
{
	struct policy_req *r = dst;
	char copy[1024], *p, *save = NULL, *colon;
	uint32_t dscp, prio;
	unsigned int d;

	if (!list_fits(v->argv[0], sizeof(copy))) {
		v->why = "not a list of DSCP:PRIO (0..63:0..7) or default";
		return ARG_INVALID;
	}
	strcpy(copy, v->argv[0]);
	for (p = strtok_r(copy, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		if (!strcmp(p, "default")) {
			if (r->map_default || r->map_set) {
				v->why = "default must come first, once";
				return ARG_INVALID;
			}
			r->map_default = true;
			for (d = 0; d < 64; d++)
				r->cfg.dscp[d] = d >> 3;
			continue;
		}
		colon = strchr(p, ':');
		if (colon)
			*colon = '\0';
		if (!colon || parse_u32(p, 63, &dscp) || parse_u32(colon + 1, 7, &prio)) {
			v->why = "not a list of DSCP:PRIO (0..63:0..7) or default";
			return ARG_INVALID;
		}
		if (r->map_set & (1ull << dscp)) {
			snprintf(v->buf, sizeof(v->buf), "DSCP %u given twice", dscp);
			v->why = v->buf;
			return ARG_INVALID;
		}
		r->map_set |= 1ull << dscp;
		r->cfg.dscp[dscp] = prio;
	}
	return 1;
}

/* argv[@i], milliseconds from @min to @max, into @dst; -1 with why set */
static int ms_word(struct arg_val *v, int i, uint32_t min, uint32_t max,
		   uint32_t *dst, const char *why)
{
	if (parse_u32(v->argv[i], max, dst) || *dst < min) {
		v->bad = v->argv[i];
		v->why = why;
		return -1;
	}
	return 0;
}

/* "off", or "detect MS [restore MS]": one, two or four words */
static int watchdog_arg(struct arg_val *v, void *dst)
{
	struct policy_req *r = dst;

	if (!strcmp(v->argv[0], "off")) {
		r->cfg.v[CFG(WD_DETECT)] = 0;
		return 1;
	}
	if (strcmp(v->argv[0], "detect")) {
		v->why = "not off or detect MS [restore MS]";
		return ARG_INVALID;
	}
	if (v->argc < 2)
		return ARG_MISSING;
	if (ms_word(v, 1, 100, 5000, &r->cfg.v[CFG(WD_DETECT)],
		    "not a detection time of 100..5000 ms"))
		return ARG_INVALID;
	if (v->argc < 3 || strcmp(v->argv[2], "restore"))
		return 2;
	if (v->argc < 4)
		return ARG_MISSING;
	if (ms_word(v, 3, 100, 60000, &r->cfg.v[CFG(WD_RESTORE)],
		    "not a restoration time of 100..60000 ms"))
		return ARG_INVALID;
	r->cfg.have |= 1u << CFG(WD_RESTORE);
	return 4;
}

int policy_parse_set(int argc, char **argv, struct policy_req *r)
{
	bool seen[FABTRACE_A_POLICY_CFG_MAX + 1] = { false };
	struct ft_policy_cfg *c = &r->cfg;
	const struct arg args[] = {
		{ .key = "help", .kind = ARG_HELP },
		ARG_DEV(&r->dev),
		ARG_PORT(&r->port, &r->has_port),
		{ .key = "trust", .kind = ARG_KW, .kw = ft_kw_trust, .dst = &c->v[CFG(TRUST)],
		  .seen = &seen[CFG(TRUST)] },
		{ .key = "dscp-map", .kind = ARG_FN, .fn = dscp_map_arg, .dst = r,
		  .seen = &seen[CFG(DSCP_MAP)] },
		{ .key = "pfc", .kind = ARG_FN, .fn = prios_arg, .dst = &c->v[CFG(PFC)],
		  .seen = &seen[CFG(PFC)] },
		{ .key = "ecn", .kind = ARG_FN, .fn = prios_arg, .dst = &c->v[CFG(ECN)],
		  .seen = &seen[CFG(ECN)] },
		{ .key = "cnp", .kind = ARG_KW, .kw = on_off_kw, .dst = &c->v[CFG(CNP)],
		  .seen = &seen[CFG(CNP)] },
		{ .key = "cnp-interval", .kind = ARG_U32, .min = 1, .max = 1000000,
		  .dst = &c->v[CFG(CNP_INTERVAL)], .seen = &seen[CFG(CNP_INTERVAL)],
		  .why = "not microseconds from 1 to 1000000" },
		{ .key = "cnp-dscp", .kind = ARG_U32, .max = 63, .dst = &c->v[CFG(CNP_DSCP)],
		  .seen = &seen[CFG(CNP_DSCP)], .why = "not a DSCP 0..63" },
		{ .key = "pfc-watchdog", .kind = ARG_FN, .fn = watchdog_arg, .dst = r,
		  .seen = &seen[CFG(WD_DETECT)] },
		{ .key = NULL }
	};
	unsigned int i;
	int ret;

	memset(r, 0, sizeof(*r));
	ret = args_parse("policy set", POLICY_HELP, args, argc, argv);
	if (ret)
		return ret;
	for (i = 1; i <= FABTRACE_A_POLICY_CFG_MAX; i++)
		if (seen[i])
			c->have |= 1u << i;
	if (!r->dev) {
		ft_err("policy set: \"dev\" is required");
		return -1;
	}
	if (!(c->have & ~(1u << CFG(WD_RESTORE)))) {
		ft_err("policy set: nothing to set, try \"%s\"", POLICY_HELP);
		return -1;
	}
	return 0;
}

/* --- commands ------------------------------------------------------------ */

static void show_policy(struct out *o, const void *rec, bool all)
{
	print_policy(o, rec, all);
}

static void show_command(struct out *o, const void *rec, bool all)
{
	(void)all;
	print_policy_command(o, rec);
}

static int policy_show(struct ft *ft, int argc, char **argv)
{
	struct ft_recs q = { .kind = &ft_policy_recs };
	bool commands = false;
	const struct arg args[] = {
		{ .key = "help", .kind = ARG_HELP },
		ARG_DEV(&q.dev),
		ARG_PORT(&q.port, &q.has_port),
		{ .key = "commands", .kind = ARG_FLAG, .dst = &commands },
		{ .key = NULL }
	};
	int ret;

	ret = args_parse("policy show", POLICY_HELP, args, argc, argv);
	if (ret == ARGS_HELP)
		return policy_help(ft, 0, NULL);
	if (ret)
		return -1;
	/* the kernel filters the dump by what q names */
	return ft_recs_show(ft, &q, true, "policy show",
			    commands ? show_command : show_policy);
}

static int policy_set(struct ft *ft, int argc, char **argv)
{
	struct ft_recs cur;
	const struct ft_policy_rec *v;
	struct policy_req r;
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	struct nl *nl;
	unsigned int i, d;
	int ret;

	ret = policy_parse_set(argc, argv, &r);
	if (ret == ARGS_HELP)
		return policy_help(ft, 0, NULL);
	if (ret)
		return -1;
	nl = ft_nl(ft);
	if (!nl)
		return -1;
	cur = (struct ft_recs){ .kind = &ft_policy_recs, .dev = r.dev,
				.has_port = r.has_port, .port = r.port };
	/* map entries without "default" change the map the port has */
	if ((r.cfg.have & (1u << CFG(DSCP_MAP))) && !r.map_default) {
		ret = ft_recs_get(ft, &cur, false, "policy set");
		v = cur.v;
		if (!ret && (cur.n != 1 || !(v[0].cfg.have & (1u << CFG(DSCP_MAP))))) {
			ft_err("policy set: the kernel sent no dscp-map");
			ret = -1;
		}
		for (d = 0; !ret && d < 64; d++)
			if (!(r.map_set & (1ull << d)))
				r.cfg.dscp[d] = v[0].cfg.dscp[d];
		free(cur.v);
		if (ret)
			return -1;
	}
	nlh = ft_recs_req(nl, &cur, FABTRACE_CMD_POLICY_SET, false);
	nest = mnl_attr_nest_start(nlh, FABTRACE_A_POLICY_CONFIG);
	for (i = 1; i <= FABTRACE_A_POLICY_CFG_MAX; i++) {
		if (!(r.cfg.have & (1u << i)))
			continue;
		if (i == CFG(DSCP_MAP))
			mnl_attr_put(nlh, i, sizeof(r.cfg.dscp), r.cfg.dscp);
		else
			mnl_attr_put_u32(nlh, i, r.cfg.v[i]);
	}
	mnl_attr_nest_end(nlh, nest);
	return nl_do(nl, nlh, NULL, NULL, "policy set");
}

static const struct cmd policy_cmds[] = {
	{ "show", policy_show },
	{ "set", policy_set },
	{ "help", policy_help },
	{ NULL, NULL }
};

int do_policy(struct ft *ft, int argc, char **argv)
{
	return cmd_dispatch(ft, policy_cmds, "policy command", POLICY_HELP, argc, argv);
}
