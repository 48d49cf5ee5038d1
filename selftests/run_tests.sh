#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# TAP 13 runner for the fabtrace selftests (kselftest runner.sh semantics).
#
#   run_tests.sh [-o TAPFILE] [TEST...]       (or T="TEST..." run_tests.sh)
#
# Runs the tests `make list-tests` names (TEST_PROGS, then TEST_GEN_PROGS),
# or the subset given as arguments or in $T (basenames, also of tests kept
# out of the default run, or paths).  Each test
# gets the timeout from ./settings (timeout=N), or its own "# timeout=N" line
# (C tests: in their .c source).  Exit status 4 is a skip, and a skip must say
# why: the runner takes the reason from the test's last "SKIP" line and fails
# a skip that gives none.  A test's output becomes TAP diagnostics ("# ...").
# The TAP stream also goes to TAPFILE, default $FT_OUT/results.tap when
# FT_OUT is set; each test's raw output to $FT_OUT/logs/NAME.log.
# Exit status: 0 if no test failed, 1 otherwise.
set -euo pipefail

SELFTESTS=$(dirname "$(readlink -f "$0")")
KSFT_SKIP=4
# The test's process group gets this long to exit after SIGTERM.
KILL_GRACE=10

tap=${FT_OUT:+$FT_OUT/results.tap}
while getopts "o:h" opt; do
	case $opt in
	o) tap=$OPTARG ;;
	*) sed -n '4,18s/^# \{0,1\}//p' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || read -r -a args <<<"${T:-}"
[ $# -eq 0 ] || args=("$@")

mapfile -t all < <(make -s --no-print-directory -C "$SELFTESTS" list-tests)
tests=()
if [ "${#args[@]}" -eq 0 ]; then
	tests=("${all[@]}")
else
	for want in "${args[@]}"; do
		found=
		if [[ $want == */* ]]; then
			found=$(readlink -f "$want")
		else
			for t in "${all[@]}"; do
				[ "${t##*/}" != "$want" ] || found=$t
			done
			# a script here that the default run leaves out
			[ -n "$found" ] || [ ! -x "$SELFTESTS/$want" ] || found=$SELFTESTS/$want
		fi
		[ -n "$found" ] || { echo "run_tests.sh: unknown test '$want'" >&2; exit 2; }
		tests+=("$found")
	done
fi

default_timeout=$(sed -n 's/^timeout=\([0-9]\+\)$/\1/p' "$SELFTESTS/settings")
default_timeout=${default_timeout:-45}

logdir=${FT_OUT:+$FT_OUT/logs}
[ -n "$logdir" ] || logdir=$(mktemp -d)
mkdir -p "$logdir"
if [ -n "$tap" ]; then
	mkdir -p "$(dirname "$tap")"
	: >"$tap"
else
	tap=/dev/null
fi

emit() {
	printf '%s\n' "$*" | tee -a "$tap"
}

test_timeout() {
	local src=$1

	[ -f "$src" ] || src=$SELFTESTS/${1##*/}.c
	sed -n 's/^# timeout=\([0-9]\+\)$/\1/p;s/^\/\/ timeout=\([0-9]\+\)$/\1/p' \
		"$src" 2>/dev/null | head -n 1
}

# Runs one test in its own process group (timeout(1) makes one), prints its
# output as diagnostics, then kills whatever the test left running: a stray
# background `peer` or tcpdump must not outlive its test or hold the pipe.
run_one() {
	local path=$1 to=$2 log=$3

	{
		set +e
		cd "$(dirname "$path")"
		timeout --kill-after=$KILL_GRACE "$to" "$path" </dev/null 2>&1 &
		local tp=$! rc
		wait "$tp"
		rc=$?
		if kill -TERM -- "-$tp" 2>/dev/null; then
			local end=$((SECONDS + KILL_GRACE))
			while kill -0 -- "-$tp" 2>/dev/null && [ $SECONDS -lt $end ]; do
				sleep 0.1
			done
			kill -KILL -- "-$tp" 2>/dev/null
		fi
		exit "$rc"
	} | tee "$log" | sed -u 's/^/# /' | tee -a "$tap"
	return "${PIPESTATUS[0]}"
}

pass=0 fail=0 skip=0 n=0
emit "TAP version 13"
emit "# fabtrace selftests on $(uname -r), node ${FT_ROLE:-$(hostname)}"
emit "1..${#tests[@]}"
for path in "${tests[@]}"; do
	n=$((n + 1))
	name=${path##*/}
	desc="selftests: fabtrace: $name"
	to=$(test_timeout "$path")
	to=${to:-$default_timeout}
	# a slower kernel (the debug one: KASAN, lockdep) scales every limit
	to=$((to * ${FT_TIMEOUT_SCALE:-1}))
	log=$logdir/$name.log
	emit "# $desc (timeout ${to}s)"
	start=$SECONDS
	if [ ! -x "$path" ]; then
		rc=127
		echo "$path: missing or not executable" >"$log"
		emit "# $path: missing or not executable (make -C selftests all?)"
	else
		rc=0
		run_one "$path" "$to" "$log" || rc=$?
	fi
	took="$((SECONDS - start))s"
	case $rc in
	0)
		pass=$((pass + 1))
		emit "ok $n $desc"
		;;
	"$KSFT_SKIP")
		# "1..0 # SKIP why", "ok 3 x # SKIP why", "# SKIP: why" all count.
		reason=$(sed -n 's/.*#[[:space:]]*SKIP[:]\{0,1\}[[:space:]]*\(.*[^[:space:]]\)[[:space:]]*$/\1/p' \
			"$log" | tail -n 1)
		if [ -n "$reason" ]; then
			skip=$((skip + 1))
			emit "ok $n $desc # SKIP $reason"
		else
			fail=$((fail + 1))
			emit "not ok $n $desc # skipped without saying why"
		fi
		;;
	124 | 137)
		fail=$((fail + 1))
		emit "not ok $n $desc # TIMEOUT ${to}s"
		;;
	*)
		fail=$((fail + 1))
		emit "not ok $n $desc # exit=$rc"
		;;
	esac
	emit "# $name took $took"
done
emit "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:$skip error:0"
[ "$fail" -eq 0 ]
