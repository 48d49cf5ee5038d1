#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The PFC/ECN policy object: defaults, set and show, partial updates, bad
# input, privilege, change events, and save, unload, reload, restore.
# timeout=300
#
# Oracles fabtrace does not control: iproute2's dcb (the kernel's DCBNL
# answer for the port's netdev), the peer node's policy (a set is local),
# and the kernel's own permission check seen by an unprivileged user.
set -euo pipefail
. "$(dirname "$(readlink -f "$0")")/lib.sh"

require_peer
require_module fabtrace
require_cmd rdma fabtrace python3 dcb setpriv

T=$(mktemp -d)
cleanup() {
	kill "${MON:-}" 2>/dev/null || true
	rm -rf "$T"
}
at_exit cleanup

# show FILE: this node's policy of rxe0, as JSON
show() { fabtrace -j policy show dev rxe0 >"$1"; }

# fails FILE-PREFIX MESSAGE ARGS...: the CLI exits 1 and says MESSAGE
fails() {
	local f=$1 msg=$2 rc=0

	shift 2
	fabtrace "$@" >"$f.out" 2>"$f.err" || rc=$?
	log "\$ fabtrace $* -> exit $rc: $(cat "$f.err")"
	[ "$rc" = 1 ] && grep -qF -- "$msg" "$f.err"
}

# A fresh module on both nodes: the policy an earlier test left is
# forgotten with it.
on_both "rmmod fabtrace 2>/dev/null; modprobe fabtrace" || fail_all "cannot load fabtrace"
rxe_up both
ktap_plan 13

show "$T/d.json"
ktap_result "defaults: trust pcp, map d>>3, no pfc/ecn, cnp on (IPv4 only) 50 us dscp 48, watchdog off" \
	py "len(a) == 1 and a[0]['dev'] == 'rxe0' and a[0]['port'] == 1 and
	    a[0]['trust'] == 'pcp' and a[0]['dscp_map'] == dflt and a[0]['pfc'] == [] and
	    a[0]['ecn'] == [] and a[0]['cnp'] and a[0]['cnp_ipv6'] is False and
	    a[0]['cnp_interval_us'] == 50 and
	    a[0]['cnp_dscp'] == 48 and not a[0]['pfc_watchdog']['enabled'] and
	    a[0]['pfc_watchdog']['action'] == 'alert'" "$T/d.json"

# The hardware part: the kernel's DCBNL says the netdev has none.
rc=0
dcb pfc show dev "$FT_NETDEV" >"$T/dcb.out" 2>&1 || rc=$?
log "dcb pfc show dev $FT_NETDEV -> exit $rc: $(cat "$T/dcb.out")"
ktap_result "netdev is $FT_NETDEV; dcb unsupported, as dcb(8) finds it" \
	py "a[0]['netdev'] == '$FT_NETDEV' and a[0]['dcb'] == 'unsupported' and
	    $rc != 0 and 'not supported' in open('$T/dcb.out').read()" "$T/d.json"

# Every field, in one set.
run fabtrace policy set dev rxe0 trust dscp dscp-map 26:5,46:3,48:7 pfc 3 ecn 3,5 \
	cnp off cnp-interval 200 cnp-dscp 40 pfc-watchdog detect 300 restore 1000
show "$T/s.json"
ktap_result "every field set reads back" \
	py "a[0]['trust'] == 'dscp' and a[0]['pfc'] == [3] and a[0]['ecn'] == [3, 5] and
	    not a[0]['cnp'] and a[0]['cnp_interval_us'] == 200 and a[0]['cnp_dscp'] == 40 and
	    a[0]['pfc_watchdog'] == {'enabled': True, 'detect_ms': 300,
				     'restore_ms': 1000, 'action': 'alert'} and
	    a[0]['dscp_map'] == [{26: 5, 46: 3, 48: 7}.get(d, d >> 3) for d in range(64)]" \
	"$T/s.json"

# Partial updates leave the rest; map entries change those DSCPs only.
run fabtrace policy set dev rxe0 ecn 4 dscp-map 10:6
show "$T/p.json"
ktap_result "a partial set changes only what it names" \
	py "b[0]['ecn'] == [4] and b[0]['dscp_map'][10] == 6 and
	    b[0]['dscp_map'][26] == 5 and b[0]['dscp_map'][11] == 1 and
	    {k: v for k, v in b[0].items() if k not in ('ecn', 'dscp_map')} ==
	    {k: v for k, v in a[0].items() if k not in ('ecn', 'dscp_map')}" \
	"$T/s.json" "$T/p.json"
run fabtrace policy set dev rxe0 pfc-watchdog detect 400
show "$T/w.json"
ktap_result "detection alone: restoration twice it" \
	py "a[0]['pfc_watchdog']['detect_ms'] == 400 and
	    a[0]['pfc_watchdog']['restore_ms'] == 800" "$T/w.json"

# Bad input: a clear error, non-zero exit, nothing changed.
ok=1
fails "$T/e1" 'invalid ecn "8"' policy set dev rxe0 ecn 8 || ok=0
fails "$T/e2" 'invalid dscp-map "64:1"' policy set dev rxe0 dscp-map 64:1 || ok=0
fails "$T/e3" 'invalid cnp-interval "0"' policy set dev rxe0 cnp-interval 0 || ok=0
fails "$T/e4" 'not a detection time of 100..5000 ms' \
	policy set dev rxe0 pfc-watchdog detect 50 || ok=0
