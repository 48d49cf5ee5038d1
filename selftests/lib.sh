# SPDX-License-Identifier: GPL-2.0
# Shell library for fabtrace selftests: KTAP output, the peer node, rxe setup.
# shellcheck shell=bash
#
# Source it from a test (`. "$(dirname "$0")/lib.sh"`).  A test is one
# executable; exit 0 = pass, 1 = fail, 4 = skip (it must say why).
#
# The QEMU harness (selftests/qemu/guest-init.sh) exports, on both nodes:
#   FT_ROLE         a (runs the tests) or b (the peer)
#   FT_SELF_IP      this node's address on the data wire (10.99.0.1 / .2)
#   FT_PEER_IP      the other node's address on the data wire
#   FT_NETDEV       this node's data NIC (rxe0 goes on it; netem goes on it)
#   FT_CTL_IP       this node's address on the control link (10.98.0.x)
#   FT_PEER_CTL_IP  the other node's control address (peer commands use it)
#   FT_OUT          artefact directory, the same host directory on both nodes
#   FT_KVER         kernel under test;  FT_REPO  the checkout (same path)
# Tests may put loss or delay on FT_NETDEV: peer commands travel over the
# separate control link and keep working.
#
# On a real node (make -C selftests install, then run_kselftest.sh) there
# is no harness, and one variable names the peer:
#   FT_PEER_SSH=[user@]host  a second node that this one reaches with ssh as
#                   root without a password (BatchMode), with the suite
#                   installed at the same path; two-node tests skip, saying
#                   so, when it is unset or unusable
# The rest is derived, each one unless it is set already: FT_PEER_IP and
# FT_PEER_CTL_IP (host's IPv4 address), FT_NETDEV and FT_SELF_IP (the netdev
# that routes to the peer, and its address; with no peer, the default
# route's netdev, else the first one up with an IPv4 address), FT_CTL_IP.
# Two-node tests exchange files through FT_OUT, which must then be a
# directory both nodes see at the same path (NFS, say); require_peer checks.
# The peer cannot reach back (peer runs only from here).  An installed
# suite keeps the build tree's helpers in build/ beside this file, and
# FT_BUILD defaults to it.
#
# Running commands on the peer:
#   peer CMD [ARGS...]      sh -c "CMD ARGS..." on the other node; its stdout
#                           and stderr arrive here, its exit status is
#                           returned (128+N for signal N)
#   peer -t 30 CMD ...      same, killed after 30 s (status 124)
#   peer CMD ... &          runs in the background; `kill $!` (or the test
#                           ending) stops the remote command too: remote
#                           commands never outlive the local `peer` process
#   peer_lib FUNC ARGS...   run a function of the libraries the test
#                           sourced (this one, lib-oracle.sh, lib-cong.sh)
#                           on the peer
#   peer_fn FUNC ARGS...    run a function of the test itself on the peer
#   on_node WHERE FUNC ARGS...   FUNC of the libraries here (self), on the
#                           peer, or here and then there (both)
#   on_both CMD ...         CMD here, then on the peer; fails if either fails
#
# KTAP:   ktap_plan N; ktap_result DESC CMD...; ktap_assert DESC CMD...
#         (a failure ends the test); ktap_ok/ktap_fail DESC; ktap_skip DESC
#         WHY; ktap_finished (exit 0, 1, or 4 if all skipped); skip_all WHY;
#         fail_all WHY; log MSG; run CMD... (logs the command first)
# Checks: require_cmd CMD...; require_module MOD; require_peer;
#         wait_for SECS CMD... (poll until CMD succeeds);
#         py EXPR FILE... (a Python expression over JSON files a, b, ...);
#         ft_stat NAME (one of fabtrace's statistics); now (seconds.ns)
# rxe:    rxe_up / rxe_down [self|peer|both]; rxe_stat COUNTER
# The end of a test: every test runs under `set -euo pipefail` (a command
# that fails and is not tested ends it, and the log says which); however
# it ends, this library then stops its background jobs and runs its
# cleanups, and the test's exit status stands.
#         bg_add PID... (background jobs, `peer ... &` ones too, stopped at
#         the end); at_exit CMD... (run at the end, the last added first,
#         after the jobs are stopped; a failure is logged and the rest run)
# Traffic: require_progs [PROG...] (skip unless selftests/progs is built:
#         FT_PROGS, set already on both nodes); out_dir NAME (OUT: a fresh
#         $FT_OUT/NAME, for both nodes' artefacts)
# Captures (tcpdump on this node's data NIC, its messages in PCAP.err):
#         cap_start PCAP [OPTION...] [-- FILTER...] (tcpdump's OPTIONs;
#         RoCEv2 unless FILTER); cap_stop PCAP; cap_dropped PCAP (tcpdump's
#         count); cap_tsv PCAP TSV (every frame, decoded by tshark: oracle.py
#         reads it); cap_summary PCAP [CUTS] (per destination QP, as JSON)
# Oracles: oracle SUBCOMMAND ARGS... (selftests/oracle.py: the checks of
#         the traffic tests, in Python; FT_PY3 runs it)

