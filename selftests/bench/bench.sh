#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: fabtrace's speed and memory, each measured side by side in one run.
#
#   bench.sh [full|smoke|host] [KVER]
#
# 1. hot path: the module's parse + lookup + account, built in userspace,
#    instructions per packet under callgrind against a naive design
#    (one mutex, chained hash), at 1k, 100k and 1M QPs;
# 2. traffic: perftest with fabtrace loaded and unloaded, interleaved, in
#    the two QEMU nodes; 2b. the same in one node under QEMU's instruction
#    clock, where the host's load cannot blur a 1 % difference;
# 3. scale: kernel memory per QP entry, and a full `fabtrace -j qp show`
#    against `rdma -j resource show qp` for the same QPs;
# 4. events: what an event costs when rate limiting withholds it, and when
#    it is sent;
# 5. hardware NIC (full only): one read of N counter sets (8 to 1,000) on
#    ft_hca, the counting soft HCA, beside rdma(8)'s read of the same.
# Benchmarks print numbers; they never fail on timing.  smoke runs parts
# 1-4 briefly, to prove they still work (2b and 2c, a node of their own
# under QEMU's instruction clock, in full runs only); host runs part 1
# alone, in full.
# BENCH_PARTS="1 2 2b 2c 3 4 5" picks parts (default: all).
set -euo pipefail

mode=${1:-full}
case $mode in full | smoke | host) ;; *) echo "bench.sh: full, smoke or host, not '$mode'" >&2; exit 2 ;; esac
here=$(dirname "$(readlink -f "$0")")
TOP=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$TOP/build}
out=$BUILD/bench
mkdir -p "$out"

