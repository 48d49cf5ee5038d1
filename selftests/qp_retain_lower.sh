#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Lowering retain_ms at run time applies to QPs destroyed before and after the change.
# timeout=120
#
# Node A.  With retain_ms 20000, batch X (4 QPs) is destroyed; retain_ms is
# then lowered to 1500 in sysfs and batch Y (4 QPs) is destroyed.  Both
# batches must stay readable, unchanged, until 1500 ms after their
# destruction and be gone within SLACK ms more: retain_ms is "how long
# destroyed QPs are retained", and it now says 1500.  (A retire timer armed
# for X's 20 s must not hold Y, nor X, for 20 s.)
set -euo pipefail
HERE=$(dirname "$(readlink -f "$0")")
. "$HERE/lib.sh"
. "$HERE/lib-oracle.sh"

require_module fabtrace
require_progs
require_cmd fabtrace rdma
SLACK=1500
RETAIN=/sys/module/fabtrace/parameters/retain_ms

cleanup() {
	[ ! -w "$RETAIN" ] || echo 60000 >"$RETAIN"
}
at_exit cleanup

ktap_plan 8
ktap_assert "rxe0 up on A" rxe_up self
ktap_assert "modprobe fabtrace retain_ms=20000 (A)" _or_reload_self retain_ms=20000
or_outdir qp_retain_lower
X=$OR_OUT/x Y=$OR_OUT/y
or_retain_batch "$X" || fail_all "batch X failed"
echo 1500 >"$RETAIN"
log "retain_ms lowered to $(cat "$RETAIN") at $(date +%s%N)"
or_retain_batch "$Y" || fail_all "batch Y failed"
: >"$OR_OUT/polls"
or_poll_gone "$OR_OUT/polls" "$(or_batch_qpns "$X"),$(or_batch_qpns "$Y")" 30 ||
	log "entries of X and Y not gone after 30 s"
or_snap self "$X/s2.json" || fail_all "snapshot failed"
cp "$X/s2.json" "$Y/s2.json"
or_retain_check "$X" "$OR_OUT/polls" 1500 "$SLACK" 0 20000 || log "X: the checker failed"
or_retain_check "$Y" "$OR_OUT/polls" 1500 "$SLACK" 4 || log "Y: the checker failed"
ktap_result "X (destroyed under 20000): final counters, flags, times, owner" or_ok "$X/results" final
ktap_result "X: readable and unchanged until 1500 ms" or_ok "$X/results" kept
ktap_result "X: gone within 1500 + $SLACK ms of its destruction" or_ok "$X/results" gone
ktap_result "Y (destroyed under 1500): final counters, flags, times, owner" or_ok "$Y/results" final
ktap_result "Y: readable and unchanged until 1500 ms" or_ok "$Y/results" kept
ktap_result "Y: gone within 1500 + $SLACK ms of its destruction" or_ok "$Y/results" gone
ktap_finished
