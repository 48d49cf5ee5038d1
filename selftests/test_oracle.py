#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of oracle.py on recorded data (make check: host only, seconds).

testdata/oracle/ holds what the selftests wrote in a two-node run on 6.12
(FT_OUT), each case with the verdicts the run reached ("results"): the
checks must reach them again, and must fail what a defect would change.
  perftest-ud  qp_oracles.sh's UD pattern: snapshots, spec, capture, live
               samples, perftest's logs
  rping        qp_cm.sh: the same for rping over rdma_cm, and its pcap
  ftqps        qp_scale.sh's ft_qps JSON, cut to its first 3 QP pairs
  retain       qp_retain.sh (retain_ms 1500 in sysfs, slack 1500 ms)
  filters      qp_filter.sh's dumps, 11 of its filters
  schema       qp_filter.sh's JSON, and the spec's attribute sets then
  pidns        qp_filter.sh's PID namespace reads (pid 1538, NSpid 1538 2)
  reset        qp_reset.sh: qp reset of one QP (s4), of rxe1 (s8); resumed
  overflow     qp_scale.sh's max_qps part (max_qps 50)
  summary      captures of cong_rnr.sh and cong_ecn.sh (two windows of it,
               and a cut made up among its last frames), with what
               cong_pcap_summary made of them before it moved here

  /usr/bin/python3 -m unittest -v test_oracle     (in selftests/)
"""

import contextlib
import io
import json
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import oracle  # noqa: E402 (after its directory is on the path)

DATA = os.path.join(HERE, "testdata", "oracle")


def data(*path):
    return os.path.join(DATA, *path)


def verdicts(path):
    with open(path) as f:
        return dict(line.split() for line in f)


class Case(unittest.TestCase):
    """A scratch directory per test; runs oracle.py's subcommands in-process."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="test_oracle.")
        self.addCleanup(shutil.rmtree, self.tmp)

    def run_cmd(self, *argv):
        """stdout of oracle.py ARGV; a sys.exit() other than 0 fails the test"""
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            try:
                oracle.main([str(a) for a in argv])
            except SystemExit as e:
                if e.code:
                    self.fail("oracle.py %s: exit %r" % (argv[0], e.code))
        return out.getvalue()

    def check(self, *argv):
        """the verdicts of a check subcommand (it writes them to --out)"""
        res = os.path.join(self.tmp, "results")
        self.run_cmd(*argv, "--out", res)
        return verdicts(res)

    def copy(self, case):
        """a copy of a case's files, to change"""
        d = os.path.join(self.tmp, case)
        shutil.copytree(data(case), d)
        return d

    def edit_json(self, path, fn):
        with open(path) as f:
            doc = json.load(f)
        fn(doc)
        with open(path, "w") as f:
            json.dump(doc, f)

    def failed(self, got, keys):
        """exactly KEYS fail, the rest pass"""
        self.assertEqual(sorted(k for k, v in got.items() if v != "ok"), sorted(keys), got)


# --- the wire ---

