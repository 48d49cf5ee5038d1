// SPDX-License-Identifier: GPL-2.0
/* fabtrace: global options, the object table and the top-level help. */

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "ft.h"
#include "objects.h"
#include "parse.h"
#include "util.h"

static void usage(FILE *fp)
{
	fprintf(fp,
		"Usage: fabtrace [ OPTIONS ] OBJECT { COMMAND | help }\n"
		"       fabtrace { -V | --version }\n"
		"       fabtrace { -h | --help | help }\n"
		"where  OBJECT  := { dev | qp | stats | monitor | top | policy | pfc |\n"
		"                    export }\n"
		"       OPTIONS := { -j | --json | -p | --pretty | -s | --stats |\n"
		"                    -n | --numeric | -b | --batch FILE | --count N |\n"
		"                    --rcvbuf BYTES }\n"
		"\n"
		"Objects:\n"
		"  dev      RDMA devices: ports, QP entries, traffic totals\n"
		"  qp       queue pairs: traffic and congestion counters; reset them\n"
		"  stats    the module's statistics about itself\n"
		"  monitor  QP lifecycle and congestion events as they happen\n"
		"  top      QPs ranked by traffic or congestion rates, refreshed\n"
		"  policy   the PFC/ECN policy of RDMA ports: show it, set it\n"
		"  pfc      PFC frames received per port and priority; pause storms\n"
		"  export   everything in the Prometheus text format, bounded, for\n"
		"           node_exporter's textfile collector\n"
		"\"fabtrace OBJECT help\" describes an object's commands; the first\n"
		"command listed is the default (\"fabtrace qp\" = \"fabtrace qp show\").\n"
		"Keywords must be spelled out in full.\n"
		"\n"
		"Options:\n"
		"  -j, --json      JSON: one document per run (monitor, top: one object\n"
		"                  per line); errors stay on stderr\n"
		"  -p, --pretty    indented JSON (implies -j; monitor and top keep one\n"
		"                  object per line)\n"
		"  -s, --stats     every counter\n"
		"  -n, --numeric   exact numbers instead of K/M/G and KiB/MiB/GiB units\n"
		"  -b, --batch FILE  run the commands in FILE (\"-\": standard input), one\n"
		"                  a line without \"fabtrace\", # starts a comment; stops\n"
		"                  at the first that fails, naming its line (as ip -b)\n"
		"      --count N   monitor: exit after N events\n"
		"      --rcvbuf BYTES  netlink receive buffer (default 1 MiB, monitor\n"
		"                  8 MiB; above net.core.rmem_max needs CAP_NET_ADMIN)\n"
		"  -V, --version   print the version\n"
		"  -h, --help      print this help\n"
		"\n"
		"Exit status: 0 on success, 1 on any error, unknown or invalid arguments\n"
		"included (one line on stderr says why).  monitor and top exit 0 when\n"
		"interrupted.\n"
		"\n"
		"Examples:\n"
		"  fabtrace dev\n"
		"  fabtrace qp show dev rxe0\n"
		"  fabtrace -s qp show qpn 17 dev rxe0\n"
		"  fabtrace -j qp show congested sort ce limit 10\n"
		"  fabtrace monitor events ce,cnp,nak\n"
		"  fabtrace top sort retrans\n"
		"  fabtrace stats\n"
		"  fabtrace policy set dev rxe0 trust dscp pfc 3 ecn 3\n"
		"  fabtrace -b policy.saved\n"
		"  fabtrace export textfile\n");
}

static int do_help(struct ft *ft, int argc, char **argv)
{
	(void)ft;
	(void)argv;
	if (argc > 0) {
		ft_err("help: unknown argument \"%s\", try \"fabtrace help\"", argv[0]);
		return -1;
	}
	usage(stdout);
	return 0;
}

/* No default object: "fabtrace" alone is a usage error. */
static const struct cmd objects[] = {
	{ "dev", do_dev },
	{ "qp", do_qp },
	{ "stats", do_stats },
	{ "monitor", do_monitor },
	{ "top", do_top },
	{ "policy", do_policy },
	{ "pfc", do_pfc },
	{ "export", do_export },
	{ "help", do_help },
	{ NULL, NULL }
};

