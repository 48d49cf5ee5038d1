#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# fabtrace export: Prometheus' promtool, the node's own numbers, a real node_exporter and Prometheus, bad input.
# timeout=420
#
# On node A, with 1,000 QPs held (ft_qps --no-connect) and B writing to A
# over two flows whose requests netem on B marks CE (5% of ECT(0)), one
# flow's server in a cgroup of its own and named 'ft"q\p' + 0xff:
#   - an export every second while the traffic runs, into a textfile
#     directory: each run succeeds, and no counter of a group, device, port
#     or the module goes down from one file to the next;
#   - once the node is quiet (dev show the same before and after), the
#     export against "fabtrace -j qp show" and "dev show" of that moment:
#     each group == the sum of its QPs (every counter, live QPs, QPs in
#     error), "other" == device - QPs, the device totals == dev show, the
#     groups add up to the device totals exactly, the top QPs' own series ==
#     their QPs; promtool check metrics accepts it without a word; its
#     series count is under the stated bound (and says so itself); the same
#     by cgroup, with "qp show cgroup" and the cgroup removed (its QPs keep
#     its path in the export);
#   - prometheus-node-exporter serves the directory on 127.0.0.1:19100 and
#     a Prometheus server (the shipped rules loaded) scrapes it every 2 s
#     on 127.0.0.1:19090; its query API returns the device total, the sum of
#     the groups, a CE rate and a recorded rule's series; both are stopped
#     and no process of theirs is left;
#   - 10,000 QPs more: promtool accepts the export, the bound holds;
#   - bad input: an unprivileged writer, a read-only file system, a full
#     16 KiB tmpfs, the module unloaded: exit 1, one clear line, the file
#     that was there untouched and no temporary file; after a reload the
#     export starts over (new load time) and succeeds.
# Where: all of it on node A, Prometheus included (loopback only; on one
# kernel of a vm-test run, the others skip it: kindep_here); B only
# sends traffic.
set -euo pipefail
HERE=$(dirname "$(readlink -f "$0")")
. "$HERE/lib.sh"
. "$HERE/lib-cong.sh"

require_cmd promtool prometheus prometheus-node-exporter setpriv
CHECK="python3 $HERE/export_check.py"
NE=127.0.0.1:19100
PROM=http://127.0.0.1:19090
ITERS=200
SIZE=8192
PORT_J=18711
PORT_D=18712
# 'ft"q\p' and a byte that is not UTF-8: a label to clean and escape;
# what qp show -j and the export make of it
HOSTILE=$'ft"q\\p\xff'
export WANT_COMM=$'ft"q\\p\xef\xbf\xbd'

# A fresh module: no entry of an earlier test may be forgotten while this
# one compares the export with qp show (cong_init: retain_ms 600000).
rmmod fabtrace 2>/dev/null || true
cong_init export
O=$CONG_OUT
L=$(mktemp -d)			# local, not the 9p share: mounts, TSDB, state
TF=$L/textfile			# node_exporter's textfile directory
S=$L/export.state
CG=/sys/fs/cgroup/ftexport.slice
mkdir -p "$TF" "$O/run"

# stop PID...: these background jobs of the test, now (bg_add: at the end)
stop() {
	local p

	for p in "$@"; do
		kill "$p" 2>/dev/null && wait "$p" 2>/dev/null || true
	done
}

# (after cong_init's cleanup was added: this one runs first)
cleanup() {
	cp "$S" "$O/export.state" 2>/dev/null
	umount "$L/ro" "$L/full" 2>/dev/null
	rmdir "$CG" 2>/dev/null
	rm -f /var/lib/prometheus/node-exporter/fabtrace.prom
	[ -d /sys/module/fabtrace ] || modprobe fabtrace
	fabtrace policy set dev rxe0 trust pcp 2>/dev/null
	rm -rf "$L"
}
at_exit cleanup

ktap_plan 30