class Wire(unittest.TestCase):
    def test_classify(self):
        self.assertEqual(oracle.classify(0x0a, None), ("write", 16))    # RC WRITE ONLY
        self.assertEqual(oracle.classify(0x2a, None), ("write", 16))    # UC
        self.assertEqual(oracle.classify(0x64, None), ("send", 8))      # UD SEND ONLY
        self.assertEqual(oracle.classify(0x11, 0x1f), ("ack", 4))       # ACK, credits
        self.assertEqual(oracle.classify(0x11, 0x60), ("nak", 4))       # PSN sequence error
        self.assertEqual(oracle.classify(0x11, 0x2e), ("nak", 4))       # RNR NAK
        self.assertEqual(oracle.classify(0x81, None), ("cnp", 16))
        self.assertIsNone(oracle.classify(0x15, None))                  # reserved

    def test_nak_code(self):
        self.assertEqual(oracle.nak_code(0x60), "psn_seq")
        self.assertEqual(oracle.nak_code(0x61), "inv_req")
        self.assertEqual(oracle.nak_code(0x62), "rem_access")
        self.assertEqual(oracle.nak_code(0x63), "rem_op")
        self.assertEqual(oracle.nak_code(0x64), "other")
        self.assertEqual(oracle.nak_code(0x2e), "rnr")

    def test_psn_diff_wraps_at_24_bits(self):
        self.assertEqual(oracle.psn_diff(5, 3), 2)
        self.assertEqual(oracle.psn_diff(0, 0xffffff), 1)
        self.assertEqual(oracle.psn_diff(0xffffff, 0), -1)
        self.assertEqual(oracle.psn_diff(0x7fffff, 0), 0x7fffff)
        self.assertEqual(oracle.psn_diff(0x800000, 0), -0x800000)

    def test_read_tsv(self):
        rows = oracle.read_tsv(data("rping", "capture.tsv"))
        self.assertEqual(len(rows), 65)
        r = rows[0]                         # A's CM REQ to B's QP1
        self.assertEqual((r["frame"], r["src"], r["dst"], r["op"], r["destqp"], r["attr"]),
                         (1, "10.99.0.1", "10.99.0.2", 0x64, 1, 0x10))
        self.assertEqual(r["ns"], 1796393238783712000)
        self.assertEqual(r["ecn"], 0)
        self.assertEqual(rows[1]["rep_qpn"], 0x23)

    @unittest.skipUnless(shutil.which("tshark"), "tshark is not installed")
    def test_tsv_of_a_capture(self):
        tmp = tempfile.mkdtemp(prefix="test_oracle.")
        self.addCleanup(shutil.rmtree, tmp)
        tsv = os.path.join(tmp, "capture.tsv")
        self.assertEqual(oracle.tshark_tsv(data("rping", "rping.pcap"), tsv), 0)
        with open(tsv) as a, open(data("rping", "capture.tsv")) as b:
            self.assertEqual(a.read(), b.read())


# --- a traffic pattern: the four oracles ---

class PerftestUd(Case):
    def args(self, d):
        return ["check"] + [x for k in ("a0", "a1", "b0", "b1") for x in ("--" + k, "%s/%s.json" % (d, k))] + [
            "--spec", d + "/spec.json", "--tsv", d + "/capture.tsv", "--caperr", d + "/tcpdump.err",
            "--self-ip", "10.99.0.1", "--live-a", d + "/live-a.txt", "--live-b", d + "/live-b.txt"]

    def test_the_run_passes_again(self):
        self.assertEqual(self.check(*self.args(data("perftest-ud"))), verdicts(data("perftest-ud", "results")))

    def test_spec_from_perftest_logs(self):
        d = data("perftest-ud")
        out = self.run_cmd("spec-perftest", "--client", d + "/client.log", "--server", d + "/server.log",
                           "--pattern", "ud", "--comm", "ib_send_bw", "--ip-a", "10.99.0.1",
                           "--ip-b", "10.99.0.2")
        with open(d + "/spec.json") as f:
            self.assertEqual(json.loads(out), json.load(f))

    def test_one_packet_more_on_a_qp(self):
        d = self.copy("perftest-ud")

        def more(s):
            q = [q for q in s["qps"] if q["qpn"] == 17][0]
            q["tx"]["packets"] += 1
            q["tx"]["send"] += 1
        self.edit_json(d + "/a1.json", more)
        # rxe's count, B's rx and the capture each disagree with it
        self.failed(self.check(*self.args(d)), ["rdma_a", "peer", "wire"])

    def test_a_frame_missing_from_the_capture(self):
        d = self.copy("perftest-ud")
        with open(d + "/capture.tsv") as f:
            lines = f.readlines()
        with open(d + "/capture.tsv", "w") as f:
            f.writelines(lines[:100] + lines[101:])
        self.failed(self.check(*self.args(d)), ["wire"])

    def test_a_capture_the_kernel_dropped_from(self):
        d = self.copy("perftest-ud")
        with open(d + "/tcpdump.err", "w") as f:
            f.write("400 packets captured\n401 packets received by filter\n1 packet dropped by kernel\n")
        self.failed(self.check(*self.args(d)), ["wire"])

    def test_bytes_perftest_did_not_move(self):
        d = self.copy("perftest-ud")
        self.edit_json(d + "/spec.json", lambda s: s["bytes"][0].__setitem__(3, s["bytes"][0][3] + 1024))
        self.failed(self.check(*self.args(d)), ["bytes"])

    def test_a_missed_hook(self):
        d = self.copy("perftest-ud")
        self.edit_json(d + "/b1.json", lambda s: s["stats"].__setitem__("hook_missed", 1))
        self.failed(self.check(*self.args(d)), ["stats"])

    def test_wrong_owner(self):
        d = self.copy("perftest-ud")
        self.edit_json(d + "/spec.json", lambda s: s["meta"][0][2].__setitem__("comm", "ib_write_bw"))
        self.failed(self.check(*self.args(d)), ["meta"])


