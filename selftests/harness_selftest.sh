#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host-side self-test of the test harness: log scanner, TAP runner, ftpeer.
#
# Needs no VM and runs in seconds (make -C selftests host-check).  The same
# properties are proven end to end inside QEMU by `vm-test.sh --self-test`.
set -euo pipefail

HERE=$(dirname "$(readlink -f "$0")")
. "$HERE/lib.sh"
FTPEER=${FTPEER:-$HERE/../build/selftests/ftpeer}
[ -x "$FTPEER" ] || fail_all "no ftpeer at $FTPEER (make -C selftests all)"

work=$(mktemp -d "${TMPDIR:-/tmp}/ft-harness.XXXXXX")
agent=
cleanup() {
	[ -z "$agent" ] || kill "$agent" 2>/dev/null || true
	rm -rf "$work"
}
at_exit cleanup

ktap_plan 47

# ---- scan-logs.sh ---------------------------------------------------------
scan() { "$HERE/qemu/scan-logs.sh" "$@" >"$work/scan.out"; }
caught() {
	printf '[    1.000000] booting\n[   12.345678] %s\n' "$1" >"$work/k.log"
	! scan "$work/k.log" && grep -qF -- "$1" "$work/scan.out"
}
printf '[    0.000000] Linux version 6.x\n[    1.5] virtio_net virtio0 eth0: renamed\n' >"$work/clean.log"
ktap_result "scan: a clean boot log passes" scan "$work/clean.log"
for line in \
	"WARNING: CPU: 0 PID: 1 at fake" \
	"BUG: kernel NULL pointer dereference, address: 0000000000000008" \
	"Oops: 0002 [#1] PREEMPT SMP NOPTI" \
	"general protection fault, probably for non-canonical address 0xdead000000000100" \
	"WARNING: possible circular locking dependency detected" \
	"rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:" \
	"watchdog: BUG: soft lockup - CPU#1 stuck for 26s! [kworker/1:1:42]" \
	"INFO: task modprobe:321 blocked for more than 120 seconds." \
	"UBSAN: array-index-out-of-bounds in kmod/qp.c:42:7" \
	" Call Trace:"; do
	ktap_result "scan: catches '${line# }'" caught "$line"
done
printf 'WARNING: this is test output, not the kernel\n[    2.0] ok\n' >"$work/user.log"
ktap_result "scan: ignores non-kernel lines that say WARNING" scan "$work/user.log"
printf '[    3.0] WARNING: CPU: 0 PID: 1 at known-benign\n' >"$work/allow.log"
ktap_result "scan: FT_LOG_ALLOW exempts an understood line" \
	env FT_LOG_ALLOW='known-benign' "$HERE/qemu/scan-logs.sh" "$work/allow.log"
ktap_result "scan: missing files are skipped" scan "$work/clean.log" "$work/absent.dmesg"
printf '[    0.5] kmemleak: Kernel memory leak detector initialized (mem pool available: 15806)\n[    0.6] rcu: \tRCU lockdep checking is enabled.\n' >"$work/debug.log"
ktap_result "scan: the debug kernel's boot banners pass" scan "$work/debug.log"
ktap_result "scan: catches a kmemleak report" caught "kmemleak: 3 new suspected memory leaks (see /sys/kernel/debug/kmemleak)"

# ---- run_tests.sh -----------------------------------------------------------
mk() {
	printf '#!/bin/bash\n%s\n' "$2" >"$work/$1"
	chmod +x "$work/$1"
}
mk pass.sh 'echo hello; exit 0'
mk fail.sh 'echo broken >&2; exit 1'
mk skip.sh '. '"$HERE"'/lib.sh; skip_all "no flux capacitor"'
mk skip_silent.sh 'exit 4'
mk slow.sh '# timeout=1
sleep 30'
mk leftover.sh 'sleep 300 & echo "left $!" >'"$work"'/leftover.pid; exit 0'
rc=0
FT_OUT='' "$HERE/run_tests.sh" -o "$work/out.tap" \
	"$work"/{pass,fail,skip,skip_silent,slow,leftover}.sh >"$work/runner.out" 2>&1 || rc=$?
tap=$work/out.tap
ktap_result "runner: exits 1 when a test failed" test "$rc" -eq 1
ktap_result "runner: TAP 13 header and plan" \
	bash -c "head -n 3 '$tap' | grep -qx 'TAP version 13' && grep -qx '1..6' '$tap'"
ktap_result "runner: passing test is ok" grep -qE '^ok 1 .*pass\.sh$' "$tap"
ktap_result "runner: test output becomes '# ' diagnostics" grep -qx '# hello' "$tap"
ktap_result "runner: failing test is not ok with its status" \
	grep -qE '^not ok 2 .*fail\.sh # exit=1$' "$tap"
ktap_result "runner: skip carries the test's reason" \
	grep -qE '^ok 3 .*skip\.sh # SKIP no flux capacitor$' "$tap"
ktap_result "runner: skip without a reason fails" \
	grep -qE '^not ok 4 .*skip_silent\.sh # skipped without saying why$' "$tap"
ktap_result "runner: '# timeout=N' in a test is honoured" \
	grep -qE '^not ok 5 .*slow\.sh # TIMEOUT 1s$' "$tap"
left=$(sed -n 's/^left //p' "$work/leftover.pid")
ktap_result "runner: a test's leftover processes are killed" \
	bash -c "! kill -0 $left 2>/dev/null"
ktap_result "runner: totals line" \
	grep -qx '# Totals: pass:2 fail:3 xfail:0 xpass:0 skip:1 error:0' "$tap"