# hold N FILE: ft_qps holding N unconnected QPs; its pid in HELD once they exist
hold() {
	local fifo=$L/fifo.$1

	mkfifo "$fifo"
	"$FT_PROGS/ft_qps" -d rxe0 --no-connect -n "$1" --srq --hold --summary \
		--timeout-s 400 --comm ft_hold >"$fifo" 2>"$O/hold.$1.err" </dev/null &
	HELD=$!
	bg_add "$HELD"
	read -r json <"$fifo" && echo "$json" >"$2"
	rm -f "$fifo"
	jq -e ".nqps == $1" "$2" >/dev/null
}

# A's priorities by DSCP (26 -> 3), for two groups on one peer
run fabtrace policy set dev rxe0 trust dscp
hold 1000 "$O/hold1000.json"
hold1=$HELD
ktap_assert "1,000 QPs held (ft_qps --no-connect --hold)" jq -e '.nqps == 1000' "$O/hold1000.json"

# ---- node_exporter and Prometheus on loopback --------------------------
cat >"$O/prometheus.yml" <<EOF
global:
  scrape_interval: 2s
  scrape_timeout: 2s
  evaluation_interval: 2s
rule_files:
  - $FT_REPO/Documentation/prometheus/fabtrace.rules.yml
scrape_configs:
  - job_name: node
    static_configs:
      - targets: ['$NE']
EOF
PROMETHEUS=0
if kindep_here; then
	PROMETHEUS=1
	prometheus-node-exporter --web.listen-address="$NE" --collector.disable-defaults \
		--collector.textfile --collector.textfile.directory="$TF" >"$O/node_exporter.log" 2>&1 &
	ne=$!
	bg_add "$ne"
	prometheus --config.file="$O/prometheus.yml" --storage.tsdb.path="$L/tsdb" \
		--web.listen-address="${PROM#http://}" --log.level=warn >"$O/prometheus.log" 2>&1 &
	prom=$!
	bg_add "$prom"
	up() { $CHECK get "http://$NE/metrics" >/dev/null && $CHECK get "$PROM/-/ready" >/dev/null; }
	ktap_assert "prometheus-node-exporter and Prometheus up on loopback" wait_for 90 up
	# Each series' last sample scraped: under TCG a scrape can outlast its
	# timeout, and Prometheus then marks every series of the target stale
	# until the next one succeeds; an instant query would see nothing.
	last() { echo "last_over_time($1[5m])"; }
	# dev_scraped N: Prometheus holds N as the device's received packets
	dev_scraped() {
		$CHECK query "$PROM" "$(last "fabtrace_device_rx_packets_total{device=\"rxe0\"}")" "$1" >/dev/null
	}
	prom_up=$SECONDS
	log "${SECONDS}s: Prometheus up"
else
	ktap_skip "prometheus-node-exporter and Prometheus up on loopback" "$KINDEP_WHY"
fi

# ---- traffic with congestion, exported every second ------------------------
export_loop() {
	local i=0

	while [ ! -e "$L/stop" ]; do
		i=$((i + 1))
		fabtrace export dir "$TF" state "$S" 2>>"$O/run/errors" || echo "run $i failed" >>"$O/run/errors"
		cp "$TF/fabtrace.prom" "$O/run/$i.prom" 2>/dev/null
		sleep 1
	done
}
: >"$O/run/errors"
# A rate needs a sample from before the traffic: on an idle host the
# traffic can end within one scrape interval.
if [ "$PROMETHEUS" = 1 ]; then
	fabtrace export dir "$TF" state "$S"
	rx0=$(sed -n 's/^fabtrace_device_rx_packets_total{device="rxe0"} //p' "$TF/fabtrace.prom")
	ktap_assert "Prometheus scraped the device before the traffic ($rx0 packets)" \
		wait_for 60 dev_scraped "$rx0"
else
	ktap_skip "Prometheus scraped the device before the traffic" "$KINDEP_WHY"
fi
export_loop &
loop=$!
bg_add "$loop"

