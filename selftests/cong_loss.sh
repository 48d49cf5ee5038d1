#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Loss: retransmits, sequence NAKs, out-of-sequence and duplicate requests agree between nodes, with rxe and with tshark.
# timeout=400
#
# Phase 1, request loss: netem drops 2% of B's RoCE packets while B (the
# requester) writes to A (the responder) on two RC QPs; nothing A sends is
# lost.  With D = the distinct request PSNs of a QP (ft_qps: iters x
# packets per write), per QP pair (a on A, b on B):
#   B: tx write packets == D + retransmits       (a PSN sent again)
#   A: rx write packets == D + rx-dup + rx-oos   (each PSN accepted once)
#   A: rx write packets == tshark's count of requests to a; tshark sees all
#      D PSNs; sum over QPs of (B's tx - A's rx) == netem's drop counter
#   A's tx NAKs == B's rx NAKs == tshark's AETH NAKs, per syndrome, exactly
#   hence B's retransmits == A's rx-dup + rx-oos + requests lost (B's tx -
#   tshark's count): a retransmission is lost again, or arrives as a
#   duplicate, or arrives in place of one that was lost or refused as out
#   of sequence
# and against rxe's port counters, where meanings coincide or nearly so:
#   A out_of_seq_request == A's sequence NAKs sent: rxe counts the first
#     out-of-sequence request of an episode, the one it NAKs, and drops the
#     rest uncounted; fabtrace's rx-oos counts each, so rx-oos >= it
#   A duplicate_request == A's rx-dup (both per packet)
#   B rcvd_seq_err <= B's sequence NAKs received: rxe counts a NAK only if
#     it acknowledges something new (its PSN beyond the completer's)
#   B completer_retry_err <= NAKs + timeouts (each starts at most one retry
#     burst) and <= retransmits (a burst resends at least one packet)
# Phase 2, acknowledgement loss: A's RoCE egress is cut for 1 s while B
# writes (ft_timeout, 67 ms ACK timeout, unlimited retries): B times out
# and resends what A already has.  No request is lost, so every
# retransmission is a duplicate: B's retransmits == A's rx-dup ==
# A's duplicate_request delta; no rx-oos; B's tx == A's rx; A's tx - B's
# rx == netem's drops; B's completer_retry_err <= its timeouts.
# Events: nak onsets on both nodes, retransmit and timeout on B.
set -euo pipefail
HERE=$(dirname "$(readlink -f "$0")")
. "$HERE/lib.sh"
. "$HERE/lib-cong.sh"

ITERS=100
SIZE=8192
PORT1=18621
PORT2=18622
A_IP=$FT_SELF_IP
B_IP=$FT_PEER_IP

cong_init cong_loss
O=$CONG_OUT
ktap_plan 35

# nak and retransmit onsets of one QP come within milliseconds: let both
# through (the per-QP interval would withhold the second)
cong_param both event_qp_interval_ms 0
ktap_assert "monitor on A receives events" cong_mon_start mon_a self
ktap_assert "monitor on B receives events" cong_mon_start mon_b peer

