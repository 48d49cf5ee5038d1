#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# qp show filters return exactly the matching QPs; JSON is valid; PID namespaces.
# timeout=240
#
# Node A.  Two devices (rxe0 on the data NIC, rxe1 on a dummy NIC, so the
# two have overlapping QP numbers) and QPs of every kind held by ft_qps:
# RC pairs in RTS with traffic on both devices, UD and UC QPs, RC QPs left
# in INIT and in RESET, destroyed (retained) QPs, and each device's QP1.
# Every filter (dev, qpn lists and ranges, pid, type, state, destroyed, and
# combinations) must return exactly the entries the same filter applied
# here to the full dump selects, each equal to its full-dump entry.  The
# JSON of qp show, dev show and stats must parse and carry every attribute
# of the netlink spec.  A reader in a new PID namespace must see only the
# QPs of its own processes, with the PIDs of its namespace, which the
# initial namespace sees with theirs.
set -euo pipefail
HERE=$(dirname "$(readlink -f "$0")")
. "$HERE/lib.sh"
. "$HERE/lib-oracle.sh"

require_module fabtrace
require_progs
require_cmd fabtrace rdma ip unshare
"$FT_PY3" -c 'import yaml' 2>/dev/null || skip_all "python3-yaml not installed (the spec check reads the YAML)"
FTQPS=$FT_PROGS/ft_qps
SPEC=$HERE/../Documentation/netlink/specs/fabtrace.yaml

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

# hold NAME ARGS...: ft_qps ARGS --hold in the background, until its JSON.
hold() {
	local name=$1

	shift
	"$FTQPS" "$@" --hold --timeout-s 200 >"$d/$name.json" 2>"$d/$name.err" &
	HELD+=("$!")
	wait_for 60 json_done "$d/$name.json" || {
		log "ft_qps $*: no JSON: $(cat "$d/$name.err")"
		return 1
	}
}

ktap_plan 35
or_outdir qp_filter
d=$OR_OUT
ktap_assert "rxe0 up" rxe_up self
ktap_assert "fabtrace reloaded (A)" _or_reload_self retain_ms=600000
ktap_assert "rxe1 on a dummy NIC" or_rxe1_up
ktap_assert "QPs held: RC/UD/UC, RTS/INIT/RESET, both devices" eval '
	hold rc   --loopback -n 4 --iters 2 --size 2048 --op write &&
	hold ud   --no-connect -n 3 --qp-type ud --op send --size 1024 &&
	hold init --no-connect -n 2 &&
	hold reset --no-connect -n 2 --qp-state reset &&
	hold uc   --loopback -n 2 --qp-type uc --iters 1 --size 512 --op send &&
	hold rc1  -d rxe1 --loopback -n 2 --iters 1 --size 1024 --op write &&
	"$FTQPS" --loopback -n 2 --iters 1 --size 256 --op write >"$d/gone.json" 2>"$d/gone.err"'

qpns() { or_jq "$d/$1.json" '" ".join(str(q["qpn"]) for q in d["qps"])'; }
pid_of() { or_jq "$d/$1.json" 'd["pid"]'; }
read -r -a RC <<<"$(qpns rc)"
read -r -a UD <<<"$(qpns ud)"
read -r -a GONE <<<"$(qpns gone)"
read -r -a RC1 <<<"$(qpns rc1)"
log "rxe0: rc ${RC[*]}, ud ${UD[*]}, init $(qpns init), reset $(qpns reset), uc $(qpns uc), destroyed ${GONE[*]}; rxe1: rc ${RC1[*]}"

