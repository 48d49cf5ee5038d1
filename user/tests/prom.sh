#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Prometheus' own tools on what fabtrace ships for it -- TAP:
#   promtool check metrics   the exposition of a synthetic busy node, by
#                            owner and by cgroup (tests/expo_sample):
#                            parses, and no lint problem
#   promtool check rules     Documentation/prometheus/fabtrace.rules.yml
#   promtool test rules      its unit tests: every alert fires on its
#                            condition and stays silent below it
#   and every fabtrace_ metric the rules and their tests name is one the
#   exposition has.
#
#   tests/prom.sh EXPO_SAMPLE RULES_DIR
set -euo pipefail
sample=${1:?usage: prom.sh EXPO_SAMPLE RULES_DIR}
rules=${2:?usage: prom.sh EXPO_SAMPLE RULES_DIR}
echo "TAP version 13"
echo "1..5"
if ! command -v promtool >/dev/null; then
	for i in 1 2 3 4 5; do
		echo "ok $i # SKIP promtool is not installed (Debian package prometheus)"
	done
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0
res() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; failed=1; fi
}

for by in owner cgroup; do
	"$sample" "$by" >"$tmp/$by.prom"
	rc=0
	out=$(promtool check metrics <"$tmp/$by.prom" 2>&1) || rc=$?
	[ -n "$out" ] && sed 's/^/# /' <<<"$out"
	[ -z "$out" ] || rc=1
	res $rc "promtool check metrics: the exposition by $by ($(grep -vc '^#' "$tmp/$by.prom") series), silently"
done

rc=0
out=$(cd "$rules" && promtool check rules fabtrace.rules.yml 2>&1) || rc=$?
sed 's/^/# /' <<<"$out"
res $rc "promtool check rules fabtrace.rules.yml"

rc=0
out=$(cd "$rules" && promtool test rules fabtrace.rules.test.yml 2>&1) || rc=$?
sed 's/^/# /' <<<"$out"
res $rc "promtool test rules: every alert fires on its condition, silent below"

# fabtrace_ names in the rules and tests (not inside recorded ones, with
# ':', nor prefixes such as fabtrace_qps_*)
missing=
for m in $(grep -ohP '(?<![:\w])fabtrace_[a-z_]*[a-z](?![:\w*])' "$rules"/fabtrace.rules.yml \
	"$rules"/fabtrace.rules.test.yml | sort -u); do
	grep -q "^# TYPE $m " "$tmp/owner.prom" "$tmp/cgroup.prom" || missing+=" $m"
done
[ -z "$missing" ] || echo "# not in the exposition:$missing"
res "$([ -z "$missing" ]; echo $?)" "every fabtrace_ metric the rules name is exported"
exit $failed