ktap_result "runner: stdout carries the same TAP" \
	bash -c "grep -v '^# .* took ' '$work/runner.out' | diff -q - <(grep -v '^# .* took ' '$tap')"

# ---- no kernel: loud, never a silent success ---------------------------------
# The Makefile once handed demo.sh an empty kernel list (headers installed by
# the same make run, after it had looked for them).
loud() {
	local want=$1 rc=0

	shift
	"$@" >"$work/loud.out" 2>&1 || rc=$?
	[ "$rc" -ne 0 ] && grep -q "$want" "$work/loud.out"
}
ktap_result "demo.sh: an empty kernel argument fails and says why" \
	loud 'empty kernel name.*make deps' "$HERE/qemu/demo.sh" ''
ktap_result "demo.sh: no kernel argument fails and says why" \
	loud 'no kernel given.*make deps' "$HERE/qemu/demo.sh"
ktap_result "vm-test.sh: an empty kernel argument fails and says why" \
	loud 'empty kernel name.*make deps' "$HERE/qemu/vm-test.sh" ''
ktap_result "vm-test.sh: a kernel without an image fails and says why" \
	loud 'no kernel image' "$HERE/qemu/vm-test.sh" 0.0-no-such-kernel
ktap_result "make: no kernel headers fails and names make deps" \
	loud "no kernel headers.*make deps" make -s -C "$HERE/.." demo-run KVERS=

# ---- lib.sh: the end of a test -------------------------------------------
# A test's background jobs are stopped and its cleanups run, last added
# first, however it ends; its exit status stands.  Under set -e, a command
# that fails ends it with a bail-out that names it, never with status 4.
mk ends.sh '. '"$HERE"'/lib.sh
set -euo pipefail
sleep 301 & bg_add $!
echo "job $!" >'"$work"'/ends.pid
at_exit echo first added
at_exit eval "echo second added; false"
echo body
exit ${1:-0}'
ends() {
	local want=$1 rc=0

	shift
	"$work/ends.sh" "$@" >"$work/ends.out" 2>&1 || rc=$?
	[ "$rc" -eq "$want" ] || { log "exit status $rc, not $want"; return 1; }
	printf 'body\nsecond added\nfirst added\n' | diff - <(grep -v '^#' "$work/ends.out") &&
		! kill -0 "$(sed -n 's/^job //p' "$work/ends.pid")" 2>/dev/null
}
ktap_result "lib.sh: at the end, jobs stopped, cleanups last-first, status 0 kept" ends 0
ktap_result "lib.sh: the same after exit 3, which stands" ends 3 3
mk errexit.sh 'set -euo pipefail
. '"$HERE"'/lib.sh
echo before
sh -c "exit $1"
echo after'
errexit() {
	local want=$1 rc=0

	"$work/errexit.sh" "$2" >"$work/errexit.out" 2>&1 || rc=$?
	[ "$rc" -eq "$want" ] && ! grep -q after "$work/errexit.out" &&
		grep -qxF "Bail out! line 5: 'sh -c \"exit \$1\"' failed (exit status $2)" "$work/errexit.out"
}
ktap_result "lib.sh: set -e: a failing command bails out and says which" errexit 2 2
ktap_result "lib.sh: set -e: a command's status 4 is a failure, not a skip" errexit 1 4

# ---- ftpeer over loopback ---------------------------------------------------
port=$((20000 + $$ % 20000))
"$FTPEER" serve -a 127.0.0.1 -p "$port" >"$work/agent.log" 2>&1 &
agent=$!
p() { "$FTPEER" -h 127.0.0.1 -p "$port" "$@"; }
status_is() {
	local want=$1 rc=0

	shift
	p "$@" >/dev/null 2>&1 || rc=$?
	[ "$rc" -eq "$want" ]
}
ktap_result "ftpeer: agent answers" p -w 10 true
ktap_result "ftpeer: remote exit status" status_is 3 'exit 3'
ktap_result "ftpeer: killed by a signal = 128+N" status_is 137 'kill -9 $$'
ktap_result "ftpeer: -t timeout = 124" status_is 124 -t 1 'sleep 30'
ktap_result "ftpeer: stdout and stderr stay apart" \
	test "$(p 'echo out; echo err >&2' 2>/dev/null)" = out
ktap_result "ftpeer: runs in the client's directory" \
	test "$(cd "$work" && p pwd)" = "$work"
leftovers_gone() { ! pgrep -f "^sleep 31[0-9]" >/dev/null; }
p 'sleep 311 & setsid sleep 312 & echo started' >/dev/null
ktap_result "ftpeer: background jobs and daemons die with the command" \
	wait_for 5 leftovers_gone
# `peer cmd &` runs the client in a subshell: killing that shell must stop
# the remote command as well.
p 'trap "echo got TERM; exit 7" TERM; sleep 313 & wait' >"$work/bg.out" &
bg=$!
wait_for 5 pgrep -f "^sleep 313" >/dev/null || true
kill "$bg"
wait "$bg" || true
ktap_result "ftpeer: killing a backgrounded client stops the remote command" \
	wait_for 5 leftovers_gone
ktap_result "ftpeer: the remote got SIGTERM first (could clean up)" \
	wait_for 5 grep -qx 'got TERM' "$work/bg.out"
ktap_result "ftpeer: no agent = 255" status_is 255 -p 1 -w 0 true
agent_gone() { ! kill -0 "$agent" 2>/dev/null; }
p --shutdown || true
ktap_result "ftpeer: --shutdown stops the agent" wait_for 5 agent_gone
agent=
ktap_finished
