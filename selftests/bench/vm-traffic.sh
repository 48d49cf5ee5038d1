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
. "$(dirname "$(readlink -f "$0")")/lib-bench.sh"

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


ktap_plan 3
for ((r = 1; r <= rounds; r++)); do
	if ((r % 2)); then order="loaded unloaded"; else order="unloaded loaded"; fi
	for state in $order; do
		set_state "$state"
		bw=$(bench_perf peer "$FT_PEER_IP" ib_write_bw -s 65536 -n "$bw_iters" | awk '{ print $4 }')
		sl=$(bench_perf peer "$FT_PEER_IP" ib_send_lat -s 64 -n "$lat_iters" | awk '{ print $5 }')
		wl=$(bench_perf peer "$FT_PEER_IP" ib_write_lat -s 64 -n "$lat_iters" | awk '{ print $5 }')
		echo "$state $r bw_MBps $bw send_lat_us $sl write_lat_us $wl" | tee -a "$raw"
	done
done

{
	echo ""
	echo "== 2. traffic overhead: $rounds interleaved round(s) per state, kernel $FT_KVER"
	bench_table "$raw" "bw_MBps 4 >=0.99" "send_lat_us 6 <=1.02" "write_lat_us 8 <=1.02"
	echo "   bw: ib_write_bw -s 65536 -n $bw_iters; lat: ib_{send,write}_lat -s 64 -n $lat_iters"
	echo "   (typical latency; ratio = median loaded / median unloaded; spread = (max - min) / median;"
	echo "    paired = median over rounds of that round's loaded / unloaded)"
} | tee "$res"

ktap_ok "ib_write_bw ran with and without fabtrace"
ktap_ok "ib_send_lat ran with and without fabtrace"
ktap_ok "ib_write_lat ran with and without fabtrace"
ktap_finished
