#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# fabtrace's debug kernel: Debian's 6.12 source with KASAN, lockdep, kmemleak,
# DEBUG_ATOMIC_SLEEP, DEBUG_OBJECTS_RCU_HEAD, DEBUG_LIST, configured small for
# the QEMU test bed, built once and cached, installed as just another KVER.
#
#   debug-kernel.sh kver        print the release (e.g. 6.12.117-ftdebug)
#   debug-kernel.sh build       build into the cache unless already there
#   debug-kernel.sh cached      exit 0 if the build is in the cache (and
#                               print its compile time), 1 if not
#   debug-kernel.sh install     build, then install: /boot/vmlinuz-KVER,
#                               /lib/modules/KVER (+ build -> the cached
#                               build tree, for `make -C .../build M=...`)
#   debug-kernel.sh test [-q]   install, build fabtrace.ko and the CLI for it,
#                               run selftests/qemu/vm-test.sh KVER (T= subset)
#
# Config: `make allnoconfig`, then selftests/config and selftests/qemu/
# debug.config merged (scripts/kconfig/merge_config.sh), `make olddefconfig`;
# every option either fragment sets must come out as set, or the build fails.
# Cache: $FT_DEBUG_CACHE/<hash> (default /var/cache/fabtrace/debug-kernel),
# hash = both fragments' settings + the linux-source-6.12 package version + the build
# functions of this script + the compiler and pahole versions.  It lives outside the work tree, so a
# fresh clone on the same machine (CI) reuses it; elsewhere it builds.
# The release ends in -ftdebug: the top-level Makefile must leave %-ftdebug
# out of the kernel list it builds and tests by default.
#
# Environment: FT_DEBUG_CACHE, FT_DEBUG_JOBS (make -j, default 2),
# BUILD (fabtrace build tree); for `test`, T and the FT_VM_* knobs of
# vm-test.sh (defaults raised here for the slow debug kernel).
set -euo pipefail

ME=$(readlink -f "${BASH_SOURCE[0]}")
QDIR=$(dirname "$ME")
REPO=$(readlink -f "$QDIR/../..")
BUILD=$(readlink -m "${BUILD:-$REPO/build}")
CACHE=${FT_DEBUG_CACHE:-/var/cache/fabtrace/debug-kernel}
JOBS=${FT_DEBUG_JOBS:-2}
SRC_PKG=linux-source-6.12
SRC_TAR=/usr/src/linux-source-6.12.tar.xz
FRAGS=("$REPO/selftests/config" "$QDIR/debug.config")
SUFFIX=-ftdebug
# Build tools beyond `make deps`: kconfig (flex, bison), objtool (libelf),
# BTF (pahole), the zstd-compressed image (zstd).
BUILD_PKGS="build-essential bc flex bison libelf-dev pahole zstd xz-utils kmod cpio"

log() { echo "debug-kernel: $*" >&2; }
die() { log "$*"; exit 1; }

src_version() {
	dpkg-query -W -f='${Version}' "$SRC_PKG" 2>/dev/null ||
		die "$SRC_PKG is not installed: run 'make deps'"
}

# 6.12.117-1~deb12u1 -> 6.12.117-ftdebug (checked against kbuild's own
# answer after configuring).
kver() {
	local v

	v=$(src_version)
	echo "${v%%-*}$SUFFIX"
}

key() {
	{
		echo "pkg $SRC_PKG $(src_version)"
		# the fragments' settings, not their comments: a comment
		# edited costs no rebuild
		sed -E '/^# CONFIG_[A-Za-z0-9_]+ is not set$/b; /^[[:space:]]*(#|$)/d' "${FRAGS[@]}" |
			sha256sum | awk '{ print $1 }'
		# The build recipe: these functions' text (not the whole script,
		# so editing `test` or `install` does not cost a rebuild).
		declare -f build_deps check_config build
		echo "$SUFFIX $BUILD_PKGS"
		gcc --version | head -n 1
		pahole --version 2>/dev/null || echo "no pahole"
	} | sha256sum | cut -c1-16
}

build_deps() {
	local missing='' p

	for p in $BUILD_PKGS; do
		dpkg-query -W -f='${db:Status-Abbrev}\n' "$p" 2>/dev/null | grep -q '^ii' ||
			missing+=" $p"
	done
	[ -z "$missing" ] && return 0
	log "installing build tools:$missing"
	[ "$(id -u)" = 0 ] || die "need root to install$missing"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		$missing >/dev/null || {
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends $missing >/dev/null
	}
}

