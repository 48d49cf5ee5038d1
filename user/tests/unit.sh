#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The systemd units make install installs: every @VAR@ of the templates
# filled in, each runs what it says (the sbin path of the build; the policy
# file; export into node_exporter's textfile directory, every
# EXPORT_INTERVAL), and systemd's own checker accepts them -- TAP.
#
#   tests/unit.sh UNIT-FILE...    (next to the fabtrace binary they run)
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: unit.sh UNIT-FILE..." >&2; exit 2; }
echo "TAP version 13"
n=0 failed=0
res() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; failed=1; fi
}
# check DESC CMD...: ok if CMD succeeds
check() {
	local desc=$1

	shift
	if "$@"; then res 0 "$desc"; else res 1 "$desc"; fi
}
# the units' own lines (grep -q on the unit file being checked, $u)
export_service() {
	grep -Eq '^ExecStart=/.*/fabtrace export \$FABTRACE_EXPORT_ARGS dir /[^ ]+$' "$u" &&
		grep -q '^Type=oneshot$' "$u" && grep -q '^RuntimeDirectory=fabtrace$' "$u" &&
		grep -q '^RuntimeDirectoryPreserve=yes$' "$u"
}
export_timer() {
	grep -Eq '^OnUnitActiveSec=[0-9]+(ms|s|min)?$' "$u" && grep -q '^WantedBy=timers.target$' "$u"
}
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
build=$(readlink -f "$(dirname "$1")")/fabtrace
for u in "$@"; do
	name=$(basename "$u")
	check "$name: every @VAR@ of the template was filled in" eval '! grep -q @ "$u"'
	case $name in
	fabtrace-policy.service)
		check "$name: ExecStart runs fabtrace -b on an absolute policy file" \
			grep -q '^ExecStart=/.*/fabtrace -b /' "$u" ;;
	fabtrace-export.service)
		check "$name: a oneshot that runs fabtrace export into an absolute directory" \
			export_service ;;
	fabtrace-export.timer)
		check "$name: runs the export service periodically" export_timer ;;
	esac
	# verify checks that ExecStart's program exists: point it at this build
	sed "s|^\(ExecStart[A-Za-z]*=\)/[^ ]*/fabtrace |\1$build |" "$u" >"$d/$name"
done
if command -v systemd-analyze >/dev/null; then
	for u in "$@"; do
		name=$(basename "$u")
		# a timer is verified with its service beside it, in $d
		rc=0
		out=$(cd "$d" && systemd-analyze verify --man=no "$d/$name" 2>&1) || rc=$?
		[ -n "$out" ] && sed 's/^/# /' <<<"$out"
		[ -z "$out" ] || rc=1
		res $rc "$name: systemd-analyze verify accepts it, silently"
	done
else
	for u in "$@"; do
		n=$((n + 1))
		echo "ok $n $(basename "$u"): verify # SKIP systemd-analyze is not installed (systemd package)"
	done
fi
echo "1..$n"
exit $failed
