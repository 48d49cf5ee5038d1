#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Timeout: cutting the wire under RC traffic gives timeouts, retries exhausted and the error state, counted and as events.
# timeout=300
#
# A writes to B (ft_timeout: 4 writes in flight, ACK timeout 268 ms,
# --retry-cnt 3; long enough that a starved TCG node does not spend a retry
# just before the cut); once writes complete, netem drops all of A's RoCE
# packets.  rxe then retries 3 times (one timer expiry each) and fails the
# write with RETRY_EXC_ERR at the 4th expiry, moving the QP to error.
# Oracles:
#   ft_timeout: the first error is IBV_WC_RETRY_EXC_ERR, QP state ERR;
#   after the cut fabtrace counts exactly retry-cnt + 1 timeouts, and that
#     == rxe's completer_retry_err delta (a retry per expiry but the last,
#     rxe counts it when the retry has something to resend) plus its
#     retry_exceeded_err delta (the last); over the whole run timeouts >=
#     their sum (a timer that expires while an ACK is queued for the
#     completer is no retry for rxe);
#   retry-exhausted == 1 == rxe retry_exceeded_err delta; errors == 1 and
#     the state err, also in the retained entry after the QP is destroyed;
#   netem's drops == A's tx packets - B's rx packets (the wire loses nothing
#     else), and A retransmitted at least once per retry;
#   events (event_qp_interval_ms 0): one timeout event per expiry, counts
#     1..T; retry-exhausted then qp-error (its counters: errors 1), with
#     qpn, remote qpn, peer, pid, comm; a second monitor started with
#     `events retry-exhausted,qp-error` and a count exits 0 by itself.
set -euo pipefail
HERE=$(dirname "$(readlink -f "$0")")
. "$HERE/lib.sh"
. "$HERE/lib-cong.sh"

RETRY=3
PORT=18641
B_IP=$FT_PEER_IP

cong_init cong_timeout
O=$CONG_OUT
ktap_plan 21

cong_param self event_qp_interval_ms 0
ktap_assert "monitor on A receives events" cong_mon_start mon self
# the probe's qp-destroy syncs this one too: 1 + retry-exhausted + qp-error
ktap_assert "counting monitor on A receives events" \
	cong_mon_start cnt self events qp-destroy,retry-exhausted,qp-error --count 3
ktap_assert "A: netem on RoCE, no loss yet" cong_netem self roce loss 0%
cong_rxe self "$O/rxe0.json"

peer "$FT_PROGS/ft_timeout --server -p $PORT --timeout-s 90" >"$O/srv.json" 2>"$O/srv.err" &
srv=$!
"$FT_PROGS/ft_timeout" --peer "$FT_PEER_CTL_IP" -p $PORT --seconds 30 --timeout 16 \
	--retry-cnt $RETRY --timeout-s 90 >"$O/cli.json" 2>"$O/cli.err" &
cli=$!
bg_add $srv $cli
flowing() { grep -q "first write completed" "$O/cli.err"; }
wait_for 60 flowing || log "ft_timeout: no write completed: $(cat "$O/cli.err")"
sleep 0.5
cong_qps self "$O/qps_cut.json"
cong_rxe self "$O/rxe_cut.json"
cong_netem_change self loss 100%
rc=0
wait $cli || rc=$?
wait $srv || rc=$?
log "client: $(cat "$O/cli.json")"
log "client stderr: $(tr '\n' ' ' <"$O/cli.err")"
ktap_assert "ft_timeout ran, A -> B, wire cut under traffic" test "$rc" -eq 0
drops=$(cong_netem_drops self)
cong_netem_del self

pid=$(jq .pid "$O/cli.json")
q=$(jq .qpn "$O/cli.json")
rq=$(jq .remote_qpn "$O/cli.json")
spid=$(jq .pid "$O/srv.json")
cong_mon_wait mon "select(.kind == \"qp-destroy\" and .qpn == $q and .pid == $pid)" 1 30 ||
	log "no qp-destroy event for QP $q"
cong_qps self "$O/qps_a.json"
cong_qps peer "$O/qps_b.json"
cong_rxe self "$O/rxe1.json"
A() { cong_qpv "$O/qps_a.json" "$q" "$pid" "$1"; }
C() { cong_qpv "$O/qps_cut.json" "$q" "$pid" "$1"; }
rx() { echo $(( $(cong_rxev "$O/$2.json" "$1") - $(cong_rxev "$O/$3.json" "$1") )); }

ktap_result "ft_timeout: first error IBV_WC_RETRY_EXC_ERR, QP state ERR" \
	test "$(jq -r '.first_error + " " + .qp_state' "$O/cli.json")" = "IBV_WC_RETRY_EXC_ERR ERR"
