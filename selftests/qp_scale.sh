#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# 1,000 QP pairs with traffic on each (ft_qps), four oracles; then max_qps overflow and eviction.
# timeout=420
#
# Part 1: ft_qps creates 1,000 RC QPs on each node, pairs them across the
# wire and writes 2 x 1 KiB on each; both sides hold their QPs until both
# nodes are sampled, then destroy them.  Over the pattern, exactly:
#   rdma_a/b  sum over QPs == rxe sent_pkts/rcvd_pkts deltas (and device)
#   qpset     the new entries are the 1,000 QPs ft_qps printed, per node
#   bytes     each QP's payload bytes == ft_qps's bytes for it (write: the
#             client's tx, the server's rx), 0 the other way
#   peer      A's tx == B's rx per QP pair and class, and the reverse
#   wire      tcpdump on A, decoded by tshark, per QP, class and bytes
#   meta      rc, ft_qps's pid, comm, remote QPN and peer from its JSON, rts
#             while held (as rdma resource shows), destroyed afterwards
# Part 2 (node A, loopback): with 5 entries (QP1 and 4 QPs with traffic)
# and max_qps = 50, 100 new QPs: exactly the first 45 created get entries,
# overflow grows by 55, the 5 entries are untouched, and the untracked QPs'
# packets land in unknown-tx/-rx so that tracked + unknown == rxe's counts.
set -euo pipefail
HERE=$(dirname "$(readlink -f "$0")")
. "$HERE/lib.sh"
. "$HERE/lib-oracle.sh"

require_peer
require_module fabtrace
require_progs
require_cmd fabtrace rdma tcpdump tshark
FTQPS=$FT_PROGS/ft_qps
MAXQ=/sys/module/fabtrace/parameters/max_qps

cleanup() {
	[ ! -w "$MAXQ" ] || echo 262144 >"$MAXQ"
}
at_exit cleanup

# json_pid FILE: the pid ft_qps printed in its JSON (once it is complete).
json_done() { grep -q '^{.*}$' "$1"; }
json_pid() { or_jq "$1" 'd["pid"]'; }

ktap_plan 25
ktap_assert "fabtrace reloaded on both nodes (retain_ms=600000)" \
	or_fresh_module retain_ms=600000
ktap_assert "rxe0 up on both nodes" rxe_up both
or_outdir qp_scale
d=$OR_OUT/part1
mkdir -p "$d"
t0=$SECONDS

# ---- part 1: 1,000 QP pairs across the wire ------------------------------
# --ack-timeout 20: 4.3 s, so a node starved of host CPU does not
# retransmit (a resent packet moves its payload twice, ft_qps counts it once)
ARGS="-n 1000 --iters 2 --size 1024 --op write --hold --timeout-s 240 --ack-timeout 20"
or_quiesce || true
or_snap self "$d/a0.json" || fail_all "snapshot of A failed"
or_snap peer "$d/b0.json" || fail_all "snapshot of B failed"
cap_start "$OR_TMP/qps.pcap" -s 128 -B 65536 || fail_all "tcpdump did not start"
peer -t 280 "$FTQPS --server $ARGS" >"$d/server.json" 2>"$d/server.err" &
srv=$!
bg_add "$srv"
# shellcheck disable=SC2086 # ARGS is a list of words
"$FTQPS" --peer "$FT_PEER_CTL_IP" $ARGS >"$d/client.json" 2>"$d/client.err" &
cli=$!
bg_add "$cli"
crc=0 src=0
if wait_for 200 json_done "$d/client.json" && wait_for 30 json_done "$d/server.json"; then
	log "ft_qps: client $(or_jq "$d/client.json" '"create %(create_s).1f s, connect %(connect_s).1f s, traffic %(traffic_s).2f s" % d')"
	or_live_sample "$d"
	kill -TERM "$cli"
	peer kill -TERM "$(json_pid "$d/server.json")"
else
	log "ft_qps printed no JSON; client: $(tail -n 3 "$d/client.err")"
	kill -TERM "$cli" 2>/dev/null || true
	kill "$srv" 2>/dev/null || true
