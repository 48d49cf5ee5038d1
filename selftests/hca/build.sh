#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build ft_hca.ko, the test-only counting soft HCA (README), for one kernel.
#
#   build.sh KVER OUTDIR      ->  OUTDIR/ft_hca.ko
#
# rxe's sources come from Debian's linux-source-X.Y of KVER's series
# (/usr/src/linux-source-X.Y.tar.xz: make deps), only drivers/infiniband/
# sw/rxe, extracted once into BUILD/hca-src/X.Y (BUILD: OUTDIR's ../..) and
# again when the tarball changes.  The module is built in OUTDIR/src from a
# copy of them, patched with X.Y.patch, plus hca.[ch] and Kbuild from here.
set -euo pipefail

die() {
	echo "hca/build.sh: $*" >&2
	exit 1
}

[ $# -eq 2 ] || die "usage: build.sh KVER OUTDIR"
kver=$1
out=$(readlink -m "$2")
here=$(dirname "$(readlink -f "$0")")
series=$(sed -E 's/^([0-9]+\.[0-9]+).*/\1/' <<<"$kver")
tarball=/usr/src/linux-source-$series.tar.xz
patch=$here/$series.patch

[ -d "/lib/modules/$kver/build" ] ||
	die "no headers for kernel $kver: run 'make deps'"
[ -f "$patch" ] || die "no patch for Linux $series ($patch)"
[ -f "$tarball" ] ||
	die "no $tarball: run 'make deps' (it installs linux-source-$series)"

# pristine rxe of this series, kept beside the per-kernel build trees
cache=$(dirname "$(dirname "$out")")/hca-src/$series
key="$(stat -c '%s %Y' "$tarball") $tarball"
if [ "$(cat "$cache/.key" 2>/dev/null)" != "$key" ]; then
	rm -rf "$cache" && mkdir -p "$cache"
	tar -xf "$tarball" -C "$cache" --strip-components=5 --wildcards \
		'*/drivers/infiniband/sw/rxe/*'
	[ -f "$cache/rxe_verbs.h" ] || die "no drivers/infiniband/sw/rxe in $tarball"
	echo "$key" >"$cache/.key"
fi

# staged, then copied into the build tree only where it changed: kbuild
# then recompiles what a change touches, not all of rxe
rm -rf "$out/stage" && mkdir -p "$out/stage" "$out/src"
cp "$cache"/*.[ch] "$out/stage/"
patch -s -p5 -d "$out/stage" --no-backup-if-mismatch <"$patch" ||
	die "$(basename "$patch") does not apply to $tarball"
cp "$here/hca.c" "$here/hca.h" "$here/Kbuild" "$out/stage/"
for f in "$out"/src/*.[ch]; do
	[ ! -e "$f" ] || [ -e "$out/stage/${f##*/}" ] || rm -f "$f"
done
for f in "$out"/stage/*; do
	cmp -s "$f" "$out/src/${f##*/}" || cp "$f" "$out/src/"
done
rm -rf "$out/stage"
make -C "/lib/modules/$kver/build" M="$out/src" modules
cp "$out/src/ft_hca.ko" "$out/ft_hca.ko"