fabtrace -j qp show >"$d/full.json"
# name|filter words; the names listed in NONEMPTY must match something
CASES=(
	"dev|dev rxe0"
	"dev1|dev rxe1"
	"qpn|qpn ${RC[0]}"
	"qp1|qpn 1"
	"list|qpn 1,${UD[0]}-${UD[2]},${RC[3]}"
	"range|qpn ${RC[0]}-${GONE[1]}"
	"wide|qpn 0-16777215"
	"pid|pid $(pid_of rc)"
	"pid1|pid $(pid_of rc1)"
	"nopid|pid 4194304"
	"rc|type rc"
	"ud|type ud"
	"uc|type uc"
	"gsi|type gsi"
	"rts|state rts"
	"init|state init"
	"resetst|state reset"
	"destroyed|destroyed"
	"combo|dev rxe0 type rc state rts pid $(pid_of rc)"
	"combo2|dev rxe0 qpn 1-${UD[1]},${GONE[0]} type ud"
	"combo3|qpn ${RC1[0]} dev rxe1"
	"combo4|dev rxe0 destroyed qpn ${GONE[1]}-16777215"
)
NONEMPTY=dev,dev1,qpn,qp1,list,range,wide,pid,pid1,rc,ud,uc,gsi,rts,init,resetst,destroyed,combo,combo2,combo3,combo4
: >"$d/cases"
for c in "${CASES[@]}"; do
	name=${c%%|*}
	# shellcheck disable=SC2086 # the filter is a list of words
	fabtrace -j qp show ${c#*|} >"$d/f$name.json" 2>"$d/f$name.err" || log "$name: exit $?: $(cat "$d/f$name.err")"
	echo "$c" >>"$d/cases"
done
fabtrace -j qp show >"$d/again.json"
oracle filters --full "$d/full.json" --again "$d/again.json" --cases "$d/cases" --dir "$d" \
	--expect-nonempty "$NONEMPTY" --out "$d/results" || log "the checker failed"
ktap_result "nothing changed while the filters ran" or_ok "$d/results" stable
for c in "${CASES[@]}"; do
	ktap_result "qp show ${c#*|}: exactly the matching entries" or_ok "$d/results" "case_${c%%|*}"
done

# a device and one QP number: that QP alone, or an error
one() {
	fabtrace -j qp show dev rxe0 qpn "${RC[1]}" >"$d/one.json" &&
		or_jq "$d/one.json" 'len(d) == 1 and d[0]["qpn"] == '"${RC[1]}"' and d[0]["dev"] == "rxe0"' | grep -qx True
}
ktap_result "qp show dev rxe0 qpn ${RC[1]}: that QP alone" one
none() {
	local rc=0

	fabtrace -j qp show dev rxe0 qpn 16777215 >"$d/none.out" 2>"$d/none.err" || rc=$?
	log "qp show dev rxe0 qpn 16777215: exit $rc, stdout '$(cat "$d/none.out")', stderr '$(cat "$d/none.err")'"
	[ "$rc" -eq 1 ] && [ ! -s "$d/none.out" ] && grep -q . "$d/none.err"
}
ktap_result "qp show dev rxe0 qpn 16777215: exit 1, a message, no output" none

# JSON: valid, and the spec's attributes
fabtrace -j qp show >"$d/j-qp.json"
fabtrace -j dev show >"$d/j-dev.json"
fabtrace -j stats >"$d/j-stats.json"
oracle schema --spec "$SPEC" --qp "$d/j-qp.json" --dev "$d/j-dev.json" --stats "$d/j-stats.json" \
	--out "$d/schema" || log "the schema checker failed"
ktap_result "-j qp show: valid JSON, every QP attribute of the spec" or_ok "$d/schema" qp
ktap_result "-j dev show: valid JSON, devices, ports, traffic" or_ok "$d/schema" dev
ktap_result "-j stats: valid JSON, every stats attribute of the spec" or_ok "$d/schema" stats
pretty() {
	local what

	for what in "qp show" "dev show" "stats"; do
		# shellcheck disable=SC2086 # two words
		fabtrace -p $what | "$FT_PY3" -c 'import json, sys; json.load(sys.stdin)' || return 1
	done
}
ktap_result "-p (pretty) output parses for qp show, dev show, stats" pretty

# A reader in its own PID namespace.  Inside, ft_qps holds 2 QPs; the
# reader there dumps everything, then by its pid; outside, the same QPs
# are read while held, with the global pid.
inner() {
	"$FTQPS" --loopback -n 2 --iters 1 --size 512 --op write --hold --timeout-s 100 \
		>"$d/inner.json" 2>"$d/inner.err" &
	local p=$!
	wait_for 60 json_done "$d/inner.json" || return 1
	fabtrace -j qp show >"$d/inside.json"
	fabtrace -j qp show pid "$(or_jq "$d/inner.json" 'd["pid"]')" >"$d/inside-pid.json"
	touch "$d/inside.done"
	wait_for 60 test -e "$d/outside.done"
	kill "$p"
	wait "$p"
}
export -f inner json_done wait_for or_jq
export d FTQPS FT_PY3
unshare --pid --fork --mount-proc bash -c inner >"$d/unshare.log" 2>&1 &
ns=$!
HELD+=("$ns")
gpid=0 nspid=
if wait_for 90 test -e "$d/inside.done"; then
	fabtrace -j qp show >"$d/outside.json"
	ipid=$(or_jq "$d/inner.json" 'd["pid"]')
	for s in /proc/[0-9]*/status; do
		if [ "$(sed -n 's/^Name:\t//p' "$s" 2>/dev/null)" = ft_qps ] &&
			[ "$(sed -n 's/^NSpid:\t[0-9]*\t//p' "$s" 2>/dev/null)" = "$ipid" ]; then
			gpid=${s#/proc/}
			gpid=${gpid%/status}
			nspid=$(sed -n 's/^NSpid:\t//p' "$s" | tr '\t' ' ')
		fi
	done
fi
touch "$d/outside.done"
wait "$ns" || log "the namespace's ft_qps: exit $?"
sed 's/^/# ns: /' "$d/unshare.log"
oracle pidns --inner "$d/inner.json" --inside "$d/inside.json" --inside-pid "$d/inside-pid.json" \
	--outside "$d/outside.json" --global-pid "$gpid" --nspid "${nspid:-?}" --out "$d/pidns" ||
	log "the pidns checker failed"
ktap_result "PID namespace: the reader sees its own QPs only, with its pids" or_ok "$d/pidns" inside
ktap_result "initial namespace: the same QPs with the global pid, and the rest" or_ok "$d/pidns" outside
ktap_finished
