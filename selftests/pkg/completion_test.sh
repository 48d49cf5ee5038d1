#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# user/fabtrace.bash-completion in a real bash with bash-completion loaded
# (TAP, host only).  A stub fabtrace first in PATH answers
# "-j dev show" and "-j qp show [dev DEV]" with canned JSON (testdata/), as
# the module would; the grammar the completion knows is compared with the
# one "fabtrace help" and "fabtrace OBJECT help" print (cli_grammar.py), so
# a command or keyword added to the CLI and not to the completion fails here.
# selftests/completion.sh does the same against the real module in a node.
#
#   completion_test.sh [FABTRACE]      (default: user/fabtrace of this tree)
set -euo pipefail

HERE=$(dirname "$(readlink -f "$0")")
TOP=$(readlink -f "$HERE/../..")
CLI=${1:-$TOP/user/fabtrace}
COMPL=$TOP/user/fabtrace.bash-completion
BC=/usr/share/bash-completion/bash_completion
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

. "$HERE/lib-tap.sh"

echo "TAP version 13"
[ -r "$BC" ] || { echo "1..0 # SKIP bash-completion is not installed (make deps)"; exit 4; }
echo "1..19"

# The stub: canned answers, or none at all (FT_STUB_DOWN=1: no module).
mkdir -p "$T/bin"
cat >"$T/bin/fabtrace" <<EOF
#!/bin/bash
[ -z "\${FT_STUB_DOWN:-}" ] || { echo "fabtrace: the fabtrace module is not loaded" >&2; exit 1; }
case "\$*" in
"-j dev show") cat "$HERE/testdata/dev.json" ;;
"-j qp show") cat "$HERE/testdata/qp.json" ;;
"-j qp show dev "*)
	python3 -c 'import json, sys
print(json.dumps([q for q in json.load(open(sys.argv[1])) if q["dev"] == sys.argv[2]]))' \\
		"$HERE/testdata/qp.json" "\$5" ;;
*) echo "stub fabtrace: unexpected \$*" >&2; exit 1 ;;
esac
EOF
chmod +x "$T/bin/fabtrace"

# complete LINE: what TAB offers at the end of LINE, sorted, one a line.
complete() {
	PATH=$T/bin:$PATH bash --norc --noprofile -c '
		. "$1" >/dev/null 2>&1
		. "$2"
		line=$3
		read -r -a COMP_WORDS <<<"$line"
		[[ $line != *" " ]] || COMP_WORDS+=("")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMP_LINE=$line COMP_POINT=${#line}
		_fabtrace fabtrace "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}"' _ "$BC" "$COMPL" "$1" 2>"$T/stderr" | sort
}

# expect LINE WORD...: TAB at the end of LINE offers exactly WORD...
expect() {
	local line=$1 got want

	shift
	got=$(complete "$line" | paste -s -d ' ') || true
	want=$(printf '%s\n' "$@" | sort | paste -s -d ' ')
	if [ "$got" = "$want" ] && [ ! -s "$T/stderr" ]; then
		ok "'$line<TAB>' offers: ${want:-nothing}"
	else
		nok "'$line<TAB>' offers: ${want:-nothing}"
		echo "# got: ${got:-nothing}"
		sed 's/^/# stderr: /' "$T/stderr"
	fi
}

expect "fabtrace qp sh" show
expect "fabtrace qp show dev " mlx5_0 rxe0
expect "fabtrace " dev qp stats monitor top policy pfc export help
expect "fabtrace -j -s q" qp
expect "fabtrace --" --json --pretty --stats --numeric --batch --count --rcvbuf \
	--version --help
expect "fabtrace qp " show reset help
expect "fabtrace qp show dev rxe0 qpn " 1 17 18
expect "fabtrace qp show qpn " 1 17 18 263
expect "fabtrace qp show dev rxe0 " qpn pid type state congested destroyed cgroup \
	misconfigured slow rtt-above sort limit help
expect "fabtrace qp show type r" rc raw_packet raw_ipv6 raw_ethertype
expect "fabtrace qp reset dev mlx5_0 qpn " 1 263
expect "fabtrace dev show " mlx5_0 rxe0 help
expect "fabtrace monitor events ce,r" ce,retransmit ce,retry-exhausted ce,rnr-timeout
expect "fabtrace policy set dev rxe0 pfc-watchdog detect 200 re" restore
expect "fabtrace -j top sort " bytes pkts ce cnp nak retrans
FT_STUB_DOWN=1 expect "fabtrace qp show dev "
expect "fabtrace policy show dev rxe0 port 1 " commands help

# The grammar: the completion's tables, in cli_grammar.py's lines.
PATH=$T/bin:$PATH bash --norc --noprofile -c '
	. "$1"
	for o in $_fabtrace_objects; do [ "$o" = help ] || echo "object $o"; done
	for o in $_fabtrace_options; do [[ $o != --* ]] || echo "option $o"; done
	for o in "${!_fabtrace_cmds[@]}"; do
		[ -n "${_fabtrace_cmds[$o]}" ] || echo "command $o -"
		for c in ${_fabtrace_cmds[$o]}; do [ "$c" = help ] || echo "command $o $c"; done
	done
	for k in "${!_fabtrace_args[@]}"; do
		oc="${k%% *} ${k#* }"
		[ -n "${k#* }" ] || oc="${k%% *} -"
		for a in ${_fabtrace_args[$k]}; do
			case $a in help | @*) continue ;; esac
			echo "word $oc ${a%=}"
			for v in ${_fabtrace_vals["$k ${a%=}"]-}; do
				[[ $v == @* ]] || echo "value $oc $v"
				for w in ${_fabtrace_vals["$k ${a%=} $v"]-}; do echo "value $oc $w"; done
			done
		done
	done' _ "$COMPL" | sort -u >"$T/compl"
python3 "$HERE/cli_grammar.py" help "$CLI" >"$T/help" || echo "Bail out! fabtrace help"
# objects, commands and options as they are; every keyword or value word of
# a command's usage is a keyword or value of the completion's command, and
# every value it offers is one of the help's (usage or "where" lists)
grep -E '^(object|command|option) ' "$T/help" >"$T/h1"
grep -E '^(object|command|option) ' "$T/compl" >"$T/c1"
if diff -u --label "fabtrace help" --label completion "$T/h1" "$T/c1" >"$T/d1"; then
	ok "the completion knows the objects, commands and options fabtrace help lists"
else
	nok "the completion knows the objects, commands and options fabtrace help lists"
	sed 's/^/# /' "$T/d1"
fi
words_agree() {
	local bad=0 l

	while read -r _ o c w; do
		grep -qE "^(word|value) $o $c $w$" "$T/compl" ||
			{ echo "# fabtrace $o $c: '$w' is in the help, not in the completion"; bad=1; }
	done < <(grep '^word ' "$T/help")
	while read -r l o c w; do
		if [ "$l" = word ]; then
			grep -qxF "word $o $c $w" "$T/help" && continue
		else
			grep -qE "^(word $o $c|value) $w$" "$T/help" && continue
		fi
		echo "# fabtrace $o $c: the completion offers '$w', the help does not have it"
		bad=1
	done < <(grep -E '^(word|value) ' "$T/compl")
	return "$bad"
}
if words_agree; then
	ok "each command's keywords and values agree with its help"
else
	nok "each command's keywords and values agree with its help"
fi
tap_totals
