#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Generate (or, with --check, verify) the code derived from the netlink spec.
#
# ynl-gen-c.py comes from Debian's linux-source-6.12 (extracted by the top
# Makefile into build/tools).  It locates the tree's root by walking up to a
# MAINTAINERS file and reads the schema from ../genetlink.yaml next to the
# spec folder, so it runs on a copy of the spec placed in a scratch tree that
# has both.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
tools=${BUILD:-$top/build}/tools
mode=${1:-}

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/Documentation/netlink/specs" "$scratch/out"
touch "$scratch/MAINTAINERS"
cp "$tools/Documentation/netlink/genetlink.yaml" "$scratch/Documentation/netlink/"
cp "$top/Documentation/netlink/specs/fabtrace.yaml" "$scratch/Documentation/netlink/specs/"
spec=$scratch/Documentation/netlink/specs/fabtrace.yaml

gen() {
	/usr/bin/python3 "$tools/tools/net/ynl/ynl-gen-c.py" --spec "$spec" "$@"
}

gen --mode uapi --header -o "$scratch/out/fabtrace.h"
gen --mode kernel --header -o "$scratch/out/fabtrace-nl-gen.h"
gen --mode kernel --source -o "$scratch/out/fabtrace-nl-gen.c"

# The generator names its own output after the spec; point the kernel files
# at where they live in this tree.
sed -i 's|#include "fabtrace-nl-gen.h"|#include "fabtrace-nl-gen.h"|' \
	"$scratch/out/fabtrace-nl-gen.c"

declare -A dest=(
	[fabtrace.h]=$top/include/uapi/linux/fabtrace.h
	[fabtrace-nl-gen.h]=$top/kmod/fabtrace-nl-gen.h
	[fabtrace-nl-gen.c]=$top/kmod/fabtrace-nl-gen.c
)

rc=0
for f in "${!dest[@]}"; do
	if [ "$mode" = --check ]; then
		if ! diff -u "${dest[$f]}" "$scratch/out/$f"; then
			echo "spec-check: ${dest[$f]#"$top"/} differs from the spec; run 'make spec-gen'" >&2
			rc=1
		fi
	else
		cp "$scratch/out/$f" "${dest[$f]}"
	fi
done
[ "$mode" = --check ] && [ $rc = 0 ] && echo "spec-check: generated code matches the spec"
yamllint -d '{extends: default, rules: {line-length: {max: 100}, document-start: disable, brackets: {max-spaces-inside: 1}}}' \
	"$top/Documentation/netlink/specs/fabtrace.yaml" || rc=1
exit $rc
