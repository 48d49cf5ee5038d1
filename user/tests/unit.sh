#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The policy-restoring systemd unit: systemd's own checker accepts it, and
# it runs what it says (the sbin path and the saved policy file of the
# build) -- TAP.
set -uo pipefail
unit=${1:?usage: unit.sh UNIT-FILE}
echo "TAP version 13"
echo "1..3"
n=0
res() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; fi
}
grep -q '^ExecStart=/.*/fabtrace -b /' "$unit"
res $? "ExecStart runs fabtrace -b on an absolute policy file"
! grep -q '@' "$unit"
res $? "every @VAR@ of the template was filled in"
if command -v systemd-analyze >/dev/null; then
	# verify checks that ExecStart's program exists: point it at this build
	d=$(mktemp -d)
	trap 'rm -rf "$d"' EXIT
	exe=$(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' "$unit")
	sed "s|$exe|$(readlink -f "$(dirname "$unit")")/fabtrace|" "$unit" >"$d/fabtrace-policy.service"
	out=$(systemd-analyze verify --man=no "$d/fabtrace-policy.service" 2>&1)
	rc=$?
	[ -n "$out" ] && sed 's/^/# /' <<<"$out"
	res $rc "systemd-analyze verify accepts it"
else
	echo "ok 3 # SKIP systemd-analyze is not installed (systemd package)"
fi
