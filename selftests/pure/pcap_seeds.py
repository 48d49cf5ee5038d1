#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Split Ethernet pcap files into fuzzer seeds: one file per IPv4 frame,
from its IP header on, as rxe's taps hand frames to the parser.

    pcap_seeds.py OUTDIR PCAP...
"""
import os
import struct
import sys


def frames(path):
    with open(path, 'rb') as f:
        data = f.read()
    magic, = struct.unpack_from('<I', data)
    endian = {0xa1b2c3d4: '<', 0xd4c3b2a1: '>',
              0xa1b23c4d: '<', 0x4d3cb2a1: '>'}.get(magic)
    if endian is None:
        sys.exit(f'{path}: not a pcap file')
    linktype, = struct.unpack_from(endian + 'I', data, 20)
    if linktype != 1:
        sys.exit(f'{path}: link type {linktype}, not Ethernet')
    off = 24
    while off + 16 <= len(data):
        _, _, incl, _ = struct.unpack_from(endian + 'IIII', data, off)
        off += 16
        frame = data[off:off + incl]
        off += incl
        if len(frame) > 14 and frame[12:14] == b'\x08\x00':
            yield frame[14:]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    n = 0
    for path in sys.argv[2:]:
        for frame in frames(path):
            with open(os.path.join(out, f'pcap-{n:04d}'), 'wb') as f:
                f.write(frame)
            n += 1
    print(f'pcap_seeds: {n} frames from {len(sys.argv) - 2} captures')


if __name__ == '__main__':
    main()
