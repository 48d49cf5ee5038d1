#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perftest RC write/send/read and UD send: per-QP counters against four oracles,
# with the taps as direct calls and (RC write again) as ftrace callbacks.
# timeout=480
#
# For each pattern, node B runs the perftest server and node A the client;
# fabtrace's counters over the pattern (a snapshot before and after, both
# nodes) must equal, exactly:
#   rdma_a/b  rxe's own sent_pkts / rcvd_pkts deltas: the sum over the
#             device's QPs and the device totals (unknown-rx and malformed 0)
#   qpset     the new entries are exactly the QPs perftest printed
#   bytes     payload bytes of each data QP = perftest's iterations x size
#             in the data direction (read: B's tx, A's rx), 0 the other way
#   peer      A's tx of a QP = B's rx of its peer QP, per class and bytes,
#             and the reverse (pairs from perftest's local/remote QPN lines)
#   wire      tcpdump on A, decoded by tshark: per QP, per opcode class and
#             payload bytes, both directions
#   meta      type, owner pid and comm, port, remote QPN and peer address,
#             destroyed with a destroy time; while alive (perftest's
#             --wait_destroy), state and owner as rdma resource shows them
#   stats     hook-missed, malformed, unknown, overflow stay 0
set -euo pipefail
HERE=$(dirname "$(readlink -f "$0")")
. "$HERE/lib.sh"
. "$HERE/lib-oracle.sh"

require_peer
require_module fabtrace
require_cmd fabtrace rdma tcpdump tshark ss ib_write_bw ib_send_bw ib_read_bw

# name  program      extra arguments (-d rxe0 -x 1 -F for all).  -u 20: a 4 s
# ACK timeout, so a node starved of host CPU does not retransmit (a
# retransmission moves bytes twice and perftest counts them once).
# UD first: the first QPs fabtrace sees after its load then have no timers,
# so it searches the whole of rxe's QP object for them; KASAN (make
# test-debug) reports a read past that object, as the search once made.
WRITE="write ib_write_bw -c RC -q 4 -n 200 -s 8192 -u 20"
PATTERNS=(
	"ud    ib_send_bw  -c UD -q 2 -n 200 -s 1024"
	"$WRITE"
	"send  ib_send_bw  -c RC -q 4 -n 200 -s 8192 -u 20"
	"read  ib_read_bw  -c RC -q 4 -n 200 -s 8192 -u 20"
)
PER_PATTERN=9
# Then write again with direct=0: the taps as ftrace callbacks, as when a
# BPF trampoline owns rxe's functions.
CALLBACK_PATTERN="write-cb ${WRITE#write }"

ktap_plan $((3 + (${#PATTERNS[@]} + 1) * PER_PATTERN))
ktap_assert "fabtrace reloaded on both nodes (retain_ms=600000)" \
	or_fresh_module retain_ms=600000
ktap_assert "rxe0 up on both nodes" rxe_up both
or_outdir qp_oracles

# What perftest prints after its report, when --wait_destroy starts
HOLD=$((4 * ${FT_TIMEOUT_SCALE:-1}))
REPORT='^ *Waiting [0-9]+ seconds before releasing resources'

# run_pattern NAME PROG ARGS...
run_pattern() {
	local name=$1 prog=$2 d=$OR_OUT/$1 crc=0 src=0 res t0=$SECONDS
	local args

	shift 2
	args="-d rxe0 -x 1 -F $*"
	mkdir -p "$d"
	log "=== $name: $prog $args"
	or_quiesce || true
	or_snap self "$d/a0.json" || fail_all "$name: snapshot of A failed"
	or_snap peer "$d/b0.json" || fail_all "$name: snapshot of B failed"
	cap_start "$OR_TMP/$name.pcap" -s 128 -B 65536 || fail_all "$name: tcpdump did not start"

	# --wait_destroy: after its report, perftest keeps its QPs 4 s (16 on
	# the debug kernel: there, B's sample once came after they were gone),
	# in which both nodes are sampled (stdbuf: the report must not wait in
	# a stdio buffer until exit).
	peer -t 120 "$OR_EXEC_PID stdbuf -oL $prog $args --wait_destroy=$HOLD" >"$d/server.log" 2>&1 &
	srv=$!
	bg_add "$srv"
	wait_for 60 perftest_listening || log "$name: server not listening after 60 s"
	or_spawn "$d/client.log" stdbuf -oL "$prog" $args --wait_destroy=$HOLD "$FT_PEER_IP"
	if wait_for 120 grep -qE "$REPORT" "$d/client.log"; then
		or_live_sample "$d"
	else
		log "$name: no report from the client"
	fi
	wait "$OR_SPAWNED" || crc=$?
	wait "$srv" || src=$?
	or_quiesce || true
	cap_stop "$OR_TMP/$name.pcap" || log "$name: tcpdump exited non-zero"
	or_snap self "$d/a1.json" || fail_all "$name: snapshot of A failed"
	or_snap peer "$d/b1.json" || fail_all "$name: snapshot of B failed"
	cap_tsv "$OR_TMP/$name.pcap" "$d/capture.tsv" || log "$name: tshark failed: $(cat "$d/capture.tsv.err")"
	cp "$OR_TMP/$name.pcap" "$d/"
	grep -E '^ *(local|remote) address|^ *[0-9]+ +[0-9]+ ' "$d/client.log" | sed 's/^/# A: /'

	if ! oracle spec-perftest --client "$d/client.log" --server "$d/server.log" \
		--pattern "${name%-cb}" --comm "$prog" --ip-a "$FT_SELF_IP" --ip-b "$FT_PEER_IP" \
		>"$d/spec.json"; then
		log "$name: no spec from perftest's output; client log:"
		sed 's/^/#   /' "$d/client.log"
		echo '{}' >"$d/spec.json"
	fi
	res=$d/results
	or_check "$d" "$name" || log "$name: the checker failed"

	ktap_result "$name: perftest client (exit $crc) and server (exit $src) ran" \
		test "$crc" -eq 0 -a "$src" -eq 0
	ktap_result "$name: A: QP sum and device == rxe sent_pkts/rcvd_pkts deltas" or_ok "$res" rdma_a
	ktap_result "$name: B: QP sum and device == rxe sent_pkts/rcvd_pkts deltas" or_ok "$res" rdma_b
	ktap_result "$name: new entries are exactly perftest's QPs, both nodes" or_ok "$res" qpset
	ktap_result "$name: payload bytes per QP == perftest iterations x size" or_ok "$res" bytes
	ktap_result "$name: A tx == B rx and B tx == A rx per QP pair, per class" or_ok "$res" peer
	ktap_result "$name: tshark per QP, per class and bytes == fabtrace on A" or_ok "$res" wire
	ktap_result "$name: metadata (type, pid, comm, peer, rts, destroyed)" or_ok "$res" meta
	ktap_result "$name: hook_missed, malformed, unknown, overflow 0" \
		eval 'or_ok "$res" stats && or_ok "$res" snapshots'
	log "$name took $((SECONDS - t0)) s"
}

for p in "${PATTERNS[@]}"; do
	# shellcheck disable=SC2086 # a pattern is a list of words
	run_pattern $p
done
ktap_assert "fabtrace reloaded on both nodes with direct=0" \
	or_fresh_module retain_ms=600000 direct=0
# shellcheck disable=SC2086
run_pattern $CALLBACK_PATTERN
ktap_finished
