#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# TAP for the host checks of selftests/pkg: sourced, never run.
#
# ok DESC, nok DESC: one result; res DESC CMD...: ok if CMD succeeds;
# tap_totals: the kselftest totals line, and the status (0: none failed).
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n $*"; }
nok() { n=$((n + 1)) fail=$((fail + 1)); echo "not ok $n $*"; }
res() {
	local desc=$1

	shift
	if "$@"; then ok "$desc"; else nok "$desc"; fi
}
tap_totals() {
	echo "# Totals: pass:$((n - fail)) fail:$fail xfail:0 xpass:0 skip:0 error:0"
	[ "$fail" = 0 ]
}
