#!/usr/bin/env python3
"""Print the function symbols of the vDSO, one "start end name" a line
(hexadecimal offsets from the vDSO's start), read from this process's
own vDSO: the kernel maps the same image into every process."""
import struct
import sys


def main():
    lo = hi = None
    with open("/proc/self/maps") as f:
        for line in f:
            if line.rstrip().endswith("[vdso]"):
                lo, hi = (int(x, 16) for x in line.split()[0].split("-"))
    if lo is None:
        sys.exit("no [vdso] mapping")
    with open("/proc/self/mem", "rb") as m:
        m.seek(lo)
        img = m.read(hi - lo)
    shoff, = struct.unpack_from("<Q", img, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", img, 0x3a)
    secs = [struct.unpack_from("<IIQQQQIIQQ", img, shoff + i * shentsize)
            for i in range(shnum)]
    for sh in secs:
        if sh[1] != 11:			# SHT_DYNSYM
            continue
        strtab = secs[sh[6]]
        for off in range(sh[4], sh[4] + sh[5], 24):
            name, info, _, _, value, size = struct.unpack_from(
                "<IBBHQQ", img, off)
            if info & 0xf != 2 or size == 0:	# STT_FUNC
                continue
            s = strtab[4] + name
            n = img[s:img.index(b"\0", s)].decode()
            print("%x %x %s" % (value, value + size, n))


main()
