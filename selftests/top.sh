#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# top: sorted by CE, the QP behind a CE-marking qdisc comes first while a clean QP carries traffic too.
# timeout=360
#
# Two flows write from B to A at once (ft_timeout, 4 writes in flight):
#   N  Not-ECT, created first so that it has the lower QP number on A (top
#      breaks ties by QP number: a CLI that ignored the CE rate would list
#      N first)
#   E  ECT(0), crossing netem on B that marks 5% of ECT(0) RoCE packets CE
# `fabtrace -j top sort ce` on A (JSON and -b text, 2 snapshots each) must
# list E's QP first with a CE rate > 0, and N's below it with a receive
# rate > 0 and no CE.  E's CE rate agrees with its rx-ce counter's growth
# over the run; `qp show congested` lists E's QP and not N's.
# Then top on a terminal (script(1)): after SIGTSTP while stopped, and after
# SIGHUP, SIGQUIT, SIGTERM and SIGINT, the terminal's modes are the ones
# from before top; after SIGCONT top has its own again.
set -euo pipefail
HERE=$(dirname "$(readlink -f "$0")")
. "$HERE/lib.sh"
. "$HERE/lib-cong.sh"

PORT_N=18651
PORT_E=18652

cong_init top
O=$CONG_OUT
ktap_plan 18

ktap_assert "B: netem loss 5% ecn on ECT(0) RoCE" cong_netem peer ect0 loss 5% ecn
# --timeout 18 (1 s): a starved TCG node must not make the clean flow retransmit
flow() {
	local name=$1 port=$2 tclass=$3

	"$FT_PROGS/ft_timeout" --server -p "$port" --tclass "$tclass" --timeout-s 120 \
		>"$O/${name}_srv.json" 2>"$O/${name}_srv.err" &
	bg_add $!
	peer "$FT_PROGS/ft_timeout --peer $FT_CTL_IP -p $port --tclass $tclass --seconds 60 --timeout 18 --timeout-s 120" \
		>"$O/${name}_cli.json" 2>"$O/${name}_cli.err" &
	bg_add $!
}
srv_pid() {
	pgrep -n -f "ft_timeout --server -p $1"
}
# the server's QP: the newest QP of its pid on A
srv_qpn() {
	"$CONG_CLI" -j qp show dev "$CONG_DEV" pid "$1" | jq -e '[.[].qpn] | max'
}
flow n $PORT_N 0
flowing() { grep -q "first write completed" "$O/$1_cli.err"; }
wait_for 60 flowing n || log "flow N does not flow: $(cat "$O/n_cli.err")"
flow e $PORT_E 2
wait_for 60 flowing e || log "flow E does not flow: $(cat "$O/e_cli.err")"
pn=$(srv_pid $PORT_N) || true
pe=$(srv_pid $PORT_E) || true
qn=$(srv_qpn "$pn") || true
qe=$(srv_qpn "$pe") || true
log "A: QP of flow N $qn, of flow E $qe"
ktap_assert "both flows run; N's QP number is the lower one" test -n "$qn" -a -n "$qe" -a "${qn:-0}" -lt "${qe:-0}"

cong_qps self "$O/qps0.json"
rc=0 rc2=0
"$CONG_CLI" -j top dev "$CONG_DEV" sort ce interval 1000 iterations 2 >"$O/top.json" \
	2>"$O/top.err" || rc=$?
"$CONG_CLI" -n top -b dev "$CONG_DEV" sort ce interval 1000 iterations 2 >"$O/top.txt" \
	2>"$O/top_txt.err" || rc2=$?
cong_qps self "$O/qps1.json"
listed=$(cong_congested_listed self "$pn" "$pe")
expect=$(cong_congested_expected "$O/qps1.json" "$pn" "$pe")
sed 's/^/# top -j: /' "$O/top.json"
sed 's/^/# top -b: /' "$O/top.txt"
ktap_result "top -j and top -b ran (exit $rc, $rc2)" test "$rc" = 0 -a "$rc2" = 0
ktap_result "top -j: two snapshots, each one JSON object" \
	test "$(jq -c . "$O/top.json" 2>/dev/null | wc -l)" = 2 -a "$(wc -l <"$O/top.json")" = 2

last=$(tail -n 1 "$O/top.json")
first=$(jq '.qps[0].qpn' <<<"$last")
ce_first=$(jq '.qps[0].ce_ps' <<<"$last")
pos_n=$(jq --argjson q "$qn" '[.qps[].qpn] | index($q)' <<<"$last")
n_row=$(jq -c --argjson q "$qn" '.qps[] | select(.qpn == $q)' <<<"$last")
ktap_result "top -j sort ce: E's QP $qe first (first: $first, ce/s $ce_first)" \
	test "$first" = "$qe" -a "$(jq "$ce_first > 0" <<<null)" = true
ktap_result "top -j: N's QP $qn listed after it, receiving, no CE ($n_row)" \
	test "$pos_n" != null -a "$(jq '.rx_bps > 0 and .ce_ps == 0' <<<"${n_row:-null}")" = true -a "${pos_n:-0}" -gt 0
sorted=$(jq '[.qps[].ce_ps] as $c | [range(1; $c | length) | select($c[.] > $c[. - 1])] | length' <<<"$last")
cong_eq "top -j: CE rates in descending order (inversions)" "$sorted" 0
ktap_result "top -j: sort is ce, interval 1000 ms" test "$(jq -r '.sort + " " + (.interval_ms | tostring)' <<<"$last")" = "ce 1000"

