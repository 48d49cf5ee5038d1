#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Wire fuzzing: B injects >= 100,000 malformed RoCEv2 frames at A's rxe
# during real traffic; fabtrace's accounting stays exact.
# timeout=420
#
# rdma_rxe itself panics (6.12) on an IPv6 frame whose UDP payload is
# shorter than a BTH: rxe_rcv() reaches its drop path before it sets
# pkt->qp and puts what IPv6 left in skb->cb.  ft_wirefuzz's IPv6 cuts
# start after the BTH; IPv4 cuts inside it are safe (ip_rcv zeroes cb).
#
# ib_write_bw runs A (requester) -> B; A's QPs receive only B's ACKs.  While
# it runs, B's ft_wirefuzz (selftests/progs) sends frames from B's data NIC
# to A's MAC and address.  Every frame's fate on A is known by how it was
# built (see ft_wirefuzz.c): "stack" (the Ethernet/IP/UDP stack drops it
# before rxe_rcv()), "drop" (rxe_rcv() drops it: fabtrace counts it on the
# device, in rx-drops, by the first of rxe's checks it fails: malformed,
# unknown_qp, qp_state, address, key, icrc, mcast; mcast ones, QPN 0xffffff
# with a good ICRC, rxe counts in rcvd_pkts first: "rxe_accept"), or "qp"
# (a CNP to a traffic QP from its peer, P_Key and ICRC good: rxe drops it as
# an opcode it does not know, fabtrace counts it on the QP).  fabtrace's
# receive tap sees only what rxe accepted, so no other injected frame ever
# reaches a QP: its counters, its PSN trackers, its CE marks.  Checked,
# with deltas from before the traffic to after it (nothing in flight):
#
#   E1 sum over A's QPs of rx   == sent_pkts(B) + "qp"
#   E2 device rx packets(A)     == rcvd_pkts(A) - mcast + "qp"
#   E3 per traffic QP q of A, per class, bytes and NAK syndrome:
#        rx_c(q)                == tx_c(B's peer of q) + qp_c(q)
#   E4 per traffic QP: rx_oos + rx_dup == 0 and rx_ce == 0 (the injected
#      requests, far out of sequence, and the CE-marked ones never reach it)
#   E5 rx-drops(A), per reason  == the frames predicted to fail that check
#   E6 unknown_rx(A) and malformed(A) deltas == 0 (they count packets rxe
#      accepted: no injected frame is one)
#   E7 rcvd_pkts(A)             == sent_pkts(B) + rxe_accept (rxe's own view)
#   E8 sent_pkts(A) == sum of A's QP tx == rcvd_pkts(B): nothing injected
#      made A send
# and no splat (the harness scans dmesg), fabtrace still loaded.
# rx-drops is read from the module's netlink family directly (dev-get's
# rx-drops nest), which the CLI does not print yet.
set -euo pipefail
HERE=$(dirname "$(readlink -f "$0")")
. "$HERE/lib.sh"
. "$HERE/lib-oracle.sh"

require_peer
require_module fabtrace
require_progs
require_cmd fabtrace rdma ib_write_bw ss stdbuf ip
WF=$FT_PROGS/ft_wirefuzz
[ -x "$WF" ] || skip_all "$WF not built (make -C selftests)"

SEED=${FT_WIREFUZZ_SEED:-14}
COUNT=${FT_WIREFUZZ_COUNT:-100000}
RATE=${FT_WIREFUZZ_RATE:-0}
# the 100,000 frames took 5-7 s on both kernels: the traffic needs to
# outlast them, three times over; on the debug kernel (KASAN, lockdep),
# ~4 times slower, they took 87 s: as many times longer there
TRAFFIC_S=${FT_WIREFUZZ_TRAFFIC_S:-$((20 * ${FT_TIMEOUT_SCALE:-1}))}
NQ=2
BW_ARGS="-d rxe0 -x 1 -F -c RC -q $NQ -s 1024 -t 4 -u 20 -D $TRAFFIC_S --wait_destroy=$((6 * ${FT_TIMEOUT_SCALE:-1}))"
REPORT='^ *Waiting [0-9]+ seconds before releasing resources'

