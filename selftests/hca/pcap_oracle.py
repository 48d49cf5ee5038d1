#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""What a RoCE capture says a responder and a requester counted.

    pcap_oracle.py [--psn IP/QPN=PSN]... [--mtu N] PCAP

Decodes PCAP with tshark (RoCEv2 on UDP 4791) and prints one JSON object:

    {"frames": N, "qp": {"IP/QPN": {counts}}}

keyed by destination address and BTH destination QP (decimal), in capture
order.  Counts: pkts; send, write, read, atomic (request packets by
operation); resp (read responses, atomic ACKs); ack, nak_seq, nak_rnr,
nak_other (AETH of RC ACKNOWLEDGE packets); ce (ECN = CE), cnp (0x81).

For a responder QP whose first expected PSN is given (--psn, the peer's
first send PSN), its RC requests are replayed through rxe's check_psn: a
PSN past the expected one is out of sequence (rxe drops it: the expected
PSN stays), one before it a duplicate; one equal is taken and the expected
PSN moves past it (past all of a READ's response packets: its DMA length in
MTU-sized packets).  Counts: oos, dup.  The capture must be taken on the
responder's node, where packets arrive in the order rxe receives them.
"""
import argparse
import json
import subprocess
import sys

FIELDS = ("ip.dst", "infiniband.bth.destqp", "infiniband.bth.opcode",
          "infiniband.bth.psn", "ip.dsfield.ecn", "infiniband.aeth.syndrome",
          "infiniband.reth.dmalen")
COUNTS = ("pkts", "send", "write", "read", "atomic", "resp", "ack",
          "nak_seq", "nak_rnr", "nak_other", "ce", "cnp", "oos", "dup")


def num(s):
    s = s.split(",")[0]
    return int(s, 0) if s else None


def psn_diff(a, b):
    """Signed 24-bit distance from b to a."""
    d = (a - b) & 0xffffff
    return d - 0x1000000 if d & 0x800000 else d


def kind(op):
    """What an RC/UC request or response opcode is (None: neither)."""
    low = op & 0x1f
    if low <= 0x05 or low in (0x16, 0x17):
        return "send"
    if low <= 0x0b:
        return "write"
    if low == 0x0c:
        return "read"
    if low in (0x13, 0x14, 0x1d):
        return "atomic"
    if 0x0d <= low <= 0x10 or low == 0x12:
        return "resp"
    if low == 0x11:
        return "ack"
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--psn", action="append", default=[],
                    help="IP/QPN=PSN: first PSN the responder QP expects")
    ap.add_argument("--mtu", type=int, default=1024)
    ap.add_argument("pcap")
    args = ap.parse_args()
    expect = {}
    for a in args.psn:
        key, psn = a.split("=")
        expect[key] = int(psn, 0)

    out = subprocess.run(
        ["tshark", "-n", "-r", args.pcap, "-Y", "infiniband", "-T", "fields",
         "-E", "separator=/t"] + [x for f in FIELDS for x in ("-e", f)],
        check=True, capture_output=True, text=True).stdout
    qps, frames = {}, 0
    for line in out.splitlines():
        f = line.split("\t")
        if len(f) < len(FIELDS) or not f[1]:
            continue
        frames += 1
        dst, qpn, op, psn, ecn, syn, dmalen = (
            f[0], num(f[1]), num(f[2]), num(f[3]), num(f[4]) or 0,
            num(f[5]), num(f[6]))
        key = "%s/%d" % (dst, qpn)
        q = qps.setdefault(key, dict.fromkeys(COUNTS, 0))
        q["pkts"] += 1
        if ecn == 3:
            q["ce"] += 1
        if op == 0x81:
            q["cnp"] += 1
            continue
        if op >> 5 not in (0, 1):       # RC, UC
            continue
        k = kind(op)
        if k == "ack":
            if syn is None:
                continue
            t = syn >> 5
            if t == 0:
                q["ack"] += 1
            elif t == 1:
                q["nak_rnr"] += 1
            elif t == 3 and (syn & 0x1f) == 0:
                q["nak_seq"] += 1
            else:
                q["nak_other"] += 1
            continue
        if k is None:
            continue
        q[k] += 1
        if k == "resp" or op >> 5 != 0 or key not in expect:
            continue
        d = psn_diff(psn, expect[key])
        if d > 0:
            q["oos"] += 1
        elif d < 0:
            q["dup"] += 1
        elif k == "read":
            n = max(1, -(-(dmalen or 0) // args.mtu))
            expect[key] = (psn + n) & 0xffffff
        else:
            expect[key] = (psn + 1) & 0xffffff
    json.dump({"frames": frames, "qp": qps}, sys.stdout)
    print()


if __name__ == "__main__":
    main()
