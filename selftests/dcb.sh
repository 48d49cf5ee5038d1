#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The policy's hardware part: pushed through DCBNL, read back, watched.
# timeout=300
#
# The test NIC has no DCBNL of its own: ft_dcbnl (selftests/kmod) gives it
# operations that keep what they are told, with the kernel's own app table,
# and count the calls.  The oracle is iproute2's dcb(8), which reads the
# NIC's state through the kernel's DCBNL (RTM_GETDCB), as it would on an
# mlx5; from Linux 6.2 on also the trust (dcb apptrust, iproute2 6.2 on:
# bookworm-backports' dcb, unpacked by make, where Debian 12's has none).
set -euo pipefail
. "$(dirname "$(readlink -f "$0")")/lib.sh"

require_module fabtrace
require_cmd rdma fabtrace python3 dcb setpriv jq
REC=${FT_BUILD:-}/$(uname -r)/testmod/ft_dcbnl.ko
[ -f "$REC" ] || skip_all "no $REC (make test-modules)"
DCB_NEW=${FT_BUILD:-}/tools/iproute2/sbin/dcb

T=$(mktemp -d)
cleanup() {
	kill "${MON:-}" 2>/dev/null || true
	rmmod ft_dcbnl 2>/dev/null || true
	rm -rf "$T"
}
at_exit cleanup

show() { fabtrace -j policy show dev rxe0 >"$1"; }
calls() { cat "/sys/module/ft_dcbnl/parameters/$1_calls"; }
# dcb(8)'s JSON of the NIC: PFC, and the DSCP app entries
dcb_pfc() { dcb -j pfc show dev "$FT_NETDEV" >"$1"; }
dcb_app() { dcb -j app show dev "$FT_NETDEV" dscp-prio >"$1"; }
# The app entries dcb(8) lists, as the 64 prio lists fabtrace's hw has
APP='[sorted(p for d2, p in a.get("dscp_prio", []) if d2 == d) for d in range(64)]'

rmmod fabtrace 2>/dev/null || true
modprobe fabtrace || fail_all "cannot load fabtrace"
rxe_up self
insmod "$REC" ifname="$FT_NETDEV" || fail_all "cannot load ft_dcbnl on $FT_NETDEV"
ktap_plan 13

show "$T/0.json"
dcb_pfc "$T/0.pfc"
sed 's/^/# dcb pfc: /' "$T/0.pfc"
ktap_result "a DCBNL netdev, never pushed to: not-applied, its PFC as dcb(8) reads it" \
	py "a[0]['dcb'] == 'not-applied' and a[0]['hw']['pfc'] == [] and
	    a[0]['hw']['pfc_cap'] == b['pfc_cap'] == 8 and
	    not any(b['prio_pfc'])" "$T/0.json" "$T/0.pfc"

fabtrace -j monitor events policy-drift,policy-change >"$T/ev.json" 2>"$T/ev.err" &
MON=$!
# the monitor listens once it prints a change (harmless ones, undone below)
mon_hears() {
	fabtrace policy set dev rxe0 cnp-interval $((51 + ${mon_n:=0} % 2))
	mon_n=$((mon_n + 1))
	sleep 0.5
	grep -q policy-change "$T/ev.json"
}
wait_for 30 mon_hears || fail_all "the monitor received nothing"

# The push: PFC, 64 DSCP entries, the trust.
run fabtrace policy set dev rxe0 trust dscp dscp-map 26:3,46:5 pfc 3,4 cnp-interval 50
show "$T/1.json"
dcb_pfc "$T/1.pfc"
dcb_app "$T/1.app"
log "calls: setpfc $(calls setpfc) setapp $(calls setapp) delapp $(calls delapp)"
ktap_result "pushed: dcb(8) reads PFC on 3 and 4 and DSCP d to the map's priority, 64 entries" \
	py "[i for i, on in enumerate(b['prio_pfc']) if on] == [3, 4] and
	    $APP == [[{26: 3, 46: 5}.get(d, d >> 3)] for d in range(64)] and
	    c[0]['dcb'] == 'applied' and c[0]['hw']['pfc'] == [3, 4] and
	    c[0]['hw']['dscp_prio'] == $APP" \
	"$T/1.app" "$T/1.pfc" "$T/1.json"
ktap_result "one ieee_setpfc, 64 ieee_setapp, no ieee_delapp" \
	[ "$(calls setpfc) $(calls setapp) $(calls delapp)" = "1 64 0" ]
if [ -x "$DCB_NEW" ] && [ "$(calls apptrust)" -gt 0 ] 2>/dev/null; then
	"$DCB_NEW" -j apptrust show dev "$FT_NETDEV" >"$T/1.trust"
	log "dcb apptrust: $(cat "$T/1.trust")"
	ktap_result "trust: dcb apptrust reads dscp then pcp" \
		py "a['order'] == ['dscp', 'pcp'] and b[0]['hw']['trust'] == 'dscp'" \
		"$T/1.trust" "$T/1.json"
elif grep -q 'dcbnl_setapptrust' /proc/kallsyms; then
	ktap_skip "trust: dcb apptrust reads dscp then pcp" \
		"no iproute2 with apptrust at $DCB_NEW (make fetches bookworm-backports')"
else
	ktap_skip "trust: dcb apptrust reads dscp then pcp" \
		"Linux $(uname -r) has no DCBNL apptrust (6.2 on)"
fi

