#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# fabtrace on a hardware-like NIC (ft_hca): its counter sets and port counters, against rdma(8), B's taps and tshark.
# timeout=600
#
# Node A swaps rdma_rxe for ft_hca.ko (selftests/hca: rxe under another
# name, with the RDMA core's counter sets and mlx5's counters) and loads
# fabtrace, whose taps do not attach to it: A is a hardware NIC to
# fabtrace.  Node B keeps plain rdma_rxe with fabtrace's exact taps.  Every
# number fabtrace shows on A is checked against one it does not make:
#
#   dev       A's dev show says "sets" and "port counters", the port's
#             counter mode; B's says "tap"; -s and -j show every port
#             counter by its driver's name, equal to rdma statistic show's;
#             its ECN and CNP counters under fabtrace's names, = rdma's np_/rp_
#   off       fabtrace loaded as is (hw_bind off): a QP is bound to no set
#             (rdma statistic qp show lists none while it lives), its PSNs'
#             progress counts B's writes; then hw_bind=1 for what follows
#   reset     a QP in no set goes back through RESET, INIT, RTR and RTS with
#             PSNs 2^22 further (ft_qps --reconnect), after fabtrace read
#             its old ones: its PSN progress is B's writes of both runs,
#             with no jump of about 2^22 at the new PSNs
#   write     ib_write_bw B -> A: A's QP has source set (fabtrace bound
#             it), set id and rx_write_requests as rdma statistic qp show
#             reads the same set, and equal to B's tapped tx write packets
#             for the peer QP; nothing the NIC does not count is shown as 0
#             (no tx, rx, rx_ce ...: "-" in text, absent from JSON)
#   loss      the same with 3% of B's requests lost: A's out_of_sequence
#             and duplicate_request (and fabtrace's rx_oos, rx_dup) equal
#             what the capture on A says rxe's responder saw; monitor on A
#             has NAK events of A's QP from its set (counts no more than
#             its sequence errors), and no retransmit or timeout event
#   retained  the QPs destroyed, A's entries keep their sets' final values
#   exhausted ft_hca reloaded with 8 counter sets, 50 QPs: process 1's ten
#             take the 8 sets, the last of them sharing one of its sets
#             (set-shared(n); rdma statistic qp show lists 8 sets holding
#             the ten, with fabtrace's values; each set's writes those of
#             B's peer QPs); processes 2-5's 40 QPs get ENOMEM and their
#             PSNs' progress: each one's new requests received == B's
#             tapped writes (no loss); the port's rx_write_requests == the
#             8 sets' + the 40 psn_rx == B's writes to all 50
#   top       fabtrace top on A beside that traffic: the PSN QPs' rx_pps over
#             the snapshots adds up to their psn_rx; the set QPs have no
#             packet, byte or CE rate; the port's ECN/CNP rates name the PSN
#             QPs as active
#   export    the same moment: QPs by source, no packet series for rxe0,
#             the port's driver counters as dev show's
#   unload    rmmod fabtrace while those 50 QPs live: the QPs it bound are
#             unbound (rdma statistic qp show lists no set), and the
#             operator can set auto mode
#   operator  auto mode set with rdma(8): dev show says so (operator's),
#             fabtrace binds nothing (EBUSY) and reads the core's own set
#   manual    a QP bound by hand (rdma statistic qp bind) while hw_bind was
#             off: with it on again, fabtrace binds no new QP on that port
#             (EBUSY, psn), the operator's set is the port's only one
#   wrap      ft_hca reloaded with its counters starting 296 below 2^32: the
#             port's rx_write_requests, which rdma statistic show sees wrap
#             (go down), goes on rising in fabtrace: rdma's + 2^32
#   large     ft_hca with one set, hw_bind=1: of one process's 400 QPs,
#             as many share it as rdma(8) can list in a page (rdma
#             statistic qp show lists it), the rest are refused (ENOMEM);
#             then an operator's auto set of 3,000 QPs, too large for
#             nldev to list: dev show says the sets are not read, qp show
#             answers, rmmod returns
#   delete    rdma link delete rxe0 while 20 QPs share fabtrace's set and
#             the poll runs: fabtrace forgets rxe0, the delete returns once
#             the QPs' process is stopped, rmmod returns
set -euo pipefail
HERE=$(dirname "$(readlink -f "$0")")
. "$HERE/lib.sh"
. "$HERE/lib-cong.sh"

KO=${FT_BUILD:-}/$(uname -r)/hca/ft_hca.ko
ORACLE=$HERE/hca/pcap_oracle.py
[ -f "$ORACLE" ] || ORACLE=$HERE/pcap_oracle.py	# as installed (make install)
A_IP=${FT_SELF_IP:-}

require_peer
require_module fabtrace
require_cmd fabtrace rdma ib_write_bw tc tcpdump tshark jq python3 ss insmod
require_progs ft_qps
[ -f "$KO" ] || skip_all "$KO not built (make test-modules)"
O=${FT_OUT:-/tmp}/hw
CONG_OUT=$O
rm -rf "$O"
mkdir -p "$O"

# ---- helpers ---------------------------------------------------------------

_gone() { mod_gone "$1"; }

# hca_load ARGS: ft_hca (ARGS) in rdma_rxe's place, rxe0 on the data NIC
# (lib.sh's hca_swap), then fabtrace with FT_ARGS.  Reads every 200 ms.
FT_ARGS=()
hca_load() { hca_swap "$KO" "$@" && ft_load; }
ft_load() { modprobe fabtrace retain_ms=600000 hw_poll_ms=200 "${FT_ARGS[@]}"; }
# hw_bind 0|1: fabtrace's binding off or on, for QPs made from now on
hw_bind() { echo "$1" >/sys/module/fabtrace/parameters/hw_bind; }

# B: plain soft-RoCE, fabtrace reloaded with long retention
b_load() {
	peer "rmmod fabtrace 2>/dev/null; modprobe fabtrace retain_ms=600000" &&
		rxe_up peer && peer test -d /sys/module/rdma_rxe
}

cleanup() {
	cong_netem_del peer
	_gone fabtrace || rmmod fabtrace || true
	rxe_down self || true
	_gone ft_hca || rmmod ft_hca || true
	# as later tests expect a node: fabtrace loaded, rdma_rxe back
	modprobe fabtrace || true
}
at_exit cleanup

local_listening() { ss -Hltn "sport = :18515" | grep -q .; }

HOLD=$((8 * ${FT_TIMEOUT_SCALE:-1}))
REPORT='^ *Waiting [0-9]+ seconds before releasing resources'

