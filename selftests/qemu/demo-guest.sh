#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The fabtrace demo, run on node A by demo.sh: what fabtrace shows on a wire.
#
# Each step prints a header, then real output from node A (local) or node B
# (through `peer`).  Later steps (traffic, congestion, policy) go at the end.
set -euo pipefail
. "$FT_REPO/selftests/lib.sh"
. "$FT_REPO/selftests/lib-cong.sh"

header() {
	printf '\n======== %s ========\n' "$*"
}

missing=()
command -v fabtrace >/dev/null || missing+=("the CLI ($FT_CLI: make user)")
modinfo fabtrace >/dev/null 2>&1 ||
	missing+=("the module ($FT_BUILD/$FT_KVER/kmod/fabtrace.ko: make modules)")
if [ ${#missing[@]} -gt 0 ]; then
	printf 'demo: missing %s\n' "${missing[@]}" >&2
	exit 1
fi

header "node A and node B: modprobe fabtrace"
# a known speed for the PFC step: fabtrace reads it when it attaches
on_both "ethtool -s \$FT_NETDEV speed 1000 duplex full"
on_both modprobe fabtrace
on_both 'echo "$(hostname): fabtrace $(cat /sys/module/fabtrace/initstate)"'

header "node A and node B: rxe0 on the data wire ($FT_SELF_IP <-> $FT_PEER_IP)"
rxe_up both
on_both 'echo "$(hostname): $(rdma link show rxe0/1)"'

header "node A: fabtrace dev show"
fabtrace dev show

header "node B: fabtrace dev show"
peer fabtrace dev show

PROGS=$FT_BUILD/selftests/progs
[ -x "$PROGS/ft_qps" ] || PROGS=$FT_REPO/selftests/progs
mon_a=$FT_OUT/demo-monitor-a.txt mon_b=$FT_OUT/demo-monitor-b.txt
mons=
cleanup() {
	tc qdisc del dev "$FT_NETDEV" root 2>/dev/null || true
	[ -z "$mons" ] || kill $mons 2>/dev/null || true
}
trap cleanup EXIT

header "both nodes: fabtrace monitor, in the background"
fabtrace monitor >"$mon_a" 2>&1 &
mons=$!
peer "fabtrace monitor" >"$mon_b" 2>&1 &
mons="$mons $!"
sleep 1
echo "listening for QP and congestion events on A and B"

header "both nodes: the PFC/ECN policy: trust DSCP, ECN on priority 3 (DSCP 24-31, RoCE's 26)"
run fabtrace policy set dev rxe0 trust dscp ecn 3
run peer fabtrace policy set dev rxe0 trust dscp ecn 3
fabtrace policy show dev rxe0

header "node A: a congested egress: netem marks ECN-capable packets CE, drops the others; B answers CE with CNPs"
run tc qdisc add dev "$FT_NETDEV" root netem loss 2% ecn
tc qdisc show dev "$FT_NETDEV"

header "traffic 1: 4 RC QPs, RDMA WRITE A -> B, DSCP 26: ECT(0) by the policy, 200 x 8 KiB each"
peer "$PROGS/ft_qps --server -n 4 --op write --iters 200 --size 8192 --tclass 104 --summary" >/dev/null &
srv=$!
"$PROGS/ft_qps" --peer "$FT_PEER_CTL_IP" -n 4 --op write --iters 200 --size 8192 --tclass 104 \
	--summary | python3 -c 'import json, sys
d = json.load(sys.stdin)
print("ft_qps: %d writes, %d bytes, pid %d" % (d["total_ops"], d["total_bytes"], d["pid"]))'
wait "$srv" || true

header "traffic 2: ib_write_bw A -> B, DSCP 0 (priority 0, no ECN): its losses become NAKs and retransmits"
peer "ib_write_bw -d rxe0 -x 1 -n 300 -s 8192 -u 17" >/dev/null 2>&1 &
srv=$!
wait_for 20 peer "ss -ltn | grep -q ':18515 '"
ib_write_bw -d rxe0 -x 1 -n 300 -s 8192 -u 17 "$FT_PEER_IP" | grep -A1 '#bytes' || true
wait "$srv" || true
tc qdisc del dev "$FT_NETDEV" root

header "node A: fabtrace qp show"
fabtrace qp show dev rxe0
header "node B: fabtrace qp show"
peer fabtrace qp show dev rxe0

header "peer QPs agree: what A sent on a QP is what B received on its peer"
fabtrace -j qp show dev rxe0 >"$FT_OUT/demo-a.json"
peer fabtrace -j qp show dev rxe0 >"$FT_OUT/demo-b.json"
python3 - "$FT_OUT/demo-a.json" "$FT_OUT/demo-b.json" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
peers = {q["qpn"]: q for q in b}
print(f"{'A qpn':>6} {'comm':<12} {'A tx pkts':>10} {'A tx bytes':>11}    "
      f"{'B qpn':>6} {'B rx pkts':>10} {'B rx bytes':>11} {'lost':>5} {'B rx CE':>8} {'A retx':>7}")
for q in sorted(a, key=lambda q: q["qpn"]):
    p = peers.get(q.get("remote_qpn"))
    if q["type"] != "rc" or not p or not q["tx"]["packets"]:
        continue
    lost = q["tx"]["packets"] - p["rx"]["packets"]
    same = "==" if lost == 0 and q["tx"]["bytes"] == p["rx"]["bytes"] else "->"
    print(f"{q['qpn']:>6} {q['comm']:<12} {q['tx']['packets']:>10} {q['tx']['bytes']:>11} {same:^3} "
          f"{p['qpn']:>6} {p['rx']['packets']:>10} {p['rx']['bytes']:>11} {lost:>5} "
          f"{p['cong']['rx_ce']:>8} {q['cong']['retransmits']:>7}")
print("lost: packets netem dropped on the wire (not ECN-capable); the retransmits"
      " that recovered them are in A's tx, so A's tx exceeds B's rx by exactly that")
PY

header "node B: the QPs that saw congestion (fabtrace qp show congested)"
peer fabtrace qp show dev rxe0 congested
header "node A: the same, from the sender's side"
fabtrace qp show dev rxe0 congested

header "events: fabtrace monitor on A and on B (first lines)"
sleep 1
kill $mons 2>/dev/null || true
wait $mons 2>/dev/null || true
mons=
echo "-- node A"
grep -v -e qp-create -e qp-destroy "$mon_a" | head -n 8 || true
echo "-- node B"
grep -v -e qp-create -e qp-destroy "$mon_b" | head -n 8 || true
echo "-- (and $(grep -c -e qp-create -e qp-destroy "$mon_a") QP create/destroy events on A)"

header "PFC: B pauses priority 3 on A with 802.1Qbb frames (ft_pfc), A's watchdog on"
run fabtrace policy set dev rxe0 pfc 3 pfc-watchdog detect 200 restore 500
fabtrace monitor events storm-start,storm-end,misconfigured >"$FT_OUT/demo-storm-a.txt" 2>&1 &
mons=$!
sleep 1
echo "B: 10 XOFF frames 100 ms apart, each 65535 quanta (33.6 ms at 1000 Mb/s), then a storm:"
echo "B: an XOFF every 5 ms for 600 ms, each renewing the pause before it expires"
peer "$PROGS/ft_pfc --ifname \$FT_NETDEV --prio 3 --count 10 --interval-us 100000" >/dev/null
peer "$PROGS/ft_pfc --ifname \$FT_NETDEV --prio 3 --count 120 --interval-us 5000" >/dev/null
sleep 1
fabtrace pfc show dev rxe0
echo "-- events on A"
cat "$FT_OUT/demo-storm-a.txt"

header "misconfigured: with PFC on priority 3 only, a QP at DSCP 0 (priority 0) is flagged"
"$PROGS/ft_qps" --server --hold -n 1 --op write --iters 10 --size 4096 --tclass 0 \
	>"$FT_OUT/demo-hold.json" 2>/dev/null &
held=$!
peer "$PROGS/ft_qps --peer $FT_CTL_IP -n 1 --op write --iters 10 --size 4096 --tclass 0" >/dev/null
wait_for 20 jq -e .qps "$FT_OUT/demo-hold.json" >/dev/null 2>&1
fabtrace qp show dev rxe0 misconfigured
sleep 1
echo "-- events on A"
grep misconfigured "$FT_OUT/demo-storm-a.txt" || true
kill "$held" 2>/dev/null || true
wait "$held" 2>/dev/null || true
kill $mons 2>/dev/null || true
wait $mons 2>/dev/null || true
mons=
fabtrace policy set dev rxe0 pfc none pfc-watchdog off

header "a hardware NIC: node A's rdma_rxe swapped for ft_hca, a soft HCA that counts like mlx5"
echo "fabtrace's taps do not attach to it: on A, fabtrace sees what a ConnectX user sees"
rmmod fabtrace
hca_swap "${FT_BUILD:-}/$(uname -r)/hca/ft_hca.ko"
modprobe fabtrace hw_bind=1 hw_poll_ms=200
fabtrace dev show rxe0

header "ib_write_bw B -> A, 50 x 8 KiB, 3% of B's RoCE packets lost: A's responder NAKs, B retransmits"
cong_netem peer roce loss 3%
stdbuf -oL ib_write_bw -d rxe0 -x 1 -F -n 50 -s 8192 -u 17 --wait_destroy=4 >"$FT_OUT/demo-hw.srv" 2>&1 &
srv=$!
wait_for 20 sh -c "ss -ltn | grep -q ':18515 '"
peer "ib_write_bw -d rxe0 -x 1 -F -n 50 -s 8192 -u 17 --wait_destroy=4 $FT_SELF_IP" >/dev/null 2>&1 &
cli=$!
wait_for 60 grep -q 'Waiting [0-9]* seconds' "$FT_OUT/demo-hw.srv" || true
sleep 1
dropped=$(cong_netem_drops peer)
fabtrace -j qp show dev rxe0 >"$FT_OUT/demo-hw-a.json"
peer fabtrace -j qp show dev rxe0 >"$FT_OUT/demo-hw-b.json"
echo "-- node A (hardware NIC): what its counter set counts; '-' where the NIC counts nothing"
fabtrace qp show dev rxe0 type rc
echo "-- node B (soft-RoCE, fabtrace's taps: every packet)"
bq=$(jq '[.[] | select(.comm == "ib_write_bw" and .hw.source == "set")] | last | .remote_qpn' \
	"$FT_OUT/demo-hw-a.json")
peer fabtrace qp show dev rxe0 type rc | awk -v q="$bq" 'NR == 1 || $2 == q'
python3 - "$FT_OUT/demo-hw-a.json" "$FT_OUT/demo-hw-b.json" "$dropped" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
drops = int(sys.argv[3] or 0)
peers = {q["qpn"]: q for q in b}
print("-- the same QPs, each number with its source (B's netem dropped %d of its packets)" % drops)
for q in a:
    p = peers.get(q.get("remote_qpn"))
    c = {x["name"]: x["value"] for x in q.get("hw", {}).get("counters", [])}
    if not p or "rx_write_requests" not in c or not c["rx_write_requests"]:
        continue
    src = q["hw"]["source"]
    print(f"A qp {q['qpn']} ({src}, counted by the NIC):  rx_write_requests {c['rx_write_requests']},"
          f" out_of_sequence {c['out_of_sequence']}, duplicate_request {c['duplicate_request']}")
    print(f"B qp {p['qpn']} (tap, counted by fabtrace): tx write packets {p['tx']['write']},"
          f" retransmits {p['cong']['retransmits']}, NAKs received (seq) {p['cong']['rx_nak']['psn_seq']}")
    rx, oos, dup = c["rx_write_requests"], c["out_of_sequence"], c["duplicate_request"]
    ok = "==" if rx == p["tx"]["write"] - drops else "!="
    print(f"   A's rx_write_requests {rx} {ok} B's tx writes {p['tx']['write']} - netem's drops {drops}")
    ok = "==" if oos + dup + drops == p["cong"]["retransmits"] else "!="
    print(f"   A's out_of_sequence {oos} + duplicate_request {dup} + netem's drops {drops}"
          f" {ok} B's retransmits {p['cong']['retransmits']}")
    print(f"   A took {rx - oos - dup} in sequence (50 writes of 8 KiB in 1 KiB packets: 400)")
PY
cong_netem_del peer
wait "$srv" "$cli" 2>/dev/null || true
