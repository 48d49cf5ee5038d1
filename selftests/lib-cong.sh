# SPDX-License-Identifier: GPL-2.0
# Helpers of the congestion selftests (cong_*.sh, events.sh, top.sh): qdiscs, monitors, counters.
# shellcheck shell=bash
#
# Source it after lib.sh:
#   . "$(dirname "$(readlink -f "$0")")/lib.sh"
#   . "$(dirname "$(readlink -f "$0")")/lib-cong.sh"
#
# Setup and teardown
#   cong_init NAME          skip unless the two-node bed, the module, the
#                           programs and the tools are there; modprobe
#                           fabtrace and rxe0 on both nodes; artefacts go to
#                           $CONG_OUT ($FT_OUT/NAME); the test's end removes
#                           the qdiscs and restores the parameters
#   cong_param WHERE NAME VALUE   set a fabtrace module parameter on self,
#                           peer or both; the old value comes back at exit
# Background jobs (bg_add), captures (cap_start, cap_stop, cap_dropped,
# cap_summary) and the traffic programs ($FT_PROGS) are lib.sh's.
# Queueing disciplines on the data NIC (self or peer)
#   cong_netem WHERE MATCH NETEM...   prio root, netem on band 1:1, and a u32
#                           filter that sends MATCH (roce | ect0) there; all
#                           other packets bypass netem
#   cong_netem_drops WHERE  netem's drop counter (netem counts ECN marks in it)
#   cong_netem_del WHERE    remove it all
# Captures: CONG_CAP (the options of their cap_start); cong_cuts QPS_FILE IP
#   (the CUTS of cap_summary); cong_pcapv SUMMARY IP QPN KEY
# Event monitors (fabtrace -j monitor, one JSON object per line)
#   cong_mon_start NAME WHERE [ARGS]  -> $CONG_OUT/NAME.mon, synced: returns
#                           once the monitor demonstrably receives events
#   cong_mon_wait NAME JQ_SELECT [N] [SECS]  until N events match
#   cong_mon_stop NAME      SIGINT (self; SIGTERM via the agent on the peer),
#                           and its exit status in CONG_MON_RC
# Counters
#   cong_qps WHERE FILE     fabtrace -j qp show dev rxe0 (live and retained)
#   cong_qpv FILE QPN PID JQPATH   one value of the entry (QPN, owner PID)
#   cong_rxe WHERE FILE     rdma -j statistic of rxe0/1;  cong_rxev FILE NAME
#   cong_stats WHERE FILE   fabtrace -j stats
#   cong_stats_delta NAME   NAME in $CONG_OUT/stats1.json less in stats0.json
# Assertions that print their numbers
#   cong_eq DESC A B; cong_le DESC A B; cong_gt DESC A B

FT_LIBS+=("$(readlink -f "${BASH_SOURCE[0]}")")
CONG_CLI=${CONG_CLI:-$(command -v fabtrace || echo "${FT_REPO:-}/user/fabtrace")}
CONG_DEV=rxe0

# ---- setup ---------------------------------------------------------------

declare -A CONG_PARAM_SAVED=()
declare -A CONG_MON_PID=() CONG_MON_WHERE=()
CONG_MON_RC=

cong_init() {
	CONG_NAME=$1
	require_peer
	require_module fabtrace
	require_cmd rdma tc tcpdump tshark jq python3 ip
	[ -x "$CONG_CLI" ] || skip_all "fabtrace CLI not built ($CONG_CLI)"
	require_progs ft_qps ft_cnp ft_rnr ft_timeout
	out_dir "$CONG_NAME"
	CONG_OUT=$OUT
	at_exit cong_cleanup
	# leftovers of an earlier test must not disturb this one
	cong_netem_del self
	cong_netem_del peer
	on_both modprobe fabtrace || fail_all "modprobe fabtrace failed"
	rxe_up both || fail_all "rxe0 did not come up on both nodes"
	# The checks read destroyed QPs' entries long after on a slow node:
	# never depend on the retain_ms an earlier test left (cong_ecn failed
	# on 6.12 once qp_send_err, run before it, reloaded with the default).
	cong_param both retain_ms 600000 || fail_all "cannot set retain_ms"
}

