#!/usr/bin/env python3
"""Compare t/helper/jvmnames' blobs with a JVM's own perf map.

usage: jvm_perfmap_cmp.py PERFMAP NAMES [NAMES...] [--min N] [--want NAME...]

The perf map (jcmd PID Compiler.perfmap) is the oracle: each Java
method it lists ("int JvmWork.fib(int)") must be in one of the NAMES
snapshots (taken just before and after it, as code may come and go in
between) at the same address, with the same code size and the same
"Class.method"; the interpreter likewise.  Prints the counts; exits 1
on any difference, on fewer than N methods compared, or when a method
of --want is not among them.
"""
import re
import sys

METHOD = re.compile(r"^(?:\S+ )?([^\s(]+)\((.*)\)$")


def names(path):
    blobs = {}
    for line in open(path):
        if line.startswith("#") or line.startswith("I "):
            continue
        head, _, rest = line.rstrip("\n").partition("\t")
        parts = head.split(" ", 3)
        if len(parts) < 4:
            continue
        start, size, kind, name = parts
        blobs[int(start, 16)] = (int(size, 16), kind, name)
    return blobs


def main(argv):
    want, minimum, files = [], 1, []
    i = 1
    while i < len(argv):
        if argv[i] == "--min":
            minimum = int(argv[i + 1])
            i += 2
        elif argv[i] == "--want":
            want.append(argv[i + 1])
            i += 2
        else:
            files.append(argv[i])
            i += 1
    perfmap, snaps = files[0], [names(f) for f in files[1:]]
    compared, bad, seen = 0, 0, set()
    for line in open(perfmap):
        f = line.rstrip("\n").split(" ", 2)
        if len(f) < 3:
            continue
        start, size, name = int(f[0], 16), int(f[1], 16), f[2]
        m = METHOD.match(name)
        if m:
            expect = m.group(1).replace("/", ".")
            kinds = ("nmethod", "native")
        elif name == "Interpreter":
            expect, kinds = "Interpreter", ("interpreter",)
        else:
            continue
        got = [s[start] for s in snaps if start in s]
        ok = any(g[0] == size and g[1] in kinds and g[2] == expect
                 for g in got)
        compared += 1
        seen.add(expect)
        if not ok:
            bad += 1
            print("differ: %#x %#x %s: %s" % (start, size, name,
                  got if got else "not found"))
    missing = [w for w in want if w not in seen]
    print("compared %d, differ %d, missing %s" % (compared, bad,
          missing or "none"))
    return 1 if bad or compared < minimum or missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
