#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ft_hca, the counting soft HCA (selftests/hca): counter sets and mlx5's counters against tshark and rxe.
# timeout=900
#
# Node A swaps rdma_rxe for ft_hca.ko (rxe under another name, with the RDMA
# core's counter sets and mlx5's counters, selftests/hca/README); node B
# keeps plain rdma_rxe.  fabtrace is not loaded: this tests the HCA only.
# Real traffic crosses the wire, and what A's counters say is checked
# against a tcpdump capture on A decoded by tshark (selftests/hca/
# pcap_oracle.py, which also replays A's request PSNs the way rxe's
# responder checks them), against B's rxe counters, and against A's own
# rxe counters where rxe counts the same event.
#
#   setup     ft_hca refuses to load beside rdma_rxe; loads in its place;
#             rxe0 is made with "rdma link add ... type rxe"; the port shows
#             mlx5's names, rxe's and, once enabled, the optional ones
#   write     ib_write_bw B -> A in auto mode (its QP's set is too brief
#             to sample: "sets" shows binding); A's rx_write_requests ==
#             B's sent_pkts == tshark's
#             write packets, out_of_sequence and duplicate_request == the
#             capture's (0 unless B retransmitted); the set goes with the
#             QP, the port keeps its counts
#   loss      ib_write_bw B -> A and ib_read_bw from A, 3% loss each way:
#             A's rx_write/read_requests, out_of_sequence, duplicate_request
#             == the capture's; ib_read_bw with A reading, loss on B: A's
#             implied_nak_seq_err, timeouts, against rxe's retries
#   timeout   ACKs to A cut for 1 s: A's timeouts == rxe's retries, the
#             roce_* counters that stand for them; then cut until A's
#             retries run out: one req_transport_retries_exceeded
#   sets      two QPs of two processes share one auto set; the set keeps a
#             destroyed QP's counts until its last QP goes, then the port's
#             history has them; CNPs from B: rp_cnp_handled / _ignored
#   ecn       CE marks on B's ECT writes: np_ecn_marked_roce_packets, and a
#             CNP back to B for each (np_min_time_us=0), or one in 60 s
#   limits    reloaded with nr_counters=8 counter_start=2^32-296: a set's
#             counters wrap at 32 bits; manual binds of 50 QPs: 8 sets,
#             42 x ENOMEM, a freed set is reusable; auto mode by pid with
#             10 processes of 5 QPs: 8 sets, 10 QPs unbound
set -euo pipefail
HERE=$(dirname "$(readlink -f "$0")")
. "$HERE/lib.sh"
. "$HERE/lib-cong.sh"

KO=${FT_BUILD:-}/$(uname -r)/hca/ft_hca.ko
ORACLE=$HERE/hca/pcap_oracle.py
[ -f "$ORACLE" ] || ORACLE=$HERE/pcap_oracle.py	# as installed (make install)
A_IP=${FT_SELF_IP:-}
B_IP=${FT_PEER_IP:-}
START=4294967000	# 2^32 - 296

require_peer
require_cmd rdma ib_write_bw ib_read_bw tc tcpdump tshark jq python3 ss insmod
[ -f "$KO" ] || skip_all "$KO not built (make test-modules)"
require_progs ft_qps ft_cnp ft_timeout ft_icrc
CONG_OUT=${FT_OUT:-/tmp}/hca
O=$CONG_OUT
rm -rf "$O"
mkdir -p "$O"

# ---- helpers ---------------------------------------------------------------

_gone() { mod_gone "$1"; }

# hca_load [PARAM=VALUE...]: ft_hca in rdma_rxe's place (lib.sh's hca_swap)
hca_load() { hca_swap "$KO" "$@"; }

hca_unload() {
	_gone ft_hca && return 0
	rxe_down self && rmmod ft_hca
}

bg=()
had_fabtrace=0
_gone fabtrace || had_fabtrace=1
cleanup() {
	local p

	for p in "${bg[@]}"; do
		kill "$p" 2>/dev/null && wait "$p" 2>/dev/null || true
	done
	cong_cleanup
	hca_unload
	# as found: later tests load what they need, but need not
	[ "$had_fabtrace" = 0 ] || modprobe fabtrace
}
at_exit cleanup

# port FILE [peer]: the port's counters (rdma -j statistic show link rxe0/1)
port() {
	if [ "${2:-self}" = peer ]; then
		peer rdma -j statistic show link rxe0/1 >"$1"
	else
		rdma -j statistic show link rxe0/1 >"$1"
	fi
}
# pv FILE NAME: one counter of a port snapshot; dv NAME F0 F1: its change
pv() { jq -r ".[0].$2" "$1"; }
dv() { echo $(($(pv "$3" "$1") - $(pv "$2" "$1"))); }
# sets FILE: the counter sets of rxe0/1 (rdma -j statistic qp show)
sets() { rdma -j statistic qp show link rxe0/1 >"$1"; }
nsets() { jq length "$1"; }