fi
wait "$cli" || crc=$?
wait "$srv" || src=$?
or_quiesce || true
cap_stop "$OR_TMP/qps.pcap" || log "tcpdump exited non-zero"
or_snap self "$d/a1.json" || fail_all "snapshot of A failed"
or_snap peer "$d/b1.json" || fail_all "snapshot of B failed"
cap_tsv "$OR_TMP/qps.pcap" "$d/capture.tsv" || log "tshark failed: $(cat "$d/capture.tsv.err")"
cp "$OR_TMP/qps.pcap" "$d/"
if ! oracle spec-ftqps --client "$d/client.json" --server "$d/server.json" \
	--state rts --flags destroyed --ip-a "$FT_SELF_IP" --ip-b "$FT_PEER_IP" >"$d/spec.json"; then
	log "no spec from ft_qps's JSON"
	echo '{}' >"$d/spec.json"
fi
res=$d/results
or_check "$d" qps || log "the checker failed"

ktap_result "ft_qps 1000 QPs: client (exit $crc) and server (exit $src) ran" \
	test "$crc" -eq 0 -a "$src" -eq 0
ktap_result "1000 QPs: A: QP sum and device == rxe sent_pkts/rcvd_pkts deltas" or_ok "$res" rdma_a
ktap_result "1000 QPs: B: QP sum and device == rxe sent_pkts/rcvd_pkts deltas" or_ok "$res" rdma_b
ktap_result "1000 QPs: new entries are exactly ft_qps's QPs, both nodes" or_ok "$res" qpset
ktap_result "1000 QPs: payload bytes per QP == ft_qps's bytes" or_ok "$res" bytes
ktap_result "1000 QPs: A tx == B rx and B tx == A rx per QP pair, per class" or_ok "$res" peer
ktap_result "1000 QPs: tshark per QP, per class and bytes == fabtrace on A" or_ok "$res" wire
ktap_result "1000 QPs: metadata (rc, pid, comm, peer, rts while held, destroyed)" or_ok "$res" meta
ktap_result "1000 QPs: hook_missed, malformed, unknown, overflow 0" \
	eval 'or_ok "$res" stats && or_ok "$res" snapshots'
log "part 1 took $((SECONDS - t0)) s"

# ---- part 2: max_qps overflow, node A ---------------------------------------
t0=$SECONDS
d=$OR_OUT/part2
mkdir -p "$d"
MAX=50
ktap_result "fabtrace reloaded on A (entries: QP1 only)" _or_reload_self
"$FTQPS" --loopback -n 4 --iters 3 --size 2048 --op write --hold --timeout-s 120 \
	>"$d/pre.json" 2>"$d/pre.err" &
pre=$!
bg_add "$pre"
ktap_result "4 loopback QPs with traffic, held" wait_for 60 json_done "$d/pre.json"
or_quiesce || true
or_snap self "$d/s0.json" || fail_all "snapshot failed"
echo "$MAX" >"$MAXQ"
log "max_qps = $(cat "$MAXQ"), entries: $(or_jq "$d/s0.json" '"%(qps)d live + %(retained)d retained" % d["stats"]')"
"$FTQPS" --loopback -n 100 --iters 1 --size 1024 --op write --hold --timeout-s 120 \
	>"$d/big.json" 2>"$d/big.err" &
big=$!
bg_add "$big"
brc=0
if wait_for 90 json_done "$d/big.json"; then
	or_snap self "$d/s1.json" || fail_all "snapshot failed"
else
	log "ft_qps -n 100 printed no JSON: $(tail -n 3 "$d/big.err")"
fi
kill -TERM "$big" 2>/dev/null || true
wait "$big" || brc=$?
or_quiesce || true
or_snap self "$d/s2.json" || fail_all "snapshot failed"
ktap_result "100 loopback QPs with traffic past max_qps (exit $brc)" test "$brc" -eq 0
oracle overflow --s0 "$d/s0.json" --s1 "$d/s1.json" --s2 "$d/s2.json" --pre "$d/pre.json" \
	--big "$d/big.json" --max "$MAX" --out "$d/results" || log "the checker failed"
