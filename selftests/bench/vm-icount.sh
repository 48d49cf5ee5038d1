#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Benchmark (run by bench.sh in node A under QEMU's instruction clock):
# soft-RoCE's throughput and latency with fabtrace loaded and not.
# timeout=1800
#
# Under -icount shift=0,sleep=off a guest nanosecond is one instruction
# and an idle vCPU skips ahead to its next timer, so perftest's rates
# count instructions, whatever else the host is doing.  Two nodes would
# not do: each has its own clock, and the wire between them runs in the
# host's time.  So client and server share node A and rxe's loopback,
# where every packet still passes both taps, as it would on two nodes.
# perftest sleeps on completion events (-e): polling on the node's one
# vCPU would measure the scheduler tick.  ib_write_bw and ib_write_lat
# cannot sleep, so ib_send_bw and ib_read_lat stand in for them.
# At one instruction per guest nanosecond, 6.1's rxe at times goes the
# 67 ms of ib_send_bw's default ACK timeout (-u 14) without completing an
# ACK, loaded or not, and resends what is outstanding.  -u 20 (4.3 s)
# keeps those retransmissions out of a measure of fabtrace's cost.
set -euo pipefail
. "$(dirname "$(readlink -f "$0")")/../lib.sh"
. "$(dirname "$(readlink -f "$0")")/lib-bench.sh"

require_module fabtrace
require_cmd ib_send_bw ib_read_lat jq bpftrace
[ "$(cat "$FT_BUILD/bench/clock" 2>/dev/null)" = icount ] ||
	skip_all "needs QEMU's instruction clock (bench.sh boots the node with it)"

mode=$(cat "$FT_BUILD/bench/mode" 2>/dev/null || echo smoke)
if [ "$mode" = full ]; then
	rounds=7 bw_iters=2000 lat_iters=2000 bt_rounds=5 bt_iters=1500
else
	rounds=1 bw_iters=50 lat_iters=100 bt_rounds=1 bt_iters=50
fi
parts=$(cat "$FT_BUILD/bench/parts" 2>/dev/null || echo all)
want() { [ "$parts" = all ] || [[ " $parts " == *" $1 "* ]]; }
bw_args=(-e -s 65536 -u 20 -n "$bw_iters")
lat_args=(-e -s 64 -n "$lat_iters")
mtus=(1500 9000)
res=$FT_OUT/bench-icount.txt
raw=$FT_OUT/bench-icount.raw
self=$(ip -4 -o addr show dev eth0 | awk '{ sub(/\/.*/, "", $4); print $4; exit }')
: >"$res"

bt=
cleanup() {
	[ -z "$bt" ] || kill -KILL "$bt" 2>/dev/null || true
	rmmod fabtrace 2>/dev/null || true
	rxe_down self
	ip link set eth0 mtu 1500
}
trap cleanup EXIT


# counts: packets sent and received by rxe0, as rxe counts them and as
# fabtrace does, and the payload bytes ib_send_bw's QPs sent
counts() {
	echo "$(rxe_stat sent_pkts) $(rxe_stat rcvd_pkts)" \
		"$(fabtrace -j dev show rxe0 | jq -r '.[0] | "\(.tx.packets) \(.rx.packets)"')" \
		"$(fabtrace -j qp show | jq '[.[] | select(.comm == "ib_send_bw") | .tx.bytes] | add // 0')"
}

# check_counts BEFORE AFTER: fabtrace saw every packet rxe sent and
# received, and at least every byte ib_send_bw asked for (a retransmitted
# packet carries its bytes again).  Prints "ok" or what differs.
check_counts() {
	local s0 r0 ft0 fr0 b0 s1 r1 ft1 fr1 b1

	read -r s0 r0 ft0 fr0 b0 <<<"$1"
	read -r s1 r1 ft1 fr1 b1 <<<"$2"
	if [ $((ft1 - ft0)) != $((s1 - s0)) ] || [ $((fr1 - fr0)) != $((r1 - r0)) ] ||
	   [ $((b1 - b0)) -lt $((65536 * bw_iters)) ]; then
		echo "fabtrace sent/received $((ft1 - ft0))/$((fr1 - fr0)) packets, rxe $((s1 - s0))/$((r1 - r0));" \
			"$((b1 - b0)) bytes for $((65536 * bw_iters))"
	else
		echo ok
	fi
}