# check_config CONFIG FRAGMENT...: every "CONFIG_X=v" of the fragments is in
# CONFIG as written, every "# CONFIG_X is not set" is not set there.
check_config() {
	local cfg=$1 bad=0 line sym

	shift
	while read -r line; do
		case $line in
		'# CONFIG_'*' is not set')
			sym=${line#\# }
			sym=${sym%% *}
			if grep -q "^$sym=" "$cfg"; then
				log "config: want '$line', have '$(grep "^$sym=" "$cfg")'"
				bad=1
			fi
			;;
		CONFIG_*=*)
			if ! grep -qxF -- "$line" "$cfg"; then
				sym=${line%%=*}
				log "config: want '$line', have '$(grep "^$sym=" "$cfg" || echo "$sym unset")'"
				bad=1
			fi
			;;
		esac
	done < <(grep -hE '^(CONFIG_[A-Za-z0-9_]+=|# CONFIG_[A-Za-z0-9_]+ is not set)' "$@" | sort -u)
	return $bad
}

# The cached build: DIR/src (the source), DIR/obj (kbuild output, trimmed to
# what external modules need), DIR/root/lib/modules/KVER, DIR/vmlinuz,
# DIR/System.map, DIR/config, DIR/kver; DIR/.done when complete.
build() {
	local h dir tmp k t0 t1 kmake lk

	h=$(key)
	dir=$CACHE/$h
	if [ -f "$dir/.done" ]; then
		log "cached: $dir ($(cat "$dir/kver"))"
		echo "$dir"
		return 0
	fi
	mkdir -p "$CACHE"
	# One builder at a time; a second caller waits, then finds it cached.
	exec {lk}>"$CACHE/.lock"
	flock "$lk"
	if [ -f "$dir/.done" ]; then
		echo "$dir"
		return 0
	fi
	build_deps
	[ -r "$SRC_TAR" ] || die "no $SRC_TAR: run 'make deps'"
	t0=$SECONDS
	# Built in place (kbuild records O= and the source path in the tree):
	# .done marks it complete; a leftover without it is started afresh.
	tmp=$dir
	rm -rf "$tmp"
	mkdir -p "$tmp/src" "$tmp/obj"
	log "extracting $SRC_TAR ($(src_version)) into $tmp/src"
	tar -xf "$SRC_TAR" -C "$tmp/src" --strip-components=1
	kmake=(nice -n 19 make -C "$tmp/src" O="$tmp/obj" ARCH=x86_64)
	"${kmake[@]}" -s allnoconfig
	(cd "$tmp/obj" && "$tmp/src/scripts/kconfig/merge_config.sh" -m .config "${FRAGS[@]}") \
		>"$tmp/merge.log" 2>&1 || { cat "$tmp/merge.log" >&2; die "merge_config failed"; }
	"${kmake[@]}" -s olddefconfig
	check_config "$tmp/obj/.config" "${FRAGS[@]}" ||
		die "the config lacks options the fragments ask for (see above)"
	k=$(kver)
	log "building $k with -j$JOBS (nice 19); log: $tmp/build.log"
	if ! "${kmake[@]}" -j"$JOBS" bzImage modules >"$tmp/build.log" 2>&1; then
		tail -n 40 "$tmp/build.log" >&2
		die "kernel build failed (log: $tmp/build.log)"
	fi
	t1=$SECONDS
	[ "$(cat "$tmp/obj/include/config/kernel.release")" = "$k" ] ||
		die "kernel.release is $(cat "$tmp/obj/include/config/kernel.release"), expected $k"
	"${kmake[@]}" -s INSTALL_MOD_PATH="$tmp/root" INSTALL_MOD_STRIP=1 \
		DEPMOD=/sbin/depmod modules_install >>"$tmp/build.log" 2>&1 ||
		die "modules_install failed"
	rm -f "$tmp/root/lib/modules/$k/build" "$tmp/root/lib/modules/$k/source"
	cp "$tmp/obj/arch/x86/boot/bzImage" "$tmp/vmlinuz"
	cp "$tmp/obj/System.map" "$tmp/System.map"
	cp "$tmp/obj/.config" "$tmp/config"
	echo "$k" >"$tmp/kver"
	# External modules need the config, generated headers, host tools,
	# Module.symvers and vmlinux (module BTF); not the objects.
	find "$tmp/obj" \( -name '*.o' -o -name '*.ko' -o -name '*.a' \) \
		! -path "$tmp/obj/scripts/*" ! -path "$tmp/obj/tools/*" -delete
	rm -f "$tmp/obj/vmlinux.o" "$tmp/obj/vmlinux.a"
	echo "build_seconds=$((t1 - t0)) total_seconds=$((SECONDS - t0))" >"$tmp/times"
	touch "$dir/.done"
	log "built $k in $((SECONDS - t0)) s (compile $((t1 - t0)) s): $dir"
	echo "$dir"
}

