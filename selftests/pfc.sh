#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# PFC: pause frames B injects are counted per priority on A, as paused time, per QP, and as storms.
# timeout=300
#
# A's data NIC runs at 1000 Mb/s (ethtool), so a quantum is 512 ns and
# 65535 quanta pause for 33553920 ns.  A's policy: trust dscp, PFC on
# priority 3.  A holds two QPs of ft_qps: one at DSCP 26 (priority 3),
# one at DSCP 0 (priority 0).  B sends, with ft_pfc (AF_PACKET):
#   S  10 XOFF, priority 3, 65535 quanta, 150 ms apart (each pause ends
#      before the next frame)
#   U  4 XOFF, priority 5 (no PFC there: unexpected), 100 quanta
#   X  3 XON, priority 3
#   G  2 802.3x PAUSE, quanta 0 (an XON on every priority)
#   M  3 frames with another opcode, 3 with a reserved vector bit
# Oracles: what ft_pfc sent; tshark's decode of a capture on A (frame
# count, opcodes, priorities, quanta, arrival times: the paused time
# expected from them, exactly n * 33553920 ns when every gap is longer
# than a pause); the policy's map for each QP's priority; A's multicast
# list (ip maddr) for the address fabtrace joins.  Then a storm: the
# watchdog at detect 200 ms, restore 2000 ms, and XOFFs every 5 ms for
# 600 ms: fabtrace monitor sees storm-start after 200 ms of pause and
# storm-end 2 s after the last pause ended, with durations matching a
# capture of the storm on A.  The QP at DSCP 0 is misconfigured (priority 0 has no
# PFC: flag, filter, one event) until dscp-map 0:3 moves it to priority 3.
set -euo pipefail
HERE=$(dirname "$(readlink -f "$0")")
. "$HERE/lib.sh"
. "$HERE/lib-cong.sh"

PORT=18631
QUANTA=65535
PAUSE_NS=33553920		# 65535 * 512 bit times at 1000 Mb/s
PFC_ADDR=01:80:c2:00:00:01

require_cmd ethtool
# the speed is read when fabtrace attaches to the port: set it first
rmmod fabtrace 2>/dev/null || true
ethtool -s "$FT_NETDEV" speed 1000 duplex full ||
	skip_all "ethtool cannot set the speed of $FT_NETDEV"
cong_init pfc
O=$CONG_OUT
ktap_plan 42
[ -x "$FT_PROGS/ft_pfc" ] || fail_all "no ft_pfc in $FT_PROGS"

policy_reset() {
	"$CONG_CLI" policy set dev rxe0 trust pcp dscp-map default pfc none pfc-watchdog off ||
		true
}
at_exit policy_reset

# jt EXPR FILE: the jq expression holds for the JSON file
jt() { jq -e "$1" "$2" >/dev/null; }
pfc_json() { "$CONG_CLI" -j pfc show dev rxe0 >"$1"; }
# pv FILE PRIO FIELD: one priority's value
pv() { jq -r ".[0].prio[] | select(.prio == $2) | .$3" "$1"; }
inject() {
	local name=$1

	shift
	peer "$FT_PROGS/ft_pfc --ifname \$FT_NETDEV $*" >"$O/$name.json" 2>"$O/$name.err" || true
	log "ft_pfc $name: $(jq -c . "$O/$name.json" 2>/dev/null) $(tr '\n' ' ' <"$O/$name.err")"
}

ktap_result "A joined the PFC address $PFC_ADDR on $FT_NETDEV" \
	eval "ip maddr show dev $FT_NETDEV | grep -qw $PFC_ADDR"
pfc_json "$O/pfc0.json"
ktap_result "pfc show: speed 1000 Mb/s, nothing counted yet" \
	jt '.[0].speed == 1000 and .[0].malformed == 0 and ([.[0].prio[].frames] | add) == 0' \
	"$O/pfc0.json"
ktap_assert "policy set trust dscp pfc 3" \
	"$CONG_CLI" policy set dev rxe0 trust dscp pfc 3
ktap_assert "monitor on A receives events" cong_mon_start mon self

# two QPs held on A: DSCP 26 (priority 3) and DSCP 0 (priority 0)
common="-n 1 --iters 20 --size 4096 --op write --timeout-s 120"
hold() {
	local name=$1 tc=$2 port=$3 rc=0

	"$FT_PROGS/ft_qps" --server --hold -p "$port" --tclass "$tc" $common \
		>"$O/${name}_srv.json" 2>"$O/${name}_srv.err" &
	bg_add $!
	peer "$FT_PROGS/ft_qps --peer $FT_CTL_IP -p $port --tclass $tc $common" \
		>"$O/${name}_cli.json" 2>"$O/${name}_cli.err" || rc=1
	_held() { jq -e .qps "$O/${name}_srv.json" >/dev/null 2>&1; }
	wait_for 30 _held || rc=1
	return $rc
}
ok=1
hold p3 $((26 << 2)) $PORT || ok=0
hold p0 0 $((PORT + 1)) || ok=0
ktap_result "ft_qps: two QPs held on A (DSCP 26 and DSCP 0)" test $ok = 1
q3=$(jq '.qps[0].qpn' "$O/p3_srv.json")
q0=$(jq '.qps[0].qpn' "$O/p0_srv.json")
pid3=$(jq .pid "$O/p3_srv.json")
pid0=$(jq .pid "$O/p0_srv.json")

