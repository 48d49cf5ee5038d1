#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make -C selftests install INSTALL_PATH=DIR on the host (TAP, host only):
# the layout the kernel's selftests install gives, and the kernel's own
# runner (run_kselftest.sh from linux-source-6.12) running the installed
# tests.  The host has no fabtrace module and no peer, so the tests tried
# here skip; their verdicts must be the ones run_tests.sh gives the same
# tests in the tree, and the reasons they print must reach the TAP.
# selftests/kselftest_install.sh does it in a node, where they pass.
set -euo pipefail

HERE=$(dirname "$(readlink -f "$0")")
SELFTESTS=$(readlink -f "$HERE/..")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
KS=$T/ks
# a test that needs a peer and one that needs the module (and a test module)
PICK=(rxe_wire.sh multiport.sh)

. "$HERE/lib-tap.sh"

echo "TAP version 13"
echo "1..8"
if ! make -C "$SELFTESTS" --no-print-directory install INSTALL_PATH="$KS" >"$T/install.log" 2>&1; then
	tail -n 20 "$T/install.log" | sed 's/^/# /'
	echo "Bail out! make -C selftests install failed"
	exit 1
fi
ok "make -C selftests install INSTALL_PATH=DIR"

mapfile -t tests < <(make -s --no-print-directory -C "$SELFTESTS" list-tests | sed 's|.*/||')
layout() {
	local t bad=0 max

	for f in run_kselftest.sh kselftest/runner.sh kselftest/prefix.pl; do
		[ -e "$KS/$f" ] || { echo "# missing: $f"; bad=1; }
	done
	[ -x "$KS/run_kselftest.sh" ] || { echo "# run_kselftest.sh is not executable"; bad=1; }
	for t in "${tests[@]}" faults.sh; do
		[ -x "$KS/fabtrace/$t" ] || { echo "# missing or not executable: fabtrace/$t"; bad=1; }
	done
	for f in lib.sh lib-oracle.sh lib-cong.sh oracle.py config settings ftpeer nl_fuzz \
		build/selftests/progs/ft_qps build/selftests/nl_fuzz; do
		[ -e "$KS/fabtrace/$f" ] || { echo "# missing: fabtrace/$f"; bad=1; }
	done
	cmp -s "$SELFTESTS/config" "$KS/fabtrace/config" || { echo "# config differs"; bad=1; }
	max=$(sed -n 's/^timeout=//p' "$KS/fabtrace/settings")
	for t in "${tests[@]}"; do
		local want

		want=$(sed -n 's,^\(#\|//\) timeout=\([0-9]*\)$,\2,p' "$SELFTESTS/$t" \
			"$SELFTESTS/$t.c" 2>/dev/null | head -n 1)
		[ "${want:-0}" -le "${max:-0}" ] ||
			{ echo "# $t asks for ${want}s, settings gives ${max}s"; bad=1; }
	done
	return "$bad"
}
res "the kselftest layout: runner, tests, libraries, helpers, config, settings" layout
res "kselftest-list.txt is run_tests.sh's list, as fabtrace:TEST" \
	diff <(printf 'fabtrace:%s\n' "${tests[@]}") "$KS/kselftest-list.txt"
res "run_kselftest.sh -l lists it" diff <(printf 'fabtrace:%s\n' "${tests[@]}") \
	<("$KS/run_kselftest.sh" -l)
res "the installed lib.sh finds the helpers: FT_BUILD defaults to fabtrace/build" \
	test "$(env -u FT_BUILD -u FT_ROLE bash -c '. "$1"; echo "$FT_BUILD"' _ \
		"$KS/fabtrace/lib.sh")" = "$KS/fabtrace/build"

# The same tests through both runners, as an operator's node would run them.
# (Through a pipe: the runner writes its log lines to /dev/stdout with >>,
# which, were stdout a file, would reopen it and write over its own lines.)
args=()
for t in "${PICK[@]}"; do args+=(-t "fabtrace:$t"); done
(cd "$T" && env -u FT_PEER_SSH -u FT_BUILD -u FT_ROLE -u FT_PEER_CTL_IP -u FT_OUT \
	"$KS/run_kselftest.sh" "${args[@]}") 2>&1 | cat >"$T/kselftest.tap" || true
(cd "$T" && env -u FT_PEER_SSH -u FT_BUILD -u FT_ROLE -u FT_PEER_CTL_IP -u FT_OUT \
	"$SELFTESTS/run_tests.sh" -o "$T/run_tests.tap" "${PICK[@]}") >/dev/null 2>&1 || true
sed 's/^/# /' "$T/kselftest.tap"
verdicts() { grep -E '^(not )?ok [0-9]+ selftests: ' "$1" | sed 's/ # SKIP.*/ # SKIP/'; }
res "run_kselftest.sh prints TAP 13 with a result per test" \
	test "$(grep -c '^ok [0-9]* selftests: fabtrace: ' "$T/kselftest.tap")" = "${#PICK[@]}"
res "its verdicts are run_tests.sh's for the same tests" \
	diff <(verdicts "$T/run_tests.tap") <(verdicts "$T/kselftest.tap")
reasons() {
	local r bad=0

	while read -r r; do
		grep -qF -- "# 1..0 # SKIP $r" "$T/kselftest.tap" ||
			{ echo "# not in run_kselftest.sh's output: $r"; bad=1; }
	done < <(sed -n 's/^ok [0-9]* selftests: fabtrace: [^ ]* # SKIP //p' "$T/run_tests.tap")
	return "$bad"
}
res "each skip's reason is in its output" reasons
tap_totals
