#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The CLI against the real module, in the two-node QEMU test bed.
# timeout=600
#
#   T=cli.sh selftests/qemu/vm-test.sh KVER
#
# Not part of "make check" (that needs no kernel): this drives every command
# against fabtrace.ko with real RDMA traffic between the nodes, prints what
# each command printed (the log is the review material) and checks exit
# codes, JSON validity and the basics of each answer.
set -euo pipefail
. "$(dirname "$(readlink -f "$0")")/lib.sh"

require_peer
require_module fabtrace
require_cmd rdma python3 ib_write_bw

# the CLI as a node has it: installed, on PATH
FT=$(command -v fabtrace) || skip_all "fabtrace CLI not installed in the node"
OUT=${FT_OUT:-/tmp}/vm_cli
mkdir -p "$OUT"
jsonok() { python3 -m json.tool "$1" >/dev/null; }
# ft NAME ARGS...: run the CLI, keep stdout/stderr in $OUT/NAME.{out,err}, show
# them; its exit status in rc
ft() {
	local name=$1

	shift
	rc=0
	"$FT" "$@" >"$OUT/$name.out" 2>"$OUT/$name.err" || rc=$?
	echo "# \$ fabtrace $* (exit $rc)"
	sed -n '1,40s/^/#   /p' "$OUT/$name.out"
	sed 's/^/#   stderr: /' "$OUT/$name.err"
}
jq_py() { python3 -c "import json,sys; d=json.load(open('$1')); $2"; }
# Strict consumers: the bytes must decode as UTF-8 (one document, or a line each).
json_utf8() { python3 -c 'import json, sys; json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))' "$1"; }
json_lines_utf8() {
	python3 -c 'import json, sys
[json.loads(l) for l in open(sys.argv[1], "rb").read().decode("utf-8").splitlines()]' "$1"
}

# A QP owner names itself as it likes (prctl PR_SET_NAME): an invalid UTF-8
# byte and a clear-screen escape.  ft_qps (selftests/progs) does it.
HOSTILE=$'\xff\x1b[2Jx'
FTQPS=${FT_PROGS:+$FT_PROGS/ft_qps}
# escaped FILE: the name shows as \xff\x1b[2Jx; no ESC and no 0xff byte in FILE
escaped() {
	python3 -c 'import sys
t = open(sys.argv[1], "rb").read()
sys.exit(not (b"\x1b" not in t and b"\xff" not in t and rb"\xff\x1b[2Jx" in t))' "$1"
}

ktap_plan 44
on_both modprobe fabtrace
ktap_assert "rxe0 up on both nodes" rxe_up both

# The module is there: the family resolves, -V says so.
ft version -V
ktap_result "-V shows the kernel family" grep -q "^kernel: fabtrace netlink family version" "$OUT/version.out"

ft dev dev; ktap_result "dev (default show)" test $rc = 0
ft dev_s -s dev show; ktap_result "-s dev show" test $rc = 0
ft dev_j -j dev show; ktap_result "-j dev show: valid JSON" jsonok "$OUT/dev_j.out"
ktap_result "-j dev: rxe0 with a port and counters" jq_py "$OUT/dev_j.out" \
	"d=[x for x in d if x['name']=='rxe0'][0]; assert d['ports'][0]['state']=='ACTIVE' and 'packets' in d['tx'] and d['hooked'] is True"
ft dev_one -p dev show rxe0; ktap_result "dev show rxe0 (do request)" jsonok "$OUT/dev_one.out"
ft dev_none dev show nosuch0
ktap_result "dev show nosuch0: extack, exit 1" \
	test $rc = 1 -a "$(cat "$OUT/dev_none.err")" = "fabtrace: no such RDMA device: No such device"
ft qp_nodev qp show dev nosuch0
ktap_result "qp show dev nosuch0: error" test $rc = 1

# Listen for events while traffic runs.
"$FT" -j monitor >"$OUT/monitor.out" 2>"$OUT/monitor.err" &
mon=$!
"$FT" monitor events qp-create,qp-destroy >"$OUT/monitor_txt.out" 2>&1 &
mon2=$!
bg_add "$mon" "$mon2"
sleep 1

