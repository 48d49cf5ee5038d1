#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# qp reset zeroes exactly what it names (one QP, a device, all) and needs CAP_NET_ADMIN.
# timeout=180
#
# Node A, two devices (rxe0, and rxe1 on a dummy NIC), QPs with traffic
# held on both, and destroyed (retained) ones.  Around each reset, every
# entry of every device is compared: the named ones must read zero in
# every counter (traffic, NAKs, congestion, no last-* times) with their
# facts unchanged, every other entry must be unchanged field by field, and
# the device totals (which qp reset does not name) too.  As user nobody
# reset fails with a clear message and changes nothing while qp show
# works; root without CAP_NET_ADMIN is refused as well, and nobody with
# only CAP_NET_ADMIN may reset.  After resetting everything the counters
# start again from zero: the sum over rxe0's QPs equals rxe's counters
# since the reset.
set -euo pipefail
HERE=$(dirname "$(readlink -f "$0")")
. "$HERE/lib.sh"
. "$HERE/lib-oracle.sh"

require_module fabtrace
require_progs
require_cmd fabtrace rdma ip setpriv
FTQPS=$FT_PROGS/ft_qps
NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
# shellcheck disable=SC2034 # used in eval'd checks
EPERM_MSG="fabtrace: qp reset: Operation not permitted (needs CAP_NET_ADMIN)"

HELD=()
cleanup() {
	local p

	for p in "${HELD[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	wait 2>/dev/null || true
	or_rxe1_down
}
at_exit cleanup

json_done() { grep -q '^{.*}$' "$1"; }
hold() {
	local name=$1

	shift
	"$FTQPS" "$@" --hold --timeout-s 150 >"$d/$name.json" 2>"$d/$name.err" &
	HELD+=("$!")
	wait_for 60 json_done "$d/$name.json"
}
qpns() { or_jq "$d/$1.json" '" ".join(str(q["qpn"]) for q in d["qps"])'; }

n=0
# step SCOPE WHAT CMD...: snapshot, CMD, snapshot, verdict on SCOPE.
step() {
	local scope=$1 what=$2 before after rc

	shift 2
	n=$((n + 1))
	before=$d/s$n.a.json after=$d/s$n.b.json
	or_snap_all "$before" || fail_all "snapshot failed"
	rc=0
	"$@" >"$d/s$n.out" 2>"$d/s$n.err" || rc=$?
	echo "$rc" >"$d/s$n.rc"
	log "$what: $* -> exit $(cat "$d/s$n.rc") $(cat "$d/s$n.err")"
	or_snap_all "$after" || fail_all "snapshot failed"
	oracle reset --s0 "$before" --s1 "$after" --scope "$scope" --min-named 1 \
		--out "$d/s$n.res" || log "the checker failed"
}
rc_is() { [ "$(cat "$d/s$n.rc")" = "$1" ]; }
err_is() { [ "$(cat "$d/s$n.err")" = "$1" ]; }
res_ok() { or_ok "$d/s$n.res" entries && or_ok "$d/s$n.res" devices; }

ktap_plan 15
or_outdir qp_reset
d=$OR_OUT
ktap_assert "rxe0 up" rxe_up self
ktap_assert "fabtrace reloaded (A)" _or_reload_self retain_ms=600000
ktap_assert "rxe1 on a dummy NIC" or_rxe1_up
ktap_assert "QPs with traffic: held on rxe0 and rxe1, destroyed on rxe0" eval '
	hold rc  --loopback -n 4 --iters 3 --size 2048 --op write &&
	hold rc1 -d rxe1 --loopback -n 2 --iters 2 --size 1024 --op send &&
	"$FTQPS" --loopback -n 2 --iters 1 --size 512 --op read >"$d/gone.json" 2>"$d/gone.err"'
read -r -a RC <<<"$(qpns rc)"
read -r -a GONE <<<"$(qpns gone)"
log "rxe0: held ${RC[*]}, destroyed ${GONE[*]}; rxe1: held $(qpns rc1)"

