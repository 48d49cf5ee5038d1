#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The fabtrace binary's paths that need no kernel module: usage errors, help,
# version, and the message when the module is not loaded.  TAP 13.
#
#   tests/cli.sh [PATH-TO-FABTRACE]
set -euo pipefail

FT=${1:-./fabtrace}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

ok() { n=$((n + 1)); echo "ok $n $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n $1"; }
skip() { n=$((n + 1)); echo "ok $n $1 # SKIP $2"; }

# run ARGS...: $rc, $tmp/out, $tmp/err
run() {
	rc=0
	"$FT" "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
}

lines() { wc -l <"$1"; }

# usage_error DESC EXPECTED-MESSAGE-REGEX ARGS...: exit 1, one line on
# stderr matching, nothing on stdout; with -j in front, stdout stays empty too.
usage_error() {
	local desc=$1 re=$2 why=
	shift 2
	for j in "" -j; do
		run $j "$@"
		[ "$rc" = 1 ] || why+="exit $rc; "
		[ -s "$tmp/out" ] && why+="stdout not empty; "
		[ "$(lines "$tmp/err")" = 1 ] || why+="$(lines "$tmp/err") lines on stderr; "
		grep -Eq "^fabtrace: $re" "$tmp/err" || why+="message: $(head -c 200 "$tmp/err"); "
	done
	if [ -z "$why" ]; then ok "$desc"; else echo "# $why"; not_ok "$desc"; fi
}

echo "TAP version 13"

usage_error "unknown object" 'unknown object "bogus", try "fabtrace help"' bogus
usage_error "abbreviated object" 'unknown object "de"' de
usage_error "abbreviated object (stat)" 'unknown object "stat"' stat
usage_error "abbreviated command (dev shw)" 'unknown dev command "shw", try "fabtrace dev help"' dev shw
usage_error "abbreviated command (qp sh)" 'unknown qp command "sh"' qp sh
usage_error "abbreviated command (stats sh)" 'unknown stats command "sh"' stats sh
usage_error "abbreviated argument (qp show de)" 'qp show: unknown argument "de"' qp show de rxe0
usage_error "qpn range without end" 'qp show: invalid qpn "1-": range without an end' qp show qpn 1-
usage_error "qpn empty item" 'qp show: invalid qpn "1,,3"' qp show qpn 1,,3
usage_error "qpn reversed range" 'qp show: invalid qpn "9-3"' qp show qpn 9-3
usage_error "qpn above 24 bits" 'qp show: invalid qpn "16777216"' qp show qpn 16777216
usage_error "qpn hex" 'qp show: invalid qpn "0x11"' qp show qpn 0x11
usage_error "missing value" 'qp show: "dev" needs a value' qp show dev
usage_error "argument twice" 'qp show: "dev" given twice' qp show dev a dev b
usage_error "bad type" 'qp show: invalid type "RC": not one of' qp show type RC
usage_error "bad state" 'qp show: invalid state "up"' qp show state up
usage_error "bad sort key" 'qp show: invalid sort "bytes"' qp show sort bytes
usage_error "limit 0" 'qp show: invalid limit "0"' qp show limit 0
usage_error "reset qpn without dev" 'qp reset: "qpn" needs "dev"' qp reset qpn 3
usage_error "reset bad qpn" 'qp reset: invalid qpn "x"' qp reset dev rxe0 qpn x
usage_error "dev show two devices" 'dev show: unknown argument "rxe1"' dev show rxe0 rxe1
usage_error "stats extra argument" 'stats show: unknown argument "x"' stats show x
usage_error "monitor bad event kind" 'monitor: invalid events "ce,bogus"' monitor events ce,bogus
usage_error "monitor count 0" 'monitor: invalid count "0"' monitor count 0
usage_error "monitor --count twice" 'monitor: "count" given twice' monitor --count 2 count 3
usage_error "top bad sort" 'top: invalid sort "tx-bytes"' top sort tx-bytes
usage_error "top interval too small" 'top: invalid interval "1"' top interval 1
usage_error "top unknown argument" 'top: unknown argument "-x"' top -x
usage_error "unknown short option" 'unknown option "-x"' -x dev
usage_error "unknown long option" 'unknown option "--jso"' --jso dev
usage_error "--count needs a value" 'option "--count" needs a value' --count
usage_error "--count 0" 'invalid --count "0"' --count 0 monitor
usage_error "help with an argument" 'help: unknown argument "x"' help x

run
if [ "$rc" = 1 ] && [ ! -s "$tmp/out" ] && grep -q '^Usage: fabtrace' "$tmp/err"; then
	ok "no object: usage on stderr, exit 1"
else
	not_ok "no object: usage on stderr, exit 1"
fi

run -V
if [ "$rc" = 0 ] && head -n 1 "$tmp/out" | grep -Eq '^fabtrace [0-9]+\.[0-9]+\.[0-9]+$'; then
	ok "-V prints the version"
else
	not_ok "-V prints the version"
fi
run --version
[ "$rc" = 0 ] && grep -q '^fabtrace ' "$tmp/out" && ok "--version" || not_ok "--version"

usage_error "policy set without dev" 'policy set: "dev" is required' policy set ecn 3
usage_error "policy set of nothing" 'policy set: nothing to set' policy set dev rxe0
usage_error "policy set priority 8" 'policy set: invalid pfc "3,8": not none or a list of priorities 0..7' \
	policy set dev rxe0 pfc 3,8
