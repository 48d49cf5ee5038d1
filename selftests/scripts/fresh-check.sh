#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Prove the README's quick start on a bare Debian 12 root (make fresh-check).
#
#   fresh-check.sh
#
# Builds (or takes from its cache) a minimal bookworm root with mmdebstrap
# --variant=minbase, installs the two tools the README assumes a user has
# (git, make), clones this tree's HEAD into it and runs, as root in a
# chroot with /proc, /sys and /dev, first `make demo` and then `make check`.
# The demo must pass on its first try: the root starts with none of the
# packages `make deps` installs.
#
# Environment: FT_FRESH_CACHE (default /var/cache/fabtrace/fresh) keeps the
# root's tarball and apt's downloaded .debs between runs on one machine;
# never an installed package.  BUILD (default <repo>/build) holds the root
# while it runs; it is unmounted and removed at the end.
# Exit status: 0 when both passed.
set -euo pipefail

top=$(readlink -f "$(dirname "$(readlink -f "$0")")/../..")
build=$(readlink -m "${BUILD:-$top/build}")
cache=${FT_FRESH_CACHE:-/var/cache/fabtrace/fresh}
mirror=/etc/apt/sources.list.d/debian.sources
tarball=$cache/bookworm-minbase.tar
work=$build/fresh
root=$work/root
t0=$SECONDS

say() { echo "fresh-check: $*" >&2; }
die() {
	say "$*"
	exit 1
}

[ "$(id -u)" = 0 ] || die "needs root (chroot, mounts)"
[ -f "$mirror" ] || die "no $mirror to take the Debian mirror from"
git -C "$top" rev-parse --verify -q HEAD >/dev/null || die "$top is not a git checkout"
[ -z "$(git -C "$top" status --porcelain --untracked-files=no)" ] ||
	say "warning: uncommitted changes are not tested: the root gets HEAD ($(git -C "$top" rev-parse --short HEAD))"

# Undo in reverse: nothing may be removed while a host file system is
# still mounted below the root (rm -rf would walk into the host's /dev).
cleanup() {
	local m

	if [ -d "$root" ]; then
		for m in $(findmnt -rn -o TARGET | grep -F "$root" | sort -r); do
			umount -l "$m" 2>/dev/null || true
		done
		if findmnt -rn -o TARGET | grep -qF "$root"; then
			say "left $root in place: something is still mounted below it"
			return
		fi
		rm -rf "$work"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

command -v mmdebstrap >/dev/null || "$top/selftests/scripts/deps.sh" mmdebstrap
mkdir -p "$cache/archives/partial"
if [ ! -s "$tarball" ]; then
	say "building a bare bookworm root (mmdebstrap --variant=minbase)"
	# mmdebstrap picks the output's format from its name: keep .tar
	rm -rf "$cache/new.tar"
	mmdebstrap --quiet --variant=minbase bookworm "$cache/new.tar" "$mirror" ||
		die "mmdebstrap failed"
	[ -f "$cache/new.tar" ] || die "mmdebstrap made no tarball"
	mv "$cache/new.tar" "$tarball"
else
	say "bare root from the cache: $tarball"
fi

cleanup
mkdir -p "$root"
tar -xf "$tarball" -C "$root"
for pkg in make git rdma-core qemu-system-x86; do
	# shellcheck disable=SC2016 # dpkg's format, not the shell's
	if [ "$(chroot "$root" dpkg-query -W -f='${db:Status-Abbrev}' "$pkg" 2>/dev/null)" = "ii " ]; then
		die "the bare root already has $pkg: not bare"
	fi
done
cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || :
mount -t proc proc "$root/proc"
mount -t sysfs sysfs "$root/sys"
mount --rbind /dev "$root/dev"
mount --make-rslave "$root/dev"
mount --bind "$cache/archives" "$root/var/cache/apt/archives"
git clone -q --no-hardlinks "$top" "$root/root/fabtrace"
t_root=$((SECONDS - t0))

# A login as root on the new machine, with nothing of this environment.
in_root() {
	chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		/bin/bash -c "$1"
}

say "installing what the README assumes (git, make)"
in_root 'export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq && apt-get install -y -qq --no-install-recommends git make >/dev/null' ||
	die "could not install git and make in the root"

say "make demo (first try) ..."
t1=$SECONDS
rc=0
in_root 'cd /root/fabtrace && make demo' 2>&1 | while IFS= read -r line; do
	printf '%5ds %s\n' $((SECONDS - t1)) "$line"
done >"$work/demo.log" || rc=$?
t_demo=$((SECONDS - t1))
cp "$work/demo.log" "$build/fresh-demo.log"
if [ $rc != 0 ] || ! grep -Eq '^ *[0-9]+s demo: PASS' "$work/demo.log"; then
	tail -n 40 "$work/demo.log" | sed 's/^/    /' >&2
	die "make demo failed on the bare root (exit $rc, ${t_demo}s; log in $build/fresh-demo.log)"
fi
say "make demo passed in ${t_demo}s: $(grep -Em1 '^ *[0-9]+s deps: done' "$work/demo.log" | awk '{ print $1 }') to install packages; $(grep -Em1 '^ *[0-9]+s demo: PASS' "$work/demo.log" | sed 's/^ *[0-9]*s //')"

say "make check ..."
t2=$SECONDS
rc=0
in_root 'cd /root/fabtrace && make check' >"$work/check.log" 2>&1 || rc=$?
t_check=$((SECONDS - t2))
if [ $rc != 0 ]; then
	tail -n 40 "$work/check.log" | sed 's/^/    /' >&2
	cp "$work/check.log" "$build/fresh-check.log"
	die "make check failed on the bare root (exit $rc, ${t_check}s; log in $build/fresh-check.log)"
fi
say "PASS: root ${t_root}s, make demo ${t_demo}s, make check ${t_check}s, total $((SECONDS - t0))s"
