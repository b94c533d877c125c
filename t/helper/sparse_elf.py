#!/usr/bin/env python3
"""sparse_elf.py SRC DST...: copies of the ELF file SRC whose .eh_frame
and .eh_frame_hdr claim 48 MiB each, in a hole of a sparse file of
128 MiB: a few KiB on disk, sections of zeros as large as the daemon
would read (t/t8101-unwind-sparse-files.sh)."""
import struct
import sys

MIB = 1 << 20


def patch(data):
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    stroff, = struct.unpack_from("<Q", data, shoff + shstrndx * shentsize
                                 + 0x18)
    done = 0
    for i in range(shnum):
        sh = shoff + i * shentsize
        name, = struct.unpack_from("<I", data, sh)
        end = data.index(b"\0", stroff + name)
        sname = bytes(data[stroff + name:end])
        if sname == b".eh_frame":
            struct.pack_into("<QQ", data, sh + 0x18, 16 * MIB, 48 * MIB)
            done += 1
        elif sname == b".eh_frame_hdr":
            struct.pack_into("<QQ", data, sh + 0x18, 64 * MIB, 48 * MIB)
            done += 1
    if done != 2:
        sys.exit("%s: no .eh_frame and .eh_frame_hdr" % sys.argv[1])


data = bytearray(open(sys.argv[1], "rb").read())
patch(data)
for dst in sys.argv[2:]:
    with open(dst, "wb") as f:
        f.write(data)
        f.truncate(128 * MIB)
