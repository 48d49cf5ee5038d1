#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The fabtrace demo, run on node A by demo.sh: what fabtrace shows on a wire.
#
# Each step prints a header, then real output from node A (local) or node B
# (through `peer`).  Later steps (traffic, congestion, policy) go at the end.
set -euo pipefail
. "$FT_REPO/selftests/lib.sh"

header() {
	printf '\n======== %s ========\n' "$*"
}

missing=()
command -v fabtrace >/dev/null || missing+=("the CLI ($FT_CLI: make user)")
modinfo fabtrace >/dev/null 2>&1 ||
	missing+=("the module ($FT_BUILD/$FT_KVER/kmod/fabtrace.ko: make modules)")
if [ ${#missing[@]} -gt 0 ]; then
	printf 'demo: missing %s\n' "${missing[@]}" >&2
	exit 1
fi

header "node A and node B: modprobe fabtrace"
on_both modprobe fabtrace
on_both 'echo "$(hostname): fabtrace $(cat /sys/module/fabtrace/initstate)"'

header "node A and node B: rxe0 on the data wire ($FT_SELF_IP <-> $FT_PEER_IP)"
rxe_up both
on_both 'echo "$(hostname): $(rdma link show rxe0/1)"'

header "node A: fabtrace dev show"
fabtrace dev show

header "node B: fabtrace dev show"
peer fabtrace dev show