# -D: a timed run, so that top sees the traffic while it flows
peer -t 120 "ib_write_bw -d rxe0 -x 1 -s 8192 -D 20 -F -q 2" >"$OUT/server.log" 2>&1 &
srv=$!
bg_add "$srv"
wait_for 60 perftest_listening || log "server not listening after 60 s"
# keep the client's QPs alive for a moment after its run: start it in the
# background and look while it is running
timeout 120 ib_write_bw -d rxe0 -x 1 -s 8192 -D 20 -F -q 2 "$FT_PEER_IP" >"$OUT/client.log" 2>&1 &
cli=$!
bg_add "$cli"
# wait for the writes to flow (perftest's setup is slow under TCG); QPs
# retained from earlier tests do not count
flowing() {
	"$FT" -j qp show type rc >"$OUT/flow.json" 2>/dev/null &&
		python3 -c "import json, sys; sys.exit(not any(q['tx']['packets'] and q['comm'] == 'ib_write_bw' and 'destroy_time' not in q for q in json.load(open('$OUT/flow.json'))))"
}
wait_for 30 flowing || log "no RC traffic seen after 30 s"
ft top_j -j top iterations 2 interval 200 sort pkts
ktap_result "-j top: one object per line, the RC QPs moving bytes" \
	python3 -c "
import json
snaps = [json.loads(l) for l in open('$OUT/top_j.out')]
assert len(snaps) == 2
assert any(q['tx_bps'] > 0 and q['tx_pps'] > 0 for q in snaps[-1]['qps']), snaps[-1]"
ft top_b top -b iterations 2 interval 300
ktap_result "top -b iterations 2: exit 0, two snapshots" \
	test $rc = 0 -a "$(grep -c '^fabtrace top' "$OUT/top_b.out")" = 2
# on a terminal top redraws in place: script(1) gives it one
rc=0
script -qfec "$FT top iterations 2 interval 200 limit 5" /dev/null >"$OUT/top_tty.out" 2>&1 || rc=$?
ktap_result "top on a terminal: clears and homes, hides and restores the cursor" \
	python3 -c "
t = open('$OUT/top_tty.out', 'rb').read()
assert $rc == 0 and t.count(b'\\x1b[H\\x1b[2J') == 2, t[:200]
assert t.rfind(b'\\x1b[?25h') > t.rfind(b'\\x1b[?25l') >= 0, t[-80:]"
crc=0
wait "$cli" || crc=$?
wait "$srv" || true
ktap_result "ib_write_bw ran" test $crc = 0

ft qp_j0 -j qp show
qpn=$(python3 -c "import json; print([q['qpn'] for q in json.load(open('$OUT/qp_j0.out')) if q['type']=='rc'][0])")
# reset: root may, nobody may not (while the QPs are retained: retain_ms).
ft reset qp reset dev rxe0 qpn "$qpn"
ktap_result "qp reset dev rxe0 qpn $qpn as root" test $rc = 0
ft after -j qp show dev rxe0 qpn "$qpn"
ktap_result "counters are zero after reset" jq_py "$OUT/after.out" "assert d[0]['tx']['packets']==0"
rc=0
setpriv --reuid=65534 --regid=65534 --clear-groups "$FT" qp reset >"$OUT/reset_nobody.out" \
	2>"$OUT/reset_nobody.err" || rc=$?
sed 's/^/#   nobody: /' "$OUT/reset_nobody.err"
ktap_result "qp reset as nobody: Operation not permitted, exit 1" \
	grep -q "Operation not permitted" "$OUT/reset_nobody.err"