# prune KEEP_DIR: drop incomplete builds and all but the two newest complete
# ones (each is a few GB), never KEEP_DIR; under the builders' lock.
prune() {
	local keep=$1 d n=0 lk

	exec {lk}>"$CACHE/.lock"
	flock "$lk"
	# newest first; cache entries are hex hashes, no spaces
	while read -r d; do
		d=${d%/}
		[ "$d" != "$keep" ] || continue
		if [ ! -f "$d/.done" ] || [ $((++n)) -ge 2 ]; then
			log "pruning cache $d"
			rm -rf "$d"
		fi
	done < <(find "$CACHE" -mindepth 1 -maxdepth 1 -type d -printf '%T@ %p\n' | sort -rn | cut -d' ' -f2-)
	exec {lk}>&-
}

# install: what the harness and out-of-tree builds look for.
install_kernel() {
	local dir k m

	dir=$(build)
	k=$(cat "$dir/kver")
	m=/lib/modules/$k
	prune "$dir"
	if [ "$(cat "$m/.ftdebug" 2>/dev/null)" = "$dir" ] && [ -f "/boot/vmlinuz-$k" ] &&
		[ -e "$m/build" ] &&
		cmp -s "$dir/vmlinuz" "/boot/vmlinuz-$k"; then
		log "installed: $k"
		return 0
	fi
	[ "$(id -u)" = 0 ] || die "need root to install into /boot and /lib/modules"
	# Older debug kernels (another source version) go: only ours end in $SUFFIX.
	for old in /lib/modules/*"$SUFFIX"; do
		[ -e "$old" ] && [ "$old" != "$m" ] || continue
		[ -f "$old/.ftdebug" ] || continue
		log "removing the previous debug kernel ${old##*/}"
		rm -rf "$old" "/boot/vmlinuz-${old##*/}" "/boot/System.map-${old##*/}" \
			"/boot/config-${old##*/}"
	done
	rm -rf "$m"
	cp -a "$dir/root/lib/modules/$k" "$m"
	ln -sfn "$dir/obj" "$m/build"
	ln -sfn "$dir/src" "$m/source"
	install -m 0644 "$dir/vmlinuz" "/boot/vmlinuz-$k"
	install -m 0644 "$dir/System.map" "/boot/System.map-$k"
	install -m 0644 "$dir/config" "/boot/config-$k"
	echo "$dir" >"$m/.ftdebug"
	log "installed $k: /boot/vmlinuz-$k, $m (build -> $dir/obj)"
}

# test: the VM suite on the debug kernel.  KASAN + lockdep under TCG is
# several times slower than Debian's kernels: longer budgets by default.
run_test() {
	local k

	install_kernel
	k=$(kver)
	# a new config keeps the release: modules built for the old build
	# would load nowhere (their BTF no longer matches), so start over
	if [ "$(cat "$BUILD/$k/.ftdebug" 2>/dev/null)" != "$(cat "/lib/modules/$k/.ftdebug")" ]; then
		rm -rf "${BUILD:?}/$k"
		mkdir -p "$BUILD/$k"
		cp "/lib/modules/$k/.ftdebug" "$BUILD/$k/.ftdebug"
	fi
	make -C "$REPO" -s all test-modules KVER="$k" BUILD="$BUILD"
	make -C "$REPO" -s "$BUILD/tools/.stamp" BUILD="$BUILD"
	export FT_VM_TIMEOUT=${FT_VM_TIMEOUT:-5400}
	export FT_VM_BOOT_TIMEOUT=${FT_VM_BOOT_TIMEOUT:-600}
	# every test's own limit too (run_tests.sh): ~4x slower than Debian's
	export FT_TIMEOUT_SCALE=${FT_TIMEOUT_SCALE:-4}
	exec "$QDIR/vm-test.sh" "$@" "$k"
}

case ${1:-} in
kver) kver ;;
key) key ;;
build) build >/dev/null ;;
cached)
	d=$CACHE/$(key)
	[ -f "$d/.done" ] || exit 1
	cat "$d/times" 2>/dev/null || echo "cached: $d"
	;;
install) install_kernel ;;
test) shift; run_test "$@" ;;
*) awk 'NR > 2 && !/^#/ { exit } NR > 2 { sub(/^# ?/, ""); print }' "$ME" >&2; exit 2 ;;
esac