# shellcheck disable=SC2034 # the kselftest set, for tests to use
KSFT_PASS=0 KSFT_FAIL=1 KSFT_XFAIL=2 KSFT_XPASS=3 KSFT_SKIP=4

FT_LIB=$(readlink -f "${BASH_SOURCE[0]}")
# The libraries a test sourced, which peer_lib sources on the peer: each
# adds itself.
FT_LIBS=("$FT_LIB")
FTPEER=${FTPEER:-ftpeer}
# The node sees the host's /: pyenv's shim would cost a shell and a fork
# per call under TCG; the system python3 has what the oracles need.
FT_PY3=/usr/bin/python3
[ -x "$FT_PY3" ] || FT_PY3=python3
# (outside the harness: defaults for FT_BUILD and the network, and the peer
# over ssh; see "Outside the QEMU harness" below)

# ---- KTAP --------------------------------------------------------------

KTAP_N=0
KTAP_PLAN=0
KTAP_PASS=0
KTAP_FAIL=0
KTAP_SKIP=0

# ktap_plan N: header and plan of a test with N results.
ktap_plan() {
	KTAP_PLAN=$1
	echo "TAP version 13"
	echo "1..$1"
}

ktap_ok() {
	KTAP_N=$((KTAP_N + 1)) KTAP_PASS=$((KTAP_PASS + 1))
	echo "ok $KTAP_N $*"
}

ktap_fail() {
	KTAP_N=$((KTAP_N + 1)) KTAP_FAIL=$((KTAP_FAIL + 1))
	echo "not ok $KTAP_N $*"
}

# ktap_skip DESC REASON: a result that could not be checked, and why.
ktap_skip() {
	KTAP_N=$((KTAP_N + 1)) KTAP_SKIP=$((KTAP_SKIP + 1))
	echo "ok $KTAP_N $1 # SKIP ${2:?ktap_skip needs a reason}"
}

# ktap_result DESC CMD...: ok if CMD succeeds.
ktap_result() {
	local desc=$1

	shift
	if "$@"; then ktap_ok "$desc"; else ktap_fail "$desc"; fi
}

# ktap_assert DESC CMD...: like ktap_result, but a failure ends the test
# (later results would be meaningless).
ktap_assert() {
	local desc=$1

	shift
	if "$@"; then
		ktap_ok "$desc"
	else
		ktap_fail "$desc"
		fail_all "$desc: failed, stopping"
	fi
}

# ktap_finished: totals, then exit 1 on any failure or plan mismatch, 4 if
# everything was skipped, else 0.
ktap_finished() {
	echo "# Totals: pass:$KTAP_PASS fail:$KTAP_FAIL xfail:0 xpass:0 skip:$KTAP_SKIP error:0"
	if [ "$KTAP_FAIL" -ne 0 ]; then
		exit "$KSFT_FAIL"
	elif [ "$KTAP_N" -ne "$KTAP_PLAN" ]; then
		echo "# planned $KTAP_PLAN results, got $KTAP_N"
		exit "$KSFT_FAIL"
	elif [ "$KTAP_PASS" -eq 0 ] && [ "$KTAP_SKIP" -gt 0 ]; then
		exit "$KSFT_SKIP"
	fi
	exit "$KSFT_PASS"
}

# skip_all REASON: the whole test cannot run here (missing module, tool...).
skip_all() {
	echo "1..0 # SKIP $*"
	exit "$KSFT_SKIP"
}

