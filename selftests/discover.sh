#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Loading fabtrace while QPs come and go: every QP is an entry, no gone QP stays live.
# timeout=300
#
# At load fabtrace walks the RDMA core's QPs while its hooks already watch
# creations and destructions.  A QP created during the walk must be caught
# by one or the other; a QP destroyed during it must not stay a live entry
# (its destroy hook runs before the walk lets go of it).  On node A, while
# fabtrace is unloaded and loaded again CYCLES times beside 200 held QPs,
# a churner creates and destroys batches of QPs without pause, and a
# keeper (ft_keep) creates batches of QPs one after another and keeps them,
# so that the QPs created across the load are still there to be checked.
# After each load both pause, and fabtrace's live entries of rxe0 must be
# exactly the QPs the RDMA core lists (rdma resource show qp), QP number
# for QP number: the oracle fabtrace does not control.  The keeper's
# batches whose creation overlapped a modprobe are counted, and must be
# at least one per load: else the window was never tried.
set -euo pipefail
HERE=$(dirname "$(readlink -f "$0")")
. "$HERE/lib.sh"
. "$HERE/lib-oracle.sh"

require_module fabtrace
require_progs
require_cmd fabtrace rdma python3
FTQPS=$FT_PROGS/ft_qps
CYCLES=${FT_DISCOVER_CYCLES:-4}
# the keeper's batches held at most at once (4 QPs each)
KEEP_MAX=${FT_DISCOVER_KEEP:-24}

T=$(mktemp -d /tmp/discover.XXXXXX)
held='' churn='' keeper=''
release_kept() {
	local f p

	for f in "$T"/keep.*.pid; do
		[ -e "$f" ] || continue
		p=$(cat "$f")
		kill "$p" 2>/dev/null || true
		wait_for 60 eval "! kill -0 $p 2>/dev/null" || true
		rm -f "$f"
	done
}
cleanup() {
	touch "$T/stop"
	rm -f "$T/pause"
	for p in $churn $keeper $held; do
		kill "$p" 2>/dev/null || true
	done
	release_kept
	wait 2>/dev/null || true
	[ -e /sys/module/fabtrace ] || modprobe fabtrace 2>/dev/null || true
	rm -rf "$T"
}
at_exit cleanup

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
# the churner stops between batches while $T/pause exists, the keeper
# while $T/keep does not; each says so
paused() { [ -e "$T/paused" ] && [ -e "$T/kpaused" ]; }

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
# The keeper: from just before a load, one batch after another, each held
# until the cycle ends; keep.K.t holds when batch K began and when its QPs
# all existed.
( k=0
  while [ ! -e "$T/stop" ]; do
	if [ ! -e "$T/keep" ] || [ "$(find "$T" -name 'keep.*.pid' | wc -l)" -ge "$KEEP_MAX" ]; then
		[ -e "$T/keep" ] || touch "$T/kpaused"
		sleep 0.05
		continue
	fi
	rm -f "$T/kpaused"
	k=$((k + 1))
	t0=$(now)
	"$FTQPS" -d rxe0 --no-connect -n 4 --iters 0 --hold --timeout-s 300 --comm ft_keep \
		</dev/null >"$T/keep.$k.json" 2>>"$T/keep.err" &
	echo $! >"$T/keep.$k.pid"
	while [ ! -s "$T/keep.$k.json" ] && kill -0 $! 2>/dev/null; do
		sleep 0.02
	done
	[ -s "$T/keep.$k.json" ] || echo "batch $k: no QPs" >>"$T/keep.err"
	echo "$t0 $(now)" >"$T/keep.$k.t"
  done ) &
keeper=$!

ktap_plan 4
ok=0 bad=0 across=0 kept=0
for ((c = 1; c <= CYCLES; c++)); do
	rmmod fabtrace
	touch "$T/keep"
	sleep 0.$((RANDOM % 5))
	m0=$(now)
	modprobe fabtrace
	m1=$(now)
	# let both run into the walk, then stop them and let fabtrace's
	# check after the walk (1 s) finish
	sleep 1
	touch "$T/pause"
	rm -f "$T/keep"
	wait_for 60 paused || fail_all "the churner or the keeper did not pause"
	sleep 1.5
	r=$(rdma_qpns) f=$(ft_qpns)
	# the keeper's batches of this cycle that were being created while
	# modprobe ran
	n=$(cat "$T"/keep.*.t 2>/dev/null | awk -v m0="$m0" -v m1="$m1" \
		'$1 < m1 && $2 > m0 { n++ } END { print n + 0 }')
	across=$((across + n))
	kept=$((kept + $(find "$T" -name 'keep.*.pid' | wc -l)))
	log "cycle $c: modprobe $(awk -v a="$m0" -v b="$m1" 'BEGIN { printf "%.2f", b - a }') s, $n kept batches created across it, $(wc -w <<<"$r") QPs"
	if [ "$r" = "$f" ]; then
		ok=$((ok + 1))
	else
		bad=$((bad + 1))
		log "cycle $c: rdma lists $(wc -w <<<"$r") QPs, fabtrace $(wc -w <<<"$f") live"
		log "  only in rdma: $(comm -23 <(tr ' ' '\n' <<<"$r" | sort) <(tr ' ' '\n' <<<"$f" | sort) | tr '\n' ' ')"
		log "  only in fabtrace: $(comm -13 <(tr ' ' '\n' <<<"$r" | sort) <(tr ' ' '\n' <<<"$f" | sort) | tr '\n' ' ')"
	fi
	release_kept
	rm -f "$T"/keep.*.t "$T"/keep.*.json "$T/pause"
done
touch "$T/stop"
wait "$churn" "$keeper" || true
churn='' keeper=''
runs=$(cat "$T/churn.n" 2>/dev/null || echo 0)
log "churner: $runs batches of 10 QPs; $(sort "$T/churn.err" 2>/dev/null | uniq -c | head -n 3 | tr '\n' ' ')"
log "keeper: $kept batches of 4 QPs held; $(sort "$T/keep.err" 2>/dev/null | uniq -c | head -n 3 | tr '\n' ' ')"
ktap_result "QPs were created and destroyed throughout ($runs batches of 10)" \
	test "$runs" -ge "$CYCLES"
ktap_result "QPs kept were being created while fabtrace loaded ($across batches over $CYCLES loads)" \
	test "$across" -ge "$CYCLES"
ktap_result "after each of $CYCLES loads, fabtrace's live entries are rdma's QPs exactly ($ok of $CYCLES)" \
	test "$bad" = 0
ktap_result "hook_missed is 0" test "$(ft_stat hook_missed)" = 0
ktap_finished
