#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# PFC on a NIC that counts it: fabtrace reads the MAC's per-priority counters, as on a ConnectX port.
# timeout=240
#
# A hardware NIC's MAC consumes PFC frames: only its driver's ethtool
# counters tell (mlx5: rx_prioN_pause, rx_prioN_pause_duration in us, for
# the priorities PFC is on for).  ft_dcbnl pause_stats=1 makes A's data
# NIC such a NIC: DCBNL, and a MAC that counts the frames B injects and
# lists them under mlx5's names once PFC is on.  Its frames still reach
# A's host, which fabtrace must not count on top.  A's link speed is
# 1000 Mb/s: 65535 quanta pause for 33553920 ns.
#   S  10 XOFF, priority 3, 65535 quanta, 150 ms apart
#   storm: XOFF every 5 ms for 600 ms, watchdog detect 200, restore 2000
# Oracles: what ft_pfc sent; ethtool -S on A (the MAC's own counters);
# tshark's decode of a capture on A (the arrivals, and the paused time
# they imply: 10 whole pauses when every gap is longer than one).
set -euo pipefail
HERE=$(dirname "$(readlink -f "$0")")
. "$HERE/lib.sh"
. "$HERE/lib-cong.sh"

QUANTA=65535
PAUSE_NS=33553920		# 65535 * 512 bit times at 1000 Mb/s
POLL_MS=100
MAC=${FT_BUILD:-}/$(uname -r)/testmod/ft_dcbnl.ko

require_cmd ethtool
[ -f "$MAC" ] || skip_all "no $MAC (make test-modules)"
# the NIC first, its speed before: fabtrace reads both when it attaches
rmmod fabtrace 2>/dev/null || true
rmmod ft_dcbnl 2>/dev/null || true
ethtool -s "$FT_NETDEV" speed 1000 duplex full ||
	skip_all "ethtool cannot set the speed of $FT_NETDEV"
insmod "$MAC" ifname="$FT_NETDEV" pause_stats=1 ||
	fail_all "cannot load ft_dcbnl pause_stats=1 on $FT_NETDEV"
nic_cleanup() {
	"$CONG_CLI" policy set dev rxe0 trust pcp dscp-map default pfc none pfc-watchdog off ||
		true
	rmmod fabtrace 2>/dev/null || true
	rmmod ft_dcbnl 2>/dev/null || true
	modprobe fabtrace || true
}
at_exit nic_cleanup
cong_init pfc_nic
O=$CONG_OUT
ktap_plan 19
[ -x "$FT_PROGS/ft_pfc" ] || fail_all "no ft_pfc in $FT_PROGS"
cong_param self pfc_poll_ms $POLL_MS || fail_all "no pfc_poll_ms parameter"

jt() { jq -e "$1" "$2" >/dev/null; }
pfc_json() { "$CONG_CLI" -j pfc show dev rxe0 >"$1"; }
pv() { jq -r ".[0].prio[] | select(.prio == $2) | .$3" "$1"; }
# eth NAME: one of the MAC's counters, as ethtool -S lists it
eth() { ethtool -S "$FT_NETDEV" | awk -v k="$1:" '$1 == k { print $2 }'; }
inject() {
	local name=$1

	shift
	peer "$FT_PROGS/ft_pfc --ifname \$FT_NETDEV $*" >"$O/$name.json" 2>"$O/$name.err" || true
	log "ft_pfc $name: $(jq -c . "$O/$name.json" 2>/dev/null) $(tr '\n' ' ' <"$O/$name.err")"
}

pfc_json "$O/pfc0.json"
_host() { [ -z "$(eth rx_prio3_pause)" ] && jt '.[0].source == "host"' "$O/pfc0.json"; }
ktap_result "PFC off: the NIC lists no pause counter, fabtrace counts frames (source host)" _host
ktap_assert "policy set trust dscp pfc 3 pfc-watchdog detect 200 restore 2000" \
	"$CONG_CLI" policy set dev rxe0 trust dscp pfc 3 pfc-watchdog detect 200 restore 2000
ktap_result "the NIC lists priority 3's counters once PFC is on for it (ethtool -S)" \
	test "$(eth rx_prio3_pause)" = 0
# fabtrace looks at a NIC's list again every 10 s
_nic() { pfc_json "$O/pfc1.json" && jt '.[0].source == "nic"' "$O/pfc1.json"; }
ktap_result "pfc show: counted by the NIC (mlx5's names) within 12 s" wait_for 12 _nic
ktap_result "pfc show: nothing the NIC does not count is shown (no xoff, xon, quanta, malformed, pause)" \
	jt '.[0].driver == "mlx5" and (.[0] | has("malformed") or has("pause") | not) and
	    ([.[0].prio[] | has("xoff") or has("xon") or has("quanta")] | any | not)' "$O/pfc1.json"

ktap_assert "A: capture of MAC Control frames started" cap_start "$O/pfc.pcap" "${CONG_CAP[@]}" -- ether proto 0x8808
inject s --prio 3 --quanta $QUANTA --count 10 --interval-us 150000
# two reads after the last pause ended
sleep 0.3
cap_stop "$O/pfc.pcap" || log "tcpdump did not end well"
pfc_json "$O/pfc2.json"
f=$(eth rx_prio3_pause)
d=$(eth rx_prio3_pause_duration)
tshark -n -r "$O/pfc.pcap" -T fields -E separator=, -e frame.time_epoch \
	-e macc.cbfc.enbv -e macc.cbfc.pause_time.c3 2>/dev/null |
	python3 -c '
