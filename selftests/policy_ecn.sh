#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ECN by policy: soft-RoCE packets whose DSCP maps to an ECN priority leave ECT(0), others untouched.
# timeout=300
#
# B (the sender) gets the policy: trust dscp, DSCP 10 mapped to priority
# 3, ECN on priority 3.  A keeps the defaults (ECN on none).  B writes to A
# over three flows of ft_qps, none of which asks for ECT itself:
#   flow E  DSCP 26 (priority 3 by the default map)      -> ECT(0)
#   flow M  DSCP 10 (priority 3 by the map entry set)    -> ECT(0)
#   flow N  DSCP 0  (priority 0)                          -> Not-ECT
# and A's ACKs (A's policy: ECN on none) stay Not-ECT.  Then ECN goes off
# on B and flow E runs again: Not-ECT.  Oracles, from a capture on A
# decoded by tshark: per QP, ECT(0) packets == B's fabtrace tx packets for
# flows E and M, 0 for N and for the ACKs; the DSCP is what the
# application asked for; every IPv4 header checksum is good (tshark checks
# them); A's rxe accepted every packet (rcvd_pkts grew by the RoCE packets
# the capture saw arrive: a wrong ICRC would have been dropped), and A's
# fabtrace rx-ect per QP agrees.
set -euo pipefail
HERE=$(dirname "$(readlink -f "$0")")
. "$HERE/lib.sh"
. "$HERE/lib-cong.sh"

ITERS=100
SIZE=4096
PORT=18611

cong_init policy_ecn
O=$CONG_OUT
ktap_plan 11

# the defaults again when this test ends, whatever happens
policy_reset() {
	peer "fabtrace policy set dev rxe0 trust pcp dscp-map default ecn none" || true
}
at_exit policy_reset

ktap_assert "B: policy set trust dscp, DSCP 10 -> priority 3, ECN on 3" \
	peer "fabtrace policy set dev rxe0 trust dscp dscp-map 10:3 ecn 3"
peer fabtrace policy show dev rxe0 | sed 's/^/# B: /'

# flow NAME TCLASS PORT: ft_qps server on A, client on B, one QP each
flow() {
	local name=$1 tc=$2 port=$3 common="--iters $ITERS --size $SIZE --op write --timeout-s 120"
	local srv rc=0

	"$FT_PROGS/ft_qps" --server -p "$port" -n 1 --tclass 0 $common \
		>"$O/${name}_srv.json" 2>"$O/${name}_srv.err" &
	srv=$!
	bg_add $srv
	peer "$FT_PROGS/ft_qps --peer $FT_CTL_IP -p $port -n 1 --tclass $tc $common" \
		>"$O/${name}_cli.json" 2>"$O/${name}_cli.err" || rc=1
	wait "$srv" || rc=1
	log "$name: $(jq -c '{role, tclass, total_ops, error}' "$O/${name}_cli.json" 2>/dev/null)"
	return $rc
}

cong_rxe self "$O/rxe0.json"
ktap_assert "A: capture started" cap_start "$O/a.pcap" "${CONG_CAP[@]}"
ok=1
flow e $((26 << 2)) $PORT || ok=0
flow m $((10 << 2)) $((PORT + 1)) || ok=0
flow n 0 $((PORT + 2)) || ok=0
ktap_result "flows E (DSCP 26), M (DSCP 10), N (DSCP 0) ran" test "$ok" = 1
run peer "fabtrace policy set dev rxe0 ecn none"
flow off $((26 << 2)) $((PORT + 3)) || ok=0
ktap_result "flow E again, ECN off" test "$ok" = 1
cap_stop "$O/a.pcap" || log "tcpdump did not end well"
cong_rxe self "$O/rxe1.json"
cong_qps self "$O/qps_a.json"
cong_qps peer "$O/qps_b.json"

# per destination QP: packets, ECT (ECN != 0), CE, and the DSCPs seen
tshark -n -r "$O/a.pcap" -Y infiniband -T fields -E separator=/t \
	-e ip.dst -e infiniband.bth.destqp -e ip.dsfield.ecn -e ip.dsfield.dscp 2>/dev/null |
	python3 -c '
import json, sys
q = {}
for line in sys.stdin:
    f = line.rstrip("\n").split("\t")
    if len(f) < 4 or not f[1]:
        continue
    e = q.setdefault("%s/%d" % (f[0], int(f[1], 0)), {"pkts": 0, "ect0": 0, "other_ecn": 0, "dscp": []})
    e["pkts"] += 1
    ecn = int(f[2], 0)
    e["ect0" if ecn == 2 else "other_ecn"] += ecn != 0
    if int(f[3], 0) not in e["dscp"]:
        e["dscp"].append(int(f[3], 0))
print(json.dumps(q))' >"$O/pcap.json"
log "tshark: $(cat "$O/pcap.json")"

