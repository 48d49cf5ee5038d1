#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The CLI at scale, in the QEMU test bed: 100,000 QPs listed, timed against
# rdma(8), and dumps interrupted by QPs coming and going.
# timeout=1500
#
#   T=$PWD/user/tests/vm_scale.sh selftests/qemu/vm-test.sh KVER
#
# Times are TCG times: only the ratio to "rdma -j resource show qp" means
# anything.  Needs ft_qps from selftests/progs (make -C selftests).
set -euo pipefail
. "$(readlink -f "${FT_REPO:?}")/selftests/lib.sh"

require_module fabtrace
require_cmd rdma python3
FT=$FT_REPO/user/fabtrace
require_progs
QPS=$FT_PROGS/ft_qps
N=${FT_SCALE_QPS:-100000}
OUT=${FT_OUT:-/tmp}/vm_scale
mkdir -p "$OUT"

# timed CMD...: $t = wall seconds of CMD, $rc its status, stdout in $OUT/last.out
timed() {
	local t0 t1

	t0=$(date +%s.%N)
	rc=0
	"$@" >"$OUT/last.out" 2>"$OUT/last.err" || rc=$?
	t1=$(date +%s.%N)
	t=$(python3 -c "print(f'{$t1 - $t0:.2f}')")
	sed 's/^/#   stderr: /' "$OUT/last.err"
}

ktap_plan 8
modprobe fabtrace
ktap_assert "rxe0 up" rxe_up self

# --no-connect: N QPs left in INIT, held until killed.
"$QPS" --no-connect -n "$N" --iters 0 --hold --timeout-s 0 >"$OUT/qps.json" 2>"$OUT/qps.err" &
hold=$!
bg_add "$hold"
have_all() { [ "$(python3 -c "import json; print(json.load(open('$OUT/stats.json'))['qps'])" 2>/dev/null)" -ge "$N" ]; }
poll() { "$FT" -j stats >"$OUT/stats.json" 2>/dev/null && have_all; }
ktap_assert "$N QPs created" wait_for 600 poll

timed "$FT" -j qp show; t_ft=$t
/usr/bin/time -f "# fabtrace -j qp show: user %Us sys %Ss wall %es maxrss %MkB" "$FT" -j qp show 2>&1 >/dev/null | tail -n 1
/usr/bin/time -f "# rdma -j resource show qp: user %Us sys %Ss wall %es maxrss %MkB" rdma -j resource show qp 2>&1 >/dev/null | tail -n 1
cp "$OUT/last.out" "$OUT/qp.json"
ktap_result "fabtrace -j qp show: exit 0" test "$rc" = 0
log "fabtrace -j qp show: ${t_ft}s, $(wc -c <"$OUT/qp.json") bytes"
ktap_result "valid JSON with every QP" python3 -c "
import json
d = json.load(open('$OUT/qp.json'))
assert len(d) >= $N, len(d)
k = {(q['dev_index'], q['qpn'], q['create_time']) for q in d}
assert len(k) == len(d)"
timed "$FT" qp show; t_txt=$t
log "fabtrace qp show (table): ${t_txt}s, $(wc -l <"$OUT/last.out") lines"
timed rdma -j resource show qp; t_rdma=$t
ktap_result "rdma -j resource show qp ran" test "$rc" = 0
log "rdma -j resource show qp: ${t_rdma}s, $(wc -c <"$OUT/last.out") bytes"
timed "$FT" -j qp show sort qpn limit 10; t_sort=$t
log "fabtrace -j qp show sort qpn limit 10: ${t_sort}s"
timed "$FT" -j qp show qpn 1000-1999,50000-50099; t_range=$t
log "fabtrace -j qp show qpn 1000-1999,50000-50099: ${t_range}s"
ktap_result "two ranges: at most 1100 QPs, all in range" python3 -c "
import json
d = json.load(open('$OUT/last.out'))
assert 0 < len(d) <= 1100 and all(1000 <= q['qpn'] <= 1999 or 50000 <= q['qpn'] <= 50099 for q in d)"
ktap_result "fabtrace is not slower than rdma (x1.5)" \
	python3 -c "import sys; sys.exit(0 if $t_ft <= 1.5 * $t_rdma else 1)"

kill "$hold"
wait "$hold" || true
# Churn: QPs created and destroyed while dumps run; every dump must still
# be valid JSON (interrupted ones are retried, then accepted with a warning).
( for _ in $(seq 1 20); do "$QPS" --no-connect -n 200 --iters 0 --destroy-after 50 >/dev/null 2>&1; done ) &
churn=$!
bg_add "$churn"
bad=0 warned=0
while kill -0 "$churn" 2>/dev/null; do
	"$FT" -j qp show >"$OUT/churn.json" 2>"$OUT/churn.err" || bad=1
	# valid, and no QP twice (rxe hands out QP numbers without reuse here)
	python3 -c "
import json
d = json.load(open('$OUT/churn.json'))
k = [(q['dev_index'], q['qpn']) for q in d]
assert len(k) == len(set(k)), 'duplicates'" || bad=1
	grep -q "dump was interrupted" "$OUT/churn.err" && warned=$((warned + 1))
done
wait "$churn" || true
log "dumps during churn: $warned accepted with the interrupted warning"
ktap_result "dumps during QP churn: exit 0, valid JSON, no QP twice" test "$bad" = 0
ktap_finished