fails "$T/e5" 'no such RDMA device' policy set dev nosuch0 ecn 3 || ok=0
fails "$T/e6" 'port: no such port on this device' policy set dev rxe0 port 2 ecn 3 || ok=0
fails "$T/e7" 'nothing to set' policy set dev rxe0 || ok=0
show "$T/after-bad.json"
ktap_result "bad values are refused with their reason (the kernel's for device and port), nothing changes" \
	py "a == b and $ok == 1" "$T/w.json" "$T/after-bad.json"

# Privilege: set needs CAP_NET_ADMIN; show is open to every user.
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
ok=1
nobody fabtrace policy set dev rxe0 ecn 1 2>"$T/perm.err" && ok=0
log "as nobody: $(cat "$T/perm.err")"
grep -q "Operation not permitted" "$T/perm.err" || ok=0
setpriv --bounding-set=-net_admin --inh-caps=-net_admin \
	fabtrace policy set dev rxe0 ecn 1 2>"$T/cap.err" && ok=0
log "root without CAP_NET_ADMIN: $(cat "$T/cap.err")"
grep -q "Operation not permitted" "$T/cap.err" || ok=0
nobody fabtrace -j policy show dev rxe0 >"$T/nobody.json"
show "$T/after-perm.json"
ktap_result "set without CAP_NET_ADMIN is EPERM (nobody, and root without it); show works" \
	py "a == b == c and $ok == 1" "$T/w.json" "$T/after-perm.json" "$T/nobody.json"

# Events: a change says what it was and is, a set that changes nothing
# says nothing.
cur=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[0]["cnp_interval_us"])' \
	"$T/w.json")
fabtrace -j monitor events policy-change count 2 >"$T/ev.json" 2>"$T/ev.err" &
MON=$!
sleep 1
run fabtrace policy set dev rxe0 cnp-interval "$cur"
run fabtrace policy set dev rxe0 cnp-interval 130
run fabtrace policy set dev rxe0 cnp-interval 140 cnp on
wait_for 10 sh -c "[ \$(wc -l <'$T/ev.json') -ge 2 ]" || true
kill "$MON" 2>/dev/null || true
wait "$MON" 2>/dev/null || true
MON=
sed 's/^/# event: /' "$T/ev.json" | cut -c1-300
python3 - "$T/ev.json" "$cur" >"$T/ev.check" <<'EOF' && evok=1 || evok=0
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
cur = int(sys.argv[2])
ok = len(ev) == 2 and all(e["kind"] == "policy-change" and e["dev"] == "rxe0" and
                           e["port"] == 1 for e in ev)
ok = ok and ev[0]["old"]["cnp_interval_us"] == cur and ev[0]["new"]["cnp_interval_us"] == 130
ok = ok and ev[1]["old"]["cnp_interval_us"] == 130 and ev[1]["new"]["cnp_interval_us"] == 140
ok = ok and not ev[1]["old"]["cnp"] and ev[1]["new"]["cnp"]
# apart from what changed, old and new are the same
for e, keys in ((ev[0], {"cnp_interval_us"}), (ev[1], {"cnp_interval_us", "cnp"})):
    ok = ok and {k: v for k, v in e["old"].items() if k not in keys} == \
                {k: v for k, v in e["new"].items() if k not in keys}
print("ok" if ok else "mismatch")
sys.exit(0 if ok else 1)
EOF
ktap_result "policy-change events: old and new values, none for a set that changes nothing" \
	[ "$evok" = 1 ]
fabtrace monitor events policy-change count 1 >"$T/evt.txt" 2>&1 &
MON=$!
sleep 1
run fabtrace policy set dev rxe0 ecn none cnp-dscp 41
wait_for 10 test -s "$T/evt.txt" || true
kill "$MON" 2>/dev/null || true
MON=
log "text event: $(cat "$T/evt.txt")"
ktap_result "the text event names each change" \
	grep -qE "dev rxe0 port 1 policy-change ecn 4->none cnp-dscp 40->41\$" "$T/evt.txt"

# A set is local: the peer's policy is still the default.
peer fabtrace -j policy show dev rxe0 >"$T/peer.json"
ktap_result "the peer's policy is untouched" \
	py "a[0]['trust'] == 'pcp' and a[0]['ecn'] == [] and a[0]['dscp_map'] == dflt and
	    a[0]['cnp_interval_us'] == 50" "$T/peer.json"

# Save as commands, unload (forgets), reload, restore: the same policy.
show "$T/saved.json"
fabtrace policy show dev rxe0 commands >"$T/saved.cmds"
sed 's/^/# saved: /' "$T/saved.cmds"
rmmod fabtrace
modprobe fabtrace
show "$T/reloaded.json"
ktap_result "unload forgets the policy" \
	py "a[0]['trust'] == 'pcp' and a[0]['dscp_map'] == dflt and a[0]['ecn'] == [] and
	    a[0]['cnp_interval_us'] == 50" "$T/reloaded.json"
ok=1
run fabtrace -b "$T/saved.cmds" || ok=0
show "$T/restored.json"
ktap_result "restored from its commands by fabtrace -b, the policy is the one saved" \
	py "a == b and $ok == 1" "$T/saved.json" "$T/restored.json"

# back to the defaults for the tests after this one
run fabtrace policy set dev rxe0 trust pcp dscp-map default pfc none ecn none cnp on \
	cnp-interval 50 cnp-dscp 48 pfc-watchdog off
show "$T/end.json"
ktap_result "back to the defaults" py "a == b" "$T/d.json" "$T/end.json"
ktap_finished
