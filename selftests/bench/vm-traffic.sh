#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Benchmark (run by bench.sh in node A): perftest with fabtrace loaded and not.
# timeout=1800
#
# Rounds alternate which state goes first, so drift in the emulated nodes
# does not favour one; each state's result is the median of its rounds, and
# the spread (max - min over median) says how noisy the number is.
set -euo pipefail
. "$(dirname "$(readlink -f "$0")")/../lib.sh"

require_peer
require_module fabtrace
require_cmd ib_write_bw ib_send_lat ib_write_lat

mode=$(cat "$FT_BUILD/bench/mode" 2>/dev/null || echo smoke)
if [ "$mode" = full ]; then
	rounds=5 bw_iters=2000 lat_iters=5000
else
	rounds=1 bw_iters=100 lat_iters=200
fi
res=$FT_OUT/bench-traffic.txt
raw=$FT_OUT/bench-traffic.raw
: >"$raw"

cleanup() {
	on_both "rmmod fabtrace 2>/dev/null; true" || true
}
trap cleanup EXIT
rxe_up both

set_state() {
	if [ "$1" = loaded ]; then
		on_both "modprobe fabtrace"
	else
		on_both "rmmod fabtrace 2>/dev/null; true"
	fi
}

# perf TOOL ARGS: run TOOL's server on B and its client here; print the
# client's result line (the one after the header).
perf() {
	local tool=$1 srv line

	shift
	peer -t 300 "$tool -d rxe0 -x 1 $*" >/dev/null 2>&1 &
	srv=$!
	wait_for 20 peer "ss -ltn | grep -q ':18515 '" || fail_all "$tool server did not start"
	line=$(timeout 300 "$tool" -d rxe0 -x 1 "$@" "$FT_PEER_IP" 2>&1 |
	       awk '/#bytes/ { getline; print; exit }')
	wait "$srv" || true
	[ -n "$line" ] || fail_all "$tool gave no result"
	echo "$line"
}

ktap_plan 3
for ((r = 1; r <= rounds; r++)); do
	if ((r % 2)); then order="loaded unloaded"; else order="unloaded loaded"; fi
	for state in $order; do
		set_state "$state"
		bw=$(perf ib_write_bw -s 65536 -n "$bw_iters" | awk '{ print $4 }')
		sl=$(perf ib_send_lat -s 64 -n "$lat_iters" | awk '{ print $5 }')
		wl=$(perf ib_write_lat -s 64 -n "$lat_iters" | awk '{ print $5 }')
		echo "$state $r bw_MBps $bw send_lat_us $sl write_lat_us $wl" | tee -a "$raw"
	done
done

# median: of the numbers on stdin, the median, the smallest and the largest
median() {
	sort -n | awk '{ v[NR] = $1 } END {
		printf "%.17g %.17g %.17g\n", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2,
			v[1], v[NR] }'
}

# stat STATE COL: median and spread of column COL for STATE
stat() {
	awk -v s="$1" -v c="$2" '$1 == s { print $c }' "$raw" | median |
		awk '{ printf "%.3f %.1f\n", $1, $1 ? 100 * ($3 - $2) / $1 : 0 }'
}

# paired COL: the median of each round's loaded / unloaded, and the range
# of those ratios: a round's two runs are minutes apart, not a whole run
paired() {
	awk -v c="$1" '{ v[$1, $2] = $c; n = $2 > n ? $2 : n }
		END { for (r = 1; r <= n; r++) print v["unloaded", r] ? v["loaded", r] / v["unloaded", r] : 0 }' \
		"$raw" | median | awk '{ printf "%.3f %.3f-%.3f\n", $1, $2, $3 }'
}

{
	echo ""
	echo "== 2. traffic overhead: $rounds interleaved round(s) per state, kernel $FT_KVER"
	printf '   %-14s %10s %7s %10s %7s %7s %8s %13s  %s\n' metric loaded spread unloaded spread \
		ratio paired "paired range" goal
	for m in "bw_MBps 4 >=0.99" "send_lat_us 6 <=1.02" "write_lat_us 8 <=1.02"; do
		set -- $m
		read -r lm ls < <(stat loaded "$2")
		read -r um us < <(stat unloaded "$2")
		read -r pm pr < <(paired "$2")
		printf '   %-14s %10s %6s%% %10s %6s%% %7s %8s %13s  %s\n' "$1" "$lm" "$ls" "$um" "$us" \
			"$(awk -v a="$lm" -v b="$um" 'BEGIN { printf "%.3f", b ? a / b : 0 }')" \
			"$pm" "$pr" "$3"
	done
	echo "   bw: ib_write_bw -s 65536 -n $bw_iters; lat: ib_{send,write}_lat -s 64 -n $lat_iters"
	echo "   (typical latency; ratio = median loaded / median unloaded; spread = (max - min) / median;"
	echo "    paired = median over rounds of that round's loaded / unloaded)"
} | tee "$res"

ktap_ok "ib_write_bw ran with and without fabtrace"
ktap_ok "ib_send_lat ran with and without fabtrace"
ktap_ok "ib_write_lat ran with and without fabtrace"
ktap_finished