ktap_plan $((2 * ${#mtus[@]} + 2))
want 2b || mtus=()
for mtu in "${mtus[@]}"; do
	rxe_down self
	ip link set eth0 mtu "$mtu"
	rxe_up self
	pmtu=$(ibv_devinfo -d rxe0 | awk '/active_mtu/ { print $2; exit }')
	: >"$raw.$mtu"
	counted=ok
	# the first runs after a boot or an MTU change find cold caches and
	# slabs still to grow, whichever state they measure: each tool runs
	# once first, unmeasured
	rmmod fabtrace 2>/dev/null || true
	bench_perf self "$self" ib_send_bw "${bw_args[@]}" >/dev/null
	bench_perf self "$self" ib_read_lat "${lat_args[@]}" >/dev/null
	for ((r = 1; r <= rounds; r++)); do
		if ((r % 2)); then order="loaded unloaded"; else order="unloaded loaded"; fi
		for state in $order; do
			rmmod fabtrace 2>/dev/null || true
			[ "$state" = unloaded ] || modprobe fabtrace
			[ "$state" = unloaded ] || c0=$(counts)
			p0=$(rxe_stat sent_pkts)
			bw=$(bench_perf self "$self" ib_send_bw "${bw_args[@]}" | awk '{ print $4 }')
			pkts=$(($(rxe_stat sent_pkts) - p0))
			if [ "$state" = loaded ] && [ "$counted" = ok ]; then
				counted=$(check_counts "$c0" "$(counts)")
			fi
			rl=$(bench_perf self "$self" ib_read_lat "${lat_args[@]}" | awk '{ print $5 }')
			echo "$state $r bw_MBps $bw read_lat_us $rl bw_pkts $pkts" | tee -a "$raw.$mtu"
		done
	done
	{
		echo ""
		echo "== 2b. traffic overhead in instructions (QEMU -icount): one node, rxe loopback,"
		echo "   link MTU $mtu (RoCE MTU $pmtu), $rounds interleaved round(s) per state, kernel $FT_KVER"
		bench_table "$raw.$mtu" "bw_MBps 4 >=0.99" "read_lat_us 6 <=1.02" "bw_pkts 8 (info)"
		echo "   bw: ib_send_bw ${bw_args[*]}; lat: ib_read_lat ${lat_args[*]} (typical)"
		echo "   bw_pkts: packets rxe sent during ib_send_bw, retransmissions included"
	} | tee -a "$res"
	ktap_assert "MTU $mtu: fabtrace's packets == rxe's, ib_send_bw's bytes all counted ($counted)" \
		[ "$counted" = ok ]
	ktap_ok "MTU $mtu: ib_send_bw and ib_read_lat ran with and without fabtrace"
done

if ! want 2b; then
	for mtu in 1500 9000; do
		ktap_skip "MTU $mtu: fabtrace's packets == rxe's" "BENCH_PARTS=\"$parts\""
		ktap_skip "MTU $mtu: ib_send_bw and ib_read_lat ran" "BENCH_PARTS=\"$parts\""
	done
fi
want 2c || { ktap_skip "2c: fabtrace against bpftrace" "BENCH_PARTS=\"$parts\""
	     ktap_skip "2c: the bpftrace script" "BENCH_PARTS=\"$parts\""; ktap_finished; exit 0; }

# --- 2c. against what a user would write: a bpftrace script -----------------
# qp-count.bt counts packets and bytes per QP from kprobes on rxe's transmit
# and receive functions; fabtrace runs with the policy on (ECN: every
# packet ECT(0)-marked).  Overheads are 1 - bw / bw unloaded, per round.
# bpftrace's SIGINT can be lost (see hook_bpf.sh), and a SIGUSR1 that comes
# before its handler is set kills it: the script prints its totals every
# second, the last print after the run is read, and it is stopped with
# SIGKILL.  A round whose totals never came is counted and fails the part.
bt_log=$FT_OUT/bench-icount.bpftrace.log
bt_raw=$FT_OUT/bench-icount.bt.raw
bt_total() {
	local v

	v=$(sed -n "s/^@$1: \([0-9]*\)$/\1/p" "$bt_log" | tail -n 1)
	echo "${v:--1}"
}
ft_pkts() { fabtrace -j dev show rxe0 | jq -r '.[0] | "\(.tx.packets) \(.rx.packets)"'; }
# missed SENT RCVD TX RX: packets rxe sent and received that a counter of
# TX and RX did not count (or counted twice)
missed() { echo $(( ($1 > $3 ? $1 - $3 : $3 - $1) + ($2 > $4 ? $2 - $4 : $4 - $2) )); }
rxe_down self
ip link set eth0 mtu 1500
rxe_up self
bt_args=(-e -s 65536 -u 20 -n "$bt_iters")
: >"$bt_raw"
missed_ft=0 missed_bt=0 bt_unread=0
rmmod fabtrace 2>/dev/null || true
bench_perf self "$self" ib_send_bw "${bt_args[@]}" >/dev/null
for ((r = 1; r <= bt_rounds; r++)); do
	case $((r % 3)) in
	1) order="unloaded fabtrace bpftrace" ;;
	2) order="fabtrace bpftrace unloaded" ;;
	0) order="bpftrace unloaded fabtrace" ;;
	esac
	for state in $order; do
		rmmod fabtrace 2>/dev/null || true
		case $state in
		fabtrace)
			modprobe fabtrace
			fabtrace policy set dev rxe0 ecn 0 pfc 0 pfc-watchdog detect 100
			;;
		bpftrace)
			# -B none: its prints reach the log as they are made.  The
			# log is emptied here, not by the redirection: that runs in
			# the child, maybe after the wait below read the last
			# round's log (rounds at 31 %, bpftrace still starting).
			: >"$bt_log"
			bpftrace -B none "$(dirname "$(readlink -f "$0")")/qp-count.bt" >"$bt_log" 2>&1 &
			bt=$!
			# ready once it prints: "Attaching" comes before its probes are
			wait_for 300 grep -q '^@rx_total:' "$bt_log" || fail_all "bpftrace did not start: $(tail -n 3 "$bt_log")"
			;;
		esac
		c0=$(rxe_stat sent_pkts) r0=$(rxe_stat rcvd_pkts)
		[ "$state" != fabtrace ] || read -r ft0 fr0 < <(ft_pkts)
		bw=$(bench_perf self "$self" ib_send_bw "${bt_args[@]}" | awk '{ print $4 }')
		sent=$(($(rxe_stat sent_pkts) - c0)) rcvd=$(($(rxe_stat rcvd_pkts) - r0))
		case $state in
		fabtrace)
			read -r ft1 fr1 < <(ft_pkts)
			missed_ft=$((missed_ft + $(missed "$sent" "$rcvd" $((ft1 - ft0)) $((fr1 - fr0)))))
			;;
		bpftrace)
			# it attached before c0 and counts from zero: no packet flowed
			# between; two more prints after the run carry its last counts
			sleep 2.5
			kill -KILL "$bt" 2>/dev/null || true
			wait "$bt" 2>/dev/null || true
			bt=
			bt_tx=$(bt_total tx_total) bt_rx=$(bt_total rx_total)
			if [ "$bt_tx" -lt 0 ] || [ "$bt_rx" -lt 0 ]; then
				log "round $r: bpftrace printed no totals: $(tail -n 3 "$bt_log")"
				bt_unread=$((bt_unread + 1))
			else
				missed_bt=$((missed_bt + $(missed "$sent" "$rcvd" "$bt_tx" "$bt_rx")))
			fi
			;;
		esac
		echo "$state $r bw_MBps $bw sent $sent rcvd $rcvd" | tee -a "$bt_raw"
	done
