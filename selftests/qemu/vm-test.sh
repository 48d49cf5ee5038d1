#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the fabtrace selftests in two QEMU nodes (A, B) for each given kernel.
#
#   vm-test.sh [-j N] [-q] KVER [KVER...]
#   vm-test.sh --self-test [-j N] [-q] KVER [KVER...]
#
#   -j N         boot up to N kernels' node pairs at once (default 1: one
#                kernel after the other).  On the 2-core host, -j 2 took
#                0-42% less wall time, the gain coming only while the host
#                was busy with other work (README "Sizing").
#   -q           do not copy node A's console to the terminal while it runs
#   --self-test  prove the harness itself: run tests that pass, fail, skip
#                and inject a kernel WARNING, and check the run reports each
#                (exit 0 when the harness behaved)
#
# Environment: T="test ..." runs a subset; BUILD (default <repo>/build);
# FT_VM_JOBS (-j), FT_VM_SMP, FT_VM_MEM, FT_VM_TIMEOUT, FT_VM_BOOT_TIMEOUT,
# FT_VM_APPEND (see nodes.sh).
# Exit status: 0 when every kernel passed (tests, boot, clean kernel logs).
set -euo pipefail

. "$(dirname "$(readlink -f "$0")")/nodes.sh"

# The comment block at the top of this file is the help text.
usage() {
	awk 'NR > 2 && !/^#/ { exit } NR > 2 { sub(/^# ?/, ""); print }' "$0"
}

jobs=${FT_VM_JOBS:-1} stream=1 selftest=0
while [ $# -gt 0 ]; do
	case $1 in
	-j) jobs=${2:?-j needs a number}; shift ;;
	-j[0-9]*) jobs=${1#-j} ;;
	-q) stream=0 ;;
	--self-test) selftest=1 ;;
	-h | --help) usage; exit 0 ;;
	-*) echo "vm-test.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
	shift
