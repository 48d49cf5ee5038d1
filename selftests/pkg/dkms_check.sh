#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make dkms-check: DKMS builds and installs fabtrace.ko for every kernel given,
# through make dkms-install as a node runs it, and removes it again through
# make dkms-uninstall -- all of it under build/dkms/root (DKMS_ROOT: DKMS's
# --sourcetree, --dkmstree and --installtree, its signing key there too, no
# depmod), so the host's /usr/src, /var/lib/dkms and /lib/modules stay as
# they were, which the last check proves.  TAP.
#
#   dkms_check.sh KVER...
#
# Per kernel: the module DKMS installed is where Debian's dkms puts it
# (updates/dkms), compressed as that kernel's own modules are, built for
# that kernel (vermagic), carries the release (modinfo version) and needs
# ib_core.  What DKMS installed is kept in build/dkms/install/KVER/ for
# selftests/dkms.sh, which loads it in a node with modprobe.
set -euo pipefail

HERE=$(dirname "$(readlink -f "$0")")
TOP=$(readlink -f "$HERE/../..")
BUILD=${BUILD:-$TOP/build}
OUT=$BUILD/dkms
ROOT=$OUT/root
kvers=("$@")

. "$HERE/lib-tap.sh"

echo "TAP version 13"
[ ${#kvers[@]} -gt 0 ] || { echo "1..0 # SKIP no kernel given (no headers installed?)"; exit 4; }
command -v dkms >/dev/null || { echo "Bail out! dkms is not installed (make deps)"; exit 1; }
[ "$(id -u)" = 0 ] || { echo "1..0 # SKIP dkms needs root"; exit 4; }
echo "1..$((4 + 6 * ${#kvers[@]}))"
version=$(sed -n 's/^#define[[:space:]]*FABTRACE_VERSION[[:space:]]*"\(.*\)"/\1/p' \
	"$TOP/user/ft.h")
echo "# fabtrace $version, dkms $(dkms --version 2>/dev/null | awk '{ print $NF }'), kernels ${kvers[*]}"

# What DKMS would change on the host if it escaped DKMS_ROOT.
host_state() {
	{
		# a directory that is not there is a state too
		find /usr/src /var/lib/dkms -maxdepth 3 -printf '%p %T@\n' 2>/dev/null || true
		for k in "${kvers[@]}"; do
			find "/lib/modules/$k" -maxdepth 1 -name 'modules.*' -printf '%p %T@ %s\n'
			find "/lib/modules/$k/updates" -printf '%p %T@\n' 2>/dev/null || true
		done
	} | sort
}
before=$(host_state)

rm -rf "$OUT" && mkdir -p "$OUT"
printf '%s\n' "$before" >"$OUT/host-before"
mk() {
	local log=$OUT/make-$1.log

	make -C "$TOP" --no-print-directory "$@" DKMS_ROOT="$ROOT" BUILD="$BUILD" \
		KVERS="${kvers[*]}" >"$log" 2>&1 && return 0
	tail -n 30 "$log" | sed 's/^/# /'
	return 1
}
t0=$SECONDS
res "make dkms-install DKMS_ROOT=build/dkms/root (${kvers[*]})" mk dkms-install
echo "# dkms-install took $((SECONDS - t0))s; log: $OUT/make-dkms-install.log"
tree=(--sourcetree="$ROOT/usr/src" --dkmstree="$ROOT/var/lib/dkms"
	--installtree="$ROOT/lib/modules")
# (dkms status asks readelf about vmlinux, which headers packages lack)
dkms status "${tree[@]}" -m fabtrace -v "$version" 2>/dev/null | sed 's/^/# dkms status: /'

for k in "${kvers[@]}"; do
	ko=$(ls "$ROOT/lib/modules/$k/updates/dkms/fabtrace.ko"* 2>/dev/null | head -n 1) || true
	if [ -n "$ko" ]; then
		ok "$k: DKMS installed ${ko#"$ROOT"/}"
	else
		nok "$k: DKMS installed lib/modules/$k/updates/dkms/fabtrace.ko*"
		for _ in 1 2 3 4 5; do nok "$k: (no module to check)"; done
		continue
	fi
	# compressed as the kernel's own modules are (6.12: .ko.xz), or not
	want=.ko
	grep -q '\.ko\.xz:' "/lib/modules/$k/modules.dep" && want=.ko.xz
	grep -q '\.ko\.zst:' "/lib/modules/$k/modules.dep" && want=.ko.zst
	res "$k: compressed as its modules are ($want)" test "${ko%"$want"}$want" = "$ko"
	vermagic=$(modinfo -F vermagic "$ko") || true
	res "$k: built for it (vermagic: $vermagic)" test "${vermagic%% *}" = "$k"
	res "$k: modinfo version is the release ($version)" \
		test "$(modinfo -F version "$ko")" = "$version"
	res "$k: depends on ib_core" grep -qw ib_core <<<"$(modinfo -F depends "$ko")"
	res "$k: dkms status says installed" \
		grep -q "fabtrace/$version, $k, [^:]*: installed" \
		<(dkms status "${tree[@]}" -m fabtrace -v "$version" -k "$k" 2>/dev/null)
	signer=$(modinfo -F signer "$ko")
	echo "# $k: signer: ${signer:-none (no sign-file or openssl)}"
	mkdir -p "$OUT/install/$k/updates/dkms"
	cp "$ko" "$OUT/install/$k/updates/dkms/"
done

res "make dkms-uninstall DKMS_ROOT=build/dkms/root" mk dkms-uninstall
gone() {
	local left

	left=$(find "$ROOT/lib/modules" "$ROOT/usr/src" "$ROOT/var/lib/dkms" \
		-name 'fabtrace*' 2>/dev/null)
	[ -z "$left" ] && [ -z "$(dkms status "${tree[@]}" -m fabtrace 2>/dev/null)" ] && return 0
	sed 's/^/# left behind: /' <<<"$left"
	return 1
}
res "dkms-uninstall left no module, source or DKMS state" gone
host_state >"$OUT/host-after"
untouched() {
	diff -u --label before --label after "$OUT/host-before" "$OUT/host-after" >"$OUT/host.diff" &&
		return 0
	sed 's/^/# /' "$OUT/host.diff"
	return 1
}
res "the host's /usr/src, /var/lib/dkms and /lib/modules are untouched" untouched
echo "# kept for selftests/dkms.sh: $(cd "$OUT/install" && echo */updates/dkms/*)"
tap_totals
