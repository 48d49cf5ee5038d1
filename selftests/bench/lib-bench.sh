# SPDX-License-Identifier: GPL-2.0
# Summaries for the traffic benchmarks: a raw file holds one line per run,
#   STATE ROUND NAME VALUE [NAME VALUE ...]
# with STATE "loaded" or "unloaded"; these reduce it to medians and ratios.
# shellcheck shell=bash

# timed CMD...: the median of three timed runs of CMD, in seconds.
timed() {
	local TIMEFORMAT=%R

	for _ in 1 2 3; do
		{ time "$@" >/dev/null 2>&1; } 2>&1
	done | sort -n | sed -n 2p
}

# bench_perf WHERE DEST TOOL ARGS: TOOL's server on WHERE (self or peer)
# and its client here, towards DEST; print the client's result line (the
# one after the header).
bench_perf() {
	local where=$1 dest=$2 tool=$3 on srv line

	shift 3
	case $where in
	self) on="sh -c" ;;
	peer) on="peer -t 300" ;;
	*) fail_all "bench_perf: self or peer, not '$where'" ;;
	esac
	$on "$tool -d rxe0 -x 1 $*" >/dev/null 2>&1 &
	srv=$!
	wait_for 20 $on "ss -ltn | grep -q ':18515 '" || fail_all "$tool server did not start"
	line=$(timeout 300 "$tool" -d rxe0 -x 1 "$@" "$dest" 2>&1 |
	       awk '/#bytes/ { getline; print; exit }')
	wait "$srv" || true
	[ -n "$line" ] || fail_all "$tool gave no result"
	echo "$line"
}

# median: of the numbers on stdin, the median, the smallest and the largest
median() {
	sort -n | awk '{ v[NR] = $1 } END {
		printf "%.17g %.17g %.17g\n", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2,
			v[1], v[NR] }'
}

# bench_stat RAW STATE COL: median and spread (%) of column COL for STATE
bench_stat() {
	awk -v s="$2" -v c="$3" '$1 == s { print $c }' "$1" | median |
		awk '{ printf "%.3f %.1f\n", $1, $1 ? 100 * ($3 - $2) / $1 : 0 }'
}

# bench_paired RAW COL: the median of each round's loaded / unloaded, and
# the range of those ratios
bench_paired() {
	awk -v c="$2" '{ v[$1, $2] = $c; n = $2 > n ? $2 : n }
		END { for (r = 1; r <= n; r++) print v["unloaded", r] ? v["loaded", r] / v["unloaded", r] : 0 }' \
		"$1" | median | awk '{ printf "%.3f %.3f-%.3f\n", $1, $2, $3 }'
}

# bench_table RAW "NAME COL GOAL" ...: one line per metric, loaded against
# unloaded
bench_table() {
	local raw=$1 m lm ls um us pm pr

	shift
	printf '   %-14s %10s %7s %10s %7s %7s %8s %13s  %s\n' metric loaded spread unloaded spread \
		ratio paired "paired range" goal
	for m in "$@"; do
		set -- $m
		read -r lm ls < <(bench_stat "$raw" loaded "$2")
		read -r um us < <(bench_stat "$raw" unloaded "$2")
		read -r pm pr < <(bench_paired "$raw" "$2")
		printf '   %-14s %10s %6s%% %10s %6s%% %7s %8s %13s  %s\n' "$1" "$lm" "$ls" "$um" "$us" \
			"$(awk -v a="$lm" -v b="$um" 'BEGIN { printf "%.3f", b ? a / b : 0 }')" \
			"$pm" "$pr" "$3"
	done
}