static void version(void)
{
	struct nl nl;

	printf("fabtrace %s\n", FABTRACE_VERSION);
	/* the module's protocol version, when there is a module to ask */
	if (!nl_open(&nl, FT_RCVBUF, true)) {
		printf("kernel: fabtrace netlink family version %u\n", nl.version);
		nl_close(&nl);
	}
}

/* @arg is "--NAME" or "--NAME=value", not an abbreviation of it. */
static bool long_exact(const char *arg, const char *name)
{
	size_t len = strlen(name);

	return !strncmp(arg, "--", 2) && !strncmp(arg + 2, name, len) &&
	       (arg[2 + len] == '\0' || arg[2 + len] == '=');
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "stats", no_argument, NULL, 's' },
		{ "numeric", no_argument, NULL, 'n' },
		{ "batch", required_argument, NULL, 'b' },
		{ "count", required_argument, NULL, 'c' },
		{ "rcvbuf", required_argument, NULL, 'r' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct ft ft = { 0 };
	uint64_t count;
	int opt, ret, idx, at;

	/* "+": options end at the object, as in ip(8) */
	opterr = 0;
	for (;;) {
		at = optind;
		idx = -1;
		opt = getopt_long(argc, argv, "+jpsnb:Vh", longopts, &idx);
		if (opt == -1)
			break;
		/* getopt_long() takes "--jso" for "--json": keywords are exact here */
		if (idx >= 0 && !long_exact(argv[at], longopts[idx].name)) {
			ft_err("unknown option \"%s\", try \"fabtrace help\"", argv[at]);
			return FT_EXIT_ERR;
		}
		switch (opt) {
		case 'j':
			ft.json = true;
			break;
		case 'p':
			ft.json = ft.pretty = true;
			break;
		case 's':
			ft.stats = true;
			break;
		case 'n':
			ft.numeric = true;
			break;
		case 'b':
			ft.batch = optarg;
			break;
		case 'c':
			if (parse_u64(optarg, UINT32_MAX, &count) || !count) {
				ft_err("invalid --count \"%s\": not a number from 1", optarg);
				return FT_EXIT_ERR;
			}
			ft.count = count;
			break;
		case 'r':
			if (parse_u64(optarg, INT32_MAX / 2, &count) || count < 4096) {
				ft_err("invalid --rcvbuf \"%s\": not a number of bytes from 4096 to %d",
				       optarg, INT32_MAX / 2);
				return FT_EXIT_ERR;
			}
			ft.rcvbuf = count;
			break;
		case 'V':
			version();
			return FT_EXIT_OK;
		case 'h':
			usage(stdout);
			return FT_EXIT_OK;
		default:
			if (optopt == 'c' || optopt == 'r' || optopt == 'b')
				ft_err("option \"%s\" needs a value", argv[optind - 1]);
			else if (optopt)
				ft_err("unknown option \"-%c\", try \"fabtrace help\"", optopt);
			else
				ft_err("unknown option \"%s\", try \"fabtrace help\"",
				       argv[optind - 1]);
			return FT_EXIT_ERR;
		}
	}
	argc -= optind;
	argv += optind;
	if (ft.batch && argc > 0) {
		ft_err("-b %s runs the commands of a file: \"%s\" after it is one too many",
		       ft.batch, argv[0]);
		return FT_EXIT_ERR;
	}
	if (argc < 1 && !ft.batch) {
		usage(stderr);
		return FT_EXIT_ERR;
	}

	/* big writes for big dumps; monitor and top flush every line/screen */
	if (!isatty(STDOUT_FILENO))
		setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	ft.out = out_new(stdout, ft.json, ft.pretty, ft.numeric);
	if (ft.batch)
		ret = ft_batch(&ft, objects, ft.batch);
	else
		ret = cmd_dispatch(&ft, objects, "object", "fabtrace help", argc, argv);
	out_free(ft.out);
	if (ft.nl_open)
		nl_close(&ft.nl);
	if (fflush(stdout) || ferror(stdout)) {
		ft_err("cannot write the output");
		ret = -1;
	}
	return ret < 0 ? FT_EXIT_ERR : ret ? FT_EXIT_WARN : FT_EXIT_OK;
}