class Rping(Case):
    def args(self, d):
        return ["check"] + [x for k in ("a0", "a1", "b0", "b1") for x in ("--" + k, "%s/%s.json" % (d, k))] + [
            "--spec", d + "/spec.json", "--tsv", d + "/capture.tsv", "--caperr", d + "/tcpdump.err",
            "--self-ip", "10.99.0.1", "--live-a", d + "/live-a.txt", "--live-b", d + "/live-b.txt", "--gsi"]

    def test_the_run_passes_again(self):
        got = self.check(*self.args(data("rping")))
        self.assertEqual(got, verdicts(data("rping", "results")))
        self.assertEqual(got["gsi"], "ok")

    def test_spec_from_the_cm_mads(self):
        d = data("rping")
        with open(d + "/spec.json") as f:
            want = json.load(f)
        pids = {m[0]: m[2]["pid"] for m in want["meta"] if m[2]["type"] == "rc"}
        out = self.run_cmd("spec-rping", "--tsv", d + "/capture.tsv", "--a-pid", pids["a"],
                           "--b-pid", pids["b"], "--ip-a", "10.99.0.1", "--ip-b", "10.99.0.2")
        self.assertEqual(json.loads(out), want)

    def test_cm_mads(self):
        out = self.run_cmd("cm", "--tsv", data("rping", "capture.tsv")).split()
        self.assertEqual(out[:3], ["10.99.0.1:REQ", "10.99.0.2:REP", "10.99.0.1:RTU"])
        self.assertIn("10.99.0.1:DREQ", out)

    def test_no_cm_rep(self):
        d = self.copy("rping")
        with open(d + "/capture.tsv") as f:
            lines = [x for x in f if x.split("\t")[9] != "0x0013"]
        with open(d + "/capture.tsv", "w") as f:
            f.writelines(lines)
        got = self.check(*self.args(d))
        self.assertEqual(got["gsi"], "fail")
        self.assertEqual(got["wire"], "fail")


    def dropped_retransmission(self, drops):
        """B retransmits its last send; it reaches A (the capture has it)
        after A's QP stopped accepting requests, and rxe drops it: DROPS
        is what A's device counts for QP state"""
        d = self.copy("rping")
        with open(d + "/capture.tsv") as f:
            rows = f.readlines()
        last = [r for r in rows if r.split("\t")[1] == "10.99.0.2" and r.split("\t")[4] == "4"][-1].split("\t")
        last[0], last[13] = "66", "1796393241.650000000"
        with open(d + "/capture.tsv", "a") as f:
            f.write("\t".join(last))
        with open(d + "/tcpdump.err") as f:
            err = f.read().replace("65 packets", "66 packets")
        with open(d + "/tcpdump.err", "w") as f:
            f.write(err)

        def b_sent_one(doc):
            q = [q for q in doc["qps"] if q["qpn"] == 35][0]
            for t in (q["tx"], doc["dev"][0]["tx"]):
                t.update(packets=t["packets"] + 1, bytes=t["bytes"] + 16, send=t["send"] + 1)
            q["cong"]["retransmits"] += 1
            q["flags"].append("congested")
            doc["rxe"][0]["sent_pkts"] += 1
        self.edit_json(d + "/b1.json", b_sent_one)
        for f, n in (("a0", 0), ("a1", drops)):
            self.edit_json("%s/%s.json" % (d, f), lambda doc, n=n: doc["dev"][0].update(rx_drops={"qp_state": n}))
        return self.check(*self.args(d))

    def test_retransmission_dropped_for_qp_state(self):
        # (6.1, a loaded host: B's retransmission reached A's QP in error)
        got = self.dropped_retransmission(1)
        self.assertEqual(got, verdicts(data("rping", "results")))

    def test_retransmission_lost_uncounted(self):
        # the same frame, without the drop that explains it
        self.failed(self.dropped_retransmission(0), ["peer", "wire"])

    def test_drop_without_a_shortfall(self):
        self.failed(self.dropped_retransmission(2), ["peer", "wire"])


