#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# RNR: RNR NAKs, RNR timer expiries and retries exhausted, against rxe's counters, tshark and the events.
# timeout=300
#
# A (requester, ft_rnr client, --window 1) SENDs to B (responder, ft_rnr
# server) which has no receive posted, so B answers RNR NAKs.  The wire
# oracle is a capture on A (both directions; nothing is lost).
# Part 1, --rnr-retry R=3 and never a receive: the SEND fails with
#   RNR-retry-exceeded and the QP enters the error state.
#   A rx nak rnr == B tx nak rnr == rxe B send_rnr_err == tshark's RNR NAKs
#   (AETH syndrome 001xxxxx); rxe A rcvd_rnr_err == R+1 (its completer gives
#   up at the (R+1)th); every transmission of the SEND is refused: B's RNR
#   NAKs == A's retransmits + 1, and A's retransmits == tshark's repeats of
#   the SEND's one PSN; retry-exhausted 1 == rxe retry_rnr_exceeded_err;
#   errors 1, state err; B has no rx-dup or rx-oos (an RNR NAK resynchronises
#   the responder's expected PSN).
#   RNR timer expiries: rxe arms the timer for the first R NAKs, and starts
#   every retry from it or from its retransmission timer (67 ms, which it
#   does not push back on an RNR NAK), so retransmits - timeouts <=
#   rnr-timeouts <= R, all three == R when no retransmission timer expired.
#   Events on A (event_qp_interval_ms 0): one rnr-timeout per expiry with
#   counts 1..n, one nak and one retransmit onset, retry-exhausted, qp-error,
#   each with qpn, remote qpn, peer, pid and comm.
# Part 2, --rnr-retry 7 (forever), B posts receives after 300 ms: every
#   SEND completes; n RNR NAKs: A rx == B tx == rxe send_rnr_err == rxe
#   rcvd_rnr_err == tshark; retransmits == tshark's repeats == n + B's rx-dup
#   (a transmission is refused, or accepted, or a duplicate of the accepted
#   one); retransmits - timeouts <= rnr-timeouts; rnr-timeouts == n - the
#   NAKs that tshark sees right behind another NAK: when the retransmission
#   timer fires between an RNR retry and its NAK, rxe sends the SEND again,
#   two NAKs come back, and the second only re-arms the pending RNR timer
#   (seen on 6.1: 39 NAKs, 39 retransmits, 4 timeouts, 38 RNR expiries, one
#   NAK pair on the wire); no retry-exhausted, no error; one rnr-timeout and
#   timeout event per expiry.
set -euo pipefail
HERE=$(dirname "$(readlink -f "$0")")
. "$HERE/lib.sh"
. "$HERE/lib-cong.sh"

R=3
SENDS=3
A_IP=$FT_SELF_IP
B_IP=$FT_PEER_IP

cong_init cong_rnr
O=$CONG_OUT
ktap_plan 29

cong_param self event_qp_interval_ms 0
ktap_assert "monitor on A receives events" cong_mon_start mon self

# run_rnr NAME PORT "SERVER ARGS" "CLIENT ARGS": one exchange, captured on A
run_rnr() {
	local name=$1 port=$2 srv rc=0

	cong_rxe self "$O/rxe_a0.json"
	cong_rxe peer "$O/rxe_b0.json"
	cap_start "$O/$name.pcap" "${CONG_CAP[@]}" || return 1
	peer "$FT_PROGS/ft_rnr --server -p $port --sends $SENDS --timeout-s 60 $3" \
		>"$O/${name}_srv.json" 2>"$O/${name}_srv.err" &
	srv=$!
	bg_add $srv
	"$FT_PROGS/ft_rnr" --peer "$FT_PEER_CTL_IP" -p "$port" --sends $SENDS \
		--window 1 --timeout-s 60 $4 >"$O/${name}_cli.json" 2>"$O/${name}_cli.err" || rc=$?
	wait $srv || rc=$?
	log "client: $(cat "$O/${name}_cli.json")"
	log "server: $(jq -c '{qpn, recvs_posted, recv_completed_ok, error}' "$O/${name}_srv.json")"
	# the last event of the client's QP is its destruction
	cpid=$(jq .pid "$O/${name}_cli.json")
	cqpn=$(jq .qpn "$O/${name}_cli.json")
	sqpn=$(jq .qpn "$O/${name}_srv.json")
	spid=$(jq .pid "$O/${name}_srv.json")
	cong_mon_wait mon "select(.kind == \"qp-destroy\" and .qpn == $cqpn and .pid == $cpid)" 1 30
	cap_stop "$O/$name.pcap"
	cong_qps self "$O/${name}_qps_a.json"
	cong_qps peer "$O/${name}_qps_b.json"
	cong_rxe self "$O/rxe_a1.json"
	cong_rxe peer "$O/rxe_b1.json"
	cap_summary "$O/$name.pcap" >"$O/${name}_pcap.json"
	log "tshark: $(jq -c .qp "$O/${name}_pcap.json")"
	[ "$(cap_dropped "$O/$name.pcap")" = 0 ] || { log "the kernel dropped packets from the capture"; rc=1; }
	return $rc
}
rx() { echo $(( $(cong_rxev "$O/rxe_$1"1.json "$2") - $(cong_rxev "$O/rxe_$1"0.json "$2") )); }

