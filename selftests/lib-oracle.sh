# SPDX-License-Identifier: GPL-2.0
# Oracle helpers for the per-QP accounting tests: snapshots, live samples, checks.
# shellcheck shell=bash disable=SC2034 # variables for the tests that source it
#
# Source after lib.sh.  Each test compares what fabtrace counted with
# something fabtrace does not control (the comparisons are oracle.py's):
#   rdma statistic   rxe's own sent_pkts / rcvd_pkts, per node
#   the application  perftest's reported iterations x size, ft_qps's JSON
#   the peer node    B's rx counters of A's peer QP, and the reverse
#   the wire         tcpdump in node A, decoded by tshark's InfiniBand dissector
#
# Module:    or_fresh_module ARGS... (both nodes: rmmod, modprobe fabtrace ARGS)
# Devices:   or_rxe1_up / or_rxe1_down (rxe1 on a dummy NIC, this node)
# Snapshots: or_snap self|peer FILE (rxe0's QPs + device + stats + rxe's
#            counters); or_snap_all FILE (every device, this node);
#            or_quiesce [SECS [self]] (rxe counters stopped moving)
# Owners:    or_spawn LOG CMD... (background; LOG starts with "PID=<pid of
#            CMD>"); peer "$OR_EXEC_PID CMD" runs CMD on the peer the same way
# Live:      or_live_sample DIR, while the pattern's QPs exist: per node,
#            rdma resource show qp, fabtrace's dump, rdma resource again
# Retention: or_retain_batch DIR; or_batch_qpns DIR; or_poll_gone FILE QPNS
#            SECS; or_retain_check DIR POLLS RETAIN SLACK (ft_qps batches
#            destroyed, then read until gone)
# Checks:    oracle SUBCOMMAND ... (lib.sh: selftests/oracle.py):
#            spec-perftest, spec-ftqps, spec-rping build what a pattern must
#            show; check compares snapshots, capture and spec (or_check DIR
#            CAPTURE runs it over a pattern's files); overflow, retain,
#            filters, schema, pidns, reset, resumed check the other tests.
#            Each writes "KEY ok|fail" lines; or_ok RESULTS KEY reads one.
# The capture (lib.sh's cap_start; cap_tsv gives the checks their TSV), the
# programs (require_progs), background jobs and the peer (peer_lib) are
# lib.sh's.

FT_LIBS+=("$(readlink -f "${BASH_SOURCE[0]}")")
# Run a command so that its pid is the first line of its output ("PID=N"):
# for `peer`, whose words run under sh -c on the other node.
# shellcheck disable=SC2016 # expanded by the shell that runs it
OR_EXEC_PID='echo "PID=$$"; exec'

# or_outdir NAME: a fresh artefact directory OR_OUT, $FT_OUT/NAME (shared
# by both nodes: lib.sh's out_dir), and a local scratch directory OR_TMP for
# captures.
or_outdir() {
	out_dir "$1"
	OR_OUT=$OUT
	OR_TMP=$(mktemp -d "/tmp/$1.XXXXXX")
}

# ---- the module ----------------------------------------------------------

_or_reload_self() {
	if [ -e /sys/module/fabtrace ]; then
		rmmod fabtrace || return 1
	fi
	modprobe fabtrace "$@"
}

# or_fresh_module ARGS...: fabtrace reloaded with ARGS on both nodes, so its
# statistics (malformed, unknown, hook-missed, overflow) start from 0.
or_fresh_module() {
	on_node both _or_reload_self "$@"
}

# ---- a second device ------------------------------------------------------

# or_rxe1_up: rxe1 on a dummy NIC (10.97.0.1/24) of this node: a second
# device whose QP numbers overlap rxe0's; loopback traffic works on it.
OR_DUMMY=ftdummy0
_or_rxe1_ready() {
	[ "$(cat /sys/class/infiniband/rxe1/ports/1/state 2>/dev/null)" = "4: ACTIVE" ] &&
		[ "$(cat /sys/class/infiniband/rxe1/ports/1/gids/1 2>/dev/null)" = "$(_rxe_v4_gid 10.97.0.1)" ]
}