ktap_assert "B: netem marks 5% of ECT(0) RoCE CE" cong_netem peer ect0 loss 5% ecn
mountpoint -q /sys/fs/cgroup || mount -t cgroup2 none /sys/fs/cgroup
mkdir -p "$CG"
common="--iters $ITERS --size $SIZE --op write --timeout-s 120"
# flow J: A's server in its own cgroup, hostile name, DSCP 0 (prio 0)
( echo "$BASHPID" >"$CG/cgroup.procs" &&
	exec "$FT_PROGS/ft_qps" --server -p $PORT_J -n 2 --tclass 0 --comm "$HOSTILE" $common \
	>"$O/j_srv.json" 2>"$O/j_srv.err" ) &
j_srv=$!
# flow D: DSCP 26 (prio 3)
"$FT_PROGS/ft_qps" --server -p $PORT_D -n 2 --tclass $((26 << 2)) $common \
	>"$O/d_srv.json" 2>"$O/d_srv.err" &
d_srv=$!
bg_add $j_srv $d_srv
# B's clients: ECT(0), so netem marks them
peer "$FT_PROGS/ft_qps --peer $FT_CTL_IP -p $PORT_J -n 2 --tclass 2 $common" \
	>"$O/j_cli.json" 2>"$O/j_cli.err" &
j_cli=$!
peer "$FT_PROGS/ft_qps --peer $FT_CTL_IP -p $PORT_D -n 2 --tclass $(((26 << 2) | 2)) $common" \
	>"$O/d_cli.json" 2>"$O/d_cli.err" &
d_cli=$!
bg_add $j_cli $d_cli
rc=0
for p in $j_srv $d_srv $j_cli $d_cli; do
	wait "$p" || rc=1
done
log "${SECONDS}s: traffic done"
sleep 2				# two more exports after the traffic
touch "$L/stop"			# the loop ends after the export under way
wait "$loop"
marks=$(cong_netem_drops peer 2>/dev/null || echo ?)
cong_netem_del peer
for f in j_srv j_cli d_srv d_cli; do
	log "$f: $(jq -c '{role, nqps, tclass, total_ops, error}' "$O/$f.json" 2>/dev/null) $(tr '\n' ' ' <"$O/$f.err")"