done
ftvm_check_kvers vm-test.sh "$@" || { usage >&2; exit 2; }
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "vm-test.sh: -j wants a number >= 1" >&2; exit 2; }
[ "$jobs" -le $# ] || jobs=$#
parallel=0
[ "$jobs" -eq 1 ] || parallel=1

if [ "$selftest" = 1 ]; then
	T=$(printf '%s ' "$FTVM_DIR"/selftest/*.sh)
fi
export T=${T:-}
# Parts of tests that do not depend on the kernel run on one kernel of
# the run: the kselftest install on the first (6.1's nodes run the rest
# of the suite faster than 6.12's), export.sh's Prometheus server on the
# last (kindep_here last): with both on 6.1, its lane took 2,022 s and
# 6.12's 1,956 s.  The others skip them and say where they ran.
FT_KINDEP_ON=
FT_KINDEP_LAST=
[ $# -lt 2 ] || { FT_KINDEP_ON=$1; FT_KINDEP_LAST=${!#}; }
export FT_KINDEP_ON FT_KINDEP_LAST
# The tests' CPU model (nodes.sh): on qemu64, cnp.sh and qp_oracles.sh
# took 172 s on 6.12 alone on the host, 192 s on max (boots 9 s, 12 s);
# adding pclmulqdq and SSE4.2 to qemu64 gained nothing more (171 s).
export FT_VM_CPU=${FT_VM_CPU:-qemu64}

# The C helpers (ftpeer) must be current; cheap when they are.
make -s -C "$FT_REPO/selftests" BUILD="$BUILD" all

# After a self-test run: did the harness notice everything it should have?
check_selftest() {
	local tap=$FTVM_OUT/results.tap ok=1

	expect() {
		local desc=$1

		shift
		if "$@" >/dev/null 2>&1; then
			echo "  ok:   $desc"
		else
			echo "  FAIL: $desc"
			ok=0
		fi
	}
	echo "harness self-test ($FTVM_KVER):"
	expect "the run as a whole failed" test "$FTVM_RESULT" = FAIL
	expect "the failing test failed the runner" test "$FTVM_STATUS" = 1
	expect "the failing test is 'not ok'" grep -E '^not ok [0-9]+ .*t_fail\.sh # exit=1$' "$tap"
	expect "the skipping test is a skip with its reason" \
		grep -E '^ok [0-9]+ .*t_skip\.sh # SKIP needs a flux capacitor$' "$tap"
	expect "a skip without a reason fails" \
		grep -E '^not ok [0-9]+ .*t_skip_silent\.sh # skipped without saying why$' "$tap"
	expect "passing tests pass (peer, both links)" grep -E '^ok [0-9]+ .*t_pass\.sh$' "$tap"
	expect "the injected WARNING was caught" \
		grep -F 'WARNING: CPU: 0 PID: 1 at fake' "$FTVM_VM/kernel-issues.txt"
	expect "test output saying WARNING was not" \
		bash -c "! grep -F 'not a kernel warning' '$FTVM_VM/kernel-issues.txt'"
	expect "both nodes booted" test -n "$FTVM_BOOT_A" -a -n "$FTVM_BOOT_B"
	[ "$ok" = 1 ]
}

# One kernel, in a subshell so its cleanup trap is its own.  Writes the
# summary line's fields to $BUILD/vm/KVER/summary.
run_kernel() {
	local kver=$1 tap rc=0

	FTVM_KVER=$kver
	trap ftvm_cleanup EXIT
	trap 'FTVM_WHY+="interrupted; "; exit 130' TERM
	# shellcheck disable=SC2034 # read by ftvm_run
	FTVM_STREAM=$stream FTVM_PREFIX=''
	# shellcheck disable=SC2034
	[ "$parallel" = 0 ] || FTVM_PREFIX="[${kver%%-*}] "
	mkdir -p "$BUILD/vm/$kver"
	rm -f "$BUILD/vm/$kver/summary" "$BUILD/vm/$kver/failures"
	ftvm_run "$kver" "$FT_REPO/selftests/run_tests.sh" || rc=1
	tap=$FTVM_OUT/results.tap
	if [ -s "$FTVM_VM/kernel-issues.txt" ]; then
		echo "vm-test: $kver: kernel log problems:" >&2
		sed 's/^/    /' "$FTVM_VM/kernel-issues.txt" >&2
	fi
	{
		echo "result=$FTVM_RESULT"
		# Top-level TAP results only; a test's own are indented as "# ".
		awk '/^ok [0-9]+ .* # SKIP/ { s++; next } /^ok [0-9]+ / { p++ }
		     /^not ok [0-9]+ / { f++ }
		     END { printf "pass=%d skip=%d fail=%d\n", p, s, f }' "$tap" 2>/dev/null ||
			echo "pass=0 skip=0 fail=0"
		echo "wall=$FTVM_WALL boot_a=$FTVM_BOOT_A boot_b=$FTVM_BOOT_B ready=$FTVM_READY"
		printf 'why=%q\n' "${FTVM_WHY%; }"
	} >"$FTVM_VM/summary"
	# What failed and why, in the lines a CI log shows: its tail.
	: >"$FTVM_VM/failures"
	for t in $(sed -n 's/^not ok [0-9]* selftests: [^:]*: \([^ ]*\).*/\1/p' "$tap" 2>/dev/null); do
		echo "  $kver: $t:"
		# its failed results, or where it stopped (a bail-out, set -e)
		{ grep -B1 -E '^not ok' "$FTVM_OUT/logs/$t.log" ||
			tail -n 4 "$FTVM_OUT/logs/$t.log"; } 2>/dev/null | grep -v '^--$' |
			head -n 12 | sed 's/^/      /'
	done >>"$FTVM_VM/failures"
	if [ "$selftest" = 1 ]; then
		check_selftest >>"$FTVM_VM/summary.selftest" 2>&1 && rc=0 || rc=1
	fi
	return $rc
}

kids=()
stop() {
	trap - INT TERM
	echo "vm-test: interrupted, stopping" >&2
	[ ${#kids[@]} -eq 0 ] || kill -TERM "${kids[@]}" 2>/dev/null
	wait
	exit 130
}
trap stop INT TERM

start=$SECONDS
for k in "$@"; do
	rm -f "$BUILD/vm/$k/summary.selftest"
	# At most $jobs kernels at once.
	while [ "$(jobs -pr | wc -l)" -ge "$jobs" ]; do
		wait -n || true
	done
	[ "$parallel" = 1 ] || echo "vm-test: ==== $k ====" >&2
	(run_kernel "$k") &
	kids+=($!)
done
wait || true

rc=0
echo
echo "==== fabtrace vm-test summary (${#} kernel(s), $((SECONDS - start))s, smp=$FT_VM_SMP mem=${FT_VM_MEM}M, -j $jobs) ===="
printf '%-24s %-6s %5s %5s %5s %8s %8s %8s %8s\n' kernel result pass fail skip wall "boot A" "boot B" "runner"
for k in "$@"; do
	result=FAIL pass=0 fail=0 skip=0 wall='?' boot_a='' boot_b='' ready=''
	why="no summary (crashed?)"
	# shellcheck source=/dev/null
	[ -f "$BUILD/vm/$k/summary" ] && . "$BUILD/vm/$k/summary"
	printf '%-24s %-6s %5s %5s %5s %8s %8s %8s %8s\n' "$k" "$result" \
		"$pass" "$fail" "$skip" "${wall}s" "${boot_a:+${boot_a}s}" \
		"${boot_b:+${boot_b}s}" "${ready:+${ready}s}"
	[ -z "$why" ] || echo "    why: $why"
	if [ "$selftest" = 1 ]; then
		cat "$BUILD/vm/$k/summary.selftest" 2>/dev/null || echo "  no self-test result"
		grep -q FAIL "$BUILD/vm/$k/summary.selftest" 2>/dev/null && rc=1
		[ -f "$BUILD/vm/$k/summary.selftest" ] || rc=1
	elif [ "$result" != PASS ]; then
		rc=1
	fi
done
echo "boot = QEMU start to node up; runner = QEMU start to run_tests.sh on A"
if [ "$selftest" = 1 ]; then
	# The runs above were meant to FAIL; this line is the verdict.
	echo "harness self-test: $([ "$rc" = 0 ] && echo PASS || echo FAIL)"
fi
echo "logs: $BUILD/vm/<kernel>/ node-{a,b}.console kernel-issues.txt out/results.tap out/logs/ out/node-{a,b}.dmesg"
for k in "$@"; do
	[ -s "$BUILD/vm/$k/failures" ] || continue
	echo "failed tests ($k):"
	cat "$BUILD/vm/$k/failures"
done
exit $rc