ktap_assert "A: capture of MAC Control frames started" cap_start "$O/pfc.pcap" "${CONG_CAP[@]}" -- ether proto 0x8808
inject s --prio 3 --quanta $QUANTA --count 10 --interval-us 150000
inject u --prio 5 --quanta 100 --count 4 --interval-us 20000
inject x --prio 3 --quanta 0 --count 3 --interval-us 20000
inject g --global --quanta 0 --count 2 --interval-us 20000
inject mo --malformed opcode --count 3
inject mv --malformed vector --count 3
sent=$(jq -s 'map(.sent) | add' "$O"/{s,u,x,g,mo,mv}.json) || sent="(no JSON from ft_pfc)"
cong_eq "ft_pfc sent every frame" "$sent" 25
sleep 0.5
cap_stop "$O/pfc.pcap" || log "tcpdump did not end well"
pfc_json "$O/pfc1.json"
cong_qps self "$O/qps1.json"

# tshark's decode: per frame, time, opcode, class-enable vector, quanta of 3 and 5
tshark -n -r "$O/pfc.pcap" -T fields -E separator=, -E occurrence=f \
	-e frame.time_epoch -e macc.opcode -e macc.cbfc.enbv -e macc.cbfc.pause_time.c3 \
	-e macc.cbfc.pause_time.c5 -e macc.pause_time 2>/dev/null >"$O/pfc.csv"
python3 - "$O/pfc.csv" "$PAUSE_NS" >"$O/wire.json" <<'EOF'
import json, sys
rows = [l.rstrip("\n").split(",") for l in open(sys.argv[1]) if l.strip()]
d = int(sys.argv[2])
w = {"frames": len(rows), "pfc": 0, "pause": 0, "other": 0, "vec_bad": 0,
     "p3_xoff": [], "p3_xon": 0, "p5_xoff": 0}
for t, opc, enbv, q3, q5, qp in rows:
    opc = int(opc, 0) if opc else -1
    if opc == 0x0001:
        w["pause"] += 1
    elif opc == 0x0101:
        v = int(enbv, 0)
        if v & 0xff00:
            w["vec_bad"] += 1
            continue
        w["pfc"] += 1
        if v & 8:
            if int(q3, 0):
                w["p3_xoff"].append(float(t))
            else:
                w["p3_xon"] += 1
        if v & 32 and int(q5, 0):
            w["p5_xoff"] += 1
    else:
        w["other"] += 1
ts = w["p3_xoff"]
gaps = [b - a for a, b in zip(ts, ts[1:])]
w["p3_min_gap_ms"] = round(min(gaps) * 1000, 3) if gaps else None
# the paused time the arrivals imply: each pause, or its part before the next frame
w["p3_expect_ns"] = sum(min(d, int(g * 1e9)) for g in gaps) + (d if ts else 0)
w["p3_exact"] = bool(gaps) and min(gaps) * 1e9 > d + 1e6
w["p3_xoff"] = len(ts)
print(json.dumps(w))
EOF
log "tshark: $(cat "$O/wire.json")"
log "pfc show: $(jq -c '.[0] | {speed, malformed, pause, prio: [.prio[] | select(.frames > 0)]}' "$O/pfc1.json")"
cong_eq "tshark: every frame ft_pfc sent reached A" "$(jq .frames "$O/wire.json")" 25

cong_eq "priority 3: frames (10 XOFF + 3 XON + 2 PAUSE)" "$(pv "$O/pfc1.json" 3 frames)" 15
cong_eq "priority 3: XOFF == tshark's XOFF on priority 3" "$(pv "$O/pfc1.json" 3 xoff)" \
	"$(jq .p3_xoff "$O/wire.json")"
cong_eq "priority 3: XON == tshark's XON (PFC + PAUSE)" "$(pv "$O/pfc1.json" 3 xon)" \
	$(( $(jq '.p3_xon + .pause' "$O/wire.json") ))