class Ftqps(Case):
    def test_spec(self):
        d = data("ftqps")
        out = self.run_cmd("spec-ftqps", "--client", d + "/client.json", "--server", d + "/server.json",
                           "--state", "rts", "--flags", "destroyed", "--ip-a", "10.99.0.1",
                           "--ip-b", "10.99.0.2")
        with open(d + "/spec.json") as f:
            self.assertEqual(json.loads(out), json.load(f))

    def test_qps_that_do_not_name_each_other(self):
        d = self.copy("ftqps")
        self.edit_json(d + "/server.json", lambda s: s["qps"][0].__setitem__("remote_qpn", 99))
        with contextlib.redirect_stdout(io.StringIO()), self.assertRaises(SystemExit) as e:
            oracle.main(["spec-ftqps", "--client", d + "/client.json", "--server", d + "/server.json",
                         "--ip-a", "10.99.0.1", "--ip-b", "10.99.0.2"])
        self.assertIn("do not name each other", str(e.exception.code))


# --- retention ---

class Retain(Case):
    def args(self, d, retain=1500, slack=1500):
        with open(d + "/times") as f:
            tb, ta = f.read().split()
        return ["retain", "--s0", d + "/s0.json", "--s1", d + "/s1.json", "--s2", d + "/s2.json",
                "--json", d + "/qps.json", "--polls", d + "/polls", "--tb", tb, "--ta", ta,
                "--retain", retain, "--slack", slack]

    def test_the_run_passes_again(self):
        self.assertEqual(self.check(*self.args(data("retain"))), verdicts(data("retain", "results")))

    def test_a_longer_retain_ms_than_the_module_had(self):
        # the entries went about 1.7 s after their destruction: early for 3 s
        # (and the snapshot's retain_ms is not the one asked for)
        self.failed(self.check(*self.args(data("retain"), retain=3000)), ["final", "gone"])

    def synthetic(self, reads):
        """one destroyed QP (retain_ms 1000), read at READS: "ms:y" found
        it, "ms:n" did not"""
        d = os.path.join(self.tmp, "syn")
        os.makedirs(d)
        ms, t = 1000000, 10 ** 12
        q = {"qpn": 17, "flags": ["destroyed"], "state": "rts", "pid": 7, "comm": "ft_qps",
             "create_time": t - ms, "destroy_time": t,
             "tx": {"bytes": 100, "packets": 2}, "rx": {"bytes": 0, "packets": 0}}

        def snap(qps, retained, pkts):
            return {"qps": qps, "rxe": [{"sent_pkts": pkts, "rcvd_pkts": 0}],
                    "stats": {"retained": retained, "retain_ms": 1000}, "dev": [{"retained": retained}]}
        for name, doc in (("s0", snap([], 0, 0)), ("s1", snap([q], 1, 2)), ("s2", snap([], 0, 2)),
                          ("qps", {"pid": 7, "qps": [{"qpn": 17, "kind": "initiator", "bytes": 100,
                                                      "remote_qpn": 18}]})):
            with open("%s/%s.json" % (d, name), "w") as f:
                json.dump(doc, f)
        with open(d + "/times", "w") as f:
            f.write("%d %d\n" % (t - 2 * ms, t + ms))
        with open(d + "/polls", "w") as f:
            for r in reads.split():
                at, seen = r.split(":")
                us = (t + int(at) * ms) // 1000
                f.write("%d %d %s\n" % (us, us + 30000, json.dumps([q] if seen == "y" else [])))
        return self.check(*self.args(d, retain=1000, slack=500))

    def test_kept_then_gone_in_time(self):
        self.failed(self.synthetic("100:y 600:y 1100:n"), [])

    def test_a_first_read_that_starts_late_and_finds_nothing(self):
        self.failed(self.synthetic("2000:n"), [])

    def test_still_there_after_retain_ms_and_slack(self):
        self.failed(self.synthetic("100:y 1700:y 1900:n"), ["gone"])

    def test_gone_before_retain_ms(self):
        self.failed(self.synthetic("100:y 400:n"), ["gone"])