# rx_drops: {"DEV": {"malformed": N, ...} or null} for every fabtrace device
# of this node, from `dev show`'s rx_drops; null where the module has none.
rx_drops() {
	fabtrace -j dev show | "$FT_PY3" -c 'import json, sys
print(json.dumps({d["name"]: d.get("rx_drops") for d in json.load(sys.stdin)}))'
}

# rx_drops_total: every rx-drop of rxe0 so far (0 if it has no rx-drops).
rx_drops_total() {
	rx_drops | "$FT_PY3" -c 'import json, sys; print(sum((json.load(sys.stdin).get("rxe0") or {}).values()))'
}

ktap_plan 19
ktap_assert "fabtrace reloaded on both nodes (retain_ms=600000)" \
	or_fresh_module retain_ms=600000
ktap_assert "rxe0 up on both nodes" rxe_up both
or_outdir wire_fuzz
d=$OR_OUT

mac_a=$(cat "/sys/class/net/$FT_NETDEV/address")
ll6=$(ip -6 -o addr show dev "$FT_NETDEV" scope link | awk '{ sub("/.*", "", $4); print $4; exit }')
v6=()
if [ -n "$ll6" ]; then v6=(--dst-ip6 "$ll6"); else log "A has no IPv6 link-local address: IPv6 frames count as dropped by the stack"; fi
# No UDP socket on A may listen on the ports the bad-port frames use.
ktap_result "no UDP listener on A on the bad-port list" \
	eval '! ss -Hlun | grep -Eq ":(4790|4792|9|7|5000|14791|47910|61000|4535) "'

ktap_result "A's rxe0 has rx-drops (dev show): $(rx_drops 2>&1 | head -c 300)" \
	eval 'rx_drops | "$FT_PY3" -c "import json, sys; sys.exit(json.load(sys.stdin).get(\"rxe0\") is None)"'

# VID 0 (priority-tagged): whether virtio-net's VLAN filter and the stack let
# it through is the NIC's business; probe it, then predict accordingly.  The
# probe's frames (to QPNs A does not have) are rxe drops when they arrive.

nstat -n >/dev/null 2>&1 || true
u0=$(rx_drops_total)
peer "$WF --ifname \$FT_NETDEV --dst-ip $FT_SELF_IP --dst-mac $mac_a --only vlan0 --count 50 --rate 500" \
	>"$d/vlan0.json" 2>"$d/vlan0.err" || true
sleep 1
u1=$(rx_drops_total)
v0=()
case $((u1 - u0)) in
50) v0=(--vlan0-reaches); log "probe: 50 priority-tagged frames reached rxe (rx-drops +50)" ;;
0) log "probe: 50 priority-tagged frames dropped before rxe (rx-drops +0)" ;;
*) log "probe: priority-tagged frames: rx-drops +$((u1 - u0)) of 50" ;;
esac
ktap_result "VID 0 probe: all 50 or none reached rxe (+$((u1 - u0)))" test $((u1 - u0)) -eq 0 -o $((u1 - u0)) -eq 50

or_quiesce || true
or_snap self "$d/a0.json" || fail_all "snapshot of A failed"
rx_drops >"$d/drops0.json" || log "rx-drops of A unreadable"
or_snap peer "$d/b0.json" || fail_all "snapshot of B failed"
nstat -n >/dev/null 2>&1 || true

