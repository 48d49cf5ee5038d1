#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ECN: each QP's received ECT and CE counts equal tshark's count of the same packets; every CE is an event.
# timeout=300
#
# B writes to A over two flows while netem on B's data NIC marks 5% of the
# ECT(0) RoCE packets CE (netem's `ecn`: ECT packets are marked instead of
# dropped; a u32 filter keeps every other packet away from netem):
#   flow E  B's requests ECT(0) (--tclass 2), A's ACKs Not-ECT (--tclass 0)
#   flow N  B's requests Not-ECT, A's ACKs ECT(0): rxe's responder puts its
#           own QP's traffic class on ACKs, so these reach B as ECT, unmarked
# tcpdump on A sees both directions (A's egress has no qdisc, so what A sent
# is what B received).  Oracles:
#   per QP on both nodes: rx-ce == tshark's ECN == 3, rx-ect == ECN != 0,
#     rx packets == tshark's packets to that destination QP;
#   netem's drop counter (it counts its marks there) == all CE on the wire;
#   with event_quiet_ms = 0 and event_qp_interval_ms = 0 every CE mark is an
#     onset: A's monitor gets exactly rx-ce "ce" events per QP, counts 1..n.
set -euo pipefail
HERE=$(dirname "$(readlink -f "$0")")
. "$HERE/lib.sh"
. "$HERE/lib-cong.sh"

ITERS=100
SIZE=8192
PORT_E=18601
PORT_N=18602
# the CLI prints IPv4-mapped GIDs as IPv4 addresses
B_GID=$FT_PEER_IP

cong_init cong_ecn
O=$CONG_OUT
ktap_plan 22

cong_param self event_quiet_ms 0
cong_param self event_qp_interval_ms 0
cong_param self event_rate 100000
ktap_assert "monitor on A receives events" cong_mon_start mon self
cong_stats self "$O/stats0.json"
ktap_assert "B: netem loss 5% ecn on ECT(0) RoCE" cong_netem peer ect0 loss 5% ecn
ktap_assert "A: capture started" cap_start "$O/a.pcap" "${CONG_CAP[@]}"

common="--iters $ITERS --size $SIZE --op write --timeout-s 120"
# flows: run E and N once; 0 if all four ran, 2 if a client's write
# failed with an error of rxe's responder, 1 otherwise.
flows() {
	local e_srv n_srv e_cli n_cli p f rc=0

	"$FT_PROGS/ft_qps" --server -p $PORT_E -n 2 --tclass 0 $common \
		>"$O/e_srv.json" 2>"$O/e_srv.err" &
	e_srv=$!
	"$FT_PROGS/ft_qps" --server -p $PORT_N -n 1 --tclass 2 $common \
		>"$O/n_srv.json" 2>"$O/n_srv.err" &
	n_srv=$!
	peer "$FT_PROGS/ft_qps --peer $FT_CTL_IP -p $PORT_E -n 2 --tclass 2 $common" \
		>"$O/e_cli.json" 2>"$O/e_cli.err" &
	e_cli=$!
	peer "$FT_PROGS/ft_qps --peer $FT_CTL_IP -p $PORT_N -n 1 --tclass 0 $common" \
		>"$O/n_cli.json" 2>"$O/n_cli.err" &
	n_cli=$!
	bg_add $e_srv $n_srv $e_cli $n_cli
	for p in $e_srv $n_srv $e_cli $n_cli; do
		wait "$p" || rc=1
	done
	for f in e_srv e_cli n_srv n_cli; do
		log "$f: $(jq -c '{role, nqps, tclass, total_ops, traffic_s, error}' "$O/$f.json" 2>/dev/null) $(tr '\n' ' ' <"$O/$f.err")"
	done
	[ "$rc" = 0 ] && return 0
	grep -q "remote invalid request error" "$O/e_cli.err" "$O/n_cli.err" && return 2
	return 1
}
# Not understood yet (an open defect, 6.1 only, twice on 2026-12-01): A's
# rxe responder NAKs a well-formed WRITE LAST as an invalid request after
# sending eight ACKs of a PSN whose request the capture shows arriving only
# after them.  No packet fabtrace could have changed (ECN off: it changes
# none) looks wrong on the wire.  Until it is found, the run is made again
# once, from a fresh capture, monitor and netem, so every oracle reads one
# whole run; twice in a row fails the test.
rc=0
flows || rc=$?
if [ "$rc" = 2 ]; then
	log "rxe's responder refused a request (remote invalid request): once more"
	cap_stop "$O/a.pcap" || log "tcpdump did not end well"
	cong_mon_stop mon
	cong_netem_del peer
	rc=0
	cong_mon_start mon self && cong_netem peer ect0 loss 5% ecn &&
		cap_start "$O/a.pcap" "${CONG_CAP[@]}" || rc=1
	[ "$rc" = 0 ] && { flows || rc=$?; }
