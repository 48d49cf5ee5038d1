#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Harness self-test: the peer agent and both links work as lib.sh documents.
set -euo pipefail
. "$FT_REPO/selftests/lib.sh"
require_peer

ktap_plan 9
ktap_result "peer runs on the other node" \
	test "$(peer hostname)" = node-b
ktap_result "peer sees its own FT_ROLE" \
	test "$(peer 'echo $FT_ROLE')" = b
ktap_result "peer returns the remote exit status" \
	bash -c '. "$FT_REPO/selftests/lib.sh"; peer "exit 3"; [ $? -eq 3 ]'
ktap_result "peer keeps stderr apart from stdout" \
	test "$(peer 'echo out; echo err >&2' 2>/dev/null)" = out
ktap_result "peer -t kills the remote command (124)" \
	bash -c '. "$FT_REPO/selftests/lib.sh"; peer -t 1 sleep 30; [ $? -eq 124 ]'
ktap_result "data wire: ping $FT_PEER_IP" \
	ping -c 2 -W 2 "$FT_PEER_IP"

# A backgrounded peer command dies with its local client.
peer 'exec sleep 1000' &
pid=$!
wait_for 10 peer 'pgrep -x sleep >/dev/null' || true
kill "$pid"
wait "$pid" || true
ktap_result "killing a backgrounded peer stops the remote command" \
	wait_for 10 peer '! pgrep -x sleep >/dev/null'

# 100% loss on the data wire must not cut the control link.
run tc qdisc add dev "$FT_NETDEV" root netem loss 100%
ktap_result "control link works while the data wire drops everything" \
	test "$(peer echo alive)" = alive
ktap_result "... and the data wire really drops" \
	bash -c "! ping -c 1 -W 1 $FT_PEER_IP"
run tc qdisc del dev "$FT_NETDEV" root
ktap_finished
