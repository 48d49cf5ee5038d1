#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# fabtrace follows RDMA devices through add, rename, port changes and remove.
# timeout=300
#
# The oracle is the RDMA core's own view, as iproute2's rdma prints it:
# device index, name, node GUID, port state and the netdev of the port.
set -euo pipefail
. "$(dirname "$(readlink -f "$0")")/lib.sh"

require_module fabtrace
require_cmd rdma fabtrace python3

T=$(mktemp -d)
cleanup() {
	ip link set "$FT_NETDEV" up 2>/dev/null || true
	rdma link delete rxe1 2>/dev/null || true
	[ -e /sys/class/infiniband/rxe0 ] || true
	rm -rf "$T"
}
at_exit cleanup

snap() {
	fabtrace -j dev show >"$T/ft.json"
	rdma -j dev show >"$T/rd.json"
	rdma -j link show >"$T/rl.json"
}

# Every device rdma knows, fabtrace knows alike: index, name, GUID, driver,
# and each port's state and netdev.
same_view() {
	snap
	py '
sorted(d["index"] for d in a) == sorted(d["ifindex"] for d in b) and
all(any(f["index"] == r["ifindex"] and f["name"] == r["ifname"] and
        f["node_guid"] == r["node_guid"] and f["driver"] == "rdma_rxe"
        for f in a) for r in b) and
all(any(f["index"] == l["ifindex"] and
        any(p["port"] == l["port"] and p["state"] == l["state"] and
            p["phys_state"] == l["physical_state"] and
            p.get("netdev") == l.get("netdev") and
            p.get("ifindex") == l.get("netdev_index") for p in f["ports"])
        for f in a) for l in c)' "$T/ft.json" "$T/rd.json" "$T/rl.json"
}

port_state() {
	rdma -j link show rxe0/1 | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["state"])'
}

ktap_plan 17

# no RDMA device at all
rxe_down self
rmmod fabtrace 2>/dev/null || true
ktap_assert "modprobe fabtrace" modprobe fabtrace
fabtrace -j dev show >"$T/none.json"
ktap_result "no device: dev show is []" py 'a == []' "$T/none.json"

rxe_up self
ktap_result "rxe0 added: fabtrace's view equals rdma's" same_view
ktap_result "rxe0: port 1 on $FT_NETDEV, ACTIVE, ethernet, MTU 1024, hooked" py '
len(a) == 1 and a[0]["name"] == "rxe0" and a[0]["hooked"] is True and
a[0]["ports"][0]["netdev"] == "'"$FT_NETDEV"'" and
a[0]["ports"][0]["ifindex"] == '"$(cat /sys/class/net/"$FT_NETDEV"/ifindex)"' and
a[0]["ports"][0]["state"] == "ACTIVE" and
a[0]["ports"][0]["link_layer"] == "ethernet" and a[0]["ports"][0]["mtu"] == 1024' "$T/ft.json"
ktap_result "rxe0: its GSI QP (1) is tracked" \
	sh -c "fabtrace -j qp show dev rxe0 qpn 1 | grep -q '\"type\": *\"gsi\"'"

# a second device, on the control link: listed in index order
rdma link add rxe1 type rxe netdev "$(ip -o -4 addr show | awk -v ip="$FT_CTL_IP" 'index($4, ip "/") == 1 { print $2 }')"
wait_for 30 sh -c 'fabtrace -j dev show rxe1 >/dev/null 2>&1'
ktap_result "rxe1 added: both devices, as rdma sees them" same_view
ktap_result "dump in index order" py '[d["index"] for d in a] == sorted(d["index"] for d in a) and len(a) == 2' "$T/ft.json"
rdma link delete rxe1
wait_for 30 sh -c '! fabtrace dev show rxe1 >/dev/null 2>&1' || true
ktap_result "rxe1 removed: gone from fabtrace too" same_view

# rename: same index, new name; the old name is an error with the extack
idx=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[0]["index"])' "$T/ft.json")
rdma dev set rxe0 name rxe_ren
fabtrace -j dev show rxe_ren >"$T/ren.json"
ktap_result "rename: rxe_ren has rxe0's index" py 'a[0]["index"] == '"$idx"' and a[0]["name"] == "rxe_ren"' "$T/ren.json"
rc=0
fabtrace dev show rxe0 >"$T/old.out" 2>"$T/old.err" || rc=$?
ktap_result "the old name: exit 1, the kernel's extack on stderr" \
	sh -c "[ $rc = 1 ] && grep -q 'no such RDMA device' '$T/old.err' && [ ! -s '$T/old.out' ]"
rdma dev set rxe_ren name rxe0
ktap_result "renamed back: views agree" same_view

# the port follows its netdev
ip link set "$FT_NETDEV" down
wait_for 30 sh -c '[ "$(rdma -j link show rxe0/1 | grep -o "\"state\":\"[A-Z]*\"")" != "\"state\":\"ACTIVE\"" ]' || true
ktap_result "netdev down: port state $(port_state) in both" same_view
ip link set "$FT_NETDEV" up
wait_for 30 sh -c '[ "$(rdma -j link show rxe0/1 | grep -o "\"state\":\"[A-Z]*\"")" = "\"state\":\"ACTIVE\"" ]'
ktap_result "netdev up: port ACTIVE again in both" same_view

# reloading finds the device and its GSI QP again, as discovered
rmmod fabtrace
modprobe fabtrace
ktap_result "reload with rxe0 present: views agree" same_view
ktap_result "reload: QP 1 is there, kernel-owned and discovered" \
	sh -c "fabtrace -j qp show dev rxe0 qpn 1 | python3 -c 'import json,sys; q=json.load(sys.stdin)[0]; sys.exit(not (\"discovered\" in q[\"flags\"] and \"kernel\" in q[\"flags\"] and q[\"comm\"] == \"ib_core\"))'"

rxe_down self
fabtrace -j dev show >"$T/end.json"
ktap_result "rxe0 deleted: dev show is [] again" py 'a == []' "$T/end.json"
ktap_result "no hook missed an update" test "$(ft_stat hook_missed)" = 0
ktap_finished