# cong_param WHERE NAME VALUE: WHERE is self, peer or both.
cong_param() {
	local where=$1 name=$2 val=$3 p=/sys/module/fabtrace/parameters/$2 w

	for w in self peer; do
		[ "$where" = both ] || [ "$where" = "$w" ] || continue
		if [ -z "${CONG_PARAM_SAVED[$w:$name]:-}" ]; then
			if [ "$w" = self ]; then
				CONG_PARAM_SAVED[$w:$name]=$(cat "$p")
			else
				CONG_PARAM_SAVED[$w:$name]=$(peer cat "$p")
			fi
		fi
		if [ "$w" = self ]; then
			echo "$val" >"$p" || return 1
		else
			peer "echo $val > $p" || return 1
		fi
	done
	log "module parameter $name = $val on $where"
}

# cong_cleanup (at exit, after lib.sh stopped the background jobs): no
# qdisc left, the module parameters as they were.
cong_cleanup() {
	local k w p

	cong_netem_del self
	cong_netem_del peer
	for k in "${!CONG_PARAM_SAVED[@]}"; do
		w=${k%%:*}
		p=/sys/module/fabtrace/parameters/${k#*:}
		if [ "$w" = self ]; then
			echo "${CONG_PARAM_SAVED[$k]}" >"$p"
		else
			peer "echo ${CONG_PARAM_SAVED[$k]} > $p"
		fi
	done
	return 0
}

# ---- queueing disciplines --------------------------------------------------

# u32 matches: RoCEv2 (UDP to 4791; rxe's IPv4 header has no options), and
# RoCEv2 whose ECN field is ECT(0).
_cong_match() {
	case $1 in
	roce) echo "match ip protocol 17 0xff match ip dport 4791 0xffff" ;;
	ect0) echo "match ip protocol 17 0xff match ip dport 4791 0xffff match ip tos 0x02 0x03" ;;
	*) return 1 ;;
	esac
}

_cong_netem_self() {
	local match dev=${FT_NETDEV:?}

	match=$(_cong_match "$1") || return 1
	shift
	tc qdisc del dev "$dev" root 2>/dev/null || true
	# every priority to band 1:2 (a pfifo); only the filter reaches 1:1
	tc qdisc add dev "$dev" root handle 1: prio bands 3 \
		priomap 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 || return 1
	tc qdisc add dev "$dev" parent 1:1 handle 10: netem "$@" || return 1
	# shellcheck disable=SC2086 # match is a list of words
	tc filter add dev "$dev" parent 1: protocol ip prio 1 u32 $match flowid 1:1
}

# cong_netem WHERE MATCH NETEM-ARGS...
cong_netem() {
	local where=$1

	shift
	log "netem on $where: $*"
	on_node "$where" _cong_netem_self "$@"
}

# cong_netem_change WHERE NETEM-ARGS...: new netem parameters, same filter.
_cong_netem_change_self() {
	tc qdisc change dev "${FT_NETDEV:?}" parent 1:1 handle 10: netem "$@"
}

cong_netem_change() {
	local where=$1

	shift
	log "netem on $where now: $*"
	on_node "$where" _cong_netem_change_self "$@"
}

_cong_netem_drops_self() {
	tc -s -j qdisc show dev "${FT_NETDEV:?}" |
		jq '[.[] | select(.kind == "netem") | .drops] | add // 0'
}

cong_netem_drops() {
	on_node "$1" _cong_netem_drops_self
}

_cong_netem_del_self() {
	tc qdisc del dev "${FT_NETDEV:?}" root 2>/dev/null || true
}

cong_netem_del() {
	on_node "$1" _cong_netem_del_self
}

# ---- captures --------------------------------------------------------------

# CONG_CAP: the options of the congestion tests' captures (lib.sh's
# cap_start "$CONG_OUT/NAME.pcap" "${CONG_CAP[@]}" [-- FILTER]): complete
# frames, each written as it comes, and the NIC not made promiscuous (a
# test of PFC frames must not be).
# shellcheck disable=SC2034 # for the tests
CONG_CAP=(-p -U -B 16384)

# cong_cuts QPS_FILE IP: the CUTS of cap_summary for the destroyed QPs
# of a qp show -j snapshot of the node at IP.
cong_cuts() {
	jq --arg ip "$2" '[.[] | select(.destroy_time) |
		{key: "\($ip)/\(.qpn)", value: (.destroy_time / 1e9)}] | from_entries' "$1"
}

# cong_pcapv SUMMARY IP QPN KEY: one count of the QP QPN of the node at IP
# (0 if that QP never appeared).
cong_pcapv() {
	jq -r --arg q "$2/$3" ".qp[\$q].$4 // 0" "$1"
}

# ---- event monitors --------------------------------------------------------

# A QP created and destroyed at once: its events prove a monitor listens.
# Prints "QPN PID".
cong_probe_qp() {
	local out

	out=$("$FT_PROGS/ft_qps" --no-connect -n 1 --iters 0 2>/dev/null) || return 1
	jq -r '"\(.qps[0].qpn) \(.pid)"' <<<"$out"
}