# write NAME ARGS...: ib_write_bw from B to A's server (-d rxe0 -x 1 -F,
# -u 20: a 4 s ACK timeout); both keep their QPs HOLD s after the report,
# in which live.sh samples A (fabtrace, rdma statistic qp) and B (fabtrace).
write() {
	local name=$1 rc=0 spid

	shift
	timeout 120 stdbuf -oL ib_write_bw -d rxe0 -x 1 -F -u 20 "$@" \
		--wait_destroy=$HOLD >"$O/$name.srv" 2>&1 &
	spid=$!
	bg_add "$spid"
	wait_for 60 local_listening || return 1
	peer -t 120 "ib_write_bw -d rxe0 -x 1 -F -u 20 $* --wait_destroy=$HOLD $A_IP" \
		>"$O/$name.cli" 2>&1 &
	cpid=$!
	bg_add "$cpid"
	if wait_for 100 grep -qE "$REPORT" "$O/$name.srv"; then
		# two of fabtrace's reads after the last packet
		sleep 1
		fabtrace -j qp show dev rxe0 >"$O/$name.a.json"
		rdma -j statistic qp show link rxe0/1 >"$O/$name.sets.json"
		peer fabtrace -j qp show dev rxe0 >"$O/$name.b.json"
		fabtrace qp show dev rxe0 >"$O/$name.a.txt"
		fabtrace -s qp show dev rxe0 >"$O/$name.a.s.txt"
	else
		log "$name: no report from the server"
		rc=1
	fi
	wait "$spid" || rc=$?
	wait "$cpid" || rc=$?
	[ "$rc" = 0 ] || sed "s/^/# $name: /" "$O/$name.srv" "$O/$name.cli"
	return "$rc"
}

# ptv FILE local|remote QPN|PSN: perftest's printed QP number or first PSN
ptv() {
	local v

	v=$(awk -v w="$2" -v f="$3" '$1 == w && $2 == "address:" {
		for (i = 3; i < NF; i++) if ($i == f) { print $(i + 1); exit } }' "$1")
	echo $((v))
}

# qp FILE QPN JQ: one value of a QP's entry (the last with that number:
# a retained one comes first), "none" if null
qp() { jq -r --argjson q "$2" "[.[] | select(.qpn == \$q)] | last | $3 // \"none\"" "$1"; }
# hwc FILE QPN NAME: a counter of the QP's set, by its driver's name
hwc() { qp "$1" "$2" ".hw.counters // [] | from_entries | .$3"; }
# setv FILE QPN NAME: rdma statistic qp show's value of the set holding QPN
setv() { jq -r --argjson q "$2" "[.[] | select(.lqpn | index(\$q))] | first | .$3 // \"none\"" "$1"; }

# srv NAME PORT ARGS: an ft_qps server on A, holding its QPs until killed
# (its pid in SRV; its JSON, once the traffic is over, in NAME.json);
# cli NAME PORT ARGS: its client on B.  -u 20's ACK timeout: 4.3 s.
QPS=(--iters 30 --size 8192 --op write --ack-timeout 20)
srv() {
	local name=$1 sport=$2

	shift 2
	"$FT_PROGS/ft_qps" --server -p "$sport" --hold --timeout-s 120 "$@" \
		>"$O/$name.json" 2>"$O/$name.err" &
	SRV=$!
	bg_add "$SRV"
}
cli() {
	local name=$1 cport=$2

	shift 2
	peer "$FT_PROGS/ft_qps --peer $FT_CTL_IP -p $cport --timeout-s 60 $*" \
		>"$O/$name.cli.json" 2>"$O/$name.cli.err"
}
done_json() { jq -e .qps "$O/$1.json" >/dev/null 2>&1; }
stop() {
	kill "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
}
# pair NAME PORT N: N QPs of one process on A, written to from B
pair() {
	srv "$1" "$2" -n "$3" "${QPS[@]}"
	cli "$1" "$2" -n "$3" "${QPS[@]}" && wait_for 60 done_json "$1"
}
# bw FILE NAME I: B's tapped tx writes to A's QP I of ft_qps run NAME
bw() { qp "$1" "$(jq ".qps[$3].remote_qpn" "$O/$2.json")" .tx.write; }
aqpn() { jq ".qps[$2].qpn" "$O/$1.json"; }

# ---- setup -------------------------------------------------------------------

ktap_plan 96

ktap_assert "setup: A: ft_hca in rdma_rxe's place, rxe0 made, fabtrace loaded" hca_load
ktap_assert "setup: B: rdma_rxe's rxe0, fabtrace loaded" b_load

fabtrace -j dev show rxe0 >"$O/dev.json"
fabtrace dev show rxe0 >"$O/dev.txt"
peer fabtrace -j dev show rxe0 >"$O/dev.b.json"
log "A: $(head -1 "$O/dev.txt")"
ktap_result "dev: A's rxe0 has counter sets and port counters, no tap (no packet totals)" \
	py "a[0]['sources'] == ['sets', 'port_counters'] and a[0]['hw']['sets'] and not a[0]['hooked'] and 'tx' not in a[0]" \
	"$O/dev.json"
ktap_result "dev: text says so" grep -q "sources sets, port counters" "$O/dev.txt"
# rdma(8) says "auto off" for the core's mode none, "auto type on" for auto
mode() {
	local m

	m=$(rdma statistic qp mode link rxe0/1)
	log "rdma: $m; fabtrace: $(jq -c '.[0].ports[0] | {counter_mode, counter_mode_operator}' "$O/dev.json")"
	case $m in
	*manual*) m=manual ;;
	*"auto off"*) m=none ;;
	*auto*) m=auto ;;
	esac
	[ "$(jq -r '.[0].ports[0].counter_mode' "$O/dev.json")" = "$m" ]
}
ktap_result "dev: A's port's counter mode is rdma statistic qp mode's" mode
ktap_result "dev: B's rxe0 is tapped" \
	py "a[0]['sources'] == ['tap'] and 'hw' not in a[0]" "$O/dev.b.json"

# ---- off: fabtrace binds nothing unless asked ----------------------------------------

ktap_result "off: hw_bind is 0 as fabtrace loads" \
	grep -qx N /sys/module/fabtrace/parameters/hw_bind
ktap_result "off: one QP, 30 x 8 KiB written to it from B" pair n 18660 1
n=$SRV
sleep 1
fabtrace -j qp show dev rxe0 >"$O/n.a.json"
rdma -j statistic qp show link rxe0/1 >"$O/n.sets.json"
rdma statistic qp mode link rxe0/1 >"$O/n.mode.txt"
peer fabtrace -j qp show dev rxe0 >"$O/n.b.json"
nq=$(aqpn n 0)
log "A: $(jq -c "map(select(.qpn == $nq) | {qpn, source, hw: (.hw | del(.counters))})" "$O/n.a.json")"
log "sets: $(jq -c . "$O/n.sets.json"); mode: $(cat "$O/n.mode.txt")"
ktap_result "off: QP $nq lives in no set: rdma statistic qp show lists none, mode not manual" \
	sh -c "kill -0 $n && [ \"\$(jq length '$O/n.sets.json')\" = 0 ] && ! grep -q manual '$O/n.mode.txt'"
