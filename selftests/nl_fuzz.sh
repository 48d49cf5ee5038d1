#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Netlink fuzzing during live traffic: >= 100,000 random and mutated messages, as root and as nobody.
# timeout=240
#
# nl_fuzz (selftests/nl_fuzz.c) sends random and mutated requests to every
# fabtrace command (and invalid ones): do and dump, wrong types and
# lengths, truncated, oversized, unknown and nested-garbage attributes, bad
# nlmsg flags and genl versions, messages cut mid-header, several messages
# per datagram, interleaved dumps on several sockets and dumps abandoned in
# the middle.  It reads every answer and checks it against a model of
# genetlink and of the family's strict policies (see its header comment).
#
# Around it, real RDMA traffic: ib_write_bw A -> B for TRAFFIC_S seconds,
# with 100 idle QPs held on A so that QP dumps span many 4 KiB parts.
# Snapshots of both nodes (every rxe0 QP, the device, the statistics,
# rxe's `rdma statistic`) before the traffic and after it, taken while the
# traffic is quiet, go through lib-oracle's checker: the sum over the QPs
# and the device totals must equal rxe's sent_pkts/rcvd_pkts deltas
# exactly -- the fuzz disturbed no accounting.
#
# Root and qp-reset: root fuzzes qp-reset too, but nl_fuzz rewrites every
# qp-reset that could reset something into one that must fail in the
# handler (no such device, mismatched index and name, QP number >= 2^23 or
# beyond 24 bits, a QP number without device), so the live counters are
# never reset; a root qp-reset answered 0 fails.  Nobody sends them all
# unfiltered, "reset everything" included: each must fail with EPERM.
# Around each run, no QP counter may go down (a reset would zero it).
# Root's policy-sets that pass validation change rxe0's policy (it may
# mark live traffic ECT(0), which no counter checked here depends on); the
# test puts the defaults back at exit.
#
# Rules: no request without answer (only datagrams that are no netlink
# request at all -- shorter than a header, nlmsg_len beyond the datagram,
# no NLM_F_REQUEST or a control type without NLM_F_ACK -- may go
# unanswered), no answer the model did not predict, every EINVAL/ERANGE
# with an extack message (the one exemption: genetlink's own EINVAL for a
# cut genl header, before any fabtrace code, which never has one), every
# dump ended by NLMSG_DONE unless abandoned.  Kernel splats: the harness
# scans the consoles and dmesg after the run.
#
# Measured under TCG: 4,000-8,000 messages/s with nothing else running,
# so NL_FUZZ_ROOT + NL_FUZZ_NOBODY = 120,000 take about 30 s even slowed
# by the traffic.
set -euo pipefail
HERE=$(dirname "$(readlink -f "$0")")
. "$HERE/lib.sh"
. "$HERE/lib-oracle.sh"

require_peer
require_module fabtrace
require_progs
require_cmd fabtrace rdma ib_write_bw ss stdbuf
FUZZ=${FT_BUILD:-$HERE/../build}/selftests/nl_fuzz
[ -x "$FUZZ" ] || skip_all "$FUZZ not built (make -C selftests)"

SEED=${NL_FUZZ_SEED:-14}
ROOT_N=${NL_FUZZ_ROOT:-65000}
NOBODY_N=${NL_FUZZ_NOBODY:-55000}
# the debug kernel (KASAN, lockdep) answers ~4 times slower: as long again
# (and every limit around the traffic with it: a server killed at a fixed
# 200 s left A sending to QPs B no longer had)
# The two runs took 25 s (6.1) and 16 s (6.12), the longer one 14 s:
# traffic for twice their sum, each stopped at 25 s.
TRAFFIC_S=${NL_FUZZ_TRAFFIC_S:-$((55 * ${FT_TIMEOUT_SCALE:-1}))}
# Each run stops at this (then reports fewer messages, and fails below).
LIMIT_S=$((25 * ${FT_TIMEOUT_SCALE:-1}))
# perftest polls its CQ: at nice 0 it took most of the one vCPU and cut the
# fuzz to ~600 messages/s.  Niced, it gets what the fuzz leaves (perftest's
# -e, CQ events, does not work with -D, nor for WRITE).
BW="nice -n 19 stdbuf -oL ib_write_bw"
BW_ARGS="-d rxe0 -x 1 -F -c RC -q 2 -s 8192 -u 20 -D $TRAFFIC_S --wait_destroy=$((6 * ${FT_TIMEOUT_SCALE:-1}))"
REPORT='^ *Waiting [0-9]+ seconds before releasing resources'