# cong_mon_start NAME WHERE [MONITOR ARGS...]
cong_mon_start() {
	local name=$1 where=$2 out=$CONG_OUT/$1.mon err=$CONG_OUT/$1.monerr probe

	shift 2
	rm -f "$out" "$err"
	if [ "$where" = self ]; then
		"$CONG_CLI" -j monitor "$@" >"$out" 2>"$err" &
	else
		peer fabtrace -j monitor "$@" >"$out" 2>"$err" &
	fi
	CONG_MON_PID[$name]=$!
	CONG_MON_WHERE[$name]=$where
	bg_add "$!"
	# the monitor listens once it sees the events of a probe QP; it may
	# have joined the group only after the first probe, so try again
	local i qpn pid
	for i in 1 2 3 4 5; do
		probe=$(on_node "$where" cong_probe_qp) || return 1
		read -r qpn pid <<<"$probe"
		if cong_mon_wait "$name" \
		   "select(.kind == \"qp-destroy\" and .qpn == $qpn and .pid == $pid)" 1 $((i * 3)); then
			# shellcheck disable=SC2034 # for the tests
			CONG_MON_SYNC_SEQ=$(jq -s 'map(.seq // 0) | max' "$out")
			return 0
		fi
	done
	log "monitor $name on $where receives nothing: $(cat "$err")"
	return 1
}

# cong_mon_count NAME JQ_SELECT: how many events the filter selects.
cong_mon_count() {
	{ jq -c "$2" "$CONG_OUT/$1.mon" 2>/dev/null || true; } | wc -l
}

# cong_mon_wait NAME JQ_SELECT [N] [SECS]: until N (1) events match.
cong_mon_wait() {
	local n=${3:-1}

	_mon_has() { [ "$(cong_mon_count "$1" "$2")" -ge "$3" ]; }
	wait_for "${4:-30}" _mon_has "$1" "$2" "$n"
}

# cong_pfc_storm DURING AFTER: B pauses priority 3 of A's data NIC for
# 600 ms, 120 XOFFs of 65535 quanta 5 ms apart (ft_pfc), while A's
# monitor "mon" runs; A's pfc show of rxe0 goes to the file DURING once
# storm-start came, to AFTER once storm-end did (waits that log a miss).
cong_pfc_storm() {
	local inj

	peer "$FT_PROGS/ft_pfc --ifname \$FT_NETDEV --prio 3 --quanta 65535 --count 120 --interval-us 5000" \
		>"$CONG_OUT/storm.json" 2>"$CONG_OUT/storm.err" &
	inj=$!
	bg_add $inj
	cong_mon_wait mon 'select(.kind == "storm-start")' 1 10 || log "no storm-start event"
	"$CONG_CLI" -j pfc show dev rxe0 >"$1"
	wait "$inj" || log "ft_pfc storm: exit $?"
	log "ft_pfc storm: $(jq -c . "$CONG_OUT/storm.json" 2>/dev/null)"
	cong_mon_wait mon 'select(.kind == "storm-end")' 1 15 || log "no storm-end event"
	"$CONG_CLI" -j pfc show dev rxe0 >"$2"
}

# cong_mon_stop NAME: end the monitor (SIGINT) and collect its status.  A
# monitor on the peer gets SIGTERM from the agent when its local client
# dies (the client, a background job, ignores SIGINT); its status is lost.
cong_mon_stop() {
	local pid=${CONG_MON_PID[$1]}

	if [ "${CONG_MON_WHERE[$1]}" = self ]; then
		kill -INT "$pid" 2>/dev/null || true
	else
		kill -TERM "$pid" 2>/dev/null || true
	fi
	CONG_MON_RC=0
	wait "$pid" || CONG_MON_RC=$?
	unset "CONG_MON_PID[$1]"
	if [ -s "$CONG_OUT/$1.monerr" ]; then
		sed "s/^/# monitor $1 stderr: /" "$CONG_OUT/$1.monerr"
	fi
	log "monitor $1: $(wc -l <"$CONG_OUT/$1.mon") events, exit $CONG_MON_RC"
}

# cong_json_lines FILE: every line is one JSON object.
cong_json_lines() {
	oracle json-lines "$1"
}

# ---- counters --------------------------------------------------------------

# cong_qps WHERE FILE: every QP entry of rxe0, live and retained.
cong_qps() {
	if [ "$1" = self ]; then
		"$CONG_CLI" -j qp show dev "$CONG_DEV" >"$2"
	else
		peer fabtrace -j qp show dev "$CONG_DEV" >"$2"
	fi
}

