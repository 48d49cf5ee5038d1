#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Host checks of selftests/progs: no RDMA device, no root, no VM needed.

  * ft_cnp's frames, field by field, with an ICRC recomputed here from the
    RoCEv2 rules with zlib.crc32 (independent of icrc.c's table and code);
  * this file's ICRC against real rdma_rxe frames (testdata/*.pcap), so the
    oracle itself is pinned to the kernel;
  * ft_icrc on hand-made frames: masked fields may change, others may not,
    IPv6 too;
  * tshark's reading of the CNPs, when tshark is installed;
  * ft_pfc's PFC, PAUSE and malformed frames, field by field and in
    tshark's reading, and its JSON's times against the pcap's;
  * every program's option checking (exit 2), --help (exit 0), and a clear
    error when the RDMA device does not exist.
Prints TAP; exit 0 when everything passed.
"""

import glob
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
BIN = os.environ.get("FT_PROGS", HERE)     # where make put the binaries
TMP = tempfile.mkdtemp(prefix="ft-progs-check.")
results = []


def check(desc, ok, why=""):
    results.append(ok)
    print(f"{'ok' if ok else 'not ok'} {len(results)} {desc}")
    if not ok and why:
        for line in str(why).splitlines():
            print(f"# {line}")


def run(*args, stdin=subprocess.DEVNULL):
    return subprocess.run([os.path.join(BIN, args[0]), *args[1:]], capture_output=True,
                          text=True, stdin=stdin, timeout=30)


# ---- pcap ------------------------------------------------------------------

def read_pcap(path):
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack("<I", data[:4])[0]
    end = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    link = struct.unpack(end + "I", data[20:24])[0]
    off, frames = 24, []
    while off + 16 <= len(data):
        incl = struct.unpack(end + "I", data[off + 8:off + 12])[0]
        frames.append(data[off + 16:off + 16 + incl])
        off += 16 + incl
    return link, frames


def write_pcap(path, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for fr in frames:
            f.write(struct.pack("<IIII", 0, 0, len(fr), len(fr)))
            f.write(fr)


# ---- the ICRC, from the RoCEv2 rules (IBA Annex A17), with zlib ------------

def icrc(l3):
    """ICRC over L3 (IP header .. end of payload/pad, no ICRC): CRC-32 of 8
    bytes of 0xff (the absent LRH) + the headers with their variant fields
    set to ones + the rest."""
    b = bytearray(l3)
    if b[0] >> 4 == 4:
        hl = 20
        b[1] = 0xFF                      # DSCP + ECN
        b[8] = 0xFF                      # TTL
        b[10:12] = b"\xff\xff"           # header checksum
    else:
        hl = 40
        b[0] |= 0x0F                     # traffic class ...
        b[1:4] = b"\xff\xff\xff"         # ... and flow label
        b[7] = 0xFF                      # hop limit
    b[hl + 6:hl + 8] = b"\xff\xff"       # UDP checksum
    b[hl + 8 + 4] = 0xFF                 # BTH resv8a: FECN, BECN, reserved
    return zlib.crc32(b"\xff" * 8 + bytes(b)) & 0xFFFFFFFF


def l3_of(frame):
    """IP packet of an Ethernet frame carrying RoCEv2, bounded by the IP
    length (Ethernet padding is not part of it), or None."""
    et = struct.unpack(">H", frame[12:14])[0]
    ip = frame[14:]
    if et == 0x0800 and ip[9] == 17:
        hl, n = (ip[0] & 0xF) * 4, struct.unpack(">H", ip[2:4])[0]
    elif et == 0x86DD and ip[6] == 17:
        hl, n = 40, 40 + struct.unpack(">H", ip[4:6])[0]
    else:
        return None
    if struct.unpack(">H", ip[hl + 2:hl + 4])[0] != 4791:
        return None
    return ip[:n]


def ip_csum(h):
    s = sum(struct.unpack(">10H", h))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


# ---- 1. ft_cnp frames ------------------------------------------------------

def check_cnp(qpn, dscp, ecn, sport=None, pkey=None, count=3):
    pcap = os.path.join(TMP, f"cnp-{qpn}.pcap")
    args = ["ft_cnp", "--pcap", pcap, "--src-ip", "10.99.0.1", "--dst-ip", "10.99.0.2",
            "--src-mac", "52:54:00:fa:00:01", "--dst-mac", "52:54:00:fa:00:02",
            "--qpn", str(qpn), "--count", str(count), "--dscp", str(dscp), "--ecn", str(ecn)]
    if sport is not None:
        args += ["--sport", str(sport)]
    if pkey is not None:
        args += ["--pkey", str(pkey)]
    r = run(*args)
    desc = f"ft_cnp qpn={qpn:#x} dscp={dscp} ecn={ecn}"
    if r.returncode:
        check(desc + ": runs", False, r.stderr)
        return None
    import json
    out = json.loads(r.stdout)
    _, frames = read_pcap(pcap)
    errs = []
    if out["sent"] != count or len(frames) != count:
        errs.append(f"sent {out['sent']}, pcap has {len(frames)}, want {count}")
    want_sport = sport if sport is not None else 0xC000 | (qpn & 0x3FFF)
    for fr in frames:
        e = []
        if len(fr) != 74 or out["bytes_per_frame"] != 74:
            e.append(f"length {len(fr)}")
        if fr[0:6] != bytes.fromhex("525400fa0002") or fr[6:12] != bytes.fromhex("525400fa0001"):
            e.append("MACs")
        if fr[12:14] != b"\x08\x00":
            e.append("ethertype")
        ip, udp, bth = fr[14:34], fr[34:42], fr[42:54]
        if ip[0] != 0x45 or ip[1] != (dscp << 2 | ecn) or ip[2:4] != b"\x00\x3c":
            e.append(f"IP ver/tos/len {ip[:4].hex()}")
        if ip[6:8] != b"\x40\x00" or ip[8] != 64 or ip[9] != 17:
            e.append("IP DF/TTL/proto")
        if ip_csum(ip) != 0:
            e.append("IP header checksum")
        if ip[12:16] != bytes([10, 99, 0, 1]) or ip[16:20] != bytes([10, 99, 0, 2]):
            e.append("IP addresses")
        if struct.unpack(">HHHH", udp) != (want_sport, 4791, 40, 0):
            e.append(f"UDP {struct.unpack('>HHHH', udp)}")
        if bth[0] != 0x81 or bth[1] != 0:
            e.append("BTH opcode/flags")
        if struct.unpack(">H", bth[2:4])[0] != (pkey if pkey is not None else 0xFFFF):
            e.append("P_Key")
        if bth[4] != 0x40:
            e.append("BECN (only) in byte 4")
        if int.from_bytes(bth[5:8], "big") != qpn or bth[8:12] != b"\0\0\0\0":
            e.append("DestQP/A/PSN")
        if fr[54:70] != b"\0" * 16:
            e.append("reserved bytes")
        if struct.unpack("<I", fr[70:74])[0] != icrc(fr[14:70]):
            e.append(f"ICRC {fr[70:74].hex()} != {icrc(fr[14:70]):08x} (zlib)")
        if int(out["icrc"], 16) != struct.unpack("<I", fr[70:74])[0]:
            e.append("JSON icrc")
        if e:
            errs.append(", ".join(e))
    check(desc + ": every field, and an ICRC equal to zlib's", not errs, "\n".join(errs))
    return pcap


cnp_pcaps = [check_cnp(0x11, 0, 0), check_cnp(0xABCDEF, 48, 1, count=5),
             check_cnp(0xFFFFFF, 63, 3, sport=4791, pkey=0x8001),
             check_cnp(0, 26, 2, count=1)]
cnp_pcaps = [p for p in cnp_pcaps if p]

r = run("ft_icrc", *cnp_pcaps)
check("ft_icrc accepts every ft_cnp frame", r.returncode == 0 and '"icrc_bad":0' in r.stdout,
      r.stdout + r.stderr)

# ---- 2. the oracle against real rxe frames ---------------------------------

rxe = sorted(glob.glob(os.path.join(HERE, "testdata", "*.pcap")))
n = bad = 0
for path in rxe:
    for fr in read_pcap(path)[1]:
        l3 = l3_of(fr)
        if l3 is None:
            continue
        n += 1
        if struct.unpack("<I", l3[-4:])[0] != icrc(l3[:-4]):
            bad += 1
check(f"zlib ICRC matches all {n} rdma_rxe frames in testdata/", n > 0 and bad == 0,
      f"{bad} of {n} differ")

# ---- 3. ft_icrc on hand-made variants --------------------------------------

base = read_pcap(cnp_pcaps[0])[1][0] if cnp_pcaps else None
if rxe:
    # a data-carrying rxe frame makes a better base than a CNP
    for fr in read_pcap(rxe[0])[1]:
        if l3_of(fr) is not None and len(l3_of(fr)) > 200:
            base = fr
            break


def variant(fr, xor):
    """FR with some L3 bytes XORed: xor=[(offset, mask)]; ICRC left as is."""
    b = bytearray(fr)
    for off, val in xor:
        b[14 + off] ^= val
    return bytes(b)


def ipv6_of(fr):
    """The same RoCE packet over IPv6 (ICRC recomputed here)."""
    l3 = l3_of(fr)
    body = l3[20:]
    ip6 = struct.pack(">IHBB", 6 << 28 | 0x2A << 20 | 0x12345, len(body), 17, 64)
    ip6 += bytes(15) + b"\x01" + bytes(15) + b"\x02"
    pkt = bytearray(ip6 + body)
    pkt[-4:] = struct.pack("<I", icrc(bytes(pkt[:-4])))
    return fr[:12] + b"\x86\xdd" + bytes(pkt)


if base is not None:
    masked = variant(base, [(1, 0x03), (8, 3), (10, 0x12), (11, 0x34),
                            (20 + 6, 0xAB), (20 + 8 + 4, 0xC0)])
    unmasked = [variant(base, [(4, 0x99)]),            # IP ID
                variant(base, [(20 + 8 + 7, 0x01)]),   # DestQP
                variant(base, [(20 + 8 + 12, 0x5A)])]  # after BTH
    v6 = ipv6_of(base)
    v6m = bytearray(v6)
    v6m[14] = (v6m[14] & 0xF0) | 0x3     # traffic class bits
    v6m[15:18] = b"\x00\x00\x00"         # flow label
    v6m[14 + 7] = 1                      # hop limit
    cases = [("masked IPv4 fields rewritten (TOS, TTL, csum, UDP csum, FECN/BECN)",
              [masked], 0),
             ("IP ID, DestQP or payload changed", unmasked, len(unmasked)),
             ("IPv6 frame, ICRC from zlib", [v6], 0),
             ("IPv6 frame with masked TC/flow label/hop limit rewritten", [bytes(v6m)], 0)]
    for desc, frames, want_bad in cases:
        p = os.path.join(TMP, "variant.pcap")
        write_pcap(p, frames)
        r = run("ft_icrc", "--quiet", p)
        ok = f'"icrc_bad":{want_bad}' in r.stdout and r.returncode == (1 if want_bad else 0)
        check(f"ft_icrc: {desc}: {want_bad} bad", ok, r.stdout + r.stderr)

# ---- 4. tshark's view of a CNP ---------------------------------------------

if shutil.which("tshark") and cnp_pcaps:
    r = subprocess.run(["tshark", "-r", cnp_pcaps[1], "-o", "ip.check_checksum:TRUE",
                        "-T", "fields", "-e", "infiniband.bth.opcode",
                        "-e", "infiniband.bth.destqp", "-e", "ip.checksum.status",
                        "-e", "udp.dstport", "-e", "ip.dsfield.dscp"],
                       capture_output=True, text=True, timeout=60)
    rows = [l.split("\t") for l in r.stdout.splitlines()]
    ok = len(rows) == 5 and all(x[0] == "129" and int(x[1], 16) == 0xABCDEF and
                                x[2] in ("1", "Good") and x[3] == "4791" and x[4] == "48"
                                for x in rows)
    check("tshark: opcode 129, DestQP, good IP checksum, UDP 4791, DSCP", ok,
          r.stdout + r.stderr)
else:
    print(f"ok {len(results) + 1} tshark decode # SKIP tshark not installed")
    results.append(True)

# ---- 5. ft_pfc: PFC and PAUSE frames -----------------------------------------

def pcap_times_ns(path):
    """Each record's time stamp, ns (microsecond pcap)."""
    with open(path, "rb") as f:
        data = f.read()
    off, out = 24, []
    while off + 16 <= len(data):
        sec, usec, incl, _ = struct.unpack("<IIII", data[off:off + 16])
        out.append(sec * 10**9 + usec * 1000)
        off += 16 + incl
    return out


PFC_SRC = "52:54:00:fa:00:01"


def check_pfc(name, args, count=1, prios=(3,), quanta=65535, glob=False, bad=None,
              interval_us=0):
    """ft_pfc --pcap with ARGS: every byte of every frame, from 802.1Qbb /
    802.3 Annex 31B as written here, and the JSON."""
    import json
    pcap = os.path.join(TMP, f"pfc-{name}.pcap")
    r = run("ft_pfc", "--pcap", pcap, "--src-mac", PFC_SRC, *args)
    desc = f"ft_pfc {name}"
    if r.returncode:
        check(desc + ": runs", False, r.stderr)
        return None
    out = json.loads(r.stdout)
    _, frames = read_pcap(pcap)
    times = pcap_times_ns(pcap)
    vec = 0xFF if glob else sum(1 << p for p in prios)
    want = bytes.fromhex("0180c2000002" if bad == "dst" else "0180c2000001")
    want += bytes.fromhex(PFC_SRC.replace(":", "")) + b"\x88\x08"
    want += struct.pack(">H", 0x0002 if bad == "opcode" else 0x0001 if glob else 0x0101)
    if glob:
        want += struct.pack(">H", quanta)
    else:
        want += struct.pack(">H", vec | (0x100 if bad == "vector" else 0))
        want += struct.pack(">8H", *[quanta if vec >> p & 1 else 0 for p in range(8)])
    want += bytes(60 - len(want))
    errs = []
    if len(frames) != count or out["sent"] != count or out["count"] != count:
        errs.append(f"sent {out['sent']}, pcap has {len(frames)}, want {count}")
    for i, fr in enumerate(frames):
        if fr != want:
            errs.append(f"frame {i}: {fr.hex()}\n   want: {want.hex()}")
    if (out["prio"] != [p for p in range(8) if vec >> p & 1] or out["quanta"] != quanta or
            out["frame_len"] != 60 or out["error"] is not None or out["global"] != glob or
            out["malformed"] != bad):
        errs.append(f"JSON {r.stdout.strip()}")
    if frames:
        # first_ns/last_ns are the stamps the pcap carries, to the microsecond
        if (abs(out["first_ns"] - times[0]) > 2000 or abs(out["last_ns"] - times[-1]) > 2000
                or out["first_ns"] > out["last_ns"]):
            errs.append(f"first_ns {out['first_ns']} last_ns {out['last_ns']}, pcap "
                        f"{times[0]} {times[-1]}")
        span = out["last_ns"] - out["first_ns"]
        need = (count - 1) * interval_us * 1000
        # frame i is due at t0 + i*U: the span is never short, and only a
        # stalled host makes it long
        if span < need - 100000 or span > need + 500 * 10**6:
            errs.append(f"first to last {span} ns, want about {need}")
    check(desc + ": every byte of every frame, and the JSON", not errs, "\n".join(errs))
    return pcap


pfc_pcaps = {
    "prio3": check_pfc("prio3", []),
    "multi": check_pfc("multi", ["--prio", "5,0,3", "--quanta", "0x1234", "--count", "5",
                                 "--interval-us", "20000"],
                       count=5, prios=(0, 3, 5), quanta=0x1234, interval_us=20000),
    "xon": check_pfc("xon", ["--prio", "7", "--quanta", "0"], prios=(7,), quanta=0),
    "all": check_pfc("all", ["--prio", "0,1,2,3,4,5,6,7", "--quanta", "1"],
                     prios=range(8), quanta=1),
    "global": check_pfc("global", ["--global", "--quanta", "300", "--count", "2"], count=2,
                        quanta=300, glob=True),
}
for kind in ("opcode", "vector", "dst"):
    pfc_pcaps[kind] = check_pfc(f"malformed-{kind}", ["--malformed", kind], bad=kind)
pfc_pcaps["global-dst"] = check_pfc("global-malformed-dst", ["--global", "--malformed", "dst"],
                                    glob=True, bad="dst")

TSHARK_PFC = ["macc.opcode", "macc.cbfc.enbv"] + \
    [f"macc.cbfc.pause_time.c{p}" for p in range(8)] + \
    ["macc.pause_time", "macc.cbfc.enbv.not_zero", "macc.dst_address_invalid"]
# what tshark 4.0 says of each: opcode, vector, 8 quanta, PAUSE quanta, then
# its warnings for reserved vector bits and for a wrong destination
want_tshark = {
    "prio3": ["0x0101", "0x0008", "0", "0", "0", "65535", "0", "0", "0", "0", "", "", ""],
    "multi": ["0x0101", "0x0029", "4660", "0", "0", "4660", "0", "4660", "0", "0", "", "", ""],
    "xon": ["0x0101", "0x0080"] + ["0"] * 8 + ["", "", ""],
    "all": ["0x0101", "0x00ff"] + ["1"] * 8 + ["", "", ""],
    "global": ["0x0001", ""] + [""] * 8 + ["300", "", ""],
    "opcode": ["0x0002", ""] + [""] * 8 + ["", "", ""],
    "vector": ["0x0101", "0x0108", "0", "0", "0", "65535", "0", "0", "0", "0", "", "1", ""],
    "dst": ["0x0101", "0x0008", "0", "0", "0", "65535", "0", "0", "0", "0", "", "", "1"],
    "global-dst": ["0x0001", ""] + [""] * 8 + ["65535", "", "1"],
}
if shutil.which("tshark"):
    bad = []
    for name, pcap in pfc_pcaps.items():
        if not pcap:
            continue
        args = ["tshark", "-r", pcap, "-T", "fields"]
        for fld in TSHARK_PFC:
            args += ["-e", fld]
        r = subprocess.run(args, capture_output=True, text=True, timeout=60)
        rows = [line.split("\t") for line in r.stdout.splitlines()]
        if not rows or any(row != want_tshark[name] for row in rows):
            bad.append(f"{name}: {rows} (want {want_tshark[name]}) {r.stderr.strip()}")
    check("tshark: ft_pfc's PFC/PAUSE opcodes, vectors, quanta and warnings", not bad,
          "\n".join(bad))
else:
    print(f"ok {len(results) + 1} tshark decode of ft_pfc # SKIP tshark not installed")
    results.append(True)

# ---- 6. options ------------------------------------------------------------

usage_cases = {
    "ft_qps": [[], ["--server", "--loopback"], ["--peer", "1.2.3.4", "-n", "0"],
               ["--loopback", "-n", "3"], ["--server", "--op", "atomic"],
               ["--server", "--size", "-1"], ["--server", "--qp-type", "ud", "--op", "write"],
               ["--server", "--qp-type", "uc", "--op", "read"],
               ["--no-connect", "--iters", "5"], ["--server", "--qp-state", "reset"],
               ["--server", "--hold", "--destroy-after", "5"], ["--server", "--mtu", "1000"],
               ["--server", "--psn", "0x1000000"], ["--server", "--timeout-s", "x"],
               ["--server", "--bogus"], ["--server", "extra"], ["--peer", "1.2.3.4", "--bind", "0.0.0.0"],
               ["--peer", "1.2.3"], ["--server", "--bind", "host"], ["--server", "-p", "0"],
               ["--loopback", "-n", "2", "--reconnect", "0"],
               ["--server", "--reconnect", "0", "--op", "send"],
               ["--server", "--reconnect", "0", "--srq"], ["--server", "--reconnect", "-1"]],
    "ft_rnr": [[], ["--server", "--peer", "1.2.3.4"], ["--peer", "1.2.3.4", "--rnr-retry", "8"],
               ["--server", "--rnr-retry", "1"], ["--peer", "1.2.3.4", "--recvs", "1"],
               ["--server", "--min-rnr-timer", "32"], ["--server", "--sends", "0"],
               ["--server", "--sends", "2", "--recvs", "3"], ["--peer", "node-b"]],
    "ft_timeout": [[], ["--peer", "1.2.3.4", "--timeout", "32"],
                   ["--peer", "1.2.3.4", "--retry-cnt", "8"], ["--server", "--seconds", "5"],
                   ["--peer", "1.2.3.4", "--seconds", "60", "--timeout-s", "30"],
                   ["--peer", "1.2.3.4", "--depth", "0"], ["--peer", "::1"],
                   ["--server", "--drain"], ["--peer", "1.2.3.4", "--drain", "--seconds", "5"],
                   ["--peer", "1.2.3.4", "--drain", "--depth", "2"]],
    "ft_cnp": [[], ["--ifname", "eth0", "--dst-ip", "10.0.0.1"],
               ["--ifname", "eth0", "--qpn", "1"],
               ["--ifname", "eth0", "--dst-ip", "10.0.0.300", "--qpn", "1"],
               ["--ifname", "eth0", "--dst-ip", "10.0.0.1", "--qpn", "0x1000000"],
               ["--ifname", "eth0", "--dst-ip", "10.0.0.1", "--qpn", "1", "--dscp", "64"],
               ["--ifname", "eth0", "--dst-ip", "10.0.0.1", "--qpn", "1", "--ecn", "4"],
               ["--ifname", "eth0", "--dst-ip", "10.0.0.1", "--qpn", "1", "--dst-mac", "zz"],
               ["--ifname", "eth0", "--dst-ip", "10.0.0.1", "--qpn", "1", "--count", "0"],
               ["--ifname", "x" * 20, "--dst-ip", "10.0.0.1", "--qpn", "1"],
               ["--pcap", "/dev/null", "--dst-ip", "10.0.0.1", "--qpn", "1"]],
    "ft_icrc": [[], ["--self-test", "x.pcap"], ["--bogus"]],
    "ft_pfc": [[], ["--pcap", "/dev/null"], ["--ifname", "x" * 20],
               ["--ifname", "eth0", "--prio", "8"], ["--ifname", "eth0", "--prio", "1,,2"],
               ["--ifname", "eth0", "--prio", "3,"], ["--ifname", "eth0", "--prio", "12"],
               ["--ifname", "eth0", "--prio", ""], ["--ifname", "eth0", "--quanta", "65536"],
               ["--ifname", "eth0", "--quanta", "-1"], ["--ifname", "eth0", "--count", "0"],
               ["--ifname", "eth0", "--interval-us", "-1"],
               ["--ifname", "eth0", "--global", "--prio", "3"],
               ["--ifname", "eth0", "--global", "--malformed", "vector"],
               ["--ifname", "eth0", "--malformed", "short"],
               ["--ifname", "eth0", "--src-mac", "zz"], ["--ifname", "eth0", "--timeout-s", "x"],
               ["--ifname", "eth0", "extra"]],
}
for prog, cases in usage_cases.items():
    r = run(prog, "--help")
    check(f"{prog} --help: exit 0, usage on stdout", r.returncode == 0 and "Usage" in r.stdout,
          r.stderr)
    bad = []
    for args in cases:
        r = run(prog, *args)
        if r.returncode != 2 or not r.stderr.strip() or r.stdout:
            bad.append(f"{args}: exit {r.returncode}, stderr {r.stderr.strip()!r}")
    check(f"{prog}: {len(cases)} bad command lines exit 2 with a message", not bad,
          "\n".join(bad))

# ---- 7. no such device ------------------------------------------------------

r = run("ft_qps", "-d", "ft-no-such-dev", "--no-connect", "-n", "1")
check("ft_qps: unknown RDMA device is exit 1 with a message",
      r.returncode == 1 and "ft-no-such-dev" in r.stderr and not r.stdout, r.stderr)
for prog, role in (("ft_rnr", "--server"), ("ft_timeout", "--server")):
    r = run(prog, role, "-d", "ft-no-such-dev")
    check(f"{prog}: unknown RDMA device is exit 1 with a message",
          r.returncode == 1 and "ft-no-such-dev" in r.stderr, r.stderr)
r = run("ft_pfc", "--ifname", "ft-no-such-if")
check("ft_pfc: unknown interface is exit 1, a message and the JSON's error",
      r.returncode == 1 and "ft-no-such-if" in r.stderr and
      '"error":"no such interface"' in r.stdout and '"sent":0' in r.stdout,
      r.stdout + r.stderr)

shutil.rmtree(TMP, ignore_errors=True)
print(f"1..{len(results)}")
sys.exit(0 if all(results) else 1)