# kindep_here [last]: true when this node runs the parts of tests that do
# not depend on the kernel.  vm-test.sh runs them on the first kernel of a
# run (FT_KINDEP_ON), or with "last" on the last one (FT_KINDEP_LAST), to
# even the lanes out; run any other way, every node does.  KINDEP_WHY
# says why not.
kindep_here() {
	local on=${FT_KINDEP_ON:-}

	[ "${1:-}" != last ] || on=${FT_KINDEP_LAST:-}
	[ -z "$on" ] || [ "$on" = "$(uname -r)" ]
}
KINDEP_WHY="kernel-independent: this suite runs it on one kernel's nodes"

# fail_all MSG: stop the test now, as a failure.
fail_all() {
	echo "Bail out! $*"
	exit "$KSFT_FAIL"
}

log() {
	echo "# $*"
}

# run CMD...: log the command, then run it (output is part of the test log).
run() {
	echo "# + $*"
	"$@"
}

require_cmd() {
	local c

	for c in "$@"; do
		command -v "$c" >/dev/null || skip_all "command '$c' not installed"
	done
}

# ft_hooked FUNC: ftrace's own listing of how FUNC is hooked (its line in
# enabled_functions and the lines under it): a direct call shows as
# "direct-->TRAMPOLINE", a callback as "tramp: ... (CALLBACK+...)".
ft_hooked() {
	[ -r /sys/kernel/tracing/enabled_functions ] ||
		mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null || true
	awk -v f="$1" '$1 == f { p = 1; print; next } p && /^\t/ { print; next } { p = 0 }' \
		/sys/kernel/tracing/enabled_functions
}

# require_module MOD: skip unless MOD can be modprobe'd on this kernel.
require_module() {
	modinfo "$1" >/dev/null 2>&1 ||
		skip_all "module $1 not available for kernel $(uname -r) (not built yet?)"
}

# require_peer: skip unless a peer node answers: the harness's (its agent),
# or FT_PEER_SSH's, with the suite at the same path and FT_OUT shared.
require_peer() {
	if ! _ft_ssh_mode; then
		[ -n "${FT_PEER_CTL_IP:-}" ] ||
			skip_all "no peer node: set FT_PEER_SSH=[user@]host (see selftests/qemu/README), or run via selftests/qemu/vm-test.sh"
		return 0
	fi
	command -v ssh >/dev/null || skip_all "FT_PEER_SSH is set, but ssh is not installed"
	[ -n "${FT_PEER_IP:-}" ] ||
		skip_all "FT_PEER_SSH=$FT_PEER_SSH: no IPv4 address for it (set FT_PEER_IP)"
	[ -n "${FT_NETDEV:-}" ] ||
		skip_all "no netdev routes to $FT_PEER_IP (set FT_NETDEV and FT_SELF_IP)"
	peer -t 30 true ||
		skip_all "FT_PEER_SSH=$FT_PEER_SSH: no answer over ssh as root with a key (BatchMode)"
	peer -t 30 "test -r $(printf '%q' "$FT_LIB")" ||
		skip_all "FT_PEER_SSH=$FT_PEER_SSH: the suite is not at ${FT_LIB%/*} there (install it at the same path on both nodes)"
	_ft_shared_out ||
		skip_all "FT_OUT=${FT_OUT:-(unset)} is not a directory $FT_PEER_SSH sees at the same path: two-node tests exchange captures through it"
}

# wait_for SECS CMD...: poll CMD (every 0.1 s) until it succeeds; 1 on timeout.
wait_for() {
	local end=$((SECONDS + $1))

	shift
	until "$@"; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.1
	done
}