# shellcheck disable=SC2086 # BW_ARGS is a list of words
peer -t $((TRAFFIC_S + 120)) "$OR_EXEC_PID stdbuf -oL ib_write_bw $BW_ARGS" >"$d/server.log" 2>&1 &
srv=$!
bg_add "$srv"
wait_for 60 perftest_listening || log "server not listening after 60 s"
# shellcheck disable=SC2086
OR_SPAWN_S=$((TRAFFIC_S + 240)) or_spawn "$d/client.log" stdbuf -oL ib_write_bw $BW_ARGS "$FT_PEER_IP"
cli=$OR_SPAWNED
s0=$(rxe_stat sent_pkts)
flowing() { [ "$(rxe_stat sent_pkts)" -gt $((s0 + 200)) ]; }
ktap_assert "ib_write_bw A -> B flowing" wait_for 60 flowing

# The traffic QPs: A's RC QPs in RTS, with the PSNs they expect and send.
live_args() {
	rdma -j resource show qp link rxe0/1 | "$FT_PY3" -c 'import json, sys
qs = [q for q in json.load(sys.stdin) if q.get("type") == "RC" and q.get("state") == "RTS"]
print(" ".join("--live-qpn %d:%d:%d" % (q["lqpn"], q["rq-psn"], q["sq-psn"]) for q in qs))'
}
live=$(live_args)
log "traffic QPs of A: $live"
ktap_assert "$NQ traffic QPs of A found" test "$(echo "$live" | grep -o -- --live-qpn | wc -l)" -eq $NQ

t0=$SECONDS
# shellcheck disable=SC2086 # live and v6 are lists of words
peer -t 300 "$WF --ifname \$FT_NETDEV --dst-ip $FT_SELF_IP --dst-mac $mac_a ${v6[*]} ${v0[*]} \
	$live --seed $SEED --count $COUNT --rate $RATE --timeout-s 280" >"$d/inject.json" 2>"$d/inject.err" &
inj=$!
bg_add "$inj"
irc=0
wait "$inj" || irc=$?
t1=$SECONDS
running=0
kill -0 "$cli" 2>/dev/null || running=1
log "injection: exit $irc in $((t1 - t0)) s; traffic still running: $([ $running = 0 ] && echo yes || echo no)"
log "injector: $(head -c 3000 "$d/inject.json")"
sed 's/^/# B: /' "$d/inject.err" | head -20
ktap_result "ft_wirefuzz on B exit 0, >= 100000 frames" \
	eval '[ "$irc" = 0 ] && or_jq "$d/inject.json" "d[\"frames\"]" | { read -r n; [ "$n" -ge 100000 ]; }'
ktap_result "traffic ran throughout the injection" test "$running" = 0

wait_for $((TRAFFIC_S + 60)) grep -qE "$REPORT" "$d/client.log" || log "no report from the client"
or_quiesce || true
or_snap self "$d/a1.json" || fail_all "snapshot of A failed"
rx_drops >"$d/drops1.json" || log "rx-drops of A unreadable"
or_snap peer "$d/b1.json" || fail_all "snapshot of B failed"
nstat -a 2>/dev/null | grep -E "InHdrErrors|InAddrErrors|InTruncated|CsumErrors|ReasmFails|ReasmReqds|ReasmOKs|UdpInErrors|NoPorts|InErrors|InReceives|OutDest" |
	sed 's/^/# nstat A: /' || true
crc=0 src=0
wait "$cli" || crc=$?
wait "$srv" || src=$?
ktap_result "ib_write_bw client (exit $crc) and server (exit $src)" test "$crc" = 0 -a "$src" = 0
ktap_result "fabtrace still loaded and answering on A" \
	eval '[ -e /sys/module/fabtrace ] && fabtrace -j stats >/dev/null && fabtrace -j dev show rxe0 >/dev/null'

"$FT_PY3" - "$d" >"$d/oracle.txt" 2>&1 <<'PY' || true
import json, sys
d = sys.argv[1]
L = lambda n: json.load(open("%s/%s" % (d, n)))
a0, a1, b0, b1 = L("a0.json"), L("a1.json"), L("b0.json"), L("b1.json")
def drops(n):
    try:
        return L(n).get("rxe0")
    except ValueError:
        return None