or_rxe1_up() {
	ip link add "$OR_DUMMY" type dummy &&
		ip link set "$OR_DUMMY" up &&
		ip addr add 10.97.0.1/24 dev "$OR_DUMMY" &&
		rdma link add rxe1 type rxe netdev "$OR_DUMMY" &&
		wait_for 30 _or_rxe1_ready
}

or_rxe1_down() {
	rdma link delete rxe1 2>/dev/null || true
	ip link del "$OR_DUMMY" 2>/dev/null || true
}

# ---- snapshots -----------------------------------------------------------

# _or_snap [all]: one JSON object, read in this order: every QP entry of
# rxe0 (live and retained) and the device ("dev"), with the node and the
# time; or ("all") every device's entries and every device ("devs"); then
# the module's statistics and rxe0's own counters.
_or_snap() {
	if [ "${1:-}" = all ]; then
		printf '{"qps":'
		fabtrace -j qp show || return 1
		printf ',\n"devs":'
		fabtrace -j dev show || return 1
	else
		printf '{"node":"%s","time_ns":%s,\n"qps":' "${FT_ROLE:-?}" "$(date +%s%N)"
		fabtrace -j qp show dev rxe0 || return 1
		printf ',\n"dev":'
		fabtrace -j dev show rxe0 || return 1
	fi
	printf ',\n"stats":'
	fabtrace -j stats || return 1
	printf ',\n"rxe":'
	rdma -j statistic show link rxe0/1 || return 1
	printf '}\n'
}

# or_snap_all FILE: this node, every device.
or_snap_all() {
	_or_snap all >"$1"
}

# or_snap self|peer FILE
or_snap() {
	case $1 in
	self) _or_snap >"$2" ;;
	peer) peer_lib _or_snap >"$2" ;;
	*) echo "or_snap: self or peer, not '$1'" >&2; return 1 ;;
	esac
}

# or_check DIR CAPTURE [ARGS...]: the checker over DIR's snapshots (a0, a1,
# b0, b1), spec, decoded capture and live QP lists, with the messages of
# CAPTURE's tcpdump ($OR_TMP/CAPTURE.pcap); the verdicts go to DIR/results,
# which or_ok reads.
or_check() {
	local d=$1 cap=$2

	shift 2
	oracle check --a0 "$d/a0.json" --a1 "$d/a1.json" --b0 "$d/b0.json" --b1 "$d/b1.json" \
		--spec "$d/spec.json" --tsv "$d/capture.tsv" --caperr "$OR_TMP/$cap.pcap.err" \
		--self-ip "$FT_SELF_IP" --live-a "$d/live-a.txt" --live-b "$d/live-b.txt" \
		--out "$d/results" "$@"
}

_or_counts() {
	rdma statistic show link rxe0/1 |
		awk '{ for (i = 1; i < NF; i++) if ($i == "sent_pkts" || $i == "rcvd_pkts") printf "%s ", $(i + 1) }'
}

# or_quiesce [SECS [self]]: wait until rxe's sent/rcvd counters of both
# nodes (or only this one) read the same twice, 0.5 s apart (default: give
# up after 30 s).  Prints them.
or_quiesce() {
	local end=$((SECONDS + ${1:-30})) prev='' cur

	while :; do
		cur="A $(_or_counts)"
		[ "${2:-}" = self ] || cur="$cur B $(peer_lib _or_counts)"
		if [ "$cur" = "$prev" ]; then
			log "quiesced: rxe sent/rcvd $cur"
			return 0
		fi
		if [ "$SECONDS" -ge "$end" ]; then
			log "rxe counters still moving after ${1:-30} s: $cur"
			return 1
		fi
		prev=$cur
		sleep 0.5
	done
}

# ---- processes -----------------------------------------------------------

# or_spawn LOG CMD...: CMD in the background (under timeout OR_SPAWN_S,
# default 300 s; the test's end stops it), stdout and stderr to LOG, whose
# first line is "PID=<CMD's pid>".  OR_SPAWNED = the pid to wait for,
# OR_PID = CMD's own (its QPs' owner).
or_spawn() {
	local out=$1

	shift
	# shellcheck disable=SC2016 # $$ is the inner bash's pid, which CMD takes
	timeout "${OR_SPAWN_S:-300}" bash -c 'echo "PID=$$"; exec "$@"' or_spawn "$@" >"$out" 2>&1 &
	OR_SPAWNED=$!
	bg_add "$OR_SPAWNED"
	OR_PID=
	if wait_for 30 grep -q '^PID=' "$out"; then
		OR_PID=$(or_pid_of "$out")
	fi
}