ft qp qp; ktap_result "qp (default show) table" test $rc = 0 -a -s "$OUT/qp.out"
ft qp_n -n qp show; ktap_result "-n qp show" test $rc = 0
ft qp_s -s qp show; ktap_result "-s qp show" test $rc = 0
ft qp_j -j qp show; ktap_result "-j qp show: valid JSON" jsonok "$OUT/qp_j.out"
ktap_result "-j qp show: every counter, RC QPs with traffic" jq_py "$OUT/qp_j.out" \
	"rc=[q for q in d if q['type']=='rc']; assert rc and all(len(q['tx'])==11 and len(q['cong']['tx_nak'])==6 for q in d); assert sum(q['tx']['packets'] for q in rc) > 0"
qpn=$(python3 -c "import json; print([q['qpn'] for q in json.load(open('$OUT/qp_j.out')) if q['type']=='rc'][0])")
ft qp_one -j qp show dev rxe0 qpn "$qpn"
ktap_result "qp show dev rxe0 qpn $qpn (do request)" jq_py "$OUT/qp_one.out" "assert len(d)==1 and d[0]['qpn']==$qpn"
ft qp_list -j qp show qpn "1,$qpn-$((qpn + 5)),$qpn"
ktap_result "qp show qpn LIST: the ranges, no duplicates" jq_py "$OUT/qp_list.out" \
	"k=[(q['dev_index'],q['qpn'],q['create_time']) for q in d]; assert len(k)==len(set(k)) and all(q['qpn']==1 or $qpn<=q['qpn']<=$qpn+5 for q in d)"
ft qp_nosuch qp show dev rxe0 qpn 16000000
ktap_result "qp show one missing QP: extack, exit 1" \
	test $rc = 1 -a "$(cat "$OUT/qp_nosuch.err")" = "fabtrace: no such QP: No such file or directory"
ft qp_empty -j qp show qpn 16000000
ktap_result "a dump that matches nothing: [] and exit 0" test $rc = 0 -a "$(cat "$OUT/qp_empty.out")" = "[]"
ft qp_sort qp show sort tx-bytes limit 2
ktap_result "sort tx-bytes limit 2: header and 2 rows" test "$(wc -l <"$OUT/qp_sort.out")" = 3
ft qp_filt -j qp show type rc state rts
ktap_result "type/state filters" jq_py "$OUT/qp_filt.out" "assert all(q['type']=='rc' and q['state']=='rts' for q in d)"
ft qp_destroyed -j qp show destroyed
ktap_result "destroyed filter" jq_py "$OUT/qp_destroyed.out" "assert d and all('destroyed' in q['flags'] for q in d)"
ft qp_d_txt qp show destroyed
ktap_result "destroyed QPs say so in the table" grep -q " destroyed " "$OUT/qp_d_txt.out"
ft qp_gsi -j qp show type gsi
ktap_result "gsi QPs are kernel QPs" jq_py "$OUT/qp_gsi.out" "assert all('kernel' in q['flags'] for q in d)"

ft stats stats; ktap_result "stats" test $rc = 0
ft stats_j -j stats show; ktap_result "-j stats: valid, every key" jq_py "$OUT/stats_j.out" "assert len(d)>=14 and d['hook_missed']==0"

# The hostile name, while the monitors listen: text escapes it, JSON stays
# valid UTF-8 (U+FFFD for the 0xff; the ESC as \u001b).
hostile_n=6
if [ -n "$FTQPS" ]; then
	# stdin /dev/null: --hold lets go on SIGTERM only
	"$FTQPS" --no-connect -n 1 --iters 0 --hold --timeout-s 120 --comm "$HOSTILE" \
		</dev/null >"$OUT/hostile.json" 2>"$OUT/hostile.err" &
	hq=$!
	bg_add "$hq"
	wait_for 30 grep -q '^{' "$OUT/hostile.json" || log "ft_qps --comm: $(cat "$OUT/hostile.err")"
	ft qp_hostile qp show pid "$hq"
	ktap_result "comm set by prctl: qp show escapes it, no ESC or 0xff byte" escaped "$OUT/qp_hostile.out"
	ft qp_hostile_s -s qp show pid "$hq"
	ktap_result "comm set by prctl: -s qp show escapes it" escaped "$OUT/qp_hostile_s.out"
	ft qp_hostile_j -j qp show pid "$hq"
	ktap_result "comm set by prctl: -j qp show is UTF-8 JSON, comm U+FFFD ESC [2Jx" \
		python3 -c 'import json, sys
