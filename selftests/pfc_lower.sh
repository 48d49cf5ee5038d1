#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# PFC below a port's netdev: each real device under a bond or VLAN is a link, counted and timed on its own.
# timeout=300
#
#        node A                                          node B
#   N1 = FT_NETDEV  1000 Mb/s ─┐              wire 1   M1 = FT_NETDEV  ┐
#                              ├─ ftb0 ── rxe ftr0                      ├ ft_pfc
#   N2 = FT_NETDEV2    5 Mb/s ─┘              wire 2   M2 = FT_NETDEV2 ┘
#
# rxe's port netdev is the bond; PFC frames arrive on the slaves.  A's
# slaves run at 1000 and 5 Mb/s (ethtool), so 65535 quanta pause N1 for
# 33553920 ns and N2 for 6710784000 ns.  B sends with ft_pfc on each wire.
#   1. active-backup: N2 gets one long XOFF on priority 3; while it runs,
#      N1 gets 2 XON on 3 and a PAUSE 0 (an XON on every priority), then
#      one XOFF on 3; N2 one malformed frame.  Each link counts its own
#      frames, an XON on N1 does not end N2's pause, each pause lasts what
#      its link's speed gives, the port's figures are the links' sums.
#   2. while B sends on both wires, N2 leaves the bond, goes to another
#      network namespace and back, and rejoins: the port keeps what N2
#      counted, N1 counts every frame, N2 counts again from 0.
#   3. while B sends, the bond is deleted (rxe goes with it) and made
#      again in 802.3ad mode, rxe on it: the new port counts each link at
#      its own speed; then, rxe staying, both slaves leave, the bond turns
#      balance-xor (which reports its slaves' summed speed: 802.3ad with
#      no LACP partner has one slave active) and they rejoin: still each
#      link's speed, not the bond's.
#   4. rxe on a plain NIC (N2) whose netdev moves to a namespace and back:
#      rxe removes its device (it does on NETDEV_UNREGISTER), one made
#      again counts.
#   5. rxe on a VLAN of N2, which rxe refuses on 6.1 and 6.12 ("rxe
#      creation allowed on top of a real device only"); so rxe on a bond
#      whose slave is that VLAN: untagged frames on N2 count there.
# Figures come from pfc-get through the kernel's YNL client and this
# family's spec (per link and per port); the oracle is what ft_pfc sent.
# The kernel log is scanned for splats by the harness.
set -euo pipefail
HERE=$(dirname "$(readlink -f "$0")")
. "$HERE/lib.sh"

PFC_ADDR=01:80:c2:00:00:01
Q=65535
NS1=33553920		# 65535 quanta at 1000 Mb/s
NS2=6710784000		# at 5 Mb/s
NS=ftpfc
SPEC=${FT_REPO:-$HERE/..}/Documentation/netlink/specs/fabtrace.yaml
YNL=${FT_BUILD:-$HERE/../build}/tools/tools/net/ynl/cli.py
PROG=${FT_BUILD:-$HERE/../build}/selftests/progs/ft_pfc

require_peer
require_module fabtrace
require_cmd ip rdma ethtool jq python3
[ -n "${FT_NETDEV2:-}" ] ||
	skip_all "no second wire to the peer (FT_NETDEV2): the QEMU harness (selftests/qemu) has one"
[ -x "$PROG" ] || skip_all "ft_pfc not built ($PROG: make -C selftests all)"
[ -r "$YNL" ] || skip_all "no YNL client at $YNL (make spec-check extracts it)"
python3 -c 'import yaml' 2>/dev/null || skip_all "python3-yaml missing (YNL reads the spec)"
N1=$FT_NETDEV N2=$FT_NETDEV2
O=${FT_OUT:-/tmp}/pfc_lower
rm -rf "$O"
mkdir -p "$O"

had_rxe0=0
[ ! -e /sys/class/infiniband/rxe0 ] || had_rxe0=1
BG=()
cleanup() {
	local p d

	for p in "${BG[@]}"; do
		kill "$p" 2>/dev/null && wait "$p" 2>/dev/null || true
	done
	for d in ftr0 ftr1 ftrp ftrv; do
		[ ! -e "/sys/class/infiniband/$d" ] || rdma link delete "$d"
	done
	ip link del ftb0 2>/dev/null
	ip link del ftb1 2>/dev/null
	ip link del ftv0 2>/dev/null
	ip -n "$NS" link set "$N2" netns 1 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	ip link set "$N2" nomaster 2>/dev/null
	ip link set "$N2" down
	peer 'ip link set $FT_NETDEV2 down'
	# N1 as the harness left it: out of the bond, up, its address (its
	# speed stays 1000 Mb/s: virtio-net cannot be set back to "unknown")
	ip link set "$N1" nomaster 2>/dev/null
	ip link set "$N1" up
	ip addr replace "$FT_SELF_IP/24" dev "$N1"
	[ "$had_rxe0" = 0 ] || rxe_up self
	return 0
}
at_exit cleanup

