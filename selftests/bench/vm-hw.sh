#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Benchmark (run by bench.sh in node A): what reading a hardware NIC's counter sets costs.
# timeout=2400
#
# ft_hca (selftests/hca: rxe under another name, with the RDMA core's
# counter sets and mlx5's counters) in rdma_rxe's place, and fabtrace with
# hw_bind=1: N QPs of one process (ft_qps --no-connect, held in INIT), each
# bound by fabtrace to a set of its own (nr_counters=N).  Each poll reads
# every set through nldev, a dump the RDMA core fills by asking the driver
# for each set's values; dev show counts the reads and their time (hw
# reads, read_ns): one read of N sets costs their ratio over 10 s of polls.
# Beside it, the operator's own read of the same sets: rdma -j statistic
# qp show, the median of three runs.  8 sets: a small job; 64 and 512: an
# 8-GPU node's NCCL job on one NIC of eight and on one NIC for all (16
# channels, a ring's two peers, two QPs per connection); 1,000.  bench.sh
# runs it in full runs only (a measurement; hw.sh checks the reads); run
# alone in smoke mode it reads 8 sets.
set -euo pipefail
. "$(dirname "$(readlink -f "$0")")/../lib.sh"
. "$(dirname "$(readlink -f "$0")")/lib-bench.sh"

require_cmd rdma python3 jq
KO=$FT_BUILD/$(uname -r)/hca/ft_hca.ko
[ -f "$KO" ] || skip_all "$KO not built (make test-modules)"
mode=$(cat "$FT_BUILD/bench/mode" 2>/dev/null || echo smoke)
if [ "$mode" = full ]; then
	sizes="8 64 512 1000"
else
	sizes="8"
fi
PROGS=${FT_PROGS:-$FT_BUILD/selftests/progs}
[ -x "$PROGS/ft_qps" ] || PROGS=$FT_REPO/selftests/progs
[ -x "$PROGS/ft_qps" ] || skip_all "ft_qps not built"
res=$FT_OUT/bench-hw.txt
holder=

cleanup() {
	[ -z "$holder" ] || { kill "$holder" 2>/dev/null; wait "$holder" 2>/dev/null; } || true
	rmmod fabtrace 2>/dev/null || true
	rxe_down self || true
	rmmod ft_hca 2>/dev/null || true
}
trap cleanup EXIT

# every one of N QPs in a set of its own, as fabtrace reads them
bound() {
	[ "$(fabtrace -j qp show dev rxe0 | jq '[.[] | select(.source == "set")] | length')" -ge "$1" ]
}
hwv() { fabtrace -j dev show rxe0 | jq ".[0].hw.$1"; }
ktap_plan "$(echo $sizes | wc -w)"
{
	echo ""
	echo "== 5. hardware NIC: reading counter sets, kernel $FT_KVER, ft_hca, one set per QP"
	printf '   %-6s %10s %12s %12s %16s\n' sets reads "ms per read" "us per set" "rdma(8) read s"
} >"$res"
for n in $sizes; do
	rmmod fabtrace 2>/dev/null || true
	hca_swap "$KO" nr_counters="$n" || fail_all "ft_hca did not load in rdma_rxe's place"
	modprobe fabtrace hw_bind=1 hw_poll_ms=200
	"$PROGS/ft_qps" -d rxe0 --no-connect -n "$n" --iters 0 --hold --summary \
		--timeout-s 1200 </dev/null >"$FT_OUT/hw-qps.$n.json" 2>"$FT_OUT/hw-qps.$n.log" &
	holder=$!
	if ! wait_for 600 bound "$n"; then
		ktap_fail "$n QPs bound to $n sets"
		log "sources: $(fabtrace -j qp show dev rxe0 | jq -c 'group_by(.source) | map({(.[0].source): length}) | add')"
	else
		sleep 1
		r0=$(hwv reads) t0=$(hwv read_ns)
		sleep 10
		r1=$(hwv reads) t1=$(hwv read_ns)
		sets=$(rdma -j statistic qp show link rxe0/1 | jq length)
		tr=$(timed rdma -j statistic qp show link rxe0/1)
		printf '   %-6s %10s %12s %12s %16s\n' "$sets" $((r1 - r0)) \
			"$(awk -v t=$((t1 - t0)) -v r=$((r1 - r0)) 'BEGIN { printf "%.2f", r ? t / r / 1e6 : 0 }')" \
			"$(awk -v t=$((t1 - t0)) -v r=$((r1 - r0)) -v n="$sets" \
				'BEGIN { printf "%.1f", r && n ? t / r / n / 1e3 : 0 }')" "$tr" >>"$res"
		ktap_result "$n QPs bound to $n sets, read $((r1 - r0)) times in 10 s" test "$sets" -eq "$n"
	fi
	kill "$holder"
	wait "$holder" || true
	holder=
done
{
	echo "   reads: fabtrace's reads of all the sets in 10 s (hw_poll_ms=200: at most 50)"
	echo "   ms per read: one read of every set (nldev's dump, ft_hca's values), in the kernel (TCG time)"
	echo "   rdma(8) read s: rdma -j statistic qp show of the same sets, the process included"
} >>"$res"
cat "$res"
ktap_finished
