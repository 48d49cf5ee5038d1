#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# fabtrace.ko loads and unloads cleanly, before and after an rxe device exists;
# its hot hooks are direct calls, or ftrace callbacks with direct=0; it hooks
# rdma_rxe's functions, not another module's of the same names, and hooks
# them again when rdma_rxe is unloaded and loaded again.
# timeout=180
set -euo pipefail
. "$(dirname "$(readlink -f "$0")")/lib.sh"

require_module fabtrace
require_cmd rdma

loaded() { [ "$(cat /sys/module/fabtrace/initstate 2>/dev/null)" = live ]; }
unloaded() { [ ! -e /sys/module/fabtrace ]; }

# ftrace's own listing of the hooked functions is the oracle (ft_hooked).
HOT="rxe_icrc_generate:ft_tramp_icrc:ft_tap_tx
	rxe_resp_queue_pkt:ft_tramp_queue:ft_tap_rx rxe_comp_queue_pkt:ft_tramp_queue:ft_tap_rx
	rxe_cq_post:ft_tramp_cqe:ft_life_cq_post"
hot_hooks() {
	local h fn tramp cb out bad=0

	for h in $HOT; do
		IFS=: read -r fn tramp cb <<<"$h"
		out=$(ft_hooked "$fn")
		if [ "$1" = direct ]; then
			grep -q "direct-->$tramp+" <<<"$out" || bad=1
		else
			grep -q "($cb+" <<<"$out" && ! grep -q 'direct-->' <<<"$out" || bad=1
		fi
		[ "$bad" = 0 ] || { log "$fn is not hooked as a $1 call:"; log "${out:-  (not hooked)}"; return 1; }
	done
}
no_hooks() { ! grep -q '\[fabtrace\]' /sys/kernel/tracing/enabled_functions; }

# Start from "no RDMA device at all", whatever ran before.
modprobe -r fabtrace 2>/dev/null || true
rxe_down self
modprobe -r -a nvme_rdma nvmet_rdma rdma_ucm rdma_rxe rdma_cm iw_cm ib_cm ib_uverbs 2>/dev/null || true

# ft_decoy (selftests/kmod) has functions named like every rdma_rxe
# function fabtrace hooks; loaded first, none of them may be hooked.
DECOY=${FT_BUILD:-}/$(uname -r)/testmod/ft_decoy.ko
rmmod ft_decoy 2>/dev/null || true
decoy=
if [ -r "$DECOY" ] && insmod "$DECOY"; then
	decoy=1
fi
decoy_untouched() {
	grep -q '^rxe_resp_queue_pkt \[rdma_rxe\]' /sys/kernel/tracing/enabled_functions &&
		! grep '\[ft_decoy\]' /sys/kernel/tracing/enabled_functions | sed 's/^/# hooked: /'
}

ktap_plan 17
ktap_result "modprobe fabtrace with no RDMA device" modprobe fabtrace
ktap_result "fabtrace is live" loaded
# make bench's timers (and their fake events) are built into its own module
no_bench() {
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	[ ! -e /sys/kernel/debug/fabtrace ]
}
ktap_result "the module has no test-only debugfs files" no_bench
ktap_result "rxe0 added while fabtrace is loaded" rxe_up self
ktap_result "rxe_icrc_generate, rxe_{resp,comp}_queue_pkt, rxe_cq_post call fabtrace directly" hot_hooks direct
if [ -n "$decoy" ]; then
	ktap_result "ft_decoy's functions named like rdma_rxe's are not hooked" decoy_untouched
	rmmod ft_decoy
else
	ktap_skip "ft_decoy's functions named like rdma_rxe's are not hooked" \
		"no $DECOY to insmod (make test-modules builds it)"
fi
# rmmod, not modprobe -r: the latter also tries to remove ib_core, which
# rdma_rxe still uses, and reports that as a failure.
ktap_result "rmmod fabtrace with rxe0 present" rmmod fabtrace
ktap_result "no function is left hooked by fabtrace" no_hooks
ktap_result "modprobe fabtrace direct=0 with rxe0 present" modprobe fabtrace direct=0
ktap_result "direct=0: the same three are ftrace callbacks" hot_hooks callback
# rdma_rxe unloaded and loaded again under one load of fabtrace: its
# hooks come off, and go on again (each ftrace_ops set up a second time,
# a third): as callbacks, then as direct calls.
rxe_gone() { ! grep -q '\[rdma_rxe\]' /sys/kernel/tracing/enabled_functions; }
rxe_reloaded() { rxe_down self && rmmod rdma_rxe && rxe_gone && rxe_up self && hot_hooks "$1"; }
fabtrace_direct() { rmmod fabtrace && modprobe fabtrace && hot_hooks direct; }
ktap_result "direct=0: rdma_rxe unloaded and loaded again, hooked again by callback" rxe_reloaded callback
ktap_result "modprobe fabtrace again, direct calls" fabtrace_direct
ktap_result "rdma_rxe unloaded and loaded again, hooked again by direct call" rxe_reloaded direct
ktap_result "rdma_rxe unloaded and loaded a third time, hooked again by direct call" rxe_reloaded direct
ktap_result "rxe0 removed while fabtrace is loaded" rxe_down self
# Drop the other ib_core users so modprobe -r can take ib_core with it.
modprobe -r -a nvme_rdma nvmet_rdma rdma_ucm rdma_rxe rdma_cm iw_cm ib_cm ib_uverbs 2>/dev/null || true
ktap_result "modprobe -r fabtrace" modprobe -r fabtrace
ktap_result "fabtrace is gone" unloaded
ktap_finished