done
rmmod fabtrace 2>/dev/null || true
{
	echo ""
	echo "== 2c. fabtrace (policy on: ECN marks every packet, PFC 0, watchdog) against a"
	echo "   bpftrace script counting packets and bytes per QP (selftests/bench/qp-count.bt),"
	echo "   one node, rxe loopback, RoCE MTU 1024, ib_send_bw ${bt_args[*]},"
	echo "   $bt_rounds interleaved round(s), kernel $FT_KVER, QEMU -icount"
	awk '{ bw[$1, $2] = $4; n = $2 > n ? $2 : n }
	     END {
		for (r = 1; r <= n; r++) {
			of[r] = 1 - bw["fabtrace", r] / bw["unloaded", r]
			ob[r] = 1 - bw["bpftrace", r] / bw["unloaded", r]
			printf "   round %d: unloaded %.2f MB/s, fabtrace %.2f (%.2f %%), bpftrace %.2f (%.2f %%)\n",
				r, bw["unloaded", r], bw["fabtrace", r], 100 * of[r], bw["bpftrace", r], 100 * ob[r]
			sf += of[r]; sb += ob[r]
		}
		printf "   mean overhead: fabtrace %.2f %%, bpftrace %.2f %%; bpftrace / fabtrace: %s (goal >= 9)\n",
			100 * sf / n, 100 * sb / n, sf > 0 ? sprintf("%.1fx", sb / sf) : "fabtrace costs nothing measurable"
	     }' "$bt_raw"
	echo "   packets rxe sent and received that each did not count: fabtrace $missed_ft, bpftrace $missed_bt"
} | tee -a "$res"
ktap_result "2c: fabtrace counted every packet rxe sent and received ($missed_ft missed)" \
	[ "$missed_ft" = 0 ]
ktap_result "2c: the bpftrace script's totals were read every round ($missed_bt packets missed)" \
	[ "$bt_unread" = 0 ]
ktap_finished
