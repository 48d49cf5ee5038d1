#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The systemd units make install installs: every @VAR@ of the templates
# filled in, each runs what it says (the sbin path of the build; the policy
# file; export into node_exporter's textfile directory, every
# EXPORT_INTERVAL), and systemd's own checker accepts them -- TAP.
#
#   tests/unit.sh UNIT-FILE...    (next to the fabtrace binary they run)
set -uo pipefail
[ $# -gt 0 ] || { echo "usage: unit.sh UNIT-FILE..." >&2; exit 2; }
echo "TAP version 13"
n=0 failed=0
res() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; failed=1; fi
}
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
build=$(readlink -f "$(dirname "$1")")/fabtrace
for u in "$@"; do
	name=$(basename "$u")
	! grep -q '@' "$u"
	res $? "$name: every @VAR@ of the template was filled in"
	case $name in
	fabtrace-policy.service)
		grep -q '^ExecStart=/.*/fabtrace -b /' "$u"
		res $? "$name: ExecStart runs fabtrace -b on an absolute policy file" ;;
	fabtrace-export.service)
		grep -Eq '^ExecStart=/.*/fabtrace export \$FABTRACE_EXPORT_ARGS dir /[^ ]+$' "$u" &&
			grep -q '^Type=oneshot$' "$u" && grep -q '^RuntimeDirectory=fabtrace$' "$u" &&
			grep -q '^RuntimeDirectoryPreserve=yes$' "$u"
		res $? "$name: a oneshot that runs fabtrace export into an absolute directory" ;;
	fabtrace-export.timer)
		grep -Eq '^OnUnitActiveSec=[0-9]+(ms|s|min)?$' "$u" &&
			grep -q '^WantedBy=timers.target$' "$u"
		res $? "$name: runs the export service periodically" ;;
	esac
	# verify checks that ExecStart's program exists: point it at this build
	sed "s|^\(ExecStart[A-Za-z]*=\)/[^ ]*/fabtrace |\1$build |" "$u" >"$d/$name"
done
if command -v systemd-analyze >/dev/null; then
	for u in "$@"; do
		name=$(basename "$u")
		# a timer is verified with its service beside it, in $d
		out=$(cd "$d" && systemd-analyze verify --man=no "$d/$name" 2>&1)
		rc=$?
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
