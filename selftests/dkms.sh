#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The module DKMS built and installed on the host (make dkms-check, into
# $FT_BUILD/dkms/install/KVER/updates/dkms) loads in a node the way a DKMS
# install has it: in /lib/modules/KVER/updates/dkms, indexed by depmod run
# here, found by modprobe ahead of the harness's extra/fabtrace.ko (depmod
# searches updates/ first), and the CLI talks to it.
# timeout=300
#
# The node's root is an overlay, so nothing here reaches the host; the
# module directory is put back as the harness left it all the same (its
# indexes saved and restored), for the tests that run after this one.
set -euo pipefail
. "$(dirname "$(readlink -f "$0")")/lib.sh"

K=$(uname -r)
SRC=${FT_BUILD:-}/dkms/install/$K/updates/dkms
KO=$(ls "$SRC"/fabtrace.ko* 2>/dev/null | head -n 1) || true
[ -n "$KO" ] || skip_all "no DKMS-built module for $K in $SRC (make dkms-check)"
require_cmd fabtrace depmod modprobe modinfo
# depmod reads every module of the kernel through 9p; 6.12's are xz, which
# a TCG node takes three minutes to unpack.  6.12's DKMS build is checked
# on the host (make dkms-check: vermagic, version); its load here on 6.1.
case $K in
6.1.*) ;;
*) skip_all "depmod of $K's xz modules takes ~3 min under TCG; loaded on 6.1, built on the host" ;;
esac
DEST=/lib/modules/$K/updates/dkms
[ ! -e "$DEST" ] || skip_all "$DEST already exists: not a node the harness set up"

T=$(mktemp -d)
cp -a "/lib/modules/$K"/modules.* "$T/"
cleanup() {
	rmmod fabtrace 2>/dev/null || true
	rm -rf "$DEST"
	rmdir "/lib/modules/$K/updates" 2>/dev/null || true
	cp -a "$T"/modules.* "/lib/modules/$K/"
	rm -rf "$T"
}
at_exit cleanup

rmmod fabtrace 2>/dev/null || true
in_updates() {
	local p

	p=$(modinfo -n fabtrace)
	log "modinfo -n fabtrace: $p"
	[ "$p" = "$DEST/${KO##*/}" ]
}
same_build() {
	local want have

	want=$(modinfo -F srcversion "$KO")
	have=$(cat /sys/module/fabtrace/srcversion)
	log "srcversion: DKMS's $want, loaded $have; version $(cat /sys/module/fabtrace/version)"
	[ "$want" = "$have" ] &&
		[ "$(cat /sys/module/fabtrace/version)" = "$(modinfo -F version "$KO")" ]
}
dev_show() {
	fabtrace dev show
	fabtrace -j dev show | python3 -c 'import json, sys; json.load(sys.stdin)'
}

ktap_plan 6
ktap_assert "${KO##*/} installed into updates/dkms" install -D -m 0644 "$KO" "$DEST/${KO##*/}"
t0=$SECONDS
ktap_assert "depmod $K" depmod "$K"
log "depmod took $((SECONDS - t0))s"
ktap_result "modprobe's fabtrace is DKMS's (updates/ ahead of extra/)" in_updates
ktap_assert "modprobe fabtrace" modprobe fabtrace
ktap_result "the loaded module is DKMS's build (srcversion, version)" same_build
ktap_result "fabtrace dev show talks to it (text and JSON)" dev_show
ktap_finished