kver=${2:-}
if [ -z "$kver" ]; then
	# the newest Debian kernel; never the debug kernel (make test-debug's)
	kver=$(ls -d /lib/modules/*/build 2>/dev/null | sed 's|/lib/modules/||; s|/build||' |
	       grep -v -- '-ftdebug$' | sort -V | tail -n 1)
fi

say() { printf '%s\n' "$*"; }

parts=${BENCH_PARTS:-all}
[ "$mode" != host ] || parts=1
want() { [ "$parts" = all ] || [[ " $parts " == *" $1 "* ]]; }
# the nodes read it (vm-icount.sh: 2b, 2c)
echo "$parts" >"$out/parts"

# --- 1. hot path ------------------------------------------------------------
# kind LABEL KIND [VAR=VALUE...]: the instructions per packet of fabtrace's
# code (callgrind; the driver loop alone, run_empty, subtracted) for
# hotpath's packets of KIND at 100k QPs, with VAR=VALUE in its environment;
# a line of the table under LABEL.  Run from hotpath (bin, pkts); KIND_N
# packets instead of a quarter of pkts.
kind() {
	local label=$1 kind=$2 n=${KIND_N:-$((pkts / 4))} impl
	local -A ir

	shift 2
	for impl in e f; do
		ir[$impl]=$(env "$@" valgrind --tool=callgrind --toggle-collect='run_*' \
			--callgrind-out-file=/dev/null "$bin" 100000 "$n" "$impl" "$kind" 2>&1 |
			sed -n 's/.*Collected : //p')
	done
	printf '     %-30s %5s instructions\n' "$label" $(( (ir[f] - ir[e]) / n ))
}

hotpath() {
	local bin=$out/hotpath qps pkts n impl f nv k
	local -A ir

	gcc -O2 -g -Wall -Wextra -Werror -include "$TOP/selftests/pure/shim.h" \
		-o "$bin" "$here/hotpath.c" "$TOP/kmod/roce.c" "$TOP/kmod/acct.c" -lpthread
	if [ "$mode" = smoke ]; then qps="1000 100000"; pkts=20000; else qps="1000 100000 1000000"; pkts=400000; fi

	say "== 1. hot path: instructions per packet (callgrind), $pkts packets per run"
	say "   mix per 64 packets: 42 RDMA WRITE (22 tx, 20 rx, ECT(0)), 2 CE-marked,"
	say "   12 ACK, 2 READ response, 2 SEND, 2 CNP, 2 NAK; random QP per packet"
	printf '   %-9s %10s %10s %7s %13s %10s %13s %10s\n' QPs fabtrace naive ratio \
		"fabtrace ns" "naive ns" "fabtrace ns" "naive ns"
	printf '   %-9s %10s %10s %7s %24s %24s\n' "" instructions "" "" "random QP per packet" "bursts of 16 packets"
	for n in $qps; do
		for impl in e f n; do
			valgrind --tool=callgrind --toggle-collect='run_*' \
				--callgrind-out-file="$out/cg.$impl.$n" "$bin" "$n" "$pkts" "$impl" \
				>/dev/null 2>"$out/cg.$impl.$n.log"
			ir[$impl]=$(sed -n 's/.*Collected : //p' "$out/cg.$impl.$n.log")
		done
		# the driver loop alone (run_empty) is subtracted from both
		f=$(( (ir[f] - ir[e]) / pkts ))
		nv=$(( (ir[n] - ir[e]) / pkts ))
		read -r _ _ _ _ _ _ fns _ nns _ < <("$bin" "$n" $((pkts * 5)))
		read -r _ _ _ _ _ _ fbs _ nbs _ < <(HOTPATH_BURST=16 "$bin" "$n" $((pkts * 5)))
		printf '   %-9s %10s %10s %6sx %13s %10s %13s %10s\n' "$n" "$f" "$nv" \
			"$(awk -v a="$nv" -v b="$f" 'BEGIN { printf "%.1f", a / b }')" \
			"$fns" "$nns" "$fbs" "$nbs"
	done
	say "   goal: <= 100 instructions per packet at 1M QPs, flat from 1k to 1M"
	say "   by kind of packet (fabtrace, 100k QPs):"
	for k in tx-write rx-write rx-write-ect tx-ack rx-ack rx-read-resp; do
		kind "$k" "$k"
	done
	# the PFC/ECN policy's part of the transmit tap: one load and a branch
	# while no DSCP is ECN-capable, the marking when one is
	say "   the policy's ECN marking (fabtrace, 100k QPs, tx-write):"
	kind "ECN off" tx-write HOTPATH_ECT=0
	kind "ECN on: every packet marked" tx-write HOTPATH_ECT=0xffffffffffffffff
	# a CE-marked packet: counted, an event noted, and (cnp on) answered
	say "   a CE-marked WRITE received (fabtrace, 100k QPs, rx-write-ce):"
	kind "cnp off" rx-write-ce HOTPATH_CNP=0
	kind "cnp on: its CNP built" rx-write-ce HOTPATH_CNP=1
	say "     (with cnp on the kernel then allocates one skb and sends it: not counted)"
	# round trips: a sample starts on a request asking for its answer
	# and ends on the answer; 5,000 packets on 100k QPs, so that all but
	# a few go to a QP that had none (a second WRITE finds its sample
	# running, a second ACK none to end)
	say "   round-trip timing (fabtrace, 100k QPs, 5,000 packets, each mostly to a QP of its own):"
	gcc -O2 -g -Wall -Wextra -Werror -DHOTPATH_RTT=0 -include "$TOP/selftests/pure/shim.h" \
		-o "$bin-off" "$here/hotpath.c" "$TOP/kmod/roce.c" "$TOP/kmod/acct.c" -lpthread
	KIND_N=5000 bin=$bin-off kind "a WRITE, timing off" tx-write
	KIND_N=5000 kind "a WRITE, starting none" tx-write
	KIND_N=5000 kind "a last WRITE, starting one" tx-write-last
	KIND_N=5000 bin=$bin-off kind "an ACK, timing off" rx-ack
	KIND_N=5000 kind "an ACK, ending none" rx-ack
	KIND_N=5000 kind "an ACK, ending one" rx-ack HOTPATH_RTT_PRIME=1
	say "     (a start or an end reads the clock: clock_gettime here, ktime_get_ns in"
	say "      the kernel; timing off is rtt=0, a static key there, a build without here)"
	# a PFC frame touches no QP (a QP's paused time is derived when read):
	# its cost is the parse and one priority's account, whatever the QPs
	gcc -O2 -g -Wall -Wextra -Werror -include "$TOP/selftests/pure/shim.h" \
		-o "$out/pfcframe" "$here/pfcframe.c"
	for impl in e f; do
		ir[$impl]=$(valgrind --tool=callgrind --toggle-collect='run_*' \
			--callgrind-out-file=/dev/null "$out/pfcframe" "$pkts" "$impl" 2>&1 |
			sed -n 's/.*Collected : //p')
	done
	say "   one PFC frame (parse, one priority's XOFF accounted; no QP touched, so the"
	say "   same at 1k or 1M QPs on that priority): $(( (ir[f] - ir[e]) / pkts )) instructions"
}

# --- 2-4. in the QEMU nodes -------------------------------------------------
# vm_run WHAT CLOCK T...: boot the two nodes on $kver with QEMU's CLOCK
# ("real" or "icount") and run the benchmark scripts T in node A.
vm_run() {
	local what=$1 clock=$2 t

	shift 2
	t="${*/#/$here/}"
	echo "$clock" >"$out/clock"
	if [ "$clock" = icount ]; then
		set -- FT_VM_ACCEL=tcg "FT_VM_QEMU_ARGS=-icount shift=0,sleep=off"
	else
		set --
	fi
	# slab_nomerge: the ft_qp cache keeps its own line in /proc/slabinfo;
	# max: the CPU the counts were always taken on (vm-test.sh's is qemu64)
	env T="$t" FT_VM_TIMEOUT="${FT_VM_TIMEOUT:-3600}" FT_VM_APPEND="slab_nomerge" \
		FT_VM_CPU="${FT_VM_CPU:-max}" "$@" \
		"$TOP/selftests/qemu/vm-test.sh" -q "$kver" >"$out/vm-$clock.log" 2>&1 || {
		tail -n 40 "$out/vm-$clock.log"
		echo "bench.sh: the QEMU part ($what) did not complete" >&2
		return 1
	}
}