# check FLOW WANT_ECT DSCP: A's QP (destination of B's requests) and B's
# QP (destination of A's ACKs) of the flow
fails=0
check() {
	local name=$1 want=$2 dscp=$3 qa qb pa pb txb rxa ecta ect0 other dscps acks acks_ect

	qa=$(jq '.qps[0].qpn' "$O/${name}_srv.json")
	qb=$(jq '.qps[0].qpn' "$O/${name}_cli.json")
	pa=$(jq '.pid' "$O/${name}_srv.json")
	pb=$(jq '.pid' "$O/${name}_cli.json")
	txb=$(cong_qpv "$O/qps_b.json" "$qb" "$pb" .tx.packets)
	rxa=$(cong_qpv "$O/qps_a.json" "$qa" "$pa" .rx.packets)
	ecta=$(cong_qpv "$O/qps_a.json" "$qa" "$pa" .cong.rx_ect)
	ect0=$(jq ".[\"$FT_SELF_IP/$qa\"].ect0 // 0" "$O/pcap.json")
	other=$(jq ".[\"$FT_SELF_IP/$qa\"].other_ecn // 0" "$O/pcap.json")
	dscps=$(jq -c ".[\"$FT_SELF_IP/$qa\"].dscp // []" "$O/pcap.json")
	acks=$(jq ".[\"$FT_PEER_IP/$qb\"].pkts // 0" "$O/pcap.json")
	acks_ect=$(jq "(.[\"$FT_PEER_IP/$qb\"].ect0 // 0) + (.[\"$FT_PEER_IP/$qb\"].other_ecn // 0)" \
		"$O/pcap.json")
	local want_ect=0
	[ "$want" = ect ] && want_ect=$txb
	log "flow $name: B tx $txb, on the wire ECT(0) $ect0 (want $want_ect) other ECN $other" \
		"DSCP $dscps (want [$dscp]); A rx $rxa rx-ect $ecta; A's ACKs $acks, ECT $acks_ect"
	[ "$txb" -gt 0 ] && [ "$ect0" = "$want_ect" ] && [ "$other" = 0 ] &&
		[ "$dscps" = "[$dscp]" ] && [ "$rxa" = "$txb" ] && [ "$ecta" = "$want_ect" ] &&
		[ "$acks" -gt 0 ] && [ "$acks_ect" = 0 ] || {
		fails=$((fails + 1))
		log "MISMATCH in flow $name"
	}
}
check e ect 26
check m ect 10
check n none 0
check off none 26
cong_eq "ECT(0) on the wire == B's tx for flows E and M, none for N, off, or A's ACKs" "$fails" 0

# A's rxe accepted every RoCE packet that reached it
wire=$(jq "[to_entries[] | select(.key | startswith(\"$FT_SELF_IP/\")) | .value.pkts] | add" \
	"$O/pcap.json")
rcvd=$(($(cong_rxev "$O/rxe1.json" rcvd_pkts) - $(cong_rxev "$O/rxe0.json" rcvd_pkts)))
cong_eq "A's rxe received every packet the capture saw arrive (rcvd_pkts delta)" "$rcvd" "$wire"
ktap_result "tcpdump dropped nothing" test "$(cap_dropped "$O/a.pcap")" = 0

# the IPv4 header checksums: tshark validates them (the marked ones too)
bad=$(tshark -n -r "$O/a.pcap" -o ip.check_checksum:TRUE -Y "infiniband && ip.checksum.status != 1" \
	2>/dev/null | wc -l)
good=$(tshark -n -r "$O/a.pcap" -o ip.check_checksum:TRUE -Y "infiniband && ip.checksum.status == 1" \
	2>/dev/null | wc -l)
log "IPv4 header checksums: $good good, $bad not good"
ktap_result "every IPv4 header checksum on the wire is good ($good)" test "$bad" = 0 -a "$good" -gt 0

# jt EXPR FILE: the jq expression holds for the JSON file
jt() { jq -e "$1" "$2" >/dev/null; }

# the policy again: what was set, and A's still the defaults
peer fabtrace -j policy show dev rxe0 >"$O/pol_b.json"
fabtrace -j policy show dev rxe0 >"$O/pol_a.json"
ktap_result "B's policy as set (trust dscp, 10 -> 3, ECN now none)" \
	jt '.[0].trust == "dscp" and .[0].dscp_map[10] == 3 and .[0].ecn == []' "$O/pol_b.json"
ktap_result "A's policy untouched" jt '.[0].trust == "pcp" and .[0].ecn == []' "$O/pol_a.json"
policy_reset
ktap_result "B's policy back to the defaults" \
	eval 'peer fabtrace -j policy show dev rxe0 | jq -e ".[0].trust == \"pcp\" and .[0].dscp_map[10] == 1" >/dev/null'
ktap_finished