cong_eq "priority 3: quanta == 10 * $QUANTA" "$(pv "$O/pfc1.json" 3 quanta)" $((10 * QUANTA))
if jq -e .p3_exact "$O/wire.json" >/dev/null; then
	cong_eq "priority 3: paused ns == 10 pauses of $PAUSE_NS (gaps >= $(jq .p3_min_gap_ms "$O/wire.json") ms)" \
		"$(pv "$O/pfc1.json" 3 paused_ns)" $((10 * PAUSE_NS))
else
	exp=$(jq .p3_expect_ns "$O/wire.json")
	got=$(pv "$O/pfc1.json" 3 paused_ns)
	log "a gap under a pause ($(jq .p3_min_gap_ms "$O/wire.json") ms): the arrivals imply $exp ns"
	ktap_result "priority 3: paused ns within 1 ms of the arrivals' ($got vs $exp)" \
		test $(( got > exp ? got - exp : exp - got )) -le 1000000
fi
cong_eq "priority 3: not unexpected (PFC on)" "$(pv "$O/pfc1.json" 3 unexpected)" 0
cong_eq "priority 5: XOFF == tshark's" "$(pv "$O/pfc1.json" 5 xoff)" "$(jq .p5_xoff "$O/wire.json")"
cong_eq "priority 5: unexpected (4 XOFF + 2 PAUSE, no PFC on 5)" "$(pv "$O/pfc1.json" 5 unexpected)" 6
cong_eq "priority 5: paused ns == 4 * 100 quanta * 512 ns" "$(pv "$O/pfc1.json" 5 paused_ns)" $((4 * 51200))
cong_eq "priority 0: frames == the 2 PAUSE frames" "$(pv "$O/pfc1.json" 0 frames)" 2
cong_eq "802.3x PAUSE frames == tshark's" "$(jq '.[0].pause' "$O/pfc1.json")" "$(jq .pause "$O/wire.json")"
cong_eq "malformed == tshark's other opcodes + reserved vectors" "$(jq '.[0].malformed' "$O/pfc1.json")" \
	$(( $(jq '.other + .vec_bad' "$O/wire.json") ))
cong_eq "malformed == the 6 bad frames sent" "$(jq '.[0].malformed' "$O/pfc1.json")" 6

# per QP: the priority through the policy's map, and its share of the pauses
p3=$(pv "$O/pfc1.json" 3 paused_ns)
log "QP $q3: $(jq -c ".[] | select(.qpn == $q3) | {tclass, prio, paused_us}" "$O/qps1.json");" \
	"QP $q0: $(jq -c ".[] | select(.qpn == $q0) | {tclass, prio, paused_us}" "$O/qps1.json")"
cong_eq "QP $q3 (DSCP 26): priority 3" "$(cong_qpv "$O/qps1.json" "$q3" "$pid3" .prio)" 3
cong_eq "QP $q0 (DSCP 0): priority 0" "$(cong_qpv "$O/qps1.json" "$q0" "$pid0" .prio)" 0
cong_eq "QP $q3: paused us == priority 3's paused ns / 1000" \
	"$(cong_qpv "$O/qps1.json" "$q3" "$pid3" .paused_us)" $((p3 / 1000))
cong_eq "QP $q0: paused us 0 (priority 0 was never paused)" \
	"$(cong_qpv "$O/qps1.json" "$q0" "$pid0" .paused_us)" 0
cong_eq "pfc show: priority 3 has 1 live QP" "$(pv "$O/pfc1.json" 3 qps)" 1
ktap_result "pfc show as nobody (counters are no tenant's)" \
	setpriv --reuid nobody --regid nogroup --clear-groups "$CONG_CLI" pfc show dev rxe0

# misconfigured: DSCP 0 is priority 0, which has no PFC
misconf() { "$CONG_CLI" -j qp show dev rxe0 misconfigured | jq -c '[.[] | .qpn] | sort'; }
m1=$(misconf)
log "qp show misconfigured: $m1"
ktap_result "qp show misconfigured: QP $q0 (DSCP 0, priority 0 without PFC), not QP $q3" \
	jq -e "index($q0) != null and index($q3) == null" <<<"$m1"
ev0=$(cong_mon_count mon "select(.kind == \"misconfigured\" and .qpn == $q0 and .pid == $pid0)")
ev3=$(cong_mon_count mon "select(.kind == \"misconfigured\" and .qpn == $q3)")
ktap_result "misconfigured events: 1 for QP $q0, 0 for QP $q3 ($ev0, $ev3)" test "$ev0/$ev3" = 1/0

# the storm
ktap_assert "policy set pfc-watchdog detect 200 restore 2000" \
	"$CONG_CLI" policy set dev rxe0 pfc-watchdog detect 200 restore 2000
