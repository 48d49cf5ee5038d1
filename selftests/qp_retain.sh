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
# Last, the statistics while QPs come and go: a churner creates and
# destroys 4 QPs at a time while `stats` is read without pause for 8 s.
# Live QPs are two counters read apart (entries less retained), and QPs
# created and destroyed between the reads must not make them wrap: every
# read has qps + retained <= max_qps; once the churner has stopped and its
# QPs' entries are gone, qps is the number of QPs the RDMA core lists.
# Then, with retain_ms 300 so that each dump fits in one message batch,
# `qp show sort qpn` runs without pause for 8 s: a QP destroyed while a
# dump runs may be in it twice (live, then destroyed) only if the kernel
# flagged the dump (NLM_F_DUMP_INTR, even on its NLMSG_DONE) and the
# CLI's retries ran out, which it then says.
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
at_exit cleanup

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

# churn_stats: the stats read while QPs come and go (see the top).
churn_stats() {
	local d=$OR_OUT/churn ch end n nrdma

	mkdir -p "$d"
	( n=0
	  while [ ! -e "$d/stop" ]; do
		"$FT_PROGS/ft_qps" --no-connect -n 4 --iters 0 --destroy-after 0 --summary \
			--timeout-s 30 </dev/null >/dev/null 2>>"$d/churn.err" ||
			echo "exit $?" >>"$d/churn.err"
		n=$((n + 1))
		echo "$n" >"$d/churn.n"
	  done ) &
	ch=$!
	end=$((SECONDS + 8 * S))
	while [ "$SECONDS" -lt "$end" ]; do
		fabtrace -j stats >>"$d/stats.jl" || echo '{"error": 1}' >>"$d/stats.jl"
	done
	echo $((300 * S)) >"$RETAIN"
	end=$((SECONDS + 8 * S)) i=0
	while [ "$SECONDS" -lt "$end" ]; do
		i=$((i + 1))
		fabtrace -j qp show dev rxe0 sort qpn >"$d/dump.$i" 2>"$d/dump.$i.err" ||
			echo "exit $?" >>"$d/dump.$i.err"
	done
	touch "$d/stop"
	wait "$ch" || true
	n=$(cat "$d/churn.n" 2>/dev/null || echo 0)
	log "churner: $n runs of 4 QPs; $(sort "$d/churn.err" 2>/dev/null | uniq -c | head -n 3 | tr '\n' ' ')"
	"$FT_PY3" - "$d/stats.jl" >"$d/verdict" <<'PY'
import json, sys
reads = [json.loads(line) for line in open(sys.argv[1])]
bad = [r for r in reads if "qps" not in r or r["qps"] + r["retained"] > r["max_qps"]]
print("# %d reads, qps %d..%d, retained %d..%d, %d out of bounds%s" % (
    len(reads), min((r.get("qps", 0) for r in reads), default=0),
    max((r.get("qps", 0) for r in reads), default=0),
    min((r.get("retained", 0) for r in reads), default=0),
    max((r.get("retained", 0) for r in reads), default=0), len(bad),
    (": first " + json.dumps(bad[0])) if bad else ""))
print("ok" if reads and not bad else "no")
PY
	"$FT_PY3" - "$d" "$i" >"$d/dumps" <<'PY'
import json, os, sys
d, n = sys.argv[1], int(sys.argv[2])
SLACK = 50 * 1000000	# user/qpset.h FT_CTIME_SLACK_NS
bad = dup = told = most = 0
for i in range(1, n + 1):
    err = open("%s/dump.%d.err" % (d, i)).read()
    try:
        qs = json.load(open("%s/dump.%d" % (d, i)))
    except ValueError:
        bad += 1
        continue
    most = max(most, len(qs))
    cs = {}
    for q in qs:
        cs.setdefault((q["dev_index"], q["qpn"]), []).append(q["create_time"])
    twice = sum(1 for v in cs.values() for a, b in zip(sorted(v), sorted(v)[1:]) if b - a <= SLACK)
    if twice:
        if "interrupted" in err:
            told += 1
        else:
            dup += 1
print("# %d dumps of up to %d entries: %d not valid JSON, %d with an entry twice and no word of it, %d said it was interrupted"
      % (n, most, bad, dup, told))
print("ok" if n >= 3 and not bad and not dup else "no")
PY
	grep '^#' "$d/verdict" "$d/dumps" | sed 's/^[^#]*//' || true
	ktap_result "stats under churn: QPs created and destroyed meanwhile ($n runs of 4)" test "$n" -ge 3
	ktap_result "stats under churn: every read has qps + retained <= max_qps" grep -qx ok "$d/verdict"
	ktap_result "dumps under churn: none has an entry twice unless it says it was interrupted" \
		grep -qx ok "$d/dumps"
	# no entry retired between the two reads either
	wait_for $((10 * S)) stats_is retained 0 || log "retained entries not gone within $((10 * S)) s"
	nrdma=$(rdma -j resource show qp link rxe0/1 |
		python3 -c 'import json, sys; print(len(json.load(sys.stdin)))')
	log "after the churn: stats qps $(ft_stat qps), rdma lists $nrdma QPs"
	ktap_result "after the churn: stats qps == the QPs rdma lists ($nrdma)" stats_is qps "$nrdma"
}
stats_is() { [ "$(ft_stat "$1")" = "$2" ]; }

ktap_plan 12
ktap_assert "rxe0 up on A" rxe_up self
ktap_assert "modprobe fabtrace retain_ms=$MS1 (A)" _or_reload_self retain_ms=$MS1
or_outdir qp_retain
cycle modprobe $MS1
echo $MS2 >"$RETAIN"
cycle sysfs $MS2
churn_stats
ktap_finished
