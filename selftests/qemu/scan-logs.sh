#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Scan node consoles/dmesg for kernel trouble; print it, exit 1 if any.
#
#   scan-logs.sh FILE...
#
# Only kernel lines count ("[ seconds.micro] ..." -- nodes boot with
# printk.time=1), so test output on the console that happens to say
# "WARNING" cannot fail a run, while anything the kernel itself prints can.
# Missing files are skipped: a node that died has no dmesg file, but its
# console still holds the panic.  FT_LOG_ALLOW (ERE) exempts known-benign
# kernel lines; keep it empty unless a line is understood.
set -euo pipefail

# WARN()/lockdep ("WARNING: possible circular locking..."), BUG()/KASAN
# ("BUG: KASAN: ..."), oopses, GPF, panics, RCU stalls, lockups, hung tasks,
# sanitizers, list/refcount corruption, and any stack dump at all.
PATTERN='WARNING:|BUG:|kernel BUG at|Oops|general protection fault|Kernel panic'
PATTERN+='|possible circular locking|possible recursive locking|inconsistent lock state'
PATTERN+='|INFO: lockdep|lockdep|detected stall|stall on CPU|stalls on CPU'
PATTERN+='|soft lockup|hard LOCKUP|blocked for more than|hung_task'
PATTERN+='|KASAN|UBSAN|KFENCE|kmemleak|Call Trace|list_add corruption|list_del corruption'
PATTERN+='|refcount_t:|double fault|stack-protector|stack guard page'

# Informational lines of the debug kernel (debug-kernel.sh) that match the
# pattern but report nothing: each is a fixed boot-time banner, never part
# of a splat.  Anything else stays a failure.
BENIGN='kmemleak: Kernel memory leak detector initialized \(mem pool available: [0-9]+\)$'
BENIGN+='|\] rcu:[[:space:]]+RCU lockdep checking is enabled\.$'

found=0
for f in "$@"; do
	[ -f "$f" ] || continue
	hits=$(tr -d '\r' <"$f" | grep -E '^\[ *[0-9]+\.[0-9]+\] ' |
		grep -E -- "$PATTERN" | grep -Ev -- "$BENIGN" |
		{ if [ -n "${FT_LOG_ALLOW:-}" ]; then grep -Ev -- "$FT_LOG_ALLOW"; else cat; fi; } |
		head -n 100 || true)
	if [ -n "$hits" ]; then
		found=1
		sed "s|^|${f##*/}: |" <<<"$hits"
	fi
done
exit "$found"