ktap_assert "A: capture of the storm's frames started" cap_start "$O/storm.pcap" "${CONG_CAP[@]}" -- ether proto 0x8808
cong_pfc_storm "$O/pfc2.json" "$O/pfc3.json"
cong_mon_stop mon
cap_stop "$O/storm.pcap" || log "tcpdump did not end well"
jq -c 'select(.kind == "storm-start" or .kind == "storm-end")' "$O/mon.mon" | sed 's/^/# event: /'
ktap_result "pfc show during the storm: priority 3 in state storm" \
	test "$(pv "$O/pfc2.json" 3 state)" = storm
cong_eq "one storm-start, for priority 3, port 1, 1 QP" \
	"$(cong_mon_count mon 'select(.kind == "storm-start" and .prio == 3 and .port == 1 and .qps == 1 and .dev == "rxe0")')" 1
cong_eq "one storm-end" "$(cong_mon_count mon 'select(.kind == "storm-end" and .prio == 3)')" 1
start=$(jq -c -s 'map(select(.kind == "storm-start"))[0] // empty' "$O/mon.mon")
end=$(jq -c -s 'map(select(.kind == "storm-end"))[0] // empty' "$O/mon.mon")
sd=$(jq .duration <<<"$start")
ed=$(jq .duration <<<"$end")
# A's own view of the storm: the capture's arrival times (A's clock, as
# the events'), which a busy node may bunch where B spaced them 5 ms
tshark -n -r "$O/storm.pcap" -T fields -e frame.time_epoch 2>/dev/null |
	python3 -c '
import json, sys
pause, detect = int(sys.argv[1]), int(sys.argv[2])
t = [int(round(float(l) * 1e9)) for l in sys.stdin if l.strip()]
g = [b - a for a, b in zip(t, t[1:])]
# A gap longer than a pause ends it on A: the storm is detected in the first
# unbroken run of pause that lasts the detect time, and it lasts from that
# run'"'"'s first XOFF to the last pause (later gaps are shorter than restore).
since, run = None, t[0]
for a, b in zip(t, t[1:] + [None]):
    if b is None or b - a >= pause:
        if since is None and a + pause - run >= detect:
            since = run
        run = b
print(json.dumps({"n": len(t), "first": t[0], "last": t[-1], "max_gap": max(g) if g else 0,
                  "storm_from": since if since is not None else t[0]}))' $PAUSE_NS 200000000 \
	>"$O/storm-wire.json" || log "no XOFF of the storm in the capture"
log "storm: start after $sd ns of pause, lasted $ed ns; on the wire: $(cat "$O/storm-wire.json")"
w() { jq ".$1" "$O/storm-wire.json"; }
ktap_result "storm-start after 200-250 ms of pause ($sd ns)" \
	test "$sd" -ge 200000000 -a "$sd" -lt 250000000
cong_eq "the capture saw the storm's 120 XOFFs" "$(w n)" 120
span=$(( $(w last) - $(w storm_from) + PAUSE_NS ))
[ "$(w storm_from)" = "$(w first)" ] ||
	log "a gap of $(w max_gap) ns broke the pause on A before the storm: it began $(( $(w storm_from) - $(w first) )) ns after the first XOFF"
ktap_result "storm lasted the capture's XOFFs from its run's first plus one pause, within 5 ms ($ed vs $span)" \
	test $(( ed > span ? ed - span : span - ed )) -le 5000000
# the end event comes restore (2000 ms) after the last pause ended
lag=$(( $(jq .time <<<"$end") - $(w last) - PAUSE_NS - 2000000000 ))
ktap_result "storm-end 2 s (restore) after the last XOFF's pause ended, within 200 ms (+$lag ns)" \
	test "$lag" -ge -5000000 -a "$lag" -lt 200000000
ktap_result "after the storm: priority 3 idle, storms 1" \
	jt '.[0].prio[] | select(.prio == 3) | .state == "idle" and .storms == 1' "$O/pfc3.json"

# the fix: DSCP 0 to priority 3; QP $q0 moves there, keeping what it accrued (0)
run "$CONG_CLI" policy set dev rxe0 dscp-map 0:3
m2=$(misconf)
cong_qps self "$O/qps2.json"
log "qp show misconfigured after dscp-map 0:3: $m2"
ktap_result "after dscp-map 0:3: neither QP misconfigured" \
	jq -e "index($q0) == null and index($q3) == null" <<<"$m2"
ktap_result "QP $q0 now priority 3, paused us 0 (priority 0 never paused; 3 is idle)" \
	test "$(cong_qpv "$O/qps2.json" "$q0" "$pid0" .prio)/$(cong_qpv "$O/qps2.json" "$q0" "$pid0" .paused_us)" = 3/0

policy_reset
rmmod fabtrace
ktap_result "unloading leaves the PFC address" \
	eval "! ip maddr show dev $FT_NETDEV | grep -qw $PFC_ADDR"
modprobe fabtrace
ktap_finished
