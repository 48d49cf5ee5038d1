#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# CNP: RoCEv2 CNPs crafted on B are counted on exactly the QP of A they name, and as rxe never counts them.
# timeout=300
#
# A holds three RC QPs that moved traffic with B (ft_qps --hold).  B sends
# K valid CNPs (ft_cnp: AF_PACKET, BTH opcode 0x81, rxe's ICRC) to one of
# them and M more to a QP number A does not have.  Oracles:
#   ft_cnp's count, and tshark's count of opcode 0x81 in a capture on A
#     (whose ICRC ft_icrc checks): the target's rx cnp == K, its rx packets
#     grew by K, and nothing else of any QP of A changed;
#   the device: rx cnp grew by K; the M to no QP of A are rxe's drops,
#     counted in its rx-drops unknown_qp (M), not in its rx (unknown-rx 0);
#   rxe drops CNPs as a bad opcode without counting them, so over the
#     whole run (traffic and CNPs) the device's rx packets minus its rx cnp
#     == rxe's rcvd_pkts delta, and its tx packets == sent_pkts delta;
#   one "cnp" onset event for the target (K CNPs 2 ms apart fit in one
#     event_quiet_ms), none for the others; qp show congested lists it.
set -euo pipefail
HERE=$(dirname "$(readlink -f "$0")")
. "$HERE/lib.sh"
. "$HERE/lib-cong.sh"

K=50
M=7
NOQP=$((0xabcde))
PORT=18611
B_GID=$FT_PEER_IP

cong_init cong_cnp
O=$CONG_OUT
ktap_plan 23

ktap_assert "monitor on A receives events" cong_mon_start mon self
cong_rxe self "$O/rxe0.json"
cong_dev self "$O/dev0.json"

common="-p $PORT -n 3 --iters 20 --size 4096 --op write --timeout-s 120"
"$FT_PROGS/ft_qps" --server --hold $common >"$O/srv.json" 2>"$O/srv.err" &
srv=$!
bg_add $srv
rc=0
peer "$FT_PROGS/ft_qps --peer $FT_CTL_IP $common" >"$O/cli.json" 2>"$O/cli.err" || rc=$?
srv_ready() { jq -e .qps "$O/srv.json" >/dev/null 2>&1; }
wait_for 30 srv_ready || rc=1
log "server: $(jq -c '{pid, total_ops, error, qps: [.qps[].qpn]}' "$O/srv.json" 2>/dev/null)"
log "client: $(jq -c '{pid, total_ops, error}' "$O/cli.json" 2>/dev/null) $(tr '\n' ' ' <"$O/cli.err")"
ktap_assert "ft_qps: 3 QPs moved traffic B -> A, A holds its QPs" test "$rc" -eq 0

pid=$(jq .pid "$O/srv.json")
target=$(jq '.qps[1].qpn' "$O/srv.json")
rtarget=$(jq '.qps[1].remote_qpn' "$O/srv.json")
others="$(jq '.qps[0].qpn' "$O/srv.json") $(jq '.qps[2].qpn' "$O/srv.json")"
# the QPs are idle now: wait for the last ACK to be counted everywhere
sleep 1
cong_qps self "$O/qps0.json"
ktap_assert "A: capture started" cap_start "$O/a.pcap" "${CONG_CAP[@]}"

cnp() {
	peer "$FT_PROGS/ft_cnp --ifname \$FT_NETDEV --dst-ip $FT_SELF_IP --qpn $1 --count $2 --interval-us 2000"
}
t0=$(date +%s%N)
cnp "$target" $K >"$O/cnp.json" 2>"$O/cnp.err" || log "ft_cnp to QP $target: exit $?"
cnp $NOQP $M >"$O/cnp_noqp.json" 2>"$O/cnp_noqp.err" || log "ft_cnp to QP $NOQP: exit $?"
log "ft_cnp: $(jq -c '{sent, qpn, bytes_per_frame, icrc, error}' "$O/cnp.json" "$O/cnp_noqp.json" | tr '\n' ' ')"
cong_eq "ft_cnp sent $K CNPs to QP $target" "$(jq .sent "$O/cnp.json")" $K
got_all() { [ "$(cong_qps self "$O/qps1.json"; cong_qpv "$O/qps1.json" "$target" "$pid" .rx.cnp)" = $K ]; }
wait_for 10 got_all || log "QP $target: rx cnp not $K after 10 s"
sleep 0.5
t1=$(date +%s%N)
cap_stop "$O/a.pcap" || log "tcpdump did not end well"
cong_eq "A: tcpdump: no packet dropped" "$(cap_dropped "$O/a.pcap")" 0
cong_qps self "$O/qps1.json"
# last-cnp, exactly as the CLI printed it (jq would round it to a double)
last_cnp() {
	"$CONG_CLI" -j qp show dev "$CONG_DEV" qpn "$target" | grep -o '"last_cnp":[0-9]*' | cut -d: -f2
}
lc1=$(last_cnp) || true
sleep 0.2
lc2=$(last_cnp) || true

cap_summary "$O/a.pcap" >"$O/pcap.json" || log "no summary of the capture"
log "tshark: $(jq -c . "$O/pcap.json")"
"$FT_PROGS/ft_icrc" "$O/a.pcap" >"$O/icrc.json" || log "ft_icrc: exit $?"
log "ft_icrc: $(cat "$O/icrc.json")"
cong_eq "tshark: CNPs (opcode 0x81) to QP $target" "$(cong_pcapv "$O/pcap.json" "$FT_SELF_IP" "$target" cnp)" $K
cong_eq "ft_icrc: every captured RoCE frame has a good ICRC (bad)" "$(jq .icrc_bad "$O/icrc.json")" 0

