#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The Debian packages make deb built ($FT_BUILD/deb) install on a node as on
# any Debian machine: dpkg -i of fabtrace-dkms and fabtrace has DKMS build
# the module here, for the running kernel, against its headers (the node
# sees the host's packages: dkms, headers and compiler come from make deps);
# modprobe loads it, the packaged fabtrace talks to it, and its man page,
# completion and (not enabled) units are in place; dpkg -r takes it all
# away again.  Each phase's time is logged.
# Not in the default run (make test builds no .debs; DKMS compiling in a
# TCG node took 486 s on 6.1): make deb && T=deb.sh selftests/qemu/vm-test.sh KVER.
# timeout=900
#
# What the node is given beyond a real machine, and why:
#  - the harness's own extra/fabtrace.ko is moved aside for the test: DKMS
#    refuses to replace a module of the same version and sources it finds
#    in the kernel's tree, and modprobe would load that one;
#  - /boot is a tmpfs holding only this kernel's config and System.map:
#    DKMS's postinst builds for the running kernel and for the newest one
#    in /boot, which in a node is another kernel (a second build under TCG,
#    or the debug kernel's tree);
#  - man-db's trigger is switched off (its index over 9p is slow under TCG).
# The node's root is an overlay: nothing reaches the host, and the module
# directory is put back as the harness left it for the tests after this.
set -euo pipefail
. "$(dirname "$(readlink -f "$0")")/lib.sh"

K=$(uname -r)
DEBS=${FT_BUILD:-}/deb
CLI_DEB=$(ls "$DEBS"/fabtrace_*.deb 2>/dev/null | head -n 1) || true
DKMS_DEB=$(ls "$DEBS"/fabtrace-dkms_*_all.deb 2>/dev/null | head -n 1) || true
[ -n "$CLI_DEB" ] && [ -n "$DKMS_DEB" ] || skip_all "no packages in $DEBS (make deb)"
require_cmd dpkg dkms make gcc modprobe python3
[ -e "/lib/modules/$K/build/include" ] || skip_all "no headers for $K (make deps)"
VERSION=$(dpkg-deb -f "$DKMS_DEB" Version)
dpkg -s fabtrace-dkms >/dev/null 2>&1 && skip_all "fabtrace-dkms is installed already: not a node the harness set up"

M=/lib/modules/$K
T=$(mktemp -d)
LOG=${FT_OUT:-$T}/deb-dpkg.log
cp -a "$M"/modules.* "$T/"
[ ! -e "$M/extra/fabtrace.ko" ] || mv "$M/extra/fabtrace.ko" "$T/extra-fabtrace.ko"
boot=
cleanup() {
	rmmod fabtrace 2>/dev/null || true
	if dpkg -s fabtrace-dkms >/dev/null 2>&1 || dpkg -s fabtrace >/dev/null 2>&1; then
		dpkg --purge fabtrace fabtrace-dkms >>"$LOG" 2>&1 || true
	fi
	[ -z "$boot" ] || umount /boot 2>/dev/null || true
	[ ! -e "$T/man-db-auto-update" ] || mv "$T/man-db-auto-update" /var/lib/man-db/auto-update
	[ ! -e "$T/extra-fabtrace.ko" ] || mv "$T/extra-fabtrace.ko" "$M/extra/fabtrace.ko"
	rm -rf "$M/updates/dkms"
	rmdir "$M/updates" 2>/dev/null || true
	cp -a "$T"/modules.* "$M/"
	rm -rf "$T"
}
at_exit cleanup
rmmod fabtrace 2>/dev/null || true
mkdir "$T/boot"
cp /boot/config-"$K" /boot/System.map-"$K" "$T/boot/" 2>/dev/null || true
mount -t tmpfs -o mode=0755 fabtrace-boot /boot
boot=1
cp "$T"/boot/* /boot/ 2>/dev/null || true
[ ! -e /var/lib/man-db/auto-update ] || mv /var/lib/man-db/auto-update "$T/man-db-auto-update"
: >"$LOG"

phase() {
	local desc=$1 t0=$SECONDS rc=0

	shift
	echo "# + $*" >>"$LOG"
	"$@" >>"$LOG" 2>&1 || rc=$?
	log "$desc: $((SECONDS - t0))s"
	[ "$rc" = 0 ] && return 0
	tail -n 25 "$LOG" | sed 's/^/# /'
	# a failed DKMS build leaves its log behind
	ls /var/lib/dkms/fabtrace/*/build/make.log 2>/dev/null | head -n 1 |
		xargs -r tail -n 25 | sed 's/^/# make.log: /'
	return "$rc"
}
dkms_installed() {
	local s

	s=$(dkms status -m fabtrace -v "$VERSION" -k "$K" 2>/dev/null)
	log "dkms status: $s"
	grep -q ": installed" <<<"$s" && [ "$(modinfo -n fabtrace)" = "$(ls "$M"/updates/dkms/fabtrace.ko*)" ]
}
loaded_is_dkms() {
	[ "$(cat /sys/module/fabtrace/version)" = "$VERSION" ] &&
		[ "$(cat /sys/module/fabtrace/srcversion)" = "$(modinfo -F srcversion fabtrace)" ]
}
dev_show() {
	/usr/sbin/fabtrace dev show &&
		/usr/sbin/fabtrace -j dev show | python3 -c 'import json, sys; json.load(sys.stdin)'
}
packaged_files() {
	local f ok=0

	for f in /usr/share/man/man8/fabtrace.8.gz /usr/share/bash-completion/completions/fabtrace \
		/lib/systemd/system/fabtrace-policy.service "/usr/src/fabtrace-$VERSION/dkms.conf"; do
		[ -e "$f" ] || { log "missing: $f"; ok=1; }
	done
	bash -c '. /usr/share/bash-completion/bash_completion 2>/dev/null
		. /usr/share/bash-completion/completions/fabtrace && complete -p fabtrace' >/dev/null ||
		{ log "the completion does not load"; ok=1; }
	if ls /etc/systemd/system/*.wants/fabtrace-* >/dev/null 2>&1; then
		log "a unit was enabled by installing"
		ok=1
	fi
	return "$ok"
}
all_gone() {
	local left

	left=$(ls -d "$M"/updates/dkms/fabtrace.ko* "/usr/src/fabtrace-$VERSION" /var/lib/dkms/fabtrace \
		/usr/sbin/fabtrace 2>/dev/null || true)
	[ -z "$left" ] && return 0
	log "left behind: $left"
	return 1
}

ktap_plan 8
log "$K: ${CLI_DEB##*/} ${DKMS_DEB##*/}; dpkg and dkms output: $LOG"
ktap_assert "dpkg -i fabtrace-dkms fabtrace: DKMS builds and installs for $K" \
	phase "dpkg -i (DKMS build included)" dpkg -i "$DKMS_DEB" "$CLI_DEB"
ktap_result "dkms status: installed; modprobe finds it in updates/dkms" dkms_installed
ktap_assert "modprobe fabtrace" phase "modprobe" modprobe fabtrace
ktap_result "the loaded module is the packaged release $VERSION" loaded_is_dkms
ktap_result "/usr/sbin/fabtrace dev show talks to it (text and JSON)" dev_show
ktap_result "man page, completion, units and DKMS sources in place; no unit enabled" \
	packaged_files
rmmod fabtrace
ktap_result "dpkg -r fabtrace fabtrace-dkms" phase "dpkg -r (DKMS remove included)" \
	dpkg -r fabtrace fabtrace-dkms
ktap_result "no module, source, DKMS state or command left" all_gone
ktap_finished