ktap_result "off: QP $nq: source psn, no set id, no bind error" \
	test "$(qp "$O/n.a.json" "$nq" '[.source, .hw.set_id, (.hw.bind_error // 0)] | @text')" = '["psn",null,0]'
cong_eq "off: its new requests received (psn_rx) == B's tapped tx writes to it" \
	"$(qp "$O/n.a.json" "$nq" .hw.psn_rx)" "$(bw "$O/n.b.json" n 0)"
stop "$n"

# ---- reset: new PSNs are no traffic --------------------------------------------------------

# 30 writes, a second in RTS (five of fabtrace's reads of the PSNs), both
# sides' QPs through RESET to PSNs 2^22 further, 30 writes more
re_pair() {
	srv re 18666 -n 1 "${QPS[@]}" --reconnect 1000
	cli re 18666 -n 1 "${QPS[@]}" --reconnect 1000 && wait_for 60 done_json re
}
ktap_result "reset: one QP, 30 x 8 KiB written from B, RESET -> INIT -> RTR -> RTS to new PSNs, 30 more" re_pair
re=$SRV
sleep 1
fabtrace -j qp show dev rxe0 >"$O/re.a.json"
peer fabtrace -j qp show dev rxe0 >"$O/re.b.json"
rq=$(aqpn re 0)
log "A: $(jq -c "map(select(.qpn == $rq) | {qpn, source, hw: (.hw | del(.counters))})" "$O/re.a.json")"
log "ft_qps on A, after: $(jq -c '.qps[0] | {qpn, sq_psn, rq_psn, done}' "$O/re.json")"
cong_eq "reset: QP $rq's psn_rx == B's tapped tx writes to it, both runs (no jump at the new PSNs)" \
	"$(qp "$O/re.a.json" "$rq" .hw.psn_rx)" "$(bw "$O/re.b.json" re 0)"
cong_eq "reset: its psn_tx == 0 (A wrote nothing; its send PSN moved by 2^22)" \
	"$(qp "$O/re.a.json" "$rq" .hw.psn_tx)" 0
stop "$re"
ktap_result "off: hw_bind=1 written (binding on for what follows)" hw_bind 1

# ---- write -----------------------------------------------------------------------

ktap_result "write: ib_write_bw B -> A, 200 x 8 KiB" write w -s 8192 -n 200
aq=$(ptv "$O/w.srv" local QPN)
bq=$(ptv "$O/w.srv" remote QPN)
log "A's QP $aq, B's $bq; $(jq -c "[.[] | select(.qpn == $aq)] | last | .hw" "$O/w.a.json")"
log "sets: $(jq -c 'map({cntn, lqpn, rx_write_requests})' "$O/w.sets.json")"
grep -E "^DEV|^rxe0 +$aq " "$O/w.a.txt" | sed 's/^/# /'
# what an operator reads (-s): the QP's block
sed -n "/^rxe0 qpn $aq /,/^\$/p" "$O/w.a.s.txt" | sed 's/^/# /'
src=$(qp "$O/w.a.json" "$aq" .source)
ktap_result "write: A's QP $aq: source set ($src), bound by fabtrace" \
	test "$src" = set -o "$src" = set-shared
cong_eq "write: its set id == rdma statistic qp show's cntn for it" \
	"$(qp "$O/w.a.json" "$aq" .hw.set_id)" "$(setv "$O/w.sets.json" "$aq" cntn)"
wr=$(hwc "$O/w.a.json" "$aq" rx_write_requests)
cong_eq "write: its rx_write_requests == rdma statistic qp show's for the set" \
	"$wr" "$(setv "$O/w.sets.json" "$aq" rx_write_requests)"
cong_eq "write: its rx_write_requests == B's tapped tx write packets of QP $bq" \
	"$wr" "$(qp "$O/w.b.json" "$bq" .tx.write)"
cong_gt "write: 8 KiB writes moved" "$wr" 199
ktap_result "write: A's QP: no tx, rx, rx_ect, rx_ce, errors in JSON (not counted, not 0)" \
	test "$(qp "$O/w.a.json" "$aq" '[.tx, .rx, .cong.rx_ect, .cong.rx_ce, .cong.errors] | map(select(. != null)) | length')" = 0
row() {
	awk -v q="$aq" '$1 == "rxe0" && $2 == q' "$O/w.a.txt" | tail -1 |
		awk '$8 == "-" && $9 == "-" && $10 == "-" && $11 == "-" && $12 == "-" && $13 == "-" &&
		     ($NF == "set" || $NF ~ /^set-shared/) { ok = 1 } END { exit !ok }'
}
ktap_result "write: its table row: '-' for packets, bytes, CE, CNP; source set" row
pc() {
	[ "$(jq -r '.[0].ports[0].counters | from_entries | .rx_write_requests' "$O/dev1.json")" = \
		"$(jq -r '.[0].rx_write_requests' "$O/port1.json")" ]
}
sleep 1
fabtrace -j dev show rxe0 >"$O/dev1.json"
rdma -j statistic show link rxe0/1 >"$O/port1.json"
ktap_result "dev: A's port counters (-j) as rdma statistic show's (rx_write_requests)" pc
fabtrace -s dev show rxe0 >"$O/dev1.s.txt"
sed 's/^/# /' "$O/dev1.s.txt"
ktap_result "dev: -s lists them by name" grep -q 'rx_write_requests [0-9]' "$O/dev1.s.txt"
# mlx5's ECN and CNP counters under fabtrace's names
cg() {
	py "a[0]['ports'][0]['congestion'] == {'ecn_marked': b[0]['np_ecn_marked_roce_packets'],
	    'cnp_sent': b[0]['np_cnp_sent'], 'cnp_handled': b[0]['rp_cnp_handled'],
	    'cnp_ignored': b[0]['rp_cnp_ignored']}" \
		"$O/dev1.json" "$O/port1.json"
}
ktap_result "dev: the port's congestion (ecn_marked, cnp_sent, _handled, _ignored) == rdma's np_/rp_ counters" cg

# ---- loss ----------------------------------------------------------------------------