import json, sys
pause = int(sys.argv[1])
t = [float(r.split(",")[0]) for r in sys.stdin if r.strip() and int(r.split(",")[1], 0) & 8 and int(r.split(",")[2], 0)]
g = [b - a for a, b in zip(t, t[1:])]
print(json.dumps({"xoff": len(t), "min_gap_ms": round(min(g) * 1000, 3) if g else None,
                  "expect_ns": sum(min(pause, int(x * 1e9)) for x in g) + (pause if t else 0)}))' \
	$PAUSE_NS >"$O/wire.json" || log "no XOFF in the capture"
log "ethtool: rx_prio3_pause $f, rx_prio3_pause_duration $d us; tshark: $(cat "$O/wire.json")"
log "pfc show: $(jq -c '.[0] | {source, driver, prio: [.prio[] | select(.frames > 0)]}' "$O/pfc2.json")"
cong_eq "tshark: the 10 XOFF on priority 3 reached A" "$(jq .xoff "$O/wire.json")" 10
cong_eq "the MAC counted the 10 (ethtool)" "$f" 10
cong_eq "priority 3: frames == the MAC's count" "$(pv "$O/pfc2.json" 3 frames)" "$f"
exp=$(jq .expect_ns "$O/wire.json")
got=$(pv "$O/pfc2.json" 3 paused_ns)
ktap_result "priority 3: paused ns == the MAC's duration, and within 10 us of the arrivals' $exp ($got)" \
	test "$got" = "$((d * 1000))" -a $(( got > exp ? got - exp : exp - got )) -le 10000
cong_eq "priority 3: not unexpected (PFC on)" "$(pv "$O/pfc2.json" 3 unexpected)" 0

# the storm, from reads every 100 ms: detected between 200 and 300 ms
# into the pause (the read that starts it comes up to one read late, and
# the first read's span, paused only in part, does not count)
ktap_assert "monitor on A receives events" cong_mon_start mon self
ktap_assert "A: capture of the storm's frames started" cap_start "$O/storm.pcap" "${CONG_CAP[@]}" -- ether proto 0x8808
cong_pfc_storm "$O/pfc3.json" "$O/pfc4.json"
cong_mon_stop mon
cap_stop "$O/storm.pcap" || log "tcpdump did not end well"
jq -c 'select(.kind == "storm-start" or .kind == "storm-end")' "$O/mon.mon" | sed 's/^/# event: /'
# run_first: where the last unbroken pause began (no XOFF came for longer
# than a pause before it: a loaded node can take its frames in a burst)
tshark -n -r "$O/storm.pcap" -T fields -e frame.time_epoch 2>/dev/null |
	python3 -c '
import json, sys
t = [int(round(float(l) * 1e9)) for l in sys.stdin if l.strip()]
gaps = [b - a for a, b in zip(t, t[1:])]
run = max([0] + [i + 1 for i, g in enumerate(gaps) if g > int(sys.argv[1])])
print(json.dumps({"n": len(t), "first": t[0], "last": t[-1], "run_first": t[run],
                  "max_gap": max(gaps or [0])}))' "$PAUSE_NS" >"$O/storm-wire.json" ||
	log "no XOFF of the storm in the capture"
w() { jq ".$1" "$O/storm-wire.json"; }
start=$(jq -c -s 'map(select(.kind == "storm-start"))[0] // empty' "$O/mon.mon")
end=$(jq -c -s 'map(select(.kind == "storm-end"))[0] // empty' "$O/mon.mon")
sd=$(jq .duration <<<"$start")
ed=$(jq .duration <<<"$end")
log "storm: start after $sd ns, lasted $ed ns; on the wire: $(cat "$O/storm-wire.json")"
ktap_result "pfc show during the storm: priority 3 in state storm" \
	test "$(pv "$O/pfc3.json" 3 state)" = storm
cong_eq "one storm-start and one storm-end, priority 3" \
	"$(cong_mon_count mon 'select((.kind == "storm-start" or .kind == "storm-end") and .prio == 3 and .dev == "rxe0")')" 2
ktap_result "storm-start after 200-350 ms of pause ($sd ns)" \
	test "${sd:-0}" -ge 200000000 -a "${sd:-0}" -lt 350000000
# the storm from the first full read of pause to the end the MAC counted:
# the capture's span plus one pause, less up to one read at its start;
# where the XOFFs came with a gap longer than a pause (the MAC unpaused),
# from the last unbroken pause on at least
span=$(( $(w last) - $(w first) + PAUSE_NS ))
run=$(( $(w last) - $(w run_first) + PAUSE_NS ))
ktap_result "storm lasted the capture's XOFFs plus one pause, less at most one read ($ed vs $span, unbroken $run)" \
	test "${ed:-0}" -le $((span + 5000000)) -a "${ed:-0}" -ge $((run - POLL_MS * 1000000 - 5000000))
lag=$(( $(jq .time <<<"$end") - $(w last) - PAUSE_NS - 2000000000 ))
ktap_result "storm-end 2 s (restore) after the last pause ended, within 2 reads (+$lag ns)" \
	test "$lag" -ge -5000000 -a "$lag" -lt $((2 * POLL_MS * 1000000 + 100000000))
ktap_result "after the storm: idle, storms 1, frames == the MAC's ($(eth rx_prio3_pause))" \
	jt ".[0].prio[] | select(.prio == 3) | .state == \"idle\" and .storms == 1 and
	    .frames == $(eth rx_prio3_pause)" "$O/pfc4.json"
ktap_finished