to=$(A .cong.timeouts)
to_cut=$((to - $(C .cong.timeouts)))
retr_cut=$(rx completer_retry_err rxe1 rxe_cut)
exc_cut=$(rx retry_exceeded_err rxe1 rxe_cut)
retr=$(rx completer_retry_err rxe1 rxe0)
exc=$(rx retry_exceeded_err rxe1 rxe0)
log "QP $q: timeouts $to ($to_cut after the cut), retransmits $(A .cong.retransmits), retry_exhausted $(A .cong.retry_exhausted), errors $(A .cong.errors), state $(A .state), flags $(A .flags | jq -c .)"
log "rxe A: completer_retry_err $retr ($retr_cut after the cut), retry_exceeded_err $exc ($exc_cut after the cut)"
cong_eq "timeouts after the cut == retry-cnt + 1" "$to_cut" $((RETRY + 1))
cong_eq "timeouts after the cut == rxe completer_retry_err + retry_exceeded_err after it" \
	"$to_cut" $((retr_cut + exc_cut))
cong_le "whole run: rxe completer_retry_err + retry_exceeded_err <= timeouts" $((retr + exc)) "$to"
cong_eq "retry-exhausted == 1" "$(A .cong.retry_exhausted)" 1
cong_eq "rxe retry_exceeded_err delta == 1" "$exc" 1
ktap_result "errors 1, state err, retained after destroy ($(A .cong.errors), $(A .state), $(A .flags | jq -c .))" \
	test "$(A .cong.errors) $(A .state) $(A '(.flags | any(. == "destroyed") | tostring)')" = "1 err true"
btx=$(A .tx.packets)
brx=$(cong_qpv "$O/qps_b.json" "$rq" "$spid" .rx.packets)
cong_eq "netem's drops == A's tx packets ($btx) - B's rx packets ($brx)" $((btx - brx)) "$drops"
cong_le "retransmits after the cut >= retries" $RETRY $(( $(A .cong.retransmits) - $(C .cong.retransmits) ))

full="and .qpn == $q and .pid == $pid and .dev == \"$CONG_DEV\" and .remote_qpn == $rq and .peer == \"$B_IP\" and .comm == \"ft_timeout\""
counts=$(jq -s -c "[.[] | select(.kind == \"timeout\" $full) | .count]" "$O/mon.mon")
log "timeout event counts: $counts"
ktap_result "events: one timeout per expiry, counts 1..$to ($counts)" \
	test "$counts" = "$(jq -c -n "[range(1; $to + 1)]")"
cong_eq "events: retry-exhausted, count 1" \
	"$(cong_mon_count mon "select(.kind == \"retry-exhausted\" and .count == 1 $full)")" 1
cong_eq "events: qp-error, count 1, its counters: errors 1, retry-exhausted 1, timeouts $to" \
	"$(cong_mon_count mon "select(.kind == \"qp-error\" and .count == 1 and .cong.errors == 1 and
		.cong.retry_exhausted == 1 and .cong.timeouts == $to $full)")" 1
order=$(jq -s -r "[.[] | select((.kind == \"retry-exhausted\" or .kind == \"qp-error\") and .qpn == $q) | .kind] | join(\",\")" "$O/mon.mon")
ktap_result "events: retry-exhausted before qp-error ($order)" test "$order" = "retry-exhausted,qp-error"
cong_eq "events: qp-destroy carries timeouts $to and errors 1" \
	"$(cong_mon_count mon "select(.kind == \"qp-destroy\" and .cong.timeouts == $to and .cong.errors == 1 $full)")" 1

# the counting monitor ends by itself after its 3 events
cnt_pid=${CONG_MON_PID[cnt]}
# gone, or a zombie waiting for us
cnt_done() {
	! kill -0 "$cnt_pid" 2>/dev/null || [ "$(ps -o stat= -p "$cnt_pid")" = Z ]
}
wait_for 10 cnt_done || true
if cnt_done; then
	crc=0
	wait "$cnt_pid" || crc=$?
	unset "CONG_MON_PID[cnt]"
else
	crc=running
fi
kinds=$(jq -s -r '[.[] | .kind] | join(",")' "$O/cnt.mon")
log "counting monitor: exit $crc, events $kinds"
ktap_result "monitor --count 3 exited 0 by itself" test "$crc" = 0
ktap_result "it printed the probe's qp-destroy, retry-exhausted, qp-error" \
	test "$kinds" = "qp-destroy,retry-exhausted,qp-error"
cong_mon_stop mon
ktap_result "monitor: one JSON object per line" cong_json_lines "$O/mon.mon"
ktap_finished
