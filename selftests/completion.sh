#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bash completion against the real module: device names and QP numbers
# come from fabtrace -j dev show / qp show with rxe0 up (its QP1 is there).
# selftests/pkg/completion_test.sh checks the rest on the host.
# timeout=120
set -euo pipefail
. "$(dirname "$(readlink -f "$0")")/lib.sh"

REPO=${FT_REPO:-$(readlink -f "$(dirname "$(readlink -f "$0")")/..")}
COMPL=$REPO/user/fabtrace.bash-completion
BC=/usr/share/bash-completion/bash_completion
require_module fabtrace
require_cmd fabtrace rdma
[ -r "$BC" ] || skip_all "bash-completion is not installed (make deps)"

loaded=
cleanup() {
	rxe_down self || true
	[ -z "$loaded" ] || rmmod fabtrace 2>/dev/null || true
}
at_exit cleanup
[ -e /sys/module/fabtrace ] || { modprobe fabtrace && loaded=1; }

# offers LINE: what TAB offers at the end of LINE, one a line
offers() {
	bash --norc --noprofile -c '
		. "$1" >/dev/null 2>&1
		. "$2"
		read -r -a COMP_WORDS <<<"$3"
		COMP_WORDS+=("")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMP_LINE="$3 " COMP_POINT=$((${#3} + 1))
		_fabtrace fabtrace "" "${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}"' _ "$BC" "$COMPL" "$1"
}
has() {
	local got

	got=$(offers "$1")
	log "'$1 <TAB>': $(echo $got)"
	grep -qx -- "$2" <<<"$got"
}

ktap_plan 3
ktap_assert "rxe0 up" rxe_up self
ktap_result "'fabtrace qp show dev <TAB>' offers rxe0" has "fabtrace qp show dev" rxe0
ktap_result "'fabtrace qp show dev rxe0 qpn <TAB>' offers QP 1 (GSI)" \
	has "fabtrace qp show dev rxe0 qpn" 1
ktap_finished