done
# rxe's responder on 6.1 now and then refuses a well-formed request
# (cong_ecn.sh): the QPs that saw it are in error, which the export counts
# too; the traffic and the CE marks before it are what this test needs.
if [ "$rc" != 0 ] && grep -q "remote invalid request error" "$O"/*_cli.err; then
	log "a client met rxe's remote invalid request error: its QPs are in error"
	rc=0
fi
ktap_result "flows J and D ran (servers on A, clients on B)" test "$rc" = 0
cong_qps self "$O/qps_traffic.json"
ce=$(jq '[.[] | .cong.rx_ce] | add' "$O/qps_traffic.json")
log "CE marks counted on A: $ce (netem marked $marks)"
ktap_assert "congestion: A's QPs counted CE marks ($ce)" test "$ce" -gt 0

mapfile -t runs < <(ls "$O/run"/*.prom | sort -V)
log "${#runs[@]} exports during the traffic; errors: $(head -c 300 "$O/run/errors")"
ktap_result "every export under traffic succeeded, no counter went down from one to the next" \
	eval '[ ! -s "$O/run/errors" ] && [ ${#runs[@]} -ge 3 ] && $CHECK monotonic "${runs[@]}"'

# ---- a quiet moment: the export against qp show and dev show -----------------
# totals FILE: the traffic totals of dev show, as one line
totals() { jq -c '[.[] | {name, tx, rx}]' "$1"; }
quiet=1
for _ in 1 2 3 4 5; do
	fabtrace -j dev show >"$O/dev0.json"
	fabtrace export dir "$TF" state "$S" && cp "$TF/fabtrace.prom" "$O/quiet.prom"
	fabtrace -j qp show >"$O/qps.json"
	fabtrace -j dev show >"$O/dev1.json"
	[ "$(totals "$O/dev0.json")" = "$(totals "$O/dev1.json")" ] && { quiet=0; break; }
	log "the node was not quiet: again"
	sleep 1
done
ktap_assert "the node quiet: dev show the same before and after the export" test $quiet = 0
rc=0
out=$(promtool check metrics <"$O/quiet.prom" 2>&1) || rc=$?
[ -z "$out" ] || { sed 's/^/# /' <<<"$out"; rc=1; }
ktap_result "promtool check metrics accepts the exposition, silently ($(grep -vc '^#' "$O/quiet.prom") series)" \
	test $rc = 0
ktap_result "the groups add up to the device totals exactly" $CHECK sums "$O/quiet.prom"
ktap_result "groups, other, device totals and top QPs == qp show and dev show" \
	$CHECK match "$O/quiet.prom" "$O/qps.json" "$O/dev1.json" owner
nqps=$(jq length "$O/qps.json")
ktap_result "$nqps QPs: series under the stated bound" $CHECK bound "$O/quiet.prom" 1 1 100 20

# ---- by cgroup ----------------------------------------------------------------------
fabtrace -j export by cgroup file "$O/cg.prom" state "$L/cg.state" >"$O/cg.json"
ktap_result "by cgroup: groups, other, totals == qp show and dev show; -j says what it wrote" \
	eval '$CHECK match "$O/cg.prom" "$O/qps.json" "$O/dev1.json" cgroup &&
	      py "a[\"path\"] == \"$O/cg.prom\" and a[\"by\"] == \"cgroup\" and a[\"consistent\"] and
		  a[\"series\"] == $(grep -vc "^#" "$O/cg.prom") <= a[\"max_series\"]" "$O/cg.json"'
fabtrace -j qp show cgroup /ftexport.slice >"$O/qps_cg.json"
fabtrace -j qp show cgroup /ftexport.sl >"$O/qps_cg_prefix.json"
ktap_result "qp show cgroup /ftexport.slice: flow J's server QPs, and /ftexport.sl none" \
	py "sorted(q['qpn'] for q in a) == sorted(q['qpn'] for q in b['qps']) and
	    all(q['cgroup'] == '/ftexport.slice' and q['comm'] == __import__('os').environ['WANT_COMM']
	        for q in a)
	    and c == []" "$O/qps_cg.json" "$O/j_srv.json" "$O/qps_cg_prefix.json"
# Readers in cgroup namespaces of their own (unshare -C roots one at the
# reader's cgroup): one rooted at a sibling learns neither flow J's cgroup
# nor its id; one rooted at J's cgroup sees it as "/", with the same id.
CG2=/sys/fs/cgroup/ftother.slice
mkdir -p "$CG2"
( echo "$BASHPID" >"$CG2/cgroup.procs" && exec unshare -C fabtrace -j qp show dev rxe0 ) \
	>"$O/qps_cgns_other.json"
( echo "$BASHPID" >"$CG/cgroup.procs" && exec unshare -C fabtrace -j qp show dev rxe0 ) \
	>"$O/qps_cgns_own.json"
rmdir "$CG2"
# J: flow J's server QPs in a dump (a) of rxe0, as its ft_qps (b) lists them
J="[q for q in a if q['qpn'] in [x['qpn'] for x in b['qps']]]"
ktap_result "cgroup namespace rooted elsewhere: flow J's QPs without cgroup or cgroup_id" \
	py "len($J) == len(b['qps']) > 0 and
	    all('cgroup' not in q and 'cgroup_id' not in q for q in $J)" \
	"$O/qps_cgns_other.json" "$O/j_srv.json"
ktap_result "cgroup namespace rooted at flow J's cgroup: its QPs' cgroup is /, the same id" \
	py "len($J) == len(b['qps']) > 0 and
	    all(q.get('cgroup') == '/' and
	        [r.get('cgroup_id') for r in c if r['dev'] == 'rxe0' and r['qpn'] == q['qpn']] ==
	        [q.get('cgroup_id')] for q in $J)" \
	"$O/qps_cgns_own.json" "$O/j_srv.json" "$O/qps.json"
# the job's cgroup goes: its retained QPs lose their path, not their group
rmdir "$CG"
fabtrace -j qp show >"$O/qps_nocg.json"
fabtrace export by cgroup file "$O/cg2.prom" state "$L/cg.state"
ktap_result "cgroup removed: qp show has only its id, the export keeps its path and values" \
	eval 'py "all(\"cgroup\" not in q and \"cgroup_id\" in q for q in a if q[\"qpn\"] in [x[\"qpn\"] for x in b[\"qps\"]] and q[\"dev\"] == \"rxe0\")" "$O/qps_nocg.json" "$O/j_srv.json" &&
	      grep -q "^fabtrace_qps_rx_ce_packets_total{device=\"rxe0\",cgroup=\"/ftexport.slice\"} " "$O/cg2.prom" &&
	      $CHECK monotonic "$O/cg.prom" "$O/cg2.prom"'

log "${SECONDS}s: exports checked"
# ---- what Prometheus has ------------------------------------------------------------
if [ "$PROMETHEUS" = 1 ]; then
	rx=$(sed -n 's/^fabtrace_device_rx_packets_total{device="rxe0"} //p' "$O/quiet.prom")
	ce_all=$(jq '[.[] | select(.dev == "rxe0") | .cong.rx_ce] | add' "$O/qps.json")
	wait_for 30 dev_scraped "$rx" || true
	ktap_result "Prometheus: fabtrace_device_rx_packets_total == the exposition ($rx)" \
		$CHECK query "$PROM" "$(last "fabtrace_device_rx_packets_total{device=\"rxe0\"}")" "$rx"
	ktap_result "Prometheus: the groups' sum == the device total, CE == qp show ($ce_all)" \
		eval '$CHECK query "$PROM" "sum($(last "fabtrace_qps_rx_packets_total{device=\"rxe0\"}"))" "$rx" &&
		      $CHECK query "$PROM" "sum($(last "fabtrace_qps_rx_ce_packets_total{device=\"rxe0\"}"))" "$ce_all"'
	# how many scrapes succeeded (up) of those tried, for the log
	$CHECK query "$PROM" "sum_over_time(up{job=\"node\"}[10m])" || true
	$CHECK query "$PROM" "count_over_time(up{job=\"node\"}[10m])" || true
	# The device's series was scraped before the traffic began; a group's may
	# only appear once its QPs already counted their CE marks. The window
	# spans Prometheus' whole life: on a loaded host the checks above can
	# outlast five minutes, and a 5m rate then sees only the quiet end.
	# rated WINDOW: a packet rate > 0 over WINDOW, and the rules' series
	rated() {
		$CHECK query "$PROM" "sum(rate(fabtrace_device_rx_packets_total{device=\"rxe0\"}[$1])) > 0" &&
			$CHECK query "$PROM" "count($(last "group:fabtrace_qps_rx_ce_packets:rate5m"))"
	}
	ktap_result "Prometheus: a packet rate over the traffic, and the recorded rules' series" \
		rated "$((SECONDS - prom_up + 30))s"
	ktap_result "node_exporter: textfile read without error, the target up" \
		eval '$CHECK query "$PROM" "$(last node_textfile_scrape_error)" 0 &&
		      $CHECK query "$PROM" "max_over_time(up{job=\"node\"}[1m])" 1'
	stop "$prom" "$ne"
	left=$(pgrep -a -x prometheus; pgrep -a -f 'prometheus-node-exporter' || true)
	ktap_result "Prometheus and node_exporter stopped, no process left" \
		eval '! kill -0 "$prom" 2>/dev/null && ! kill -0 "$ne" 2>/dev/null && [ -z "$left" ]'
	[ -z "$left" ] || log "left: $left"
else
	ktap_skip "Prometheus: fabtrace_device_rx_packets_total == the exposition" "$KINDEP_WHY"
	ktap_skip "Prometheus: the groups' sum == the device total, CE == qp show" "$KINDEP_WHY"
	ktap_skip "Prometheus: a packet rate over the traffic, and the recorded rules' series" "$KINDEP_WHY"
	ktap_skip "node_exporter: textfile read without error, the target up" "$KINDEP_WHY"
	ktap_skip "Prometheus and node_exporter stopped, no process left" "$KINDEP_WHY"
fi

log "${SECONDS}s: Prometheus checked"
# ---- 10,000 QPs more ---------------------------------------------------------------
t0=$SECONDS
hold 10000 "$O/hold10000.json" || log "ft_qps: $(tail -n 3 "$O/hold.10000.err")"
hold2=$HELD
log "10,000 QPs held in $((SECONDS - t0)) s"
t0=$SECONDS
fabtrace export file "$O/big.prom" state "$S"
log "export of $(sed -n 's/^fabtrace_export_qps //p' "$O/big.prom") QP entries in $((SECONDS - t0)) s:" \
	"$(grep -vc '^#' "$O/big.prom") series"
rc=0
out=$(promtool check metrics <"$O/big.prom" 2>&1) || rc=$?
[ -z "$out" ] || { sed 's/^/# /' <<<"$out"; rc=1; }
ktap_result "11,000 QPs: promtool check metrics accepts the exposition" test $rc = 0
ktap_result "11,000 QPs: series under the bound, groups add up to the totals" \
	eval '$CHECK bound "$O/big.prom" 1 1 100 20 && $CHECK sums "$O/big.prom"'
stop "$hold2" "$hold1"

# ---- Debian's textfile directory ----------------------------------------------------
fabtrace export textfile state "$L/tf.state"
ktap_result "textfile: /var/lib/prometheus/node-exporter/fabtrace.prom, promtool accepts it" \
	eval 'promtool check metrics </var/lib/prometheus/node-exporter/fabtrace.prom'
rm -f /var/lib/prometheus/node-exporter/fabtrace.prom

# ---- bad input -----------------------------------------------------------------------
# fails DESC MESSAGE DIR ARGS...: exit 1, MESSAGE on one line of stderr,
# DIR holding only what it held before (names and fabtrace.prom's content)
fails() {
	local desc=$1 msg=$2 dir=$3 before after rc=0

	shift 3
	before=$(ls -A "$dir"; { cat "$dir/fabtrace.prom" 2>/dev/null || true; } | md5sum)
	"$@" >"$L/out" 2>"$L/err" || rc=$?
	after=$(ls -A "$dir"; { cat "$dir/fabtrace.prom" 2>/dev/null || true; } | md5sum)
	log "$* -> exit $rc: $(cat "$L/err")"
	[ "$rc" = 1 ] && [ "$(wc -l <"$L/err")" = 1 ] && grep -qF -- "$msg" "$L/err" &&
		[ ! -s "$L/out" ] && [ "$before" = "$after" ] && rc=ok
	ktap_result "$desc" test "$rc" = ok
}
mkdir -m 0755 "$L/rootonly"
fails "a directory the user cannot write: Permission denied, nothing left" \
	"cannot create a file in $L/rootonly: Permission denied" "$L/rootonly" \
	setpriv --reuid=65534 --regid=65534 --clear-groups fabtrace export dir "$L/rootonly" state none
mkdir "$L/ro" "$L/full"
mount -t tmpfs -o size=64k tmpfs "$L/ro" && mount -o remount,ro "$L/ro"
fails "a read-only file system: EROFS, nothing left" \
	"cannot create a file in $L/ro: Read-only file system" "$L/ro" \
	fabtrace export dir "$L/ro" state none
mount -t tmpfs -o size=16k tmpfs "$L/full" && echo "# the previous export" >"$L/full/fabtrace.prom"
fails "a full disk (16 KiB tmpfs): ENOSPC, the old file as it was, no temporary file" \
	"cannot write $L/full/fabtrace.prom: No space left on device" "$L/full" \
	fabtrace export dir "$L/full" state none
fabtrace export dir "$TF" state "$S"
lt0=$(sed -n 's/^load_time //p' "$S")
rmmod fabtrace
fails "the module unloaded: the message, the textfile untouched" \
	"kernel module not loaded (run: modprobe fabtrace)" "$TF" \
	fabtrace export dir "$TF" state "$S"
modprobe fabtrace
rc=0
fabtrace export dir "$TF" state "$S" || rc=$?
lt1=$(sed -n 's/^load_time //p' "$S")
log "state load_time $lt0 -> $lt1"
ktap_result "reloaded: the export succeeds, its state starts over at the new load time" \
	eval '[ $rc = 0 ] && [ -n "$lt1" ] && [ "$lt1" != "$lt0" ] && $CHECK sums "$TF/fabtrace.prom"'
ktap_finished
