#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Documentation/fabtrace.8 against the CLI it documents (TAP, host only):
# it renders with groff -ww and man --warnings without a warning, names the
# release user/ft.h names, and has every object, command, keyword and long
# option that "fabtrace help" and "fabtrace OBJECT help" have, and no other
# (cli_grammar.py reads both), and every word of the help's value lists.
#
#   man_check.sh [FABTRACE]      (default: user/fabtrace of this tree)
set -euo pipefail

HERE=$(dirname "$(readlink -f "$0")")
TOP=$(readlink -f "$HERE/../..")
CLI=${1:-$TOP/user/fabtrace}
MAN=$TOP/Documentation/fabtrace.8
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

. "$HERE/lib-tap.sh"
diag() { sed 's/^/# /' "$@"; }

echo "TAP version 13"
echo "1..6"
if [ ! -x "$CLI" ]; then
	echo "Bail out! no CLI at $CLI (make user)"
	exit 1
fi

# groff -ww: every warning; the output must come with an empty stderr.
quiet() {
	local rc=0

	"$@" >"$T/out" 2>"$T/err" || rc=$?
	[ "$rc" = 0 ] && [ ! -s "$T/err" ] && [ -s "$T/out" ] && return 0
	diag "$T/err"
	return 1
}
res "groff -ww -man -Tutf8 renders it without a warning" \
	quiet groff -ww -man -Tutf8 "$MAN"
# what man(1) itself (and lintian) runs
if command -v man >/dev/null; then
	res "man --warnings -l renders it without a warning" \
		quiet env LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z "$MAN"
else
	ok "man --warnings -l renders it without a warning # SKIP man-db is not installed"
fi

version=$(sed -n 's/^#define[[:space:]]*FABTRACE_VERSION[[:space:]]*"\(.*\)"/\1/p' \
	"$TOP/user/ft.h")
th_version() { grep -q "^\.TH FABTRACE 8 .* \"fabtrace $version\"" "$MAN"; }
res "its .TH line names release $version (user/ft.h)" th_version

python3 "$HERE/cli_grammar.py" help "$CLI" >"$T/help" || echo "Bail out! cli_grammar.py help"
python3 "$HERE/cli_grammar.py" man "$MAN" >"$T/man" || echo "Bail out! cli_grammar.py man"
same() {
	grep -E "^($1) " "$T/help" >"$T/h.$2"
	grep -E "^($1) " "$T/man" >"$T/m.$2"
	diff -u --label "fabtrace help" --label fabtrace.8 "$T/h.$2" "$T/m.$2" >"$T/d.$2" &&
		return 0
	diag "$T/d.$2"
	return 1
}
res "the same objects and commands as fabtrace help" same "object|command" cmds
res "each command with the same keywords as its help" same word words
# The values (QP types and states, sort keys, event kinds...) are prose in
# the man page: each must be there as a word.
values() {
	local v missing=0

	groff -man -Tutf8 -P-cbou "$MAN" 2>/dev/null | tr -s ' \n,;:().' '\n' |
		sed 's/\xe2\x80\x90//g' | sort -u >"$T/manwords"
	for v in $(sed -n 's/^value //p' "$T/help"); do
		grep -qxF -- "$v" "$T/manwords" || { echo "# not in the man page: $v"; missing=1; }
	done
	return "$missing"
}
options() { same option opts; }
if values && options; then
	ok "every long option and every value of the help's lists is in it"
else
	nok "every long option and every value of the help's lists is in it"
fi
tap_totals
