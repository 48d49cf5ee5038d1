# SPDX-License-Identifier: GPL-2.0
# Host side of the two-node QEMU test bed, sourced by vm-test.sh and demo.sh.
# shellcheck shell=bash
# shellcheck disable=SC2034 # FTVM_* results are read by the callers
#
#   ftvm_run KVER CMD    boot nodes A and B on kernel KVER, run CMD (a shell
#                        command line) on A, power both off, scan the logs.
#                        Sets FTVM_* result variables (see ftvm_run).
#
#        node A                                         node B
#   ┌──────────────┐  data wire: 10.99.0.1 <-> .2  ┌──────────────┐
#   │ virtio-net   │═══════ unix stream socket ════│ virtio-net   │ rxe0, netem
#   │ virtio-net   │═══════ unix stream socket ════│ virtio-net   │ ftpeer
#   │ virtio-net   │═══════ unix stream socket ════│ virtio-net   │ (down)
#   └──────────────┘  control: 10.98.0.1 <-> .2    └──────────────┘
#                     second data wire: no address, down until a test
#                     wants it (a bond of both data NICs, a VLAN)
#   9p: host / read-only + tmpfs overlay; $BUILD/vm/$KVER/out read-write
#
# No host networking is involved: each wire is a socket pair between the two
# QEMU processes.  Tests may break the data wire (netem) and still reach the
# peer over the control link.

FTVM_DIR=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
FT_REPO=$(readlink -f "$FTVM_DIR/../..")
BUILD=$(readlink -m "${BUILD:-$FT_REPO/build}")

# vCPUs per node.  1: on a 2-core host the two nodes' vCPU threads then fit
# the cores; -smp 2 (4 vCPU threads on 2 cores under TCG) made boot and the
# sample tests 1.5-2.3x slower (README "Sizing").  FT_VM_SMP=2 exercises
# cross-CPU paths; worth it on a host with 4+ cores.
FT_VM_SMP=${FT_VM_SMP:-1}
# MiB per node: QEMU only backs what the guest touches, and 100k QPs need
# room for queue buffers.
FT_VM_MEM=${FT_VM_MEM:-2048}
# QEMU accelerator, and extra QEMU arguments for both nodes (the bench's
# instruction clock: FT_VM_ACCEL=tcg FT_VM_QEMU_ARGS="-icount shift=0,sleep=off").
FT_VM_ACCEL=${FT_VM_ACCEL:-tcg,thread=multi}
FT_VM_QEMU_ARGS=${FT_VM_QEMU_ARGS:-}
# QEMU CPU model.  "max" (the demo, the bench: every feature TCG emulates);
# vm-test.sh asks for qemu64, on which tests ran 10% faster (fewer
# features for TCG to emulate on every path: vm-test.sh has the numbers).
FT_VM_CPU=${FT_VM_CPU:-max}
# Kernel command line.  loglevel=5: warnings reach the console live.
# printk.time=1: the log scanner only trusts timestamped (kernel) lines.
# panic=-1 + -no-reboot: a panic ends QEMU instead of hanging the run.
# no_timer_check: when the host is busy, the PIT-through-IO-APIC check can
# miss its window under TCG and panic at boot ("IO-APIC + timer doesn't
# work!"), seen with a 2-core host running four guests; tsc=reliable: no
# clocksource watchdog tripping over a starved vCPU.
FTVM_CMDLINE="console=ttyS0 loglevel=5 printk.time=1 panic=-1 no_timer_check tsc=reliable"
# Extra kernel command line for both nodes (e.g. "mitigations=off").
FT_VM_APPEND=${FT_VM_APPEND:-}
# Seconds for one kernel: boot + every test + power-off (the suite takes
# ~40 min under TCG on 2 cores, longer while a second kernel runs beside).
FT_VM_TIMEOUT=${FT_VM_TIMEOUT:-4800}
# Seconds from QEMU start until node A starts CMD.  ~10 s on an idle host,
# but a 2-core machine shared with other TCG guests was seen at 80 s.
FT_VM_BOOT_TIMEOUT=${FT_VM_BOOT_TIMEOUT:-300}

