#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A BPF program holds rxe_rcv first: fabtrace hooks it by callback, exactly.
# timeout=300
#
# A function has at most one ftrace direct caller, and a BPF fentry program
# (bpftrace's kfunc probe) is one.  With such a program on rxe_rcv before
# fabtrace loads, fabtrace must say so, hook rxe_rcv by callback beside the
# BPF trampoline, keep its other hot hooks direct, and still count every
# packet: node A's device totals against rxe's own sent_pkts/rcvd_pkts
# deltas over an ib_write_bw A -> B, while the BPF program saw the same
# packets arrive.
set -euo pipefail
. "$(dirname "$(readlink -f "$0")")/lib.sh"

require_peer
require_module fabtrace
require_cmd bpftrace fabtrace rdma ib_write_bw ss python3

OUT=${FT_OUT:-/tmp}
BW_ARGS="-d rxe0 -x 1 -s 8192 -n 200 -u 20 -F"
FALLBACK="rxe_rcv has another direct caller: hooked by callback"

bt='' srv=''
# bpftrace 0.17 loses a SIGINT or SIGTERM that arrives outside its
# epoll_wait() when no perf event follows (it only checks the flag there),
# and then never exits: its count is asked for with SIGUSR1, which it checks
# on every 100 ms poll, and it is stopped with SIGKILL.
stop_bt() {
	kill -KILL "$bt" 2>/dev/null || true
	wait "$bt" 2>/dev/null || true
	bt=
}
cleanup() {
	[ -z "$srv" ] || kill "$srv" 2>/dev/null || true
	[ -z "$bt" ] || stop_bt
}
at_exit cleanup

bpf_holds_rcv() { ft_hooked rxe_rcv | grep -q 'direct-->bpf_trampoline'; }
# ftrace lists a function with two hooks as "(2)" and its list function;
# the counts below show that one of the two is fabtrace's
rcv_shared() {
	local out

	out=$(ft_hooked rxe_rcv)
	log "${out:-rxe_rcv: not hooked}"
	grep -q '^rxe_rcv .*(2)' <<<"$out" && grep -q 'direct-->bpf_trampoline' <<<"$out"
}
others_direct() {
	ft_hooked rxe_icrc_generate | grep -q 'direct-->ft_tramp_icrc+' &&
		ft_hooked rxe_cq_post | grep -q 'direct-->ft_tramp_cqe+'
}
# dev_pkts DIR: node A's fabtrace device total of DIR packets
dev_pkts() {
	fabtrace -j dev show rxe0 |
		python3 -c 'import json, sys; print(json.load(sys.stdin)[0][sys.argv[1]]["packets"])' "$1"
}

rmmod fabtrace 2>/dev/null || true
rxe_up both || fail_all "rxe0 did not come up on both nodes"
bpftrace -e 'kfunc:rdma_rxe:rxe_rcv { @rcv = count(); }' >"$OUT/hook_bpf.bpftrace.log" 2>&1 &
bt=$!
if ! wait_for 90 bpf_holds_rcv; then
	sed 's/^/# bpftrace: /' "$OUT/hook_bpf.bpftrace.log"
	stop_bt
	skip_all "bpftrace could not attach a kfunc probe to rdma_rxe's rxe_rcv"
fi
ktap_plan 7
ktap_result "bpftrace's kfunc probe holds rxe_rcv as a direct call" true

seen0=$(dmesg | grep -c "$FALLBACK" || true)
ktap_assert "modprobe fabtrace with the BPF program on rxe_rcv" modprobe fabtrace
ktap_result "fabtrace logged: $FALLBACK" \
	test "$(dmesg | grep -c "$FALLBACK" || true)" -gt "$seen0"
ktap_result "rxe_rcv: two hooks now, beside the BPF trampoline" rcv_shared
ktap_result "rxe_icrc_generate and rxe_cq_post still call fabtrace directly" others_direct

tx0=$(dev_pkts tx) rx0=$(dev_pkts rx)
sent0=$(rxe_stat sent_pkts) rcvd0=$(rxe_stat rcvd_pkts)
peer -t 200 "ib_write_bw $BW_ARGS" >"$OUT/hook_bpf.server.log" 2>&1 &
srv=$!
wait_for 60 perftest_listening || log "server not listening after 60 s"
# shellcheck disable=SC2086 # BW_ARGS is a list of words
run timeout 200 ib_write_bw $BW_ARGS "$FT_PEER_IP" >"$OUT/hook_bpf.client.log" 2>&1 ||
	log "ib_write_bw exited non-zero"
wait "$srv" || log "ib_write_bw server exited non-zero"
srv=

counts_match() {
	tx=$(($(dev_pkts tx) - tx0)) rx=$(($(dev_pkts rx) - rx0))
	sent=$(($(rxe_stat sent_pkts) - sent0)) rcvd=$(($(rxe_stat rcvd_pkts) - rcvd0))
	[ "$tx" -eq "$sent" ] && [ "$rx" -eq "$rcvd" ] && [ "$rcvd" -gt 0 ]
}
# nothing is in flight once both ends exited; the retry covers a last ACK
wait_for 5 counts_match || true
log "A: fabtrace tx $tx rx $rx; rxe sent_pkts $sent rcvd_pkts $rcvd"
ktap_result "A: fabtrace's device tx/rx packets == rxe's sent/rcvd deltas ($rcvd received)" \
	test "$tx" -eq "$sent" -a "$rx" -eq "$rcvd" -a "$rcvd" -gt 0

bt_count() { sed -n 's/^@rcv: \([0-9]*\)$/\1/p' "$OUT/hook_bpf.bpftrace.log" | tail -n 1; }
bt_printed() {
	kill -USR1 "$bt" 2>/dev/null || true
	sleep 0.5
	[ -n "$(bt_count)" ]
}
wait_for 30 bt_printed || log "bpftrace printed no count on SIGUSR1"
stop_bt
n=$(bt_count)
log "the BPF program counted ${n:-no} rxe_rcv calls"
ktap_result "the BPF program ran on rxe_rcv too (at least the $rcvd packets)" \
	test "${n:-0}" -ge "$rcvd"
# the tests after this one expect fabtrace's direct calls again
rmmod fabtrace && modprobe fabtrace
ktap_finished