# Who may reset.  "none": nothing may change.
step none "nobody, all" $NOBODY fabtrace qp reset
ktap_result "as nobody: qp reset fails, says why, changes nothing" \
	eval 'rc_is 1 && err_is "$EPERM_MSG" && res_ok'
step none "nobody, one QP" $NOBODY fabtrace qp reset dev rxe0 qpn "${RC[0]}"
ktap_result "as nobody: qp reset dev rxe0 qpn ${RC[0]} fails the same way" \
	eval 'rc_is 1 && err_is "$EPERM_MSG" && res_ok'
step none "root without CAP_NET_ADMIN" \
	setpriv --inh-caps=-net_admin --bounding-set=-net_admin fabtrace qp reset dev rxe1
ktap_result "as root without CAP_NET_ADMIN: refused, changes nothing" \
	eval 'rc_is 1 && err_is "$EPERM_MSG" && res_ok'
# nobody reads what root reads (the same entries, valid JSON)
show_nobody() {
	$NOBODY fabtrace -j qp show >"$d/nobody.json" &&
		fabtrace -j qp show >"$d/root.json" &&
		"$FT_PY3" -c 'import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
k = lambda l: sorted((q["dev"], q["qpn"], q["tx"]["packets"], q["rx"]["packets"]) for q in l)
print("# nobody sees %d entries, root %d" % (len(a), len(b)))
sys.exit(k(a) != k(b) or not a)' "$d/nobody.json" "$d/root.json"
}
ktap_result "as nobody: qp show works, the same entries as root" show_nobody

# What each reset zeroes
step "qp:rxe0:${RC[0]}" "nobody with CAP_NET_ADMIN" \
	$NOBODY --inh-caps=+net_admin --ambient-caps=+net_admin fabtrace qp reset dev rxe0 qpn "${RC[0]}"
ktap_result "as nobody with CAP_NET_ADMIN: qp reset dev rxe0 qpn ${RC[0]}: that QP only" \
	eval 'rc_is 0 && res_ok'
step "qp:rxe0:${RC[1]}" "root, one QP" fabtrace qp reset dev rxe0 qpn "${RC[1]}"
ktap_result "qp reset dev rxe0 qpn ${RC[1]}: that QP only" eval 'rc_is 0 && res_ok'
step "qp:rxe0:${GONE[0]}" "root, a destroyed QP" fabtrace qp reset dev rxe0 qpn "${GONE[0]}"
ktap_result "qp reset dev rxe0 qpn ${GONE[0]} (destroyed, retained): that entry only" \
	eval 'rc_is 0 && res_ok'
step none "root, no such QP" fabtrace qp reset dev rxe0 qpn 16777215
ktap_result "qp reset dev rxe0 qpn 16777215: exit 1, 'no such QP', nothing changes" \
	eval 'rc_is 1 && err_is "fabtrace: no such QP: No such file or directory" && res_ok'
step "dev:rxe1" "root, a device" fabtrace qp reset dev rxe1
ktap_result "qp reset dev rxe1: every rxe1 entry, nothing of rxe0" eval 'rc_is 0 && res_ok'
step all "root, everything" fabtrace qp reset
ktap_result "qp reset: every entry of every device, live and retained" eval 'rc_is 0 && res_ok'

# Counting goes on from zero
or_quiesce 10 self || true
or_snap_all "$d/r0.json"
"$FTQPS" --loopback -n 2 --iters 4 --size 3000 --op write >"$d/after.json" 2>"$d/after.err" ||
	log "ft_qps after the reset failed: $(cat "$d/after.err")"
or_quiesce 10 self || true
or_snap_all "$d/r1.json"
oracle resumed --s0 "$d/r0.json" --s1 "$d/r1.json" --out "$d/resumed" || log "the checker failed"
ktap_result "after the reset, rxe0's QPs sum to rxe's counters since" or_ok "$d/resumed" resumed
ktap_finished