r0, r1 = drops("drops0.json"), drops("drops1.json")
inj = json.loads(open(d + "/inject.json").read().strip().splitlines()[-1])
CLS = ("send", "write", "read_req", "read_resp", "atomic", "ack", "nak", "cnp", "other")
NAKS = ("psn_seq", "rnr", "rem_access", "inv_req", "rem_op", "other")
REASONS = ("malformed", "unknown_qp", "qp_state", "address", "key", "icrc", "mcast", "other")
def key(q): return (q["qpn"], q["create_time"])
def qd(s0, s1):
    old = {key(q): q for q in s0["qps"]}
    out = {}
    for q in s1["qps"]:
        p = old.get(key(q))
        e = {"q": q}
        for dr in ("tx", "rx"):
            e[dr] = {k: q[dr][k] - (p[dr][k] if p else 0) for k in ("packets", "bytes") + CLS}
        e["cong"] = {k: q["cong"][k] - (p["cong"][k] if p else 0) for k in ("rx_dup", "rx_oos", "rx_ce", "retransmits")}
        for n in ("rx_nak", "tx_nak"):
            e[n] = {k: q["cong"][n][k] - (p["cong"][n][k] if p else 0) for k in NAKS}
        out[q["qpn"]] = e
    return out
def rxe(s0, s1, k): return s1["rxe"][0][k] - s0["rxe"][0][k]
def dev(s0, s1, k, dr=None):
    return (s1["dev"][0][dr][k] - s0["dev"][0][dr][k]) if dr else s1["dev"][0][k] - s0["dev"][0][k]
qa, qb = qd(a0, a1), qd(b0, b1)
res = []
def chk(name, got, want, extra=""):
    ok = got == want
    res.append(ok)
    print("%s %s: %s == %s %s" % ("ok" if ok else "FAIL", name, got, want, extra))
b_sent, a_rcvd = rxe(b0, b1, "sent_pkts"), rxe(a0, a1, "rcvd_pkts")
print("info A rxe:", {k: rxe(a0, a1, k) for k in a1["rxe"][0] if isinstance(a1["rxe"][0][k], int) and k not in ("port",)})
print("info B rxe:", {k: rxe(b0, b1, k) for k in b1["rxe"][0] if isinstance(b1["rxe"][0][k], int) and k not in ("port",)})
print("info A stats before:", {k: a0["stats"][k] for k in ("malformed", "unknown", "hook_missed")},
      "after:", {k: a1["stats"][k] for k in ("malformed", "unknown", "hook_missed")})
print("info A dev delta: malformed %d unknown_rx %d unknown_tx %d rx packets %d tx packets %d" % (
    dev(a0, a1, "malformed"), dev(a0, a1, "unknown_rx"), dev(a0, a1, "unknown_tx"),
    dev(a0, a1, "packets", "rx"), dev(a0, a1, "packets", "tx")))
print("info A rx-drops before:", r0, "after:", r1)
print("info predicted:", {k: inj[k] for k in ("frames", "stack", "drop", "qp", "rxe_accept")}, inj["drops"])
qrx = sum(e["rx"]["packets"] for e in qa.values())
chk("E1 sum QP rx(A) == sent_pkts(B) + qp", qrx, b_sent + inj["qp"], "(B sent %d, injected CNPs counted on QPs %d)" % (b_sent, inj["qp"]))
chk("E2 device rx(A) == rcvd_pkts(A) - mcast + qp", dev(a0, a1, "packets", "rx"),
    a_rcvd - inj["drops"]["mcast"] + inj["qp"], "(rcvd_pkts %d, mcast %d, qp %d)" % (a_rcvd, inj["drops"]["mcast"], inj["qp"]))