# oracle NAME [--psn IP/QPN=PSN]...: the capture NAME decoded, to NAME.json;
# ov NAME IP QPN KEY: one of its counts
oracle() {
	local name=$1

	shift
	python3 "$ORACLE" "$@" "$O/$name.pcap" >"$O/$name.json" ||
		log "pcap_oracle.py $name: exit $?"
	log "tshark $name: $(jq -c .qp "$O/$name.json")"
}
ov() { jq -r --arg q "$2/$3" ".qp[\$q].$4 // 0" "$O/$1.json"; }

local_listening() { ss -Hltn "sport = :18515" | grep -q .; }

# pt NAME OP SERVER ARGS...: perftest OP (ib_write_bw, ib_read_bw) with its
# server on SERVER (self: A, peer: B), its client on the other node;
# output in NAME.srv and NAME.cli.  Without -u: a 67 ms ACK timeout.
pt() {
	local name=$1 op=$2 where=$3 rc=0 spid
	local args=(-d rxe0 -x 1 -F "${@:4}")

	if [ "$where" = self ]; then
		timeout 300 "$op" "${args[@]}" >"$O/$name.srv" 2>&1 &
		spid=$!
		bg+=("$spid")
		wait_for 60 local_listening || return 1
		peer -t 300 "$op ${args[*]} $A_IP" >"$O/$name.cli" 2>&1 || rc=$?
	else
		peer -t 300 "$op ${args[*]}" >"$O/$name.srv" 2>&1 &
		spid=$!
		bg+=("$spid")
		wait_for 60 perftest_listening || return 1
		timeout 300 "$op" "${args[@]}" "$B_IP" >"$O/$name.cli" 2>&1 || rc=$?
	fi
	wait "$spid" || rc=$?
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

# ---- setup -------------------------------------------------------------------

ktap_plan 87

rxe_down self
for m in fabtrace rdma_rxe; do
	_gone "$m" || rmmod "$m"
done
modprobe rdma_rxe
# A line of our own marks where the log starts for this check: a count of
# lines does not, once the ring is full (6.1, late in the suite).
mark="ft-hca-mark-$$-$RANDOM"
echo "$mark" >/dev/kmsg
# grep reads the log whole: with -q it would leave sed a SIGPIPE
refused() {
	! insmod "$KO" 2>/dev/null && _gone ft_hca && [ -d /sys/module/rdma_rxe ] &&
		dmesg | sed -n "/$mark/,\$p" |
		grep -F "ft_hca: cannot take UDP port 4791: unload rdma_rxe first" >/dev/null
}
ktap_result "setup: insmod ft_hca beside rdma_rxe fails, saying why; rdma_rxe stays" refused
ktap_assert "setup: rdma_rxe out, ft_hca in, rxe0 made with 'rdma link add rxe0 type rxe'" hca_load
ktap_assert "setup: rxe0 ACTIVE on $FT_NETDEV, rdma_rxe not loaded: ft_hca's" sh -c \
	"rdma link show rxe0/1 | grep -q 'state ACTIVE .*netdev $FT_NETDEV' &&
	 [ -d /sys/module/ft_hca ] && [ ! -d /sys/module/rdma_rxe ]"
peer_rxe() { rxe_up peer && peer test -d /sys/module/rdma_rxe; }
ktap_assert "setup: B's rxe0 up on plain rdma_rxe" peer_rxe

port "$O/port0.json"
names() {
	python3 - "$O/port0.json" <<'EOF'
import json, sys
p = json.load(open(sys.argv[1]))[0]
q = """rx_write_requests rx_read_requests rx_atomic_requests rx_dct_connect
out_of_buffer out_of_sequence duplicate_request rnr_nak_retry_err packet_seq_err
implied_nak_seq_err local_ack_timeout_err resp_local_length_error resp_cqe_error
req_cqe_error req_remote_invalid_request req_remote_access_errors
resp_remote_access_errors resp_cqe_flush_error req_cqe_flush_error
req_transport_retries_exceeded req_rnr_retries_exceeded roce_adp_retrans
roce_adp_retrans_to roce_slow_restart roce_slow_restart_cnps
roce_slow_restart_trans rp_cnp_ignored rp_cnp_handled np_ecn_marked_roce_packets
np_cnp_sent rx_icrc_encapsulated sent_pkts rcvd_pkts out_of_seq_request
rcvd_rnr_err send_rnr_err rcvd_seq_err ack_deferred retry_exceeded_err
retry_rnr_exceeded_err completer_retry_err send_err link_downed rdma_sends
rdma_recvs""".split()
got = [k for k in p if k not in ("ifname", "port")]
print("#", " ".join(got))
sys.exit(got != q)
EOF
}
ktap_result "setup: the port shows mlx5's 26 Q and 5 port counters, then rxe's 14 (duplicate_request once), in order" names
ktap_result "setup: optional counters supported: cc_rx_ce_pkts, cc_rx_cnp_pkts, cc_tx_cnp_pkts" sh -c \
	"rdma statistic mode supported link rxe0/1 | grep -q 'optional-counters cc_rx_ce_pkts,cc_rx_cnp_pkts,cc_tx_cnp_pkts'"
optional() {
	rdma statistic set link rxe0/1 optional-counters cc_rx_ce_pkts,cc_rx_cnp_pkts,cc_tx_cnp_pkts &&
		rdma -j statistic show link rxe0/1 |
		jq -e '.[0] | .cc_rx_ce_pkts == 0 and .cc_rx_cnp_pkts == 0 and .cc_tx_cnp_pkts == 0' >/dev/null
}
ktap_result "setup: optional counters enabled, shown from 0" optional
automode() {
	rdma statistic qp set link rxe0/1 auto type on &&
		rdma statistic qp mode link rxe0/1 | grep -q "auto type on"
}
ktap_assert "setup: auto mode (type) on rxe0/1" automode

# ---- write: exact counts (binding: "sets" below, with held QPs) --------------

port "$O/w0.json"
port "$O/w0b.json" peer
cap_start "$O/w.pcap" "${CONG_CAP[@]}" || fail_all "tcpdump on A did not start"
# -u 20: a 4 s ACK timeout, so that a starved node seldom retransmits
ktap_result "write: ib_write_bw B -> A, 200 x 8 KiB, no loss" pt w ib_write_bw self -s 8192 -n 200 -u 20
cap_stop "$O/w.pcap" || log "tcpdump did not end well"
port "$O/w1.json"
port "$O/w1b.json" peer
sets "$O/w_after.json"
aq=$(ptv "$O/w.srv" local QPN)
oracle w --psn "$A_IP/$aq=$(ptv "$O/w.srv" remote PSN)"
wrote=$(dv rx_write_requests "$O/w0.json" "$O/w1.json")
cong_eq "write: A's rx_write_requests == B's sent_pkts" "$wrote" "$(dv sent_pkts "$O/w0b.json" "$O/w1b.json")"
cong_eq "write: A's rx_write_requests == tshark's write packets to A's QP" "$wrote" "$(ov w "$A_IP" "$aq" write)"
cong_eq "write: tcpdump dropped nothing" "$(cap_dropped "$O/w.pcap")" 0
# (none, unless B retransmitted: a TCG node can stall past even 4 s)
cong_eq "write: A's out_of_sequence == the capture's, replayed" \
	"$(dv out_of_sequence "$O/w0.json" "$O/w1.json")" "$(ov w "$A_IP" "$aq" oos)"
cong_eq "write: A's duplicate_request == the capture's, replayed" \
	"$(dv duplicate_request "$O/w0.json" "$O/w1.json")" "$(ov w "$A_IP" "$aq" dup)"
cong_eq "write: the QP gone, its set is gone (its counts stayed in the port's, above)" "$(nsets "$O/w_after.json")" 0

# ---- loss: requests and responses ----------------------------------------------

# NAME OP SERVER ARGS: perftest across 3% loss on both nodes' RoCE egress
lossy() {
	cong_netem peer roce loss 3% || return 1
	cong_netem self roce loss 3% || return 1
	cap_start "$O/$1.pcap" "${CONG_CAP[@]}" || return 1
	local rc=0

	pt "$@" || rc=$?
	cong_netem_del peer
	cong_netem_del self
	cap_stop "$O/$1.pcap" || log "tcpdump did not end well"
	return "$rc"
}

port "$O/l0.json"
ktap_result "loss: ib_write_bw B -> A, 50 x 8 KiB, 3% loss each way" lossy lw ib_write_bw self -s 8192 -n 50
port "$O/l1.json"
aq=$(ptv "$O/lw.srv" local QPN)
oracle lw --psn "$A_IP/$aq=$(ptv "$O/lw.srv" remote PSN)"
d() { dv "$1" "$O/l0.json" "$O/l1.json"; }
log "A: rx_write_requests $(d rx_write_requests) out_of_sequence $(d out_of_sequence) duplicate_request $(d duplicate_request) out_of_seq_request $(d out_of_seq_request)"
cong_eq "loss: A's rx_write_requests == tshark's write packets to A's QP" "$(d rx_write_requests)" "$(ov lw "$A_IP" "$aq" write)"
cong_eq "loss: A's out_of_sequence == the capture's, replayed" "$(d out_of_sequence)" "$(ov lw "$A_IP" "$aq" oos)"
cong_eq "loss: A's duplicate_request == the capture's, replayed" "$(d duplicate_request)" "$(ov lw "$A_IP" "$aq" dup)"
cong_gt "loss: requests came out of sequence" "$(d out_of_sequence)" 0
cong_le "loss: rxe's out_of_seq_request (first of a gap) <= out_of_sequence" "$(d out_of_seq_request)" "$(d out_of_sequence)"

port "$O/l0.json"
ktap_result "loss: ib_read_bw, B reads from A, 50 x 8 KiB, 3% loss each way" lossy lr ib_read_bw self -s 8192 -n 50
port "$O/l1.json"
aq=$(ptv "$O/lr.srv" local QPN)
oracle lr --psn "$A_IP/$aq=$(ptv "$O/lr.srv" remote PSN)"
log "A: rx_read_requests $(d rx_read_requests) out_of_sequence $(d out_of_sequence) duplicate_request $(d duplicate_request)"
cong_eq "loss: A's rx_read_requests == tshark's read requests to A's QP" "$(d rx_read_requests)" "$(ov lr "$A_IP" "$aq" read)"
cong_eq "loss: A's out_of_sequence == the capture's, replayed (reads)" "$(d out_of_sequence)" "$(ov lr "$A_IP" "$aq" oos)"
cong_eq "loss: A's duplicate_request == the capture's, replayed (reads)" "$(d duplicate_request)" "$(ov lr "$A_IP" "$aq" dup)"
cong_gt "loss: read requests came again or out of sequence" $(($(d out_of_sequence) + $(d duplicate_request))) 0
cong_eq "loss: no write request among them" "$(d rx_write_requests)" 0

# A reads from B; only B's responses are lost
port "$O/l0.json"
port "$O/l0b.json" peer
cong_netem peer roce loss 3%
ktap_result "loss: ib_read_bw, A reads from B, 50 x 8 KiB, 3% loss of B's responses" \
	pt lq ib_read_bw peer -s 8192 -n 50
cong_netem_del peer
port "$O/l1.json"
port "$O/l1b.json" peer
log "A: implied_nak_seq_err $(d implied_nak_seq_err) local_ack_timeout_err $(d local_ack_timeout_err) packet_seq_err $(d packet_seq_err); rxe completer_retry_err $(d completer_retry_err)"
cong_gt "loss: A saw read responses past the expected PSN (implied_nak_seq_err)" "$(d implied_nak_seq_err)" 0
cong_le "loss: implied_nak_seq_err (one a gap) <= rxe's retries (a gap needs one)" "$(d implied_nak_seq_err)" "$(d completer_retry_err)"
cong_le "loss: local_ack_timeout_err <= rxe's retries" "$(d local_ack_timeout_err)" "$(d completer_retry_err)"
# B's rxe NAKs the first request of each gap, and counts it: there is none
cong_eq "loss: no sequence NAK (A's packet_seq_err, B's out_of_seq_request)" \
	$(($(d packet_seq_err) + $(dv out_of_seq_request "$O/l0b.json" "$O/l1b.json"))) 0

# ---- timeout ---------------------------------------------------------------------

# NAME PORT ARGS: ft_timeout, A writing to B; ACKs cut (B's RoCE egress
# 100% lost) from 0.5 s after the first write completed, for CUT seconds
# (0: until the client ends).  Its status is the client's (1 if netem could
# not be set): only logged, the checks read the client's JSON
timeout_run() {
	local name=$1 tport=$2 cut=$3 rc=0 cli srv

	shift 3
	cong_netem peer roce loss 0% || return 1
	peer -t 90 "$FT_PROGS/ft_timeout --server -p $tport --timeout-s 80" \
		>"$O/$name.srv" 2>&1 &
	srv=$!
	"$FT_PROGS/ft_timeout" --peer "$FT_PEER_CTL_IP" -p "$tport" --timeout-s 80 "$@" \
		>"$O/$name.json" 2>"$O/$name.err" &
	cli=$!
	bg+=("$srv" "$cli")
	flowing() { grep -q "first write completed" "$O/$name.err"; }
	wait_for 40 flowing || log "$name: no write completed: $(cat "$O/$name.err")"
	sleep 0.5
	cong_netem_change peer loss 100%
	if [ "$cut" != 0 ]; then
		sleep "$cut"
		cong_netem_change peer loss 0%
	fi
	wait "$cli" || rc=$?
	cong_netem_del peer
	wait "$srv" || true
	log "$name: $(cat "$O/$name.json")"
	return "$rc"
}

port "$O/t0.json"
port "$O/t0b.json" peer
timeout_run t 18631 1 --seconds 4 --timeout 14 --retry-cnt 7 || log "timeout_run t: exit $?"
ktap_result "timeout: ft_timeout A -> B completed across a 1 s ACK blackout" \
	test "$(jq -r .first_error "$O/t.json")" = null
port "$O/t1.json"
port "$O/t1b.json" peer
d() { dv "$1" "$O/t0.json" "$O/t1.json"; }
to=$(d local_ack_timeout_err)
log "A: local_ack_timeout_err $to roce_adp_retrans $(d roce_adp_retrans) roce_slow_restart $(d roce_slow_restart) roce_slow_restart_trans $(d roce_slow_restart_trans); rxe completer_retry_err $(d completer_retry_err)"
cong_gt "timeout: A's ACK timer expired (local_ack_timeout_err)" "$to" 0
cong_eq "timeout: no NAK, no implied NAK (B's out_of_seq_request, packet_seq_err, implied_nak_seq_err)" \
	$(($(dv out_of_seq_request "$O/t0b.json" "$O/t1b.json") + $(d packet_seq_err) + $(d implied_nak_seq_err))) 0
cong_eq "timeout: local_ack_timeout_err == rxe's retries (each timeout one)" "$to" "$(d completer_retry_err)"
cong_eq "timeout: roce_adp_retrans == local_ack_timeout_err" "$(d roce_adp_retrans)" "$to"
cong_eq "timeout: roce_slow_restart == local_ack_timeout_err" "$(d roce_slow_restart)" "$to"
cong_gt "timeout: the QP moved to slow restart (roce_slow_restart_trans)" "$(d roce_slow_restart_trans)" 0
cong_le "timeout: roce_slow_restart_trans <= local_ack_timeout_err" "$(d roce_slow_restart_trans)" "$to"
cong_gt "timeout: B got A's retransmissions as duplicates (B's rxe)" \
	"$(dv duplicate_request "$O/t0b.json" "$O/t1b.json")" 0
cong_eq "timeout: no retry ran out" "$(d req_transport_retries_exceeded)" 0

port "$O/t0.json"
timeout_run x 18632 0 --seconds 30 --timeout 14 --retry-cnt 2 || log "timeout_run x: exit $?"
ktap_result "timeout: ACKs cut for good, ft_timeout (retry count 2) ends with IBV_WC_RETRY_EXC_ERR" \
	test "$(jq -r .first_error "$O/x.json")" = IBV_WC_RETRY_EXC_ERR
port "$O/t1.json"
log "A: req_transport_retries_exceeded $(d req_transport_retries_exceeded) roce_adp_retrans_to $(d roce_adp_retrans_to) req_cqe_error $(d req_cqe_error) req_cqe_flush_error $(d req_cqe_flush_error) local_ack_timeout_err $(d local_ack_timeout_err)"
cong_eq "timeout: req_transport_retries_exceeded" "$(d req_transport_retries_exceeded)" 1
cong_eq "timeout: rxe's retry_exceeded_err" "$(d retry_exceeded_err)" 1
cong_eq "timeout: roce_adp_retrans_to (it ran out on a timeout)" "$(d roce_adp_retrans_to)" 1
cong_gt "timeout: two timeouts retried first (local_ack_timeout_err)" "$(d local_ack_timeout_err)" 1
cong_eq "timeout: req_cqe_error - req_cqe_flush_error: the one retry error, the rest flushed" \
	$(($(d req_cqe_error) - $(d req_cqe_flush_error))) 1
cong_le "timeout: ft_timeout's flushed completions <= req_cqe_flush_error" \
	"$(jq .flushed "$O/x.json")" "$(d req_cqe_flush_error)"

# ---- sets: sharing, destruction, history; CNPs received ---------------------

# srv NAME PORT ARGS: an ft_qps server on A, kept until killed; its pid in
# SRV.  cli NAME PORT ARGS: its client on B.  done NAME: the server's JSON is
# there (ft_qps --hold prints it once the traffic is over).
srv() {
	local name=$1 sport=$2

	shift 2
	"$FT_PROGS/ft_qps" --server -p "$sport" --hold --timeout-s 600 "$@" \
		>"$O/$name.json" 2>"$O/$name.err" &
	SRV=$!
	bg+=("$SRV")
}
cli() {
	local name=$1 cport=$2

	shift 2
	peer "$FT_PROGS/ft_qps --peer $FT_CTL_IP -p $cport --timeout-s 120 $*" \
		>"$O/$name.cli.json" 2>"$O/$name.cli.err"
}
done_json() { jq -e .qps "$O/$1.json" >/dev/null 2>&1; }
stop() {
	kill "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
}

common=(-n 1 --iters 30 --size 8192 --op write)
port "$O/s0.json"
cap_start "$O/s.pcap" "${CONG_CAP[@]}"
# one after the other: two QPs reaching INIT at once can both find no set
# and get one each (the core looks for a set and makes one in two steps)
both() {
	srv s1 18641 "${common[@]}"
	s1=$SRV
	cli s1 18641 "${common[@]}" && wait_for 30 done_json s1 || return 1
	srv s2 18642 "${common[@]}"
	s2=$SRV
	cli s2 18642 "${common[@]}" && wait_for 30 done_json s2
}
ktap_assert "sets: two ft_qps processes on A, one QP each, 30 x 8 KiB written to each from B" both
cap_stop "$O/s.pcap" || log "tcpdump did not end well"
q1=$(jq '.qps[0].qpn' "$O/s1.json")
q2=$(jq '.qps[0].qpn' "$O/s2.json")
oracle s --psn "$A_IP/$q1=$(jq '.qps[0].rq_psn' "$O/s1.json")" \
	--psn "$A_IP/$q2=$(jq '.qps[0].rq_psn' "$O/s2.json")"
sets "$O/s_both.json"
log "sets: $(jq -c 'map({cntn, "qp-type", rx_write_requests, lqpn})' "$O/s_both.json")"
tw=$(($(ov s "$A_IP" "$q1" write) + $(ov s "$A_IP" "$q2" write)))
ktap_result "sets: one auto set holds both processes' QPs ($q1, $q2)" \
	py "len(a) == 1 and sorted(a[0]['lqpn']) == sorted([$q1, $q2]) and a[0]['qp-type'] == 'RC'" "$O/s_both.json"
cong_eq "sets: the set's rx_write_requests == tshark's writes to both QPs" \
	"$(jq '.[0].rx_write_requests' "$O/s_both.json")" "$tw"
cntn=$(jq '.[0].cntn' "$O/s_both.json")

# CNPs from B (ft_cnp), to the live QP q2 and to a QP A has not
cnps() {
	peer "$FT_PROGS/ft_cnp --ifname \$FT_NETDEV --dst-ip $A_IP --qpn $1 --count $2 --interval-us 1000" \
		>"$O/cnp.json" || return 1
	[ "$(jq .sent "$O/cnp.json")" = "$2" ]
}
rp_at() { [ "$(rdma -j statistic show link rxe0/1 | jq ".[0].cc_rx_cnp_pkts - $(pv "$O/c0.json" cc_rx_cnp_pkts)")" -ge "$1" ]; }
port "$O/c0.json"
ok=0
cnps "$q2" 20 && wait_for 10 rp_at 20 && cnps $((0xabcde)) 5 && wait_for 10 rp_at 25 &&
	echo N >/sys/module/ft_hca/parameters/rp_enable && cnps "$q2" 5 && wait_for 10 rp_at 30 ||
	ok=$?
echo Y >/sys/module/ft_hca/parameters/rp_enable
ktap_result "sets: B sent CNPs: 20 to QP $q2, 5 to no QP, 5 with rp_enable=N" test "$ok" = 0
port "$O/c1.json"
d() { dv "$1" "$O/c0.json" "$O/c1.json"; }
cong_eq "sets: rp_cnp_handled: the CNPs for the live QP while the RP was on" "$(d rp_cnp_handled)" 20
cong_eq "sets: rp_cnp_ignored: for no QP, or with the RP off" "$(d rp_cnp_ignored)" 10
cong_eq "sets: cc_rx_cnp_pkts: every CNP" "$(d cc_rx_cnp_pkts)" 30
cong_eq "sets: rxe dropped them (rcvd_pkts unchanged), no ICRC error counted" \
	$(($(d rcvd_pkts) + $(d rx_icrc_encapsulated))) 0

stop "$s1"
sets "$O/s_one.json"
ktap_result "sets: QP $q1 destroyed: its set stays ($cntn), holding $q2, and keeps $q1's counts" \
	py "len(a) == 1 and a[0]['cntn'] == $cntn and a[0]['lqpn'] == [$q2] and a[0]['rx_write_requests'] == $tw" \
	"$O/s_one.json"
stop "$s2"
sets "$O/s_none.json"
port "$O/s1.json"
cong_eq "sets: the last QP gone, the set is gone" "$(nsets "$O/s_none.json")" 0
cong_eq "sets: the port's rx_write_requests kept every write (history)" \
	"$(dv rx_write_requests "$O/s0.json" "$O/s1.json")" "$tw"

# ---- ecn: the notification point ----------------------------------------------

NP=/sys/module/ft_hca/parameters/np_min_time_us
np_was=$(cat "$NP")
# NAME PORT: B writes ECT(0) to A, netem on B marks 20% of them CE
ecn_run() {
	cong_netem peer ect0 loss 20% ecn || return 1
	cap_start "$O/$1.pcap" "${CONG_CAP[@]}" || return 1
	"$FT_PROGS/ft_qps" --server -p "$2" --tclass 2 --timeout-s 120 "${common[@]}" \
		>"$O/$1.json" 2>"$O/$1.err" &
	local s=$! rc=0

	cli "$1" "$2" --tclass 2 "${common[@]}" || rc=$?
	wait "$s" || rc=$?
	cong_netem_del peer
	cap_stop "$O/$1.pcap" || log "tcpdump did not end well"
	return "$rc"
}
echo 0 >"$NP"
port "$O/e0.json"
ktap_result "ecn: B writes 30 x 8 KiB ECT(0) to A, 20% CE-marked; np_min_time_us=0" ecn_run e 18651
port "$O/e1.json"
# (no JSON if ecn_run failed: the checks below say so)
aq=$(jq '.qps[0].qpn' "$O/e.json") || true
bq=$(jq '.qps[0].remote_qpn' "$O/e.json") || true
oracle e
d() { dv "$1" "$O/e0.json" "$O/e1.json"; }
ce=$(ov e "$A_IP" "$aq" ce) || true
log "A: np_ecn_marked_roce_packets $(d np_ecn_marked_roce_packets) np_cnp_sent $(d np_cnp_sent) cc_rx_ce_pkts $(d cc_rx_ce_pkts) cc_tx_cnp_pkts $(d cc_tx_cnp_pkts); tshark CE to A $ce, CNPs to B $(ov e "$B_IP" "$bq" cnp)"
cong_gt "ecn: netem marked some of B's writes CE" "$ce" 0
cong_eq "ecn: np_ecn_marked_roce_packets == tshark's CE-marked packets to A" "$(d np_ecn_marked_roce_packets)" "$ce"
cong_eq "ecn: cc_rx_ce_pkts == np_ecn_marked_roce_packets" "$(d cc_rx_ce_pkts)" "$ce"
cong_eq "ecn: np_cnp_sent: a CNP for each" "$(d np_cnp_sent)" "$ce"
cong_eq "ecn: tshark's CNPs to B's QP == np_cnp_sent" "$(ov e "$B_IP" "$bq" cnp)" "$(d np_cnp_sent)"
cong_eq "ecn: cc_tx_cnp_pkts == np_cnp_sent" "$(d cc_tx_cnp_pkts)" "$(d np_cnp_sent)"
"$FT_PROGS/ft_icrc" "$O/e.pcap" >"$O/e_icrc.json" || log "ft_icrc: exit $?"
log "ft_icrc: $(cat "$O/e_icrc.json")"
cong_eq "ecn: ft_icrc: every captured frame's ICRC is right, the CNPs' too (bad)" \
	"$(jq .icrc_bad "$O/e_icrc.json")" 0
cong_eq "ecn: ft_icrc: CNP frames == np_cnp_sent" "$(jq '.opcodes."129" // 0' "$O/e_icrc.json")" "$(d np_cnp_sent)"

echo 60000000 >"$NP"
port "$O/e0.json"
ktap_result "ecn: again, with np_min_time_us=60 s" ecn_run e2 18652
port "$O/e1.json"
echo "$np_was" >"$NP"
cong_gt "ecn: CE-marked packets arrived" "$(d np_ecn_marked_roce_packets)" 1
cong_eq "ecn: one CNP for them all" "$(d np_cnp_sent)" 1

# ---- limits: 32-bit wrap, exhaustion ---------------------------------------------

ktap_assert "limits: ft_hca reloaded with nr_counters=8 counter_start=$START" \
	hca_load nr_counters=8 counter_start=$START
port "$O/z0.json"
ktap_result "limits: the port's own Q counters start at $START, auto mode is off" sh -c \
	"[ $(pv "$O/z0.json" rx_write_requests) = $START ] &&
	 rdma statistic qp mode link rxe0/1 | grep -q 'auto off'"
automode
port "$O/z0b.json" peer
srv z 18661 -n 1 --iters 50 --size 8192 --op write
zs=$SRV
zrun() { cli z 18661 -n 1 --iters 50 --size 8192 --op write && wait_for 30 done_json z; }
ktap_result "limits: B writes 50 x 8 KiB to an auto set" zrun
sets "$O/z_sets.json"
port "$O/z1b.json" peer
# no loss: each packet B sent is a write request A received
n=$(dv sent_pkts "$O/z0b.json" "$O/z1b.json")
cong_eq "limits: the set's rx_write_requests wrapped: ($START + $n) mod 2^32" \
	"$(jq '.[0].rx_write_requests' "$O/z_sets.json")" $(((START + n) % (1 << 32)))
stop "$zs"

rdma statistic qp set link rxe0/1 auto off
"$FT_PROGS/ft_qps" --no-connect -n 50 --hold --timeout-s 600 >"$O/nc.json" 2>"$O/nc.err" &
nc=$!
bg+=("$nc")
wait_for 60 done_json nc || log "ft_qps --no-connect: $(cat "$O/nc.err")"
ok=0 nomem=0 other=0 failed=
for q in $(jq '.qps[].qpn' "$O/nc.json"); do
	if rdma statistic qp bind link rxe0/1 lqpn "$q" 2>"$O/bind.err"; then
		ok=$((ok + 1))
	elif grep -q "Cannot allocate memory" "$O/bind.err"; then
		nomem=$((nomem + 1)) failed=$q
	else
		other=$((other + 1))
		log "bind $q: $(cat "$O/bind.err")"
	fi
done
sets "$O/m_sets.json"
cong_eq "limits: manual binds of 50 QPs: 8 succeed" "$ok" 8
cong_eq "limits: 42 fail with ENOMEM (no set left)" "$nomem" 42
ktap_result "limits: 8 sets (cntn 1..8), one QP each" \
	py "sorted(s['cntn'] for s in a) == list(range(1, 9)) and all(len(s['lqpn']) == 1 for s in a)" \
	"$O/m_sets.json"
c=$(jq '.[0].cntn' "$O/m_sets.json")
q=$(jq '.[0].lqpn[0]' "$O/m_sets.json")
reuse() {
	rdma statistic qp unbind link rxe0/1 cntn "$c" lqpn "$q" &&
		[ "$(rdma -j statistic qp show link rxe0/1 | jq length)" = 7 ] &&
		rdma statistic qp bind link rxe0/1 lqpn "$failed" &&
		rdma -j statistic qp show link rxe0/1 | jq -e "any(.[]; .cntn == $c and .lqpn == [$failed])" >/dev/null
}
ktap_result "limits: unbinding set $c frees it; a refused QP then gets it" reuse
stop "$nc"
sets "$O/m_none.json"
cong_eq "limits: the QPs gone, no set left" "$(nsets "$O/m_none.json")" 0

rdma statistic qp set link rxe0/1 auto pid on
pids=()
for i in $(seq 10); do
	"$FT_PROGS/ft_qps" --no-connect -n 5 --hold --timeout-s 600 >"$O/p$i.json" 2>"$O/p$i.err" &
	pids+=($!)
	bg+=($!)
	wait_for 60 done_json "p$i" || log "ft_qps p$i: $(cat "$O/p$i.err")"
done
sets "$O/p_sets.json"
log "auto pid: $(jq -c 'map({cntn, pid, n: (.lqpn | length)})' "$O/p_sets.json")"
cong_eq "limits: auto mode by pid, 10 processes of 5 QPs: 8 sets" "$(nsets "$O/p_sets.json")" 8
ktap_result "limits: the first 8 processes' QPs, 5 a set; the last 2's 10 QPs in none" python3 - \
	"$O/p_sets.json" "$O"/p{1..10}.json <<'PY'
import json, sys
sets = json.load(open(sys.argv[1]))
procs = [json.load(open(f)) for f in sys.argv[2:]]
want = [sorted(q["qpn"] for q in p["qps"]) for p in procs[:8]]
got = sorted(sorted(s["lqpn"]) for s in sets)
bound = {q for s in sets for q in s["lqpn"]}
spare = {q["qpn"] for p in procs[8:] for q in p["qps"]}
print("# sets", got)
sys.exit(not (got == sorted(want) and not bound & spare and len(spare) == 10))
PY
for p in "${pids[@]}"; do
	stop "$p"
done
sets "$O/p_none.json"
cong_eq "limits: all gone, no set left" "$(nsets "$O/p_none.json")" 0
rdma statistic qp set link rxe0/1 auto off
port "$O/z1.json"
cong_eq "limits: no ICRC error all along (rx_icrc_encapsulated)" "$(pv "$O/z1.json" rx_icrc_encapsulated)" 0

ktap_result "ft_hca unloads" hca_unload
ktap_result "rdma_rxe comes back: rxe0 on plain soft-RoCE" rxe_up self
ktap_finished