# The CLI the nodes get as /usr/local/sbin/fabtrace.
FT_CLI=${FT_CLI:-$FT_REPO/user/fabtrace}

# Modules stage 1 loads (dependencies resolved below): those to mount the
# root, and virtio_net, which is much faster to insmod from the initramfs
# than to modprobe over 9p, and probes the NICs while the rest boots.
FTVM_INITRD_MODS="virtio_pci virtio_net 9pnet_virtio 9p overlay"

ftvm_log() {
	echo "vm-test: ${FTVM_KVER:+$FTVM_KVER: }$*" >&2
}

# ftvm_check_kvers WHO KVER...: fail loudly when no kernel or an empty one
# is given (the Makefile found no headers, say) or one has no image, rather
# than boot nothing and look like success.
ftvm_check_kvers() {
	local who=$1 k

	shift
	if [ $# -eq 0 ]; then
		echo "$who: no kernel given: are its headers installed? (make deps)" >&2
		return 2
	fi
	for k in "$@"; do
		if [ -z "$k" ]; then
			echo "$who: empty kernel name: are its headers installed? (make deps)" >&2
			return 2
		fi
		if [ ! -r "/boot/vmlinuz-$k" ]; then
			echo "$who: no kernel image /boot/vmlinuz-$k (make deps)" >&2
			return 2
		fi
	done
}

# Prints MOD:PATH for MOD and its dependencies, dependencies first; builtin
# modules print nothing (6.12 has the virtio core built in, 6.1 does not).
_ftvm_mod_deps() {
	local kver=$1 m=${2//-/_} f d

	[[ " $_ftvm_seen " == *" $m "* ]] && return 0
	_ftvm_seen+=" $m"
	f=$(modinfo -k "$kver" -n "$m") || return 1
	[[ $f == /* ]] || return 0
	for d in $(modinfo -k "$kver" -F depends "$m" | tr , ' '); do
		_ftvm_mod_deps "$kver" "$d" || return 1
	done
	echo "$m:$f"
}

# ftvm_initrd KVER OUT: busybox + stage-1 init + the modules to mount 9p and
# overlayfs, from that kernel's /lib/modules.  Rebuilt only when an input
# changed (the key lists every input's size and mtime).
ftvm_initrd() {
	local kver=$1 out=$2 mods key m f tmp files

	_ftvm_seen=
	mods=$(for m in $FTVM_INITRD_MODS; do _ftvm_mod_deps "$kver" "$m" || exit 1; done) ||
		{ ftvm_log "cannot resolve stage-1 modules for $kver"; return 1; }
	mapfile -t files < <(cut -d: -f2 <<<"$mods")
	key=$(stat -L -c '%n %s %Y' /bin/busybox "$FTVM_DIR/initramfs-init" "${files[@]}" |
		sha256sum)
	if [ -f "$out" ] && [ "$(cat "$out.key" 2>/dev/null)" = "$key" ]; then
		return 0
	fi
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/ftvm-initrd.XXXXXX")
	mkdir -p "$tmp"/{bin,dev,proc,sys,lib/modules}
	cp /bin/busybox "$tmp/bin/busybox"
	cp "$FTVM_DIR/initramfs-init" "$tmp/init"
	while IFS=: read -r m f; do
		case $f in
		*.ko.xz) xz -dc "$f" >"$tmp/lib/modules/$m.ko" ;;
		*.ko.zst) zstd -qdc "$f" >"$tmp/lib/modules/$m.ko" ;;
		*) cp "$f" "$tmp/lib/modules/$m.ko" ;;
		esac
		echo "$m" >>"$tmp/modules"
	done <<<"$mods"
	(cd "$tmp" && find . | cpio -o -H newc --quiet | gzip -1) >"$out.new" &&
		mv "$out.new" "$out" && echo "$key" >"$out.key"
	local rc=$?
	rm -rf "$tmp"
	ftvm_log "initramfs built: $out"
	return $rc
}

# ftvm_vmlinux KVER OUT: the kernel, uncompressed.  Debian's bzImage
# decompresses itself before the kernel's clock even starts, and under TCG
# that is slow: 6.1's xz payload took 6-40 s on this host.  An ELF vmlinux
# with a PVH note (CONFIG_PVH=y, both kernels) boots directly.  Prints
# the image to boot: OUT, or the bzImage when extraction is not possible.
ftvm_vmlinux() {
	local kver=$1 out=$2 img=/boot/vmlinuz-$1 key off magic

	key=$(stat -L -c '%n %s %Y' "$img")
	if [ -f "$out" ] && [ "$(cat "$out.key" 2>/dev/null)" = "$key" ]; then
		echo "$out"
		return 0
	fi
	rm -f "$out" "$out.key"
	# The payload starts at its compressor's magic; the decompressors stop
	# at the end of the first stream (zstd complains about the trailer).
	for magic in '\xfd7zXZ\x00:xz -dcq --single-stream' '\x28\xb5\x2f\xfd:zstd -dcq'; do
		off=$(LC_ALL=C grep -obUaP -m 1 "${magic%%:*}" "$img" | head -n 1 | cut -d: -f1)
		[ -n "$off" ] || continue
		tail -c +$((off + 1)) "$img" | ${magic#*:} >"$out.new" 2>/dev/null
		if readelf -n "$out.new" 2>/dev/null | grep -q 'Xen.*0x00000012'; then
			mv "$out.new" "$out" && echo "$key" >"$out.key"
			echo "$out"
			return 0
		fi
	done
	rm -f "$out.new"
	ftvm_log "cannot extract a PVH vmlinux from $img; booting the bzImage (slower)"
	echo "$img"
}

# ftvm_modroot KVER DIR: DIR/lib/modules/KVER = this kernel's modules plus
# extra/fabtrace.ko, indexed by depmod here on the host (seconds) instead of
# in the node (a minute under TCG).  The node copies extra/ and modules.*.
ftvm_modroot() {
	local kver=$1 dir=$2 ko=${FT_KMOD_BUILD:-$BUILD}/$1/kmod/fabtrace.ko sum m

	if [ ! -f "$ko" ]; then
		rm -rf "$dir"
		return 0
	fi
	sum=$(sha256sum <"$ko")
	[ "$(cat "$dir/.sum" 2>/dev/null)" = "$sum" ] && return 0
	rm -rf "$dir"
	m=$dir/lib/modules/$kver
	mkdir -p "$m/extra"
	ln -s "/lib/modules/$kver/kernel" "$m/kernel"
	cp /lib/modules/"$kver"/modules.{order,builtin,builtin.modinfo} "$m/"
	cp "$ko" "$m/extra/fabtrace.ko"
	depmod -b "$dir" "$kver" || { ftvm_log "depmod failed"; return 1; }
	echo "$sum" >"$dir/.sum"
}

# Kills what this run started, by pid; removes its sockets.  Idempotent, so
# it can run from the EXIT trap after a normal finish too.
ftvm_cleanup() {
	local p

	for p in ${FTVM_PIDS:-}; do
		kill -TERM "$p" 2>/dev/null
	done
	for p in ${FTVM_PIDS:-}; do
		wait "$p" 2>/dev/null
	done
	FTVM_PIDS=''
	# The console stream ends by itself once node A is gone (tail --pid),
	# after printing the last lines; stop it only if it does not.
	if [ -n "${FTVM_STREAM_PID:-}" ]; then
		local end=$((SECONDS + 3))
		while _ftvm_alive "$FTVM_STREAM_PID" && [ $SECONDS -lt $end ]; do
			sleep 0.1
		done
		kill "$FTVM_STREAM_PID" 2>/dev/null
		wait "$FTVM_STREAM_PID" 2>/dev/null
		FTVM_STREAM_PID=''
	fi
	[ -n "${FTVM_RUN:-}" ] && rm -rf "$FTVM_RUN"
	FTVM_RUN=''

	return 0
}

_ftvm_now() {
	date +%s.%N
}

_ftvm_secs() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'
}

# _ftvm_qemu ROLE: start node ROLE in the background (pid in FTVM_PIDS).
_ftvm_qemu() {
	local role=$1 n server

	if [ "$role" = a ]; then n=01 server=on; else n=02 server=off; fi
	# timeout(1) is the backstop should this script die without cleanup.
	timeout -k 10 "$FT_VM_TIMEOUT" qemu-system-x86_64 \
		-accel "$FT_VM_ACCEL" $FT_VM_QEMU_ARGS -cpu "$FT_VM_CPU" -smp "$FT_VM_SMP" -m "$FT_VM_MEM" \
		-nodefaults -no-user-config -display none -no-reboot \
		-kernel "$FTVM_KERNEL" -initrd "$FTVM_VM/initrd.gz" \
		-append "$FTVM_CMDLINE $FT_VM_APPEND ft.role=$role ft.init=$FTVM_DIR/guest-init.sh ft.env=$FTVM_VM/run.env" \
		-serial "file:$FTVM_VM/node-$role.console" \
		-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
		-virtfs "local,path=$FTVM_OUT,mount_tag=ftout,security_model=none,multidevs=remap" \
		-netdev "stream,id=data,server=$server,addr.type=unix,addr.path=$FTVM_RUN/data.sock" \
		-device "virtio-net-pci,netdev=data,mac=52:54:00:fa:00:$n,romfile=" \
		-netdev "stream,id=ctl,server=$server,addr.type=unix,addr.path=$FTVM_RUN/ctl.sock" \
		-device "virtio-net-pci,netdev=ctl,mac=52:54:00:fc:00:$n,romfile=" \
		-netdev "stream,id=data2,server=$server,addr.type=unix,addr.path=$FTVM_RUN/data2.sock" \
		-device "virtio-net-pci,netdev=data2,mac=52:54:00:fb:00:$n,romfile=" \
		</dev/null >"$FTVM_VM/node-$role.qemu.log" 2>&1 &
	FTVM_PIDS+=" $!"
	printf -v "FTVM_PID_$role" '%s' "$!"
}

_ftvm_alive() {
	kill -0 "$1" 2>/dev/null
}

# ftvm_run KVER CMD: the whole life of one two-node run.  Results:
#   FTVM_RESULT     PASS or FAIL;  FTVM_WHY  reasons for FAIL
#   FTVM_STATUS     exit status of CMD on node A ("" if it never ran)
#   FTVM_BOOT_A/B   seconds from QEMU start to "node up"
#   FTVM_READY      seconds from QEMU start to CMD starting on A
#   FTVM_WALL       seconds for the whole run, initramfs build included
#   FTVM_VM         $BUILD/vm/KVER: consoles; $FTVM_OUT artefacts
# FTVM_STREAM=1 copies node A's console to stderr as it runs (prefixed
# with FTVM_PREFIX, without lines matching the ERE FTVM_STREAM_FILTER).
ftvm_run() {
	local t0 t_qemu deadline boot_deadline now f a_up='' b_up='' ready=''

	FTVM_KVER=$1
	FTVM_RESULT=FAIL FTVM_WHY='' FTVM_STATUS='' FTVM_BOOT_A='' FTVM_BOOT_B='' FTVM_READY=''
	FTVM_PID_a='' FTVM_PID_b=''
	FTVM_VM=$BUILD/vm/$FTVM_KVER
	FTVM_OUT=$FTVM_VM/out
	t0=$(_ftvm_now)

	case "$BUILD$FT_REPO" in
	*[[:space:],]*) ftvm_log "paths with spaces or commas are not supported: $BUILD"; return 1 ;;
	esac
	[ -r "/boot/vmlinuz-$FTVM_KVER" ] || { ftvm_log "no /boot/vmlinuz-$FTVM_KVER"; return 1; }
	[ -d "/lib/modules/$FTVM_KVER/kernel" ] || { ftvm_log "no /lib/modules/$FTVM_KVER"; return 1; }
	[ -x "$BUILD/selftests/ftpeer" ] ||
		{ ftvm_log "no $BUILD/selftests/ftpeer: run 'make -C selftests all'"; return 1; }

	mkdir -p "$FTVM_VM"
	# Two runs on one build tree and kernel would clobber each other's
	# logs and artefacts: the second waits (until the first one's cleanup).
	exec {FTVM_LOCK}>"$FTVM_VM/.lock"
	if ! flock -n "$FTVM_LOCK"; then
		ftvm_log "another run is using $FTVM_VM, waiting for it"
		flock "$FTVM_LOCK"
	fi
	ftvm_initrd "$FTVM_KVER" "$FTVM_VM/initrd.gz" || return 1
	ftvm_modroot "$FTVM_KVER" "$FTVM_VM/modroot" || return 1
	FTVM_KERNEL=$(ftvm_vmlinux "$FTVM_KVER" "$FTVM_VM/vmlinux")
	# Fresh artefacts and logs for every run.
	rm -rf "$FTVM_OUT" "$FTVM_VM"/node-*
	mkdir -p "$FTVM_OUT"
	{
		# BUILD too: run_tests.sh asks selftests/Makefile where the C
		# tests were built, and it must give the host's answer.
		printf 'export FT_REPO=%q FT_KVER=%q FT_OUT=%q FT_BUILD=%q BUILD=%q\n' \
			"$FT_REPO" "$FTVM_KVER" "$FTVM_OUT" "$BUILD" "$BUILD"
		printf 'export FT_MODROOT=%q FT_FTPEER=%q FT_CLI=%q\n' \
			"$FTVM_VM/modroot" "$BUILD/selftests/ftpeer" "$FT_CLI"
		printf 'export T=%q FT_TIMEOUT_SCALE=%q FT_KINDEP_ON=%q FT_KINDEP_LAST=%q\n' \
			"${T:-}" "${FT_TIMEOUT_SCALE:-1}" "${FT_KINDEP_ON:-}" "${FT_KINDEP_LAST:-}"
		printf 'FT_A_CMD=%q\n' "$2"
	} >"$FTVM_VM/run.env"

	# The wires' sockets live in the run directory, so even a run killed
	# with SIGKILL leaves nothing outside it (the next run clears it).  Unix
	# socket paths are limited to 108 bytes: a deep build tree falls back
	# to a temporary directory.
	FTVM_RUN=$FTVM_VM/sock
	if [ ${#FTVM_RUN} -gt 90 ]; then
		FTVM_RUN=$(mktemp -d "${TMPDIR:-/tmp}/ftvm.XXXXXX")
	else
		rm -rf "$FTVM_RUN"
		mkdir -p "$FTVM_RUN"
	fi
	t_qemu=$(_ftvm_now)
	_ftvm_qemu a
	# A listens on both sockets; B connects.  Wait for the sockets rather
	# than for a fixed time.
	local end=$((SECONDS + 20))
	until [ -S "$FTVM_RUN/data.sock" ] && [ -S "$FTVM_RUN/ctl.sock" ] &&
		[ -S "$FTVM_RUN/data2.sock" ]; do
		if ! _ftvm_alive "$FTVM_PID_a" || [ $SECONDS -ge $end ]; then
			FTVM_WHY="node a: QEMU did not start ($(tail -n 3 "$FTVM_VM/node-a.qemu.log"))"
			ftvm_cleanup
			return 1
		fi
		sleep 0.05
	done
	_ftvm_qemu b
	if [ "${FTVM_STREAM:-0}" = 1 ]; then
		tail -n +1 -s 0.2 -F --pid="$FTVM_PID_a" "$FTVM_VM/node-a.console" 2>/dev/null |
			tr -d '\r' | grep --line-buffered -Ev -- "${FTVM_STREAM_FILTER:-^$}" |
			sed -u "s/^/${FTVM_PREFIX:-}/" >&2 &
		FTVM_STREAM_PID=$!
	fi

	deadline=$((SECONDS + FT_VM_TIMEOUT))
	boot_deadline=$((SECONDS + FT_VM_BOOT_TIMEOUT))
	while _ftvm_alive "$FTVM_PID_a"; do
		now=$(_ftvm_now)
		if [ -z "$a_up" ] && grep -qs 'ft-vm: node a: \[[0-9.]*\] up' "$FTVM_VM/node-a.console"; then
			a_up=$(_ftvm_secs "$t_qemu" "$now")
		fi
		if [ -z "$b_up" ] && grep -qs 'ft-vm: node b: \[[0-9.]*\] up' "$FTVM_VM/node-b.console"; then
			b_up=$(_ftvm_secs "$t_qemu" "$now")
		fi
		if [ -z "$ready" ] && grep -qs 'ft-vm: node a: \[[0-9.]*\] running' "$FTVM_VM/node-a.console"; then
			ready=$(_ftvm_secs "$t_qemu" "$now")
		fi
		if [ -z "$ready" ] && [ $SECONDS -ge "$boot_deadline" ]; then
			FTVM_WHY+="nodes not ready after ${FT_VM_BOOT_TIMEOUT}s; "
			break
		fi
		if [ $SECONDS -ge "$deadline" ]; then
			FTVM_WHY+="timed out after ${FT_VM_TIMEOUT}s; "
			break
		fi
		sleep 0.2
	done
	# A asked B to shut down before powering off; give B a moment to do so
	# (unless we gave up on the run or A died: then both go now).
	end=$((SECONDS + 30))
	while [ -z "$FTVM_WHY" ] && [ -f "$FTVM_OUT/node-a.status" ] &&
		_ftvm_alive "$FTVM_PID_b" && [ $SECONDS -lt $end ]; do
		sleep 0.2
	done
	_ftvm_alive "$FTVM_PID_b" && [ -z "$FTVM_WHY" ] && FTVM_WHY+="node b did not power off; "
	ftvm_cleanup
	FTVM_BOOT_A=$a_up FTVM_BOOT_B=$b_up FTVM_READY=$ready

	for f in a b; do
		grep -qs "ft-vm: node $f: \\[[0-9.]*\\] up" "$FTVM_VM/node-$f.console" ||
			FTVM_WHY+="node $f did not boot (see node-$f.console, node-$f.qemu.log); "
		grep -h 'FATAL' "$FTVM_VM/node-$f.console" 2>/dev/null | tr -d '\r' >&2
	done
	FTVM_STATUS=$(cat "$FTVM_OUT/node-a.status" 2>/dev/null)
	case $FTVM_STATUS in
	0) ;;
	"") FTVM_WHY+="node a reported no status; " ;;
	*[!0-9]*) FTVM_WHY+="node a: $FTVM_STATUS; " ;;
	*) FTVM_WHY+="node a: '$2' exited with $FTVM_STATUS; " ;;
	esac
	# Kernel-side trouble fails the run even when every test passed.
	if ! "$FTVM_DIR/scan-logs.sh" "$FTVM_VM"/node-{a,b}.console "$FTVM_OUT"/node-{a,b}.dmesg \
		>"$FTVM_VM/kernel-issues.txt"; then
		FTVM_WHY+="kernel reported problems (kernel-issues.txt); "
	fi
	FTVM_WALL=$(_ftvm_secs "$t0" "$(_ftvm_now)")
	# Done with $FTVM_VM (an interrupted run releases it by exiting).
	exec {FTVM_LOCK}>&-
	[ -n "$FTVM_WHY" ] || FTVM_RESULT=PASS
	[ "$FTVM_RESULT" = PASS ]
}