cnp_t=$(cong_qpv "$O/qps1.json" "$target" "$pid" .rx.cnp)
cong_eq "QP $target: rx cnp == CNPs sent" "$cnp_t" $K
cong_eq "QP $target: rx packets grew by exactly the CNPs" \
	$(( $(cong_qpv "$O/qps1.json" "$target" "$pid" .rx.packets) - $(cong_qpv "$O/qps0.json" "$target" "$pid" .rx.packets) )) $K
cong_eq "QP $target: rx bytes unchanged (a CNP has no payload)" \
	"$(cong_qpv "$O/qps1.json" "$target" "$pid" .rx.bytes)" "$(cong_qpv "$O/qps0.json" "$target" "$pid" .rx.bytes)"

# every other QP entry of the device: tx, rx and cong counters exactly as
# before (the times are left out: jq rounds them to doubles; the test of
# last-cnp below compares them exactly).  Entries of QPs destroyed by earlier
# tests may expire (retain_ms) in between; a live one may not vanish.
changed=$(jq -n --slurpfile a "$O/qps0.json" --slurpfile b "$O/qps1.json" --argjson t "$target" --argjson p "$pid" '
	def counters: {tx, rx, cong: (.cong | with_entries(select(.key | startswith("last_") | not)))};
	[$a[0][] | select((.qpn == $t and .pid == $p) | not) | {k: "\(.qpn)/\(.pid)", v: counters, d: (.flags | index("destroyed") != null)}] as $x |
	[$b[0][] | select((.qpn == $t and .pid == $p) | not) | {k: "\(.qpn)/\(.pid)", v: counters}] as $y |
	[$x[] | . as $e | [$y[] | select(.k == $e.k)][0] as $f |
	 select(if $f == null then $e.d | not else $f.v != $e.v end) | .k]')
log "other QPs of A: $(jq -r '[.[] | select(.qpn != '"$target"') | .qpn] | join(" ")' "$O/qps0.json"); changed: $changed"
cong_eq "every other QP of A unchanged (changed entries)" "$(jq length <<<"$changed")" 0

cong_dev self "$O/dev1.json"
cong_rxe self "$O/rxe1.json"
d_cnp=$(( $(cong_devv "$O/dev1.json" .rx.cnp) - $(cong_devv "$O/dev0.json" .rx.cnp) ))
d_unk=$(( $(cong_devv "$O/dev1.json" .unknown_rx) - $(cong_devv "$O/dev0.json" .unknown_rx) ))
d_noqp=$(( $(cong_devv "$O/dev1.json" .rx_drops.unknown_qp) - $(cong_devv "$O/dev0.json" .rx_drops.unknown_qp) ))
d_rx=$(( $(cong_devv "$O/dev1.json" .rx.packets) - $(cong_devv "$O/dev0.json" .rx.packets) ))
d_tx=$(( $(cong_devv "$O/dev1.json" .tx.packets) - $(cong_devv "$O/dev0.json" .tx.packets) ))
d_rcvd=$(( $(cong_rxev "$O/rxe1.json" rcvd_pkts) - $(cong_rxev "$O/rxe0.json" rcvd_pkts) ))
d_sent=$(( $(cong_rxev "$O/rxe1.json" sent_pkts) - $(cong_rxev "$O/rxe0.json" sent_pkts) ))
log "device deltas: rx packets $d_rx, rx cnp $d_cnp, unknown-rx $d_unk, rx-drops unknown_qp $d_noqp, tx packets $d_tx; rxe rcvd_pkts $d_rcvd, sent_pkts $d_sent"
cong_eq "device rx cnp grew by the CNPs sent to QP $target" "$d_cnp" $K
cong_eq "device rx-drops unknown_qp grew by the CNPs to QP $NOQP" "$d_noqp" $M
cong_eq "device unknown-rx unchanged (rxe dropped those before fabtrace counts)" "$d_unk" 0
cong_eq "device rx packets - rx cnp == rxe rcvd_pkts delta (rxe drops CNPs uncounted)" $((d_rx - d_cnp)) "$d_rcvd"
cong_eq "device tx packets == rxe sent_pkts delta" "$d_tx" "$d_sent"

log "last-cnp of QP $target: $lc1, read again 0.2 s later: $lc2 (drift $((lc2 - lc1)) ns); CNPs sent between $t0 and $t1"
ktap_result "last-cnp is wall-clock time within the sending of the CNPs" test "$lc1" -ge "$t0" -a "$lc1" -le "$t1"
ktap_result "last-cnp of an idle QP reads the same twice ($lc1, $lc2)" test "$lc1" = "$lc2"

# events, then the congested filter
ev=$(cong_mon_count mon "select(.kind == \"cnp\" and .qpn == $target and .pid == $pid and
	.count == 1 and .dev == \"$CONG_DEV\" and .remote_qpn == $rtarget and
	.peer == \"$B_GID\" and .comm == \"ft_qps\")")
cong_eq "one cnp onset event for QP $target (count 1, dev, rqpn, peer, pid, comm)" "$ev" 1
cong_eq "no cnp event for any other QP" "$(cong_mon_count mon "select(.kind == \"cnp\" and .qpn != $target)")" 0
expect=$(cong_congested_expected "$O/qps1.json" "$pid")
listed=$(cong_congested_listed self "$pid")
log "congested by the counters: [$expect]; qp show congested: [$listed]; others: $others"
ktap_result "qp show congested lists exactly the QPs with signals ([$listed])" test "$expect" = "$listed"
ktap_result "qp show congested includes QP $target" grep -qw "$target" <<<"$listed"

kill "$srv" 2>/dev/null || true
wait "$srv" || true
cong_mon_stop mon
ktap_result "monitor: one JSON object per line" cong_json_lines "$O/mon.mon"
ktap_finished