for qpn, want in sorted(inj["live_qps"].items(), key=lambda x: int(x[0])):
    e = qa.get(int(qpn))
    if not e:
        chk("E3 QP %s entry" % qpn, None, "present"); continue
    peer = qb.get(e["q"].get("remote_qpn"))
    if not peer:
        chk("E3 QP %s peer entry" % qpn, None, e["q"].get("remote_qpn")); continue
    got = {k: e["rx"][k] for k in ("packets", "bytes") + CLS}
    exp = {k: peer["tx"][k] + want[k] for k in ("packets", "bytes") + CLS}
    chk("E3 QP %s rx == B QP %d tx + injected CNPs" % (qpn, e["q"]["remote_qpn"]), got, exp,
        "(B tx %s; injected %s)" % ({k: peer["tx"][k] for k in ("packets", "bytes", "ack", "nak")}, {k: want[k] for k in ("packets", "bytes") + CLS if want[k]}))
    chk("E3n QP %s rx_nak == B tx_nak + injected" % qpn, e["rx_nak"],
        {k: peer["tx_nak"][k] + want["rx_nak"][k] for k in NAKS})
    chk("E4 QP %s rx_oos + rx_dup, rx_ce" % qpn, (e["cong"]["rx_oos"] + e["cong"]["rx_dup"], e["cong"]["rx_ce"]), (0, 0),
        "(oos %d dup %d)" % (e["cong"]["rx_oos"], e["cong"]["rx_dup"]))
got = {k: r1[k] - r0[k] for k in REASONS} if r0 is not None and r1 is not None else None
chk("E5 rx-drops(A) by reason == predicted", got, {k: inj["drops"][k] for k in REASONS})
chk("E6 unknown_rx(A), malformed(A)", (dev(a0, a1, "unknown_rx"), dev(a0, a1, "malformed")), (0, 0))
chk("E7 rcvd_pkts(A) == sent_pkts(B) + rxe_accept", a_rcvd, b_sent + inj["rxe_accept"], "(B sent %d, accept %d)" % (b_sent, inj["rxe_accept"]))
a_sent, b_rcvd = rxe(a0, a1, "sent_pkts"), rxe(b0, b1, "rcvd_pkts")
qtx = sum(e["tx"]["packets"] for e in qa.values())
chk("E8 sent_pkts(A), sum QP tx(A), rcvd_pkts(B)", (a_sent, qtx), (b_rcvd, b_rcvd))
chk("E9 B send_err delta (ACKs lost at B's qdisc break E3)", rxe(b0, b1, "send_err"), 0)
chk("E10 hook_missed(A)", a1["stats"]["hook_missed"], 0)
print("RESULT", "ok" if all(res) else "fail")
PY
sed 's/^/# /' "$d/oracle.txt"
ok_line() { grep -q "^ok $1" "$d/oracle.txt" && ! grep -q "^FAIL $1" "$d/oracle.txt"; }
ktap_result "E1 sum of A's QP rx == sent_pkts(B) + injected CNPs its QPs take (no other injected frame on a QP)" ok_line E1
ktap_result "E2 device rx(A) == rcvd_pkts(A) - mcast drops + injected CNPs taken" ok_line E2
ktap_result "E3 per traffic QP: rx == peer's tx + injected CNPs, by class, bytes, NAK syndrome" ok_line E3
ktap_result "E4 per traffic QP: rx_oos + rx_dup == 0, rx_ce == 0" ok_line E4
ktap_result "E5 rx-drops(A) per reason == predicted per reason" ok_line E5
ktap_result "E6 unknown_rx(A) and malformed(A) deltas == 0" ok_line E6
ktap_result "E7 rcvd_pkts(A) == sent_pkts(B) + frames rxe accepted (QPN 0xffffff, good ICRC)" ok_line E7
ktap_result "E8-E10 A sent nothing extra; B no send errors; hook_missed 0" \
	eval 'ok_line E8 && ok_line E9 && ok_line E10'
log "whole test: $SECONDS s"
ktap_finished
