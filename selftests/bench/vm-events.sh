#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Benchmark (run by bench.sh in node A): the cost of an event withheld or sent.
# timeout=600
#
# fabtrace's debugfs bench_events (test only) queues N events of a dummy QP
# twice: ones its per-QP rate limit withholds, and ones that are queued,
# built into netlink messages and multicast, with a listener and without.
set -euo pipefail
. "$(dirname "$(readlink -f "$0")")/../lib.sh"

require_module fabtrace
mode=$(cat "$FT_BUILD/bench/mode" 2>/dev/null || echo smoke)
if [ "$mode" = full ]; then n=200000; else n=2000; fi
knob=/sys/kernel/debug/fabtrace/bench_events
res=$FT_OUT/bench-events.txt
mon=

cleanup() {
	[ -z "$mon" ] || kill "$mon" 2>/dev/null || true
	rmmod fabtrace 2>/dev/null || true
}
trap cleanup EXIT
modprobe fabtrace
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
[ -w "$knob" ] || skip_all "no $knob (debugfs)"

bench_run() {
	echo "$n" >"$knob"
	awk '{ printf "%s ", $2 } END { print "" }' "$knob"
}

ktap_plan 2
read -r sup_none del_none < <(bench_run)
fabtrace -j monitor >/dev/null &
mon=$!
sleep 1
read -r sup_listen del_listen < <(bench_run)
kill "$mon"
wait "$mon" 2>/dev/null || true
mon=
{
	echo ""
	echo "== 4. event path: $n events each, kernel $FT_KVER (ns per event)"
	printf '   %-34s %12s %12s\n' "" "no listener" "a listener"
	printf '   %-34s %12s %12s\n' "withheld by the per-QP rate limit" "$sup_none" "$sup_listen"
	printf '   %-34s %12s %12s\n' "queued and sent to the events group" "$del_none" "$del_listen"
	echo "   (without a listener the worker builds no message)"
} | tee "$res"
ktap_result "withheld events measured" test "$sup_listen" -gt 0
ktap_result "sent events measured" test "$del_listen" -gt 0
ktap_finished
