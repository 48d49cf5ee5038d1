#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The suite installed as kselftests and run by the kernel's own runner on a
# node, as an operator would: make -C selftests install INSTALL_PATH=DIR,
# then DIR/run_kselftest.sh -t fabtrace:TEST in an environment with none of
# the harness's variables (lib.sh derives the netdev itself).  A single-node
# test (fabtrace_load.sh) must give the verdict run_tests.sh gives it here;
# a two-node test (rxe_wire.sh) must skip, saying that FT_PEER_SSH names
# the peer.  (One single-node test: each runs twice here, under both
# runners, and make test's time is counted.)
# The tests it runs so run on every kernel themselves: this is the
# install's test, run on one kernel of a vm-test run (kindep_here).
# timeout=600
set -euo pipefail
. "$(dirname "$(readlink -f "$0")")/lib.sh"

kindep_here || skip_all "$KINDEP_WHY"

SINGLE=(fabtrace_load.sh)
PEERED=rxe_wire.sh
REPO=${FT_REPO:-$(readlink -f "$(dirname "$(readlink -f "$0")")/..")}
BUILD=${FT_BUILD:-$REPO/build}
[ -x "$BUILD/tools/kselftest-runner/run_kselftest.sh" ] ||
	skip_all "no kernel runner in $BUILD/tools/kselftest-runner (make -C selftests install, or make check, on the host extracts it)"
require_module fabtrace
require_cmd make

T=$(mktemp -d)
KS=$T/kselftests
cleanup() {
	rm -rf "$T"
}
at_exit cleanup

verdicts() {
	grep -E '^(not )?ok [0-9]+ selftests: ' "$1" | sed 's/^\(not \)\{0,1\}ok [0-9]* //; s/ # SKIP.*/ # SKIP/'
}

ktap_plan 6
t0=$SECONDS
ktap_assert "make -C selftests install INSTALL_PATH=$KS" \
	run make -s -C "$REPO/selftests" --no-print-directory install INSTALL_PATH="$KS" BUILD="$BUILD"
log "install took $((SECONDS - t0))s"

# An operator's shell: no FT_* at all.  Through a pipe: the runner appends
# its log lines to /dev/stdout, which a file there would have overwritten.
args=()
for t in "${SINGLE[@]}" "$PEERED"; do args+=(-t "fabtrace:$t"); done
t0=$SECONDS
rc=0
(cd "$T" && env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	HOME=/root LANG=C.UTF-8 TERM=dumb "$KS/run_kselftest.sh" "${args[@]}") 2>&1 |
	cat >"$T/kselftest.tap" || rc=$?
sed 's/^/# | /' "$T/kselftest.tap"
log "run_kselftest.sh took $((SECONDS - t0))s, exit $rc"
ktap_result "run_kselftest.sh: TAP 13, a plan and a result for each test" \
	sh -c "head -n 2 '$T/kselftest.tap' | tr '\n' ' ' | grep -qx 'TAP version 13 1..2 ' &&
		[ \$(grep -cE '^(not )?ok [0-9]+ selftests: fabtrace: ' '$T/kselftest.tap') = 2 ]"

# The same single-node tests through run_tests.sh, as make test runs them
# (FT_OUT unset: this run's results.tap and logs stay the outer run's).
t0=$SECONDS
env -u FT_OUT "$REPO/selftests/run_tests.sh" -o "$T/run_tests.tap" "${SINGLE[@]}" \
	>/dev/null 2>&1 || true
log "run_tests.sh took $((SECONDS - t0))s"
sed 's/^/# run_tests.sh: /' <(grep -E '^(not )?ok ' "$T/run_tests.tap")
ktap_result "single-node tests: run_kselftest.sh's verdicts are run_tests.sh's" \
	diff <(verdicts "$T/run_tests.tap") <(verdicts "$T/kselftest.tap" | grep -v "$PEERED")
ktap_result "${SINGLE[0]} passes" \
	grep -qx "ok [0-9]* selftests: fabtrace: ${SINGLE[0]}" "$T/kselftest.tap"
ktap_result "$PEERED skips without FT_PEER_SSH" \
	grep -qE "^ok [0-9]+ selftests: fabtrace: $PEERED # SKIP" "$T/kselftest.tap"
ktap_result "and says FT_PEER_SSH names the peer" \
	grep -qF "SKIP no peer node: set FT_PEER_SSH=" "$T/kselftest.tap"
ktap_finished
