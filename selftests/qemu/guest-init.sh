#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# PID 1 of a fabtrace test node (after stage-1 switched to the 9p overlay).
#
# Both nodes: mount the basics, bring up the data NIC and the control NIC
# (told apart by MAC), mount the artefact share, install fabtrace.ko and the
# CLI as a real node would have them, start the ftpeer agent.
# Node B then serves until A asks it to shut down; node A waits for B, runs
# $FT_A_CMD (the test runner, or the demo), and powers both off.
#
# Everything is written to the serial console, which the host captures.  The
# host reads these markers: "ft-vm: node X: [UPTIME] up" (boot finished),
# "ft-vm: node a: [UPTIME] running" (runner started).  Deliberately no `set -e`: PID 1 must
# never exit (that panics the kernel); every failure ends in power_off.
set -uo pipefail

exec </dev/null >/dev/console 2>&1
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8 TERM=dumb

# Builtins only: every process spawned costs ~0.1 s under TCG.
_uptime() { local up _; read -r up _ </proc/uptime; echo "$up"; }
say() { echo "ft-vm: node ${FT_ROLE:-?}: [$(_uptime)] $*"; }

# reboot(2) directly: there is no init system to ask, and with -no-reboot
# QEMU exits as soon as the guest powers off.
power_off() {
	sync
	busybox poweroff -f
	echo o >/proc/sysrq-trigger
	sleep 60
}

fatal() {
	say "FATAL: $*"
	[ -d "${FT_OUT:-/nonexistent}" ] && echo "boot: $*" >"$FT_OUT/node-$FT_ROLE.status"
	power_off
}

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
# devtmpfs lacks these; bash process substitution needs /dev/fd.
ln -sfn /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
# /run only.  Never /tmp: the checkout may live under the host's /tmp and
# must stay visible at its own path (the overlay makes /tmp writable).
mount -t tmpfs -o mode=0755 tmpfs /run
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null

for w in $(cat /proc/cmdline); do
	case $w in
	ft.role=*) FT_ROLE=${w#ft.role=} ;;
	ft.env=*) env_file=${w#ft.env=} ;;
	esac
done
export FT_ROLE=${FT_ROLE:-}
case $FT_ROLE in a | b) ;; *) fatal "ft.role= must be a or b" ;; esac
hostname "node-$FT_ROLE"
say "init started"
# run.env, written by the host (nodes.sh): FT_REPO FT_KVER FT_OUT FT_BUILD
# FT_MODROOT FT_FTPEER FT_CLI FT_A_CMD T
# shellcheck source=/dev/null
. "${env_file:?no ft.env= on the kernel command line}" || fatal "cannot read $env_file"

if [ "$FT_ROLE" = a ]; then
	export FT_SELF_IP=10.99.0.1 FT_PEER_IP=10.99.0.2
	export FT_CTL_IP=10.98.0.1 FT_PEER_CTL_IP=10.98.0.2
	idx=01
else
	export FT_SELF_IP=10.99.0.2 FT_PEER_IP=10.99.0.1
	export FT_CTL_IP=10.98.0.2 FT_PEER_CTL_IP=10.98.0.1
	idx=02
fi

# The artefact share is mounted over its own path: the host and both nodes
# see the same directory there.  Default cache mode: writes reach the host
# at once, so a node that dies still leaves what it wrote.
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 ftout "$FT_OUT" ||
	fatal "cannot mount the artefact share on $FT_OUT"

