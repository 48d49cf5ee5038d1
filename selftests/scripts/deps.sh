#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages fabtrace's build, demo and tests need (make deps).
#
#   deps.sh [PKG...]    also install PKG (fresh-check.sh asks for mmdebstrap)
#
# Quiet and quick when everything is present; otherwise apt-get update, then
# install what is missing.  The newest Debian 6.12 kernel is looked up, never
# hard-coded.  QEMU comes from bookworm-backports: 7.2's TCG corrupts the
# flags of 6.12 guests now and then (see Documentation/design.rst).  A
# package the archive does not offer is named on one line, and the exit
# status is 1; nothing is half-installed on the way.
set -euo pipefail

pkgs=(build-essential kmod cpio xz-utils linux-image-amd64
	linux-headers-amd64 linux-source-6.12 linux-source-6.1 busybox-static
	rdma-core ibverbs-utils perftest rdmacm-utils iproute2 libmnl-dev
	libnl-3-dev libnl-genl-3-dev libibverbs-dev librdmacm-dev libjson-c-dev
	tcpdump tshark sparse python3 python3-yaml python3-jsonschema yamllint
	codespell valgrind clang libclang-rt-14-dev zstd shellcheck
	iputils-ping jq bpftrace cppcheck ethtool prometheus prometheus-node-exporter
	dkms dh-dkms debhelper dpkg-dev lintian pkgconf openssl bash-completion
	man-db groff-base pyflakes3 "$@")
qemu_min=1:10

die() {
	echo "deps: $*" >&2
	exit 1
}

# Installed packages among "$@", one per line (dpkg-query exits 1 for a
# package it has never heard of: its output, not its status, is the answer).
installed() {
	{ dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' "$@" 2>/dev/null ||
		true; } | awk '$1 == "ii" { print $2 }'
}

have=" $(installed "${pkgs[@]}" 'linux-image-6.12.*+deb12-amd64' \
	'linux-headers-6.12.*+deb12-amd64' | tr '\n' ' ') "
missing=()
for p in "${pkgs[@]}"; do
	[[ $have == *" $p "* ]] || missing+=("$p")
done
k612_missing=0
[[ $have == *" linux-image-6.12."* && $have == *" linux-headers-6.12."* ]] ||
	k612_missing=1
qv=$(dpkg-query -W -f='${Version}' qemu-system-x86 2>/dev/null || :)
qemu_missing=0
dpkg --compare-versions "${qv:-0}" ge "$qemu_min" || qemu_missing=1
if [ ${#missing[@]} -eq 0 ] && [ $k612_missing = 0 ] && [ $qemu_missing = 0 ]; then
	exit 0
fi

[ "$(id -u)" = 0 ] || die "installing packages needs root; missing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
grep -rqs '^[^#]*bookworm-backports' /etc/apt/sources.list \
	/etc/apt/sources.list.d ||
	printf '%s\n' 'Types: deb' 'URIs: http://deb.debian.org/debian' \
		'Suites: bookworm-backports' 'Components: main' \
		'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg' \
		>/etc/apt/sources.list.d/fabtrace-backports.sources
# Not fatal by itself: a machine may list an unreachable third-party
# source.  What matters is whether our packages have a candidate below.
apt-get update -qq || echo "deps: apt-get update reported errors" >&2

k612=$(apt-cache search --names-only '^linux-image-6\.12\.[0-9]+\+deb12-amd64$' |
	awk '{ print $1 }' | sort -V | tail -n 1)
[ -n "$k612" ] || die "no Debian 6.12 kernel (linux-image-6.12.*+deb12-amd64) in the archive: is bookworm-backports reachable?"
want=("${missing[@]}")
[ $k612_missing = 0 ] || want+=("$k612" "${k612/image/headers}")

# One clear line per package apt cannot offer, before installing anything.
absent=()
for p in "${want[@]}"; do
	cand=$(apt-cache policy "$p" 2>/dev/null | awk '/Candidate:/ { print $2 }')
	[ -n "$cand" ] && [ "$cand" != "(none)" ] || absent+=("$p")
done
[ ${#absent[@]} -eq 0 ] ||
	die "not in the configured Debian archive (or it is unreachable): ${absent[*]}"

if [ ${#want[@]} -gt 0 ]; then
	echo "deps: installing ${want[*]}"
	apt-get install -y -qq --no-install-recommends "${want[@]}" >/dev/null ||
		die "apt-get install failed for: ${want[*]}"
	# prometheus and prometheus-node-exporter are wanted for their programs
	# (promtool; the servers selftests/export.sh starts on a node's
	# loopback), not as services of this machine: those this run installed
	# (Debian starts them) are stopped and disabled again.
	for p in prometheus prometheus-node-exporter; do
		[[ " ${want[*]} " == *" $p "* ]] && [ -d /run/systemd/system ] &&
			{ systemctl disable --now "$p.service" >/dev/null 2>&1 || true; }
	done
fi
if [ $qemu_missing = 1 ]; then
	echo "deps: installing qemu-system-x86 from bookworm-backports"
	apt-get install -y -qq --no-install-recommends \
		-t bookworm-backports qemu-system-x86 >/dev/null ||
		die "apt-get install failed for: qemu-system-x86/bookworm-backports"
	qv=$(dpkg-query -W -f='${Version}' qemu-system-x86)
	dpkg --compare-versions "$qv" ge "$qemu_min" ||
		die "QEMU $qv is older than $qemu_min"
fi
echo "deps: done"