lossy() {
	cong_netem peer roce loss 3% || return 1
	cap_start "$O/l.pcap" "${CONG_CAP[@]}" || return 1
	local rc=0

	write l -s 8192 -n 50 || rc=$?
	# what netem dropped of B's requests (B's taps counted them as sent)
	lost=$(cong_netem_drops peer) || lost=unknown
	cong_netem_del peer
	cap_stop "$O/l.pcap" || log "tcpdump did not end well"
	return "$rc"
}
ktap_assert "loss: fabtrace monitor on A listens" cong_mon_start mon self
ktap_result "loss: ib_write_bw B -> A, 50 x 8 KiB, 3% of B's RoCE packets lost" lossy
cong_mon_stop mon
lq=$(ptv "$O/l.srv" local QPN)
lb=$(ptv "$O/l.srv" remote QPN)
python3 "$ORACLE" --psn "$A_IP/$lq=$(ptv "$O/l.srv" remote PSN)" "$O/l.pcap" >"$O/l.oracle.json" ||
	log "pcap_oracle.py: exit $?"
ov() { jq -r --arg q "$A_IP/$lq" ".qp[\$q].$1 // 0" "$O/l.oracle.json"; }
log "tshark: $(jq -c --arg q "$A_IP/$lq" '.qp[$q]' "$O/l.oracle.json")"
log "A's QP $lq: $(jq -c "[.[] | select(.qpn == $lq)] | last | {cong, hw: .hw | {source, set_id}}" "$O/l.a.json")"
oos=$(hwc "$O/l.a.json" "$lq" out_of_sequence)
dup=$(hwc "$O/l.a.json" "$lq" duplicate_request)
cong_eq "loss: A's rx_write_requests == tshark's writes to QP $lq" \
	"$(hwc "$O/l.a.json" "$lq" rx_write_requests)" "$(ov write)"
cong_eq "loss: A's out_of_sequence == the capture's, replayed" "$oos" "$(ov oos)"
cong_eq "loss: A's duplicate_request == the capture's, replayed" "$dup" "$(ov dup)"
cong_gt "loss: requests came out of sequence" "$oos" 0
cong_eq "loss: rx_oos (fabtrace's name) == out_of_sequence" "$(qp "$O/l.a.json" "$lq" .cong.rx_oos)" "$oos"
cong_eq "loss: rx_dup (fabtrace's name) == duplicate_request" "$(qp "$O/l.a.json" "$lq" .cong.rx_dup)" "$dup"
cong_eq "loss: A's set == rdma statistic qp show's (out_of_sequence)" \
	"$oos" "$(setv "$O/l.sets.json" "$lq" out_of_sequence)"
log "netem dropped $lost of B's RoCE packets"
cong_eq "loss: A's rx_write_requests == B's tapped tx writes of QP $lb less netem's drops" \
	"$(hwc "$O/l.a.json" "$lq" rx_write_requests)" \
	"$(($(qp "$O/l.b.json" "$lb" .tx.write) - lost))"
# the events its set's counters raise: NAK onsets (its out-of-sequence
# requests, each run NAKed), no retransmit or timeout (A sent no request)
jq -c "select(.qpn == $lq and .dev == \"rxe0\" and .kind != \"qp-create\")" "$O/mon.mon" |
	sed 's/^/# monitor: /' || true
naks=$(cong_mon_count mon "select(.qpn == $lq and .kind == \"nak\")")
nakmax=$(jq -s "map(select(.qpn == $lq and .kind == \"nak\") | .count) | max // 0" "$O/mon.mon")
ktap_result "loss: monitor: $naks NAK events of A's QP $lq, counts up to $nakmax <= its out_of_sequence + packet_seq_err" \
	test "$naks" -ge 1 -a "$nakmax" -ge 1 -a "$nakmax" -le \
	"$((oos + $(hwc "$O/l.a.json" "$lq" packet_seq_err)))"