usage_error "policy set DSCP 64" 'policy set: invalid dscp-map "64:1"' policy set dev rxe0 dscp-map 64:1
usage_error "policy set interval 0" 'policy set: invalid cnp-interval "0"' policy set dev rxe0 cnp-interval 0
usage_error "policy set detection 50 ms" 'policy set: invalid pfc-watchdog "50": not a detection time' \
	policy set dev rxe0 pfc-watchdog detect 50
usage_error "policy show port 0" 'policy show: invalid port "0"' policy show port 0
usage_error "abbreviated policy command" 'unknown policy command "sh"' policy sh
usage_error "export: two targets" 'export: one target at most: textfile, dir DIR, file FILE or -' \
	export textfile dir /tmp
usage_error "export: top above 1000" 'export: invalid top "1001": not a number from 0 to 1000' \
	export top 1001
usage_error "export: groups 0" 'export: invalid groups "0"' export groups 0
usage_error "export: by an unknown grouping" 'export: invalid by "job": not one of owner|cgroup' \
	export by job
usage_error "export: dir twice" 'export: "dir" given twice' export dir a dir b
usage_error "export: abbreviated keyword" 'export: unknown argument "text"' export text
usage_error "export: -j to standard output" 'export: -j describes a file written' -j export -
usage_error "-b without a file" 'option "-b" needs a value' -b
usage_error "-b and a command" '-b f runs the commands of a file' -b f dev show
usage_error "-b of a missing file" '-b /nonexistent/x: No such file or directory' -b /nonexistent/x

# -b: runs each line, stops at the first failure and names its line.
printf '# saved\n\nhelp\nbogus\nhelp\n' >"$tmp/batch"
run -b "$tmp/batch"
if [ "$rc" = 1 ] && [ "$(grep -c '^Usage: fabtrace' "$tmp/out")" = 1 ] &&
   grep -q "^fabtrace: unknown object \"bogus\"" "$tmp/err" &&
   grep -q "^fabtrace: $tmp/batch:4: command failed, stopping" "$tmp/err"; then
	ok "-b FILE stops at line 4, after running line 3"
else
	echo "# rc $rc err: $(head -c 300 "$tmp/err")"
	not_ok "-b FILE stops at line 4, after running line 3"
fi
printf 'help\n' | "$FT" -b - >"$tmp/out" 2>"$tmp/err" && grep -q '^Usage: fabtrace' "$tmp/out" &&
	ok "-b - reads standard input" || not_ok "-b - reads standard input"

# Every help: exit 0, on stdout, lists what it should, ends with Examples.
help_ok() {
	local desc=$1 want=$2 why=
	shift 2
	run "$@"
	[ "$rc" = 0 ] || why+="exit $rc; "
	[ -s "$tmp/err" ] && why+="stderr: $(head -c 200 "$tmp/err"); "
	for w in $want; do
		grep -qw -- "$w" "$tmp/out" || why+="no \"$w\"; "
	done
	# the Examples block is last: every line after it is an example
	awk '/^Examples:$/ { ex = 1; next } ex && !/^  fabtrace / { bad = 1 }
	     END { exit !(ex && !bad) }' "$tmp/out" || why+="no final Examples block; "
	if [ -z "$why" ]; then ok "$desc"; else echo "# $why"; not_ok "$desc"; fi
}

help_ok "help lists the objects" "dev qp stats monitor top policy pfc export" help
help_ok "-h" "dev qp stats monitor top" -h
help_ok "--help" "Exit" --help
help_ok "dev help" "show" dev help
help_ok "qp help" "show reset congested destroyed sort limit" qp help
help_ok "qp show help" "show" qp show help
help_ok "stats help" "show" stats help
help_ok "monitor help" "events dropped" monitor help
help_ok "top help" "interval iterations batch" top help
help_ok "policy help" "show set trust dscp-map pfc ecn cnp cnp-interval cnp-dscp pfc-watchdog commands" \
	policy help
help_ok "policy set help" "set" policy set help
help_ok "export help" "textfile dir file state top groups by owner cgroup" export help

# Without the module: exactly one line naming the fix, exit 1, for every
# command that needs the kernel, with and without -j.
if [ -d /sys/module/fabtrace ]; then
	skip "module not loaded message" "the fabtrace module is loaded here"
else
	why=
	mkdir "$tmp/textfile"
	for args in "dev show" "dev" "qp show" "qp show dev rxe0 qpn 1" "qp reset" \
		    "stats" "monitor" "top iterations 1" "dev show rxe0" \
		    "export dir $tmp/textfile state $tmp/state"; do
		for j in "" -j; do
			# shellcheck disable=SC2086
			run $j $args
			[ "$rc" = 1 ] || why+="[$j $args] exit $rc; "
			[ -s "$tmp/out" ] && why+="[$j $args] stdout not empty; "
			[ "$(cat "$tmp/err")" = "fabtrace: kernel module not loaded (run: modprobe fabtrace)" ] ||
				why+="[$j $args] stderr: $(head -c 200 "$tmp/err"); "
		done
	done
	# export: nothing written, no temporary file left
	[ -z "$(ls -A "$tmp/textfile")" ] && [ ! -e "$tmp/state" ] ||
		why+="export left: $(ls -A "$tmp/textfile" "$tmp"); "
	if [ -z "$why" ]; then
		ok "module not loaded message"
	else
		echo "# $why"
		not_ok "module not loaded message"
	fi
fi

echo "1..$n"
echo "# $((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
