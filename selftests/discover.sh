#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Loading fabtrace while QPs come and go: every QP is an entry, no gone QP stays live.
# timeout=300
#
# At load fabtrace walks the RDMA core's QPs while its hooks already watch
# creations and destructions.  A QP created during the walk must be caught
# by one or the other; a QP destroyed during it must not stay a live entry
# (its destroy hook runs before the walk lets go of it).  A churner on
# node A creates and destroys batches of QPs without pause while fabtrace
# is unloaded and loaded again, CYCLES times, beside 200 held QPs.  After
# each load the churner pauses, and fabtrace's live entries of rxe0 must
# be exactly the QPs the RDMA core lists (rdma resource show qp), QP
# number for QP number: the oracle fabtrace does not control.
set -euo pipefail
HERE=$(dirname "$(readlink -f "$0")")
. "$HERE/lib.sh"
. "$HERE/lib-oracle.sh"

require_module fabtrace
require_progs
require_cmd fabtrace rdma python3
FTQPS=$FT_PROGS/ft_qps
CYCLES=${FT_DISCOVER_CYCLES:-4}

T=$(mktemp -d /tmp/discover.XXXXXX)
held='' churn=''
cleanup() {
	touch "$T/stop"
	rm -f "$T/pause"
	for p in $churn $held; do
		kill "$p" 2>/dev/null || true
	done
	wait 2>/dev/null || true
	[ -e /sys/module/fabtrace ] || modprobe fabtrace 2>/dev/null || true
	rm -rf "$T"
}
trap cleanup EXIT

# rxe0's QP numbers as the RDMA core lists them, and as fabtrace's live entries
rdma_qpns() {
	rdma -j resource show qp link rxe0/1 | python3 -c 'import json, sys
print(" ".join(str(q) for q in sorted(q["lqpn"] for q in json.load(sys.stdin))))'
}
ft_qpns() {
	fabtrace -j qp show dev rxe0 | python3 -c 'import json, sys
print(" ".join(str(q) for q in sorted(q["qpn"] for q in json.load(sys.stdin)
                                       if "destroyed" not in q.get("flags", []))))'
}
# the churner stops between batches while $T/pause exists, and says so
paused() { [ -e "$T/paused" ]; }

rxe_up self
modprobe fabtrace
"$FTQPS" -d rxe0 --no-connect -n 200 --hold --timeout-s 600 >/dev/null 2>"$T/held.err" &
held=$!
( n=0
  while [ ! -e "$T/stop" ]; do
	if [ -e "$T/pause" ]; then
		touch "$T/paused"
		sleep 0.1
		continue
	fi
	rm -f "$T/paused"
	"$FTQPS" -d rxe0 --no-connect -n 10 --iters 0 --destroy-after 0 --timeout-s 30 \
		</dev/null >/dev/null 2>>"$T/churn.err" || echo "exit $?" >>"$T/churn.err"
	n=$((n + 1))
	echo "$n" >"$T/churn.n"
  done ) &
churn=$!

ktap_plan 3
ok=0 bad=0
for ((c = 1; c <= CYCLES; c++)); do
	rmmod fabtrace
	sleep 0.$((RANDOM % 5))
	modprobe fabtrace
	# let the churner run into the walk, then stop it and let
	# fabtrace's check after the walk (1 s) finish
	sleep 1
	touch "$T/pause"
	wait_for 60 paused || fail_all "the churner did not pause"
	sleep 1.5
	r=$(rdma_qpns) f=$(ft_qpns)
	if [ "$r" = "$f" ]; then
		ok=$((ok + 1))
	else
		bad=$((bad + 1))
		log "cycle $c: rdma lists $(wc -w <<<"$r") QPs, fabtrace $(wc -w <<<"$f") live"
		log "  only in rdma: $(comm -23 <(tr ' ' '\n' <<<"$r" | sort) <(tr ' ' '\n' <<<"$f" | sort) | tr '\n' ' ')"
		log "  only in fabtrace: $(comm -13 <(tr ' ' '\n' <<<"$r" | sort) <(tr ' ' '\n' <<<"$f" | sort) | tr '\n' ' ')"
	fi
	rm -f "$T/pause"
done
touch "$T/stop"
wait "$churn" || true
churn=''
runs=$(cat "$T/churn.n" 2>/dev/null || echo 0)
log "churner: $runs batches of 10 QPs; $(sort "$T/churn.err" 2>/dev/null | uniq -c | head -n 3 | tr '\n' ' ')"
ktap_result "QPs were created and destroyed throughout ($runs batches of 10)" \
	test "$runs" -ge "$CYCLES"
ktap_result "after each of $CYCLES loads, fabtrace's live entries are rdma's QPs exactly ($ok of $CYCLES)" \
	test "$bad" = 0
ktap_result "hook_missed is 0" test "$(fabtrace -j stats | python3 -c 'import json, sys; print(json.load(sys.stdin)["hook_missed"])')" = 0
ktap_finished