# cong_qpv FILE QPN PID JQPATH: e.g. cong_qpv f 17 4242 .cong.rx_ce
cong_qpv() {
	jq -r --argjson q "$2" --argjson p "$3" \
		"[.[] | select(.qpn == \$q and .pid == \$p)] | last | $4 // \"none\"" "$1"
}

cong_rxe() {
	if [ "$1" = self ]; then
		rdma -j statistic show link "$CONG_DEV/1" >"$2"
	else
		peer rdma -j statistic show link "$CONG_DEV/1" >"$2"
	fi
}

cong_rxev() {
	jq -r ".[0].$2" "$1"
}

cong_stats() {
	if [ "$1" = self ]; then
		"$CONG_CLI" -j stats >"$2"
	else
		peer fabtrace -j stats >"$2"
	fi
}

# cong_stats_delta NAME: how much statistic NAME grew between the
# snapshots $CONG_OUT/stats0.json and stats1.json (cong_stats).
cong_stats_delta() {
	echo $(( $(jq ".$1" "$CONG_OUT/stats1.json") - $(jq ".$1" "$CONG_OUT/stats0.json") ))
}

cong_dev() {
	if [ "$1" = self ]; then
		"$CONG_CLI" -j dev show "$CONG_DEV" >"$2"
	else
		peer fabtrace -j dev show "$CONG_DEV" >"$2"
	fi
}

# cong_devv FILE JQPATH: the device object may come as an array or alone.
cong_devv() {
	jq -r "if type == \"array\" then .[0] else . end | $2" "$1"
}

# ---- assertions --------------------------------------------------------------

_cong_nums() {
	local v

	for v in "$@"; do
		[[ $v =~ ^-?[0-9]+$ ]] || return 1
	done
}

# _cong_cmp DESC A TEST B HOLDS FAILS: ok if test A TEST B holds (integers);
# the result says HOLDS, or FAILS (the numbers in each).
_cong_cmp() {
	if _cong_nums "$2" "$4" && test "$2" "$3" "$4"; then
		ktap_ok "$1 ($5)"
	else
		ktap_fail "$1 ($6)"
	fi
}

# cong_eq DESC A B: ok if A == B (integers); the numbers go in the result.
cong_eq() { _cong_cmp "$1" "$2" -eq "$3" "$2 == $3" "$2 != $3"; }
cong_le() { _cong_cmp "$1" "$2" -le "$3" "$2 <= $3" "not $2 <= $3"; }
cong_gt() { _cong_cmp "$1" "$2" -gt "$3" "$2 > $3" "not $2 > $3"; }

# cong_xfail DESC WHY CMD...: a check a known bug makes fail.  Passing is
# reported as a plain ok (the bug is gone: make it a ktap_result); failing
# is "ok ... # XFAIL WHY", as kselftest reports expected failures.
cong_xfail() {
	local desc=$1 why=$2

	shift 2
	if "$@"; then
		ktap_ok "$desc"
	else
		KTAP_N=$((KTAP_N + 1)) KTAP_PASS=$((KTAP_PASS + 1))
		echo "ok $KTAP_N $desc # XFAIL $why"
	fi
}

# ---- congested QPs -------------------------------------------------------------

_cong_pidsel() {
	local IFS=,

	echo "select(.pid as \$p | [$*] | index(\$p))"
}

# cong_congested_expected FILE PID...: the QPNs of those owners whose counters
# say congested (a CE mark, a CNP, a NAK or a retransmission), sorted.
cong_congested_expected() {
	local f=$1

	shift
	jq -r "[.[] | $(_cong_pidsel "$@") | select(.cong.rx_ce > 0 or
		.cong.retransmits > 0 or .tx.cnp > 0 or .rx.cnp > 0 or
		([.cong.tx_nak[], .cong.rx_nak[]] | add) > 0) | .qpn] | sort | join(\" \")" "$f"
}

# cong_congested_listed WHERE PID...: what `qp show congested` lists for them.
cong_congested_listed() {
	local where=$1 f

	shift
	f=$(mktemp)
	if [ "$where" = self ]; then
		"$CONG_CLI" -j qp show dev "$CONG_DEV" congested >"$f"
	else
		peer fabtrace -j qp show dev "$CONG_DEV" congested >"$f"
	fi
	jq -r "[.[] | $(_cong_pidsel "$@") | .qpn] | sort | join(\" \")" "$f"
	rm -f "$f"
}