# vm_show NAME...: the result files the last vm_run left; a part that
# left none (it skipped: its reason is in the log) fails the benchmark
vm_show() {
	local f rc=0

	for f in "$@"; do
		if [ -f "$BUILD/vm/$kver/out/bench-$f.txt" ]; then
			cat "$BUILD/vm/$kver/out/bench-$f.txt"
		else
			echo "bench.sh: part '$f' measured nothing:" >&2
			grep -h '# SKIP' "$BUILD/vm/$kver/out/results.tap" >&2 || true
			rc=1
		fi
	done
	return $rc
}

vm_parts() {
	say ""
	say "== 2-4. in two QEMU nodes, kernel $kver (results in $BUILD/vm/$kver/out)"
	make -s -C "$TOP" KVER="$kver" modules user
	# the nodes see the build tree at the same path
	echo "$mode" >"$out/mode"
	local real=() hw=() names t

	# part 5's soft HCA: a measurement, not a check (hw.sh): full runs only
	if want 5 && [ "$mode" = full ]; then
		make -s -C "$TOP" "$BUILD/$kver/hca/ft_hca.ko" || return 1
		hw=(vm-hw.sh)
	fi

	! want 2 || real+=(vm-traffic.sh)
	! want 3 || real+=(vm-scale.sh)
	! want 4 || real+=(vm-events.sh)
	real+=("${hw[@]}")
	if [ ${#real[@]} -gt 0 ]; then
		vm_run "parts 2-4" real "${real[@]}" || return 1
		names=()
		for t in "${real[@]}"; do
			t=${t#vm-}
			names+=("${t%.sh}")
		done
		vm_show "${names[@]}" || return 1
	fi
	# a node of its own under the instruction clock: 2.5 min of make
	# test's 45 if smoked there, so full runs only
	if [ "$mode" = smoke ] && { want 2b || want 2c; }; then
		say ""
		say "== 2b, 2c: full runs only (make bench; BENCH_PARTS=\"2b 2c\" for those alone)"
	elif want 2b || want 2c; then
		vm_run "parts 2b, 2c" icount vm-icount.sh || return 1
		vm_show icount
	fi
}

! want 1 || hotpath
[ "$parts" = 1 ] || vm_parts
