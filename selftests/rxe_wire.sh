#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The two-node RoCE wire works: ib_write_bw A -> B, rxe counters agree.
# timeout=300
#
# Proves the test bed rather than fabtrace: a soft-RoCE device on each node,
# real RDMA writes across the data wire, and each node's packet counters
# (rxe's own `rdma statistic`) matching the other side's: what A sent, B
# received, and back.  fabtrace's per-QP tests build on this.
set -euo pipefail
. "$(dirname "$(readlink -f "$0")")/lib.sh"

require_peer
require_cmd ib_write_bw rdma ss python3

SIZE=8192
ITERS=200
# -x 1: GID index 1, the IPv4-mapped GID (rxe_up waits for it).  rdma_cm
# (-R) is avoided: perftest 4.5 crashed with it for some sizes.  -u 20: ACK
# timeout 4 s instead of 67 ms; a TCG node starved of host CPU for a moment
# must cause a retransmit (still counted on both sides), not "retry exceeded".
BW_ARGS="-d rxe0 -x 1 -s $SIZE -n $ITERS -u 20 -F"

srv=
cleanup() {
	[ -z "$srv" ] || kill "$srv" 2>/dev/null || true
}
at_exit cleanup

ktap_plan 6
ktap_assert "rxe0 up on both nodes" rxe_up both

a_sent0=$(rxe_stat sent_pkts)
a_rcvd0=$(rxe_stat rcvd_pkts)
b_sent0=$(peer_lib rxe_stat sent_pkts)
b_rcvd0=$(peer_lib rxe_stat rcvd_pkts)

# Server on B, in the background; it is up once it listens for the client's
# out-of-band TCP connection (port 18515).
peer -t 200 "ib_write_bw $BW_ARGS" >"${FT_OUT:-/tmp}/rxe_wire.server.log" 2>&1 &
srv=$!
ktap_assert "ib_write_bw server listening on B" wait_for 60 perftest_listening

# shellcheck disable=SC2086 # BW_ARGS is a list of words
ktap_result "ib_write_bw A -> B (${ITERS} x ${SIZE} B)" \
	run timeout 200 ib_write_bw $BW_ARGS "$FT_PEER_IP"
rc=0
wait "$srv" || rc=$?
srv=
ktap_result "ib_write_bw server on B exited 0" test "$rc" -eq 0
sed 's/^/# B: /' "${FT_OUT:-/tmp}/rxe_wire.server.log"

deltas() {
	a_sent=$(($(rxe_stat sent_pkts) - a_sent0))
	a_rcvd=$(($(rxe_stat rcvd_pkts) - a_rcvd0))
	b_sent=$(($(peer_lib rxe_stat sent_pkts) - b_sent0))
	b_rcvd=$(($(peer_lib rxe_stat rcvd_pkts) - b_rcvd0))
	[ "$a_sent" -eq "$b_rcvd" ] && [ "$b_sent" -eq "$a_rcvd" ]
}
# Both sides have finished, so nothing is in flight; the retry only guards
# against reading B a moment before its receive path has counted the last
# ACK's echo.
wait_for 5 deltas || true
log "A sent $a_sent, B received $b_rcvd; B sent $b_sent, A received $a_rcvd"
log "A: $(rdma statistic show link rxe0/1)"
log "B: $(peer rdma statistic show link rxe0/1)"
# 1024-byte MTU on a 1500-byte wire: an 8 KiB write is 8 packets.
ktap_result "A sent at least the payload's packets ($((ITERS * SIZE / 1024)))" \
	test "$a_sent" -ge $((ITERS * SIZE / 1024))
ktap_result "A's sent_pkts delta == B's rcvd_pkts delta, and B's sent == A's rcvd" \
	test "$a_sent" -eq "$b_rcvd" -a "$b_sent" -eq "$a_rcvd"
ktap_finished
