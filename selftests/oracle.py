#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The oracles of the per-QP accounting selftests: what fabtrace counted
against what it does not control (rxe's own counters, the applications'
reports, the peer node, the wire as tshark decodes it), and the checks of
the retention, filter, schema, PID namespace and reset tests.

lib.sh's oracle runs it (and cap_tsv, cap_summary); test_oracle.py tests
it on recorded data (make check).  Every check
subcommand prints "# [KEY] ok|FAIL: what it compared" with the differences
under it, and writes "KEY ok|fail" lines to --out for or_ok to read.

  oracle.py check ...          a traffic pattern: snapshots a0 a1 b0 b1,
                               spec, capture (TSV), live samples
  oracle.py spec-perftest ...  what a perftest run must show (its logs)
  oracle.py spec-ftqps ...     the same for ft_qps (its JSON)
  oracle.py spec-rping ...     the same for rping (the capture's CM MADs)
  oracle.py cm --tsv TSV       the CM MADs of a capture, for the log
  oracle.py overflow|retain|filters|schema|pidns|reset|resumed ...
                               the other tests' checks
  oracle.py pcap-summary --tsv TSV [--cuts CUTS]
                               per destination QP, what the capture holds
                               (JSON, for the congestion tests)
  oracle.py tsv PCAP TSV       tshark's decoding of a capture, one line per
                               frame, the fields of TSV_FIELDS in that order
  oracle.py json-lines FILE    every line of FILE is one JSON object
"""

import argparse
import json
import re
import subprocess
import sys

CLS = ("send", "write", "read_req", "read_resp", "atomic", "ack", "nak",
       "cnp", "other")
KEYS = ("packets", "bytes") + CLS
DIRS = ("tx", "rx")

# --- files ---

def load(path):
    with open(path) as f:
        return json.load(f)


def text(path):
    with open(path) as f:
        return f.read()


def lines(path):
    with open(path) as f:
        return f.readlines()


# --- the wire: BTH opcodes, written from the IBTA tables (not from kmod/) ---
# opcode -> (class, bytes of extended transport headers after the BTH)
OPS = {}
for t in (0x00, 0x20):                      # RC, UC
    for o, ext in ((0, 0), (1, 0), (2, 0), (3, 4), (4, 0), (5, 4)):
        OPS[t | o] = ("send", ext)          # SEND first/middle/last(+imm)/only(+imm)
    for o, ext in ((6, 16), (7, 0), (8, 0), (9, 4), (10, 16), (11, 20)):
        OPS[t | o] = ("write", ext)         # WRITE first(RETH)/.../only imm(RETH+IMM)
OPS.update({
    0x0c: ("read_req", 16),                 # RETH
    0x0d: ("read_resp", 4), 0x0e: ("read_resp", 0),
    0x0f: ("read_resp", 4), 0x10: ("read_resp", 4),   # AETH on first/last/only
    0x11: ("ack", 4),                       # AETH; class nak by syndrome
    0x12: ("atomic", 12),                   # AETH + AtomicAckETH
    0x13: ("atomic", 28), 0x14: ("atomic", 28),       # AtomicETH
    0x16: ("send", 4), 0x17: ("send", 4),   # SEND with invalidate: IETH
    0x1c: ("other", 20),                    # FLUSH: FETH + RETH
    0x1d: ("atomic", 16),                   # ATOMIC WRITE: RETH
    0x64: ("send", 8), 0x65: ("send", 12),  # UD SEND only (+imm): DETH (+IMM)
    0x81: ("cnp", 16),                      # RoCEv2 CNP: 16 reserved bytes
})
UD_OPS = (0x64, 0x65)


def num(s):
    return int(s, 0) if s else None


def classify(op, syn):
    """class and extended-header bytes of a packet; None if not in the table"""
    if op not in OPS:
        return None
    cls, ext = OPS[op]
    if op == 0x11 and syn is not None and (syn >> 5) != 0:
        cls = "nak"                          # NAK or RNR NAK (or reserved)
    return cls, ext


# What cap_tsv (lib.sh) has tshark print of every frame, one line each, in
# this order; a frame the dissector did not take for InfiniBand shows up
# with its InfiniBand fields empty.
TSV_FIELDS = ("frame.number", "ip.src", "ip.dst", "udp.length",
              "infiniband.bth.opcode", "infiniband.bth.destqp",
              "infiniband.bth.padcnt", "infiniband.aeth.syndrome",
              "infiniband.deth.srcqp", "infiniband.mad.attributeid",
              "infiniband.cm.req.localqpn", "infiniband.cm.rep.localqpn",
              "infiniband.bth.psn", "frame.time_epoch", "ip.dsfield.ecn")


def tshark_tsv(pcap, tsv):
    """tshark's decoding of a capture, as TSV_FIELDS; its messages go to
    TSV.err.  Returns tshark's exit status."""
    cmd = ["tshark", "-n", "-r", pcap, "-T", "fields", "-E", "occurrence=f",
           "-E", "separator=/t"]
    for f in TSV_FIELDS:
        cmd += ["-e", f]
    with open(tsv, "w") as out, open(tsv + ".err", "w") as err:
        return subprocess.call(cmd, stdout=out, stderr=err)


def read_tsv(path):
    rows = []
    for line in lines(path):
        f = line.rstrip("\n").split("\t")
        f += [""] * (len(TSV_FIELDS) - len(f))
        rows.append({
            "frame": int(f[0]), "src": f[1], "dst": f[2], "udplen": num(f[3]),
            "op": num(f[4]), "destqp": num(f[5]), "pad": num(f[6]) or 0,
            "syn": num(f[7]), "srcqp": num(f[8]), "attr": num(f[9]),
            "req_qpn": num(f[10]), "rep_qpn": num(f[11]), "psn": num(f[12]),
            "ns": int(f[13].replace(".", "")) if f[13] else None,
            "epoch": float(f[13]) if f[13] else None, "ecn": num(f[14])})
    return rows


def payload(r, ext):
    """frame r's payload: the UDP length less UDP header, BTH, the
    extended headers (ext bytes), ICRC and pad"""
    return r["udplen"] - 8 - 12 - ext - 4 - r["pad"]


class Late:
    """Received frames for a QP of a node that was destroyed before they
    arrived (a peer's retransmission racing the teardown): rxe drops them
    uncounted, fabtrace counts them as unknown_rx.  frames: {frame: qpn};
    tot: their totals by class as the device counts them; byqp: the same
    by QP.  Empty unless found by late_frames()."""
    def __init__(self):
        self.frames, self.tot, self.byqp = {}, {k: 0 for k in KEYS}, {}


def late_frames(n, rows, self_ip):
    """the Late frames of node n among the capture's rows; capture and
    destroy time are both the node's real-time clock"""
    late = Late()
    for r in rows:
        e = n.qp.get(r["destqp"]) if r["dst"] == self_ip else None
        dt = e and e["q"].get("destroy_time")
        c = classify(r["op"], r["syn"]) if r["op"] is not None else None
        if not dt or r["ns"] is None or r["ns"] <= dt or c is None:
            continue
        late.frames[r["frame"]] = r["destqp"]
        for t in (late.tot, late.byqp.setdefault(r["destqp"], {k: 0 for k in KEYS})):
            t["packets"] += 1
            t[c[0]] += 1
            t["bytes"] += payload(r, c[1])
    return late




# --- fabtrace snapshots ---

def same_qp(a, b):
    """the same entry in two dumps: QP number, and creation within 1 ms
    (create_time is converted to the epoch at each read, so it moves by
    microseconds between reads)"""
    return a["qpn"] == b["qpn"] and abs(a["create_time"] - b["create_time"]) < 1000000


CONG = ("retransmits", "rx_dup", "rx_oos")
NAKS = ("psn_seq", "rnr", "rem_access", "inv_req", "rem_op", "other")


def zero():
    z = {d: {k: 0 for k in KEYS} for d in DIRS}
    z["cong"] = {k: 0 for k in CONG}
    z["tx_nak"] = {k: 0 for k in NAKS}
    z["rx_nak"] = {k: 0 for k in NAKS}
    return z


def psn_diff(a, b):
    d = (a - b) & 0xffffff
    return d - 0x1000000 if d >= 0x800000 else d


def nak_code(syn):
    if syn >> 5 == 1:
        return "rnr"
    if syn >> 5 == 3:
        return {0: "psn_seq", 1: "inv_req", 2: "rem_access", 3: "rem_op"}.get(syn & 0x1f, "other")
    return "other"


def deltas(s0, s1, errs):
    """per QP entry of s1: counters since s0 (entries new in s1: all of them)"""
    out, new, before = {}, [], {}
    for p in s0["qps"]:
        before.setdefault(p["qpn"], []).append(p)
    for q in s1["qps"]:
        old = [p for p in before.get(q["qpn"], []) if same_qp(p, q)]
        d = zero()
        for dr in DIRS:
            for k in KEYS:
                d[dr][k] = q[dr][k] - (old[0][dr][k] if old else 0)
        for k in CONG:
            d["cong"][k] = q["cong"][k] - (old[0]["cong"][k] if old else 0)
        for n in ("tx_nak", "rx_nak"):
            for k in NAKS:
                d[n][k] = q["cong"][n][k] - (old[0]["cong"][n][k] if old else 0)
        if q["qpn"] in out:
            errs.append("QP %d listed twice in one dump" % q["qpn"])
        out[q["qpn"]] = {"q": q, "d": d}
        if not old:
            new.append(q["qpn"])
    for p in s0["qps"]:
        e = out.get(p["qpn"])
        if (not e or not same_qp(p, e["q"])) and "destroyed" not in p["flags"]:
            errs.append("live QP %d vanished between the snapshots" % p["qpn"])
    return out, sorted(new)


class Node:
    def __init__(self, name, f0, f1, errs):
        self.name = name
        self.s0, self.s1 = load(f0), load(f1)
        self.qp, self.new = deltas(self.s0, self.s1, errs)
        self.dev0, self.dev1 = self.s0["dev"][0], self.s1["dev"][0]
        self.rxe0, self.rxe1 = self.s0["rxe"][0], self.s1["rxe"][0]

    def rxe(self, k):
        return self.rxe1[k] - self.rxe0[k]

    def dev(self, dr, k):
        return self.dev1[dr][k] - self.dev0[dr][k]

    def devk(self, k):
        return self.dev1[k] - self.dev0[k]

    def total(self, dr, k):
        return sum(e["d"][dr][k] for e in self.qp.values())

    def drops(self, reason):
        """rxe's drops for REASON, as fabtrace counted them (0 where a
        device's drops are not counted)"""
        return self.dev1.get("rx_drops", {}).get(reason, 0) - self.dev0.get("rx_drops", {}).get(reason, 0)


def short_of(want, got):
    """by how many packets GOT falls short of WANT, when it is short in no
    key but packets, bytes and classes alike (None otherwise)"""
    if any(got[k] > want[k] for k in KEYS):
        return None
    return want["packets"] - got["packets"]


def fmt(t):
    return " ".join("%s=%d" % (k, t[k]) for k in KEYS if t[k] or k in ("packets", "bytes"))


class Results:
    def __init__(self):
        self.res = {}

    def add(self, key, errs, summary):
        ok = not errs
        self.res[key] = ok
        print("# [%s] %s: %s" % (key, "ok" if ok else "FAIL", summary))
        for e in errs[:40]:
            print("#   %s: %s" % (key, e))
        if len(errs) > 40:
            print("#   %s: ... and %d more" % (key, len(errs) - 40))

    def write(self, path):
        with open(path, "w") as f:
            for k, ok in self.res.items():
                f.write("%s %s\n" % (k, "ok" if ok else "fail"))


# --- oracle 1: rxe's own counters (rdma statistic) ---

def check_rdma(R, n, late=None):
    errs = []
    lt = (late or Late()).tot
    sent, rcvd = n.rxe("sent_pkts"), n.rxe("rcvd_pkts")
    qtx, qrx = n.total("tx", "packets"), n.total("rx", "packets")
    dtx, drx = n.dev("tx", "packets"), n.dev("rx", "packets")
    # rxe drops received CNPs before counting them; fabtrace counts them
    cnp = n.total("rx", "cnp")
    if qtx != sent:
        errs.append("sum of QP tx packets %d != sent_pkts delta %d (diff %d)" % (qtx, sent, qtx - sent))
    if qrx != rcvd + cnp:
        errs.append("sum of QP rx packets %d != rcvd_pkts delta %d + rx CNPs %d (diff %d)"
                    % (qrx, rcvd, cnp, qrx - rcvd - cnp))
    if dtx != sent:
        errs.append("device tx packets delta %d != sent_pkts delta %d" % (dtx, sent))
    if drx != rcvd + cnp + lt["packets"]:
        errs.append("device rx packets delta %d != rcvd_pkts delta %d + rx CNPs %d + late %d"
                    % (drx, rcvd, cnp, lt["packets"]))
    for k in ("unknown_tx", "unknown_rx", "malformed"):
        want = lt["packets"] if k == "unknown_rx" else 0
        if n.devk(k) != want:
            errs.append("device %s delta %d, expected %d" % (k, n.devk(k), want))
    # the device totals are the sum of the QPs (and the late packets), class by class
    for dr in DIRS:
        for k in KEYS:
            extra = lt[k] if dr == "rx" else 0
            if n.total(dr, k) + extra != n.dev(dr, k):
                errs.append("%s %s: sum over QPs %d + late %d != device delta %d"
                            % (dr, k, n.total(dr, k), extra, n.dev(dr, k)))
    for q, e in sorted(n.qp.items()):
        for dr in DIRS:
            s = sum(e["d"][dr][c] for c in CLS)
            if s != e["d"][dr]["packets"]:
                errs.append("QP %d %s: packets %d != sum of classes %d" % (q, dr, e["d"][dr]["packets"], s))
    R.add("rdma_" + n.name, errs,
          "node %s: QP sum tx %d rx %d, device tx %d rx %d, rxe sent_pkts +%d rcvd_pkts +%d, rx CNPs %d, "
          "unknown_rx +%d, late %d" % (n.name.upper(), qtx, qrx, dtx, drx, sent, rcvd, cnp,
                                        n.devk("unknown_rx"), lt["packets"]))


# --- module statistics ---

def check_stats(R, nodes, unknown=None):
    """unknown: by node name, the packets expected as unknown (late ones)"""
    errs = []
    parts = []
    for n in nodes:
        st = n.s1["stats"]
        for k in ("hook_missed", "malformed", "unknown", "overflow", "alloc_fail"):
            want = (unknown or {}).get(n.name, 0) if k == "unknown" else 0
            if st[k] != want:
                errs.append("node %s: stats %s = %d, expected %d" % (n.name.upper(), k, st[k], want))
        parts.append("%s hook_missed %d malformed %d unknown %d overflow %d"
                     % (n.name.upper(), st["hook_missed"], st["malformed"], st["unknown"], st["overflow"]))
    R.add("stats", errs, "; ".join(parts))


# --- the QPs the pattern created ---

def check_qpset(R, nodes, spec):
    errs = []
    for n in nodes:
        want = sorted(spec.get("new", {}).get(n.name, []))
        if n.new != want:
            errs.append("node %s: new QPs %s, the application reported %s" % (n.name.upper(), n.new, want))
    R.add("qpset", errs, "; ".join("%s %d new QPs" % (n.name.upper(), len(n.new)) for n in nodes))


# --- oracle 2: application bytes ---

def check_bytes(R, nodes, spec):
    errs = []
    by = {n.name: n for n in nodes}
    total = 0
    for node, qpn, dr, want in spec.get("bytes", []):
        e = by[node].qp.get(qpn)
        got = e["d"][dr]["bytes"] if e else None
        total += want
        if got != want:
            extra = ""
            if e:
                c = e["q"]["cong"]
                extra = " (retransmits %d, rx_dup %d)" % (c["retransmits"], c["rx_dup"])
            errs.append("node %s QP %d %s bytes %s != %d%s" % (node.upper(), qpn, dr, got, want, extra))
    R.add("bytes", errs, "%d per-QP byte counts checked (%s), %d bytes expected in all, %d differ"
          % (len(spec.get("bytes", [])), spec.get("bytes_src", "?"), total, len(errs)))


# --- oracle 3: the peer node ---

def check_peer(R, a, b, pairs, late=None):
    """late: what A received after the QP was destroyed, by QP and class"""
    errs = []
    tot = {"ab": 0, "ba": 0}
    short = {"ab": 0, "ba": 0}
    lq = (late or Late()).byqp
    for qa, qb in pairs:
        ea, eb = a.qp.get(qa), b.qp.get(qb)
        if not ea or not eb:
            errs.append("pair A %d / B %d: missing entry (A %s, B %s)" % (qa, qb, bool(ea), bool(eb)))
            continue
        for da, db, tag in (("tx", "rx", "ab"), ("rx", "tx", "ba")):
            ta, tb = ea["d"][da], eb["d"][db]
            if da == "rx" and qa in lq:
                ta = {k: ta[k] + lq[qa][k] for k in KEYS}
            tot[tag] += ta["packets"]
            if all(ta[k] == tb[k] for k in KEYS):
                continue
            n = short_of(ta, tb) if da == "tx" else short_of(tb, ta)
            if n:
                short[tag] += n
            else:
                errs.append("A %d %s {%s} != B %d %s {%s}" % (qa, da, fmt(ta), qb, db, fmt(tb)))
    # a packet that reached a QP no longer accepting it (a peer's
    # retransmission after the QP went to error) is dropped by rxe: the
    # receiver falls short of the sender by exactly those drops
    for tag, name, rx in (("ab", "A->B", b), ("ba", "B->A", a)):
        if short[tag] != rx.drops("qp_state") and short[tag]:
            errs.append("%s: receivers short of senders by %d packets, rxe dropped %d for QP state"
                        % (name, short[tag], rx.drops("qp_state")))
    # every QP that moved a packet is in a pair
    paired = {"a": {p[0] for p in pairs}, "b": {p[1] for p in pairs}}
    for n in (a, b):
        for q, e in n.qp.items():
            if q not in paired[n.name] and (e["d"]["tx"]["packets"] or e["d"]["rx"]["packets"]):
                errs.append("node %s QP %d moved packets but has no known peer QP" % (n.name.upper(), q))
    R.add("peer", errs, "%d QP pairs, A->B %d packets, B->A %d packets, per class and bytes; "
          "dropped by rxe for QP state A->B %d, B->A %d" % (len(pairs), tot["ab"], tot["ba"], short["ab"], short["ba"]))


# --- metadata ---

def rdma_qps(lst):
    """rdma resource show qp, as fabtrace would print the same facts"""
    out = {}
    for r in lst:
        v = {"type": r["type"].lower(), "state": r["state"].lower()}
        if "pid" in r:
            v["pid"] = r["pid"]
            v["comm"] = r["comm"]
        else:                                # a kernel QP: "[name]"
            v["pid"] = 0
            v["comm"] = r["comm"].strip("[]")
        if "rqpn" in r and v["type"] not in ("ud", "gsi"):
            v["remote_qpn"] = r["rqpn"]
        out[r["lqpn"]] = v
    return out


def read_samples(path, errs, node):
    """the sampler's records: (rdma before, fabtrace, rdma after)"""
    out = []
    try:
        chunks = text(path).split("@@\n")
    except OSError as e:
        errs.append("node %s: no live sample: %s" % (node.upper(), e))
        return out
    for i, c in enumerate(chunks):
        if not c.strip():
            continue
        try:
            dec, pos, docs = json.JSONDecoder(), 0, []
            while pos < len(c):
                while pos < len(c) and c[pos].isspace():
                    pos += 1
                if pos == len(c):
                    break
                d, pos = dec.raw_decode(c, pos)
                docs.append(d)
            if len(docs) != 3:
                raise ValueError("%d documents" % len(docs))
            out.append((rdma_qps(docs[0]), docs[1], rdma_qps(docs[2])))
        except (ValueError, KeyError) as e:
            if i < len(chunks) - 1:          # the last one may be cut short
                errs.append("node %s sample %d: %s" % (node.upper(), i + 1, e))
    return out


def check_meta(R, nodes, spec, samples):
    errs = []
    by = {n.name: n for n in nodes}
    nchk = 0
    for node, qpns, want in spec.get("meta", []):
        n = by[node]
        if qpns == "new":
            qpns = n.new
        for qpn in qpns:
            e = n.qp.get(qpn)
            if not e:
                errs.append("node %s QP %d: no entry" % (node.upper(), qpn))
                continue
            q = e["q"]
            for k, v in want.items():
                nchk += 1
                if k == "flags":
                    # "congested": a CE mark or CNP received, a NAK sent or
                    # received, a retransmission (counters the wire checks)
                    c = q["cong"]
                    if c["rx_ce"] or q["rx"]["cnp"] or c["retransmits"] or \
                            sum(c["tx_nak"].values()) or sum(c["rx_nak"].values()):
                        v = v + ["congested"]
                    if sorted(q["flags"]) != sorted(v):
                        errs.append("node %s QP %d flags %s, expected %s" % (node.upper(), qpn, q["flags"], v))
                elif v is None:
                    if k in q:
                        errs.append("node %s QP %d has %s %r, expected none" % (node.upper(), qpn, k, q[k]))
                elif q.get(k) != v:
                    errs.append("node %s QP %d %s %r, expected %r" % (node.upper(), qpn, k, q.get(k), v))
            if "destroyed" in q["flags"]:
                nchk += 1
                if not q.get("destroy_time", 0) > q["create_time"]:
                    errs.append("node %s QP %d destroy_time %s not after create_time %d"
                                % (node.upper(), qpn, q.get("destroy_time"), q["create_time"]))
    # connected QPs: remote QPN and peer address are the peer's
    for qa, qb in spec.get("connected", []):
        for n, me, other, ip in ((by["a"], qa, qb, spec["ip_b"]), (by["b"], qb, qa, spec["ip_a"])):
            e = n.qp.get(me)
            nchk += 2
            if not e:
                errs.append("node %s QP %d: no entry" % (n.name.upper(), me))
                continue
            if e["q"].get("remote_qpn") != other or e["q"].get("peer") != ip:
                errs.append("node %s QP %d remote_qpn %r peer %r, expected %d %s"
                            % (n.name.upper(), me, e["q"].get("remote_qpn"), e["q"].get("peer"), other, ip))
    # while the QPs were alive: fabtrace against ib_core's own view, and
    # the state each QP had to reach
    for node, path in samples.items():
        n = by[node]
        smp = read_samples(path, errs, node)
        ncmp = 0
        for r0, ft, r1 in smp:
            for q in ft:
                if "destroyed" in q["flags"]:
                    continue
                a, b = r0.get(q["qpn"]), r1.get(q["qpn"])
                if not a or not b or a != b:
                    continue                 # not there, or changed meanwhile
                ncmp += 1
                for k, v in a.items():
                    if q.get(k) != v:
                        errs.append("node %s QP %d %s %r, rdma resource says %r"
                                    % (node.upper(), q["qpn"], k, q.get(k), v))
        nchk += ncmp
        print("#   node %s: %d live samples, %d QP entries compared with rdma resource show qp"
              % (node.upper(), len(smp), ncmp))
        for qpn, state in spec.get("live_state", {}).get(node, {}).items():
            nchk += 1
            e = n.qp.get(int(qpn))
            if not e or not any(same_qp(q, e["q"]) and q["state"] == state and "destroyed" not in q["flags"]
                                for _, ft, _ in smp for q in ft):
                errs.append("node %s QP %s not seen live in state %s (%d samples)"
                            % (node.upper(), qpn, state, len(smp)))
    R.add("meta", errs, "%d metadata values checked, %d wrong" % (nchk, len(errs)))


# --- oracle 4: the wire, as tshark decodes it ---

def check_wire(R, a, b, spec, rows, caperr, self_ip, late=None):
    errs = []
    lf = (late or Late()).frames
    lcap = {}
    st = text(caperr)
    m = {k: int(v) for v, k in re.findall(r"(\d+) packets? (captured|received by filter|dropped by kernel)", st)}
    # Frames the filter took in after tcpdump's last read are counted but
    # never written.  Harmless when they came after the test's traffic,
    # and then the capture still equals rxe's counts, checked below.
    unwritten = m.get("received by filter", 0) - m.get("captured", 0)
    incomplete = m.get("dropped by kernel", -1) != 0 or "captured" not in m or unwritten < 0
    b2a = {qb: qa for qa, qb in spec.get("pairs", [])}
    a2b = {qa: qb for qa, qb in spec.get("pairs", [])}
    cap = {}
    psn = {}
    dup = {}
    sent = rcvd = 0
    unknown_ops = {}
    for r in rows:
        if r["op"] is None:
            errs.append("frame %d not decoded as InfiniBand" % r["frame"])
            continue
        c = classify(r["op"], r["syn"])
        if c is None:
            unknown_ops[r["op"]] = unknown_ops.get(r["op"], 0) + 1
            cls, ext = "other", None
        else:
            cls, ext = c
        if r["src"] == self_ip:
            dr = "tx"
            sent += 1
            if r["op"] in UD_OPS:
                qpn = r["srcqp"]             # the DETH names the sender
            else:
                qpn = b2a.get(r["destqp"])
        elif r["dst"] == self_ip:
            dr = "rx"
            rcvd += 1
            qpn = r["destqp"]
        else:
            errs.append("frame %d neither from nor to %s" % (r["frame"], self_ip))
            continue
        if qpn is None:
            errs.append("frame %d (%s to QP %d): no local QP for it" % (r["frame"], dr, r["destqp"]))
            continue
        # a late frame is no QP's to fabtrace, but it is the peer's retransmission
        z = (lcap if r["frame"] in lf else cap).setdefault(qpn, zero())
        t = z[dr]
        t["packets"] += 1
        t[cls] += 1
        if ext is not None:
            t["bytes"] += payload(r, ext)
        if cls == "nak":
            z[dr + "_nak"][nak_code(r["syn"])] += 1
        # RC PSNs: a request or read response sent that does not advance
        # past the highest sent is a retransmission; a request received
        # that does not advance past the highest received is a duplicate
        if r["op"] < 0x20 and r["psn"] is not None:
            req = cls in ("send", "write", "read_req") or r["op"] in (0x13, 0x14, 0x1c, 0x1d)
            resp = r["op"] in (0x0d, 0x0e, 0x0f, 0x10, 0x12)
            if req or resp:
                key = (qpn, dr, "req" if req else "resp")
                top = psn.get(key)
                if top is not None and psn_diff(r["psn"], top) <= 0:
                    # fabtrace's rx_dup counts requests only; a duplicate
                    # response received is kept apart for the peer check
                    if dr == "tx":
                        z["cong"]["retransmits"] += 1
                    elif req:
                        z["cong"]["rx_dup"] += 1
                    dup[key] = dup.get(key, 0) + 1
                else:
                    psn[key] = r["psn"]
    if unknown_ops:
        errs.append("opcodes outside the table: %s" % {hex(k): v for k, v in unknown_ops.items()})
    # frames rxe dropped because their QP no longer accepted them are on
    # the wire, and in no QP's counters: in its device's drops
    dropped = a.drops("qp_state")
    if sent != a.rxe("sent_pkts") or rcvd - len(lf) - dropped != a.rxe("rcvd_pkts"):
        errs.append("capture has %d sent / %d received (%d late, %d dropped for QP state), rxe counted %d / %d"
                    % (sent, rcvd, len(lf), dropped, a.rxe("sent_pkts"), a.rxe("rcvd_pkts")))
    short = 0
    nq = 0
    ncong = {k: 0 for k in CONG}
    for qpn in sorted(set(cap) | {q for q, e in a.qp.items() if e["d"]["tx"]["packets"] or e["d"]["rx"]["packets"]}):
        e = a.qp.get(qpn)
        c = cap.get(qpn, zero())
        nq += 1
        if not e:
            errs.append("QP %d on the wire (%s / %s) has no entry" % (qpn, fmt(c["tx"]), fmt(c["rx"])))
            continue
        sh = short_of(c["rx"], e["d"]["rx"])
        if sh:
            # dropped duplicates are no duplicates rxe saw
            short += sh
            c["cong"]["rx_dup"] -= max(0, min(sh, c["cong"]["rx_dup"] - e["d"]["cong"]["rx_dup"]))
        for dr in DIRS:
            if any(e["d"][dr][k] != c[dr][k] for k in KEYS) and not (dr == "rx" and sh):
                errs.append("QP %d %s: fabtrace {%s} wire {%s}" % (qpn, dr, fmt(e["d"][dr]), fmt(c[dr])))
        for n in ("cong", "tx_nak", "rx_nak"):
            if e["d"][n] != c[n]:
                errs.append("QP %d %s: fabtrace %s wire %s" % (qpn, n, e["d"][n], c[n]))
        # the peer's retransmissions (requests and read/atomic responses)
        # are the duplicates A received; the peer's duplicate requests are
        # A's retransmitted requests.  A retransmitted response is not a
        # duplicate request: it answers one (the wire loses nothing: the
        # capture has what rxe counted)
        eb = b.qp.get(a2b.get(qpn, -1))
        rx_all = dup.get((qpn, "rx", "req"), 0) + dup.get((qpn, "rx", "resp"), 0)
        tx_req = dup.get((qpn, "tx", "req"), 0)
        if eb and (eb["d"]["cong"]["retransmits"] != rx_all or eb["d"]["cong"]["rx_dup"] != tx_req):
            errs.append("B QP %d retransmits %d rx_dup %d, but A received %d duplicates and "
                        "retransmitted %d requests" % (a2b[qpn], eb["d"]["cong"]["retransmits"],
                                                       eb["d"]["cong"]["rx_dup"], rx_all, tx_req))
        for k, v in c["cong"].items():
            ncong[k] += v
    if short != dropped:
        errs.append("fabtrace's QPs received %d frames fewer than the wire, rxe dropped %d for QP state"
                    % (short, dropped))
    if incomplete or (unwritten and errs):
        errs.append("capture incomplete: tcpdump says %s" % m)
    R.add("wire", errs, "capture on A: %d frames sent, %d received, %d QPs compared per class and bytes; "
          "from the PSNs: %d retransmitted by A, %d duplicates received; %d arrived after their QP was destroyed, "
          "%d after it stopped accepting them; %d after the capture's last write"
          % (sent, rcvd, nq, ncong["retransmits"], ncong["rx_dup"], len(lf), short, unwritten))
    return cap


CM_ATTRS = {0x10: "REQ", 0x11: "MRA", 0x12: "REJ", 0x13: "REP", 0x14: "RTU",
            0x15: "DREQ", 0x16: "DREP"}


def check_gsi(R, a, b, rows, self_ip):
    """the CM MADs of the capture are exactly QP1's traffic"""
    errs = []
    rows = [r for r in rows if r["destqp"] == 1]
    out = [CM_ATTRS.get(r["attr"], hex(r["attr"] or 0)) for r in rows if r["src"] == self_ip]
    inc = [CM_ATTRS.get(r["attr"], hex(r["attr"] or 0)) for r in rows if r["dst"] == self_ip]
    for want, where, name in (("REQ", out, "A"), ("RTU", out, "A"), ("REP", inc, "B")):
        if want not in where:
            errs.append("no CM %s from %s on the wire" % (want, name))
    for want in ("DREQ", "DREP"):
        if want not in out + inc:
            errs.append("no CM %s on the wire" % want)
    ga, gb = a.qp.get(1), b.qp.get(1)
    if not ga or not gb:
        errs.append("no QP1 entry (A %s, B %s)" % (bool(ga), bool(gb)))
    else:
        for n, g, tx, rx in (("A", ga, len(out), len(inc)), ("B", gb, len(inc), len(out))):
            d = g["d"]
            if (d["tx"]["packets"], d["tx"]["send"], d["rx"]["packets"], d["rx"]["send"]) != (tx, tx, rx, rx):
                errs.append("node %s QP1 tx {%s} rx {%s}, the wire has %d MADs out, %d in"
                            % (n, fmt(d["tx"]), fmt(d["rx"]), tx, rx))
            if g["q"]["type"] != "gsi":
                errs.append("node %s QP1 type %s" % (n, g["q"]["type"]))
    R.add("gsi", errs, "A sent %s, received %s; QP1 tx/rx on A %s, on B %s"
          % (" ".join(out), " ".join(inc),
             ga and "%d/%d" % (ga["d"]["tx"]["packets"], ga["d"]["rx"]["packets"]),
             gb and "%d/%d" % (gb["d"]["tx"]["packets"], gb["d"]["rx"]["packets"])))


def table(nodes, most=12):
    """the QPs that moved packets (the first few of a node, then a count)"""
    for n in nodes:
        moved = [(q, e) for q, e in sorted(n.qp.items()) if e["d"]["tx"]["packets"] or e["d"]["rx"]["packets"]]
        if len(moved) > most:
            print("#   %s: %d QPs moved packets, the first %d:" % (n.name.upper(), len(moved), most))
        for qpn, e in moved[:most]:
            d = e["d"]
            cg = " ".join("%s=%d" % (k, v) for k, v in d["cong"].items() if v)
            print("#   %s QP %-7d %-3s tx {%s}  rx {%s}%s" % (n.name.upper(), qpn, e["q"]["type"],
                                                          fmt(d["tx"]), fmt(d["rx"]), cg and "  " + cg))


def cmd_check(args):
    errs = []
    a = Node("a", args.a0, args.a1, errs)
    b = Node("b", args.b0, args.b1, errs)
    spec = load(args.spec) if args.spec else {}
    R = Results()
    R.add("snapshots", errs, "two nodes, before and after, valid JSON")
    table((a, b))
    rows = read_tsv(args.tsv) if args.tsv else []
    late = late_frames(a, rows, args.self_ip)
    if late.frames:
        print("# A received %d packet(s) after their QP was destroyed: frames %s"
              % (len(late.frames), ", ".join("%d (QP %d)" % kv for kv in sorted(late.frames.items()))))
    check_rdma(R, a, late)
    check_rdma(R, b)
    check_stats(R, (a, b), {"a": late.tot["packets"]})
    if "new" in spec:
        check_qpset(R, (a, b), spec)
    if "bytes" in spec:
        check_bytes(R, (a, b), spec)
    if "pairs" in spec:
        check_peer(R, a, b, spec["pairs"] + [[1, 1]], late)
    if "meta" in spec or "connected" in spec:
        samples = {}
        if args.live_a:
            samples["a"] = args.live_a
        if args.live_b:
            samples["b"] = args.live_b
        check_meta(R, (a, b), spec, samples)
    if args.tsv:
        wspec = dict(spec)
        wspec["pairs"] = spec.get("pairs", []) + [[1, 1]]
        check_wire(R, a, b, wspec, rows, args.caperr, args.self_ip, late)
    if args.gsi:
        check_gsi(R, a, b, rows, args.self_ip)
    R.write(args.out)


# --- what a pattern must show ---

def perftest_log(path):
    t = text(path)
    pid = re.search(r"^PID=(\d+)$", t, re.M)
    loc = [int(x, 16) for x in re.findall(r"local address: .*?QPN (0x[0-9a-fA-F]+)", t)]
    rem = [int(x, 16) for x in re.findall(r"remote address: .*?QPN (0x[0-9a-fA-F]+)", t)]
    res = re.findall(r"^\s*(\d+)\s+(\d+)\s+[\d.]+\s+[\d.]+\s+[\d.]+\s*$", t, re.M)
    nq = re.search(r"Number of qps\s*:\s*(\d+)", t)
    return {"pid": int(pid.group(1)) if pid else None, "local": loc, "remote": rem,
            "size": int(res[-1][0]) if res else None, "iters": int(res[-1][1]) if res else None,
            "nqps": int(nq.group(1)) if nq else None}


def cmd_spec_perftest(args):
    c, s = perftest_log(args.client), perftest_log(args.server)
    for who, p in (("client", c), ("server", s)):
        if None in (p["pid"], p["size"], p["iters"], p["nqps"]) or len(p["local"]) != p["nqps"] \
                or len(p["remote"]) != p["nqps"]:
            sys.exit("perftest %s log not understood: %s" % (who, p))
    if c["local"] != s["remote"] or c["remote"] != s["local"]:
        sys.exit("perftest client and server disagree on the QPNs: %s %s" % (c, s))
    # perftest reports the iterations of all QPs together (-n per QP times -q)
    if c["iters"] % c["nqps"]:
        sys.exit("iterations %d not a multiple of %d QPs" % (c["iters"], c["nqps"]))
    per_qp = c["iters"] // c["nqps"] * c["size"]
    pairs = [[x, y] for x, y in zip(c["local"], c["remote"])]
    data_from_client = args.pattern in ("write", "send", "ud")
    bytes_ = []
    for x, y in pairs:
        sx, sy = (per_qp, 0) if data_from_client else (0, per_qp)
        bytes_ += [["a", x, "tx", sx], ["a", x, "rx", sy], ["b", y, "rx", sx], ["b", y, "tx", sy]]
    qtype = "ud" if args.pattern == "ud" else "rc"
    meta_a = {"type": qtype, "pid": c["pid"], "comm": args.comm, "state": "rts",
              "flags": ["destroyed"], "port": 1}
    # perftest's bandwidth servers stop at RTR (they only respond): it moves
    # a QP to RTS for "tst == LAT || machine == CLIENT || duplex"
    meta_b = dict(meta_a, pid=s["pid"], state="rtr")
    if qtype == "ud":
        meta_a.update(remote_qpn=None, peer=None)
        meta_b.update(remote_qpn=None, peer=None)
    spec = {"pattern": args.pattern, "pairs": pairs,
            "new": {"a": c["local"], "b": s["local"]},
            "bytes": bytes_, "bytes_src": "perftest: %d iterations x %d B over %d QPs"
            % (c["iters"], c["size"], c["nqps"]),
            "meta": [["a", "new", meta_a], ["b", "new", meta_b]],
            "connected": pairs if qtype == "rc" else [],
            "live_state": {"a": {q: "rts" for q in c["local"]}, "b": {q: "rtr" for q in s["local"]}},
            "ip_a": args.ip_a, "ip_b": args.ip_b}
    print(json.dumps(spec))


def cmd_spec_ftqps(args):
    c, s = load(args.client), load(args.server)
    for who, j in (("client", c), ("server", s)):
        if j.get("error") is not None or len(j.get("qps", [])) != j["nqps"]:
            sys.exit("ft_qps %s JSON not complete: error %r, %d of %d QPs"
                     % (who, j.get("error"), len(j.get("qps", [])), j["nqps"]))
    sq = {q["qpn"]: q for q in s["qps"]}
    pairs, bytes_ = [], []
    for q in c["qps"]:
        r = q["remote_qpn"]
        if r not in sq or sq[r]["remote_qpn"] != q["qpn"]:
            sys.exit("ft_qps: client QP %d and server QP %s do not name each other" % (q["qpn"], r))
        pairs.append([q["qpn"], r])
        moved = q["bytes"]                  # the client's completions, op x size
        if q["ops"] * c["size"] != moved:
            sys.exit("ft_qps: QP %d ops %d x size %d != bytes %d" % (q["qpn"], q["ops"], c["size"], moved))
        out = c["op"] in ("write", "send")
        bytes_ += [["a", q["qpn"], "tx", moved if out else 0], ["a", q["qpn"], "rx", 0 if out else moved],
                   ["b", r, "rx", moved if out else 0], ["b", r, "tx", 0 if out else moved]]
    meta = {"type": c["qp_type"], "comm": "ft_qps", "port": 1}
    spec = {"pattern": "ft_qps", "pairs": pairs,
            "new": {"a": [q["qpn"] for q in c["qps"]], "b": [q["qpn"] for q in s["qps"]]},
            "bytes": bytes_, "bytes_src": "ft_qps JSON: %d QPs, %d ops, %d bytes"
            % (c["nqps"], c["total_ops"], c["total_bytes"]),
            "meta": [["a", "new", dict(meta, pid=c["pid"])], ["b", "new", dict(meta, pid=s["pid"])]],
            "connected": pairs if c["qp_type"] != "ud" else [],
            "ip_a": args.ip_a, "ip_b": args.ip_b}
    if args.state:
        for m in spec["meta"]:
            m[2]["state"] = args.state
        spec["live_state"] = {n: {q: args.state for q in spec["new"][n]} for n in ("a", "b")}
    if args.flags is not None:
        for m in spec["meta"]:
            m[2]["flags"] = [f for f in args.flags.split(",") if f]
    print(json.dumps(spec))


def cmd_spec_rping(args):
    rows = read_tsv(args.tsv)
    req = [r["req_qpn"] for r in rows if r["req_qpn"] is not None]
    rep = [r["rep_qpn"] for r in rows if r["rep_qpn"] is not None]
    if len(set(req)) != 1 or len(set(rep)) != 1:
        sys.exit("capture: expected one CM REQ and one CM REP QPN, got %s %s" % (req, rep))
    pa, pb = req[0], rep[0]
    meta = {"type": "rc", "comm": "rping", "port": 1, "flags": ["destroyed"],
            # rdma_disconnect() moves the QP to the error state before it goes
            "state": "err"}
    gsi = {"type": "gsi", "pid": 0, "comm": "ib_core", "state": "rts", "port": 1,
           "flags": ["discovered", "kernel"], "remote_qpn": None, "peer": None}
    spec = {"pattern": "rping", "pairs": [[pa, pb]], "new": {"a": [pa], "b": [pb]},
            "meta": [["a", [pa], dict(meta, pid=args.a_pid)], ["b", [pb], dict(meta, pid=args.b_pid)],
                     ["a", [1], gsi], ["b", [1], gsi]],
            "connected": [[pa, pb]], "live_state": {"a": {pa: "rts"}, "b": {pb: "rts"}},
            "ip_a": args.ip_a, "ip_b": args.ip_b}
    print(json.dumps(spec))


def cmd_cm(args):
    """the CM MADs of a capture, by attribute, for the log"""
    seen = [(r["src"], CM_ATTRS.get(r["attr"], hex(r["attr"] or 0))) for r in read_tsv(args.tsv)
            if r["destqp"] == 1]
    print(" ".join("%s:%s" % s for s in seen))


def same_entry(p, q):
    """two reads of one entry: every counter and every fact but the times"""
    strip = lambda x: {k: v for k, v in x.items() if k not in ("create_time", "destroy_time")}
    return strip(p) == strip(q) and abs(p["create_time"] - q["create_time"]) < 1000000


def cmd_overflow(args):
    """max_qps: which QPs got entries, and what the others did to the device"""
    s0, s1, s2 = load(args.s0), load(args.s1), load(args.s2)
    pre, big = load(args.pre), load(args.big)
    R = Results()
    e0 = s0["stats"]["qps"] + s0["stats"]["retained"]
    room = args.max - e0
    order = [q["qpn"] for q in big["qps"]]
    have = {q["qpn"] for q in s1["qps"]}
    tracked = [q for q in order if q in have]
    errs = []
    if tracked != order[:room]:
        errs.append("tracked %d QPs %s..., expected the first %d created %s..."
                    % (len(tracked), tracked[:5], room, order[:5]))
    R.add("tracked", errs, "%d entries before, max_qps %d: %d of %d new QPs tracked, first %s last %s"
          % (e0, args.max, len(tracked), len(order), tracked[:1], tracked[-1:]))
    st1, st2 = s1["stats"], s2["stats"]
    errs = []
    if st1["overflow"] - s0["stats"]["overflow"] != len(order) - room:
        errs.append("overflow grew by %d, expected %d" % (st1["overflow"] - s0["stats"]["overflow"], len(order) - room))
    if st1["qps"] + st1["retained"] != args.max or s1["dev"][0]["qps"] != st1["qps"]:
        errs.append("entries %d live + %d retained (device: %d live), expected %d in all"
                    % (st1["qps"], st1["retained"], s1["dev"][0]["qps"], args.max))
    if st2["overflow"] != st1["overflow"] or st2["alloc_fail"] or st1["alloc_fail"]:
        errs.append("overflow %d then %d, alloc_fail %d then %d"
                    % (st1["overflow"], st2["overflow"], st1["alloc_fail"], st2["alloc_fail"]))
    R.add("overflow", errs, "stats overflow %d -> %d -> %d, entries %d live + %d retained while held"
          % (s0["stats"]["overflow"], st1["overflow"], st2["overflow"], st1["qps"], st1["retained"]))
    errs = []
    pre_q = {q["qpn"] for q in pre["qps"]} | {1}
    for s in (s1, s2):
        for p in s0["qps"]:
            if p["qpn"] not in pre_q:
                continue
            q = [x for x in s["qps"] if x["qpn"] == p["qpn"]]
            if len(q) != 1 or not same_entry(p, q[0]):
                errs.append("entry of QP %d changed: %s -> %s" % (p["qpn"], json.dumps(p), q and json.dumps(q[0])))
    R.add("undisturbed", errs, "%d entries that existed before (QP1 and %d QPs with traffic) compared "
          "field by field, twice" % (len(pre_q), len(pre_q) - 1))
    # the device's packets: tracked QPs plus unknown == rxe's counters
    errs = []
    d0, d2 = s0["dev"][0], s2["dev"][0]
    sent = s2["rxe"][0]["sent_pkts"] - s0["rxe"][0]["sent_pkts"]
    rcvd = s2["rxe"][0]["rcvd_pkts"] - s0["rxe"][0]["rcvd_pkts"]
    b0 = {q["qpn"]: q for q in s0["qps"]}
    sums = {}
    for dr in DIRS:
        sums[dr] = sum(q[dr]["packets"] - (b0[q["qpn"]][dr]["packets"] if q["qpn"] in b0 else 0)
                       for q in s2["qps"])
    unk = {dr: d2["unknown_" + dr] - d0["unknown_" + dr] for dr in DIRS}
    if sums["tx"] + unk["tx"] != sent or sums["rx"] + unk["rx"] != rcvd:
        errs.append("QPs tx %d + unknown_tx %d != sent_pkts +%d, or QPs rx %d + unknown_rx %d != rcvd_pkts +%d"
                    % (sums["tx"], unk["tx"], sent, sums["rx"], unk["rx"], rcvd))
    for dr, k in (("tx", "sent_pkts"), ("rx", "rcvd_pkts")):
        dd = d2[dr]["packets"] - d0[dr]["packets"]
        if dd != (sent if dr == "tx" else rcvd):
            errs.append("device %s packets +%d != %s +%d" % (dr, dd, k, sent if dr == "tx" else rcvd))
    if s2["stats"]["unknown"] != d2["unknown_tx"] + d2["unknown_rx"] or s2["stats"]["malformed"]:
        errs.append("stats unknown %d != device unknown_tx %d + unknown_rx %d, or malformed %d"
                    % (s2["stats"]["unknown"], d2["unknown_tx"], d2["unknown_rx"], s2["stats"]["malformed"]))
    if not (unk["tx"] and unk["rx"]):
        errs.append("the untracked QPs' packets were not counted as unknown (tx %d rx %d)" % (unk["tx"], unk["rx"]))
    R.add("rdma", errs, "rxe sent_pkts +%d rcvd_pkts +%d = tracked QPs tx %d rx %d + unknown tx %d rx %d"
          % (sent, rcvd, sums["tx"], sums["rx"], unk["tx"], unk["rx"]))
    # the tracked QPs counted their own traffic: ft_qps's bytes
    errs = []
    bq = {q["qpn"]: q for q in big["qps"]}
    s2q = {q["qpn"]: q for q in s2["qps"]}
    nchk = 0
    for qpn in tracked:
        q, e = bq[qpn], s2q.get(qpn)
        if not e:
            errs.append("tracked QP %d gone" % qpn)
            continue
        if q["kind"] == "initiator":
            want = {"tx": q["bytes"], "rx": 0}
        else:
            want = {"tx": 0, "rx": bq[q["remote_qpn"]]["bytes"]}
        for dr in DIRS:
            nchk += 1
            if e[dr]["bytes"] != want[dr]:
                errs.append("QP %d (%s) %s bytes %d, ft_qps says %d" % (qpn, q["kind"], dr, e[dr]["bytes"], want[dr]))
    R.add("bytes", errs, "%d byte counters of tracked QPs against ft_qps's JSON" % nchk)
    R.write(args.out)


def cmd_retain(args):
    """a destroyed QP: readable with its final counters for retain_ms, then gone"""
    s0, s1, s2, j = load(args.s0), load(args.s1), load(args.s2), load(args.json)
    R = Results()
    ms = 1000000
    qpns = [q["qpn"] for q in j["qps"]]
    jq = {q["qpn"]: q for q in j["qps"]}
    e1 = {q["qpn"]: q for q in s1["qps"] if q["qpn"] in jq}
    errs = []
    for qpn in qpns:
        q = e1.get(qpn)
        if not q:
            errs.append("QP %d: no entry right after its destruction" % qpn)
            continue
        if q["flags"] != ["destroyed"] or q["state"] != "rts" or q["pid"] != j["pid"] or q["comm"] != "ft_qps":
            errs.append("QP %d: flags %s state %s pid %s comm %s, expected [destroyed] rts %d ft_qps"
                        % (qpn, q["flags"], q["state"], q["pid"], q["comm"], j["pid"]))
        dt = q.get("destroy_time")
        if dt is None or not (args.tb <= dt <= args.ta) or not dt > q["create_time"]:
            errs.append("QP %d: destroy_time %s not within the run [%d, %d] or not after create_time %d"
                        % (qpn, dt, args.tb, args.ta, q["create_time"]))
        want = {"tx": jq[qpn]["bytes"], "rx": 0} if jq[qpn]["kind"] == "initiator" else \
            {"tx": 0, "rx": jq[jq[qpn]["remote_qpn"]]["bytes"]}
        for dr in DIRS:
            if q[dr]["bytes"] != want[dr]:
                errs.append("QP %d %s bytes %d, ft_qps says %d" % (qpn, dr, q[dr]["bytes"], want[dr]))
    for dr, k in (("tx", "sent_pkts"), ("rx", "rcvd_pkts")):
        got = sum(q[dr]["packets"] for q in e1.values())
        rxe = s1["rxe"][0][k] - s0["rxe"][0][k]
        if got != rxe:
            errs.append("the destroyed QPs' %s packets %d != %s delta %d" % (dr, got, k, rxe))
    st = s1["stats"]
    # --others: entries of an earlier batch that may still be retained
    if not len(qpns) <= st["retained"] <= len(qpns) + args.others or \
            s1["dev"][0]["retained"] != st["retained"] or st["retain_ms"] != (args.snap_retain or args.retain):
        errs.append("stats retained %d, device retained %d, retain_ms %d; expected %d (+ up to %d), the same, %d"
                    % (st["retained"], s1["dev"][0]["retained"], st["retain_ms"], len(qpns), args.others,
                       args.snap_retain or args.retain))
    R.add("final", errs, "%d destroyed QPs read right away: flags, destroy time, pid, bytes against ft_qps, "
          "packets against rxe (tx %d rx %d)" % (len(e1), sum(q["tx"]["packets"] for q in e1.values()),
                                                 sum(q["rx"]["packets"] for q in e1.values())))
    # the reads while retained, and the first that found nothing
    polls = []
    for line in lines(args.polls):
        t0, t1, doc = line.split(" ", 2)
        polls.append((int(t0) * 1000, int(t1) * 1000, json.loads(doc)))
    dts = [q["destroy_time"] for q in e1.values() if "destroy_time" in q]
    errs = []
    if not dts or not polls:
        R.add("kept", ["no destroy times or no reads"], "")
        R.add("gone", ["no destroy times or no reads"], "")
        R.write(args.out)
        return
    dmin, dmax = min(dts), max(dts)
    keep = args.retain * ms
    gone = None
    nread = 0
    for t0, t1, doc in polls:
        got = {q["qpn"]: q for q in doc if q["qpn"] in jq}
        if not got:
            gone = gone or (t0, t1)
            continue
        if gone:
            errs.append("entries back after a read found none")
        nread += 1
        if t1 < dmin + keep and sorted(got) != sorted(qpns):
            errs.append("read ending %.0f ms after destruction found QPs %s, expected %s"
                        % ((t1 - dmin) / ms, sorted(got), qpns))
        for qpn, q in got.items():
            if qpn in e1 and not same_entry(q, e1[qpn]):
                errs.append("QP %d changed while retained: %s" % (qpn, json.dumps(q)))
    last = max((t0 for t0, t1, doc in polls if any(q["qpn"] in jq for q in doc)), default=None)
    R.add("kept", errs, "%d reads found the entries unchanged, the last starting %s ms after the first "
          "destruction (retain_ms %d)" % (nread, last and "%.0f" % ((last - dmin) / ms), args.retain))
    errs = []
    if not gone:
        errs.append("still there %.0f ms after the last destruction" % ((polls[-1][1] - dmax) / ms))
    else:
        # a read's start is when the CLI started, not when the kernel read:
        # only a read that ended before retain_ms proves an early removal
        if gone[1] < dmin + keep:
            errs.append("gone in a read ending %.0f ms after the first destruction, before retain_ms %d"
                        % ((gone[1] - dmin) / ms, args.retain))
        # late only if a read that started after the deadline still found
        # them; a first read that starts late (the batch before took long)
        # and finds nothing proves nothing either way
        late = [t0 for t0, t1, doc in polls
                if t0 > dmax + keep + args.slack * ms and any(q["qpn"] in jq for q in doc)]
        if late:
            errs.append("still there in a read starting %.0f ms after the last destruction: more than "
                        "retain_ms %d + %d ms" % ((late[-1] - dmax) / ms, args.retain, args.slack))
    st = s2["stats"]
    if st["retained"] != 0 or s2["dev"][0]["retained"] != 0:
        errs.append("stats retained %d, device retained %d afterwards" % (st["retained"], s2["dev"][0]["retained"]))
    R.add("gone", errs, "the first read that found nothing ran from %s to %s ms after the first/last "
          "destruction (retain_ms %d, slack %d ms)"
          % (gone and "%.0f" % ((gone[0] - dmin) / ms), gone and "%.0f" % ((gone[1] - dmax) / ms),
             args.retain, args.slack))
    R.write(args.out)


def parse_filter(words):
    """fabtrace qp show's filter words, as a predicate over JSON entries"""
    f, w = {}, list(words)
    while w:
        k = w.pop(0)
        if k in ("destroyed", "congested"):
            f.setdefault("flags", []).append(k)
        elif k == "qpn":
            rs = []
            for part in w.pop(0).split(","):
                lo, _, hi = part.partition("-")
                rs.append((int(lo), int(hi or lo)))
            f["qpn"] = rs
        else:
            f[k] = w.pop(0)

    def match(q):
        return ((f.get("dev") is None or q["dev"] == f["dev"]) and
                (f.get("qpn") is None or any(lo <= q["qpn"] <= hi for lo, hi in f["qpn"])) and
                (f.get("pid") is None or q["pid"] == int(f["pid"])) and
                (f.get("type") is None or q["type"] == f["type"]) and
                (f.get("state") is None or q["state"] == f["state"]) and
                all(x in q["flags"] for x in f.get("flags", [])))
    return match


def ekey(q):
    return (q["dev"], q["qpn"], "destroyed" in q["flags"])


def cmd_filters(args):
    """each filtered dump against the same filter applied to the full dump"""
    full, again = load(args.full), load(args.again)
    R = Results()
    errs = []
    if len(full) != len(again) or not all(same_entry(p, q) for p, q in zip(full, again)):
        errs.append("the full dump changed while the filters ran")
    R.add("stable", errs, "%d entries in the full dump, the same before and after" % len(full))
    for line in lines(args.cases):
        n, words = line.rstrip("\n").split("|", 1)
        words = words.split()
        out = load("%s/f%s.json" % (args.dir, n))
        want = [q for q in full if parse_filter(words)(q)]
        errs = []
        got_k = sorted(ekey(q) for q in out)
        want_k = sorted(ekey(q) for q in want)
        if len(set(got_k)) != len(got_k):
            errs.append("an entry twice")
        if got_k != want_k:
            errs.append("got %s" % got_k)
            errs.append("want %s" % want_k)
        byk = {ekey(q): q for q in full}
        for q in out:
            p = byk.get(ekey(q))
            if p and not same_entry(p, q):
                errs.append("entry %s differs from the full dump's" % (ekey(q),))
        if args.expect_nonempty and n in args.expect_nonempty.split(",") and not want:
            errs.append("the filter matches nothing: not a test")
        R.add("case_" + n, errs, "qp show %s: %d entries, the full dump filtered here: %d"
              % (" ".join(words), len(out), len(want)))
    R.write(args.out)


def spec_keys(path, aset):
    import yaml
    with open(path) as f:
        y = yaml.safe_load(f)
    for a in y["attribute-sets"]:
        if a["name"] == aset:
            return [x["name"].replace("-", "_") for x in a["attributes"] if x["type"] != "pad"]
    raise KeyError(aset)


def cmd_schema(args):
    """the CLI's JSON: valid, and every attribute of the spec present"""
    R = Results()
    traffic = spec_keys(args.spec, "traffic")
    naks = spec_keys(args.spec, "nak")
    cong = [k for k in spec_keys(args.spec, "cong") if not k.startswith("last_")]
    stats = spec_keys(args.spec, "stats")
    port = {"port", "state", "phys_state", "mtu", "link_layer", "netdev", "ifindex"}
    # the qp-rtt nest's attributes, and the bucket bounds the CLI adds
    try:
        rtt_keys = (set(spec_keys(args.spec, "qp-rtt")) - {"bucket"}) | {"buckets", "bounds_ns"}
    except KeyError:                     # a spec before round trips: no QP may have one
        rtt_keys = set()
    errs = []
    qps = load(args.qp)
    for q in qps:
        need = {"dev", "dev_index", "qpn", "type", "state", "port", "tclass", "sl", "prio",
                "paused_us", "pid", "comm", "create_time", "flags", "tx", "rx", "cong", "source"}
        have = set(q)
        # hw: what a hardware NIC counts of it (none here: soft-RoCE is tapped);
        # rtt: an RC QP's round trips
        extra = have - need - {"remote_qpn", "peer", "destroy_time", "cgroup_id", "cgroup", "hw", "rtt"}
        if need - have or extra:
            errs.append("QP %s: missing %s, unexpected %s" % (q.get("qpn"), need - have, extra))
            continue
        if q["source"] != "tap" or "hw" in q:
            errs.append("QP %d: source %s, hw %s on a tapped device" % (q["qpn"], q["source"], q.get("hw")))
        for dr in DIRS:
            if set(q[dr]) != set(traffic) or not all(isinstance(v, int) for v in q[dr].values()):
                errs.append("QP %d %s keys %s, spec %s" % (q["qpn"], dr, list(q[dr]), traffic))
        c = q["cong"]
        if {k for k in c if not k.startswith("last_")} != set(cong) or set(c["tx_nak"]) != set(naks) \
                or set(c["rx_nak"]) != set(naks):
            errs.append("QP %d cong keys %s, spec %s (naks %s)" % (q["qpn"], list(c), cong, naks))
        # an RC QP's round trips (rtt.sh reads them), with the spec's keys
        if "rtt" in q and (q["type"] not in ("rc", "xrc_ini", "xrc_tgt") or
                           not set(q["rtt"]) <= rtt_keys or "samples" not in q["rtt"]):
            errs.append("QP %d (%s): rtt %s" % (q["qpn"], q["type"], q.get("rtt")))
        if ("destroyed" in q["flags"]) != ("destroy_time" in q):
            errs.append("QP %d: flags %s with destroy_time %s" % (q["qpn"], q["flags"], q.get("destroy_time")))
        # a user QP has its creator's cgroup id (its path while it exists), a kernel QP neither
        if ("kernel" in q["flags"]) == ("cgroup_id" in q) or ("cgroup" in q and "cgroup_id" not in q) \
                or not isinstance(q.get("cgroup_id", 0), int) \
                or not str(q.get("cgroup", "/")).startswith("/"):
            errs.append("QP %d: flags %s with cgroup_id %s cgroup %s"
                        % (q["qpn"], q["flags"], q.get("cgroup_id"), q.get("cgroup")))
    R.add("qp", errs, "%d QP objects: keys, the traffic/cong/nak keys of the spec, integer counters" % len(qps))
    errs = []
    devs = load(args.dev)
    for d in devs:
        need = {"index", "name", "driver", "node_guid", "qps", "retained", "hooked", "ports", "tx", "rx",
                "unknown_tx", "unknown_rx", "malformed", "sources"}
        # rx_drops: rxe's drops by reason, on a device whose drops are counted
        # rx_drops: rxe's drops by reason; rtt: its QPs' round trips (both tapped devices')
        if set(d) - {"rx_drops", "rtt"} != need:
            errs.append("device %s keys %s" % (d.get("name"), sorted((set(d) - {"rx_drops", "rtt"}) ^ need)))
            continue
        dr_keys = {"samples", "sum_ns", "mean_ns", "ack_delay_samples", "ack_delay_sum_ns",
                   "ack_delay_mean_ns", "buckets", "bounds_ns"}
        if "rtt" in d and (not set(d["rtt"]) <= dr_keys or len(d["rtt"].get("buckets", [])) != 24):
            errs.append("device %s rtt %s" % (d["name"], d.get("rtt")))
        if "rx_drops" in d and set(d["rx_drops"]) != set(spec_keys(args.spec, "drops")):
            errs.append("device %s rx_drops keys %s" % (d["name"], sorted(d["rx_drops"])))
        for p in d["ports"]:
            if set(p) != port:
                errs.append("device %s port keys %s" % (d["name"], sorted(set(p) ^ port)))
        for dr in DIRS:
            if set(d[dr]) != set(traffic):
                errs.append("device %s %s keys %s" % (d["name"], dr, list(d[dr])))
    R.add("dev", errs, "%d device objects" % len(devs))
    st = load(args.stats)
    errs = []
    if set(st) != set(stats) or not all(isinstance(v, int) for v in st.values()):
        errs.append("stats keys %s, spec %s" % (list(st), stats))
    R.add("stats", errs, "stats: %d keys, the spec has %d" % (len(st), len(stats)))
    R.write(args.out)


def cmd_pidns(args):
    """a reader in a PID namespace sees its own QPs, with its own PIDs"""
    R = Results()
    inner = load(args.inner)
    mine = sorted(q["qpn"] for q in inner["qps"])
    inside, inside_pid, outside = load(args.inside), load(args.inside_pid), load(args.outside)
    errs = []
    got = sorted((q["dev"], q["qpn"]) for q in inside)
    if got != [("rxe0", x) for x in mine]:
        errs.append("inside sees %s, its own QPs are rxe0 %s" % (got, mine))
    for q in inside:
        if q["pid"] != inner["pid"] or q["comm"] != "ft_qps":
            errs.append("inside: QP %d pid %d comm %s, expected %d ft_qps"
                        % (q["qpn"], q["pid"], q["comm"], inner["pid"]))
    if sorted(q["qpn"] for q in inside_pid) != mine:
        errs.append("inside, pid %d: %s" % (inner["pid"], sorted(q["qpn"] for q in inside_pid)))
    R.add("inside", errs, "the reader in the namespace sees %d entries (its process: pid %d there, QPs %s); "
          "the initial namespace has %d" % (len(inside), inner["pid"], mine, len(outside)))
    errs = []
    out_mine = [q for q in outside if q["dev"] == "rxe0" and q["qpn"] in mine and "destroyed" not in q["flags"]]
    if len(out_mine) != len(mine) or any(q["pid"] != args.global_pid for q in out_mine):
        errs.append("outside: %s, expected pid %d" % ([(q["qpn"], q["pid"]) for q in out_mine], args.global_pid))
    others = [q for q in outside if (q["dev"], q["qpn"]) not in [("rxe0", x) for x in mine]]
    if not others:
        errs.append("no QP outside the namespace to hide: not a test")
    R.add("outside", errs, "the initial namespace sees them with pid %d (NSpid %s), and %d other entries "
          "the namespace does not" % (args.global_pid, args.nspid, len(others)))
    R.write(args.out)


def is_zeroed(q):
    c = q["cong"]
    return (all(v == 0 for dr in DIRS for v in q[dr].values()) and
            all(v == 0 for k, v in c.items() if not isinstance(v, dict) and not k.startswith("last_")) and
            all(v == 0 for n in ("tx_nak", "rx_nak") for v in c[n].values()) and
            not any(k.startswith("last_") for k in c) and
            # its round trips too: no sample, no ack delay (a sample running goes on)
            q.get("rtt", {}).get("samples", 0) == 0 and "ack_delay_ns" not in q.get("rtt", {}))


def meta_of(q):
    m = {k: v for k, v in q.items() if k not in ("tx", "rx", "cong", "rtt", "create_time", "destroy_time")}
    m["flags"] = sorted(f for f in q["flags"] if f != "congested")
    return m


def cmd_reset(args):
    """qp reset SCOPE: the named entries zeroed (and nothing else about them
    changed), every other entry and the device totals untouched"""
    s0, s1 = load(args.s0), load(args.s1)
    R = Results()
    scope = args.scope.split(":")

    def named(q):
        if scope[0] == "all":
            return True
        if scope[0] == "dev":
            return q["dev"] == scope[1]
        if scope[0] == "qp":
            return q["dev"] == scope[1] and q["qpn"] == int(scope[2])
        return False                         # "none": a refused reset
    b1 = {ekey(q): q for q in s1["qps"]}
    errs = []
    nz = nu = moved = 0
    for p in s0["qps"]:
        q = b1.get(ekey(p))
        if not q:
            errs.append("entry %s gone" % (ekey(p),))
            continue
        if named(p):
            nz += 1
            moved += p["tx"]["packets"] + p["rx"]["packets"]
            if not is_zeroed(q):
                errs.append("entry %s not zeroed: tx {%s} rx {%s} cong %s"
                            % (ekey(p), fmt(q["tx"]), fmt(q["rx"]), json.dumps(q["cong"])))
            if meta_of(p) != meta_of(q) or abs(p["create_time"] - q["create_time"]) >= 1000000 or \
                    p.get("destroy_time", 0) // 1000 != q.get("destroy_time", 0) // 1000:
                errs.append("entry %s: facts changed: %s -> %s" % (ekey(p), meta_of(p), meta_of(q)))
        else:
            nu += 1
            if not same_entry(p, q):
                errs.append("entry %s changed: %s -> %s" % (ekey(p), json.dumps(p), json.dumps(q)))
    if len(s1["qps"]) != len(s0["qps"]):
        errs.append("%d entries before, %d after" % (len(s0["qps"]), len(s1["qps"])))
    if scope[0] != "none" and args.min_named is not None and nz < args.min_named:
        errs.append("only %d entries named: not a test" % nz)
    R.add("entries", errs, "%s: %d entries zeroed (they had %d packets), %d untouched"
          % (args.scope, nz, moved, nu))
    errs = []
    for d0, d1 in zip(s0["devs"], s1["devs"]):
        strip = lambda d: {k: v for k, v in d.items() if k not in ("qps", "retained")}
        if strip(d0) != strip(d1):
            errs.append("device %s totals changed: tx {%s} -> {%s}" % (d0["name"], fmt(d0["tx"]), fmt(d1["tx"])))
    R.add("devices", errs, "device totals (not named by qp reset) unchanged: %s"
          % ", ".join("%s tx %d rx %d" % (d["name"], d["tx"]["packets"], d["rx"]["packets"]) for d in s1["devs"]))
    R.write(args.out)


def cmd_resumed(args):
    """after qp reset (all), the QPs of a device count from zero: their sum
    is rxe's delta since the reset"""
    s0, s1 = load(args.s0), load(args.s1)
    R = Results()
    errs = []
    for dr, k in (("tx", "sent_pkts"), ("rx", "rcvd_pkts")):
        tot = sum(q[dr]["packets"] for q in s1["qps"] if q["dev"] == "rxe0")
        rxe = s1["rxe"][0][k] - s0["rxe"][0][k]
        if tot != rxe or not rxe:
            errs.append("rxe0 QPs %s %d since the reset, %s delta %d" % (dr, tot, k, rxe))
    R.add("resumed", errs, "rxe0: QP sums since the reset tx %d rx %d, rxe sent_pkts +%d rcvd_pkts +%d"
          % (sum(q["tx"]["packets"] for q in s1["qps"] if q["dev"] == "rxe0"),
             sum(q["rx"]["packets"] for q in s1["qps"] if q["dev"] == "rxe0"),
             s1["rxe"][0]["sent_pkts"] - s0["rxe"][0]["sent_pkts"],
             s1["rxe"][0]["rcvd_pkts"] - s0["rxe"][0]["rcvd_pkts"]))
    R.write(args.out)


# --- the congestion tests' view of a capture ---

SUMMARY_KEYS = ("pkts", "ect", "ce", "req", "req_distinct", "req_repeat", "send",
                "write", "ack", "nak_seq", "nak_rnr", "nak_other", "cnp", "late", "edge")


def pcap_summary(rows, cuts):
    """{"frames": N, "qp": {"IP/QPN": counts}}, keyed by destination address
    and BTH destination QP (decimal: both nodes number their QPs from 17).
    Counts: pkts, ect (ECN != 0), ce (ECN == 3), req (requests),
    req_distinct/req_repeat (request PSNs seen the first time / again),
    send, write, ack (AETH ACK), nak_seq, nak_rnr, nak_other, cnp (0x81),
    send_psns (the PSNs of SEND packets, in order).  cuts {"IP/QPN":
    seconds since the epoch}: when a QP of the capturing node was
    destroyed; its packets captured more than 1 ms later count as "late"
    (for no QP: rxe drops them) and nothing else, those within 1 ms of it
    also as "edge" (either side of the destruction)."""
    qps, psns, frames = {}, {}, 0
    for r in rows:
        if r["destqp"] is None:
            continue
        frames += 1
        op, psn, ecn, syn = r["op"], r["psn"], r["ecn"] or 0, r["syn"]
        key = "%s/%d" % (r["dst"], r["destqp"])
        q = qps.setdefault(key, dict({k: 0 for k in SUMMARY_KEYS}, send_psns=[]))
        seen = psns.setdefault(key, set())
        if key in cuts:
            if r["epoch"] > cuts[key] + 0.001:
                q["late"] += 1
                continue
            if r["epoch"] > cuts[key] - 0.001:
                q["edge"] += 1
        q["pkts"] += 1
        if ecn:
            q["ect"] += 1
        if ecn == 3:
            q["ce"] += 1
        if op == 0x81:
            q["cnp"] += 1
            continue
        low = op & 0x1f
        if low <= 0x0c or low in (0x13, 0x14, 0x16, 0x17, 0x1c, 0x1d):
            q["req"] += 1
            if psn in seen:
                q["req_repeat"] += 1
            else:
                seen.add(psn)
                q["req_distinct"] += 1
            if low <= 0x05 or low in (0x16, 0x17):
                q["send"] += 1
                q["send_psns"].append(psn)
            elif low <= 0x0b:
                q["write"] += 1
        elif low == 0x11 and syn is not None:
            kind = syn >> 5
            if kind == 0:
                q["ack"] += 1
            elif kind == 1:
                q["nak_rnr"] += 1
            elif kind == 3 and (syn & 0x1f) == 0:
                q["nak_seq"] += 1
            else:
                q["nak_other"] += 1
    return {"frames": frames, "qp": qps}


def cmd_tsv(args):
    sys.exit(tshark_tsv(args.pcap, args.tsv))


def cmd_pcap_summary(args):
    cuts = load(args.cuts) if args.cuts else {}
    print(json.dumps(pcap_summary(read_tsv(args.tsv), cuts)))


def json_lines(path):
    """None if every line of the file is one JSON object (and there is
    one), else what is wrong"""
    n = 0
    for i, line in enumerate(lines(path), 1):
        try:
            o = json.loads(line)
        except ValueError as e:
            return "line %d: not JSON (%s): %r" % (i, e, line[:200])
        if not isinstance(o, dict):
            return "line %d: not an object" % i
        n += 1
    return None if n else "no lines"


def cmd_json_lines(args):
    sys.exit(json_lines(args.file))


def main(argv=None):
    p = argparse.ArgumentParser(prog="oracle.py")
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("check")
    for k in ("a0", "a1", "b0", "b1", "out"):
        c.add_argument("--" + k, required=True)
    for k in ("spec", "tsv", "caperr", "self-ip", "live-a", "live-b"):
        c.add_argument("--" + k)
    c.add_argument("--gsi", action="store_true")
    c.set_defaults(fn=cmd_check)
    s = sub.add_parser("spec-perftest")
    for k in ("client", "server", "pattern", "comm", "ip-a", "ip-b"):
        s.add_argument("--" + k, required=True)
    s.set_defaults(fn=cmd_spec_perftest)
    s = sub.add_parser("spec-ftqps")
    for k in ("client", "server", "ip-a", "ip-b"):
        s.add_argument("--" + k, required=True)
    s.add_argument("--state")
    s.add_argument("--flags")
    s.set_defaults(fn=cmd_spec_ftqps)
    s = sub.add_parser("spec-rping")
    for k in ("tsv", "ip-a", "ip-b"):
        s.add_argument("--" + k, required=True)
    s.add_argument("--a-pid", type=int, required=True)
    s.add_argument("--b-pid", type=int, required=True)
    s.set_defaults(fn=cmd_spec_rping)
    s = sub.add_parser("overflow")
    for k in ("s0", "s1", "s2", "pre", "big", "out"):
        s.add_argument("--" + k, required=True)
    s.add_argument("--max", type=int, required=True)
    s.set_defaults(fn=cmd_overflow)
    s = sub.add_parser("retain")
    for k in ("s0", "s1", "s2", "json", "polls", "out"):
        s.add_argument("--" + k, required=True)
    for k in ("tb", "ta", "retain", "slack"):
        s.add_argument("--" + k, type=int, required=True)
    s.add_argument("--others", type=int, default=0)
    s.add_argument("--snap-retain", type=int, default=0)
    s.set_defaults(fn=cmd_retain)
    s = sub.add_parser("filters")
    for k in ("full", "again", "cases", "dir", "out"):
        s.add_argument("--" + k, required=True)
    s.add_argument("--expect-nonempty")
    s.set_defaults(fn=cmd_filters)
    s = sub.add_parser("schema")
    for k in ("spec", "qp", "dev", "stats", "out"):
        s.add_argument("--" + k, required=True)
    s.set_defaults(fn=cmd_schema)
    s = sub.add_parser("pidns")
    for k in ("inner", "inside", "inside-pid", "outside", "nspid", "out"):
        s.add_argument("--" + k, required=True)
    s.add_argument("--global-pid", type=int, required=True)
    s.set_defaults(fn=cmd_pidns)
    s = sub.add_parser("reset")
    for k in ("s0", "s1", "scope", "out"):
        s.add_argument("--" + k, required=True)
    s.add_argument("--min-named", type=int)
    s.set_defaults(fn=cmd_reset)
    s = sub.add_parser("resumed")
    for k in ("s0", "s1", "out"):
        s.add_argument("--" + k, required=True)
    s.set_defaults(fn=cmd_resumed)
    s = sub.add_parser("cm")
    s.add_argument("--tsv", required=True)
    s.set_defaults(fn=cmd_cm)
    s = sub.add_parser("tsv")
    s.add_argument("pcap")
    s.add_argument("tsv")
    s.set_defaults(fn=cmd_tsv)
    s = sub.add_parser("pcap-summary")
    s.add_argument("--tsv", required=True)
    s.add_argument("--cuts")
    s.set_defaults(fn=cmd_pcap_summary)
    s = sub.add_parser("json-lines")
    s.add_argument("file")
    s.set_defaults(fn=cmd_json_lines)
    args = p.parse_args(argv)
    args.fn(args)


if __name__ == "__main__":
    main()