# ---- phase 1: request loss ---------------------------------------------------
cong_rxe self "$O/rxe_a0.json"
cong_rxe peer "$O/rxe_b0.json"
ktap_assert "B: netem loss 2% on RoCE" cong_netem peer roce loss 2%
ktap_assert "A: capture started" cap_start "$O/a1.pcap" "${CONG_CAP[@]}"
common="-p $PORT1 -n 2 --iters $ITERS --size $SIZE --op write --timeout-s 200"
"$FT_PROGS/ft_qps" --server $common >"$O/srv.json" 2>"$O/srv.err" &
srv=$!
bg_add $srv
rc=0
peer "$FT_PROGS/ft_qps --peer $FT_CTL_IP $common" >"$O/cli.json" 2>"$O/cli.err" || rc=$?
wait $srv || rc=$?
log "server: $(jq -c '{pid, traffic_s, error}' "$O/srv.json") client: $(jq -c '{pid, mtu, total_ops, traffic_s, error}' "$O/cli.json")"
ktap_assert "ft_qps: 2 QPs x $ITERS writes of $SIZE B, B -> A, through the loss" test "$rc" -eq 0
drops=$(cong_netem_drops peer)
cong_netem_del peer
cap_stop "$O/a1.pcap" || log "tcpdump did not end well"
cong_eq "A: tcpdump: no packet dropped" "$(cap_dropped "$O/a1.pcap")" 0
spid=$(jq .pid "$O/srv.json")
cpid=$(jq .pid "$O/cli.json")
mtu=$(jq .mtu "$O/cli.json")
D=$((ITERS * ((SIZE + mtu - 1) / mtu)))
# destroyed MON PID N: N qp-destroy events of PID's QPs arrived
destroyed() {
	[ "$(cong_mon_count "$1" "select(.kind == \"qp-destroy\" and .pid == $2)")" -ge "$3" ]
}
wait_for 30 destroyed mon_a "$spid" 2 || log "A: not every qp-destroy event arrived"
wait_for 30 destroyed mon_b "$cpid" 2 || log "B: not every qp-destroy event arrived"
cong_qps self "$O/qps_a1.json"
cong_qps peer "$O/qps_b1.json"
cong_rxe self "$O/rxe_a1.json"
cong_rxe peer "$O/rxe_b1.json"
cap_summary "$O/a1.pcap" >"$O/pcap1.json" || log "no summary of the capture"
log "tshark: $(jq -c '.qp | map_values(del(.send_psns))' "$O/pcap1.json")"
log "netem drops on B: $drops; distinct request PSNs per QP: $D"

A() { cong_qpv "$O/qps_a1.json" "$1" "$spid" "$2"; }
B() { cong_qpv "$O/qps_b1.json" "$1" "$cpid" "$2"; }
T() { cong_pcapv "$O/pcap1.json" "$1" "$2" "$3"; }
s_retx=0 s_dup=0 s_oos=0 s_nak_tx=0 s_nak_rx=0 s_lost=0 s_to=0
f_req=0 f_resp=0 f_wire=0 f_nak=0 f_sum=0
for i in 0 1; do
	a=$(jq ".qps[$i].qpn" "$O/srv.json")
	b=$(jq ".qps[$i].qpn" "$O/cli.json")
	btx=$(B "$b" .tx.write) retx=$(B "$b" .cong.retransmits)
	arx=$(A "$a" .rx.write) dup=$(A "$a" .cong.rx_dup) oos=$(A "$a" .cong.rx_oos)
	treq=$(T "$A_IP" "$a" req) tdist=$(T "$A_IP" "$a" req_distinct) trep=$(T "$A_IP" "$a" req_repeat)
	ntx=$(A "$a" .cong.tx_nak) nrx=$(B "$b" .cong.rx_nak)
	tseq=$(T "$B_IP" "$b" nak_seq) trnr=$(T "$B_IP" "$b" nak_rnr) toth=$(T "$B_IP" "$b" nak_other)
	log "pair A $a / B $b: B tx write $btx retransmits $retx timeouts $(B "$b" .cong.timeouts); A rx write $arx rx_dup $dup rx_oos $oos"
	log "  tshark to A $a: requests $treq distinct PSNs $tdist repeated $trep"
	log "  NAKs A tx $(jq -c . <<<"$ntx") B rx $(jq -c . <<<"$nrx") tshark seq $tseq rnr $trnr other $toth"
	log "  B retransmits $retx == A rx-dup $dup + rx-oos $oos + lost on the wire $((btx - treq))?"
	[ "$retx" -eq $((dup + oos + btx - treq)) ] || f_sum=$((f_sum + 1))
	[ "$btx" -eq $((D + retx)) ] || f_req=$((f_req + 1))
	[ "$arx" -eq $((D + dup + oos)) ] || f_resp=$((f_resp + 1))
	[ "$arx" -eq "$treq" ] && [ "$tdist" -eq "$D" ] || f_wire=$((f_wire + 1))
	[ "$ntx" = "$nrx" ] && [ "$(jq .psn_seq <<<"$ntx")" -eq "$tseq" ] &&
		[ "$(jq .rnr <<<"$ntx")" -eq "$trnr" ] &&
		[ "$(jq '([.[]] | add) - .psn_seq - .rnr' <<<"$ntx")" -eq "$toth" ] || f_nak=$((f_nak + 1))
	s_retx=$((s_retx + retx)) s_dup=$((s_dup + dup)) s_oos=$((s_oos + oos))
	s_nak_tx=$((s_nak_tx + $(jq .psn_seq <<<"$ntx"))) s_nak_rx=$((s_nak_rx + $(jq .psn_seq <<<"$nrx")))
	s_lost=$((s_lost + btx - arx)) s_to=$((s_to + $(B "$b" .cong.timeouts)))
done
cong_eq "B: tx write packets == $D distinct PSNs + retransmits, per QP (QPs wrong)" "$f_req" 0
cong_eq "A: rx write packets == $D + rx-dup + rx-oos, per QP (QPs wrong)" "$f_resp" 0
cong_eq "A: rx write packets == tshark's requests, all $D PSNs seen, per QP (QPs wrong)" "$f_wire" 0
cong_eq "sum of (B tx - A rx) == netem's drops" "$s_lost" "$drops"
cong_eq "B's retransmits == A's rx-dup + rx-oos + requests lost on the wire, per QP (QPs wrong)" "$f_sum" 0
cong_eq "A's tx NAKs == B's rx NAKs == tshark's, per syndrome, per QP (QPs wrong)" "$f_nak" 0
cong_gt "B retransmitted" "$s_retx" 0
cong_gt "A sent sequence NAKs" "$s_nak_tx" 0
cong_gt "A received out-of-sequence requests" "$s_oos" 0

rx() { echo $(( $(cong_rxev "$O/rxe_$1"1.json "$2") - $(cong_rxev "$O/rxe_$1"0.json "$2") )); }
oosr=$(rx a out_of_seq_request) dupr=$(rx a duplicate_request)
seqr=$(rx b rcvd_seq_err) retr=$(rx b completer_retry_err)
log "rxe A: out_of_seq_request $oosr duplicate_request $dupr; rxe B: rcvd_seq_err $seqr completer_retry_err $retr"
log "fabtrace: A tx seq NAKs $s_nak_tx rx_oos $s_oos rx_dup $s_dup; B rx seq NAKs $s_nak_rx retransmits $s_retx timeouts $s_to"
cong_eq "A: rxe out_of_seq_request == fabtrace's sequence NAKs sent (one per episode)" "$oosr" "$s_nak_tx"
cong_le "A: rxe out_of_seq_request <= fabtrace rx-oos (rxe drops later ones uncounted)" "$oosr" "$s_oos"
cong_eq "A: rxe duplicate_request == fabtrace rx-dup" "$dupr" "$s_dup"
cong_le "B: rxe rcvd_seq_err <= fabtrace's sequence NAKs received (rxe: only NAKs that ack new PSNs)" "$seqr" "$s_nak_rx"
cong_le "B: rxe completer_retry_err <= NAKs + timeouts" "$retr" $((s_nak_rx + s_to))
cong_le "B: rxe completer_retry_err <= retransmits" "$retr" "$s_retx"

# events of phase 1 (quiet 1 s: a QP's first NAK and retransmission are onsets)
ev_fail=0
for i in 0 1; do
	a=$(jq ".qps[$i].qpn" "$O/srv.json")
	b=$(jq ".qps[$i].qpn" "$O/cli.json")
	if [ "$(A "$a" .cong.tx_nak.psn_seq)" -gt 0 ]; then
		n=$(cong_mon_count mon_a "select(.kind == \"nak\" and .qpn == $a and .pid == $spid and
			.remote_qpn == $b and .peer == \"$B_IP\" and .comm == \"ft_qps\" and .count >= 1)")
		log "A QP $a: nak events $n"
		[ "$n" -ge 1 ] || ev_fail=$((ev_fail + 1))
	fi
	if [ "$(B "$b" .cong.retransmits)" -gt 0 ]; then
		n=$(cong_mon_count mon_b "select(.kind == \"retransmit\" and .qpn == $b and .pid == $cpid and
			.remote_qpn == $a and .peer == \"$A_IP\" and .comm == \"ft_qps\" and .count >= 1)")
		log "B QP $b: retransmit events $n"
		[ "$n" -ge 1 ] || ev_fail=$((ev_fail + 1))
	fi
	if [ "$(B "$b" .cong.rx_nak.psn_seq)" -gt 0 ]; then
		n=$(cong_mon_count mon_b "select(.kind == \"nak\" and .qpn == $b and .pid == $cpid)")
		log "B QP $b: nak events $n"
		[ "$n" -ge 1 ] || ev_fail=$((ev_fail + 1))
	fi
done
cong_eq "nak (A, B) and retransmit (B) onset events, with rqpn/peer/pid/comm (missing)" "$ev_fail" 0

# ---- phase 2: acknowledgement loss ----------------------------------------------
cong_rxe self "$O/rxe_a0.json"
cong_rxe peer "$O/rxe_b0.json"
ktap_assert "A: netem on RoCE, no loss yet" cong_netem self roce loss 0%
"$FT_PROGS/ft_timeout" --server -p $PORT2 --timeout-s 60 >"$O/to_srv.json" 2>"$O/to_srv.err" &
srv=$!
peer "$FT_PROGS/ft_timeout --peer $FT_CTL_IP -p $PORT2 --seconds 5 --timeout 14 --retry-cnt 7 --timeout-s 60" \
	>"$O/to_cli.json" 2>"$O/to_cli.err" &
cli=$!
bg_add $srv $cli
flowing() { grep -q "first write completed" "$O/to_cli.err"; }
wait_for 40 flowing || log "ft_timeout: no write completed: $(cat "$O/to_cli.err")"
sleep 0.5
cong_netem_change self loss 100%
sleep 1
cong_netem_change self loss 0%
rc=0
wait $cli || rc=$?
wait $srv || rc=$?
log "ft_timeout client: $(cat "$O/to_cli.json")"
ktap_assert "ft_timeout B -> A completed across a 1 s ACK blackout" \
	test "$rc" -eq 0 -a "$(jq -r .first_error "$O/to_cli.json")" = null
drops=$(cong_netem_drops self)
cong_netem_del self
a=$(jq .qpn "$O/to_srv.json") spid=$(jq .pid "$O/to_srv.json")
b=$(jq .qpn "$O/to_cli.json") cpid=$(jq .pid "$O/to_cli.json")
wait_for 30 destroyed mon_a "$spid" 1 || log "A: no qp-destroy event"
wait_for 30 destroyed mon_b "$cpid" 1 || log "B: no qp-destroy event"
cong_qps self "$O/qps_a2.json"
cong_qps peer "$O/qps_b2.json"
cong_rxe self "$O/rxe_a1.json"
cong_rxe peer "$O/rxe_b1.json"
A() { cong_qpv "$O/qps_a2.json" "$1" "$spid" "$2"; }
B() { cong_qpv "$O/qps_b2.json" "$1" "$cpid" "$2"; }
retx=$(B "$b" .cong.retransmits) to=$(B "$b" .cong.timeouts)
dup=$(A "$a" .cong.rx_dup) oos=$(A "$a" .cong.rx_oos)
dupr=$(rx a duplicate_request) retr=$(rx b completer_retry_err)
log "B QP $b: tx write $(B "$b" .tx.write) retransmits $retx timeouts $to rx NAKs $(B "$b" .rx.nak); rxe B completer_retry_err $retr"
log "A QP $a: rx write $(A "$a" .rx.write) rx_dup $dup rx_oos $oos tx packets $(A "$a" .tx.packets); rxe A duplicate_request $dupr; netem drops on A $drops"
cong_gt "B timed out during the blackout" "$to" 0
cong_gt "A received duplicates" "$dup" 0
cong_eq "B's retransmits == A's rx-dup (no request was lost)" "$retx" "$dup"
cong_eq "A: rxe duplicate_request == fabtrace rx-dup" "$dupr" "$dup"
cong_eq "A: no out-of-sequence request" "$oos" 0
cong_eq "B's tx write packets == A's rx write packets" "$(B "$b" .tx.write)" "$(A "$a" .rx.write)"
cong_eq "A's tx packets - B's rx packets == netem's drops" \
	$(( $(A "$a" .tx.packets) - $(B "$b" .rx.packets) )) "$drops"
cong_le "B: rxe completer_retry_err <= timeouts (no NAK in this phase)" "$retr" "$to"
cong_gt "B: timeout events for QP $b" \
	"$(cong_mon_count mon_b "select(.kind == \"timeout\" and .qpn == $b and .pid == $cpid and .remote_qpn == $a)")" 0

cong_mon_stop mon_a
cong_mon_stop mon_b
ktap_result "monitors: one JSON object per line" cong_json_lines "$O/mon_a.mon"
ktap_result "monitor B: one JSON object per line" cong_json_lines "$O/mon_b.mon"
ktap_finished
