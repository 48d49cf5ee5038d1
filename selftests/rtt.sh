#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Round trips: each RC QP's RTT from its own packets, against perftest's latency and netem's delay.
# timeout=400
#
# A reads from B with ib_read_lat (one READ in flight: each is timed),
# three times:
#   base   no qdisc: A's QP has a sample for each READ request it sent
#          once (tshark, A's capture) and at most one a READ, 90 % of the
#          reads at least; its median bucket holds perftest's median or
#          lies below it (fabtrace times tap to tap, perftest post to
#          completion, both hosts' software included: never more than
#          perftest's), and B's QP has an ack delay, its share, below
#          A's round trip;
#   delay  netem delay D (10 ms) on B's RoCE egress: every sample of the
#          new QP is at least D (min_ns >= D), its srtt is the base's plus
#          D within 3 ms + 4 x the base's rttvar (TCG's noise, and the
#          spread RFC 6298 allows about srtt), its samples' mode is D's bucket (4-16 ms), and B's ack
#          delay stays below D (the wire's delay is not the responder's);
#   loss   delay D and 10 % loss on B's egress, an ACK timeout of 67 ms
#          (-u 14): A sends READs again (tshark), and none is timed
#          across its copy (Karn): a sample for each READ sent once, at
#          most one a READ, min_ns >= D, and the device's histogram gained
#          no sample of 65.5 ms or more (one timed across a retransmission
#          would hold the timeout).
# The device's fine histogram counts every sample of its QPs: over each
# run it gains the run's QP's samples.
set -euo pipefail
HERE=$(dirname "$(readlink -f "$0")")
. "$HERE/lib.sh"
. "$HERE/lib-cong.sh"

D_MS=10
N_BASE=400
N_DELAY=80
N_LOSS=80
LAT_ARGS="-d rxe0 -x 1 -F -s 64"

cong_init rtt
O=$CONG_OUT
require_cmd ib_read_lat
[ -n "$(fabtrace -j dev show rxe0 | jq '.[0].rtt // empty')" ] ||
	skip_all "the module does not time round trips (loaded with rtt=0?)"
ktap_plan 20

# lat NAME N [ARGS]: ib_read_lat from A to B, N reads; A's and B's QPs after it
lat() {
	local name=$1 n=$2 srv

	shift 2
	peer -t 120 "timeout 110 ib_read_lat $LAT_ARGS -n $n $*" >"$O/$name.srv" 2>&1 &
	srv=$!
	bg_add "$srv"
	wait_for 60 perftest_listening || { cat "$O/$name.srv"; return 1; }
	fabtrace -j dev show rxe0 >"$O/$name.dev0.json"
	cap_start "$O/$name.pcap" "${CONG_CAP[@]}" -- udp dst port 4791 and dst host "$FT_PEER_IP" ||
		return 1
	timeout 110 ib_read_lat $LAT_ARGS -n "$n" "$@" "$FT_PEER_IP" >"$O/$name.cli" 2>&1 ||
		{ cat "$O/$name.cli"; cap_stop "$O/$name.pcap"; return 1; }
	wait "$srv" || true
	cap_stop "$O/$name.pcap" || log "tcpdump did not end well"
	# the PSN of each READ request A sent, as tshark decodes them
	tshark -n -r "$O/$name.pcap" -Y "infiniband.bth.opcode == 12" -T fields \
		-e infiniband.bth.psn 2>/dev/null | sort >"$O/$name.psns"
	fabtrace -j qp show >"$O/$name.a.json"
	peer "fabtrace -j qp show" >"$O/$name.b.json"
	fabtrace -j dev show rxe0 >"$O/$name.dev.json"
}

# once NAME: the READ requests A sent of run NAME that it never sent
# again, as tshark decodes A's capture (distinct PSNs seen once)
once() { uniq -c "$O/$1.psns" | awk '$1 == 1' | wc -l; }
# reads NAME: the READ requests A sent of run NAME (distinct PSNs)
reads() { uniq "$O/$1.psns" | wc -l; }
# again NAME: those it sent more than once
again() { uniq -c "$O/$1.psns" | awk '$1 > 1' | wc -l; }

# perftest's typical (median) latency of run NAME, in ns
typical() { awk '$1 == 64 && NF >= 5 { printf "%d\n", $5 * 1000 }' "$O/$1.cli"; }

# q FILE EXPR: EXPR of the newest ib_read_lat RC QP in a qp show -j FILE
q() {
	jq -r "[.[] | select(.comm == \"ib_read_lat\" and .type == \"rc\")] |
		max_by(.create_time) | $2" "$1"
}

# median BUCKETS BOUNDS: the upper bound (ns) of the bucket holding the median sample
median_le() {
	python3 - "$1" <<'EOF'
import json, sys
r = json.loads(sys.argv[1])
n, c = sum(r["buckets"]), 0
for i, k in enumerate(r["buckets"]):
    c += k
    if 2 * c >= n:
        print(r["bounds_ns"][i] if i < len(r["bounds_ns"]) else 2**63)
        break
EOF
}

# ---- base ------------------------------------------------------------------------

