#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A multi-port HCA: each port's QP0 and QP1 are entries of their own.
# timeout=180
#
# ft_ibdev (selftests/kmod) registers an InfiniBand device with two ports
# that does nothing, so the MAD layer creates one QP0 and one QP1 on each
# port, as on a dual-port HCA.  The oracle is the RDMA core's own resource
# tracking (rdma resource show qp), which keys them by port too.  Both ways
# a device and fabtrace meet are checked: the device appearing while
# fabtrace runs, and fabtrace loaded when the device is there.
set -euo pipefail
. "$(dirname "$(readlink -f "$0")")/lib.sh"

require_module fabtrace
require_cmd rdma fabtrace python3
IBDEV=${FT_BUILD:-}/$(uname -r)/testmod/ft_ibdev.ko
[ -f "$IBDEV" ] || skip_all "no $IBDEV (make test-modules)"

T=$(mktemp -d)
cleanup() {
	rmmod ft_ibdev 2>/dev/null || true
	[ -e /sys/module/fabtrace ] || modprobe fabtrace 2>/dev/null || true
	rm -rf "$T"
}
at_exit cleanup

# rdma's and fabtrace's (port, QP number) of ftib0's live QPs
rdma_qps() { rdma -j resource show qp link ftib0 >"$1"; }
ft_qps() { fabtrace -j qp show dev ftib0 >"$1"; }
SAME='sorted((q["port"], q["lqpn"]) for q in a) ==
      sorted((q["port"], q["qpn"]) for q in b if "destroyed" not in q.get("flags", [])) ==
      [(1, 0), (1, 1), (2, 0), (2, 1)] and
      all("destroyed" not in q.get("flags", []) for q in b)'

modprobe ib_core
modprobe fabtrace
rmmod ft_ibdev 2>/dev/null || true
ktap_plan 4
ktap_assert "ft_ibdev registers ftib0 with 2 ports" insmod "$IBDEV" nports=2
wait_for 20 sh -c "rdma -j resource show qp link ftib0 | grep -q lqpn" || true

rdma_qps "$T/r1.json"
ft_qps "$T/f1.json"
log "rdma: $(cat "$T/r1.json")"
ktap_result "added under fabtrace: QP0 and QP1 of both ports, live, as rdma lists them" \
	py "$SAME" "$T/r1.json" "$T/f1.json"

rmmod fabtrace
modprobe fabtrace
rdma_qps "$T/r2.json"
ft_qps "$T/f2.json"
ktap_result "found by fabtrace's discovery at load: the same four entries" \
	py "$SAME" "$T/r2.json" "$T/f2.json"

fabtrace -j policy show dev ftib0 >"$T/p.json"
ktap_result "ftib0's two ports have a policy each, with no netdev" \
	py "[(p['port'], p['dcb']) for p in a] == [(1, 'no-netdev'), (2, 'no-netdev')]" "$T/p.json"
ktap_finished