# ---- part 1: retries exhausted ----------------------------------------------
ktap_assert "part 1: ft_rnr ran (rnr-retry $R, no receive ever)" run_rnr p1 18631 "" "--rnr-retry $R"
A() { cong_qpv "$O/p1_qps_a.json" "$cqpn" "$cpid" "$1"; }
B() { cong_qpv "$O/p1_qps_b.json" "$sqpn" "$spid" "$1"; }
log "A QP $cqpn: rx nak $(A .cong.rx_nak | jq -c .) rnr_timeouts $(A .cong.rnr_timeouts) timeouts $(A .cong.timeouts) retransmits $(A .cong.retransmits) retry_exhausted $(A .cong.retry_exhausted) errors $(A .cong.errors) state $(A .state)"
log "B QP $sqpn: tx nak $(B .cong.tx_nak | jq -c .) rx_dup $(B .cong.rx_dup) rx_oos $(B .cong.rx_oos)"
log "rxe A: rcvd_rnr_err $(rx a rcvd_rnr_err) retry_rnr_exceeded_err $(rx a retry_rnr_exceeded_err); rxe B: send_rnr_err $(rx b send_rnr_err)"
tnak=$(cong_pcapv "$O/p1_pcap.json" "$A_IP" "$cqpn" nak_rnr)
trep=$(cong_pcapv "$O/p1_pcap.json" "$B_IP" "$sqpn" req_repeat)
psns=$(jq -r --arg k "$B_IP/$sqpn" '.qp[$k].send_psns | unique | length' "$O/p1_pcap.json") ||
	psns="none (no SEND of QP $sqpn in the capture)"
n=$(B .cong.tx_nak.rnr)
cong_eq "ft_rnr: the SEND failed with RNR retry exceeded" "$(jq .rnr_retry_exceeded "$O/p1_cli.json")" 1
ktap_result "RNR NAKs: A rx == B tx == rxe B send_rnr_err == tshark ($(A .cong.rx_nak.rnr) $n $(rx b send_rnr_err) $tnak)" \
	test "$(A .cong.rx_nak.rnr) $(rx b send_rnr_err) $tnak" = "$n $n $n"
cong_eq "rxe A rcvd_rnr_err == R+1" "$(rx a rcvd_rnr_err)" $((R + 1))
cong_le "A rx nak rnr >= R+1" $((R + 1)) "$(A .cong.rx_nak.rnr)"
ktap_result "A retransmits == tshark's repeats of the SEND, one PSN ($(A .cong.retransmits) $trep, PSNs $psns)" \
	test "$(A .cong.retransmits)" = "$trep" -a "$psns" = 1
cong_eq "B's RNR NAKs == A's retransmits + 1 (each transmission refused)" "$n" $(( $(A .cong.retransmits) + 1 ))
rnrto=$(A .cong.rnr_timeouts)
cong_le "retransmits - timeouts <= rnr-timeouts" $(( $(A .cong.retransmits) - $(A .cong.timeouts) )) "$rnrto"
cong_le "rnr-timeouts <= R" "$rnrto" $R
cong_eq "A retry-exhausted == rxe retry_rnr_exceeded_err == 1" "$(A .cong.retry_exhausted)$(rx a retry_rnr_exceeded_err)" 11
ktap_result "A: errors 1, state err ($(A .cong.errors), $(A .state))" \
	test "$(A .cong.errors)" = 1 -a "$(A .state)" = err
cong_eq "B: no rx-dup, no rx-oos (RNR NAK resynchronises)" "$(B .cong.rx_dup)$(B .cong.rx_oos)" 00