fi
ktap_assert "ft_qps flows E and N ran (servers on A, clients on B)" test "$rc" -eq 0

SRV_PIDS="$(jq .pid "$O/e_srv.json") $(jq .pid "$O/n_srv.json")"
CLI_PIDS="$(jq .pid "$O/e_cli.json") $(jq .pid "$O/n_cli.json")"
# A's destroy events come after every CE event of those QPs: then all are in
all_destroyed() {
	local q

	for q in $(jq '.qps[].qpn' "$O/e_srv.json" "$O/n_srv.json"); do
		[ "$(cong_mon_count mon "select(.kind == \"qp-destroy\" and .qpn == $q)")" -ge 1 ] || return 1
	done
}
wait_for 30 all_destroyed || log "not every qp-destroy event arrived"
cap_stop "$O/a.pcap" || log "tcpdump did not end well"
cong_mon_stop mon
ktap_result "monitor exited 0 on SIGINT" test "$CONG_MON_RC" -eq 0
ktap_result "monitor: one JSON object per line" cong_json_lines "$O/mon.mon"
cong_eq "tcpdump: no packet dropped" "$(cap_dropped "$O/a.pcap")" 0

cong_qps self "$O/qps_a.json"
cong_qps peer "$O/qps_b.json"
cong_stats self "$O/stats1.json"
marks=$(cong_netem_drops peer)
# A's QPs are destroyed when their server is done; a request B retransmits
# after that reaches no QP (tshark sees it, no QP can count it).
cong_cuts "$O/qps_a.json" "$FT_SELF_IP" >"$O/cuts_a.json"
cap_summary "$O/a.pcap" "$O/cuts_a.json" >"$O/pcap.json" || log "no summary of the capture"
log "tshark: $(jq -c . "$O/pcap.json")"

# check_qp WHAT QPS_FILE IP QPN PID: rx-ce, rx-ect and rx packets of one QP
# against tshark's count of the packets addressed to it.
fails=0
check_qp() {
	local what=$1 f=$2 ip=$3 qpn=$4 pid=$5 ce ect pk tce tect tpk late edge

	ce=$(cong_qpv "$f" "$qpn" "$pid" .cong.rx_ce)
	ect=$(cong_qpv "$f" "$qpn" "$pid" .cong.rx_ect)
	pk=$(cong_qpv "$f" "$qpn" "$pid" .rx.packets)
	tce=$(cong_pcapv "$O/pcap.json" "$ip" "$qpn" ce)
	tect=$(cong_pcapv "$O/pcap.json" "$ip" "$qpn" ect)
	tpk=$(cong_pcapv "$O/pcap.json" "$ip" "$qpn" pkts)
	late=$(cong_pcapv "$O/pcap.json" "$ip" "$qpn" late)
	edge=$(cong_pcapv "$O/pcap.json" "$ip" "$qpn" edge)
	log "$what QP $qpn: rx_ce $ce tshark $tce; rx_ect $ect tshark $tect; rx packets $pk tshark $tpk" \
		"(after its destruction: $late, within 1 ms of it: $edge)"
	# exact, but for packets that met the QP's destruction within 1 ms
	[ "$ce" -le "$tce" ] && [ "$ce" -ge $((tce - edge)) ] &&
		[ "$ect" -le "$tect" ] && [ "$ect" -ge $((tect - edge)) ] &&
		[ "$pk" -le "$tpk" ] && [ "$pk" -ge $((tpk - edge)) ] || {
		fails=$((fails + 1))
		log "MISMATCH at $what QP $qpn"
	}
}

e_srv_pid=$(jq .pid "$O/e_srv.json")
n_srv_pid=$(jq .pid "$O/n_srv.json")
e_cli_pid=$(jq .pid "$O/e_cli.json")
n_cli_pid=$(jq .pid "$O/n_cli.json")
sum_ce_a=0 sum_ect_e=0 sum_req_e=0
for i in 0 1; do
	qa=$(jq ".qps[$i].qpn" "$O/e_srv.json")
	qb=$(jq ".qps[$i].qpn" "$O/e_cli.json")
	check_qp "A flow E" "$O/qps_a.json" "$FT_SELF_IP" "$qa" "$e_srv_pid"
	check_qp "B flow E" "$O/qps_b.json" "$FT_PEER_IP" "$qb" "$e_cli_pid"
	sum_ce_a=$((sum_ce_a + $(cong_qpv "$O/qps_a.json" "$qa" "$e_srv_pid" .cong.rx_ce)))
	sum_ect_e=$((sum_ect_e + $(cong_qpv "$O/qps_a.json" "$qa" "$e_srv_pid" .cong.rx_ect)))
	sum_req_e=$((sum_req_e + $(cong_qpv "$O/qps_a.json" "$qa" "$e_srv_pid" .rx.write)))
done
na=$(jq ".qps[0].qpn" "$O/n_srv.json")
nb=$(jq ".qps[0].qpn" "$O/n_cli.json")
check_qp "A flow N" "$O/qps_a.json" "$FT_SELF_IP" "$na" "$n_srv_pid"
check_qp "B flow N" "$O/qps_b.json" "$FT_PEER_IP" "$nb" "$n_cli_pid"
cong_eq "rx-ce, rx-ect and rx packets == tshark for all 6 QPs (mismatches)" "$fails" 0

n_ce=$(cong_qpv "$O/qps_a.json" "$na" "$n_srv_pid" .cong.rx_ce)
n_ect=$(cong_qpv "$O/qps_a.json" "$na" "$n_srv_pid" .cong.rx_ect)
nb_ect=$(cong_qpv "$O/qps_b.json" "$nb" "$n_cli_pid" .cong.rx_ect)
nb_ack=$(cong_qpv "$O/qps_b.json" "$nb" "$n_cli_pid" .rx.ack)
eb_ect=$(( $(cong_qpv "$O/qps_b.json" "$(jq '.qps[0].qpn' "$O/e_cli.json")" "$e_cli_pid" .cong.rx_ect) +
	   $(cong_qpv "$O/qps_b.json" "$(jq '.qps[1].qpn' "$O/e_cli.json")" "$e_cli_pid" .cong.rx_ect) ))
cong_gt "flow E: CE marks reached A" "$sum_ce_a" 0
cong_eq "flow E: every request A received was ECT (rx-ect == rx write packets)" "$sum_ect_e" "$sum_req_e"
cong_eq "netem's mark count on B == CE packets A received" "$marks" "$sum_ce_a"
cong_eq "flow N: A received no ECT packet (Not-ECT requests)" "$n_ect" 0
cong_eq "flow N: nor any CE" "$n_ce" 0
cong_eq "flow N: B's QP received ECT(0) ACKs: rx-ect == its ACKs" "$nb_ect" "$nb_ack"
cong_eq "flow E: B's QPs received Not-ECT ACKs only (rx-ect)" "$eb_ect" 0

# --- events: with no quiet time and no per-QP interval, one per CE mark
ev_fail=0
for i in 0 1; do
	qa=$(jq ".qps[$i].qpn" "$O/e_srv.json")
	qb=$(jq ".qps[$i].qpn" "$O/e_cli.json")
	ce=$(cong_qpv "$O/qps_a.json" "$qa" "$e_srv_pid" .cong.rx_ce)
	sel="select(.kind == \"ce\" and .qpn == $qa and .pid == $e_srv_pid)"
	n=$(cong_mon_count mon "$sel")
	# counts are 1..n in order, and every event names its QP fully
	good=$(jq -s "[.[] | $sel] | [to_entries[] | select(.value.count == .key + 1 and
		.value.dev == \"$CONG_DEV\" and .value.remote_qpn == $qb and
		.value.peer == \"$B_GID\" and .value.comm == \"ft_qps\")] | length" "$O/mon.mon")
	log "QP $qa: rx_ce $ce, ce events $n, well-formed in order $good"
	[ "$n" = "$ce" ] && [ "$good" = "$ce" ] || ev_fail=$((ev_fail + 1))
done
cong_eq "flow E: ce events per QP == rx-ce, counts 1..rx-ce, dev/qpn/rqpn/peer/pid/comm right (QPs wrong)" "$ev_fail" 0
cong_eq "flow N: no ce event" "$(cong_mon_count mon "select(.kind == \"ce\" and .pid == $n_srv_pid)")" 0

# --- lifecycle events of A's three QPs
lc_fail=0
for q in $(jq '.qps[].qpn' "$O/e_srv.json") $na; do
	pid=$e_srv_pid
	[ "$q" != "$na" ] || pid=$n_srv_pid
	c=$(cong_mon_count mon "select(.kind == \"qp-create\" and .qpn == $q and .pid == $pid and .comm == \"ft_qps\" and .dev == \"$CONG_DEV\")")
	d=$(jq -c -s "map(select(.kind == \"qp-destroy\" and .qpn == $q and .pid == $pid)) | last // empty" "$O/mon.mon")
	dpk=$(jq -r '.rx.packets // "none"' <<<"$d")
	dce=$(jq -r '.cong.rx_ce // "none"' <<<"$d")
	log "QP $q: qp-create events $c; qp-destroy rx packets $dpk rx_ce $dce; qp show $(cong_qpv "$O/qps_a.json" "$q" "$pid" .rx.packets) $(cong_qpv "$O/qps_a.json" "$q" "$pid" .cong.rx_ce)"
	[ "$c" = 1 ] && [ "$dpk" = "$(cong_qpv "$O/qps_a.json" "$q" "$pid" .rx.packets)" ] &&
		[ "$dce" = "$(cong_qpv "$O/qps_a.json" "$q" "$pid" .cong.rx_ce)" ] || lc_fail=$((lc_fail + 1))
done
cong_eq "qp-create (pid, comm) and qp-destroy (final rx counters) for A's QPs (wrong)" "$lc_fail" 0

# --- the congested filter
expect=$(cong_congested_expected "$O/qps_a.json" $SRV_PIDS)
listed=$(cong_congested_listed self $SRV_PIDS)
log "A: congested by the counters: [$expect]; qp show congested: [$listed]"
ktap_result "A: qp show congested lists exactly the QPs with signals ([$listed])" test "$expect" = "$listed"
expect=$(cong_congested_expected "$O/qps_b.json" $CLI_PIDS)
listed=$(cong_congested_listed peer $CLI_PIDS)
log "B: congested by the counters: [$expect]; qp show congested: [$listed]"
ktap_result "B: qp show congested lists exactly the QPs with signals ([$listed])" test "$expect" = "$listed"

lost=$(( $(jq .events_lost "$O/stats1.json") - $(jq .events_lost "$O/stats0.json") ))
cong_eq "no event lost (events-lost delta)" "$lost" 0
cong_eq "hook-missed stays 0" "$(jq .hook_missed "$O/stats1.json")" 0
ktap_finished