# The same set again changes nothing in the hardware; a map entry one pair.
run fabtrace policy set dev rxe0 pfc 3,4
run fabtrace policy set dev rxe0 dscp-map 26:2
dcb_app "$T/2.app"
ktap_result "a repeated push touches nothing; one new entry is one delapp and one setapp" \
	py "${APP}[26] == [2] and ${APP}[46] == [5] and
	    '$(calls setpfc) $(calls setapp) $(calls delapp)' == '1 65 1'" "$T/2.app"

# Drift: another tool changes the NIC behind fabtrace's back.
run dcb app add dev "$FT_NETDEV" dscp-prio 10:6
wait_for 20 grep -q '"policy-drift"' "$T/ev.json" || true
evs() { jq -s . "$T/ev.json" >"$T/ev.arr.json"; }
evs
show "$T/3.json"
fabtrace policy show dev rxe0 >"$T/3.txt"
sed 's/^/# /' "$T/3.txt"
ktap_result "dcb app add: a policy-drift event with the hardware's table, dcb drift" \
	py "[e for e in a if e['kind'] == 'policy-drift'][0]['hw']['dscp_prio'][10] == [1, 6] and
	    b[0]['dcb'] == 'drift' and b[0]['hw']['dscp_prio'][10] == [1, 6]" \
	"$T/ev.arr.json" "$T/3.json"
ktap_result "policy show names the difference" \
	grep -qE 'hw differs: app default,26:2 \(hw default,10:1\+6,26:2\)' "$T/3.txt"
run dcb pfc set dev "$FT_NETDEV" prio-pfc 5:on
wait_for 20 sh -c "grep -c '\"policy-drift\"' '$T/ev.json' | grep -qx 2" || true
evs
ktap_result "dcb pfc set: a second drift event, with PFC 3, 4 and 5" \
	py "[e for e in a if e['kind'] == 'policy-drift'][1]['hw']['pfc'] == [3, 4, 5]" \
	"$T/ev.arr.json"

# Setting the policy again (nothing changes in it) pushes it back.
run fabtrace policy set dev rxe0 pfc 3,4
wait_for 20 sh -c "grep -c '\"policy-drift\"' '$T/ev.json' | grep -qx 3" || true
dcb_pfc "$T/4.pfc"
dcb_app "$T/4.app"
show "$T/4.json"
evs
ktap_result "a set pushes the policy back over the drift, and says the drift ended" \
	py "[i for i, on in enumerate(b['prio_pfc']) if on] == [3, 4] and
	    ${APP}[10] == [1] and c[0]['dcb'] == 'applied' and
	    [e for e in d if e['kind'] == 'policy-drift'][2]['hw']['pfc'] == [3, 4] and
	    [e for e in d if e['kind'] == 'policy-drift'][2]['hw']['dscp_prio'][10] == [1]" \
	"$T/4.app" "$T/4.pfc" "$T/4.json" "$T/ev.arr.json"

# A driver that refuses: the request fails with the operation named, the
# software policy stands, the hardware is shown as it is.
echo 1 >/sys/module/ft_dcbnl/parameters/fail_setpfc
rc=0
fabtrace policy set dev rxe0 pfc 2 2>"$T/5.err" || rc=$?
log "refused: exit $rc: $(cat "$T/5.err")"
echo 0 >/sys/module/ft_dcbnl/parameters/fail_setpfc
show "$T/5.json"
dcb_pfc "$T/5.pfc"
ktap_result "ieee_setpfc refused: exit 1, the extack names it; dcb failed, software pfc 2, hw 3,4" \
	py "$rc == 1 and 'DCBNL ieee_setpfc failed' in open('$T/5.err').read() and
	    a[0]['dcb'] == 'failed' and a[0]['pfc'] == [2] and
	    a[0]['hw']['pfc'] == [3, 4] and a[0]['hw']['error'] == 5 and
	    a[0]['hw']['error_op'] == 'ieee_setpfc' and
	    [i for i, on in enumerate(b['prio_pfc']) if on] == [3, 4]" "$T/5.json" "$T/5.pfc"

# trust pcp: no DSCP entry may override the PCP.
run fabtrace policy set dev rxe0 trust pcp pfc 3
dcb_app "$T/6.app"
dcb_pfc "$T/6.pfc"
show "$T/6.json"
setpriv --reuid=65534 --regid=65534 --clear-groups fabtrace -j policy show dev rxe0 \
	>"$T/6n.json"
ktap_result "trust pcp: every DSCP entry deleted, PFC 3 alone, dcb applied (nobody reads it too)" \
	py "$APP == [[]] * 64 and [i for i, on in enumerate(b['prio_pfc']) if on] == [3] and
	    c[0]['dcb'] == 'applied' and c == d" "$T/6.app" "$T/6.pfc" "$T/6.json" "$T/6n.json"

# Unloading fabtrace forgets the policy, not what the hardware was told.
kill "$MON" 2>/dev/null || true
MON=
rmmod fabtrace
modprobe fabtrace
show "$T/7.json"
ktap_result "after a reload: default policy, not-applied, the NIC keeps PFC 3" \
	py "a[0]['pfc'] == [] and a[0]['dcb'] == 'not-applied' and a[0]['hw']['pfc'] == [3]" \
	"$T/7.json"
rmmod ft_dcbnl
show "$T/8.json"
ktap_result "without DCBNL again: unsupported, no hw part" \
	py "a[0]['dcb'] == 'unsupported' and 'hw' not in a[0]" "$T/8.json"
ktap_finished
