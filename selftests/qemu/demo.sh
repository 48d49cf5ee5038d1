#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot the two QEMU nodes on KVER and run the fabtrace demo (demo-guest.sh).
#
#   demo.sh KVER
#
# Needs the module built for KVER ($BUILD/KVER/kmod/fabtrace.ko) and the CLI
# (user/fabtrace, or FT_CLI=path); says which is missing otherwise.  Exit status 0 when the
# demo ran and the kernels logged no problems.
set -euo pipefail

. "$(dirname "$(readlink -f "$0")")/nodes.sh"

[ $# -le 1 ] || { sed -n '3,9s/^# \{0,1\}//p' "$0" >&2; exit 2; }
ftvm_check_kvers demo "$@" || exit
kver=$1
missing=0
if [ ! -f "$BUILD/$kver/kmod/fabtrace.ko" ]; then
	echo "demo: missing the module $BUILD/$kver/kmod/fabtrace.ko (make modules KVER=$kver)" >&2
	missing=1
fi
if [ ! -x "$FT_CLI" ]; then
	echo "demo: missing the CLI $FT_CLI (make user)" >&2
	missing=1
fi
[ "$missing" = 0 ] || exit 1
make -s -C "$FT_REPO/selftests" BUILD="$BUILD" all

trap ftvm_cleanup EXIT
trap 'exit 130' INT TERM
# Show the demo's own output, not the kernel's boot chatter (kernel
# problems are still reported at the end, from the full logs).
# shellcheck disable=SC2034 # read by ftvm_run (nodes.sh)
FTVM_STREAM=1 FTVM_STREAM_FILTER='^\[ *[0-9]+\.[0-9]+\] |^ft-vm: |^ftpeer: '
echo "demo: booting nodes A and B on $kver (TCG, ~20 s)..." >&2
rc=0
ftvm_run "$kver" "$FTVM_DIR/demo-guest.sh" || rc=$?
if [ -s "$FTVM_VM/kernel-issues.txt" ]; then
	echo "demo: the kernel logged problems:" >&2
	sed 's/^/    /' "$FTVM_VM/kernel-issues.txt" >&2
fi
echo >&2
echo "demo: $FTVM_RESULT (${FTVM_WALL}s, node A up after ${FTVM_BOOT_A:-?}s)${FTVM_WHY:+: ${FTVM_WHY%; }}" >&2
echo "demo: logs in $FTVM_VM (node-{a,b}.console, out/)" >&2
exit "$rc"