# or_pid_of LOG: the PID= line of a log written by or_spawn or OR_EXEC_PID.
or_pid_of() {
	sed -n 's/^PID=\([0-9]\+\)$/\1/p' "$1" | head -n 1
}

# ---- live samples --------------------------------------------------------

# One sample: ib_core's own view of the QPs (`rdma resource show qp`, the
# restrack nldev reads), fabtrace's dump, ib_core's view again; "@@" ends it.
# A QP whose state ib_core shows the same before and after must have that
# state in fabtrace's dump in between.
_or_sample() {
	rdma -j resource show qp link rxe0/1
	fabtrace -j qp show dev rxe0
	rdma -j resource show qp link rxe0/1
	echo "@@"
}

# or_live_sample DIR: one sample of each node, A then B, into
# DIR/live-a.txt and DIR/live-b.txt, taken while the pattern's QPs exist.
or_live_sample() {
	_or_sample >"$1/live-a.txt" 2>&1
	peer_lib _or_sample >"$1/live-b.txt" 2>&1
}

# ---- retention -------------------------------------------------------------

# or_retain_batch DIR: on this node, ft_qps --loopback connects 4 QPs in
# pairs, writes 5 x 4 KiB per pair and destroys them; DIR gets qps.json,
# snapshots s0.json and s1.json around it, and "times" (ns before, after).
or_retain_batch() {
	local d=$1 tb ta

	mkdir -p "$d"
	or_snap self "$d/s0.json" || return 1
	tb=$(date +%s%N)
	"$FT_PROGS/ft_qps" --loopback -n 4 --iters 5 --size 4096 --op write \
		>"$d/qps.json" 2>"$d/qps.err" || log "ft_qps failed: $(cat "$d/qps.err")"
	ta=$(date +%s%N)
	or_snap self "$d/s1.json" || return 1
	echo "$tb $ta" >"$d/times"
}

# or_batch_qpns DIR: the batch's QP numbers, comma-separated.
or_batch_qpns() {
	or_jq "$1/qps.json" '",".join(str(q["qpn"]) for q in d["qps"])' 2>/dev/null || echo 0
}

# or_poll_gone FILE QPNS SECS: read those QPs every 0.2 s ("t0_us t1_us
# JSON" per read, appended to FILE) until a read finds none of them.
or_poll_gone() {
	local end=$((SECONDS + $3)) t0 t1 out

	while [ "$SECONDS" -lt "$end" ]; do
		t0=${EPOCHREALTIME/./}
		out=$(fabtrace -j qp show dev rxe0 qpn "$2") || return 1
		t1=${EPOCHREALTIME/./}
		echo "$t0 $t1 $out" >>"$1"
		[ "$out" != "[]" ] || return 0
		sleep 0.2
	done
	return 1
}

# or_retain_check DIR POLLS RETAIN_MS SLACK_MS [OTHERS [SNAP_RETAIN]]: the
# verdicts final, kept and gone of a batch (after the polls, with
# DIR/s2.json taken).  OTHERS: retained entries of an earlier batch that
# s1 may show; SNAP_RETAIN: retain_ms when s1 was taken, if not RETAIN_MS.
or_retain_check() {
	local tb ta

	read -r tb ta <"$1/times"
	oracle retain --s0 "$1/s0.json" --s1 "$1/s1.json" --s2 "$1/s2.json" --json "$1/qps.json" \
		--polls "$2" --tb "$tb" --ta "$ta" --retain "$3" --slack "$4" --others "${5:-0}" \
		--snap-retain "${6:-0}" --out "$1/results"
}

# ---- verdicts ------------------------------------------------------------

# or_ok RESULTS KEY: did check KEY pass (a line "KEY ok" in RESULTS)?
or_ok() {
	grep -qx "$2 ok" "$1"
}

# or_jq FILE EXPR: print a Python expression over the JSON document d.
or_jq() {
	"$FT_PY3" -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}