# CE rate vs the counter: over the 2 snapshots E received d CE marks
d=$(( $(cong_qpv "$O/qps1.json" "$qe" "$pe" .cong.rx_ce) - $(cong_qpv "$O/qps0.json" "$qe" "$pe" .cong.rx_ce) ))
shown=$(jq -s --argjson q "$qe" '[.[] | .elapsed_ms / 1000 * (.qps[] | select(.qpn == $q) | .ce_ps)] | add | round' "$O/top.json")
log "E: rx-ce grew by $d around the two snapshots; rate x interval summed: $shown"
cong_le "E's CE rate x time <= rx-ce growth over the run" "$shown" "$d"
cong_gt "E's CE rate x time > 0" "$shown" 0

# text mode: the first row after each header is E's QP
rows=$(awk '/^fabtrace top/ { getline; getline; print $2 }' "$O/top.txt" | tr '\n' ' ')
ktap_result "top -b sort ce: E's QP $qe on the first row of both snapshots ($rows)" test "$rows" = "$qe $qe "
log "congested by the counters: [$expect]; qp show congested: [$listed]"
ktap_result "qp show congested: E's QP, not N's ([$listed], counters say [$expect])" \
	test "$listed" = "$qe" -a "$expect" = "$qe"

# ---- the terminal, on every way out ------------------------------------------
# On a terminal top reads single keys without echo.  Under script(1) a
# job-control shell (bash with set -m, as an interactive shell) runs it as
# its foreground job, in a process group of its own that is not orphaned,
# so SIGTSTP really stops it; the shell records `stty -g` before top, while
# it is stopped (then continues it with fg, as a user would) and after it.
# The test sends the signals from outside and reads top's modes with
# stty -F.  env --default-signal: as a background job of this script,
# script(1) would inherit SIGINT and SIGQUIT ignored, and top keeps the
# signals its caller ignores (nohup).
cat >"$O/tty_drv.sh" <<'DRV'
set -m
o=$1
shift
stty -g >"$o.before"
bash -c 'echo $$ >"$0.pid"; exec "$@"' "$o" "$@"
st=$?
while [ "$st" -gt 128 ] && jobs %% >/dev/null 2>&1; do
	stty -g >"$o.stopped"
	fg >/dev/null
	st=$?
done
echo "$st" >"$o.rc"
stty -g >"$o.after"
DRV
tty_keys() { stty -a -F "/proc/$1/fd/0" 2>/dev/null | grep -qw -- -icanon; }
# tty_run NAME SIG...: top under script(1); each signal once top is in
# single-key mode (again, after SIGTSTP and fg)
tty_run() {
	local n=$1 sp p sig

	shift
	env --default-signal script -qfec \
		"bash $O/tty_drv.sh $O/$n $CONG_CLI top dev $CONG_DEV interval 300" /dev/null \
		</dev/null >"$O/$n.out" 2>&1 &
	sp=$!
	bg_add "$sp"
	if ! wait_for 30 test -s "$O/$n.pid" || ! p=$(cat "$O/$n.pid") ||
	   ! wait_for 30 tty_keys "$p"; then
		log "$n: top never reached single-key mode: $(head -c 300 "$O/$n.out")"
		kill "$sp" 2>/dev/null || true
		return
	fi
	for sig; do
		kill -"$sig" "$p" || log "$n: no top to send SIG$sig to"
		[ "$sig" = TSTP ] || continue
		wait_for 30 test -s "$O/$n.stopped" || log "$n: top did not stop"
		wait_for 30 tty_keys "$p" && touch "$O/$n.resumed"
	done
	timeout 30 tail --pid="$sp" -f /dev/null || kill -KILL "$p" "$sp" 2>/dev/null || true
	wait "$sp" || true
	log "$n: top exit $(cat "$O/$n.rc" 2>/dev/null); stty before $(cat "$O/$n.before" 2>/dev/null)"
	log "$n: stopped $(cat "$O/$n.stopped" 2>/dev/null); after $(cat "$O/$n.after" 2>/dev/null)"
}
# tty_same NAME WHEN: the modes at WHEN (stopped, after) are the ones before top
tty_same() { test -s "$O/$1.before" && cmp -s "$O/$1.before" "$O/$1.$2"; }
# tty_clean NAME: top exited 0, modes as before, the cursor shown last
tty_clean() {
	tty_same "$1" after && test "$(cat "$O/$1.rc" 2>/dev/null)" = 0 &&
		python3 -c 'import sys
t = open(sys.argv[1], "rb").read()
sys.exit(not t.rfind(b"\x1b[?25h") > t.rfind(b"\x1b[?25l") >= 0)' "$O/$1.out"
}

tty_run tty_tstp TSTP HUP
ktap_result "top on a terminal, SIGTSTP: stopped, with the modes from before top" \
	tty_same tty_tstp stopped
ktap_result "top, SIGCONT (fg): single-key mode again" test -e "$O/tty_tstp.resumed"
ktap_result "top, then SIGHUP: exit 0, modes as before top, cursor shown" tty_clean tty_tstp
for sig in QUIT TERM INT; do
	tty_run "tty_$sig" "$sig"
	ktap_result "top on a terminal, SIG$sig: exit 0, modes as before top, cursor shown" \
		tty_clean "tty_$sig"
done
ktap_finished
