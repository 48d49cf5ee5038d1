#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Another network namespace may read a port, never change it: policy-set and qp-reset stay in the port's netns.
# timeout=180
#
# The family is netnsok and its admin ops check CAP_NET_ADMIN in the
# initial user namespace: a container with NET_ADMIN in a network
# namespace of its own (Docker, Kubernetes without user namespaces)
# passes that check.  rxe0's netdev is in the initial namespace, so from
# namespace ftns, even as root:
#   policy set dev rxe0 ...      refused (EPERM, the extack says why), the
#                                policy unchanged
#   qp reset dev rxe0 [qpn N]    refused, counters unchanged
#   qp reset (every device)      succeeds and zeroes nothing of rxe0
#   policy show / pfc show       the port's own values (policy, PFC frame
#                                counts, whether fabtrace's DCB push stands)
#                                but nothing of the netdev: no name or
#                                ifindex, no link speed, no DCB read-back
# and without CAP_NET_ADMIN, both sets fail as in the initial namespace.
# From the initial namespace everything works as before.
set -euo pipefail
HERE=$(dirname "$(readlink -f "$0")")
. "$HERE/lib.sh"

require_module fabtrace
require_progs
require_cmd fabtrace ip python3 setpriv
NS=ftns
T=$(mktemp -d)
held=''
cleanup() {
	[ -z "$held" ] || kill "$held" 2>/dev/null || true
	ip netns del "$NS" 2>/dev/null || true
	fabtrace policy set dev rxe0 pfc none ecn none 2>/dev/null || true
	rm -rf "$T"
}
at_exit cleanup

inns() { ip netns exec "$NS" "$@"; }
rx_pkts() {
	fabtrace -j qp show dev rxe0 qpn "$1" |
		python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["tx"]["packets"])'
}

modprobe fabtrace
rxe_up self
ip netns del "$NS" 2>/dev/null || true
ip netns add "$NS"
ip -n "$NS" link set lo up
# two connected QPs with traffic, held: counters a reset would zero
"$FT_PROGS/ft_qps" --loopback -n 2 --iters 20 --size 4096 --hold --timeout-s 170 \
	>"$T/qps.json" 2>"$T/qps.err" &
held=$!
wait_for 60 test -s "$T/qps.json" || fail_all "ft_qps held no QPs: $(tail -n 3 "$T/qps.err")"
qpn=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["qps"][0]["qpn"])' \
	"$T/qps.json")
run fabtrace policy set dev rxe0 pfc 3 ecn 3
fabtrace -j policy show dev rxe0 >"$T/pol0.json"
tx0=$(rx_pkts "$qpn")

ktap_plan 9

# refused: ERR the extack to find, then the command
refused() {
	local err=$1 out=$2 rc=0

	shift 2
	"$@" 2>"$out" || rc=$?
	log "$* -> exit $rc: $(cat "$out")"
	[ "$rc" != 0 ] && grep -q "$err" "$out"
}
OTHER="the port is another network namespace's"
ktap_result "ftns (root): policy set dev rxe0 is refused, the extack says why" \
	refused "$OTHER" "$T/set.err" inns fabtrace policy set dev rxe0 pfc 4 ecn 4 cnp off
fabtrace -j policy show dev rxe0 >"$T/pol1.json"
ktap_result "ftns (root): the policy is unchanged" py "a == b" "$T/pol0.json" "$T/pol1.json"
ktap_result "ftns (root): qp reset dev rxe0 and qp reset dev rxe0 qpn $qpn are refused" \
	sh -c "$(declare -f refused log inns); NS=$NS
		refused \"$OTHER\" $T/r1.err inns fabtrace qp reset dev rxe0 &&
		refused \"$OTHER\" $T/r2.err inns fabtrace qp reset dev rxe0 qpn $qpn"
run inns fabtrace qp reset
ktap_result "ftns (root): qp reset of every device succeeds and zeroes nothing of rxe0 (tx $tx0 -> $(rx_pkts "$qpn"))" \
	test "$(rx_pkts "$qpn")" = "$tx0" -a "$tx0" -gt 0

# root without CAP_NET_ADMIN in its bounding set: what it execs has none
NOCAP=(setpriv --bounding-set=-net_admin --inh-caps=-net_admin)
nocap_refused() {
	refused 'Operation not permitted' "$T/c1.err" inns "${NOCAP[@]}" fabtrace policy set dev rxe0 pfc 4 &&
		refused 'Operation not permitted' "$T/c2.err" inns "${NOCAP[@]}" fabtrace qp reset dev rxe0
}
ktap_result "ftns without CAP_NET_ADMIN: policy set and qp reset fail as anywhere" nocap_refused

inns fabtrace -j policy show dev rxe0 >"$T/nspol.json"
inns fabtrace -j pfc show dev rxe0 >"$T/nspfc.json"
fabtrace -j pfc show dev rxe0 >"$T/pfc.json"
sed 's/^/# ftns policy: /' "$T/nspol.json" | cut -c1-200
sed 's/^/# ftns pfc: /' "$T/nspfc.json" | cut -c1-200
ktap_result "ftns reads the port's policy, but not its netdev's name" \
	py "a[0]['pfc'] == b[0]['pfc'] == [3] and a[0]['ecn'] == [3] and
	    'netdev' not in a[0] and 'netdev' in b[0] and 'hw' not in a[0]" \
	"$T/nspol.json" "$T/pol1.json"
ktap_result "ftns reads the port's PFC counters, but not its netdev's name or speed" \
	py "'netdev' not in a[0] and 'speed' not in a[0] and 'netdev' in b[0] and
	    [p['frames'] for p in a[0]['prio']] == [p['frames'] for p in b[0]['prio']]" \
	"$T/nspfc.json" "$T/pfc.json"

run fabtrace policy set dev rxe0 pfc 4
fabtrace qp reset dev rxe0 qpn "$qpn"
ktap_result "the initial namespace: policy set and qp reset work" \
	sh -c "fabtrace -j policy show dev rxe0 | grep -q '\"pfc\": *\\[4\\]' &&
		test \"\$(fabtrace -j qp show dev rxe0 qpn $qpn |
			python3 -c 'import json,sys; print(json.load(sys.stdin)[0][\"tx\"][\"packets\"])')\" = 0"
ktap_result "no namespace but the initial one is named in what ftns read" \
	sh -c "! grep -q '$FT_NETDEV' $T/nspol.json $T/nspfc.json"
ktap_finished
