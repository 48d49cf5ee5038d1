#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Oracles of selftests/export.sh: a fabtrace exposition against itself,
against "fabtrace -j qp show" and "dev show" taken at the same moment,
against the series bound, and a Prometheus server's HTTP query API.

Each check prints "# ..." lines saying what it compared and exits 0 when it
holds, 1 when it does not.

  export_check.py sums EXPO              groups add up to the device totals
  export_check.py monotonic EXPO...      no counter goes down, file to file
  export_check.py match EXPO QPS DEVS BY   groups, other, totals, top QPs ==
                                         qp show / dev show (BY: owner|cgroup)
  export_check.py bound EXPO DEVS PORTS GROUPS TOP [HW_PORTS]   series <= the formula
  export_check.py query URL EXPR [WANT [TOL]]   Prometheus' answer: a number
                                         (within TOL, a fraction) or "any"
  export_check.py get URL                the body of URL on stdout (exit 1 if
                                         it cannot be had)
"""

import json
import re
import sys
import time
import urllib.parse
import urllib.request

TRAFFIC = ["packets", "bytes", "send", "write", "read_req", "read_resp", "atomic",
           "ack", "nak", "cnp", "other"]
OPCODES = TRAFFIC[2:]
CONG = [("rx_ect", "rx_ect_packets_total"), ("rx_ce", "rx_ce_packets_total"),
        ("retransmits", "retransmitted_packets_total"), ("timeouts", "timeouts_total"),
        ("rnr_timeouts", "rnr_timeouts_total"), ("rx_dup", "rx_duplicate_packets_total"),
        ("rx_oos", "rx_out_of_sequence_packets_total"),
        ("retry_exhausted", "retry_exhausted_total"), ("errors", "error_state_entries_total")]
SYNDROMES = ["psn_seq", "rnr", "rem_access", "inv_req", "rem_op", "other"]
BOUND = (25, 36, 45, 121, 17)   # fixed, per device, per group, per port, per top QP
HW_PORT = 4 + 128               # per hardware NIC port: ECN/CNP terms, its driver's counters


def parse(path):
    """{(name, ((label, value), ...)): value} of an exposition file."""
    out = {}
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        m = re.match(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})? (\S+)$", line)
        if not m:
            raise ValueError("not a sample: %r" % line)
        labels, body = [], m.group(2) or ""
        i = 1
        while i < len(body) - 1:
            j = body.index("=", i)
            name, i, val = body[i:j], j + 2, ""
            while body[i] != '"':
                if body[i] == "\\":
                    val += {"n": "\n", "\\": "\\", '"': '"'}[body[i + 1]]
                    i += 2
                else:
                    val += body[i]
                    i += 1
            labels.append((name, val))
            i += 2 if body[i + 1:i + 2] == "," else 1
        v = m.group(3)
        out[(m.group(1), tuple(labels))] = int(v) if v.isdigit() else float(v)
    return out


def clean(s):
    """What the export makes of a string: controls to U+FFFD."""
    return "".join("\ufffd" if ord(c) < 0x20 or 0x7f <= ord(c) < 0xa0 else c for c in s)


def series_of(expo, name, **want):
    return {dict(k[1]).get("device") if not want else k[1]: v for k, v in expo.items()
            if k[0] == name and all(dict(k[1]).get(a) == b for a, b in want.items())}


def qp_counters(q):
    """A QP's counters by the exposition's family and extra label."""
    c = {}
    for d in ("tx", "rx"):
        c[("%s_packets_total" % d, None)] = q[d]["packets"]
        c[("%s_bytes_total" % d, None)] = q[d]["bytes"]
        for op in OPCODES:
            c[("%s_opcode_packets_total" % d, ("opcode", op))] = q[d][op]
        for s in SYNDROMES:
            c[("%s_naks_total" % d, ("syndrome", s))] = q["cong"]["%s_nak" % d][s]
    for key, fam in CONG:
        c[(fam, None)] = q["cong"][key]
    return c


def group_key(q, by):
    if by == "cgroup":
        if "cgroup" in q:
            return (("cgroup", clean(q["cgroup"])),)
        return (("cgroup", "kernel" if "cgroup_id" not in q else None),)
    return (("peer", q.get("peer", "none")), ("prio", str(q.get("prio", "none"))),
            ("comm", clean(q["comm"])))


def fail(errs, what):
    for e in errs[:20]:
        print("# " + e)
    if len(errs) > 20:
        print("# ... %d more" % (len(errs) - 20))
    print("# %s: %s" % (what, "FAILED" if errs else "ok"))
    return 1 if errs else 0


def cmd_sums(a):
    expo, errs, n = parse(a[0]), [], 0
    for (name, labels), v in expo.items():
        # rxe's drops are the device's alone: no QP, so no group, has them
        if not name.startswith("fabtrace_device_") or name[16:].split("_")[0] not in ("tx", "rx") \
                or "unknown" in name or "dropped" in name:
            continue
        fam = "fabtrace_qps_" + name[16:]
        extra = [x for x in labels if x[0] != "device"]
        total = sum(w for (m, l), w in expo.items() if m == fam and
                    dict(l)["device"] == dict(labels)["device"] and all(x in l for x in extra))
        n += 1
        if total != v:
            errs.append("%s%s: groups add up to %s" % (name, dict(labels), total))
    if not n:
        errs.append("no device totals")
    return fail(errs, "%d device totals == the sums of their groups" % n)


def cmd_monotonic(a):
    errs, prev = [], None
    for path in a:
        cur = parse(path)
        if prev:
            for k, v in prev.items():
                if k[0].endswith("_total") and k[0].startswith(("fabtrace_qps_", "fabtrace_device_",
                                                                "fabtrace_module_", "fabtrace_pfc_")) \
                        and k in cur and cur[k] < v:
                    errs.append("%s %s: %s -> %s (%s)" % (k[0], dict(k[1]), v, cur[k], path))
        prev = cur
    return fail(errs, "%d expositions: no counter of a group, device, port or the module went down"
                % len(a))


def cmd_match(a):
    expo, qps, devs, by = parse(a[0]), json.load(open(a[1])), json.load(open(a[2])), a[3]
    errs = []
    if expo.get(("fabtrace_export_consistent", ())) != 1:
        errs.append("the export says its read was not consistent: the node was not quiet")
    for d in devs:
        dev = d["name"]
        mine = [q for q in qps if q["dev"] == dev]
        groups = {}
        for q in mine:
            g = groups.setdefault(group_key(q, by), {"live": 0, "in_error": 0, "c": {}})
            if "destroyed" not in q["flags"]:
                g["live"] += 1
                g["in_error"] += q["state"] == "err"
            for k, v in qp_counters(q).items():
                g["c"][k] = g["c"].get(k, 0) + v
        other = {}
        for (fam, extra) in qp_counters(mine[0]) if mine else []:
            if not fam.startswith(("tx_", "rx_")) or fam.startswith(("rx_ect", "rx_ce", "rx_dup",
                                                                     "rx_out", "tx_naks", "rx_naks")):
                continue
            d_dir, what = fam.split("_", 1)
            total = d[d_dir][extra[1] if extra else what.split("_")[0]]
            got = expo.get(("fabtrace_device_" + fam, (("device", dev),) + ((extra,) if extra else ())))
            if got != total:
                errs.append("%s %s %s: exported %s, dev show %s" % (dev, fam, extra, got, total))
            other[(fam, extra)] = total - sum(g["c"][(fam, extra)] for g in groups.values())
        nolab = (("peer", "other"), ("prio", "other"), ("comm", "other")) if by == "owner" else \
            (("cgroup", "other"),)
        for (fam, extra), want in other.items():
            got = expo.get(("fabtrace_qps_" + fam, (("device", dev),) + nolab + ((extra,) if extra else ())))
            if got != want:
                errs.append("%s other %s %s: exported %s, dev show - qp show %s" % (dev, fam, extra, got, want))
        for key, g in groups.items():
            if any(v is None for _, v in key):
                continue        # a cgroup gone: its path is the state's
            base = (("device", dev),) + key
            for (fam, extra), want in g["c"].items():
                got = expo.get(("fabtrace_qps_" + fam, base + ((extra,) if extra else ())))
                if got != want:
                    errs.append("%s %s: exported %s, qp show %s" % (dict(base), fam + str(extra or ""), got, want))
            for fam in ("live", "in_error"):
                if expo.get(("fabtrace_qps_" + fam, base)) != g[fam]:
                    errs.append("%s %s: exported %s, qp show %s" % (dict(base), fam,
                                expo.get(("fabtrace_qps_" + fam, base)), g[fam]))
        print("# %s: %d QPs in %d groups (%s), other tx packets %s" %
              (dev, len(mine), len(groups), by, other.get(("tx_packets_total", None))))
    # the top QPs: their own counters, as qp show has them
    tops = [dict(k[1]) for k in expo if k[0] == "fabtrace_qp_info"]
    for t in tops:
        q = [q for q in qps if q["dev"] == t["device"] and str(q["qpn"]) == t["qpn"]]
        q = [x for x in q if "destroyed" not in x["flags"]] or q
        if not q:
            errs.append("top QP %s not in qp show" % t)
            continue
        q = q[0]
        lab = (("device", t["device"]), ("qpn", t["qpn"]))
        for fam, v in (("tx_packets_total", q["tx"]["packets"]), ("rx_bytes_total", q["rx"]["bytes"]),
                       ("rx_ce_packets_total", q["cong"]["rx_ce"]),
                       ("tx_cnp_packets_total", q["tx"]["cnp"])):
            if expo.get(("fabtrace_qp_" + fam, lab)) != v:
                errs.append("top QP %s %s: exported %s, qp show %s" % (t["qpn"], fam,
                            expo.get(("fabtrace_qp_" + fam, lab)), v))
        if t["comm"] != clean(q["comm"]) or t["peer"] != q.get("peer", "none"):
            errs.append("top QP %s info %s, qp show comm %r peer %s" % (t["qpn"], t, q["comm"], q.get("peer")))
    print("# %d top QPs checked" % len(tops))
    return fail(errs, "exposition == qp show and dev show of the same moment")


def cmd_bound(a):
    expo = parse(a[0])
    ndev, nport, groups, top = (int(x) for x in a[1:5])
    hw_ports = int(a[5]) if len(a) > 5 else 0
    bound = (BOUND[0] + ndev * (BOUND[1] + BOUND[2] * (groups + 1)) + nport * BOUND[3] +
             hw_ports * HW_PORT + top * BOUND[4])
    n, errs = len(expo), []
    if n > bound:
        errs.append("%d series, more than %d" % (n, bound))
    if expo.get(("fabtrace_export_series", ())) != n:
        errs.append("fabtrace_export_series says %s, the file has %d" %
                    (expo.get(("fabtrace_export_series", ())), n))
    if expo.get(("fabtrace_export_max_series", ())) != bound:
        errs.append("fabtrace_export_max_series says %s, the formula %d" %
                    (expo.get(("fabtrace_export_max_series", ())), bound))
    print("# %d series for %s QP entries; bound %d + %d devices * (%d + %d * (%d + 1)) + %d ports * %d"
          " + %d hardware ports * %d + %d top * %d = %d" %
          (n, expo.get(("fabtrace_export_qps", ())), BOUND[0], ndev, BOUND[1], BOUND[2], groups,
           nport, BOUND[3], hw_ports, HW_PORT, top, BOUND[4], bound))
    return fail(errs, "series count under the stated bound")


def cmd_query(a):
    url, expr = a[0], a[1]
    want = a[2] if len(a) > 2 else "any"
    tol = float(a[3]) if len(a) > 3 else 0.0
    q = urllib.parse.urlencode({"query": expr, "time": "%.3f" % time.time()})
    try:
        with urllib.request.urlopen("%s/api/v1/query?%s" % (url, q), timeout=10) as r:
            res = json.load(r)
    except (OSError, ValueError) as e:
        return fail(["cannot ask %s: %s" % (url, e)], "Prometheus answers %s" % expr)
    vals = [float(x["value"][1]) for x in res["data"]["result"]]
    print("# query %s -> %s" % (expr, json.dumps(res["data"]["result"])[:600]))
    errs = []
    if res.get("status") != "success" or not vals:
        errs.append("no result")
    elif want != "any":
        w = float(want)
        if abs(sum(vals) - w) > tol * abs(w):
            errs.append("got %s, want %s (tolerance %s)" % (sum(vals), w, tol))
    return fail(errs, "Prometheus answers %s" % expr)


def cmd_get(a):
    try:
        with urllib.request.urlopen(a[0], timeout=5) as r:
            sys.stdout.write(r.read().decode("utf-8", "replace"))
        return 0
    except OSError:
        return 1


if __name__ == "__main__":
    cmds = {"sums": cmd_sums, "monotonic": cmd_monotonic, "match": cmd_match,
            "bound": cmd_bound, "query": cmd_query, "get": cmd_get}
    if len(sys.argv) < 3 or sys.argv[1] not in cmds:
        print(__doc__)
        sys.exit(2)
    sys.exit(cmds[sys.argv[1]](sys.argv[2:]))
