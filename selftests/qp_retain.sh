#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A destroyed QP stays readable with its final counters for retain_ms, then is gone.
# timeout=180
#
# Node A, loopback: ft_qps connects 4 QPs in pairs, writes 5 x 4 KiB on each
# pair and destroys them.  Right after, each entry is flagged destroyed,
# with a destroy time inside the run, ft_qps's pid, its bytes as ft_qps
# reports them and packets summing to rxe's sent_pkts/rcvd_pkts deltas.
# Then the entries are read every 0.2 s: every read before retain_ms after
# the first destruction finds all four, unchanged; the first read that
# finds none starts after that and ends within retain_ms + SLACK of the last
# destruction (the retire work runs at expiry plus a jiffy, then waits an
# RCU grace period; the emulated node adds scheduling delay).  Twice:
# retain_ms given to modprobe (3000), then changed in sysfs (1500); each
# time, and the slack, FT_TIMEOUT_SCALE times longer on a slower kernel (the
# debug one's first read came after 1500 ms).
set -euo pipefail
HERE=$(dirname "$(readlink -f "$0")")
. "$HERE/lib.sh"
. "$HERE/lib-oracle.sh"

require_module fabtrace
require_progs
require_cmd fabtrace rdma
S=${FT_TIMEOUT_SCALE:-1}
SLACK=$((1500 * S))
MS1=$((3000 * S)) MS2=$((1500 * S))
RETAIN=/sys/module/fabtrace/parameters/retain_ms

cleanup() {
	[ ! -w "$RETAIN" ] || echo 60000 >"$RETAIN"
}
trap cleanup EXIT

# cycle NAME RETAIN_MS: one batch of QPs, from creation to gone.
cycle() {
	local name=$1 ms=$2 d=$OR_OUT/$1

	or_retain_batch "$d" || fail_all "$name: snapshot failed"
	: >"$d/polls"
	or_poll_gone "$d/polls" "$(or_batch_qpns "$d")" $((ms / 1000 + 15)) ||
		log "$name: entries of QPs $(or_batch_qpns "$d") not gone"
	or_snap self "$d/s2.json" || fail_all "$name: snapshot failed"
	or_retain_check "$d" "$d/polls" "$ms" "$SLACK" || log "$name: the checker failed"
	ktap_result "$name: destroyed entries right away: final counters, flags, times, owner" \
		or_ok "$d/results" final
	ktap_result "$name: readable and unchanged until retain_ms ($ms ms)" or_ok "$d/results" kept
	ktap_result "$name: gone after retain_ms, within $SLACK ms more" or_ok "$d/results" gone
}

ktap_plan 8
ktap_assert "rxe0 up on A" rxe_up self
ktap_assert "modprobe fabtrace retain_ms=$MS1 (A)" _or_reload_self retain_ms=$MS1
or_outdir qp_retain
cycle modprobe $MS1
echo $MS2 >"$RETAIN"
cycle sysfs $MS2
ktap_finished