# cap_settle PCAP PID: wait until tcpdump (PID) has taken in what its
# filter passed: asked for its counts (SIGUSR1, a line on its stderr), it
# has "captured" as many as were "received by filter", or (where it drops
# some itself: a loopback's outgoing copies) captured nothing more for
# 1.5 s; at most 30 s.  The kernel hands tcpdump its ring a block at a
# time, a block at the latest after 1 s; stopped sooner, tcpdump counts
# what is still there as received but never writes it.  (--immediate-mode
# hands over every packet at once, but the wakeups cost so much that the
# kernel dropped 83 % of a burst.)  It waited for the file's size to stay
# the same for 2 s: 4 s a capture, 24 captures a kernel's run.
cap_settle() {
	local pcap=$1 pid=$2 end=$((SECONDS + 30)) i last=-1 since=${EPOCHREALTIME/./}
	local re='^tcpdump: ([0-9]+) packets? captured, ([0-9]+) packets? received by filter'
	local -a lines

	while [ "$SECONDS" -lt "$end" ]; do
		kill -USR1 "$pid" 2>/dev/null || return 0
		sleep 0.25
		mapfile -t lines <"$pcap.err"
		for ((i = ${#lines[@]} - 1; i >= 0; i--)); do
			[[ ${lines[i]} =~ $re ]] && break
		done
		[ "$i" -ge 0 ] || continue
		[ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ] && return 0
		if [ "${BASH_REMATCH[1]}" != "$last" ]; then
			last=${BASH_REMATCH[1]} since=${EPOCHREALTIME/./}
		elif [ $((${EPOCHREALTIME/./} - since)) -ge 1500000 ]; then
			return 0
		fi
	done
}

# cap_start PCAP [OPTION...] [-- FILTER...]: tcpdump on this node's data
# NIC, writing PCAP (its messages to PCAP.err); returns once it listens, 1
# if it does not within 30 s.  The OPTIONs are tcpdump's (-s, -B, -p, -U):
# what each test's capture needs (a test of PFC frames must not make the
# NIC promiscuous, one of full MADs wants whole frames).  FILTER defaults to
# RoCEv2 (udp port 4791).  The test's end stops a capture still running.
declare -A FT_CAP_PID=()
cap_start() {
	local pcap=$1 opts=() filter=(udp port 4791)

	shift
	while [ $# -gt 0 ]; do
		if [ "$1" = -- ]; then
			shift
			filter=("$@")
			break
		fi
		opts+=("$1")
		shift
	done
	rm -f "$pcap" "$pcap.err"
	tcpdump -i "${FT_NETDEV:?}" -n "${opts[@]}" -w "$pcap" "${filter[@]}" 2>"$pcap.err" &
	FT_CAP_PID[$pcap]=$!
	wait_for 30 grep -q "listening on" "$pcap.err" || {
		log "tcpdump did not start: $(cat "$pcap.err" 2>/dev/null)"
		return 1
	}
}

# cap_stop PCAP: once tcpdump has written what it was handed (cap_settle),
# SIGINT; its statistics go to the log.  1 if it did not end well.
cap_stop() {
	local pcap=$1 pid=${FT_CAP_PID[$1]:-} rc=0

	[ -n "$pid" ] || { log "cap_stop: $pcap is not being captured"; return 1; }
	cap_settle "$pcap" "$pid"
	kill -INT "$pid" 2>/dev/null || rc=$?
	wait "$pid" || rc=$?
	unset "FT_CAP_PID[$pcap]"
	sed "s|^|# tcpdump ${pcap##*/}: |" "$pcap.err"
	return "$rc"
}

# cap_dropped PCAP: packets the kernel dropped from the capture, by
# tcpdump's own count.  Packets the filter took in after tcpdump's last
# read are counted as received but never written; they are only logged:
# one of the test's own would fail the comparisons with tshark's counts,
# which is where a missing frame shows.
cap_dropped() {
	awk '/packets? captured/ { c = $1 } /received by filter/ { r = $1 }
	     /dropped by kernel/ { d = $1 }
	     END {
		if (c == "" || r == "" || d == "") { print "unknown"; exit }
		if (r != c) printf "%s: %d packet(s) after the last write\n", FILENAME, r - c > "/dev/stderr"
		print d
	     }' "$1.err"
}

# oracle SUBCOMMAND ARGS...: selftests/oracle.py, the traffic tests' checks.
oracle() {
	"$FT_PY3" "${FT_LIB%/*}/oracle.py" "$@"
}

# cap_tsv PCAP TSV: one line per frame of the capture, the fields tshark
# decodes that the oracles read (oracle.py's TSV_FIELDS); tshark's
# messages go to TSV.err.
cap_tsv() {
	oracle tsv "$1" "$2"
}

# cap_summary PCAP [CUTS]: JSON {"frames": N, "qp": {"IP/QPN": {counts}}},
# per destination address and BTH destination QP, of what tshark decodes
# (the TSV is kept as PCAP.tsv).  CUTS is a JSON file {"IP/QPN": seconds
# since the epoch} of the QPs of this node destroyed meanwhile: oracle.py's
# pcap_summary() says what the counts are and what a cut does to them.
cap_summary() {
	cap_tsv "$1" "$1.tsv" || return 1
	oracle pcap-summary --tsv "$1.tsv" ${2:+--cuts "$2"}
}

# ---- the end of a test -------------------------------------------------

FT_BG=()
FT_AT_EXIT=()

# bg_add PID...: background jobs of this shell (a traffic program, a
# `peer ... &` client, a monitor) to stop when the test ends.
bg_add() {
	FT_BG+=("$@")
}

# at_exit CMD [ARGS...]: run CMD when the test ends, however it ends; the
# last added runs first.
at_exit() {
	local q

	printf -v q '%q ' "$@"
	FT_AT_EXIT+=("$q")
}

# _ft_child PID: PID is a process this shell started and has not yet
# waited for (so never one that took a reused pid).
_ft_child() {
	local s=''

	{ read -r s <"/proc/$1/stat"; } 2>/dev/null || return 1
	s=${s##*) }
	# shellcheck disable=SC2086 # the fields of /proc/PID/stat
	set -- $s
	[ "${2:-}" = "$$" ]
}

# bg_stop: every capture still running (SIGINT, so tcpdump completes its
# file) and every background job (SIGTERM), each waited for.
bg_stop() {
	local p

	for p in "${FT_CAP_PID[@]}"; do
		if _ft_child "$p"; then
			kill -INT "$p" 2>/dev/null && wait "$p" 2>/dev/null || true
		fi
	done
	FT_CAP_PID=()
	for p in "${FT_BG[@]}"; do
		if _ft_child "$p"; then
			kill "$p" 2>/dev/null && wait "$p" 2>/dev/null || true
		fi
	done
	FT_BG=()
}

# The EXIT trap: the jobs stopped, then the cleanups, in the test's own
# shell only.  The exit status stays the test's (an EXIT trap that does not
# exit leaves it).
_ft_exit() {
	local i

	# a subshell killed before it could drop the trap (a job just forked)
	[ "$BASHPID" = "$$" ] || return 0
	bg_stop || true
	for ((i = ${#FT_AT_EXIT[@]} - 1; i >= 0; i--)); do
		eval "${FT_AT_EXIT[i]}" || log "at exit: '${FT_AT_EXIT[i]% }' failed"
	done
}

# The ERR trap of a test (set -e): it ends now; say where, as a bail-out,
# and never with status 4, which would read as a skip.
_ft_errexit() {
	echo "Bail out! line $2: '$3' failed (exit status $1)"
	[ "$1" -ne "$KSFT_SKIP" ] || exit "$KSFT_FAIL"
}

trap _ft_exit EXIT
if [[ $- == *e* ]]; then
	trap '_ft_errexit $? $LINENO "$BASH_COMMAND"' ERR
fi

# ---- the peer node ----------------------------------------------------

peer() {
	"$FTPEER" "$@"
}

# ---- outside the QEMU harness -----------------------------------------

# _ft_ssh_mode: the peer is FT_PEER_SSH's (not the harness's agent).
_ft_ssh_mode() {
	[ -n "${FT_PEER_SSH:-}" ] && [ -z "${FT_ROLE:-}" ]
}

# _ft_ipv4 HOST: HOST's IPv4 address (HOST may be an ssh config alias).
_ft_ipv4() {
	local h=$1 a

	if [[ $h =~ ^[0-9]+(\.[0-9]+){3}$ ]]; then
		echo "$h"
		return
	fi
	a=$(getent ahostsv4 "$h" 2>/dev/null | awk '{ print $1; exit }')
	if [ -z "$a" ] && command -v ssh >/dev/null; then
		h=$(ssh -G "$h" 2>/dev/null | awk '$1 == "hostname" { print $2; exit }')
		[ -z "$h" ] || a=$(getent ahostsv4 "$h" 2>/dev/null | awk '{ print $1; exit }')
	fi
	echo "$a"
}

# _ft_local_net: FT_NETDEV and FT_SELF_IP, unless set: the route to
# FT_PEER_IP, or the default route, or the first netdev up with IPv4.
_ft_local_net() {
	local dev='' src=''

	if [ -z "${FT_NETDEV:-}" ]; then
		if [ -n "${FT_PEER_IP:-}" ]; then
			read -r dev src < <(ip -o -4 route get "$FT_PEER_IP" 2>/dev/null |
				sed -n 's/.* dev \([^ ]*\).* src \([^ ]*\).*/\1 \2/p') || true
		else
			dev=$(ip -o -4 route show default 2>/dev/null |
				sed -n 's/.* dev \([^ ]*\).*/\1/p' | head -n 1)
			[ -n "$dev" ] || dev=$(ip -o -4 addr show up scope global 2>/dev/null |
				awk '{ print $2; exit }')
		fi
		FT_NETDEV=$dev
	fi
	if [ -z "${FT_SELF_IP:-}" ] && [ -n "$FT_NETDEV" ]; then
		[ -n "$src" ] || src=$(ip -o -4 addr show dev "$FT_NETDEV" 2>/dev/null |
			awk '{ sub("/.*", "", $4); print $4; exit }')
		FT_SELF_IP=$src
	fi
	FT_CTL_IP=${FT_CTL_IP:-${FT_SELF_IP:-}}
}

# _ft_ssh_peer [-t SECS] CMD...: ftpeer's client, over ssh to FT_PEER_SSH.
# The command runs there under _ft_remote, in this working directory, with
# this node as its peer.  ssh's standard input is a pipe nobody writes to:
# it ends only when this ssh goes (done, killed, timed out), and then the
# remote command's whole process group is ended, as ftpeer's agent does.
# ssh goes with the shell that runs it (PR_SET_PDEATHSIG): killing a
# background "peer ... &" ends the remote command too.
_ft_ssh_peer() {
	local to='' q fd d rc=0

	while [ $# -gt 0 ]; do
		case $1 in
		-t) to=$2; shift 2 ;;
		-w) shift 2 ;;	# ftpeer's wait for its agent: ssh has none
		--) shift; break ;;
		*) break ;;
		esac
	done
	printf -v q 'cd %q 2>/dev/null || cd /; export FT_PEER_IP=%q FT_PEER_CTL_IP=%q FT_OUT=%q; . %q && _ft_remote %q' \
		"$PWD" "${FT_SELF_IP:-}" "${FT_CTL_IP:-}" "${FT_OUT:-}" "$FT_LIB" "$*"
	d=$(mktemp -d) && mkfifo "$d/in" && exec {fd}<>"$d/in" && rm -rf "$d" || return 255
	setpriv --pdeathsig TERM ${to:+timeout "$to"} \
		ssh -o BatchMode=yes -o ConnectTimeout=10 -o LogLevel=ERROR \
		"$FT_PEER_SSH" "bash -c $(printf '%q' "$q")" <&"$fd" || rc=$?
	exec {fd}<&-
	return "$rc"
}

# _ft_remote CMD (on the peer, for _ft_ssh_peer): sh -c CMD in a session of
# its own; when standard input ends, SIGTERM to it, SIGKILL 2 s later.
_ft_remote() {
	local pid w in rc=0

	exec {in}<&0
	setsid sh -c "$1" </dev/null &
	pid=$!
	{
		read -r _ || true
		kill -TERM -- "-$pid" 2>/dev/null || exit 0
		sleep 2
		kill -KILL -- "-$pid" 2>/dev/null
	} <&"$in" >/dev/null 2>&1 &
	w=$!
	exec {in}<&-
	wait "$pid" || rc=$?
	kill "$w" 2>/dev/null
	return "$rc"
}

# _ft_shared_out: FT_OUT is a directory the peer sees at the same path.
_ft_shared_out() {
	local tok rc=0

	[ -n "${FT_OUT:-}" ] && [ -d "$FT_OUT" ] || return 1
	tok=$FT_OUT/.ft-shared-$$-$RANDOM
	echo "$tok" >"$tok" 2>/dev/null || return 1
	peer -t 30 "grep -qxF $(printf '%q' "$tok") $(printf '%q' "$tok")" || rc=1
	rm -f "$tok"
	return "$rc"
}

if [ -z "${FT_ROLE:-}" ]; then
	[ -n "${FT_BUILD:-}" ] || [ ! -d "${FT_LIB%/*}/build" ] || export FT_BUILD=${FT_LIB%/*}/build
	if _ft_ssh_mode; then
		FT_PEER_CTL_IP=${FT_PEER_CTL_IP:-$(_ft_ipv4 "${FT_PEER_SSH##*@}")}
		FT_PEER_IP=${FT_PEER_IP:-$FT_PEER_CTL_IP}
		FTPEER=_ft_ssh_peer
		export FT_PEER_CTL_IP FT_PEER_IP
	fi
	_ft_local_net
	[ -z "$FT_NETDEV" ] || export FT_NETDEV
	[ -z "${FT_SELF_IP:-}" ] || export FT_SELF_IP FT_CTL_IP
fi

# FT_PROGS: where the traffic programs (selftests/progs) were built, the
# build tree first; empty when they were not.  Both nodes work it out.
FT_PROGS=
for _d in "${FT_BUILD:-}/selftests/progs" "${FT_REPO:-${FT_LIB%/*}/..}/selftests/progs"; do
	if [ -z "$FT_PROGS" ] && [ -x "$_d/ft_qps" ]; then
		FT_PROGS=$_d
	fi
done
unset _d

# require_progs [PROG...]: skip unless FT_PROGS has PROG (default ft_qps).
require_progs() {
	local p

	[ -n "$FT_PROGS" ] ||
		skip_all "selftests/progs not built (make -C selftests all)"
	for p in "${@:-ft_qps}"; do
		[ -x "$FT_PROGS/$p" ] || skip_all "no $p in $FT_PROGS (make -C selftests all)"
	done
}

# out_dir NAME: OUT, a fresh $FT_OUT/NAME for the test's artefacts (both
# nodes write there).
out_dir() {
	OUT=${FT_OUT:-/tmp}/$1
	rm -rf "$OUT"
	mkdir -p "$OUT"
}

# perftest_listening: the perftest server on the peer listens for its
# client's out-of-band TCP connection (port 18515).
perftest_listening() { peer 'ss -Hltn "sport = :18515" | grep -q .'; }

# _ft_source_libs: the command that sources the libraries this test did.
_ft_source_libs() {
	local l q=''

	for l in "${FT_LIBS[@]}"; do
		q+=". $(printf '%q' "$l") && "
	done
	echo "${q% && }"
}

# peer_lib FUNC ARGS...: FUNC from the libraries the test sourced (FT_LIBS),
# run by bash on the peer.
peer_lib() {
	local q

	printf -v q '%q ' "$@"
	"$FTPEER" "bash -c $(printf '%q' "$(_ft_source_libs) && $q")"
}

# peer_fn FUNC [ARGS...]: a function of the calling test, run on the peer
# (with the test's libraries); it sees only its arguments and the harness's
# FT_*.
peer_fn() {
	local f=$1 q s

	shift
	printf -v q '%q ' "$@"
	# the function's text has newlines, which the peer's sh -c cannot take
	# quoted as bash quotes them: it travels as base64, bash reads it
	s=$(printf '%s\n' "$(_ft_source_libs)" "$(declare -f "$f")" "$f $q" | base64 -w0)
	"$FTPEER" "echo $s | base64 -d | bash"
}

# on_node WHERE FUNC [ARGS...]: FUNC of the test's libraries here (self),
# on the peer (peer_lib), or here and then on the peer (both).
on_node() {
	local where=$1

	shift
	case $where in
	self) "$@" ;;
	peer) peer_lib "$@" ;;
	both) "$@" && peer_lib "$@" ;;
	*) echo "expected self, peer or both, got '$where'" >&2; return 1 ;;
	esac
}

on_both() {
	local rc=0

	sh -c "$*" || rc=$?
	"$FTPEER" "$*" || rc=$?
	return "$rc"
}

# py EXPR FILE...: a Python expression over the JSON files, as a, b, ... (and
# dflt, the default DSCP-to-priority map); its truth is the status, and on
# false the files go to the log.
py() {
	local expr=$1

	shift
	python3 - "$expr" "$@" <<'EOF'
import json, sys
vals = [json.load(open(f)) for f in sys.argv[2:]]
env = dict(zip("abcdefgh", vals))
env["dflt"] = [d >> 3 for d in range(64)]
ok = eval("(" + sys.argv[1] + ")", env)
if not ok:
    for name, v in zip("abcdefgh", vals):
        print(f"# {name} = {json.dumps(v)}")
sys.exit(0 if ok else 1)
EOF
}

# now: the time of day in seconds, to the nanosecond.
now() { date +%s.%N; }

# ft_stat NAME: one of fabtrace's statistics (fabtrace -j stats), e.g. qps.
ft_stat() {
	fabtrace -j stats | python3 -c 'import json, sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"
}

# ---- soft-RoCE ----------------------------------------------------------

# The GID an rdma_rxe port derives from an IPv4 address (IPv4-mapped IPv6).
_rxe_v4_gid() {
	local a b c d

	IFS=. read -r a b c d <<<"$1"
	printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$a" "$b" "$c" "$d"
}

# Ready = port ACTIVE and GID index 1 is the IPv4-mapped one, which is what
# `ib_write_bw -x 1` and friends use.  Both appear asynchronously after
# `rdma link add`.
_rxe_ready() {
	local p=/sys/class/infiniband/rxe0/ports/1

	[ "$(cat "$p/state" 2>/dev/null)" = "4: ACTIVE" ] &&
		[ "$(cat "$p/gids/1" 2>/dev/null)" = "$(_rxe_v4_gid "$FT_SELF_IP")" ]
}

# mod_gone MODULE: MODULE is not loaded.
mod_gone() { [ ! -d /sys/module/"$1" ]; }

# hca_swap KO [PARAM=VALUE...]: ft_hca (selftests/hca, the module KO) in
# rdma_rxe's place, rxe0 ready on the data NIC.  fabtrace (which may hold
# rdma_rxe) goes first.
hca_swap() {
	local ko=$1 m

	shift
	rxe_down self || return 1
	for m in fabtrace ft_hca rdma_rxe; do
		mod_gone "$m" || rmmod "$m" || return 1
	done
	# insmod resolves no dependencies: those modpost found (crypto's on
	# a kernel that builds it as modules), and rdma_ucm for rdma_cm users
	for m in $(modinfo -F depends "$ko" | tr , ' ') rdma_ucm; do
		modprobe "$m" || return 1
	done
	insmod "$ko" "$@" || return 1
	rdma link add rxe0 type rxe netdev "${FT_NETDEV:?}" || return 1
	wait_for 30 _rxe_ready
}

_rxe_up_self() {
	local m

	for m in rdma_rxe ib_uverbs rdma_ucm; do
		modprobe "$m" || return 1
	done
	if [ ! -e /sys/class/infiniband/rxe0 ]; then
		rdma link add rxe0 type rxe netdev "${FT_NETDEV:?}" || return 1
	fi
	wait_for 30 _rxe_ready || {
		echo "rxe0 on $FT_NETDEV not ready after 30 s" >&2
		return 1
	}
}

_rxe_gone() {
	[ ! -e /sys/class/infiniband/rxe0 ]
}

_rxe_down_self() {
	if [ -e /sys/class/infiniband/rxe0 ]; then
		rdma link delete rxe0 || return 1
	fi
	wait_for 30 _rxe_gone
}

# rxe_up [self|peer|both]: rxe0 on the data NIC, port ACTIVE, GID 1 = IPv4.
# Loads rdma_rxe, ib_uverbs, rdma_ucm as needed.  Idempotent.
rxe_up() {
	on_node "${1:-both}" _rxe_up_self
}

# rxe_down [self|peer|both]: delete rxe0 (modules stay loaded).  Idempotent.
rxe_down() {
	on_node "${1:-both}" _rxe_down_self
}

# rxe_stat COUNTER: one counter of rxe0 port 1 (`rdma statistic`), e.g.
# sent_pkts, rcvd_pkts.  `peer_lib rxe_stat sent_pkts` reads the peer's.
rxe_stat() {
	rdma -j statistic show link rxe0/1 |
		python3 -c 'import json, sys; print(json.load(sys.stdin)[0][sys.argv[1]])' "$1"
}
