#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Packets rxe drops because their QP is not ready to send: counted by neither rxe nor fabtrace.
# timeout=240
#
# A writes 1 MiB to B (ft_timeout --drain) and moves its QP to SQD right
# after the post, back to RTS a second later, and writes 1 MiB more.
# 6.1's rxe_xmit_packet() drops what a draining QP still sends, before it
# counts sent_pkts, with one line each in the kernel log ("Packet dropped.
# QP is not in ready state"); the first write then completes by
# retransmission once the QP is back in RTS.  6.12's rxe checks state < RTS instead and sends a
# draining QP's packets: there the drop needs a reset racing the sender
# on another CPU, which a one-vCPU node cannot stage.  fabtrace's transmit
# tap runs after that check (qp_send_err.sh: and before the send).
# Oracles, deltas over the run with nothing in flight at either end:
#   rxe's drop lines on A > 0 (6.1: the refusal did happen; 6.12 skips it)
#   A device tx packets  == A sent_pkts + send_err
#   A QP's tx packets    == A device tx packets
#   A device tx packets  == B rcvd_pkts (the wire loses nothing)
#   both writes completed without error (ft_timeout's completions)
set -euo pipefail
HERE=$(dirname "$(readlink -f "$0")")
. "$HERE/lib.sh"
. "$HERE/lib-oracle.sh"

require_peer
require_module fabtrace
require_cmd fabtrace rdma python3 dmesg
require_progs
PORT=18652
MSG='Packet dropped. QP is not in ready state'
# 6.12 logs it with rxe_dbg_qp(): dynamic debug, off by default
DDC=/proc/dynamic_debug/control
[ -w "$DDC" ] || DDC=/sys/kernel/debug/dynamic_debug/control

srv=''
cleanup() {
	[ -z "$srv" ] || kill "$srv" 2>/dev/null || true
	[ ! -w "$DDC" ] || echo "module rdma_rxe format \"not in ready state\" -p" >"$DDC" 2>/dev/null || true
}
at_exit cleanup
drops() { dmesg | grep -cF "$MSG" || true; }

ktap_plan 7
ktap_assert "rxe0 up on both nodes" rxe_up both
ktap_assert "fabtrace reloaded on both nodes" or_fresh_module
or_outdir qp_not_ready
ddebug=no
if [ -w "$DDC" ] && echo "module rdma_rxe format \"not in ready state\" +p" >"$DDC" 2>/dev/null; then
	ddebug=yes
fi
or_quiesce 30 >/dev/null || true
d0=$(drops)
or_snap self "$OR_OUT/a0.json" && or_snap peer "$OR_OUT/b0.json" ||
	fail_all "snapshots before the run failed"
peer "$FT_PROGS/ft_timeout --server -p $PORT --size 1048576 --timeout-s 120" \
	>"$OR_OUT/srv.json" 2>"$OR_OUT/srv.err" &
srv=$!
crc=0
"$FT_PROGS/ft_timeout" --peer "$FT_PEER_CTL_IP" -p $PORT --size 1048576 --drain \
	--timeout 16 --retry-cnt 7 --timeout-s 120 >"$OR_OUT/cli.json" 2>"$OR_OUT/cli.err" || crc=$?
src=0
wait "$srv" || src=$?
srv=''
log "ft_timeout client (exit $crc): $(cat "$OR_OUT/cli.json")"
sed 's/^/# client: /' "$OR_OUT/cli.err"
[ "$src" = 0 ] || log "ft_timeout server exit $src: $(cat "$OR_OUT/srv.err")"
or_quiesce 30 >/dev/null || true
d1=$(drops)
or_snap self "$OR_OUT/a1.json" && or_snap peer "$OR_OUT/b1.json" ||
	fail_all "snapshots after the run failed"
dropped=$((d1 - d0))
log "rxe on A logged $dropped \"$MSG\" (dynamic debug on for rxe's message: $ddebug)"
case $(uname -r) in
6.1.*)
	ktap_result "rxe dropped packets of the draining QP ($dropped)" test "$dropped" -gt 0 ;;
*)
	if [ "$dropped" -gt 0 ]; then
		ktap_ok "rxe dropped packets of a QP not ready ($dropped)"
	else
		ktap_skip "rxe dropped packets of a QP not ready" \
			"rxe $(uname -r) sends a draining QP's packets; a drop needs a reset racing the sender on another CPU"
	fi ;;
esac
completed() {
	python3 -c 'import json, sys; j = json.load(open(sys.argv[1]))
sys.exit(not (j["completed_ok"] == j["posted"] == 2 and j["first_error"] is None and j["drain"]))' "$OR_OUT/cli.json"
}
write_ok() { [ "$crc" = 0 ] && completed; }
ktap_result "both writes completed without error, across SQD and back (exit $crc)" write_ok
"$FT_PY3" - "$OR_OUT" "$dropped" >"$OR_OUT/verdicts" <<'EOF'
import json, sys
d, dropped = sys.argv[1], int(sys.argv[2])
a0, a1, b0, b1 = (json.load(open("%s/%s.json" % (d, n))) for n in ("a0", "a1", "b0", "b1"))
rxe = lambda s0, s1, k: s1["rxe"][0][k] - s0["rxe"][0][k]
tx = a1["dev"][0]["tx"]["packets"] - a0["dev"][0]["tx"]["packets"]
q0 = {q["qpn"]: q for q in a0["qps"]}
qtx = sum(q["tx"]["packets"] - (q0[q["qpn"]]["tx"]["packets"] if q["qpn"] in q0 else 0)
          for q in a1["qps"])
sent, err, brcvd = rxe(a0, a1, "sent_pkts"), rxe(a0, a1, "send_err"), rxe(b0, b1, "rcvd_pkts")
print("# A sent_pkts +%d send_err +%d, dropped %d; fabtrace A device tx +%d, QPs tx +%d; B rcvd_pkts +%d"
      % (sent, err, dropped, tx, qtx, brcvd))
print("contract", "ok" if tx == sent + err else "no")
print("qps", "ok" if qtx == tx else "no")
print("peer", "ok" if tx == brcvd else "no")
EOF
grep '^#' "$OR_OUT/verdicts" || true
v() { grep -qx "$1 ok" "$OR_OUT/verdicts"; }
ktap_result "fabtrace A device tx == A sent_pkts + send_err" v contract
ktap_result "A QPs' tx packets == A device tx packets" v qps
ktap_result "fabtrace A device tx == B rcvd_pkts" v peer
ktap_finished