ip link set lo up
say "mounted"
# Normally loaded by stage 1 already.
[ -d /sys/module/virtio_net ] || modprobe virtio_net || fatal "modprobe virtio_net"
nic_by_mac() {
	local d a

	for d in /sys/class/net/*; do
		read -r a <"$d/address"
		[ "$a" = "$1" ] && { echo "${d##*/}"; return 0; }
	done
	return 1
}
link_up() {
	[ "$(cat "/sys/class/net/$1/operstate" 2>/dev/null)" = up ]
}
wait_until() {
	local end=$((SECONDS + $1))

	shift
	until "$@"; do
		[ $SECONDS -lt $end ] || return 1
		sleep 0.05
	done
}
# MACs are set by nodes.sh: 52:54:00:fa:00:0N data, 52:54:00:fc:00:0N control,
# 52:54:00:fb:00:0N the second data wire.
wait_until 30 nic_by_mac "52:54:00:fa:00:$idx" >/dev/null || fatal "no data NIC"
wait_until 30 nic_by_mac "52:54:00:fc:00:$idx" >/dev/null || fatal "no control NIC"
FT_NETDEV=$(nic_by_mac "52:54:00:fa:00:$idx")
FT_CTL_NETDEV=$(nic_by_mac "52:54:00:fc:00:$idx")
# Not waited for, nor brought up: only the tests that use it do (its
# probe ran with the others', when stage 1 loaded virtio_net).
FT_NETDEV2=$(nic_by_mac "52:54:00:fb:00:$idx")
export FT_NETDEV FT_CTL_NETDEV FT_NETDEV2
ip addr add "$FT_SELF_IP/24" dev "$FT_NETDEV"
ip addr add "$FT_CTL_IP/24" dev "$FT_CTL_NETDEV"
ip link set "$FT_NETDEV" up
ip link set "$FT_CTL_NETDEV" up
wait_until 30 link_up "$FT_NETDEV" || fatal "$FT_NETDEV did not come up"
wait_until 30 link_up "$FT_CTL_NETDEV" || fatal "$FT_CTL_NETDEV did not come up"

say "links up"
# The module, installed the way a node has it: /lib/modules/$KVER/extra plus
# the module indexes.  depmod over 9p under TCG takes ~50 s, so the host ran
# it on a staging tree (nodes.sh) and we copy the result.
moddir=/lib/modules/$FT_KVER
if [ -f "$FT_MODROOT/lib/modules/$FT_KVER/extra/fabtrace.ko" ]; then
	mkdir -p "$moddir/extra"
	cp "$FT_MODROOT/lib/modules/$FT_KVER/extra/fabtrace.ko" "$moddir/extra/"
	cp "$FT_MODROOT/lib/modules/$FT_KVER"/modules.* "$moddir/"
else
	say "note: $FT_BUILD/$FT_KVER/kmod/fabtrace.ko is not built yet; tests that need the module will skip"
fi
if [ -x "$FT_CLI" ]; then
	install -m 0755 "$FT_CLI" /usr/local/sbin/fabtrace
else
	say "note: $FT_CLI is not built yet; tests that need the CLI will skip"
fi
# The host may lack iputils-ping (it is not in `make deps`); busybox's will do.
command -v ping >/dev/null || ln -s /bin/busybox /usr/local/bin/ping
install -m 0755 "$FT_FTPEER" /usr/local/bin/ftpeer || fatal "no ftpeer at $FT_FTPEER"
export FTPEER=/usr/local/bin/ftpeer

# Both nodes serve, so B can reach A as well.  The agent's children inherit
# this environment: a peer command sees its own node's FT_* values.
ftpeer serve -a "$FT_CTL_IP" &
agent=$!
wait_until 30 ftpeer -h "$FT_CTL_IP" -w 0 true 2>/dev/null || fatal "agent did not start"
say "up (data $FT_NETDEV $FT_SELF_IP, control $FT_CTL_NETDEV $FT_CTL_IP)"

if [ "$FT_ROLE" = b ]; then
	# Runs until A sends --shutdown (or the host kills us).
	wait "$agent"
	dmesg >"$FT_OUT/node-b.dmesg"
	echo 0 >"$FT_OUT/node-b.status"
	say "shutting down"
	power_off
fi

# Node A: the peer must be reachable on both links before anything runs.
ftpeer -w 300 true || fatal "node b's agent unreachable at $FT_PEER_CTL_IP"
peer_ping() { ping -c 1 -W 1 "$FT_PEER_IP" >/dev/null 2>&1; }
if ! wait_until 60 peer_ping; then
	ip -s link show "$FT_NETDEV"
	ip neigh
	ping -c 1 -W 1 "$FT_PEER_IP"
	ftpeer ip -s link show
	fatal "no ping reply from $FT_PEER_IP over $FT_NETDEV"
fi

say "running $FT_A_CMD"
cd "$FT_REPO/selftests" || fatal "no $FT_REPO/selftests"
rc=0
bash -c "$FT_A_CMD" || rc=$?
cd /
say "finished, status $rc"
ftpeer -t 30 --shutdown >/dev/null || say "node b did not acknowledge shutdown"
kill "$agent" 2>/dev/null
wait "$agent" 2>/dev/null
dmesg >"$FT_OUT/node-a.dmesg"
echo "$rc" >"$FT_OUT/node-a.status"
power_off