# The YNL client on pfc-get for rxe device $1, into file $2.
pfc_get() {
	python3 "$YNL" --spec "$SPEC" --no-schema --output-json --do pfc-get \
		--json "{\"dev-name\": \"$1\"}" >"$2" 2>"$2.err"
}
# pv FILE PRIO FIELD: a port's figure for a priority
pv() { jq -r "[.prio[]? | select(.prio == $2) | .\"$3\"] | first // 0" "$1"; }
# lv FILE LINK PRIO FIELD: a link's (0 for a priority it has no frames for)
lv() {
	jq -r --arg l "$2" "[.link[]? | select(.\"netdev-name\" == \$l) | .prio[]? |
		select(.prio == $3) | .\"$4\"] | first // 0" "$1"
}
# lf FILE LINK FIELD: a link's own field ("none" if there is no such link)
lf() { jq -r --arg l "$2" "[.link[]? | select(.\"netdev-name\" == \$l) | .\"$3\"] | first // \"none\"" "$1"; }
links() { jq -r '[.link[]?."netdev-name"] | join(",")' "$1"; }
# sums_ok FILE: for every priority, the port's counters are its links' sums
sums_ok() {
	jq -e '. as $p | [range(8) | . as $i |
		[$p.prio[] | select(.prio == $i)][0] as $port |
		([$p.link[]?.prio[]? | select(.prio == $i)]) as $l |
		["frames", "xoff", "xon", "quanta", "paused-ns"] | map(. as $k |
			$port[$k] == ($l | map(.[$k]) | add // 0))] | flatten | all' "$1" >/dev/null
}
# eq DESC GOT WANT
eq() {
	if [ "$2" = "$3" ]; then ktap_ok "$1 ($2)"; else ktap_fail "$1 (got $2, want $3)"; fi
}
# inject WIRE NAME FT_PFC-ARGS...: ft_pfc on B's end of wire 1 or 2; a
# failure is logged, and shows in the checks (the counts, what it sent)
inject() {
	local ifv='$FT_NETDEV' name=$2

	[ "$1" = 1 ] || ifv='$FT_NETDEV2'
	shift 2
	if peer "$PROG --ifname $ifv $*" >"$O/$name.json" 2>"$O/$name.err"; then
		log "ft_pfc $name: $(jq -c '{sent, prio, quanta}' "$O/$name.json")"
	else
		log "ft_pfc $name failed: $(cat "$O/$name.err")"
	fi
}
sent() { jq -s 'map(.sent) | add' "$@"; }
has_addr() { ip maddr show dev "$1" | grep -qw "$PFC_ADDR"; }
rxe_gone() { [ ! -e "/sys/class/infiniband/$1" ]; }
# enslave BOND DEV...: DEV down (the bond opens it), then into BOND
enslave() {
	local b=$1 d

	shift
	for d in "$@"; do
		ip link set "$d" down && ip link set "$d" master "$b" || return 1
	done
	ip link set "$b" up
}
t_now() { date +%s%N; }

ktap_plan 45
for m in bonding 8021q rdma_rxe; do
	# bonding's default would make a bond0 nobody asked for
	if [ "$m" = bonding ]; then modprobe bonding max_bonds=0; else modprobe "$m"; fi ||
		skip_all "no $m module for $(uname -r)"
done
modprobe fabtrace || fail_all "modprobe fabtrace"
[ "$had_rxe0" = 0 ] || rdma link delete rxe0 || fail_all "cannot remove rxe0 from $N1"
ethtool -s "$N1" speed 1000 duplex full && ethtool -s "$N2" speed 5 duplex full ||
	skip_all "ethtool cannot set the speed of virtio-net $N1, $N2 on $(uname -r)"
peer 'ip link set $FT_NETDEV2 up' || fail_all "B: cannot bring up its second wire"

# --- 1. active-backup ---------------------------------------------------------
ip link add ftb0 type bond mode active-backup miimon 100 || fail_all "cannot make a bond"
ktap_assert "A: bond ftb0 (active-backup) of $N1 and $N2" enslave ftb0 "$N1" "$N2"
ktap_assert "rxe ftr0 on ftb0" rdma link add ftr0 type rxe netdev ftb0
pfc_get ftr0 "$O/p0.json" || fail_all "pfc-get: $(cat "$O/p0.json.err")"
log "pfc-get ftr0: $(jq -c '{"netdev-name", speed, link}' "$O/p0.json")"
eq "the port's links are the slaves" "$(links "$O/p0.json")" "$N1,$N2"
eq "each link's own speed (Mb/s)" "$(lf "$O/p0.json" "$N1" speed)/$(lf "$O/p0.json" "$N2" speed)" \
	1000/5
ktap_result "both slaves joined the PFC address (the bond gives its own to the active one only)" \
	eval "has_addr $N1 && has_addr $N2"

t_a=$(t_now)
inject 2 a --prio 3 --quanta $Q
inject 1 b --prio 3 --quanta 0 --count 2
pfc_get ftr0 "$O/p1a.json"
t_c=$(t_now)
inject 1 e --global --quanta 0
inject 1 d --prio 3 --quanta $Q
inject 2 f --malformed opcode
# N2's pause must be over before the figures are exact
left=$(( (t_a + NS2 + 300000000 - $(t_now)) / 1000000 ))
[ "$left" -le 0 ] || sleep "$(awk -v m="$left" 'BEGIN { print m / 1000 }')"
pfc_get ftr0 "$O/p1.json"
log "pfc-get: $(jq -c . "$O/p1.json")"
eq "ft_pfc sent 4 frames on wire 1, 2 on wire 2" \
	"$(sent "$O"/{b,e,d}.json)/$(sent "$O"/{a,f}.json)" 4/2
if [ $((t_c - t_a)) -lt $((NS2 - 500000000)) ]; then
	eq "just after N1's XONs: N2 priority 3 paused, N1 idle" \
		"$(lv "$O/p1a.json" "$N2" 3 state)/$(lv "$O/p1a.json" "$N1" 3 state)" paused/idle
else
	ktap_skip "just after N1's XONs: N2 priority 3 paused" \
		"the read came $(( (t_c - t_a) / 1000000 )) ms after N2's XOFF, too late to see its pause"
fi
eq "N1 priority 3: frames/xoff/xon (2 XON, PAUSE, XOFF)" \
	"$(lv "$O/p1.json" "$N1" 3 frames)/$(lv "$O/p1.json" "$N1" 3 xoff)/$(lv "$O/p1.json" "$N1" 3 xon)" 4/1/3
eq "N1 priority 3: paused ns == 65535 quanta at N1's 1000 Mb/s" \
	"$(lv "$O/p1.json" "$N1" 3 paused-ns)" $NS1
eq "N1: one PAUSE, priority 0 saw only it" \
	"$(lf "$O/p1.json" "$N1" pause)/$(lv "$O/p1.json" "$N1" 0 frames)" 1/1
eq "N2 priority 3: frames/xoff/quanta" \
	"$(lv "$O/p1.json" "$N2" 3 frames)/$(lv "$O/p1.json" "$N2" 3 xoff)/$(lv "$O/p1.json" "$N2" 3 quanta)" \
	1/1/$Q
eq "N2 priority 3: paused ns == 65535 quanta at 5 Mb/s, whole: N1's XONs did not end it" \
	"$(lv "$O/p1.json" "$N2" 3 paused-ns)" $NS2
eq "N2: the malformed frame is N2's" \
	"$(lf "$O/p1.json" "$N2" malformed)/$(lf "$O/p1.json" "$N1" malformed)" 1/0
eq "port priority 3: frames/xoff/xon/quanta, the links' sums" \
	"$(pv "$O/p1.json" 3 frames)/$(pv "$O/p1.json" 3 xoff)/$(pv "$O/p1.json" 3 xon)/$(pv "$O/p1.json" 3 quanta)" \
	5/2/3/$((2 * Q))
eq "port priority 3: paused ns == the links' (link-time)" "$(pv "$O/p1.json" 3 paused-ns)" \
	$((NS1 + NS2))
eq "port: malformed/pause" "$(jq -r '"\(.malformed)/\(.pause)"' "$O/p1.json")" 1/1
ktap_result "port: every priority's counters are its links' sums" sums_ok "$O/p1.json"

# --- 2. a slave leaves, goes to a namespace and back, rejoins, under frames ----
inject 1 g1 --prio 6 --quanta 0 --count 300 --interval-us 10000 &
BG+=($!)
inject 2 g2 --prio 6 --quanta 0 --count 300 --interval-us 10000 &
BG+=($!)
sleep 0.5
run ip link set "$N2" nomaster
pfc_get ftr0 "$O/p2a.json"
eq "N2 released: the port's only link is N1" "$(links "$O/p2a.json")" "$N1"
ip netns add "$NS"
run ip link set "$N2" netns "$NS"
run ip -n "$NS" link set "$N2" netns 1
ethtool -s "$N2" speed 5 duplex full
ktap_assert "N2 back from namespace $NS, into ftb0 again" enslave ftb0 "$N2"
wait "${BG[@]}"
BG=()
inject 2 h --prio 7 --quanta 0 --count 5
pfc_get ftr0 "$O/p2.json"
log "pfc-get: $(jq -c . "$O/p2.json")"
eq "the port's links: both slaves again" "$(links "$O/p2.json")" "$N1,$N2"
eq "N1 counted every frame of wire 1 meanwhile (priority 6; and phase 1's PAUSE)" \
	"$(lv "$O/p2.json" "$N1" 6 frames)" "$(( $(sent "$O/g1.json") + 1 ))"
eq "N2 counts again, from 0: priority 7/priority 3" \
	"$(lv "$O/p2.json" "$N2" 7 frames)/$(lv "$O/p2.json" "$N2" 3 frames)" 5/0
eq "the port kept what N2 had counted: priority 3 frames, paused ns" \
	"$(pv "$O/p2.json" 3 frames)/$(pv "$O/p2.json" 3 paused-ns)" "5/$((NS1 + NS2))"
p6=$(pv "$O/p2.json" 6 frames) n1=$(lv "$O/p2.json" "$N1" 6 frames)
ktap_result "port priority 6: N1's $n1 and what N2 counted before and after its trip, at most what was sent ($p6 of $(( $(sent "$O"/g{1,2}.json) + 1 )))" \
	test "$n1" -gt 0 -a "$p6" -gt "$n1" -a "$p6" -le $(( $(sent "$O"/g{1,2}.json) + 1 ))
eq "port priority 7: N2's 5 and phase 1's PAUSE on N1" "$(pv "$O/p2.json" 7 frames)" 6
ktap_result "N2 in the PFC address again" has_addr "$N2"

# --- 3. the bond deleted under frames, made again in 802.3ad ------------------
inject 1 k1 --prio 6 --quanta 0 --count 200 --interval-us 10000 &
BG+=($!)
inject 2 k2 --prio 6 --quanta 0 --count 200 --interval-us 10000 &
BG+=($!)
sleep 0.5
run ip link del ftb0
ktap_result "deleting the bond takes rxe ftr0 with it" wait_for 20 rxe_gone ftr0
mode=802.3ad
if ! ip link add ftb0 type bond mode 802.3ad miimon 100 lacp_rate fast; then
	log "802.3ad refused on $(uname -r): balance-xor instead"
	mode=balance-xor
	ip link add ftb0 type bond mode balance-xor miimon 100
fi
ktap_assert "bond ftb0 ($mode) of $N1 and $N2 again, rxe ftr0 on it" \
	eval "enslave ftb0 $N1 $N2 && rdma link add ftr0 type rxe netdev ftb0"
wait "${BG[@]}"
BG=()
inject 1 m --prio 2 --quanta 1000
inject 2 n --prio 2 --quanta 1000
sleep 0.2
pfc_get ftr0 "$O/p3.json"
log "pfc-get: $(jq -c . "$O/p3.json"); ethtool ftb0: $(ethtool ftb0 | grep -i speed)"
eq "new port: links, and their speeds" \
	"$(links "$O/p3.json") $(lf "$O/p3.json" "$N1" speed)/$(lf "$O/p3.json" "$N2" speed)" \
	"$N1,$N2 1000/5"
eq "N1 priority 2: 1000 quanta at 1000 Mb/s" "$(lv "$O/p3.json" "$N1" 2 paused-ns)" 512000
eq "N2 priority 2: 1000 quanta at 5 Mb/s" "$(lv "$O/p3.json" "$N2" 2 paused-ns)" 102400000
eq "port priority 2: the links' sum" "$(pv "$O/p3.json" 2 paused-ns)" $((512000 + 102400000))
log "priority 6 frames the new port saw while it was made: $(pv "$O/p3.json" 6 frames)"
# the same port, its bond emptied, turned balance-xor, and filled again
ip link set "$N1" nomaster && ip link set "$N2" nomaster && ip link set ftb0 down &&
	ip link set ftb0 type bond mode balance-xor || fail_all "cannot empty ftb0 and turn it balance-xor"
ktap_assert "ftb0 emptied, balance-xor, $N1 and $N2 again; rxe ftr0 stays" \
	eval "enslave ftb0 $N1 $N2 && [ -e /sys/class/infiniband/ftr0 ]"
inject 1 m2 --prio 5 --quanta 1000
inject 2 n2 --prio 5 --quanta 1000
sleep 0.2
pfc_get ftr0 "$O/p3b.json"
bs=$(ethtool ftb0 | sed -n 's/.*Speed: \([0-9]*\).*/\1/p') || true	# "?" if it says none
log "pfc-get: $(jq -c . "$O/p3b.json"); ethtool ftb0: ${bs:-?} Mb/s"
eq "balance-xor: links and speeds again" \
	"$(links "$O/p3b.json") $(lf "$O/p3b.json" "$N1" speed)/$(lf "$O/p3b.json" "$N2" speed)" \
	"$N1,$N2 1000/5"
eq "priority 5 per link: N1 at 1000, N2 at 5 Mb/s, not at the bond's ${bs:-?} Mb/s" \
	"$(lv "$O/p3b.json" "$N1" 5 paused-ns)/$(lv "$O/p3b.json" "$N2" 5 paused-ns)" \
	512000/102400000
eq "port priority 5: the links' sum" "$(pv "$O/p3b.json" 5 paused-ns)" $((512000 + 102400000))
eq "the port kept what its links counted before they left: priority 2 paused ns" \
	"$(pv "$O/p3b.json" 2 paused-ns)" $((512000 + 102400000))
rdma link delete ftr0
ip link del ftb0

# --- 4. rxe on a plain NIC whose netdev unregisters and registers again ---------
ktap_assert "rxe ftrp on $N2 alone" eval "ip link set $N2 up && rdma link add ftrp type rxe netdev $N2"
inject 2 p --prio 1 --quanta 0 --count 3
pfc_get ftrp "$O/p4.json"
eq "ftrp: its link is its netdev; priority 1 frames" \
	"$(links "$O/p4.json") $(pv "$O/p4.json" 1 frames)" "$N2 3"
inject 2 q --prio 6 --quanta 0 --count 200 --interval-us 10000 &
BG+=($!)
sleep 0.3
run ip link set "$N2" netns "$NS"
run ip -n "$NS" link set "$N2" netns 1
ktap_result "rxe removed ftrp when $N2 left for a namespace (rxe's NETDEV_UNREGISTER)" \
	wait_for 20 rxe_gone ftrp
wait "${BG[@]}"
BG=()
ethtool -s "$N2" speed 5 duplex full
ktap_assert "rxe ftrp on $N2 again" eval "ip link set $N2 up && rdma link add ftrp type rxe netdev $N2"
inject 2 r --prio 1 --quanta 0 --count 3
pfc_get ftrp "$O/p4b.json"
eq "the new ftrp counts: priority 1 frames" "$(pv "$O/p4b.json" 1 frames)" 3
rdma link delete ftrp

# --- 5. a VLAN ----------------------------------------------------------------
ip link set "$N2" up
ip link add link "$N2" name ftv0 type vlan id 100 || fail_all "cannot make VLAN ftv0 on $N2"
if rdma link add ftrv type rxe netdev ftv0 2>"$O/vlan.err"; then
	log "rxe accepted VLAN ftv0 on $(uname -r)"
	dev=ftrv
else
	log "rxe on VLAN ftv0 refused on $(uname -r): $(cat "$O/vlan.err"); $(dmesg | grep -i 'real device' | tail -n 1)"
	dev=ftr1
	ip link add ftb1 type bond mode active-backup miimon 100
	enslave ftb1 ftv0 && rdma link add ftr1 type rxe netdev ftb1 ||
		fail_all "rxe on a bond of VLAN ftv0"
fi
pfc_get "$dev" "$O/p5a.json"
ktap_result "$dev (on $(jq -r '."netdev-name"' "$O/p5a.json")): its link is $N2, under VLAN ftv0" \
	test "$(links "$O/p5a.json")" = "$N2"
inject 2 v --prio 4 --quanta 100 --count 3 --interval-us 20000
inject 2 w --prio 4 --quanta 0 --count 2
pfc_get "$dev" "$O/p5.json"
log "pfc-get: $(jq -c . "$O/p5.json")"
eq "untagged frames on $N2 count on $dev: priority 4 frames/xoff/xon" \
	"$(pv "$O/p5.json" 4 frames)/$(pv "$O/p5.json" 4 xoff)/$(pv "$O/p5.json" 4 xon)" 5/3/2
eq "and on its link $N2" "$(lv "$O/p5.json" "$N2" 4 frames)" 5
ktap_finished