# events of part 1
full="and .qpn == $cqpn and .pid == $cpid and .dev == \"$CONG_DEV\" and .remote_qpn == $sqpn and .peer == \"$B_IP\" and .comm == \"ft_rnr\""
counts=$(jq -s -c "[.[] | select(.kind == \"rnr-timeout\" $full) | .count]" "$O/mon.mon")
log "rnr-timeout event counts: $counts"
ktap_result "events: one rnr-timeout per expiry, counts 1..$rnrto ($counts)" \
	test "$counts" = "$(jq -c -n "[range(1; $rnrto + 1)]")"
cong_eq "events: one nak onset" "$(cong_mon_count mon "select(.kind == \"nak\" $full)")" 1
cong_eq "events: one retransmit onset" "$(cong_mon_count mon "select(.kind == \"retransmit\" $full)")" 1
cong_eq "events: retry-exhausted, count 1" "$(cong_mon_count mon "select(.kind == \"retry-exhausted\" and .count == 1 $full)")" 1
cong_eq "events: qp-error, count 1, errors 1 in its counters" \
	"$(cong_mon_count mon "select(.kind == \"qp-error\" and .count == 1 and .cong.errors == 1 $full)")" 1

# ---- part 2: RNR until the receives come ------------------------------------------
ktap_assert "part 2: ft_rnr ran (rnr-retry 7, receives after 300 ms)" \
	run_rnr p2 18632 "--post-recv-after 300" "--rnr-retry 7"
A() { cong_qpv "$O/p2_qps_a.json" "$cqpn" "$cpid" "$1"; }
B() { cong_qpv "$O/p2_qps_b.json" "$sqpn" "$spid" "$1"; }
n=$(B .cong.tx_nak.rnr)
retx=$(A .cong.retransmits) to=$(A .cong.timeouts) rnrto=$(A .cong.rnr_timeouts)
trep=$(cong_pcapv "$O/p2_pcap.json" "$B_IP" "$sqpn" req_repeat)
log "A QP $cqpn: rx nak rnr $(A .cong.rx_nak.rnr) rnr_timeouts $rnrto timeouts $to retransmits $retx retry_exhausted $(A .cong.retry_exhausted) errors $(A .cong.errors)"
log "B QP $sqpn: tx nak rnr $n rx_dup $(B .cong.rx_dup); rxe B send_rnr_err $(rx b send_rnr_err); rxe A rcvd_rnr_err $(rx a rcvd_rnr_err); tshark NAKs $(cong_pcapv "$O/p2_pcap.json" "$A_IP" "$cqpn" nak_rnr) repeats $trep"
cong_eq "every SEND completed" "$(jq .completed_ok "$O/p2_cli.json")" $SENDS
cong_gt "B sent RNR NAKs" "$n" 0
differ=$(printf '%s\n' "$(A .cong.rx_nak.rnr)" "$(rx b send_rnr_err)" "$(rx a rcvd_rnr_err)" \
	"$(cong_pcapv "$O/p2_pcap.json" "$A_IP" "$cqpn" nak_rnr)" | grep -cvx "$n" || true)
cong_eq "RNR NAKs: A rx, rxe send_rnr_err, rxe rcvd_rnr_err, tshark all == B tx ($n) (differing)" "$differ" 0
cong_eq "A retransmits == tshark's repeated SEND PSNs" "$retx" "$trep"
cong_eq "A retransmits == RNR NAKs + B's rx-dup" "$retx" $((n + $(B .cong.rx_dup)))
cong_le "retransmits - timeouts <= rnr-timeouts" $((retx - to)) "$rnrto"
# A NAK that comes right behind another (two transmissions were in flight)
# finds the RNR timer pending and only re-arms it: count them on the wire.
b2b=$(tshark -n -r "$O/p2.pcap" -T fields -e ip.dst -e infiniband.aeth.syndrome 2>/dev/null |
	awk -v a="$A_IP" '{ nak = ($1 == a && int($2) >= 32 && int($2) < 64); if (nak && prev) n++; prev = nak } END { print n + 0 }')
cong_eq "rnr-timeouts == RNR NAKs - NAKs right behind another NAK on the wire ($b2b)" "$rnrto" $((n - b2b))
cong_eq "no retry-exhausted, no error" "$(A .cong.retry_exhausted)$(A .cong.errors)" 00
ktap_result "events: one rnr-timeout and one timeout event per expiry" test \
	"$(cong_mon_count mon "select(.kind == \"rnr-timeout\" and .qpn == $cqpn and .pid == $cpid)") $(cong_mon_count mon "select(.kind == \"timeout\" and .qpn == $cqpn and .pid == $cpid)")" = "$rnrto $to"

cong_mon_stop mon
ktap_result "monitor: one JSON object per line" cong_json_lines "$O/mon.mon"
ktap_finished