d = json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))
assert len(d) == 1 and d[0]["comm"] == "\ufffd\x1b[2Jx", d' "$OUT/qp_hostile_j.out"
	ft qp_all_j -j qp show
	ktap_result "-j qp show, every QP: strict UTF-8 JSON" json_utf8 "$OUT/qp_all_j.out"
	ft top_hostile top -b iterations 1 interval 200
	ktap_result "comm set by prctl: top -b escapes it" escaped "$OUT/top_hostile.out"
	ft top_hostile_j -j top iterations 1 interval 200
	ktap_result "comm set by prctl: -j top is strict UTF-8 JSON" json_lines_utf8 "$OUT/top_hostile_j.out"
	kill "$hq"
	wait "$hq" || true
else
	for ((i = 0; i < hostile_n; i++)); do
		ktap_skip "comm set by prctl ($i)" "ft_qps not built (make -C selftests/progs)"
	done
fi

sleep 1
kill "$mon" "$mon2"
mrc=0
wait "$mon" || mrc=$?
wait "$mon2" || true
echo "# monitor (-j):"; sed -n '1,20s/^/#   /p' "$OUT/monitor.out"; sed 's/^/#   stderr: /' "$OUT/monitor.err"
echo "# monitor (text):"; sed -n '1,20s/^/#   /p' "$OUT/monitor_txt.out"
ktap_result "monitor exits 0 on SIGTERM" test $mrc = 0
ktap_result "monitor -j: one valid object per line, qp-create and qp-destroy seen" \
	python3 -c "
import json
ev=[json.loads(l) for l in open('$OUT/monitor.out')]
kinds={e['kind'] for e in ev}
assert 'qp-create' in kinds and 'qp-destroy' in kinds, kinds
assert all('seq' in e for e in ev)"
ktap_result "monitor events filter: only the kinds asked for" \
	python3 -c "
import re
for l in open('$OUT/monitor_txt.out'):
    assert re.search(r' (qp-create|qp-destroy|dropped) ', l), l"
if [ -n "$FTQPS" ]; then
	ktap_result "monitor: the prctl comm of ft_qps's QP escaped, no ESC or 0xff byte" \
		escaped "$OUT/monitor_txt.out"
	ktap_result "monitor -j: every line strict UTF-8 JSON, the prctl comm as U+FFFD ESC [2Jx" \
		python3 -c 'import json, sys
ev = [json.loads(l) for l in open(sys.argv[1], "rb").read().decode("utf-8").splitlines()]
assert any(e.get("comm") == "\ufffd\x1b[2Jx" for e in ev)' "$OUT/monitor.out"
else
	ktap_skip "monitor: the prctl comm escaped" "ft_qps not built"
	ktap_skip "monitor -j: the prctl comm in UTF-8 JSON" "ft_qps not built"
fi
"$FT" -j monitor --count 1 events qp-create >"$OUT/mon_count.out" 2>&1 &
mpid=$!
bg_add "$mpid"
sleep 1
peer -t 60 "ib_write_bw -d rxe0 -x 1 -s 1024 -n 5 -F" >/dev/null 2>&1 &
srv=$!
bg_add "$srv"
wait_for 60 perftest_listening || log "server not listening after 60 s"
timeout 60 ib_write_bw -d rxe0 -x 1 -s 1024 -n 5 -F "$FT_PEER_IP" >/dev/null 2>&1 ||
	log "ib_write_bw -n 5 failed"
wait "$srv" || true
timeout 10 tail --pid="$mpid" -f /dev/null || true
rc=0
wait "$mpid" || rc=$?
sed 's/^/#   count 1: /' "$OUT/mon_count.out"
ktap_result "monitor --count 1 exits 0 after one event" \
	test $rc = 0 -a "$(wc -l <"$OUT/mon_count.out")" = 1

ktap_finished