ktap_result "exactly the first max_qps - entries QPs created are tracked" or_ok "$d/results" tracked
ktap_result "overflow counts the others; entries == max_qps" or_ok "$d/results" overflow
ktap_result "the entries that existed are undisturbed (every field)" or_ok "$d/results" undisturbed
ktap_result "tracked QPs + unknown-tx/rx == rxe sent_pkts/rcvd_pkts deltas" or_ok "$d/results" rdma
ktap_result "tracked QPs' bytes == ft_qps's bytes" or_ok "$d/results" bytes
kill -TERM "$pre"
wait "$pre" || true
log "part 2 took $((SECONDS - t0)) s"

# ---- part 3: retained entries make room for live QPs, node A -------------------
# A user churning QPs fills the table with retained entries; another
# tenant's new QPs must still be tracked.  max_qps = 60, 50 QPs created and
# destroyed (retained), then 20 new ones held: all 20 tracked, overflow
# unchanged, the table full, and the retained entries given up (evicted)
# exactly those needed, oldest destroyed first.
t0=$SECONDS
d=$OR_OUT/part3
mkdir -p "$d"
MAX=60
ktap_result "fabtrace reloaded on A for the churn" _or_reload_self
echo "$MAX" >"$MAXQ"
"$FTQPS" --no-connect -n 50 --iters 0 --timeout-s 120 >"$d/churn.json" 2>"$d/churn.err" ||
	log "churn: $(tail -n 3 "$d/churn.err")"
fabtrace -j stats >"$d/s0.json"
fabtrace -j qp show destroyed >"$d/q0.json"
"$FTQPS" --no-connect -n 20 --iters 0 --hold --timeout-s 120 >"$d/new.json" 2>"$d/new.err" &
big=$!
bg_add "$big"
if wait_for 90 json_done "$d/new.json"; then
	fabtrace -j stats >"$d/s1.json"
	fabtrace -j qp show >"$d/q1.json"
fi
kill -TERM "$big" 2>/dev/null || true
wait "$big" || true
echo 262144 >"$MAXQ"
st() { jq -r ".$2" "$d/$1.json"; }
live0=$(st s0 qps) ret0=$(st s0 retained)
want_ev=$((20 - (MAX - live0 - ret0)))
log "before: $live0 live + $ret0 retained of $MAX; after: $(st s1 qps) live + $(st s1 retained) retained, evicted $(st s0 evicted) -> $(st s1 evicted), overflow $(st s0 overflow) -> $(st s1 overflow)"
ktap_result "the churn left 50 retained entries" test "$ret0" = 50
npid=$(jq .pid "$d/new.json" 2>/dev/null || echo none)
ktap_result "all 20 new QPs are tracked, live" \
	test "$(jq "[.[] | select(.pid == $npid and (.flags | index(\"destroyed\") | not))] | length" "$d/q1.json")" = 20
ktap_result "overflow unchanged, table full: live + retained == max_qps" \
	test "$(st s1 overflow)" = "$(st s0 overflow)" -a \
	$(( $(st s1 qps) + $(st s1 retained) )) = "$MAX"
ktap_result "evicted grew by exactly what was needed ($want_ev)" \
	test $(( $(st s1 evicted) - $(st s0 evicted) )) = "$want_ev"
# the evicted are the oldest: every survivor was destroyed no earlier than
# any of those given up
jq -n --slurpfile a "$d/q0.json" --slurpfile b "$d/q1.json" '
	($b[0] | map(select(.flags | index("destroyed"))) | map(.qpn)) as $keep |
	($a[0] | map(select(.qpn as $q | $keep | index($q)))) as $kept |
	($a[0] | map(select(.qpn as $q | $keep | index($q) | not))) as $gone |
	{gone: ($gone | length), kept: ($kept | length),
	 ok: (($gone | map(.destroy_time) | max // 0) <= ($kept | map(.destroy_time) | min // 1e30))}' \
	>"$d/order.json" || true
log "eviction order: $(cat "$d/order.json")"
ktap_result "the entries given up were the oldest destroyed" \
	jq -e ".ok and .gone == $want_ev" "$d/order.json"
log "part 3 took $((SECONDS - t0)) s"
ktap_finished