cong_netem_del peer
ktap_assert "base: ib_read_lat -n $N_BASE from A to B" lat base $N_BASE
t=$(typical base)
a_n=$(q "$O/base.a.json" .rtt.samples)
a_srtt=$(q "$O/base.a.json" .rtt.srtt_ns)
a_rtt=$(q "$O/base.a.json" .rtt)
log "perftest typical $t ns; fabtrace: $(q "$O/base.a.json" '.rtt | del(.bounds_ns) | tojson')"
log "B: $(q "$O/base.b.json" '.rtt | {samples, ack_delay_ns} | tojson')"
# one READ in flight, timed from its request to its response: a sample
# for each request sent once, at most one for each request (one sent
# again after its answer came, as 6.1's rxe does now and then, was timed
# before)
samples_ok() { [ "$(once "$1")" -le "$2" ] && [ "$2" -le "$(reads "$1")" ]; }
ktap_result "base: A's QP has a sample for each READ sent once, at most one a READ (tshark: $(once base) once of $(reads base); $a_n)" \
	samples_ok base "$a_n"
cong_le "base: ... for all but 10 % of the reads" "$((N_BASE * 9 / 10))" "$a_n"
# the bucket of fabtrace's median reaches perftest's median or lies below
# it: never more than post-to-completion
ml=$(median_le "$a_rtt")
lo=$(python3 -c "print($ml // 4)")
ktap_result "base: fabtrace's median bucket (below $ml ns) holds or lies below perftest's median ($t ns)" \
	python3 -c "import sys; sys.exit(not ($t >= $lo))"
b_ad=$(q "$O/base.b.json" '.rtt.ack_delay_ns // 0')
ktap_result "base: B's QP has an ack delay ($b_ad ns), below A's srtt ($a_srtt ns)" \
	test "$b_ad" -gt 0 -a "$b_ad" -lt "$a_srtt"
# the device's samples gained over run NAME (its histogram, since load,
# holds earlier tests' QPs too, some no longer retained)
dev_gain() { echo $(($(jq '.[0].rtt.buckets | add' "$O/$1.dev.json") - $(jq '.[0].rtt.buckets | add' "$O/$1.dev0.json"))); }
cong_eq "base: the device's histogram gained the run's QP's samples" "$(dev_gain base)" "$a_n"

# ---- delay ------------------------------------------------------------------------

D=$((D_MS * 1000000))
ktap_assert "delay: netem delay ${D_MS}ms on B's RoCE egress" cong_netem peer roce delay ${D_MS}ms
ktap_assert "delay: ib_read_lat -n $N_DELAY" lat delay $N_DELAY
log "perftest typical $(typical delay) ns; fabtrace: $(q "$O/delay.a.json" '.rtt | del(.bounds_ns) | tojson')"
d_n=$(q "$O/delay.a.json" .rtt.samples)
ktap_result "delay: a sample for each READ sent once, at most one a READ (tshark: $(once delay) once of $(reads delay); $d_n)" \
	samples_ok delay "$d_n"
d_min=$(q "$O/delay.a.json" .rtt.min_ns)
d_srtt=$(q "$O/delay.a.json" .rtt.srtt_ns)
cong_le "delay: every sample at least D (min_ns)" "$D" "$d_min"
# TCG's scheduling noise: 3 ms, plus the spread RFC 6298 allows a round
# trip about its mean (4 x rttvar, the base's)
a_var=$(q "$O/base.a.json" .rtt.rttvar_ns)
tol=$((3000000 + 4 * a_var))
ktap_result "delay: srtt ($d_srtt ns) is the base's ($a_srtt ns) + D within $tol ns" \
	test $((d_srtt - a_srtt - D)) -le "$tol" -a $((d_srtt - a_srtt - D)) -ge "-$tol"
mode() { q "$1" '.rtt.buckets | to_entries | max_by(.value) | .key'; }
cong_eq "delay: the samples' mode is D's bucket (4.1-16.4 ms, the 6th)" "$(mode "$O/delay.a.json")" 5
d_ad=$(q "$O/delay.b.json" '.rtt.ack_delay_ns // 0')
ktap_result "delay: B's ack delay ($d_ad ns) stays below D: the wire's delay is not the responder's" \
	test "$d_ad" -gt 0 -a "$d_ad" -lt "$D"
cong_eq "delay: the device's histogram gained the run's QP's samples" "$(dev_gain delay)" "$d_n"

# ---- loss --------------------------------------------------------------------------

ktap_assert "loss: netem delay ${D_MS}ms loss 10% on B's RoCE egress" \
	cong_netem_change peer delay ${D_MS}ms loss 10%
ktap_assert "loss: ib_read_lat -n $N_LOSS -u 14" lat loss $N_LOSS -u 14
log "fabtrace: $(q "$O/loss.a.json" '{rtt: (.rtt | del(.bounds_ns)), retransmits: .cong.retransmits} | tojson')"
l_n=$(q "$O/loss.a.json" .rtt.samples)
l_again=$(again loss)
log "A retransmitted $(q "$O/loss.a.json" .cong.retransmits) packets, $l_again READs (tshark)"
cong_gt "loss: A sent READs again (tshark)" "$l_again" 0
ktap_result "loss: a sample for each READ sent once, at most one a READ (tshark: $(once loss) once of $(reads loss); $l_n)" \
	samples_ok loss "$l_n"
cong_le "loss: every sample at least D (min_ns)" "$D" "$(q "$O/loss.a.json" .rtt.min_ns)"
# the device's samples of 65.5 ms and more (its buckets from 17 on), gained in the loss run
long() { jq '.[0].rtt.buckets[17:] | add' "$O/$1.dev.json"; }
cong_eq "loss: no sample of 65.5 ms or more (none across a 67 ms timeout)" \
	"$(($(long loss) - $(long delay)))" 0
cong_netem_del peer
ktap_finished
