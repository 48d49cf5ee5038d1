#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Benchmark (run by bench.sh in node A): memory per QP and full-dump time at scale.
# timeout=2400
#
# N QPs are created (ft_qps --no-connect) on rxe0 with fabtrace loaded.
# Memory: the ft_qp slab cache (pages, as /proc/slabinfo counts them) plus
# the QP number index (fabtrace stats index-bytes), before and after, over
# N.  Dump: `fabtrace -j qp show` against `rdma -j resource show qp` for
# the same QPs, each the median of three runs.  Lookup: the module's own
# device map + QP index + entry load, timed in the kernel (debugfs
# fabtrace/bench_lookup) over random QP numbers among the N.  PFC frame:
# XOFFs for priority 0, the priority of all N QPs, through the module's
# frame handler in softirq context (debugfs fabtrace/bench_pfc): a frame
# touches no QP, so its cost must not grow with N.
set -euo pipefail
. "$(dirname "$(readlink -f "$0")")/../lib.sh"
. "$(dirname "$(readlink -f "$0")")/lib-bench.sh"

require_module fabtrace
require_cmd rdma python3

mode=$(cat "$FT_BUILD/bench/mode" 2>/dev/null || echo smoke)
if [ "$mode" = full ]; then
	sizes="1000 10000 100000" lookups=4000000 frames=1000000
else
	sizes="1000" lookups=100000 frames=100000
fi
BENCH_LOOKUP=/sys/kernel/debug/fabtrace/bench_lookup
BENCH_PFC=/sys/kernel/debug/fabtrace/bench_pfc
PROGS=${FT_PROGS:-$FT_BUILD/selftests/progs}
[ -x "$PROGS/ft_qps" ] || PROGS=$FT_REPO/selftests/progs
[ -x "$PROGS/ft_qps" ] || skip_all "ft_qps not built"
res=$FT_OUT/bench-scale.txt
holder=

cleanup() {
	[ -z "$holder" ] || { kill "$holder" 2>/dev/null; wait "$holder" 2>/dev/null; } || true
	rmmod fabtrace 2>/dev/null || true
}
trap cleanup EXIT
rxe_up self
modprobe fabtrace
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug

# bytes of slab pages the ft_qp cache holds
slab_bytes() {
	awk '$1 == "ft_qp" { print $15 * $6 * 4096; found = 1 }
	     END { if (!found) print 0 }' /proc/slabinfo
}

stat_field() {
	fabtrace -j stats | python3 -c 'import json, sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"
}

ktap_plan "$(echo $sizes | wc -w)"
{
	echo ""
	echo "== 3. scale: kernel $FT_KVER, QPs created by ft_qps --no-connect"
	printf '   %-8s %10s %10s %12s %10s %12s %12s %7s %10s %10s\n' QPs "entry B" "index B" \
		"bytes/QP" goal "fabtrace s" "rdma s" ratio "lookup ns" "PFC ns"
} >"$res"
for n in $sizes; do
	s0=$(slab_bytes)
	i0=$(stat_field index_bytes)
	fifo=$(mktemp -u)
	mkfifo "$fifo"
	"$PROGS/ft_qps" -d rxe0 --no-connect -n "$n" --srq --hold --summary \
		--timeout-s 1200 >"$fifo" 2>"$FT_OUT/ft_qps.$n.log" &
	holder=$!
	# the JSON line comes once every QP exists
	read -r json <"$fifo" || fail_all "ft_qps gave no result (see ft_qps.$n.log)"
	rm -f "$fifo"
	s1=$(slab_bytes)
	i1=$(stat_field index_bytes)
	live=$(stat_field qps)
	entry=$(( (s1 - s0) / n ))
	index=$(( (i1 - i0) / n ))
	tf=$(timed fabtrace -j qp show)
	tr=$(timed rdma -j resource show qp)
	lk=-
	if echo "$lookups" >"$BENCH_LOOKUP" 2>/dev/null; then
		lk=$(awk '$1 == "lookup_ps" { printf "%.1f", $2 / 1000 }' "$BENCH_LOOKUP")
		log "bench_lookup: $(tr '\n' ' ' <"$BENCH_LOOKUP")"
	fi
	pf=-
	if echo "$frames" >"$BENCH_PFC" 2>/dev/null; then
		pf=$(awk '$1 == "frame_ps" { printf "%.1f", $2 / 1000 }' "$BENCH_PFC")
		log "bench_pfc: $(tr '\n' ' ' <"$BENCH_PFC")"
	fi
	printf '   %-8s %10s %10s %12s %10s %12s %12s %7s %10s %10s\n' "$n" "$entry" "$index" \
		"$((entry + index))" "<=512" "$tf" "$tr" \
		"$(awk -v a="$tr" -v b="$tf" 'BEGIN { printf "%.1fx", (b > 0 ? a / b : 0) }')" \
		"$lk" "$pf" >>"$res"
	log "ft_qps: $(echo "$json" | head -c 300)"
	if [ "$live" -ge "$n" ]; then
		ktap_ok "$n QPs tracked ($live live entries)"
	else
		ktap_fail "$n QPs tracked ($live live entries)"
	fi
	kill "$holder"
	wait "$holder" || true
	holder=
done
{
	echo "   entry B: slab pages of the ft_qp cache per QP; index B: radix per QP"
	echo "   ratio: rdma time / fabtrace time (above 1: fabtrace faster)"
	echo "   lookup ns: device map + QP index + entry, in the kernel, random QPNs (TCG: emulated time)"
	echo "   PFC ns: one PFC XOFF through the frame handler, every QP on its priority (TCG time)"
} >>"$res"
cat "$res"
ktap_finished