# --- the other tests' checks ---

class Filters(Case):
    NONEMPTY = "dev1,qp1,list,pid1,ud,gsi,init,destroyed,combo3,combo4"

    def args(self, d):
        return ["filters", "--full", d + "/full.json", "--again", d + "/again.json", "--cases",
                d + "/cases", "--dir", d, "--expect-nonempty", self.NONEMPTY]

    def test_the_run_passes_again(self):
        self.assertEqual(self.check(*self.args(data("filters"))), verdicts(data("filters", "results")))

    def test_parse_filter(self):
        m = oracle.parse_filter("dev rxe0 qpn 1,5-7 type rc destroyed".split())
        q = {"dev": "rxe0", "qpn": 6, "pid": 1, "type": "rc", "state": "rts", "flags": ["destroyed"]}
        self.assertTrue(m(q))
        self.assertFalse(m(dict(q, qpn=4)))
        self.assertFalse(m(dict(q, flags=[])))
        self.assertFalse(m(dict(q, dev="rxe1")))

    def test_an_entry_left_out(self):
        d = self.copy("filters")
        self.edit_json(d + "/fdev1.json", lambda s: s.pop())
        self.failed(self.check(*self.args(d)), ["case_dev1"])

    def test_an_entry_too_many(self):
        d = self.copy("filters")
        with open(d + "/full.json") as f:
            extra = json.load(f)[0]
        self.edit_json(d + "/fgsi.json", lambda s: s.append(extra))
        self.failed(self.check(*self.args(d)), ["case_gsi"])


class Schema(Case):
    def args(self, qp):
        return ["schema", "--spec", data("schema", "spec.yaml"), "--qp", qp,
                "--dev", data("schema", "dev.json"), "--stats", data("schema", "stats.json")]

    def test_the_run_passes_again(self):
        self.assertEqual(self.check(*self.args(data("schema", "qp.json"))),
                         verdicts(data("schema", "results")))

    def test_a_counter_missing(self):
        qp = os.path.join(self.tmp, "qp.json")
        shutil.copy(data("schema", "qp.json"), qp)
        self.edit_json(qp, lambda s: s[0]["cong"]["tx_nak"].pop("rnr"))
        self.failed(self.check(*self.args(qp)), ["qp"])

    def test_a_tapped_qp_not_said_tapped(self):
        qp = os.path.join(self.tmp, "qp.json")
        shutil.copy(data("schema", "qp.json"), qp)
        self.edit_json(qp, lambda s: s[0].__setitem__("source", "psn"))
        self.failed(self.check(*self.args(qp)), ["qp"])


