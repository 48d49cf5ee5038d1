#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# fabtrace.ko loads and unloads cleanly, before and after an rxe device exists.
# timeout=180
set -euo pipefail
. "$(dirname "$(readlink -f "$0")")/lib.sh"

require_module fabtrace
require_cmd rdma

loaded() { [ "$(cat /sys/module/fabtrace/initstate 2>/dev/null)" = live ]; }
unloaded() { [ ! -e /sys/module/fabtrace ]; }

# Start from "no RDMA device at all", whatever ran before.
modprobe -r fabtrace 2>/dev/null || true
rxe_down self
modprobe -r -a rdma_ucm rdma_rxe rdma_cm iw_cm ib_cm ib_uverbs 2>/dev/null || true

ktap_plan 8
ktap_result "modprobe fabtrace with no RDMA device" modprobe fabtrace
ktap_result "fabtrace is live" loaded
ktap_result "rxe0 added while fabtrace is loaded" rxe_up self
# rmmod, not modprobe -r: the latter also tries to remove ib_core, which
# rdma_rxe still uses, and reports that as a failure.
ktap_result "rmmod fabtrace with rxe0 present" rmmod fabtrace
ktap_result "modprobe fabtrace with rxe0 present" modprobe fabtrace
ktap_result "rxe0 removed while fabtrace is loaded" rxe_down self
# Drop the other ib_core users so modprobe -r can take ib_core with it.
modprobe -r -a rdma_ucm rdma_rxe rdma_cm iw_cm ib_cm ib_uverbs 2>/dev/null || true
ktap_result "modprobe -r fabtrace" modprobe -r fabtrace
ktap_result "fabtrace is gone" unloaded
ktap_finished
