#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make deb: fabtrace's two binary packages, built by Debian's own tooling.
#
#   deb.sh OUTDIR VERSION
#
# Stages a copy of the tree in OUTDIR/fabtrace-VERSION (the files git
# tracks or would track, nothing it ignores) whose debian/ is user/debian/
# with the release, maintainer, dates and years filled in, kmod/dkms.conf.in as
# debian/fabtrace-dkms.dkms; runs dpkg-buildpackage -b there (debhelper 13,
# dh-dkms); checks that each package holds what it must; runs lintian on
# both.  A lintian error fails; warnings and the rest are printed.
# DEBFULLNAME and DEBEMAIL name the maintainer, as for dch(1).
set -euo pipefail

TOP=$(readlink -f "$(dirname "$0")/../..")
OUT=${1:?usage: deb.sh OUTDIR VERSION}
VERSION=${2:?usage: deb.sh OUTDIR VERSION}
STAGE=$OUT/fabtrace-$VERSION
MAINT="${DEBFULLNAME:-fabtrace developers} <${DEBEMAIL:-maintainers@users.noreply.a-seed-9152bf9f.example}>"

die() {
	echo "deb: $*" >&2
	exit 1
}
for t in dpkg-buildpackage dh dh_dkms lintian; do
	command -v "$t" >/dev/null || die "$t is not installed (make deps)"
done

rm -rf "$OUT"
mkdir -p "$STAGE"
cd "$TOP"
# The changelog's date: the last commit's, so that a rebuild is the same;
# the copyright's years: the first commit's to the last's.
date=$(git log -1 --format=%cD 2>/dev/null) || date=$(date -R)
first=$(git log --reverse --format=%cd --date=format:%Y 2>/dev/null | head -n 1) ||
	first=$(date +%Y)
last=$(date -d "$date" +%Y)
years=$first
[ "$first" = "$last" ] || years=$first-$last
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git ls-files -z -c -o --exclude-standard
else
	find . -path ./build -prune -o -type f -print0 | sed -z 's|^\./||'
fi | while IFS= read -r -d '' f; do
	case $f in user/debian/*) continue ;; esac
	[ ! -e "$f" ] || cp -P --parents "$f" "$STAGE/"
done
cp -a user/debian "$STAGE/debian"
rm "$STAGE/debian/changelog.in"
sed -e "s/@VERSION@/$VERSION/g" -e "s/@MAINTAINER@/$MAINT/" -e "s/@DATE@/$date/" \
	user/debian/changelog.in >"$STAGE/debian/changelog"
sed -i "s/@MAINTAINER@/$MAINT/" "$STAGE/debian/control"
sed -i "s/@YEARS@/$years/" "$STAGE/debian/copyright"
sed "s/@VERSION@/$VERSION/" kmod/dkms.conf.in >"$STAGE/debian/fabtrace-dkms.dkms"

echo "deb: dpkg-buildpackage -b in $STAGE (log: $OUT/build.log)"
if ! (cd "$STAGE" && dpkg-buildpackage -b -us -uc) >"$OUT/build.log" 2>&1; then
	tail -n 40 "$OUT/build.log" >&2
	die "dpkg-buildpackage failed"
fi
arch=$(dpkg --print-architecture)
cli=$OUT/fabtrace_${VERSION}_$arch.deb
dkms=$OUT/fabtrace-dkms_${VERSION}_all.deb
changes=$OUT/fabtrace_${VERSION}_$arch.changes
[ -f "$cli" ] && [ -f "$dkms" ] || die "dpkg-buildpackage made no $cli and $dkms"

# has DEB PATH...: the package holds each PATH (a regex on dpkg -c's names)
has() {
	local deb=$1 p list

	shift
	list=$(dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./|/|')
	for p in "$@"; do
		grep -qE "^$p\$" <<<"$list" || die "${deb##*/} lacks $p"
	done
}
has "$cli" /usr/sbin/fabtrace /usr/share/man/man8/fabtrace.8.gz \
	/usr/share/bash-completion/completions/fabtrace \
	/lib/systemd/system/fabtrace-policy.service /usr/share/doc/fabtrace/copyright
for u in $(cd user && ls ./*.service ./*.timer ./*.service.in ./*.timer.in 2>/dev/null |
	sed 's|^\./||; s/\.in$//' | sort -u); do
	has "$cli" "/lib/systemd/system/$u"
done
src=/usr/src/fabtrace-$VERSION
has "$dkms" "$src/dkms.conf" "$src/Kbuild" "$src/kmod/Kbuild" "$src/kmod/main.c" \
	"$src/include/uapi/linux/fabtrace.h" /usr/share/doc/fabtrace-dkms/copyright
# (whole outputs, then grep: grep -q in a pipe would cut dpkg-deb short)
grep -q '^Depends:.*dkms' <<<"$(dpkg-deb -f "$dkms")" ||
	die "fabtrace-dkms does not depend on dkms"
grep -q 'dkms' <<<"$(dpkg-deb --ctrl-tarfile "$dkms" | tar -xOf - ./postinst)" ||
	die "fabtrace-dkms's postinst does not run dkms"
grep -q '^ExecStart=/usr/sbin/fabtrace ' <<<"$(dpkg-deb --fsys-tarfile "$cli" |
	tar -xOf - ./lib/systemd/system/fabtrace-policy.service)" ||
	die "fabtrace-policy.service does not run /usr/sbin/fabtrace"
echo "deb: built $(basename "$cli") $(basename "$dkms")"

echo "deb: lintian (errors fail; every other tag is printed)"
rc=0
lintian --fail-on error --display-info --pedantic --tag-display-limit 0 \
	"$changes" | tee "$OUT/lintian.log" || rc=$?
[ "$rc" = 0 ] || die "lintian found errors (exit $rc): $OUT/lintian.log"
echo "deb: lintian: $(grep -c '^E: ' "$OUT/lintian.log" || true) errors," \
	"$(grep -c '^W: ' "$OUT/lintian.log" || true) warnings," \
	"$(grep -c '^[IP]: ' "$OUT/lintian.log" || true) info/pedantic"
ls -l "$cli" "$dkms"