class Pidns(Case):
    def args(self, d, pid=1538):
        return ["pidns", "--inner", d + "/inner.json", "--inside", d + "/inside.json", "--inside-pid",
                d + "/inside-pid.json", "--outside", d + "/outside.json", "--global-pid", pid,
                "--nspid", "%d 2" % pid]

    def test_the_run_passes_again(self):
        self.assertEqual(self.check(*self.args(data("pidns"))), verdicts(data("pidns", "results")))

    def test_the_global_pid_inside(self):
        d = self.copy("pidns")
        self.edit_json(d + "/inside.json", lambda s: [q.__setitem__("pid", 1538) for q in s])
        self.failed(self.check(*self.args(d)), ["inside"])


class Reset(Case):
    def args(self, n, scope):
        return ["reset", "--s0", data("reset", "s%s.a.json" % n), "--s1", data("reset", "s%s.b.json" % n),
                "--scope", scope, "--min-named", 1]

    def test_one_qp(self):
        self.assertEqual(self.check(*self.args(4, "qp:rxe0:1227")), verdicts(data("reset", "s4.res")))

    def test_a_device(self):
        self.assertEqual(self.check(*self.args(8, "dev:rxe1")), verdicts(data("reset", "s8.res")))

    def test_refused_changes_nothing(self):
        self.failed(self.check("reset", "--s0", data("reset", "s8.a.json"), "--s1", data("reset", "s8.a.json"),
                               "--scope", "none"), [])

    def test_more_zeroed_than_named(self):
        self.failed(self.check(*self.args(8, "qp:rxe1:17")), ["entries"])

    def test_fewer_zeroed_than_named(self):
        self.failed(self.check(*self.args(4, "all")), ["entries"])

    def test_resumed(self):
        self.assertEqual(self.check("resumed", "--s0", data("reset", "r0.json"), "--s1", data("reset", "r1.json")),
                         verdicts(data("reset", "resumed")))


class Overflow(Case):
    def args(self, maxq):
        d = data("overflow")
        return ["overflow", "--s0", d + "/s0.json", "--s1", d + "/s1.json", "--s2", d + "/s2.json",
                "--pre", d + "/pre.json", "--big", d + "/big.json", "--max", maxq]

    def test_the_run_passes_again(self):
        self.assertEqual(self.check(*self.args(50)), verdicts(data("overflow", "results")))

    def test_another_max_qps(self):
        self.failed(self.check(*self.args(51)), ["tracked", "overflow"])


# --- the congestion tests' summary of a capture ---

class PcapSummary(Case):
    def summary(self, name, cuts=None):
        argv = ["pcap-summary", "--tsv", data("summary", name + ".tsv")]
        if cuts:
            argv += ["--cuts", data("summary", cuts)]
        got = json.loads(self.run_cmd(*argv))
        with open(data("summary", name + ".json")) as f:
            self.assertEqual(got, json.load(f))
        return got

    def test_rnr_naks_and_send_psns(self):
        got = self.summary("rnr")
        self.assertTrue(any(q["nak_rnr"] for q in got["qp"].values()))
        self.assertTrue(any(q["send_psns"] for q in got["qp"].values()))

    def test_ce_marks_a_repeated_psn_and_a_cut(self):
        q = self.summary("ecn", "ecn-cuts.json")["qp"]["10.99.0.1/1376"]
        self.assertEqual((q["ce"], q["req_repeat"], q["late"], q["edge"]), (2, 1, 16, 8))


class JsonLines(Case):
    def lines(self, text):
        p = os.path.join(self.tmp, "f")
        with open(p, "w") as f:
            f.write(text)
        return oracle.json_lines(p)

    def test_json_lines(self):
        self.assertIsNone(self.lines('{"a": 1}\n{"b": [2]}\n'))
        self.assertEqual(self.lines(""), "no lines")
        self.assertIn("line 2: not an object", self.lines('{"a": 1}\n[1]\n'))
        self.assertIn("line 1: not JSON", self.lines('{"a": 1\n'))


if __name__ == "__main__":
    unittest.main()
