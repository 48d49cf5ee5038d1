#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rdma_cm setup and teardown (rping): CM MADs on the GSI QP, the data QP, four oracles.
# timeout=240
#
# rping connects through rdma_cm, so the connection is set up and torn down
# by CM MADs (REQ, REP, RTU, DREQ, DREP) that travel on each node's GSI QP
# (QP1, owned by ib_core), besides the RC QP that carries the pings.  Node B
# runs `rping -s`, node A `rping -c -C 5`; over the pattern:
#   rdma_a/b  sum over QPs (QP1 included) == rxe sent_pkts/rcvd_pkts deltas
#   qpset     the only new entries are the two rping QPs, whose numbers the
#             capture's CM REQ (A's) and REP (B's) carry
#   peer      A's tx == B's rx per QP pair (the rping QPs, QP1 and QP1)
#   wire      tcpdump on A, decoded by tshark, per QP, class and bytes
#   gsi       QP1 on A sent and received exactly the CM MADs the capture
#             shows (and they are REQ RTU DREQ from A, REP DREP from B)
#   meta      rping QPs: rc, owner rping's pid, peer QPN/address from the CM,
#             rts while pinging, err after rdma_disconnect; QP1: gsi,
#             kernel, ib_core; live values as rdma resource shows them
# A 100 ms delay on A's data NIC (netem) stretches the five pings to a few
# seconds, so the client can be stopped (SIGSTOP) after its first ping while
# both nodes are sampled, then let go.  Delay changes no packet count.
set -euo pipefail
HERE=$(dirname "$(readlink -f "$0")")
. "$HERE/lib.sh"
. "$HERE/lib-oracle.sh"

require_peer
require_module fabtrace
require_cmd fabtrace rdma tcpdump tshark tc rping stdbuf

cleanup() {
	tc qdisc del dev "$FT_NETDEV" root 2>/dev/null || true
}
at_exit cleanup

ktap_plan 11
ktap_assert "fabtrace reloaded on both nodes (retain_ms=600000)" \
	or_fresh_module retain_ms=600000
ktap_assert "rxe0 up on both nodes" rxe_up both
or_outdir qp_cm
d=$OR_OUT
t0=$SECONDS

or_quiesce || true
or_snap self "$d/a0.json" || fail_all "snapshot of A failed"
or_snap peer "$d/b0.json" || fail_all "snapshot of B failed"
cap_start "$OR_TMP/rping.pcap" -s 0 -B 65536 || fail_all "tcpdump did not start"
tc qdisc add dev "$FT_NETDEV" root netem delay 100ms

# shellcheck disable=SC2016 # FT_SELF_IP is B's, expanded on B
peer -t 90 "$OR_EXEC_PID stdbuf -oL rping -s -v -C 5 -a "'$FT_SELF_IP' \
	>"$d/server.log" 2>&1 &
srv=$!
bg_add "$srv"
listening() { peer 'rdma resource show cm_id | grep -q LISTEN'; }
wait_for 30 listening || log "rping server not listening after 30 s"
or_spawn "$d/client.log" stdbuf -oL rping -c -a "$FT_PEER_IP" -C 5 -v
cpid=$OR_PID
if wait_for 60 grep -q "rdma-ping-0" "$d/client.log"; then
	kill -STOP "$cpid"
	log "rping client (pid $cpid) stopped after its first ping"
	or_live_sample "$d"
	kill -CONT "$cpid"
else
	log "rping client printed no ping in 60 s"
fi
crc=0 src=0
wait "$OR_SPAWNED" || crc=$?
wait "$srv" || src=$?
tc qdisc del dev "$FT_NETDEV" root
or_quiesce || true
cap_stop "$OR_TMP/rping.pcap" || log "tcpdump exited non-zero"
or_snap self "$d/a1.json" || fail_all "snapshot of A failed"
or_snap peer "$d/b1.json" || fail_all "snapshot of B failed"
cap_tsv "$OR_TMP/rping.pcap" "$d/capture.tsv" || log "tshark failed: $(cat "$d/capture.tsv.err")"
cp "$OR_TMP/rping.pcap" "$d/"
sed 's/^/# A: /' "$d/client.log"
sed 's/^/# B: /' "$d/server.log"
log "CM MADs on the wire (sender:attribute): $(oracle cm --tsv "$d/capture.tsv")"

if ! oracle spec-rping --tsv "$d/capture.tsv" --a-pid "$cpid" \
	--b-pid "$(or_pid_of "$d/server.log")" --ip-a "$FT_SELF_IP" --ip-b "$FT_PEER_IP" \
	>"$d/spec.json"; then
	log "no spec from the capture's CM REQ/REP"
	echo '{}' >"$d/spec.json"
fi
res=$d/results
or_check "$d" rping --gsi || log "the checker failed"

ktap_result "rping client (exit $crc) and server (exit $src) ran 5 pings" \
	test "$crc" -eq 0 -a "$src" -eq 0
ktap_result "A: QP sum and device == rxe sent_pkts/rcvd_pkts deltas" or_ok "$res" rdma_a
ktap_result "B: QP sum and device == rxe sent_pkts/rcvd_pkts deltas" or_ok "$res" rdma_b
ktap_result "new entries are exactly the QPs of the CM REQ and REP" or_ok "$res" qpset
ktap_result "A tx == B rx and B tx == A rx (rping QPs; QP1 and QP1), per class" \
	or_ok "$res" peer
ktap_result "tshark per QP, per class and bytes == fabtrace on A" or_ok "$res" wire
ktap_result "the CM MADs are QP1's traffic on both nodes (GSI, REQ..DREP)" or_ok "$res" gsi
ktap_result "metadata (rc/gsi, pid, comm, peer from the CM, rts then err)" or_ok "$res" meta
ktap_result "hook_missed, malformed, unknown, overflow 0" \
	eval 'or_ok "$res" stats && or_ok "$res" snapshots'
log "rping pattern took $((SECONDS - t0)) s"
ktap_finished
