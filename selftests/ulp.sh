#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Kernel QPs made through rdma_cm are owned by their ULP: NVMe over RDMA.
# timeout=300
#
# Node B exports a RAM disk as an NVMe-oF target (nvmet-rdma, configured
# through configfs), node A connects to it (nvme-rdma, /dev/nvme-fabrics)
# and reads from it.  ib_core names rdma_cm as the owner of the QPs of
# both ends (rdma resource show qp); fabtrace names the ULP that made the
# connection.  The oracle is rdma_cm's own resource tracking: each
# connection's cm_id (rdma resource show cm_id) names its ULP and its QP
# number, on each node.  The bytes A read show on A's QPs.
set -euo pipefail
. "$(dirname "$(readlink -f "$0")")/lib.sh"

require_peer
require_module fabtrace
require_cmd fabtrace rdma python3 dd
for m in nvme_rdma nvmet_rdma brd; do
	modinfo "$m" >/dev/null 2>&1 || skip_all "kernel module $m is not available"
done
NQN=fabtrace-test
MIB=16

T=$(mktemp -d)
ctrl=''
cleanup() {
	[ -z "$ctrl" ] || echo 1 >"/sys/class/nvme/$ctrl/delete_controller" 2>/dev/null || true
	# the host's modules hold rdma_cm and ib_core: a later modprobe -r
	# of an RDMA module must not find them
	modprobe -r nvme_rdma nvme_fabrics 2>/dev/null || true
	peer_fn ulp_target_down "$NQN" >/dev/null 2>&1 || true
	rm -rf "$T"
}
at_exit cleanup

# ulp_target_up NQN (on B): a 64 MiB RAM disk as namespace 1 of NQN, on
# RDMA port 4420 of B's data address.
ulp_target_up() {
	local NQN=$1 CFS=/sys/kernel/config/nvmet

	modprobe brd rd_nr=1 rd_size=65536
	modprobe nvmet_rdma
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
	mkdir -p "$CFS/subsystems/$NQN/namespaces/1" "$CFS/ports/1"
	echo 1 >"$CFS/subsystems/$NQN/attr_allow_any_host"
	echo -n /dev/ram0 >"$CFS/subsystems/$NQN/namespaces/1/device_path"
	echo 1 >"$CFS/subsystems/$NQN/namespaces/1/enable"
	echo rdma >"$CFS/ports/1/addr_trtype"
	echo ipv4 >"$CFS/ports/1/addr_adrfam"
	echo "$FT_SELF_IP" >"$CFS/ports/1/addr_traddr"
	echo 4420 >"$CFS/ports/1/addr_trsvcid"
	ln -s "$CFS/subsystems/$NQN" "$CFS/ports/1/subsystems/$NQN"
}
ulp_target_down() {
	local NQN=$1 CFS=/sys/kernel/config/nvmet

	rm -f "$CFS/ports/1/subsystems/$NQN"
	rmdir "$CFS/ports/1" "$CFS/subsystems/$NQN/namespaces/1" "$CFS/subsystems/$NQN" \
		2>/dev/null || true
	modprobe -r nvmet_rdma nvmet brd 2>/dev/null || true
}
# cm_id owners and fabtrace's owners, by QP number, of this node: JSON
owners() {
	local d

	d=$(mktemp -d)
	rdma -j resource show cm_id >"$d/cm.json"
	rdma -j resource show qp >"$d/rq.json"
	fabtrace -j qp show >"$d/fq.json"
	python3 - "$d/cm.json" "$d/rq.json" "$d/fq.json" <<'EOF'
import json, sys
cm, rq, fq = (json.load(open(f)) for f in sys.argv[1:])
live = {q["qpn"]: q for q in fq if "destroyed" not in q.get("flags", [])}
out = []
for c in cm:
    if "lqpn" not in c:
        continue
    rd = [q for q in rq if q.get("lqpn") == c["lqpn"] and q.get("ifname") == "rxe0"]
    f = live.get(c["lqpn"], {})
    out.append({"qpn": c["lqpn"], "cm_comm": c.get("comm"),
                "rdma_qp_comm": rd[0].get("comm") if rd else None,
                "fabtrace_comm": f.get("comm"), "kernel": "kernel" in f.get("flags", []),
                "rx_bytes": f.get("rx", {}).get("bytes", 0)})
print(json.dumps(out))
EOF
	rm -rf "$d"
}

rxe_up both
on_both "rmmod fabtrace 2>/dev/null; modprobe fabtrace" || fail_all "cannot load fabtrace"
ktap_plan 4
ktap_assert "B exports a RAM disk over NVMe/RDMA" peer_fn ulp_target_up "$NQN"
modprobe nvme_rdma
echo "transport=rdma,traddr=$FT_PEER_IP,trsvcid=4420,nqn=$NQN" >/dev/nvme-fabrics ||
	fail_all "A could not connect to B's NVMe target"
wait_for 30 sh -c "grep -qx '$NQN' /sys/class/nvme/nvme*/subsysnqn" || fail_all "no controller"
ctrl=$(basename "$(dirname "$(grep -lx "$NQN" /sys/class/nvme/nvme*/subsysnqn | head -n 1)")")
# the namespace's block device: with native multipath its device is the
# subsystem (nvme-subsysN), without it the controller; both name the NQN
nsdev() {
	local b

	for b in /sys/block/nvme*n1; do
		[ "$(cat "$b/device/subsysnqn" 2>/dev/null)" = "$NQN" ] || continue
		# a path of a multipath namespace (nvmeXcYnZ) has no node
		[ -b "/dev/${b##*/}" ] || continue
		echo "/dev/${b##*/}"
		return 0
	done
	return 1
}
wait_for 30 nsdev >/dev/null || fail_all "no block device for $ctrl"
dev=$(nsdev)
log "controller $ctrl, namespace $dev"
dd if="$dev" of=/dev/null bs=1M count=$MIB iflag=direct 2>"$T/dd.err" ||
	fail_all "reading $dev failed: $(cat "$T/dd.err")"

owners >"$T/a.json"
peer_fn owners >"$T/b.json"
sed 's/^/# A: /' "$T/a.json"
sed 's/^/# B: /' "$T/b.json"
ktap_result "A: each NVMe connection's QP is owned by nvme_rdma, as its cm_id says (ib_core: rdma_cm)" \
	py "len(a) >= 2 and all(q['cm_comm'] == 'nvme_rdma' == q['fabtrace_comm'] and
	    q['rdma_qp_comm'] == 'rdma_cm' and q['kernel'] for q in a)" "$T/a.json"
ktap_result "B: each connection's QP is owned by nvmet_rdma, as its cm_id says" \
	py "len(a) >= 2 and all(q['cm_comm'] == 'nvmet_rdma' == q['fabtrace_comm'] and
	    q['kernel'] for q in a)" "$T/b.json"
ktap_result "A's nvme_rdma QPs received the $MIB MiB read" \
	py "sum(q['rx_bytes'] for q in a) >= $MIB << 20" "$T/a.json"
ktap_finished