cleanup() {
	# root's valid policy-sets changed the policy: the defaults again
	fabtrace policy set dev rxe0 trust pcp dscp-map default pfc none ecn none \
		cnp on cnp-interval 50 cnp-dscp 48 pfc-watchdog off 2>/dev/null || true
}
at_exit cleanup

# jtest FILE EXPR: EXPR (Python, over the JSON document d) is true.
jtest() {
	"$FT_PY3" -c 'import json, sys
d = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
sys.exit(not eval(sys.argv[2]))' "$1" "$2"
}

# qp_counts FILE: every entry's (dev, qpn, create time, tx and rx packets).
qp_counts() {
	fabtrace -j qp show >"$1"
}

# no_backwards F0 F1: no entry of F0 has fewer packets in F1.
no_backwards() {
	"$FT_PY3" -c 'import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
k = lambda q: (q["dev"], q["qpn"], q["create_time"] // 10**6)
after = {k(q): q for q in b}
bad = [(k(q), d, q[d]["packets"], after[k(q)][d]["packets"]) for q in a if k(q) in after
       for d in ("tx", "rx") if after[k(q)][d]["packets"] < q[d]["packets"]]
moved = sum(after[k(q)]["tx"]["packets"] - q["tx"]["packets"] for q in a if k(q) in after)
print("# %d entries, %d tx packets counted meanwhile, %d went backwards %s"
      % (len(a), moved, len(bad), bad[:5]))
sys.exit(bool(bad) or not a)' "$1" "$2"
}

PLAN_PER_RUN=6
ktap_plan $((4 + 2 * PLAN_PER_RUN + 7))
ktap_assert "fabtrace reloaded on both nodes (retain_ms=600000)" \
	or_fresh_module retain_ms=600000
ktap_assert "rxe0 up on both nodes" rxe_up both
or_outdir nl_fuzz
d=$OR_OUT

json_done() { grep -q '^{.*}$' "$1"; }
"$FT_PROGS/ft_qps" --no-connect -n 100 --iters 0 --hold --timeout-s $((TRAFFIC_S + 140)) \
	>"$d/idle.json" 2>"$d/idle.err" &
idle=$!
bg_add "$idle"
ktap_assert "100 idle QPs held on A (QP dumps span many parts)" wait_for 60 json_done "$d/idle.json"

or_quiesce || true
or_snap self "$d/a0.json" || fail_all "snapshot of A failed"
or_snap peer "$d/b0.json" || fail_all "snapshot of B failed"

# shellcheck disable=SC2086 # BW_ARGS is a list of words
peer -t $((TRAFFIC_S + 120)) "$OR_EXEC_PID $BW $BW_ARGS" >"$d/server.log" 2>&1 &
srv=$!
bg_add "$srv"
wait_for 60 perftest_listening || log "server not listening after 60 s"
# shellcheck disable=SC2086
OR_SPAWN_S=$((TRAFFIC_S + 220)) or_spawn "$d/client.log" $BW $BW_ARGS "$FT_PEER_IP"
cli=$OR_SPAWNED
s0=$(rxe_stat sent_pkts)
flowing() { [ "$(rxe_stat sent_pkts)" -gt $((s0 + 200)) ]; }
ktap_assert "ib_write_bw A -> B flowing" wait_for 60 flowing
t0=$SECONDS

# fuzz NAME ARGS...: one run; its summary in $d/NAME.json, stderr in NAME.err
fuzz() {
	local name=$1 rc=0

	shift
	qp_counts "$d/$name.qp0.json"
	rxe_stat sent_pkts >"$d/$name.sent0"
	"$FUZZ" --seed "$SEED" --time-limit "$LIMIT_S" -v "$@" >"$d/$name.json" 2>"$d/$name.err" || rc=$?
	rxe_stat sent_pkts >"$d/$name.sent1"
	qp_counts "$d/$name.qp1.json"
	echo "$rc" >"$d/$name.rc"
	log "$name: exit $rc: $(cat "$d/$name.json")"
	sed -n '1,30s/^/# /p' "$d/$name.err"
}

# checks NAME WHO: the rules over one run's summary
checks() {
	# shellcheck disable=SC2034 # n: used in the eval'd checks
	local n=$1 f=$d/$1.json who=$2

	ktap_result "$who: nl_fuzz exit 0, no failure" \
		eval '[ "$(cat "$d/$n.rc")" = 0 ] && jtest "$f" "d[\"failures\"] == 0"'
	ktap_result "$who: every request answered, as the model says (no stray, no mismatch, dumps ended)" \
		jtest "$f" 'd["replies"]["no_answer"] == 0 and d["stray"] == 0 and d["mismatch"] == 0 and d["dumps"]["unterminated"] == 0 and d["truncated_reads"] == 0 and d["socket_errors"] == 0'
	ktap_result "$who: every EINVAL/ERANGE carries an extack (policy rejections with one > 0)" \
		jtest "$f" 'd["einval_noext"] == 0 and d["policy_reject"] > 0'
	ktap_result "$who: dumps started, completed, interleaved and abandoned" \
		jtest "$f" 'all(d["dumps"][k] > 0 for k in ("started", "completed", "interleaved_episodes", "abandoned"))'
	ktap_result "$who: traffic moved during the run, no QP counter went backwards" \
		eval 'log "rxe0 sent_pkts +$(($(cat "$d/$n.sent1") - $(cat "$d/$n.sent0"))) during the run" &&
			[ "$(cat "$d/$n.sent1")" -gt "$(cat "$d/$n.sent0")" ] &&
			no_backwards "$d/$n.qp0.json" "$d/$n.qp1.json"'
}

fuzz root --count "$ROOT_N"
fuzz nobody --count "$NOBODY_N" --uid 65534
t1=$SECONDS
log "fuzz took $((t1 - t0)) s, traffic still running: $(kill -0 "$cli" 2>/dev/null && echo yes || echo no)"
running_after=0
kill -0 "$cli" 2>/dev/null || running_after=1

checks root root
ktap_result "root: no qp-reset succeeded (ok_as_root 0; filtered: see header)" \
	jtest "$d/root.json" 'd["reset"]["ok_as_root"] == 0 and d["reset"]["rewritten"] > 0'
checks nobody nobody
ktap_result "nobody: every qp-reset failed with EPERM" \
	jtest "$d/nobody.json" 'd["reset"]["eperm"] > 0 and d["reset"]["not_eperm"] == 0'
sent_of() { or_jq "$d/$1.json" 'd["sent"]' 2>/dev/null || echo 0; }
total=$(($(sent_of root) + $(sent_of nobody)))
ktap_result "messages sent, root + nobody: $total >= 100000" test "$total" -ge 100000
ktap_result "traffic ran throughout the fuzz (still running when it ended)" test "$running_after" = 0
if jtest "$d/root.json" 'd["unvalidated_accepted"]["stats-get"] > 0'; then
	log "finding: stats-get accepted garbage attributes $(or_jq "$d/root.json" 'd["unvalidated_accepted"]["stats-get"]') times as root: no request policy, and $(uname -r) gives split ops no reject-all policy"
fi

# after the traffic, while its QPs still exist (--wait_destroy)
wait_for 150 grep -qE "$REPORT" "$d/client.log" || log "no report from the client"
or_quiesce || true
or_snap self "$d/a1.json" || fail_all "snapshot of A failed"
or_snap peer "$d/b1.json" || fail_all "snapshot of B failed"
crc=0 src=0
wait "$cli" || crc=$?
wait "$srv" || src=$?
kill "$idle" 2>/dev/null || true
wait "$idle" 2>/dev/null || true

ktap_result "fabtrace still loaded and answering" \
	eval '[ -e /sys/module/fabtrace ] && fabtrace -j stats >/dev/null && fabtrace -j dev show rxe0 >/dev/null'
ktap_result "ib_write_bw client (exit $crc) and server (exit $src)" test "$crc" = 0 -a "$src" = 0
res=$d/results
oracle check --a0 "$d/a0.json" --a1 "$d/a1.json" --b0 "$d/b0.json" --b1 "$d/b1.json" \
	--out "$res" || log "the checker failed"
ktap_result "A: QP sum and device == rxe sent_pkts/rcvd_pkts deltas over the run" or_ok "$res" rdma_a
ktap_result "B: QP sum and device == rxe sent_pkts/rcvd_pkts deltas over the run" or_ok "$res" rdma_b
ktap_result "hook_missed, malformed, unknown, overflow 0; snapshots valid" \
	eval 'or_ok "$res" stats && or_ok "$res" snapshots'
log "whole test: $SECONDS s"
ktap_finished