cong_eq "loss: no retransmit, timeout or retry-exhausted event of A's QP (it sent no request)" \
	"$(cong_mon_count mon "select(.qpn == $lq and (.kind == \"retransmit\" or .kind == \"timeout\" or .kind == \"retry-exhausted\"))")" 0

# ---- retained ------------------------------------------------------------------------

fabtrace -j qp show dev rxe0 >"$O/r.json"
rdma -j statistic qp show link rxe0/1 >"$O/r.sets.json"
log "retained: $(jq -c "map(select(.qpn == $aq or .qpn == $lq) | {qpn, flags, source, hw: .hw | {set_id, n: (.counters // [] | length)}})" "$O/r.json")"
cong_eq "retained: the sets are gone with their QPs" "$(jq length "$O/r.sets.json")" 0
# ret QPN NAME VALUE: the QP's entry is a destroyed one, its counter NAME
# the number VALUE
ret() {
	local v

	v=$(hwc "$O/r.json" "$1" "$2")
	log "QP $1: $2 $v (want $3)"
	[ "$(qp "$O/r.json" "$1" '.flags | index("destroyed") != null')" = true ] &&
		[[ $v =~ ^[0-9]+$ ]] && [ "$v" = "$3" ]
}
ktap_result "retained: QP $aq destroyed, rx_write_requests still $wr" ret "$aq" rx_write_requests "$wr"
ktap_result "retained: QP $lq destroyed, out_of_sequence still $oos" ret "$lq" out_of_sequence "$oos"
ktap_result "retained: -j qp show is valid JSON, text row of QP $aq says '-'" sh -c \
	"jq -e . '$O/r.json' >/dev/null && fabtrace qp show dev rxe0 | awk '\$2 == $aq && \$8 == \"-\"' | grep -q ."

# ---- exhausted: 8 sets for 50 QPs -----------------------------------------------------

FT_ARGS=(hw_bind=1)
ktap_assert "exhausted: ft_hca reloaded with nr_counters=8, fabtrace (hw_bind=1) after it" hca_load nr_counters=8
# top samples A throughout: the QPs below are new to its first sample
fabtrace -j top dev rxe0 interval 500 >"$O/x.top.json" 2>"$O/x.top.err" &
xtop=$!
bg_add "$xtop"
sleep 1
ktap_result "exhausted: process 1, ten QPs, 30 x 8 KiB written to each from B" pair x1 18661 10
x1=$SRV
# processes 2 to 5, ten QPs each, at once
others() {
	local i rc=0 pids=()

	XS=()
	for i in 2 3 4 5; do
		srv "x$i" $((18660 + i)) -n 10 "${QPS[@]}"
		XS+=("$SRV")
	done
	for i in 2 3 4 5; do
		cli "x$i" $((18660 + i)) -n 10 "${QPS[@]}" &
		pids+=($!)
	done
	for i in "${pids[@]}"; do
		wait "$i" || rc=1
	done
	for i in 2 3 4 5; do
		wait_for 60 done_json "x$i" || rc=1
	done
	return "$rc"
}
ktap_result "exhausted: processes 2 to 5, ten QPs each, the same, at once" others
# two of fabtrace's reads after the last packet, and two of top's
sleep 1
fabtrace -j qp show dev rxe0 >"$O/x.a.json"
rdma -j statistic qp show link rxe0/1 >"$O/x.sets.json"
peer fabtrace -j qp show dev rxe0 >"$O/x.b.json"
fabtrace qp show dev rxe0 >"$O/x.a.txt"
fabtrace -j dev show rxe0 >"$O/x.dev.json"
fabtrace export state none >"$O/x.prom"
stop "$xtop"
# what every QP of the five runs counted, each against B's taps and rdma(8)
python3 - "$O" <<'EOF2' >"$O/x.sum.json" || log "the summary failed: its checks fail"
import json, sys
o = sys.argv[1]
a = {q["qpn"]: q for q in json.load(open(o + "/x.a.json")) if "destroyed" not in q.get("flags", [])}
b = {q["qpn"]: q for q in json.load(open(o + "/x.b.json"))}
sets = {s["cntn"]: s for s in json.load(open(o + "/x.sets.json"))}
runs = {i: json.load(open(f"{o}/x{i}.json"))["qps"] for i in range(1, 6)}
# B's tapped first transmissions of writes to A's QP q: its write packets
# less those it sent again (a starved node's ACK timeouts retransmit)
def writes(q):
    p = b.get(q.get("remote_qpn"), {})
    return p.get("tx", {}).get("write", 0) - p.get("cong", {}).get("retransmits", 0)
def hwc(q, n):
    return {c["name"]: c["value"] for c in q.get("hw", {}).get("counters", [])}.get(n, 0)
# what a set took in sequence: every new request once, whatever came again
def took(q):
    return hwc(q, "rx_write_requests") - hwc(q, "out_of_sequence") - hwc(q, "duplicate_request")
def entry(n):  # A's entry of QP n; a QP fabtrace lost counts as nothing
    return a.get(n, {"qpn": n, "hw": {}, "source": "missing"})
p1 = [entry(q["qpn"]) for q in runs[1]]
rest = [entry(q["qpn"]) for i in range(2, 6) for q in runs[i]]
ids = {q["hw"].get("set_id") for q in p1}
bysrc = {}
for q in p1 + rest:
    bysrc[q["source"]] = bysrc.get(q["source"], 0) + 1
out = {
    "sources": bysrc,
    "p1_sets": len(ids - {None}),
    "p1_in_sets": sum(q["source"] in ("set", "set-shared") for q in p1),
    "shared_ok": all(q["hw"].get("set_qps") == sum(r["hw"].get("set_id") == q["hw"]["set_id"] for r in p1)
                     for q in p1 if q["source"] == "set-shared"),
    "rdma_sets": len(sets),
    "rdma_lqpns_p1": sorted(n for s in sets.values() for n in s["lqpn"]) == sorted(q["qpn"] for q in p1),
    "sets_eq_rdma": all(hwc(q, "rx_write_requests") == sets[q["hw"]["set_id"]]["rx_write_requests"]
                        for q in p1 if q["hw"].get("set_id") in sets),
    "sets_eq_b": all(took(q) == sum(writes(r) for r in p1 if r["hw"].get("set_id") == q["hw"].get("set_id"))
                     for q in p1),
    "sets_sum": sum({q["hw"].get("set_id"): took(q) for q in p1 if q["hw"].get("set_id")}.values()),
    "b_retx": sum(b.get(q.get("remote_qpn"), {}).get("cong", {}).get("retransmits", 0)
                  for q in p1 + rest),
    "rest_enomem": sum(q["source"] == "psn" and q["hw"].get("bind_error") == 12 for q in rest),
    "rest_psn_eq_b": sum(q["hw"].get("psn_rx") == writes(q) for q in rest),
    "psn_sum": sum(q["hw"].get("psn_rx", 0) for q in rest),
    "b_sum": sum(writes(q) for q in p1 + rest),
    "psn_qpns": [q["qpn"] for q in rest],
    "set_qpns": [q["qpn"] for q in p1],
    "shared_qpn": next((q["qpn"] for q in p1 if q["source"] == "set-shared"), None),
    "shared_n": next((q["hw"]["set_qps"] for q in p1 if q["source"] == "set-shared"), None),
}
print(json.dumps(out))
EOF2
[ -s "$O/x.sum.json" ] || echo '{}' >"$O/x.sum.json"
# xs FILTER: jq's FILTER of the summary (a number: 0 if absent)
xs() { jq -r "$1" "$O/x.sum.json"; }
xn() { jq -r "$1 // 0" "$O/x.sum.json"; }
log "sets: $(jq -c 'map({cntn, lqpn, rx_write_requests})' "$O/x.sets.json")"
log "summary: $(jq -c 'del(.psn_qpns, .set_qpns)' "$O/x.sum.json")"
grep -E "^DEV|^rxe0 +($(xs '.set_qpns | map(tostring) | join("|")')|$(xs '.psn_qpns[0]')) " "$O/x.a.txt" | sed 's/^/# /'
ktap_result "exhausted: process 1's ten QPs are in the 8 sets, some sharing (set-shared(n), n their set's QPs)" \
	test "$(xs '[.p1_in_sets, .p1_sets, .shared_ok, .shared_n > 1] | @text')" = '[10,8,true,true]'
ktap_result "exhausted: rdma statistic qp show: 8 sets, holding process 1's ten QPs, each as fabtrace reads it" \
	test "$(xs '[.rdma_sets, .rdma_lqpns_p1, .sets_eq_rdma] | @text')" = '[8,true,true]'
ktap_result "exhausted: each set's writes taken in sequence == B's tapped first writes to its QPs" \
	test "$(xs .sets_eq_b)" = true
cong_eq "exhausted: processes 2-5's 40 QPs: no set left (ENOMEM), their PSNs' progress instead" \
	"$(xs .rest_enomem)" 40
cong_eq "exhausted: each one's new requests received (psn_rx) == B's tapped first writes to it" \
	"$(xs .rest_psn_eq_b)" 40
ktap_result "exhausted: rows say set-shared($(xs .shared_n)) and psn with '-' for packets" \
	sh -c "awk '\$2 == $(xs .shared_qpn) { print \$NF }' '$O/x.a.txt' | grep -qx 'set-shared($(xs .shared_n))' &&
	       awk '\$2 == $(xs '.psn_qpns[0]') { print \$8, \$NF }' '$O/x.a.txt' | grep -qx -- '- psn'"
# the fallback loses nothing: the sets' writes and the PSN QPs' are the port's
# (what it took in sequence: B retransmits when a starved node's ACKs are late)
xport=$(jq '.[0].ports[0].counters | from_entries | .rx_write_requests' "$O/x.dev.json")
xtook=$(jq '.[0].ports[0].counters | from_entries |
	.rx_write_requests - .out_of_sequence - .duplicate_request' "$O/x.dev.json")
cong_eq "exhausted: the port's writes taken in sequence == the 8 sets' + the 40 QPs' psn_rx" \
	"$xtook" $(($(xn .sets_sum) + $(xn .psn_sum)))
cong_eq "exhausted: == B's tapped first writes to all 50 ($(xs .b_retx) sent again)" \
	"$xtook" "$(xs .b_sum)"

# top and the export, on this hardware NIC
log "top: $(wc -l <"$O/x.top.json") snapshots; $(cat "$O/x.top.err")"
tail -1 "$O/x.top.json" | jq -c '.ports' | sed 's/^/# top: /'
# top_sum FILE KEY QPN...: KEY per second times each snapshot's interval, summed
top_sum() {
	python3 - "$@" <<'EOF2'
import json, sys
f, key, qpns = sys.argv[1], sys.argv[2], {int(x) for x in sys.argv[3:]}
t = 0.0
for line in open(f):
    s = json.loads(line)
    t += sum(q[key] * s["elapsed_ms"] / 1000 for q in s["qps"] if q["qpn"] in qpns and key in q)
print(round(t))
EOF2
}
# each snapshot's elapsed_ms is rounded (0.5 ms of at least 500: 0.1 %),
# and the sum too: within 0.2 % of a sum that moved
# shellcheck disable=SC2046 # a list of QP numbers
ts=$(top_sum "$O/x.top.json" rx_pps $(xs '.psn_qpns[]?'))
ps=$(xn .psn_sum)
ktap_result "top: the 40 PSN QPs' rx_pps over top's snapshots add up to their psn_rx ($ts ~ $ps, 0.2 %)" \
	test "$ps" -gt 0 -a $(((ts - ps) * 500)) -le "$ps" -a $(((ps - ts) * 500)) -le "$ps"
topq() {
	tail -1 "$O/x.top.json" >"$O/x.top.last.json"
	py "{(q['source'] in ('set', 'set-shared'), 'tx_pps' in q, 'rx_bps' in q, 'ce_ps' in q, 'retrans_ps' in q)
	     for q in a['qps'] if q['qpn'] in $(xs .set_qpns)} == {(True, False, False, False, True)}
	    and {(q['source'], 'rx_pps' in q, 'rx_bps' in q, 'nak_ps' in q)
	         for q in a['qps'] if q['qpn'] in $(xs .psn_qpns)} == {('psn', True, False, False)}" \
		"$O/x.top.last.json"
}
ktap_result "top: set QPs: retrans_ps, no packet, byte or CE rates; PSN QPs: rx_pps, no bytes, no NAKs" topq
topp() {
	python3 - "$O/x.top.json" "$(xs .psn_qpns)" <<'EOF2'
import json, sys
act, seen, want = set(), False, set(json.loads(sys.argv[2]))
for line in open(sys.argv[1]):
    for p in json.loads(line)["ports"]:
        if p["dev"] == "rxe0" and p["port"] == 1:
            seen = seen or ("ecn_marked_ps" in p and "cnp_sent_ps" in p)
            act |= {x["qpn"] for x in p["active_qps"]}
sys.exit(not (seen and want <= act))
EOF2
}
ktap_result "top: port rxe0/1's ECN and CNP rates; each PSN QP among its active QPs while it moved" topp
{ grep -E '^fabtrace_(device_qps|port_(ecn|cnp|hw_counter_total.*rx_write_requests))|^fabtrace_qps_(tx_packets|rx_out_of_seq)_[a-z_]*\{device="rxe0"' \
	"$O/x.prom" || true; } | sed 's/^/# export: /'
# pv SERIES: its value in the export, 0 if absent
pv() { awk -v k="$1" '$1 == k { v = $2 } END { print v + 0 }' "$O/x.prom"; }
ktap_result "export: fabtrace_device_qps: set + set-shared 10, psn 40, tap 0" \
	test "$(($(pv 'fabtrace_device_qps{device="rxe0",source="set-shared"}') + $(pv 'fabtrace_device_qps{device="rxe0",source="set"}'))) $(pv 'fabtrace_device_qps{device="rxe0",source="psn"}') $(pv 'fabtrace_device_qps{device="rxe0",source="tap"}')" = "10 40 0"
ktap_result "export: rxe0 has no packet series (not counted), its sets' out-of-sequence series" \
	sh -c "! grep -qE '^fabtrace_(qps|device)_(tx|rx)_(packets|bytes)_total\{device=\"rxe0\"' '$O/x.prom' &&
	       grep -qE '^fabtrace_qps_rx_out_of_sequence_packets_total\{device=\"rxe0\"' '$O/x.prom'"
cong_eq "export: the port's rx_write_requests (fabtrace_port_hw_counter_total) == dev show's" \
	"$(pv 'fabtrace_port_hw_counter_total{device="rxe0",port="1",counter="rx_write_requests"}')" "$xport"

# ---- unload: what fabtrace bound, it unbinds ------------------------------------------

ktap_result "unload: rmmod fabtrace while the 50 QPs live" sh -c "kill -0 $x1 ${XS[*]} && rmmod fabtrace"
rdma -j statistic qp show link rxe0/1 >"$O/u.sets.json"
log "after rmmod: sets $(jq -c 'map({cntn, lqpn})' "$O/u.sets.json"); $(rdma statistic qp mode link rxe0/1)"
ktap_result "unload: process 1's QPs live, in no set (rdma statistic qp show lists none)" \
	sh -c "kill -0 $x1 && [ \"\$(jq length '$O/u.sets.json')\" = 0 ]"
ktap_result "unload: the operator can set auto mode (rdma statistic qp set ... auto type on)" \
	sh -c "rdma statistic qp set link rxe0/1 auto type on && rdma statistic qp set link rxe0/1 auto off"
for x in "$x1" "${XS[@]}"; do
	stop "$x"
done
ktap_assert "unload: fabtrace loaded again (hw_bind=1)" ft_load

# ---- operator: auto mode is theirs -----------------------------------------------------

nosets() { [ "$(rdma -j statistic qp show link rxe0/1 | jq length)" = 0 ]; }
auto_on() {
	wait_for 10 nosets && rdma statistic qp set link rxe0/1 auto type on &&
		rdma statistic qp mode link rxe0/1 | grep -q "auto type on"
}
ktap_result "operator: auto mode (type) set on A's rxe0/1 with rdma(8)" auto_on
ktap_result "operator: one QP, 30 x 8 KiB written to it from B" pair o 18663 1
o=$SRV
sleep 1
fabtrace -j qp show dev rxe0 >"$O/o.a.json"
fabtrace -j dev show rxe0 >"$O/o.dev.json"
rdma -j statistic qp show link rxe0/1 >"$O/o.sets.json"
peer fabtrace -j qp show dev rxe0 >"$O/o.b.json"
oq=$(aqpn o 0)
log "A: $(jq -c "map(select(.qpn == $oq) | {qpn, source, hw: (.hw | del(.counters))})" "$O/o.a.json")"
log "sets: $(jq -c 'map({cntn, lqpn, rx_write_requests})' "$O/o.sets.json")"
ktap_result "operator: dev show says auto, the operator's" \
	py "a[0]['ports'][0]['counter_mode'] == 'auto' and a[0]['ports'][0]['counter_mode_operator']" \
	"$O/o.dev.json"
ktap_result "operator: QP $oq in the core's own set (source set, its cntn), fabtrace bound nothing (EBUSY)" \
	test "$(qp "$O/o.a.json" "$oq" '[.source, .hw.set_id, .hw.bind_error] | @text')" = \
	"[\"set\",$(setv "$O/o.sets.json" "$oq" cntn),16]"
ow=$(hwc "$O/o.a.json" "$oq" rx_write_requests)
cong_eq "operator: its rx_write_requests == rdma statistic qp show's" \
	"$ow" "$(setv "$O/o.sets.json" "$oq" rx_write_requests)"
cong_eq "operator: == B's tapped tx writes to it" "$ow" "$(bw "$O/o.b.json" o 0)"
stop "$o"
wait_for 10 nosets || log "a set outlived its QP"
rdma statistic qp set link rxe0/1 auto off || log "auto off failed"

# ---- manual: a port where the operator bound a QP is theirs ------------------------------

off_pair() { hw_bind 0 && pair "$@"; }
ktap_result "manual: hw_bind=0, one QP, 30 x 8 KiB written to it from B" off_pair m1 18664 1
m1=$SRV
mq=$(aqpn m1 0)
ktap_result "manual: the operator binds QP $mq by hand (rdma statistic qp bind)" \
	rdma statistic qp bind link rxe0/1 lqpn "$mq"
rdma -j statistic qp show link rxe0/1 >"$O/m1.sets.json"
log "sets: $(jq -c 'map({cntn, lqpn})' "$O/m1.sets.json")"
# two of fabtrace's reads, that see the operator's set
hw_bind 1
sleep 1
ktap_result "manual: hw_bind=1 again, another QP, the same" pair m2 18665 1
m2=$SRV
mr=$(aqpn m2 0)
sleep 1
fabtrace -j qp show dev rxe0 >"$O/m.a.json"
fabtrace -j dev show rxe0 >"$O/m.dev.json"
rdma -j statistic qp show link rxe0/1 >"$O/m.sets.json"
log "A: $(jq -c "map(select(.qpn == $mq or .qpn == $mr) | {qpn, source, hw: (.hw | del(.counters))})" "$O/m.a.json")"
log "sets: $(jq -c 'map({cntn, lqpn})' "$O/m.sets.json")"
ktap_result "manual: the port's only set is the operator's, QP $mq alone in it" \
	py "len(a) == 1 and a[0]['lqpn'] == [$mq]" "$O/m.sets.json"
ktap_result "manual: QP $mr: fabtrace bound it to nothing (EBUSY), its PSNs' progress" \
	test "$(qp "$O/m.a.json" "$mr" '[.source, .hw.bind_error] | @text')" = '["psn",16]'
ktap_result "manual: QP $mq in the operator's set (source set, its cntn)" \
	test "$(qp "$O/m.a.json" "$mq" '[.source, .hw.set_id] | @text')" = \
	"[\"set\",$(setv "$O/m.sets.json" "$mq" cntn)]"
ktap_result "manual: dev show says manual, the operator's" \
	py "a[0]['ports'][0]['counter_mode'] == 'manual' and a[0]['ports'][0]['counter_mode_operator']" \
	"$O/m.dev.json"
stop "$m1"
stop "$m2"
wait_for 10 nosets || log "a set outlived its QP"

# ---- wrap: a port counter's 32-bit wrap --------------------------------------------------

FT_ARGS=()
ktap_assert "wrap: ft_hca reloaded with counter_start=4294967000 (wraps after 296), fabtrace after it" \
	hca_load counter_start=4294967000
# fabtrace's port value, and rdma statistic show's, of rx_write_requests
fpv() { jq -r '.[0].ports[0].counters | from_entries | .rx_write_requests' "$O/$1.json"; }
rpv() { jq -r '.[0].rx_write_requests' "$O/$1.port.json"; }
wsnap() {
	fabtrace -j dev show rxe0 >"$O/$1.json"
	rdma -j statistic show link rxe0/1 >"$O/$1.port.json"
}
sleep 1
wsnap wr0
# 60 x 8 KiB at MTU 1024: 480 write packets, in no set (hw_bind off)
wr_pair() {
	srv wr 18667 -n 1 --iters 60 --size 8192 --op write --ack-timeout 20 --mtu 1024
	cli wr 18667 -n 1 --iters 60 --size 8192 --op write --ack-timeout 20 --mtu 1024 &&
		wait_for 60 done_json wr
}
ktap_result "wrap: one QP in no set, 60 x 8 KiB written to it from B (480 packets)" wr_pair
wr=$SRV
sleep 1
wsnap wr1
log "rx_write_requests before: fabtrace $(fpv wr0), rdma $(rpv wr0); after: fabtrace $(fpv wr1), rdma $(rpv wr1)"
wrapped() { [ "$(rpv wr1)" -lt "$(rpv wr0)" ]; }
ktap_result "wrap: rdma statistic show's rx_write_requests wrapped (went down)" wrapped
plus32() {
	local v

	v=$(rpv wr1)
	if [[ $v =~ ^[0-9]+$ ]]; then echo $((v + 4294967296)); else echo none; fi
}
cong_eq "wrap: fabtrace's port rx_write_requests == rdma statistic show's + 2^32 (kept rising)" \
	"$(fpv wr1)" "$(plus32)"
stop "$wr"

# ---- large: sets too large to list -----------------------------------------------------

# nldev lists a set as one entry, each of its QPs in it (12 bytes each): a
# part of its dump that cannot hold the entry is sent empty, again and
# again.  rdma(8) reads a page a part: fabtrace shares a set among as many
# QPs as fit in one (its counters' names known).  An operator's set of
# 3,000 does not fit in netlink's largest part (32 KiB): fabtrace's reads
# of the sets stop, said in dev show, and nothing hangs (the poll once
# looped for ever on such a dump, rmmod behind it).
FT_ARGS=(hw_bind=1)
ktap_assert "large: ft_hca reloaded with nr_counters=1, fabtrace (hw_bind=1) after it" hca_load nr_counters=1
S=${FT_TIMEOUT_SCALE:-1}
# hold N NAME: N QPs of one process on A, in INIT, until stopped (pid in SRV)
held_json() { jq -e '.elapsed_s and .error == null' "$O/$1.json" >/dev/null 2>&1; }
hold() {
	"$FT_PROGS/ft_qps" --no-connect -n "$1" --iters 0 --hold --summary --timeout-s $((300 * S)) \
		</dev/null >"$O/$2.json" 2>"$O/$2.err" &
	SRV=$!
	bg_add "$SRV"
	wait_for $((120 * S)) held_json "$2"
}
# every one of the N held QPs refused (a bind error) or bound, and in a
# set that a dump since listed with all its QPs (set-shared(n), n of them)
settled() {
	fabtrace -j qp show dev rxe0 >"$O/l1.a.json" &&
		jq -e --argjson n "$1" '[.[] | select(.source == "set-shared")] as $s |
			($s | map(select(.hw.set_qps == ($s | length))) | length) == ($s | length) and
			($s | length) + ([.[] | select(.hw.bind_error)] | length) >= $n' \
			"$O/l1.a.json" >/dev/null
}
ktap_result "large: one process holds 400 QPs" hold 400 l1
l1=$SRV
wait_for $((60 * S)) settled 400 || log "not all 400 bound or refused"
timeout 30 rdma -j statistic qp show link rxe0/1 >"$O/l1.sets.json" || log "rdma statistic qp show: exit $?"
log "sources: $(jq -c 'group_by(.source) | map({(.[0].source): length}) | add' "$O/l1.a.json"); bind errors: $(jq -c '[.[] | .hw.bind_error // empty] | group_by(.) | map({(.[0] | tostring): length}) | add' "$O/l1.a.json")"
shared=$(jq '[.[] | select(.source == "set-shared")] | length' "$O/l1.a.json")
ktap_result "large: $shared QPs share the one set, each set-shared($shared), one set id; the other $((400 - shared)) are refused (ENOMEM)" \
	py "(lambda s, r: 64 <= len(s) < 400 and len(s) + len(r) == 400 and \
{q['hw']['set_qps'] for q in s} == {len(s)} and len({q['hw']['set_id'] for q in s}) == 1 and \
all(q.get('source') in ('psn', 'none') for q in r))( \
[q for q in a if q.get('source') == 'set-shared'], \
[q for q in a if q.get('hw', {}).get('bind_error') == 12])" "$O/l1.a.json"
ktap_result "large: rdma statistic qp show (a page a part) lists that set with its $shared QPs" \
	py "len(a) == 1 and len(a[0]['lqpn']) == $shared" "$O/l1.sets.json"
stop "$l1"
unload_unbound() { rmmod fabtrace && wait_for 10 nosets; }
ktap_assert "large: fabtrace unloaded, its set unbound" unload_unbound
auto_hold() { rdma statistic qp set link rxe0/1 auto type on && hold 3000 l2; }
ktap_result "large: the operator's auto mode (type) on A's rxe0/1, one process holds 3,000 QPs in its set" \
	auto_hold
l2=$SRV
FT_ARGS=()
ktap_assert "large: fabtrace loaded" ft_load
read_err() { fabtrace -j dev show rxe0 | jq -e '.[0].hw.read_error' >/dev/null; }
ktap_result "large: dev show says the sets could not be read (within 15 s)" wait_for $((15 * S)) read_err
fabtrace dev show rxe0 | sed 's/^/# /'
# the debug kernel's discovery of 3,000 QPs takes a while: asked again
all_qps() { [ "$(timeout 60 fabtrace -j qp show dev rxe0 | jq length)" -ge 3000 ]; }
ktap_result "large: qp show answers meanwhile, with the 3,000 QPs" wait_for $((60 * (S - 1) + 1)) all_qps
# in the background: an rmmod stuck behind the poll cannot be killed
t=$SECONDS
rmmod fabtrace &
bg_add $!
ktap_result "large: rmmod fabtrace returns" wait_for $((60 * S)) _gone fabtrace
log "rmmod took $((SECONDS - t)) s"
stop "$l2"
rdma statistic qp set link rxe0/1 auto off || log "auto off failed"
ktap_assert "large: fabtrace loaded again" ft_load

# ---- delete: the device goes with fabtrace's set in use ---------------------------------

# rdma link delete runs the removal inside nldev: fabtrace's part of it
# sends no nldev request and waits for no poll or bind, which send them
# (lockdep, on the debug kernel, would report the cycle; the poll runs
# every 10 ms here so that one is in flight as the device goes).  The QPs
# go with the device, and their set with them.  fabtrace's client goes
# first (the last registered), while the QPs live: then uverbs waits for
# their process to close the device (soft-RoCE cannot disassociate it),
# which it does when stopped.
hw_bind 1
echo 10 >/sys/module/fabtrace/parameters/hw_poll_ms
hold_shared() { hold 20 d1 && wait_for $((60 * S)) settled 20; }
ktap_result "delete: one process holds 20 QPs, sharing the one set" hold_shared
d1=$SRV
mark="ft-hw-delete-$$-$RANDOM"
echo "$mark" >/dev/kmsg
# fabtrace answers, and lists no rxe0
rxe0_gone() { fabtrace -j dev show >"$O/del.dev.json" && jq -e 'all(.[]; .name != "rxe0")' "$O/del.dev.json" >/dev/null; }
{ rdma link delete rxe0; echo $? >"$O/del.rc"; } &
bg_add $!
ktap_result "delete: rdma link delete rxe0 begun, fabtrace forgets rxe0 (its process holding the QPs)" \
	wait_for $((30 * S)) rxe0_gone
stop "$d1"
deleted() { [ -s "$O/del.rc" ]; }
del_ok() { wait_for $((60 * S)) deleted && [ "$(cat "$O/del.rc")" = 0 ]; }
ktap_result "delete: rdma link delete exits 0 once the process is gone" del_ok
# grep reads the log whole: with -q it would leave sed a SIGPIPE
log_clean() {
	! dmesg | sed -n "/$mark/,\$p" |
		grep -E 'possible circular locking|possible recursive locking|blocked for more than|WARNING:|BUG:' >&2
}
ktap_result "delete: no lock dependency, hang or warning in the kernel's log meanwhile" log_clean
ktap_result "delete: rmmod fabtrace returns" rmmod fabtrace
ktap_finished
